#!/usr/bin/env bash
# bench/net_instr.sh - instructions per redis command of the connection
# layer (src/net) and of the worker thread, under valgrind (callgrind), a
# load-insensitive A/B of luamech binaries, run from the repo root:
#
#   IO=epoll TLS=1 bash bench/net_instr.sh OLD_BINARY NEW_BINARY
#
# For each binary: SETs by 50 VUs, one connection each (a read and a write
# per command, the path where the connection layer's cost per command is
# largest), against a fresh redis-server on 127.0.0.1 (TLS=1: its TLS port,
# certificates by tests/scenarios/fixtures/tls_mkpki.sh), one worker, at
# N_SMALL and N_BIG commands, under callgrind with one output per thread.
# Prints per binary the marginal instructions per command (N_BIG - N_SMALL,
# start-up and connects cancelled out): net/cmd, the self Ir of functions
# in src/net/*.c (every thread); worker/cmd, the worker thread's Ir.
# Settings: IO=epoll|uring TLS=0|1 N_SMALL=1000 N_BIG=6000 OUT=DIR.  Every
# run is bounded by timeout 600.
set -u -o pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
IO=${IO:-epoll} TLS=${TLS:-0} N_SMALL=${N_SMALL:-1000} N_BIG=${N_BIG:-6000}
OUT=${OUT:-/tmp/luamech-bench/net-instr-$(date +%Y%m%d-%H%M%S)}
[ $# -ge 1 ] || die "usage: bash bench/net_instr.sh BINARY [BINARY...]"
need valgrind valgrind
need callgrind_annotate valgrind
need redis-server redis-server
mkdir -p "$OUT/pki" || die "cannot create $OUT"
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ "$TLS" = 1 ] && { bash "$ROOT/tests/scenarios/fixtures/tls_mkpki.sh" "$OUT/pki" || die "cannot make the PKI"; }
cat > "$OUT/sc.lua" <<'L'
return { name = "net_instr", interval = "1s", groups = { { name = "g", vus = 50, script = "vu.lua" } } }
L
cat > "$OUT/vu.lua" <<'L'
local tls = assert(loadstring("return " .. luamech.param("TLS", "nil")))()
local r = assert(luamech.redis.connect(luamech.param("RD"), { tls = tls }))
return function() assert(r:set("k" .. luamech.random(1, 100), "v")) end
L
# self Ir of src/net functions, all threads; Ir of the thread running lua_resume
net_ir() { local f; for f in "$1"/cg.out-*; do callgrind_annotate --threshold=100 --auto=no --inclusive=no "$f" 2>/dev/null; done |
           awk '/src\/net\/.*\.c:/ && $2 ~ /^\(/ {gsub(",", "", $1); s += $1} END {print s + 0}'; }
worker_ir() { local f; for f in "$1"/cg.out-*; do
                grep -q 'lua_resume' "$f" && awk '/^summary:/ {print $2; exit}' "$f"; done | sort -n | tail -1; }
run1() {   # BIN DIR N
  local port pid T=nil
  mkdir -p "$2"; port=$(free_port)
  if [ "$TLS" = 1 ]; then
    redis-server --port 0 --tls-port "$port" --bind 127.0.0.1 --save "" --appendonly no --tls-cert-file "$OUT/pki/server.pem" \
      --tls-key-file "$OUT/pki/server.key" --tls-ca-cert-file "$OUT/pki/ca.pem" --tls-auth-clients no --daemonize no >/dev/null 2>&1 &
    T="{ ca_file = '$OUT/pki/ca.pem' }"
  else
    redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --daemonize no >/dev/null 2>&1 &
  fi
  pid=$!
  for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.05; done
  timeout 600 valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$2/cg.out" "$1" run "$OUT/sc.lua" \
    --io "$IO" -w 1 -n "$3" -d 0 -q -o "$2/res" -e "RD=127.0.0.1:$port" -e "TLS=$T" >"$2/out" 2>&1
  echo $? >"$2/rc"
  kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
}
printf 'binary\tnet/cmd\tworker/cmd\n'
k=0
for bin in "$@"; do
  k=$((k + 1))
  run1 "$bin" "$OUT/$k-small" "$N_SMALL"; run1 "$bin" "$OUT/$k-big" "$N_BIG"
  d=$((N_BIG - N_SMALL))
  ns=$(net_ir "$OUT/$k-small") nb=$(net_ir "$OUT/$k-big") ws=$(worker_ir "$OUT/$k-small") wb=$(worker_ir "$OUT/$k-big")
  awk -v b="$bin" -v ns="$ns" -v nb="$nb" -v ws="${ws:-0}" -v wb="${wb:-0}" -v d="$d" \
    'BEGIN {printf "%s\t%.1f\t%.0f\n", b, (nb - ns) / d, (wb - ws) / d}'
done
echo "# callgrind Ir, IO=$IO TLS=$TLS, commands $N_SMALL/$N_BIG, 50 connections; runs in $OUT"
