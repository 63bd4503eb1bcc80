#!/usr/bin/env bash
# bench/pooled_instr.sh - instructions per pooled redis command under
# valgrind (callgrind), a load-insensitive A/B of luamech binaries, run from
# the repo root:
#
#   bash bench/pooled_instr.sh OLD_BINARY NEW_BINARY [...]
#
# For each binary: bench/redis_setget.lua with POOL=1 (200 VUs on one
# connection, one worker, SET phase then GET phase) against a fresh
# redis-server on 127.0.0.1, under callgrind, at N_SMALL and N_BIG commands
# per phase.  Printed per binary (commands = what the server counted,
# INFO commandstats, SET + GET calls):
#   worker/cmd  (worker thread's Ir at N_BIG - at N_SMALL) / (commands_BIG -
#               commands_SMALL): the worker's marginal cost per command,
#               start-up and connect cancelled out (the loop, reads and
#               writes included: how valgrind's slower run batches them
#               varies a little between runs)
#   path/cmd    Ir of the reply path (redis_on_data inclusive: parse, record,
#               resume, the VU's Lua until its next command, the encoding of
#               that command) / commands at N_BIG: independent of batching
#   lua/cmd     lua_resume inclusive / commands (inside the path)
#   errors      request errors in the N_BIG run (0 expected)
# Then EMPTY transactions (bench/timer_cost.lua TIMED=0 INNER=0, no network)
# at TX_SMALL and TX_BIG: the engine's marginal Ir per empty transaction.
# Settings (environment): N_SMALL=2000 N_BIG=20000 TX_SMALL=100000
# TX_BIG=300000 IO=epoll (luamech's --io) OUT=DIR.  Every run is bounded by
# timeout; each takes 10-60 s under valgrind.
set -u -o pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

N_SMALL=${N_SMALL:-2000}
N_BIG=${N_BIG:-20000}
TX_SMALL=${TX_SMALL:-100000}
TX_BIG=${TX_BIG:-300000}
IO=${IO:-epoll}
OUT=${OUT:-/tmp/luamech-bench/instr-$(date +%Y%m%d-%H%M%S)}
[ $# -ge 1 ] || die "usage: bash bench/pooled_instr.sh BINARY [BINARY...]"
[ "$N_SMALL" -ge 1 ] && [ "$N_BIG" -gt "$N_SMALL" ] && [ "$N_BIG" -le 1000000 ] || die "need 1 <= N_SMALL < N_BIG <= 1000000"
[ "$TX_SMALL" -ge 1 ] && [ "$TX_BIG" -gt "$TX_SMALL" ] && [ "$TX_BIG" -le 10000000 ] || die "need 1 <= TX_SMALL < TX_BIG <= 10000000"
need valgrind valgrind
need callgrind_annotate valgrind
need redis-server redis-server
need redis-cli redis-tools
mkdir -p "$OUT" || die "cannot create $OUT"

# inclusive Ir of the function whose callgrind name matches $2 in file $1
incl() { callgrind_annotate --inclusive=yes "$1" 2>/dev/null | awk -v f="$2" '$0 ~ f {gsub(",", "", $1); print $1; exit}'; }

# cg_redis BIN DIR N: one callgrind run; sets cmds and errs
cg_redis() {
  local bin=$1 d=$2 n=$3 port pid i
  mkdir -p "$d"
  port=$(free_port)
  redis-server --bind 127.0.0.1 --port "$port" --save "" --appendonly no --dir "$d" \
    --logfile "$d/redis.log" --daemonize no >/dev/null 2>&1 &
  pid=$!
  for i in $(seq 1 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.05; done
  timeout 900 valgrind --tool=callgrind --callgrind-out-file="$d/cg.out" \
    "$bin" run "$BENCH_DIR/redis_setget.lua" --io "$IO" -u 200 -w 1 -i 1s -q -n "$n" -d 0 -o "$d/results" \
    -e "REDIS=127.0.0.1:$port" -e KEYS=100000 -e VALUE_SIZE=32 -e POOL=1 >"$d/stdout" 2>"$d/stderr"
  echo $? >"$d/rc"
  cmds=$(redis-cli -p "$port" info commandstats | tr -d '\r' |
         awk -F'[:=,]' '/^cmdstat_(set|get):/ {s += $3} END {print s + 0}')
  kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  errs=$(cat "$d"/results/*/errors.csv 2>/dev/null | awk -F, '$1 == "request" {s += $2} END {print s + 0}')
}

cg_tx() {   # BIN DIR N
  mkdir -p "$2"
  timeout 900 valgrind --tool=callgrind --callgrind-out-file="$2/cg.out" \
    "$1" run "$BENCH_DIR/timer_cost.lua" -n "$3" -d 0 -w 1 -q -o "$2/results" -e TIMED=0 -e INNER=0 \
    >"$2/stdout" 2>"$2/stderr"
  echo $? >"$2/rc"
}

printf 'binary\tworker/cmd\tpath/cmd\tlua/cmd\terrors\tengine/empty_tx\n'
k=0
for bin in "$@"; do
  k=$((k + 1))
  [ -x "$bin" ] || die "not an executable: $bin"
  cg_redis "$bin" "$OUT/$k-redis-small" "$N_SMALL"; c1=$cmds
  cg_redis "$bin" "$OUT/$k-redis-big" "$N_BIG"; c2=$cmds; e2=$errs
  [ "$c2" -gt "$c1" ] || die "$bin: the server counted $c1 then $c2 commands"
  w1=$(incl "$OUT/$k-redis-small/cg.out" 'worker_main \[')
  w2=$(incl "$OUT/$k-redis-big/cg.out" 'worker_main \[')
  p2=$(incl "$OUT/$k-redis-big/cg.out" 'redis_on_data \[')
  l2=$(incl "$OUT/$k-redis-big/cg.out" 'lua_resume \[')
  cg_tx "$bin" "$OUT/$k-tx-small" "$TX_SMALL"
  cg_tx "$bin" "$OUT/$k-tx-big" "$TX_BIG"
  t1=$(incl "$OUT/$k-tx-small/cg.out" 'worker_main \[')
  t2=$(incl "$OUT/$k-tx-big/cg.out" 'worker_main \[')
  printf '%s\t%d\t%d\t%d\t%d\t%d\n' "$bin" $(((w2 - w1) / (c2 - c1))) $((p2 / c2)) $((l2 / c2)) "$e2" \
    $(((t2 - t1) / (TX_BIG - TX_SMALL)))
done
echo "# instructions under valgrind (callgrind Ir), IO=$IO, commands $N_SMALL/$N_BIG per phase, empty transactions $TX_SMALL/$TX_BIG; runs in $OUT"
