#!/usr/bin/env bash
# bench/h2_instr.sh - instructions per request of luamech's HTTP client (the
# worker thread) under valgrind (callgrind): deterministic, so it works on a
# busy machine, a companion to the wall-clock bench/h2_vs_h2load.sh.  Run
# from the repo root:
#
#   bash bench/h2_instr.sh BINARY [BINARY...]       # luamech binaries
#   TOOL=h2load bash bench/h2_instr.sh              # h2load, same method
#
# Server: nginx as in bench/h2_vs_h2load.sh (1 worker, access_log off,
# `location = /` returning 200 "hello\n"), pinned to SERVER_CPU; PROTO=h2
# (h2c with prior knowledge, the default) or PROTO=h1 (plaintext HTTP/1.1,
# keep-alive).  Workload as in h2_vs_h2load.sh: CONNS*STREAMS VUs sharing
# one pooled client (http = "2", max_streams = STREAMS; for h1 the same VUs
# on a pooled HTTP/1.1 client), one GET and one Lua transaction per
# request, one worker, pinned to GEN_CPU.  Each binary runs at N_SMALL and
# N_BIG requests; printed: the marginal Ir per request of the busiest
# thread running lua_resume (luamech's worker) or of h2load's busiest
# thread, (Ir(N_BIG) - Ir(N_SMALL)) / (N_BIG - N_SMALL), start-up, connects
# and Lua compilation cancelled out; and for luamech the same less the
# per-second statistics rotation (worker_rotate, inclusive): it runs once
# per second of wall time, and under valgrind a run's seconds follow the
# machine's load, not the code (2-4 % of the worker's instructions; two
# runs of one binary differed by up to ~600 Ir/req in the raw figure, by
# ~100 in this one).  Settings: PROTO=h2|h1 CONNS=4
# STREAMS=25 N_SMALL=2000 N_BIG=22000 SERVER_CPU=0 GEN_CPU=1 OUT=DIR
# (callgrind files kept there; callgrind_annotate them for the costs),
# VU_PRE=LUA (a line put at the top of the VU script, for experiments:
# VU_PRE='collectgarbage("setpause", 400)').  Runs differ by about +-100
# Ir/req (LuaJIT's GC steps fall unevenly); a cut smaller than that needs
# a few runs.
set -u -o pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
PROTO=${PROTO:-h2} TOOL=${TOOL:-luamech}
CONNS=${CONNS:-4} STREAMS=${STREAMS:-25}
N_SMALL=${N_SMALL:-2000} N_BIG=${N_BIG:-22000}
SERVER_CPU=${SERVER_CPU:-0} GEN_CPU=${GEN_CPU:-1}
OUT=${OUT:-/tmp/luamech-bench/h2-instr-$(date +%Y%m%d-%H%M%S)}
[ "$TOOL" = h2load ] || [ $# -ge 1 ] || die "usage: bash bench/h2_instr.sh BINARY [BINARY...] (or TOOL=h2load)"
need valgrind valgrind
need nginx nginx-light
[ "$TOOL" = h2load ] && need h2load nghttp2-client
mkdir -p "$OUT/ng/tmp" || die "cannot create $OUT"
PORT=$(free_port)
h2=0
[ "$PROTO" = h2 ] && h2=1
bench_nginx_conf "$OUT/ng" "$PORT" 0 "" "$h2"
taskset -c "$SERVER_CPU" nginx -p "$OUT/ng" -c "$OUT/ng/nginx.conf" &
NGPID=$!
trap 'kill $NGPID 2>/dev/null; wait 2>/dev/null' EXIT
for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.05; done
kill -0 "$NGPID" 2>/dev/null || die "nginx did not start (see $OUT/ng/error.log)"
opts="http = \"2\", pool = true, max_streams = $STREAMS"
[ "$PROTO" = h1 ] && opts="http = \"1.1\", pool = true"
cat > "$OUT/vu.lua" <<S
${VU_PRE:-}
local c = luamech.http.new("http://127.0.0.1:$PORT", { $opts })
return function()
  local r = c:get("/")
  if not r or r.status ~= 200 then error("bad response") end
end
S
# Ir of the busiest thread (of those running lua_resume, for luamech)
thread_ir() { local f; for f in "$1"/cg.out-*; do
                { [ "$TOOL" = h2load ] || grep -q 'lua_resume' "$f"; } && awk '/^summary:/ {print $2; exit}' "$f"; done | sort -n | tail -1; }
# The same less worker_rotate's inclusive Ir (luamech; h2load: as thread_ir)
thread_ir_norot() { local f best=0 ir rot; for f in "$1"/cg.out-*; do
                      { [ "$TOOL" = h2load ] || grep -q 'lua_resume' "$f"; } || continue
                      ir=$(awk '/^summary:/ {print $2; exit}' "$f")
                      [ "$ir" -gt "$best" ] || continue
                      best=$ir
                      rot=$(callgrind_annotate --inclusive=yes --threshold=100 "$f" 2>/dev/null |
                            awk '/worker\.c:worker_rotate / && !/=>/ {v = $1; gsub(",", "", v); print v; exit}')
                      echo $((ir - ${rot:-0}))
                    done | tail -1; }
run1() {   # BIN DIR N
  mkdir -p "$2"
  if [ "$TOOL" = h2load ]; then
    local h2=""
    [ "$PROTO" = h1 ] && h2="--h1"
    timeout 900 taskset -c "$GEN_CPU" valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$2/cg.out" \
      h2load $h2 -c "$CONNS" -m "$STREAMS" -n "$3" -t 1 "http://127.0.0.1:$PORT/" >"$2/out" 2>&1
  else
    cat > "$2/s.lua" <<S
return { requests = $3, groups = { { name = "h2", vus = $((CONNS * STREAMS)), script = "$OUT/vu.lua" } } }
S
    timeout 900 taskset -c "$GEN_CPU" valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$2/cg.out" \
      "$1" run "$2/s.lua" -q -w 1 -o "$2/res" >"$2/out" 2>&1
  fi
  echo $? >"$2/rc"
}
printf 'tool\tproto\tIr/req\tless-rotation\n'
k=0
[ "$TOOL" = h2load ] && set -- h2load
for bin in "$@"; do
  k=$((k + 1))
  run1 "$bin" "$OUT/$k-small" "$N_SMALL"
  run1 "$bin" "$OUT/$k-big" "$N_BIG"
  for d in "$OUT/$k-small" "$OUT/$k-big"; do
    [ "$(cat "$d/rc")" = 0 ] || note "$bin: exit $(cat "$d/rc") in $d (see $d/out)"
  done
  a=$(thread_ir "$OUT/$k-small") b=$(thread_ir "$OUT/$k-big")
  ra=$(thread_ir_norot "$OUT/$k-small") rb=$(thread_ir_norot "$OUT/$k-big")
  printf '%s\t%s\t%s\t%s\n' "$bin" "$PROTO" "$(awk -v a="$a" -v b="$b" -v n=$((N_BIG - N_SMALL)) 'BEGIN{printf "%.0f", (b - a) / n}')" \
    "$(awk -v a="$ra" -v b="$rb" -v n=$((N_BIG - N_SMALL)) 'BEGIN{printf "%.0f", (b - a) / n}')"
done
echo "# callgrind files: $OUT/<k>-big/cg.out-*" >&2
