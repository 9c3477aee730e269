#!/usr/bin/env bash
# scripts/cluster.sh up|down — the topology of docker-compose.yml, natively on 127.0.0.1:
# a Redis server that keeps the cluster's membership, and two SiloHosts with Redis clustering.
# LoadGen then drives it as a client:
#   dotnet run -c Release --project benchmarks/Snapper.LoadGen -- smallbank --cluster 127.0.0.1:30000,127.0.0.1:30001 --verify
# Ports and the state folder can be moved with REDIS_PORT, SILO1_PORT, GATEWAY1_PORT, SILO2_PORT,
# GATEWAY2_PORT and CLUSTER_DIR (default artifacts/cluster, ignored by git). Needs redis-server
# (Debian package redis-server; .ci/run installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1

dir=${CLUSTER_DIR:-artifacts/cluster}
mkdir -p "$dir" && dir=$(cd "$dir" && pwd)
redis_port=${REDIS_PORT:-16379}
silos=("silo1:${SILO1_PORT:-11111}:${GATEWAY1_PORT:-30000}" "silo2:${SILO2_PORT:-11112}:${GATEWAY2_PORT:-30001}")
silohost=samples/SiloHost/bin/Release/net10.0/SiloHost.dll

up() {
  command -v redis-server >/dev/null || { echo "error: redis-server not found (apt-get install redis-server)" >&2; exit 1; }
  # SKIP_BUILD=1 (the tests, which run on a build already made): use the SiloHost that is there.
  if [ "${SKIP_BUILD:-}" != 1 ]; then
    dotnet build samples/SiloHost -c Release -nologo -v quiet >"$dir/build.log" 2>&1 || { cat "$dir/build.log" >&2; echo "error: SiloHost did not build" >&2; exit 1; }
  fi
  [ -f "$silohost" ] || { echo "error: $silohost not found: build it (dotnet build samples/SiloHost -c Release)" >&2; exit 1; }

  # No persistence: a cluster that is brought down leaves no stale membership behind.
  redis-server --bind 127.0.0.1 --port "$redis_port" --save '' --appendonly no --daemonize yes \
    --pidfile "$dir/redis.pid" --logfile "$dir/redis.log"
  for _ in $(seq 50); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done
  redis-cli -p "$redis_port" ping >/dev/null || { echo "error: redis-server did not start on 127.0.0.1:$redis_port (see $dir/redis.log)" >&2; exit 1; }

  for silo in "${silos[@]}"; do
    IFS=: read -r name silo_port gateway_port <<<"$silo"
    nohup dotnet "$silohost" --clustering redis --redis "127.0.0.1:$redis_port" --name "$name" \
      --silo-port "$silo_port" --gateway-port "$gateway_port" >"$dir/$name.log" 2>&1 &
    echo $! >"$dir/$name.pid"
  done

  for silo in "${silos[@]}"; do
    IFS=: read -r name _ _ <<<"$silo"
    for _ in $(seq 120); do grep -q "serving" "$dir/$name.log" && break; sleep 0.5; done
    grep -q "serving" "$dir/$name.log" || { cat "$dir/$name.log" >&2; echo "error: $name did not start (see $dir/$name.log)" >&2; down; exit 1; }
    grep "serving" "$dir/$name.log"
  done
  echo "cluster up: redis 127.0.0.1:$redis_port, gateways $(for s in "${silos[@]}"; do IFS=: read -r _ _ g <<<"$s"; printf '127.0.0.1:%s ' "$g"; done)"
}

down() {
  local status=0
  for silo in "${silos[@]}"; do
    IFS=: read -r name _ _ <<<"$silo"
    local pid_file="$dir/$name.pid"
    [ -f "$pid_file" ] || continue
    local pid; pid=$(cat "$pid_file")
    if kill -TERM "$pid" 2>/dev/null; then
      for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
      if kill -0 "$pid" 2>/dev/null; then
        echo "warning: $name did not stop in 30 s; killing it" >&2
        kill -KILL "$pid" 2>/dev/null || true
        status=1
      fi
    fi
    rm -f "$pid_file"
  done
  if [ -f "$dir/redis.pid" ]; then
    redis-cli -p "$redis_port" shutdown nosave >/dev/null 2>&1 || kill -TERM "$(cat "$dir/redis.pid")" 2>/dev/null || true
    rm -f "$dir/redis.pid"
  fi
  echo "cluster down"
  return $status
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  *) echo "usage: scripts/cluster.sh up|down" >&2; exit 2 ;;
esac
