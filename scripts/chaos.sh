#!/usr/bin/env bash
# scripts/chaos.sh KIND [ROUNDS] — a membership nemesis: silos join, leave, die and pause under
# load, and nothing acknowledged is lost.
# KIND is the silos' shared logger: file (one --log-dir for all) or azure-table (one table in an
# Azurite of the script's own). SiloHosts with Redis clustering (redis-server, the Debian package)
# and Orleans' membership timing lowered (--membership-timeouts fast: a silo that answers no probe
# is declared dead within seconds), three to start with, so a majority stays while one is down.
# Each round (ROUNDS, else CHAOS_ROUNDS, default 1) has four events, each under its own LoadGen run
# of list-append through --cluster with every live gateway, with a history file (early-lock-release
# ACTs and hybrid with 90% PACTs in turn):
#   join   a new silo (a new name) starts: the cluster grows;
#   leave  one gets SIGTERM and stops gracefully; the others fail it over;
#   kill   one gets SIGKILL; the others fail it over; it starts again under its name once the
#          event's load is over (between events);
#   pause  one gets SIGSTOP until the others have declared it dead and failed it over, then SIGCONT:
#          Orleans' own fatal error handler stops a silo told it is dead, which the script reports
#          ("declared dead while paused and stopped itself"). It is fenced if the survivors fenced
#          it out of its logs before reading them ("Fenced silo X") and, woken, it was refused its
#          appends (a line of its log matching CHAOS_FENCE_PATTERN, default "was fenced: this
#          silo") or stopped before it appended anything; with CHAOS_REQUIRE_FENCE=1 a pause that
#          is not fenced fails the run. It starts again between events.
# At least two silos are live (not paused) at every moment. Victims are picked at random, as are
# the moments of the events within their runs. Then a last run dumps every list and `LoadGen check`
# runs over all the histories and the dump: every acknowledged commit present exactly once,
# nothing from an aborted transaction, no cycle. Calls the client had sent through a gateway that
# died end at its --response-timeout (CHAOS_RESPONSE_TIMEOUT, default 10 s) as unknown outcomes,
# which the check allows. Silos checkpoint every CHAOS_CHECKPOINT_INTERVAL seconds (default 0:
# never). CHAOS_TAIL: seconds of load after each event (default 2); CHAOS_PATIENCE: seconds a silo
# gets to start, stop, be failed over or stop itself (default 60); CHAOS_START_ATTEMPTS: starts of a
# silo that failed to start (default 1; more gets a run past a known failure, still reported).
# State goes to CHAOS_DIR (default artifacts/chaos). Exit 0 only if the check passes.
set -euo pipefail
cd "$(dirname "$0")/.."
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1

kind=${1:-}
rounds=${2:-${CHAOS_ROUNDS:-1}}
[[ "$kind" == file || "$kind" == azure-table ]] && [[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "usage: scripts/chaos.sh file|azure-table [ROUNDS]" >&2; exit 2; }
dir=${CHAOS_DIR:-artifacts/chaos}
fence_pattern=${CHAOS_FENCE_PATTERN:-was fenced: this silo}
patience=${CHAOS_PATIENCE:-60} # seconds a silo gets to start, stop, be failed over or stop itself
rm -rf "$dir" && mkdir -p "$dir" && dir=$(cd "$dir" && pwd)
source scripts/shared-logs.sh
command -v redis-server >/dev/null || { echo "error: redis-server not found (apt-get install redis-server)" >&2; exit 1; }
build_hosts

declare -A pid=() silo_port=() gateway_port=() log=() paused=()
names=()     # every silo ever started, in order
silos=0      # names handed out
redis_port=$(free_port)
azurite_pid=""
cleanup() {
  for name in "${names[@]}"; do
    [ -n "${pid[$name]:-}" ] && { kill -CONT "${pid[$name]}"; kill -KILL "${pid[$name]}"; wait "${pid[$name]}"; } 2>/dev/null || true
  done
  [ -n "${load_pid:-}" ] && kill -KILL "$load_pid" 2>/dev/null || true
  [ -n "$azurite_pid" ] && kill -TERM "$azurite_pid" 2>/dev/null || true
  redis-cli -p "$redis_port" shutdown nosave >/dev/null 2>&1 || true
}
trap cleanup EXIT

redis-server --bind 127.0.0.1 --port "$redis_port" --save '' --appendonly no --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log"
for _ in $(seq 50); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done
use_logs "$kind" chaos

now() { date +%s.%N; }
since() { python3 -c "import time; print(round(time.time() - $1, 1))"; }
pause_for() { sleep "$(python3 -c "import random; print(round(random.uniform($1, $2), 2))")"; }
live() { for name in "${names[@]}"; do [ -n "${pid[$name]:-}" ] && [ -z "${paused[$name]:-}" ] && echo "$name"; done; return 0; }
pick() { local all; mapfile -t all < <(live); victim=${all[RANDOM % ${#all[@]}]}; } # sets victim
gateways() { local list=""; for name in $(live); do list+="${list:+,}127.0.0.1:${gateway_port[$name]}"; done; echo "$list"; }

launch_silo() { # name, label (its log: $dir/name-label.log)
  local name=$1
  [ -n "${silo_port[$name]:-}" ] || { silo_port[$name]=$(free_port); gateway_port[$name]=$(free_port); names+=("$name"); }
  log[$name]="$dir/$name-$2.log"
  dotnet "$silohost" --clustering redis --redis "127.0.0.1:$redis_port" --name "$name" "${logger_flags[@]}" --membership-timeouts fast \
    --silo-port "${silo_port[$name]}" --gateway-port "${gateway_port[$name]}" --checkpoint-interval "${CHAOS_CHECKPOINT_INTERVAL:-0}" >"${log[$name]}" 2>&1 &
  pid[$name]=$!
}
await_silo() { # name
  for _ in $(seq $((patience * 2))); do grep -qs serving "${log[$1]}" && return 0; kill -0 "${pid[$1]}" 2>/dev/null || break; sleep 0.5; done
  tail -n 30 "${log[$1]}" >&2; echo "error: $1 did not start (see ${log[$1]})" >&2; exit 1
}
# A silo that fails to start is reported; with CHAOS_START_ATTEMPTS above 1 (default 1) it is started
# again, so a run can go on past a known failure to start.
start_silo() { # name, label
  local attempt
  for attempt in $(seq "${CHAOS_START_ATTEMPTS:-1}"); do
    launch_silo "$1" "$2$([ "$attempt" = 1 ] || echo "-attempt$attempt")"
    for _ in $(seq $((patience * 2))); do grep -qs serving "${log[$1]}" && return 0; kill -0 "${pid[$1]}" 2>/dev/null || break; sleep 0.5; done
    kill -KILL "${pid[$1]}" 2>/dev/null || true; wait "${pid[$1]}" 2>/dev/null || true; pid[$1]=""
    echo "FAILED START: $1 ($2, attempt $attempt): $(grep -m1 -e '^error' "${log[$1]}" || tail -n 1 "${log[$1]}")"
  done
  tail -n 30 "${log[$1]}" >&2; echo "error: $1 did not start (see ${log[$1]})" >&2; exit 1
}

# Failovers of NAME reported by the other silos (every log of theirs, past incarnations too).
failovers() { cat $(ls "$dir"/*.log | grep -v "/$1-" | grep -v -e /load- -e /redis -e /azurite -e /build) 2>/dev/null | grep -c "Failover of silo $1 done" || true; }
wait_failover() { # name, count before, event's time: prints the last survivor's line
  for _ in $(seq $((patience * 4))); do [ "$(failovers "$1")" -gt "$2" ] && break; sleep 0.25; done
  [ "$(failovers "$1")" -gt "$2" ] || { echo "error: the other silos did not fail $1 over within ${patience} s (see $dir)" >&2; exit 1; }
  failed_over=$(since "$3")
  cat $(ls "$dir"/*.log | grep -v "/$1-" | grep -v -e /load- -e /redis -e /azurite -e /build) | grep "Failover of silo $1 done" | tail -1 | sed 's/^/  /'
}

# A LoadGen run against every live gateway, in the background (load_pid, load_log), from before an
# event to CHAOS_TAIL seconds (default 2) after it: then SIGINT stops its issuing, it drains and
# writes its history. Runs alternate between early-lock-release ACTs and hybrid, starting with the
# one the round before did not.
runs=0
start_load() { # label; returns once it measures
  runs=$((runs + 1))
  mode=$([ $(((runs + round) % 2)) = 0 ] && echo act-elr || echo hybrid) # each event meets both over two rounds
  load_log="$dir/load-$1.log"
  # A background job ignores SIGINT, and so does a script started with it ignored (nohup, a CI
  # runner's background step), where `trap - INT` cannot undo it: env gives LoadGen the default.
  ( exec env --default-signal=INT dotnet "$loadgen" listappend --cluster "$(gateways)" --modes "$mode" --pact-percent 90 --actors 32 --txn-size 3 --pipeline 8 --warmup 0 \
      --duration 600 --response-timeout "${CHAOS_RESPONSE_TIMEOUT:-10}" --history "$dir/history-$1.jsonl" ) >"$load_log" 2>&1 &
  load_pid=$!
  load_started=$(now)
  for _ in $(seq $((patience * 4))); do grep -qs "then measuring" "$load_log" && break; kill -0 "$load_pid" 2>/dev/null || break; sleep 0.25; done
  grep -q "then measuring" "$load_log" || { tail -n 20 "$load_log" >&2; echo "error: LoadGen did not start issuing ($1)" >&2; exit 1; }
  pause_for 0.5 2.5
}
end_load() { # label
  sleep "${CHAOS_TAIL:-2}"
  kill -INT "$load_pid" 2>/dev/null || true
  wait_load "$load_pid" "$load_log"
  local entries=0; [ -f "$dir/history-$1.jsonl" ] && entries=$(wc -l <"$dir/history-$1.jsonl")
  local committed; committed=$(grep -E "^\| $mode +\|" "$load_log" | awk -F'|' '{gsub(/ /,"",$4); print $4}')
  echo "  load $1 ($mode, $(since "$load_started") s): ${committed:-?} committed, $entries transactions in its history$(grep -q "did not finish within" "$load_log" && echo "; some did not finish within its drain" || true)"
}

join_one() {
  local label="r$1-join" name="silo$((silos += 1))"
  start_load "$label"
  local at; at=$(now)
  start_silo "$name" "$label"
  echo "round $1 ($mode): $name joined in $(since "$at") s; live: $(live | xargs)"
  end_load "$label"
}

leave_one() {
  local label="r$1-leave"; pick
  start_load "$label"
  local before at; before=$(failovers "$victim"); at=$(now)
  kill -TERM "${pid[$victim]}"
  for _ in $(seq $((patience * 4))); do kill -0 "${pid[$victim]}" 2>/dev/null || break; sleep 0.25; done
  if kill -0 "${pid[$victim]}" 2>/dev/null; then
    echo "error: $victim had not stopped ${patience} s after SIGTERM; its log ends:" >&2; tail -n 20 "${log[$victim]}" >&2; exit 1
  fi
  local code=0; wait "${pid[$victim]}" 2>/dev/null || code=$?; pid[$victim]=""
  echo "round $1 ($mode): SIGTERM to $victim: stopped in $(since "$at") s (exit $code)$(grep -q "failed to deactivate promptly" "${log[$victim]}" && echo "; Orleans: some grains failed to deactivate promptly" || true)"
  wait_failover "$victim" "$before" "$at"
  echo "round $1: $victim failed over ${failed_over} s after the SIGTERM; live: $(live | xargs)"
  end_load "$label"
}

kill_one() {
  local label="r$1-kill"; pick
  start_load "$label"
  local before at; before=$(failovers "$victim"); at=$(now)
  kill -KILL "${pid[$victim]}"; wait "${pid[$victim]}" 2>/dev/null || true; pid[$victim]=""
  echo "round $1 ($mode): SIGKILL to $victim"
  wait_failover "$victim" "$before" "$at"
  echo "round $1: $victim failed over ${failed_over} s after the SIGKILL"
  end_load "$label"
  local back; back=$(now)
  start_silo "$victim" "$label-back"
  echo "round $1: $victim started again in $(since "$back") s, between events; live: $(live | xargs)"
}

fences=0
pause_one() {
  local label="r$1-pause"; pick
  start_load "$label"
  local before at woke; before=$(failovers "$victim"); at=$(now)
  kill -STOP "${pid[$victim]}"; paused[$victim]=1
  echo "round $1 ($mode): SIGSTOP to $victim"
  wait_failover "$victim" "$before" "$at"
  echo "round $1: $victim declared dead and failed over ${failed_over} s into its pause"
  sleep 1
  kill -CONT "${pid[$victim]}"; paused[$victim]=""; woke=$(now)
  # (bash reports a job that died of a signal when it notices, on stderr: the loop's is silenced)
  { for _ in $(seq $((patience * 4))); do kill -0 "${pid[$victim]}" || break; sleep 0.25; done; } 2>/dev/null
  if kill -0 "${pid[$victim]}" 2>/dev/null; then
    echo "warning: $victim still runs ${patience} s after SIGCONT, though declared dead; killed. Its log ends:" >&2
    tail -n 20 "${log[$victim]}" >&2
    kill -KILL "${pid[$victim]}"; wait "${pid[$victim]}" 2>/dev/null || true
  else
    local code=0; wait "${pid[$victim]}" 2>/dev/null || code=$?
    if grep -q "I have been told I am dead" "${log[$victim]}"; then
      echo "round $1: silo $victim was declared dead while paused and stopped itself $(since "$woke") s after SIGCONT (exit $code: Orleans' \"I have been told I am dead\")"
    else
      echo "round $1: silo $victim exited $(since "$woke") s after SIGCONT (exit $code), without Orleans saying it was told it is dead; its log ends:"
      tail -n 5 "${log[$victim]}" | cut -c1-300 | sed 's/^/  /'
    fi
  fi
  pid[$victim]=""
  # The survivors fenced it out of its logs before they read them; woken, it was refused what it
  # appended after (and stopped), or stopped before it appended anything.
  local fenced_out refused
  fenced_out=$(cat $(ls "$dir"/*.log | grep -v "/$victim-" | grep -v -e /load- -e /redis -e /azurite -e /build) 2>/dev/null | grep -c "Fenced silo $victim (incarnation" || true)
  refused=$(grep -E -- "$fence_pattern" "${log[$victim]}" | grep -v -e '^   at ' || true)
  if [ "$fenced_out" -gt 0 ] && { [ -n "$refused" ] || grep -q "I have been told I am dead" "${log[$victim]}"; }; then
    fences=$((fences + 1))
    echo "round $1: $victim was fenced: the survivors fenced it out of its log(s) ($fenced_out line(s)), and woken it $([ -n "$refused" ] && echo "was refused its appends ($(wc -l <<<"$refused") line(s)):" || echo "stopped before it appended")"
    [ -z "$refused" ] || head -n 2 <<<"$refused" | cut -c1-300 | sed 's/^/  /'
  else
    echo "round $1: $victim was not fenced (survivors' fence lines: $fenced_out; refused appends: $([ -n "$refused" ] && echo yes || echo none))"
    [ "${CHAOS_REQUIRE_FENCE:-}" != 1 ] || { echo "error: CHAOS_REQUIRE_FENCE=1 and $victim woke up unfenced (see ${log[$victim]})" >&2; exit 1; }
  fi
  end_load "$label"
  local back; back=$(now)
  start_silo "$victim" "$label-back"
  echo "round $1: $victim started again in $(since "$back") s, between events; live: $(live | xargs)"
}

started=$(now)
for _ in 1 2 3; do launch_silo "silo$((silos += 1))" start; done
for name in "${names[@]}"; do await_silo "$name"; done
echo "silos ${names[*]} serving ($(since "$started") s), $kind logs"
for round in $(seq "$rounds"); do
  round_started=$(now)
  join_one "$round"
  leave_one "$round"
  kill_one "$round"
  pause_one "$round"
  echo "round $round done in $(since "$round_started") s"
done

dotnet "$loadgen" listappend --cluster "$(gateways)" --modes hybrid,act-elr --pact-percent 90 --actors 32 --txn-size 3 --pipeline 8 --warmup 0 --duration 2 \
  --history "$dir/history-final.jsonl" --dump "$dir/dump.json" >"$dir/load-final.log" 2>&1 \
  || { cat "$dir/load-final.log" >&2; echo "error: the run after the chaos failed" >&2; exit 1; }
echo "$rounds round(s) in $(since "$started") s; $fences of $rounds paused silo(s) fenced"
dotnet "$loadgen" check --history "$dir"/history-*.jsonl --dump "$dir/dump.json"
