#!/usr/bin/env bash
# scripts/run-local.sh SCENARIO [luamech run options...]
# scripts/run-local.sh --suite SUITE [luamech suite options...]
# Starts private servers on free loopback ports — memcached, redis-server and
# webdis (an HTTP front end to that redis, the /SET/X/1 and /GET/X API of
# seed 002) and nginx serving a tiny JSON API over http and https with a CA
# it makes at start (scripts/api-nginx.sh, for scenarios/http_api.lua) —
# runs luamech against them with the matching parameters (-e MEMCACHED=,
# -e REDIS=, -e HTTP_BASE=, -e API_BASE=https://..., -e API_CA=<its CA file>,
# -e API_HTTP_BASE=http://...), and stops the servers afterwards.
# API_ACCESS_LOG=FILE keeps the API's access log (tests reconcile it with
# luamech's counts).
# Example: bash scripts/run-local.sh scenarios/membase.lua -d 60s -r 30s -i 10s
set -euo pipefail
# Paths (SCENARIO, --out) are taken from the current directory, as luamech
# would.  The binary: $LUAMECH if set, else this checkout's build/luamech,
# else (installed as PREFIX/share/luamech/run-local.sh) PREFIX/bin/luamech.
root=$(cd "$(dirname "$0")/.." && pwd)
here=$(cd "$(dirname "$0")" && pwd)          # api-nginx.sh sits next to this script (checkout or install)
[ $# -ge 1 ] || { echo "usage: $0 SCENARIO|--suite SUITE [luamech options...]" >&2; exit 2; }
if [ -z "${LUAMECH:-}" ]; then
    LUAMECH=$root/build/luamech
    [ -x "$LUAMECH" ] || [ ! -x "$root/../bin/luamech" ] || LUAMECH=$(cd "$root/../bin" && pwd)/luamech
fi
[ -x "$LUAMECH" ] || { echo "$LUAMECH not found: run 'bash .ci/setup' first" >&2; exit 1; }

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# Ports below the kernel's ephemeral range (32768-60999), so that no client
# socket of a running test can hold the port we are about to listen on.
free_port() {
    local p
    for _ in $(seq 50); do p=$((10000 + RANDOM % 22000)); port_open "$p" || { echo "$p"; return; }; done
    echo "no free port found" >&2; exit 1
}

tmp=$(mktemp -d /tmp/luamech-local.XXXXXX)
pids=()
cleanup() {
    for p in "${pids[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

# start_server NAME LAUNCHER: LAUNCHER PORT PORT2 starts the server in the
# background on PORT (and PORT2 if it needs a second one, binding both
# before it accepts); a free port can be taken between the check and the
# bind (tests run in parallel), so a server that died or never answered is
# tried again on other ports.  Sets $port and $port2.
start_server() {
    local name=$1 launcher=$2 try pid
    for try in 1 2 3 4 5; do
        port=$(free_port)
        port2=$(free_port)
        [ "$port2" != "$port" ] || continue
        $launcher "$port" "$port2" &
        pid=$!
        for _ in $(seq 200); do
            kill -0 "$pid" 2>/dev/null || break          # it died: the port was taken
            port_open "$port" && kill -0 "$pid" 2>/dev/null && { pids+=($pid); return 0; }
            sleep 0.05
        done
        kill "$pid" 2>/dev/null
    done
    echo "$name did not start; see $tmp" >&2; exit 1
}
launch_memcached() { exec memcached -l 127.0.0.1 -p "$1" -U 0 -m 256 -t 1 -u "$(id -un)"; }
launch_redis() {
    exec redis-server --port "$1" --bind 127.0.0.1 --save "" --appendonly no --daemonize no --logfile "$tmp/redis.log"
}
start_server memcached launch_memcached; mc_port=$port
start_server redis-server launch_redis; redis_port=$port

launch_webdis() {
    cat > "$tmp/webdis-$1.json" <<JSON
{ "redis_host": "127.0.0.1", "redis_port": $redis_port, "http_host": "127.0.0.1",
  "http_port": $1, "threads": 2, "pool_size": 20, "daemonize": false,
  "websockets": false, "database": 0, "verbosity": 0, "logfile": "$tmp/webdis.log" }
JSON
    exec webdis "$tmp/webdis-$1.json"
}
start_server webdis launch_webdis; http_port=$port
launch_api() {
    mkdir -p "$tmp/api"
    bash "$here/api-nginx.sh" "$1" "$tmp/api" "${API_ACCESS_LOG:-$tmp/api/access.log}" "$2" > "$tmp/api/nginx.conf"
    exec nginx -p "$tmp/api" -c "$tmp/api/nginx.conf" -g 'daemon off;' 2> "$tmp/api/stderr"
}
start_server nginx launch_api; api_port=$port; api_tls_port=$port2

echo "==> memcached 127.0.0.1:$mc_port, redis 127.0.0.1:$redis_port, webdis http://127.0.0.1:$http_port, API https://127.0.0.1:$api_tls_port (CA $tmp/api/tls/ca.pem) and http://127.0.0.1:$api_port" >&2
set +e
cmd=run
if [ "$1" = "--suite" ]; then cmd=suite; shift; fi
"$LUAMECH" $cmd "$@" -e MEMCACHED=127.0.0.1:$mc_port -e REDIS=127.0.0.1:$redis_port \
    -e HTTP_BASE=http://127.0.0.1:$http_port -e API_BASE=https://127.0.0.1:$api_tls_port \
    -e API_CA="$tmp/api/tls/ca.pem" -e API_HTTP_BASE=http://127.0.0.1:$api_port
exit $?
