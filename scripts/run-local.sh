#!/usr/bin/env bash
# scripts/run-local.sh SCENARIO [luamech run options...]
# scripts/run-local.sh --suite SUITE [luamech suite options...]
# Starts private servers on free loopback ports — memcached, redis-server and
# webdis (an HTTP front end to that redis, the /SET/X/1 and /GET/X API of
# seed 002) — runs luamech against them with the matching parameters
# (-e MEMCACHED=, -e REDIS=, -e HTTP_BASE=), and stops the servers afterwards.
# Example: bash scripts/run-local.sh scenarios/membase.lua -d 60s -r 30s -i 10s
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: $0 SCENARIO|--suite SUITE [luamech options...]" >&2; exit 2; }
LUAMECH=${LUAMECH:-build/luamech}
[ -x "$LUAMECH" ] || { echo "$LUAMECH not found: run 'bash .ci/setup' first" >&2; exit 1; }

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
free_port() {
    local p
    for _ in $(seq 50); do p=$((20000 + RANDOM % 40000)); port_open "$p" || { echo "$p"; return; }; done
    echo "no free port found" >&2; exit 1
}
wait_port() {
    for _ in $(seq 200); do port_open "$1" && return 0; sleep 0.05; done
    echo "$2 did not start on port $1" >&2; exit 1
}

tmp=$(mktemp -d /tmp/luamech-local.XXXXXX)
pids=()
cleanup() {
    for p in "${pids[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

mc_port=$(free_port)
memcached -l 127.0.0.1 -p "$mc_port" -U 0 -m 256 -t 1 -u "$(id -un)" &
pids+=($!)
wait_port "$mc_port" memcached

start_redis() {    # a free port can be taken between the check and the bind: retry
    local try pid
    for try in 1 2 3; do
        redis_port=$(free_port)
        redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --daemonize no \
            --logfile "$tmp/redis.log" &
        pid=$!
        for _ in $(seq 200); do port_open "$redis_port" && { pids+=($pid); return 0; }; sleep 0.05; done
        kill "$pid" 2>/dev/null
    done
    echo "redis-server did not start; its log:" >&2; cat "$tmp/redis.log" >&2; exit 1
}
start_redis

start_webdis() {   # webdis now and then fails to bind at once: try a few ports
    local try
    for try in 1 2 3; do
        http_port=$(free_port)
        cat > "$tmp/webdis.json" <<JSON
{ "redis_host": "127.0.0.1", "redis_port": $redis_port, "http_host": "127.0.0.1",
  "http_port": $http_port, "threads": 2, "pool_size": 20, "daemonize": false,
  "websockets": false, "database": 0, "verbosity": 0, "logfile": "$tmp/webdis.log" }
JSON
        webdis "$tmp/webdis.json" &
        local pid=$!
        for _ in $(seq 200); do port_open "$http_port" && { pids+=($pid); return 0; }; sleep 0.05; done
        kill "$pid" 2>/dev/null
    done
    echo "webdis did not start; its log:" >&2; cat "$tmp/webdis.log" >&2; exit 1
}
start_webdis

echo "==> memcached 127.0.0.1:$mc_port, redis 127.0.0.1:$redis_port, webdis http://127.0.0.1:$http_port" >&2
set +e
cmd=run
if [ "$1" = "--suite" ]; then cmd=suite; shift; fi
"$LUAMECH" $cmd "$@" -e MEMCACHED=127.0.0.1:$mc_port -e REDIS=127.0.0.1:$redis_port \
    -e HTTP_BASE=http://127.0.0.1:$http_port
exit $?
