#!/usr/bin/env bash
# scripts/cluster.sh up|down — the topology of docker-compose.yml, natively on 127.0.0.1:
# a Redis server that keeps the cluster's membership, Azurite's table service that keeps Snapper's
# logs (data in the state folder), and two SiloHosts with Redis clustering and the azure-table logger.
# LoadGen then drives it as a client:
#   dotnet run -c Release --project benchmarks/Snapper.LoadGen -- smallbank --cluster 127.0.0.1:30000,127.0.0.1:30001 --verify
# Ports and the state folder can be moved with REDIS_PORT, TABLE_PORT, SILO1_PORT, GATEWAY1_PORT,
# SILO2_PORT, GATEWAY2_PORT and CLUSTER_DIR (default artifacts/cluster, ignored by git). Needs
# redis-server (Debian package) and Azurite (npm ci --prefix tools/azurite); .ci/run installs both.
set -euo pipefail
cd "$(dirname "$0")/.."
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1

dir=${CLUSTER_DIR:-artifacts/cluster}
mkdir -p "$dir" && dir=$(cd "$dir" && pwd)
redis_port=${REDIS_PORT:-16379}
table_port=${TABLE_PORT:-10002}
azurite=tools/azurite/node_modules/.bin/azurite-table
account_key="Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
connection="DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=$account_key;TableEndpoint=http://127.0.0.1:$table_port/devstoreaccount1;"
silos=("silo1:${SILO1_PORT:-11111}:${GATEWAY1_PORT:-30000}" "silo2:${SILO2_PORT:-11112}:${GATEWAY2_PORT:-30001}")
silohost=samples/SiloHost/bin/Release/net10.0/SiloHost.dll

up() {
  command -v redis-server >/dev/null || { echo "error: redis-server not found (apt-get install redis-server)" >&2; exit 1; }
  [ -x "$azurite" ] || { echo "error: Azurite not found (npm ci --prefix tools/azurite)" >&2; exit 1; }
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

  # Each `up` starts empty, so LoadGen's --verify finds fresh accounts (the logs of a cluster live
  # from up to down; kill and restart one SiloHost by hand to see it recover from them).
  rm -rf "$dir/azurite"
  nohup "$azurite" --tableHost 127.0.0.1 --tablePort "$table_port" --location "$dir/azurite" \
    --disableTelemetry --skipApiVersionCheck --silent >"$dir/azurite.log" 2>&1 &
  echo $! >"$dir/azurite.pid"
  for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$table_port") 2>/dev/null && break; sleep 0.1; done

  for silo in "${silos[@]}"; do
    IFS=: read -r name silo_port gateway_port <<<"$silo"
    nohup dotnet "$silohost" --clustering redis --redis "127.0.0.1:$redis_port" --name "$name" \
      --logger azure-table --connection "$connection" \
      --silo-port "$silo_port" --gateway-port "$gateway_port" >"$dir/$name.log" 2>&1 &
    echo $! >"$dir/$name.pid"
  done

  for silo in "${silos[@]}"; do
    IFS=: read -r name _ _ <<<"$silo"
    for _ in $(seq 120); do grep -q "serving" "$dir/$name.log" && break; sleep 0.5; done
    grep -q "serving" "$dir/$name.log" || { cat "$dir/$name.log" >&2; echo "error: $name did not start (see $dir/$name.log)" >&2; down; exit 1; }
    grep "serving" "$dir/$name.log"
  done
  echo "cluster up: redis 127.0.0.1:$redis_port, azurite tables 127.0.0.1:$table_port, gateways $(for s in "${silos[@]}"; do IFS=: read -r _ _ g <<<"$s"; printf '127.0.0.1:%s ' "$g"; done)"
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
  if [ -f "$dir/azurite.pid" ]; then
    kill -TERM "$(cat "$dir/azurite.pid")" 2>/dev/null || true
    rm -f "$dir/azurite.pid"
  fi
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
