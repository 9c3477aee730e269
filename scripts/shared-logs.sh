# Sourced by scripts/crash-loop.sh, scripts/failover.sh and scripts/chaos.sh (not run on its own):
# the silos' log storage for a run in folder $dir.
#   build_hosts                sets silohost and loadgen (their Release builds) and builds them,
#                              unless SKIP_BUILD=1 (the tests, which run on a build already made)
#   free_port                  a free TCP port on 127.0.0.1, never one this run took before
#   wait_load PID LOG          waits for a LoadGen whose silo was killed under it, at most
#                              LOAD_PATIENCE seconds (default 120: its drain gives up after 45 s);
#                              past that it is killed and the tail of LOG printed, so a hang shows
#                              where it was instead of eating the caller's whole time limit
#   use_logs KIND TABLE        sets logger_flags for SiloHost: file (a log folder in $dir) or
#                              azure-table (table TABLE in an Azurite of the run's own, data in $dir,
#                              its pid in azurite_pid for the caller's cleanup)

build_hosts() {
  silohost=samples/SiloHost/bin/Release/net10.0/SiloHost.dll
  loadgen=benchmarks/Snapper.LoadGen/bin/Release/net10.0/Snapper.LoadGen.dll
  [ "${SKIP_BUILD:-}" == 1 ] && return 0
  dotnet build samples/SiloHost -c Release -nologo -v quiet >"$dir/build.log" 2>&1 && dotnet build benchmarks/Snapper.LoadGen -c Release -nologo -v quiet >>"$dir/build.log" 2>&1 \
    || { cat "$dir/build.log" >&2; echo "error: build failed" >&2; exit 1; }
}

# The kernel may hand the same ephemeral port to two binds in a row once the first socket is
# closed, so the ports a run has taken are kept in $dir/ports and never handed out twice.
free_port() {
  local port
  for _ in $(seq 50); do
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
    grep -qx "$port" "$dir/ports" 2>/dev/null || { echo "$port" >>"$dir/ports"; echo "$port"; return 0; }
  done
  echo "error: no free port on 127.0.0.1 not already taken by this run" >&2; return 1
}

wait_load() {
  local pid=$1 log=$2
  for _ in $(seq $((${LOAD_PATIENCE:-120} * 4))); do
    kill -0 "$pid" 2>/dev/null || { wait "$pid" || true; return 0; }
    sleep 0.25
  done
  echo "warning: LoadGen (pid $pid) had not exited ${LOAD_PATIENCE:-120} s on; killed. The end of $log:" >&2
  tail -n 20 "$log" >&2
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" || true
}

use_logs() {
  azurite_pid=""
  logger_flags=(--logger file --log-dir "$dir/logs")
  if [ "$1" == azure-table ]; then
    local azurite=tools/azurite/node_modules/.bin/azurite-table
    [ -x "$azurite" ] || { echo "error: Azurite not installed: npm ci --prefix tools/azurite" >&2; exit 1; }
    local table_port; table_port=$(free_port)
    "$azurite" --tableHost 127.0.0.1 --tablePort "$table_port" --location "$dir/azurite" --disableTelemetry --skipApiVersionCheck --silent >"$dir/azurite.log" 2>&1 &
    azurite_pid=$!
    local key="Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
    logger_flags=(--logger azure-table --connection "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=$key;TableEndpoint=http://127.0.0.1:$table_port/devstoreaccount1;" --table "$2")
  fi
}
