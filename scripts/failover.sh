#!/usr/bin/env bash
# scripts/failover.sh KIND — one silo of two dies under load, and nothing acknowledged is lost.
# KIND is the silos' shared logger: file (one --log-dir for both) or azure-table (one table in an
# Azurite of the script's own). Two SiloHosts with Redis clustering (redis-server, the Debian
# package), LoadGen driving list-append through --cluster with a history file: hybrid (90% PACTs)
# in odd rounds, early-lock-release ACTs in even ones. At a random moment one of the two silos,
# chosen at random, gets SIGKILL; the survivor fails it over (docs/architecture.md, "A silo dies")
# and the load goes on against it; the dead silo is started again for the next round.
# FAILOVER_ROUNDS rounds (default 2). Then a last run dumps every list and `LoadGen check` runs
# over all the histories and the dump: every acknowledged commit present exactly once, nothing from
# an aborted transaction, no cycle. Calls the client had sent through the dead silo's gateway end
# at the client's --response-timeout (FAILOVER_RESPONSE_TIMEOUT, default 10 s) as unknown outcomes,
# which the check allows.
# State goes to FAILOVER_DIR (default artifacts/failover). Exit 0 only if the check passes.
set -euo pipefail
cd "$(dirname "$0")/.."
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1

kind=${1:-}
[[ "$kind" == file || "$kind" == azure-table ]] || { echo "usage: scripts/failover.sh file|azure-table" >&2; exit 2; }
rounds=${FAILOVER_ROUNDS:-2}
dir=${FAILOVER_DIR:-artifacts/failover}
rm -rf "$dir" && mkdir -p "$dir" && dir=$(cd "$dir" && pwd)
source scripts/shared-logs.sh
command -v redis-server >/dev/null || { echo "error: redis-server not found (apt-get install redis-server)" >&2; exit 1; }
build_hosts

names=(silo1 silo2)
silo_ports=("$(free_port)" "$(free_port)")
gateway_ports=("$(free_port)" "$(free_port)")
redis_port=$(free_port)
pids=("" "")
azurite_pid=""
cleanup() {
  for pid in "${pids[@]}"; do [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true; done
  [ -n "$azurite_pid" ] && kill -TERM "$azurite_pid" 2>/dev/null || true
  redis-cli -p "$redis_port" shutdown nosave >/dev/null 2>&1 || true
}
trap cleanup EXIT

redis-server --bind 127.0.0.1 --port "$redis_port" --save '' --appendonly no --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log"
for _ in $(seq 50); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done
use_logs "$kind" failover

start_silo() { # index, label
  local log="$dir/${names[$1]}-$2.log"
  dotnet "$silohost" --clustering redis --redis "127.0.0.1:$redis_port" --name "${names[$1]}" "${logger_flags[@]}" \
    --silo-port "${silo_ports[$1]}" --gateway-port "${gateway_ports[$1]}" --checkpoint-interval 0 >"$log" 2>&1 &
  pids[$1]=$!
  for _ in $(seq 120); do grep -q serving "$log" && return 0; kill -0 "${pids[$1]}" 2>/dev/null || break; sleep 0.5; done
  cat "$log" >&2; echo "error: ${names[$1]} did not start ($2)" >&2; exit 1
}

gateways="127.0.0.1:${gateway_ports[0]},127.0.0.1:${gateway_ports[1]}"
load=(listappend --cluster "$gateways" --actors 32 --txn-size 3 --pipeline 8 --warmup 0 --pact-percent 90 --response-timeout "${FAILOVER_RESPONSE_TIMEOUT:-10}")
start_silo 0 start
start_silo 1 start
for round in $(seq "$rounds"); do
  mode=$([ $((round % 2)) = 1 ] && echo hybrid || echo act-elr)
  dotnet "$loadgen" "${load[@]}" --modes "$mode" --duration 8 --history "$dir/history-$round.jsonl" >"$dir/load-$round.log" 2>&1 &
  load_pid=$!
  victim=$((RANDOM % 2))
  sleep "$(python3 -c 'import random; print(round(random.uniform(2.0, 7.0), 2))')"
  survivor=$((1 - victim))
  failovers() { cat "$dir"/"${names[$survivor]}"-*.log | grep -c "Failover of silo ${names[$victim]} done" || true; }
  before=$(failovers)
  kill -KILL "${pids[$victim]}"; wait "${pids[$victim]}" 2>/dev/null || true; pids[$victim]=""
  killed_at=$(date +%s.%N)
  echo "round $round ($mode): killed ${names[$victim]}"
  for _ in $(seq 240); do [ "$(failovers)" -gt "$before" ] && break; sleep 0.25; done
  failed_over=$(python3 -c "import time; print(round(time.time() - $killed_at, 1))")
  [ "$(failovers)" -gt "$before" ] || { echo "error: ${names[$survivor]} did not fail ${names[$victim]} over (see $dir)" >&2; exit 1; }
  cat "$dir"/"${names[$survivor]}"-*.log | grep "Failover of silo ${names[$victim]} done" | tail -1
  wait_load "$load_pid" "$dir/load-$round.log" # calls in flight through the dead silo's gateway fail; the rest goes on
  echo "round $round: failed over ${failed_over} s after the kill (Orleans declares the silo dead first); $(wc -l <"$dir/history-$round.jsonl") transactions in its history"
  start_silo "$victim" "round$round"
done

dotnet "$loadgen" "${load[@]}" --modes hybrid,act-elr --duration 2 --history "$dir/history-final.jsonl" --dump "$dir/dump.json" >"$dir/load-final.log" 2>&1 \
  || { cat "$dir/load-final.log" >&2; echo "error: the run after the failover failed" >&2; exit 1; }
dotnet "$loadgen" check --history "$dir"/history-*.jsonl --dump "$dir/dump.json"
