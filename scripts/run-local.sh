#!/usr/bin/env bash
# scripts/run-local.sh SCENARIO [luamech run options...]
# scripts/run-local.sh --suite SUITE [luamech suite options...]
# Starts private servers on loopback ports — memcached, redis-server and
# webdis (an HTTP front end to that redis, the /SET/X/1 and /GET/X API of
# seed 002) and nginx serving a tiny JSON API over http and https with a CA
# it makes at start, and over https with HTTP/2 (scripts/api-nginx.sh, for
# scenarios/http_api.lua, scenarios/http2_api.lua and the api template) —,
# runs luamech against them with the matching parameters (-e MEMCACHED=,
# -e REDIS=, -e HTTP_BASE=, -e API_BASE=https://..., -e API_CA=<its CA
# file>, -e API_HTTP_BASE=http://..., -e API_H2_BASE=https://...; and nginx
# speaking HTTP/2 without TLS (h2c, prior knowledge) answering 200 "ok" on
# every path, the server of the http2 template: -e H2_BASE=http://...; with websocketd
# installed, an echo WebSocket server too: -e WS_URL=ws://...), and stops the
# servers afterwards.  When a .lua file next to SCENARIO names REDIS_CLUSTER
# (the redis-cluster template, scenarios/redis_cluster.lua), a redis Cluster
# of 3 masters is started too (redis-cli --cluster create) and passed as
# -e REDIS_CLUSTER=host:port,host:port,host:port.  When SCENARIO, or a
# script it names, uses luamech.grpc (scenarios/grpc_greeter.lua, the grpc
# template), the gRPC greeter (scripts/grpc-greeter.py on python3-grpcio,
# serving scenarios/greeter.proto compiled by protoc) is started too and
# passed as -e GRPC=host:port.  Ports: free ones picked at random in PORTS (default
# 10000-32000, below the kernel's ephemeral range), or fixed ones per server
# (MEMCACHED_PORT, REDIS_PORT, WEBDIS_PORT, API_PORT, API_TLS_PORT,
# API_H2_PORT, H2C_PORT, WS_PORT, GRPC_PORT).  API_ACCESS_LOG=FILE keeps the API's access log,
# API_H2_ACCESS_LOG=FILE its HTTP/2 listener's, H2C_ACCESS_LOG=FILE the h2c
# server's (tests reconcile them with luamech's counts).
# Example: bash scripts/run-local.sh scenarios/membase.lua -d 60s -r 30s -i 10s
set -euo pipefail
# Paths (SCENARIO, --out) are taken from the current directory, as luamech
# would.  The binary: $LUAMECH if set, else this checkout's build/luamech,
# else (installed as PREFIX/share/luamech/run-local.sh) PREFIX/bin/luamech.
root=$(cd "$(dirname "$0")/.." && pwd)
here=$(cd "$(dirname "$0")" && pwd)          # api-nginx.sh sits next to this script (checkout or install)
usage() {
    cat <<USAGE
usage: $0 SCENARIO [luamech run options...]
       $0 --suite SUITE [luamech suite options...]
Starts private servers on loopback ports, runs luamech against them, stops them:
  memcached     -e MEMCACHED=127.0.0.1:PORT
  redis-server  -e REDIS=127.0.0.1:PORT
  webdis        -e HTTP_BASE=http://127.0.0.1:PORT   (HTTP front end to that redis)
  nginx         -e API_BASE=https://127.0.0.1:PORT -e API_CA=FILE -e API_HTTP_BASE=http://127.0.0.1:PORT
                (a small JSON API over https with a CA made at start, and over http)
                -e API_H2_BASE=https://127.0.0.1:PORT   (the same API over https with HTTP/2)
  nginx (h2c)   -e H2_BASE=http://127.0.0.1:PORT   (HTTP/2 without TLS, prior knowledge: 200 "ok" on
                every path; the http2 template's server)
  websocketd    -e WS_URL=ws://127.0.0.1:PORT/   (echo; only when websocketd is installed)
  redis Cluster -e REDIS_CLUSTER=127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3
                (3 masters; only when a .lua file next to SCENARIO names REDIS_CLUSTER)
  gRPC greeter  -e GRPC=127.0.0.1:PORT   (scripts/grpc-greeter.py, python3-grpcio; only when
                SCENARIO or a script it names uses luamech.grpc)
Ports (environment):
  PORTS=LO-HI         pick free ports at random in LO-HI (default 10000-32000)
  MEMCACHED_PORT=N, REDIS_PORT=N, WEBDIS_PORT=N, API_PORT=N, API_TLS_PORT=N, API_H2_PORT=N, H2C_PORT=N,
  WS_PORT=N, GRPC_PORT=N
                      a fixed port for that server (it must be free)
  API_ACCESS_LOG=FILE keep the API's access log (API_H2_ACCESS_LOG=FILE: its HTTP/2 listener's)
  H2C_ACCESS_LOG=FILE keep the h2c server's access log ("\$connection \$server_protocol \$request_method \$uri \$status")
  LUAMECH=PATH        the luamech binary (default: this checkout's build/luamech)
Example: PORTS=20000-20100 $0 scenarios/membase.lua -d 60s
USAGE
}
case "${1:-}" in
    -h|--help) usage; exit 0 ;;
    "") usage >&2; exit 2 ;;
esac
port_lo=10000 port_hi=32000
if [ -n "${PORTS:-}" ]; then
    if [[ $PORTS =~ ^([0-9]{1,5})-([0-9]{1,5})$ ]] && [ "${BASH_REMATCH[1]}" -ge 1 ] &&
       [ "${BASH_REMATCH[2]}" -le 65535 ] && [ "${BASH_REMATCH[2]}" -ge $((BASH_REMATCH[1] + 5)) ]; then
        port_lo=${BASH_REMATCH[1]} port_hi=${BASH_REMATCH[2]}
    else
        echo "$0: PORTS=$PORTS: expected a range LO-HI of at least 6 ports within 1-65535, such as PORTS=20000-20100" >&2
        exit 2
    fi
fi
for v in MEMCACHED_PORT REDIS_PORT WEBDIS_PORT API_PORT API_TLS_PORT API_H2_PORT H2C_PORT WS_PORT GRPC_PORT; do
    val=${!v:-}
    if [ -n "$val" ] && ! { [[ $val =~ ^[0-9]{1,5}$ ]] && [ "$val" -ge 1 ] && [ "$val" -le 65535 ]; }; then
        echo "$0: $v=$val: expected a port number 1-65535" >&2
        exit 2
    fi
done
if [ -z "${LUAMECH:-}" ]; then
    LUAMECH=$root/build/luamech
    [ -x "$LUAMECH" ] || [ ! -x "$root/../bin/luamech" ] || LUAMECH=$(cd "$root/../bin" && pwd)/luamech
fi
[ -x "$LUAMECH" ] || { echo "$LUAMECH not found: run 'bash .ci/setup' first" >&2; exit 1; }

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# A free port of PORTS; by default below the kernel's ephemeral range
# (32768-60999), so that no client socket of a running test can hold the
# port we are about to listen on.
free_port() {
    local p
    for _ in $(seq 50); do
        p=$((port_lo + (RANDOM * 32768 + RANDOM) % (port_hi - port_lo + 1)))
        port_open "$p" || { echo "$p"; return; }
    done
    echo "$0: no free port found in $port_lo-$port_hi (PORTS)" >&2; exit 1
}

tmp=$(mktemp -d /tmp/luamech-local.XXXXXX)
pids=()
cleanup() {
    for p in "${pids[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

# start_server NAME LAUNCHER [FIXED [FIXED2 [FIXED3]]]: LAUNCHER PORT PORT2
# PORT3 starts the server in the background on PORT (and PORT2, PORT3 if it
# needs more, binding them all before it accepts); a free port can be taken between the
# check and the bind (tests run in parallel), so a server that died or never
# answered is tried again on other ports.  A FIXED port (the user's
# *_PORT) is tried once.  Sets $port, $port2 and $port3.
start_server() {
    local name=$1 launcher=$2 fixed=${3:-} fixed2=${4:-} fixed3=${5:-} try pid p
    for try in 1 2 3 4 5; do
        port=${fixed:-$(free_port)}
        port2=${fixed2:-$(free_port)}
        port3=${fixed3:-$(free_port)}
        if [ "$port2" = "$port" ] || [ "$port3" = "$port" ] || [ "$port3" = "$port2" ]; then
            [ -z "$fixed$fixed2$fixed3" ] && continue
            echo "$0: $name: the same port twice ($port $port2 $port3)" >&2; exit 2
        fi
        for p in $fixed $fixed2 $fixed3; do
            port_open "$p" && { echo "$0: $name: port $p already in use (its *_PORT setting)" >&2; exit 1; }
        done
        $launcher "$port" "$port2" "$port3" &
        pid=$!
        for _ in $(seq 200); do
            kill -0 "$pid" 2>/dev/null || break          # it died: the port was taken
            port_open "$port" && kill -0 "$pid" 2>/dev/null && { pids+=($pid); return 0; }
            sleep 0.05
        done
        kill "$pid" 2>/dev/null || true                  # (it may be gone already: not an error under set -e)
        [ -z "$fixed$fixed2$fixed3" ] || break
    done
    echo "$name did not start${fixed:+ on port $fixed}; see $tmp" >&2; exit 1
}
launch_memcached() { exec memcached -l 127.0.0.1 -p "$1" -U 0 -m 256 -t 1 -u "$(id -un)"; }
launch_redis() {
    exec redis-server --port "$1" --bind 127.0.0.1 --save "" --appendonly no --daemonize no --logfile "$tmp/redis.log"
}
start_server memcached launch_memcached "${MEMCACHED_PORT:-}"; mc_port=$port
start_server redis-server launch_redis "${REDIS_PORT:-}"; redis_port=$port

launch_webdis() {
    cat > "$tmp/webdis-$1.json" <<JSON
{ "redis_host": "127.0.0.1", "redis_port": $redis_port, "http_host": "127.0.0.1",
  "http_port": $1, "threads": 2, "pool_size": 20, "daemonize": false,
  "websockets": false, "database": 0, "verbosity": 0, "logfile": "$tmp/webdis.log" }
JSON
    exec webdis "$tmp/webdis-$1.json"
}
start_server webdis launch_webdis "${WEBDIS_PORT:-}"; http_port=$port
launch_api() {
    mkdir -p "$tmp/api"
    bash "$here/api-nginx.sh" "$1" "$tmp/api" "${API_ACCESS_LOG:-$tmp/api/access.log}" "$2" "$3" \
        "${API_H2_ACCESS_LOG:-$tmp/api/h2_access.log}" > "$tmp/api/nginx.conf"
    exec nginx -p "$tmp/api" -c "$tmp/api/nginx.conf" -g 'daemon off;' 2> "$tmp/api/stderr"
}
start_server nginx launch_api "${API_PORT:-}" "${API_TLS_PORT:-}" "${API_H2_PORT:-}"
api_port=$port; api_tls_port=$port2; api_h2_port=$port3
# nginx speaking h2c (HTTP/2 on plain TCP with prior knowledge: a `listen`
# with http2 and no ssl), 200 "ok" on every path: the http2 template's H2_BASE
launch_h2c() {
    local d=$tmp/h2c user=""
    mkdir -p "$d"
    [ "$(id -u)" -eq 0 ] && user="user root;"
    cat > "$d/nginx.conf" <<CONF
$user
worker_processes 1;
error_log $d/error.log warn;
pid $d/nginx.pid;
events { worker_connections 1024; }
http {
    log_format h2c '\$connection \$server_protocol \$request_method \$uri \$status';
    access_log ${H2C_ACCESS_LOG:-$d/access.log} h2c;
    client_body_temp_path $d/body;
    proxy_temp_path $d/proxy;
    fastcgi_temp_path $d/fastcgi;
    uwsgi_temp_path $d/uwsgi;
    scgi_temp_path $d/scgi;
    keepalive_requests 1000000;
    server {
        listen 127.0.0.1:$1 http2;
        location / { return 200 "ok"; }
    }
}
CONF
    exec nginx -p "$d" -c "$d/nginx.conf" -g 'daemon off;' 2> "$d/stderr"
}
start_server "nginx (h2c)" launch_h2c "${H2C_PORT:-}"; h2c_port=$port
# websocketd echoing every message (cat), when installed: the ws template
ws_args=()
launch_ws() { exec websocketd --port="$1" --address=127.0.0.1 cat > "$tmp/websocketd.log" 2>&1; }
if command -v websocketd > /dev/null; then
    start_server websocketd launch_ws "${WS_PORT:-}"; ws_args=(-e WS_URL=ws://127.0.0.1:$port/)
    echo "==> websocketd (echo) ws://127.0.0.1:$port/" >&2
fi

# a redis Cluster (3 masters, bus ports +10000) for the scenarios that ask for one
cluster=()
# A node binds its cluster bus port (PORT+10000) after its client port, and
# exits when the bus port is taken: it has started once it answers PING, and
# is started again on another port when it died instead.
start_cluster_node() {
    for _ in 1 2 3 4 5; do
        start_server "redis-server (cluster)" launch_cluster_node
        for _ in $(seq 100); do
            [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ] && return 0
            kill -0 "${pids[-1]}" 2>/dev/null || break
            sleep 0.05
        done
        kill "${pids[-1]}" 2>/dev/null || true
        unset 'pids[-1]'
    done
    echo "redis-server (cluster) did not start; see $tmp" >&2; exit 1
}
launch_cluster_node() {
    mkdir -p "$tmp/cluster-$1"
    exec redis-server --port "$1" --bind 127.0.0.1 --save "" --appendonly no --daemonize no \
        --cluster-enabled yes --cluster-config-file "$tmp/cluster-$1/nodes.conf" --dir "$tmp/cluster-$1" \
        --logfile "$tmp/cluster-$1/redis.log"
}
if [ "$1" != "--suite" ] && [ -f "$1" ] && grep -qs REDIS_CLUSTER "$(dirname "$1")"/*.lua; then
    nodes=()
    for _ in 1 2 3; do start_cluster_node; nodes+=("127.0.0.1:$port"); done
    redis-cli --cluster create "${nodes[@]}" --cluster-replicas 0 --cluster-yes > "$tmp/cluster-create.log" 2>&1 ||
        { cat "$tmp/cluster-create.log" >&2; echo "$0: redis-cli --cluster create failed" >&2; exit 1; }
    for _ in $(seq 100); do
        ok=0
        for n in "${nodes[@]}"; do redis-cli -p "${n#*:}" cluster info | grep -q '^cluster_state:ok' && ok=$((ok + 1)); done
        [ $ok = 3 ] && break
        sleep 0.1
    done
    cluster=(-e "REDIS_CLUSTER=$(IFS=,; echo "${nodes[*]}")")
    echo "==> redis Cluster ${cluster[1]#REDIS_CLUSTER=}" >&2
fi

# the gRPC greeter for the scenarios that use luamech.grpc: its service is
# scenarios/greeter.proto (the grpc template's service.proto is a subset of it)
grpc_args=()
launch_grpc() {
    exec /usr/bin/python3 "$greeter" "$tmp/greeter.desc" "$1" "$tmp/grpc-counts.json" > "$tmp/grpc-greeter.log" 2>&1
}
uses_grpc() {   # SCENARIO: it, or a script it names (script = "x.lua"), uses luamech.grpc
    local files=("$1") s
    for s in $(grep -o 'script *= *"[^"]*"' "$1" | sed 's/.*"\(.*\)"/\1/'); do files+=("$(dirname "$1")/$s"); done
    grep -qs 'luamech\.grpc' "${files[@]}"
}
if [ "$1" != "--suite" ] && [ -f "$1" ] && uses_grpc "$1"; then
    greeter=$here/grpc-greeter.py
    proto_dir=$here/scenarios                                   # installed: share/luamech/scenarios
    [ -f "$proto_dir/greeter.proto" ] || proto_dir=$root/scenarios
    if ! /usr/bin/python3 -c 'import grpc, google.protobuf' 2> /dev/null || ! command -v protoc > /dev/null; then
        echo "$0: the scenario uses luamech.grpc, but the greeter needs python3-grpcio, python3-protobuf and protoc (bash .ci/setup installs them)" >&2
        exit 1
    fi
    protoc --include_imports --descriptor_set_out="$tmp/greeter.desc" -I "$proto_dir" greeter.proto ||
        { echo "$0: protoc failed on $proto_dir/greeter.proto" >&2; exit 1; }
    start_server "gRPC greeter" launch_grpc "${GRPC_PORT:-}"; grpc_args=(-e GRPC=127.0.0.1:$port)
    echo "==> gRPC greeter 127.0.0.1:$port" >&2
fi

echo "==> memcached 127.0.0.1:$mc_port, redis 127.0.0.1:$redis_port, webdis http://127.0.0.1:$http_port, API https://127.0.0.1:$api_tls_port (CA $tmp/api/tls/ca.pem), http://127.0.0.1:$api_port and HTTP/2 https://127.0.0.1:$api_h2_port, h2c http://127.0.0.1:$h2c_port" >&2
set +e
cmd=run
if [ "$1" = "--suite" ]; then cmd=suite; shift; fi
"$LUAMECH" $cmd "$@" -e MEMCACHED=127.0.0.1:$mc_port -e REDIS=127.0.0.1:$redis_port \
    -e HTTP_BASE=http://127.0.0.1:$http_port -e API_BASE=https://127.0.0.1:$api_tls_port \
    -e API_CA="$tmp/api/tls/ca.pem" -e API_HTTP_BASE=http://127.0.0.1:$api_port \
    -e API_H2_BASE=https://127.0.0.1:$api_h2_port -e H2_BASE=http://127.0.0.1:$h2c_port "${ws_args[@]}" "${cluster[@]}" "${grpc_args[@]}"
exit $?
