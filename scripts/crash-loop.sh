#!/usr/bin/env bash
# scripts/crash-loop.sh KIND [N] — nothing acknowledged is lost when a silo is killed.
# KIND is the silo's logger: file or azure-table. N rounds (default $CRASH_ROUNDS, else 3) each
# start one SiloHost on the same log folder or table, drive hybrid list-append through --cluster
# with a history file, and SIGKILL the silo at a random moment of the load. Then the silo starts once
# more, a last run dumps every list, and `LoadGen check` runs over all the histories and the dump:
# every acknowledged commit present exactly once, nothing from an aborted transaction, no cycle.
# Every append also registers an after-commit action, which the silo's handler notes in a journal
# (SiloHost --after-commit-journal); the check reads it too: every committed transaction's actions
# taken at least once (those owed when the silo was killed, after its restart), none of an aborted
# one, and a repeat delivery dropped by id.
# CRASH_USER_ABORTS percent of the transactions (default 2) roll back after appending everywhere,
# so PACTs taking back their writes (and their readers') are killed and recovered too. The silo
# checkpoints its logs every CRASH_CHECKPOINT_INTERVAL seconds (default 1), so kills land in the
# middle of checkpoint rounds and truncations too.
# azure-table needs Azurite (tools/azurite, installed by .ci/run): the script starts its own, with
# its data on disk so it survives nothing but the silo's deaths. State goes to CRASH_DIR (default
# artifacts/crash-loop). Exit 0 only if the check passes.
set -euo pipefail
cd "$(dirname "$0")/.."
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1

kind=${1:-}
rounds=${2:-${CRASH_ROUNDS:-3}}
[[ "$kind" == file || "$kind" == azure-table ]] || { echo "usage: scripts/crash-loop.sh file|azure-table [N]" >&2; exit 2; }
dir=${CRASH_DIR:-artifacts/crash-loop}
rm -rf "$dir" && mkdir -p "$dir" && dir=$(cd "$dir" && pwd)
source scripts/shared-logs.sh
silo_port=$(free_port); gateway_port=$(free_port)
build_hosts

use_logs "$kind" crashloop

silo_pid=""
cleanup() {
  [ -n "$silo_pid" ] && kill -KILL "$silo_pid" 2>/dev/null || true
  [ -n "$azurite_pid" ] && kill -TERM "$azurite_pid" 2>/dev/null || true
}
trap cleanup EXIT

start_silo() {
  local log="$dir/silo-$1.log"
  dotnet "$silohost" --silo-port "$silo_port" --gateway-port "$gateway_port" --name crashloop "${logger_flags[@]}" --checkpoint-interval "${CRASH_CHECKPOINT_INTERVAL:-1}" --after-commit-journal "$dir/journal.tsv" >"$log" 2>&1 &
  silo_pid=$!
  for _ in $(seq 120); do grep -q serving "$log" && return 0; kill -0 "$silo_pid" 2>/dev/null || break; sleep 0.5; done
  cat "$log" >&2; echo "error: the silo did not start (round $1)" >&2; exit 1
}

load=(listappend --cluster "127.0.0.1:$gateway_port" --modes hybrid --pact-percent 90 --actors 16 --txn-size 3 --pipeline 8 --warmup 0 --user-aborts "${CRASH_USER_ABORTS:-2}" --after-commit)
for round in $(seq "$rounds"); do
  start_silo "$round"
  dotnet "$loadgen" "${load[@]}" --duration 6 --history "$dir/history-$round.jsonl" >"$dir/load-$round.log" 2>&1 &
  load_pid=$!
  sleep "$(python3 -c 'import random; print(round(random.uniform(1.0, 4.0), 2))')"
  kill -KILL "$silo_pid"; wait "$silo_pid" 2>/dev/null || true; silo_pid=""
  wait_load "$load_pid" "$dir/load-$round.log"   # it fails: its silo died under it
  if [ -f "$dir/history-$round.jsonl" ]; then
    echo "round $round: killed the silo; $(wc -l <"$dir/history-$round.jsonl") transactions in its history"
  else
    echo "round $round: killed the silo before the load connected; no history"
  fi
done

start_silo final
dotnet "$loadgen" "${load[@]}" --duration 2 --history "$dir/history-final.jsonl" --dump "$dir/dump.json" >"$dir/load-final.log" 2>&1 \
  || { cat "$dir/load-final.log" >&2; echo "error: the run after the last restart failed" >&2; exit 1; }
# The last run's actions are taken after its transactions commit: wait until the journal stops growing.
journal_lines() { wc -l <"$dir/journal.tsv" 2>/dev/null || echo 0; }
last=-1
for _ in $(seq 60); do now=$(journal_lines); [ "$now" = "$last" ] && break; last=$now; sleep 1; done
dotnet "$loadgen" check --history "$dir"/history-*.jsonl --dump "$dir/dump.json" --journal "$dir/journal.tsv"
