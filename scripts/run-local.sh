#!/usr/bin/env bash
# scripts/run-local.sh SCENARIO [luamech run options...]
# Starts the servers a shipped scenario needs on free loopback ports (a
# private memcached for now), runs luamech against them with the matching
# -e NAME=host:port parameters, and stops the servers afterwards.
# Example: bash scripts/run-local.sh scenarios/membase.lua -d 60s -r 30s -i 10s
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: $0 SCENARIO [luamech run options...]" >&2; exit 2; }
LUAMECH=${LUAMECH:-build/luamech}
[ -x "$LUAMECH" ] || { echo "$LUAMECH not found: run 'bash .ci/setup' first" >&2; exit 1; }

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
free_port() {
    local p
    for _ in $(seq 50); do p=$((20000 + RANDOM % 40000)); port_open "$p" || { echo "$p"; return; }; done
    echo "no free port found" >&2; exit 1
}

pids=()
trap 'for p in "${pids[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null; done; wait 2>/dev/null' EXIT

mc_port=$(free_port)
memcached -l 127.0.0.1 -p "$mc_port" -U 0 -m 256 -t 1 -u "$(id -un)" &
pids+=($!)
for _ in $(seq 100); do port_open "$mc_port" && break; sleep 0.05; done
port_open "$mc_port" || { echo "memcached did not start" >&2; exit 1; }
echo "==> memcached on 127.0.0.1:$mc_port (pid ${pids[0]})" >&2

set +e
"$LUAMECH" run "$@" -e MEMCACHED=127.0.0.1:$mc_port
rc=$?
exit $rc
