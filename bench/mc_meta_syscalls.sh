#!/usr/bin/env bash
# bench/mc_meta_syscalls.sh - system calls per memcached operation, text
# protocol against meta gets (connect's protocol = "meta"), pooled: 200 VUs
# of one worker pipelined over one connection (bench/mc_getset.lua, POOL=1):
#
#   bash bench/mc_meta_syscalls.sh
#
# Counts are load-insensitive figures (what the server and luamech did per
# operation, not how fast): for each protocol, alternating text, meta for
# ROUNDS rounds, a fresh memcached (-t 1) per run and N transactions:
#   server  - `strace -c -f -p` on memcached for the whole run: its sendmsg
#             (replies) and read calls per operation (cmd_get + cmd_set);
#   luamech - the same run, luamech under `strace -f -c` with --io epoll (its
#             reads, writes and epoll_waits are system calls there; on
#             io_uring they are ring completions): reads and epoll_waits per
#             operation.
# Each run's server count must equal the operations asked for (2N, or N with
# GET_ONLY=1); a run that differs is printed as a miss.  strace slows both
# processes: only the counts mean something here (bench/cpu_ab.sh gives CPU).
# Settings (environment): ROUNDS=2 N=40000 GET_ONLY=0 (1: GETs only, all
# misses) BUILD_DIR=./build OUT=/tmp/luamech-bench/mc-meta-syscalls
set -u
R=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROUNDS=${ROUNDS:-2} N=${N:-40000} GET_ONLY=${GET_ONLY:-0}
BIN=${BUILD_DIR:-$R/build}/luamech
OUT=${OUT:-/tmp/luamech-bench/mc-meta-syscalls}
mkdir -p "$OUT"
[ -x "$BIN" ] || { echo "no luamech binary at $BIN" >&2; exit 2; }
command -v strace > /dev/null || { echo "strace is needed (apt-get install strace)" >&2; exit 2; }
free_port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
mc_ops() {
  python3 - "$1" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
s.sendall(b"stats\r\n"); b = b""
while not b.endswith(b"END\r\n"):
    d = s.recv(65536)
    if not d: break
    b += d
print(sum(int(l.split()[2]) for l in b.decode().splitlines() if l.startswith(("STAT cmd_get ", "STAT cmd_set "))))
PY
}
# calls NAME FILE: the calls column of strace -c's row NAME (0 when absent)
calls() { awk -v n="$1" '$NF == n { print ($4 ~ /^[0-9]+$/ ? $4 : $5); f = 1 } END { if (!f) print 0 }' "$2"; }
want=$((2 * N)); [ "$GET_ONLY" = 1 ] && want=$N
echo "# mc_meta_syscalls: N=$N transactions (GET_ONLY=$GET_ONLY), 200 VUs on one connection, 1 worker; $(date -u +%FT%TZ); load $(cut -d' ' -f1-3 /proc/loadavg); runs in $OUT"
printf '%-5s %-5s %8s %10s %10s %10s %10s %10s\n' round proto ops srv_send/op srv_read/op lm_read/op lm_write/op lm_epoll/op
for r in $(seq "$ROUNDS"); do
  for proto in text meta; do
    d=$OUT/$r-$proto; rm -rf "$d"; mkdir -p "$d"
    port=$(free_port)
    memcached -u root -U 0 -p "$port" -l 127.0.0.1 -t 1 -o hashpower=21 > "$d/server.log" 2>&1 & sp=$!
    for _ in $(seq 50); do mc_ops "$port" > /dev/null 2>&1 && break; sleep 0.1; done
    o0=$(mc_ops "$port")
    strace -c -f -p "$sp" -o "$d/server.strace" 2> /dev/null & st=$!
    sleep 0.5
    timeout 300 strace -f -c -o "$d/luamech.strace" "$BIN" run "$R/bench/mc_getset.lua" -n "$N" -d 0 \
        -u 200 -w 1 --io epoll -q -e "MEMCACHED=127.0.0.1:$port" -e POOL=1 -e "MC_PROTOCOL=$proto" \
        -e "GET_ONLY=$GET_ONLY" -o "$d/res" > "$d/out" 2>&1
    rc=$?
    kill -INT "$st"; wait "$st" 2>/dev/null
    o1=$(mc_ops "$port")
    kill "$sp"; wait "$sp" 2>/dev/null
    ops=$((o1 - o0))
    if [ "$ops" -ne "$want" ] || [ "$rc" -ne 0 ]; then
      echo "$r $proto: a miss (server counted $ops operations, want $want; exit $rc)"; continue
    fi
    awk -v r="$r" -v p="$proto" -v ops="$ops" -v ss="$(calls sendmsg "$d/server.strace")" \
        -v sr="$(calls read "$d/server.strace")" -v lr="$(calls read "$d/luamech.strace")" \
        -v lw="$(calls write "$d/luamech.strace")" -v le="$(calls epoll_wait "$d/luamech.strace")" \
        'BEGIN { printf "%-5s %-5s %8d %10.4f %10.4f %10.4f %10.4f %10.4f\n", r, p, ops, ss / ops, sr / ops, lr / ops, lw / ops, le / ops }'
  done
done | tee "$OUT/runs.txt"
