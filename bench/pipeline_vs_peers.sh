#!/usr/bin/env bash
# bench/pipeline_vs_peers.sh - explicit redis pipelines: luamech's r:pipeline
# against redis-benchmark -P at the same depth, run from the repo root:
#
#   bash bench/pipeline_vs_peers.sh            # CPU per command, alternating runs
#   MODE=instr bash bench/pipeline_vs_peers.sh # instructions per command (callgrind)
#
# Workload, per depth D (DEPTHS, default "10 50 200"), N commands per run
# (half SET, half GET; random keys of KEYS, VALUE_SIZE-byte values), one
# connection, one pipeline of D commands in flight:
#   - redis-benchmark -c 1 -P D -t set,get -d VALUE_SIZE -r KEYS -n N/2
#     (a SET phase then a GET phase; keys key:%012d)
#   - luamech, one run per FORM (FORMS, default "prepared fresh"):
#     bench/redis_pipeline.lua, one VU, -n N/D transactions of one pipeline
#     of D/2 SETs then D/2 GETs (bench/redis_pipeline_vu.lua says what each
#     FORM is: fresh = new command tables and string.format keys per
#     transaction, reuse = one table with new keys, keys = one table with a
#     luamech.keys generator, prepared = r:prepare'd once); every command has
#     its own sample (redis.set, redis.get) as always.
# The operations are counted by the server (INFO commandstats: set + get
# calls), which must equal N: a run that differs is reported, not averaged.
#
# MODE=cpu (default): ROUNDS rounds; in each, for each depth, every tool once
# (the order reversed in even rounds), each against a fresh redis-server
# pinned to SERVER_CPU, the generator pinned to GEN_CPU.  A steady-state
# window from the moment the server has counted 10 % of N to 90 % (polled
# every 20 ms, bash builtins only): us/cmd = generator utime+stime / server
# calls in the window; oth% = CPU of all other processes in the window (100
# = one CPU: on a busy machine the figures are noise, say so).  Printed: a
# row per run, then per depth and luamech form the medians and the median of
# the per-round ratios luamech/redis-benchmark (<= 1: luamech spends no more
# CPU per command).
# MODE=instr: per depth and tool, two runs under valgrind --tool=callgrind at
# N_SMALL and N_BIG commands; Ir/cmd = (Ir at N_BIG - Ir at N_SMALL) / (server
# calls at N_BIG - at N_SMALL): the marginal instructions per command, start-up
# cancelled out, repeatable on a busy machine.  luamech: its worker thread
# (--toggle-collect=worker_main; the main thread's per-second statistics are
# the same whatever the load); redis-benchmark: the whole process minus its
# showThroughput (a 250 ms progress timer, called ~50x more often under
# valgrind's slowdown than in a real run).
# IO=auto|uring|epoll: luamech's --io (default auto: io_uring where allowed).
# Settings (environment): MODE=cpu|instr ROUNDS=3 DEPTHS="10 50 200"
# FORMS="prepared fresh" N=2000000 N_SMALL=20000 N_BIG=120000 KEYS=10000
# VALUE_SIZE=32 SERVER_CPU=0 GEN_CPU=1 OUT=/tmp/luamech-bench/pipeline-<time>
set -u -o pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib_window.sh"

MODE=${MODE:-cpu}
ROUNDS=${ROUNDS:-3}
DEPTHS=${DEPTHS:-"10 50 200"}
FORMS=${FORMS:-"prepared fresh"}
N=${N:-2000000}
N_SMALL=${N_SMALL:-20000}
N_BIG=${N_BIG:-120000}
KEYS=${KEYS:-10000}
VALUE_SIZE=${VALUE_SIZE:-32}
SERVER_CPU=${SERVER_CPU:-0}
GEN_CPU=${GEN_CPU:-1}
OUT=${OUT:-/tmp/luamech-bench/pipeline-$(date +%Y%m%d-%H%M%S)}
LIMIT_S=${LIMIT_S:-300}
IO=${IO:-auto}

case $MODE in cpu|instr) ;; *) die "MODE must be cpu or instr" ;; esac
case $IO in auto|uring|epoll) ;; *) die "IO must be auto, uring or epoll" ;; esac
[ "$ROUNDS" -ge 1 ] && [ "$ROUNDS" -le 100 ] || die "ROUNDS must be 1..100"
for f in $FORMS; do case $f in fresh|reuse|keys|prepared) ;; *) die "unknown FORM $f" ;; esac; done
for d in $DEPTHS; do
  [ "$d" -ge 2 ] && [ "$d" -le 10000 ] && [ $((d % 2)) = 0 ] || die "depths must be even, 2..10000"
  for n in "$N" "$N_SMALL" "$N_BIG"; do
    [ $((n % d)) = 0 ] || die "N, N_SMALL and N_BIG must be multiples of every depth ($n, $d)"
  done
done
[ "$N_BIG" -gt "$N_SMALL" ] || die "N_BIG must be larger than N_SMALL"
need_luamech
need redis-server redis-server
need redis-benchmark redis-tools
need taskset util-linux
[ "$MODE" = cpu ] || { need valgrind valgrind; need callgrind_annotate valgrind; }
mkdir -p "$OUT" || die "cannot create $OUT"
CLK_TCK=$(getconf CLK_TCK)

# --- redis-server: fresh per run; INFO over one open connection -----------
RS_PID= RFD=
rs_start() {   # DIR: sets RS_PORT
  local i
  RS_PORT=$(free_port)
  taskset -c "$SERVER_CPU" redis-server --bind 127.0.0.1 --port "$RS_PORT" --save "" --appendonly no \
    --dir "$1" --logfile "$1/redis.log" --daemonize no >/dev/null 2>&1 &
  RS_PID=$!
  for i in $(seq 1 100); do
    if (exec 9<>"/dev/tcp/127.0.0.1/$RS_PORT") 2>/dev/null; then
      exec {RFD}<>"/dev/tcp/127.0.0.1/$RS_PORT" && return 0
    fi
    kill -0 "$RS_PID" 2>/dev/null || die "redis-server exited at start"
    nap 0.05
  done
  die "redis-server did not listen within 5 s"
}
rs_stop() {
  if [ -n "$RFD" ]; then exec {RFD}>&-; RFD=; fi
  if [ -n "$RS_PID" ]; then kill "$RS_PID" 2>/dev/null; wait "$RS_PID" 2>/dev/null; fi
  RS_PID=
}
# rs_calls: CALLS = the server's set + get calls so far (bash builtins only)
rs_calls() {
  local line len text t s=0 g=0
  printf 'INFO commandstats\r\n' 1>&"$RFD" 2>/dev/null || return 1
  IFS= read -r -t 2 -u "$RFD" line || return 1
  line=${line%$'\r'}
  case $line in \$[0-9]*) ;; *) return 1 ;; esac
  len=${line#\$}
  IFS= read -r -d '' -N "$((len + 2))" -t 2 -u "$RFD" text || return 1
  t=${text#*$'\n'cmdstat_set:calls=}; [ "$t" != "$text" ] && s=${t%%,*}
  t=${text#*$'\n'cmdstat_get:calls=}; [ "$t" != "$text" ] && g=${t%%,*}
  CALLS=$((s + g))
}
trap 'rs_stop' EXIT
trap 'rs_stop; exit 130' INT TERM

# tool_cmd TOOL DEPTH N PORT DIR: sets CMD (the generator's command line)
tool_cmd() {
  local tool=$1 d=$2 n=$3 port=$4 dir=$5
  if [ "$tool" = redis-benchmark ]; then
    CMD=(redis-benchmark -h 127.0.0.1 -p "$port" -c 1 -P "$d" -t set,get -d "$VALUE_SIZE"
         -r "$KEYS" -n $((n / 2)) -q)
  else
    CMD=("$LUAMECH" run "$BENCH_DIR/redis_pipeline.lua" -w 1 -q -n $((n / d)) -d 0 -i 1s --io "$IO"
         -o "$dir/results" -e "REDIS=127.0.0.1:$port" -e "DEPTH=$d" -e "FORM=${tool#luamech-}"
         -e "KEYS=$KEYS" -e "VALUE_SIZE=$VALUE_SIZE")
  fi
}

TOOLS=(redis-benchmark)
for f in $FORMS; do TOOLS+=("luamech-$f"); done

# ---- MODE=cpu --------------------------------------------------------------
TSV=$OUT/runs.tsv
run_cpu() {   # TOOL DEPTH ROUND
  local tool=$1 d=$2 round=$3 dir=$OUT/$2-$1-$3 gpid tpid lo=$((N / 10)) hi=$((N * 9 / 10)) i
  local t0 c0 g0 s0 b0 t1 c1 g1 s1 b1 ok=0 rc calls
  mkdir -p "$dir"
  rs_start "$dir"
  tool_cmd "$tool" "$d" "$N" "$RS_PORT" "$dir"
  echo "${CMD[*]}" >"$dir/command"
  taskset -c "$GEN_CPU" "${CMD[@]}" >"$dir/stdout" 2>"$dir/stderr" &
  gpid=$!
  for ((i = 0; i < LIMIT_S * 50; i++)); do      # the window's start: 10 % of N counted
    rs_calls && [ "$CALLS" -ge "$lo" ] && break
    kill -0 "$gpid" 2>/dev/null || break
    nap 0.02
  done
  if rs_calls && [ "$CALLS" -ge "$lo" ] && ticks_of "$gpid"; then
    now_s; t0=$NOW; c0=$CALLS; g0=$TICKS; ticks_of "$RS_PID"; s0=$TICKS; busy_now; b0=$BUSY
    for ((i = 0; i < LIMIT_S * 50; i++)); do
      rs_calls && [ "$CALLS" -ge "$hi" ] && break
      kill -0 "$gpid" 2>/dev/null || break
      nap 0.02
    done
    if rs_calls && [ "$CALLS" -ge "$hi" ] && ticks_of "$gpid"; then
      now_s; t1=$NOW; c1=$CALLS; g1=$TICKS; ticks_of "$RS_PID"; s1=$TICKS; busy_now; b1=$BUSY; ok=1
    fi
  fi
  for ((i = 0; i < LIMIT_S * 10; i++)); do kill -0 "$gpid" 2>/dev/null || break; nap 0.1; done
  kill -0 "$gpid" 2>/dev/null && { note "$tool D=$d round $round: still running after ${LIMIT_S}s; stopped"; kill "$gpid"; }
  wait "$gpid"; rc=$?
  calls=0; rs_calls && calls=$CALLS
  rs_stop
  local ops=n/a cpu=n/a oth=n/a
  if [ "$ok" = 1 ]; then
    read -r ops cpu oth < <(awk -v t0="$t0" -v t1="$t1" -v c="$((c1 - c0))" -v g="$((g1 - g0))" \
      -v o="$((b1 - b0 - (g1 - g0) - (s1 - s0)))" -v k="$CLK_TCK" \
      'BEGIN { dt = t1 - t0; if (o < 0) o = 0
               printf "%.0f %.4f %.0f\n", c / dt, g / k * 1e6 / c, 100 * o / k / dt }')
  else
    note "$tool D=$d round $round: no window (the server did not count 10 % and 90 % of $N)"
  fi
  [ "$calls" = "$N" ] || { note "$tool D=$d round $round: the server counted $calls commands, not $N: a miss"; cpu=n/a; }
  [ "$rc" = 0 ] || { note "$tool D=$d round $round: exit code $rc (see $dir/stderr)"; cpu=n/a; }
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$d" "$tool" "$round" "$ops" "$cpu" "$oth" "$calls" "$rc" >>"$TSV"
  printf '%-6s %-18s %-5s %10s %10s %5s %10s %3s\n' "$d" "$tool" "$round" "$ops" "$cpu" "$oth" "$calls" "$rc"
}

cpu_mode() {
  printf 'depth\ttool\tround\twin_ops_s\tus_per_cmd\toth_pct\tsrv_calls\trc\n' >"$TSV"
  printf '%-6s %-18s %-5s %10s %10s %5s %10s %3s\n' depth tool round cmd/s us/cmd oth% srv_calls rc
  local r d t order
  for r in $(seq 1 "$ROUNDS"); do
    for d in $DEPTHS; do
      order=("${TOOLS[@]}")
      if [ $((r % 2)) = 0 ]; then
        local rev=() i; for ((i = ${#order[@]} - 1; i >= 0; i--)); do rev+=("${order[i]}"); done; order=("${rev[@]}")
      fi
      for t in "${order[@]}"; do run_cpu "$t" "$d" "$r"; done
    done
  done
  echo
  echo "# medians over $ROUNDS rounds; ratio = median of the per-round luamech/redis-benchmark us/cmd (<= 1: met)"
  printf '%-6s %-18s %10s %10s %8s %12s %10s\n' depth tool cmd/s us/cmd oth% rb_us/cmd ratio
  for d in $DEPTHS; do
    local rb
    rb=$(awk -F'\t' -v d="$d" 'NR > 1 && $1 == d && $2 == "redis-benchmark" { print $5 }' "$TSV" | median)
    for t in "${TOOLS[@]}"; do
      [ "$t" = redis-benchmark ] && continue
      local ops cpu oth ratio
      ops=$(awk -F'\t' -v d="$d" -v t="$t" 'NR > 1 && $1 == d && $2 == t { print $4 }' "$TSV" | median)
      cpu=$(awk -F'\t' -v d="$d" -v t="$t" 'NR > 1 && $1 == d && $2 == t { print $5 }' "$TSV" | median)
      oth=$(awk -F'\t' -v d="$d" -v t="$t" 'NR > 1 && $1 == d && $2 == t { print $6 }' "$TSV" | median)
      ratio=$(awk -F'\t' -v d="$d" -v t="$t" 'NR > 1 && $1 == d { v[$3 "," $2] = $5; r[$3] = 1 }
        END { for (k in r) { a = v[k "," t]; b = v[k ",redis-benchmark"]
              if (a != "" && b != "" && a != "n/a" && b != "n/a" && b + 0 > 0) print a / b } }' "$TSV" | median)
      printf '%-6s %-18s %10s %10s %8s %12s %10s\n' "$d" "$t" "$ops" "$cpu" "$oth" "$rb" "$ratio"
    done
  done
}

# ---- MODE=instr ------------------------------------------------------------
# incl FILE PATTERN: inclusive Ir of the first function matching PATTERN
incl() { callgrind_annotate --inclusive=yes "$1" 2>/dev/null | awk -v f="$2" '$0 ~ f { gsub(",", "", $1); print $1; exit }'; }
total() { callgrind_annotate "$1" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }'; }

instr_one() {   # TOOL DEPTH N DIR: sets IR CALLS
  local tool=$1 d=$2 n=$3 dir=$4 vg show
  mkdir -p "$dir"
  rs_start "$dir"
  tool_cmd "$tool" "$d" "$n" "$RS_PORT" "$dir"
  vg=(valgrind --tool=callgrind --callgrind-out-file="$dir/cg.out")
  [ "$tool" = redis-benchmark ] || vg+=(--toggle-collect=worker_main)
  timeout 1800 "${vg[@]}" "${CMD[@]}" >"$dir/stdout" 2>"$dir/stderr" || note "$tool D=$d N=$n: failed (see $dir/stderr)"
  CALLS=0; rs_calls || CALLS=0
  rs_stop
  IR=$(total "$dir/cg.out")
  if [ "$tool" = redis-benchmark ]; then
    show=$(incl "$dir/cg.out" 'showThroughput'); IR=$((IR - ${show:-0}))
  fi
}

instr_mode() {
  printf '%-6s %-18s %12s %12s %10s\n' depth tool calls_small calls_big Ir/cmd
  local d t
  for d in $DEPTHS; do
    local rb=
    for t in "${TOOLS[@]}"; do
      instr_one "$t" "$d" "$N_SMALL" "$OUT/instr-$d-$t-small"; local i1=$IR c1=$CALLS
      instr_one "$t" "$d" "$N_BIG" "$OUT/instr-$d-$t-big"; local i2=$IR c2=$CALLS
      local per=n/a
      [ "$c2" -gt "$c1" ] && per=$(( (i2 - i1) / (c2 - c1) ))
      [ "$c1" = "$N_SMALL" ] && [ "$c2" = "$N_BIG" ] || note "$t D=$d: the server counted $c1 / $c2, not $N_SMALL / $N_BIG"
      [ "$t" = redis-benchmark ] && rb=$per
      printf '%-6s %-18s %12s %12s %10s' "$d" "$t" "$c1" "$c2" "$per"
      [ "$t" != redis-benchmark ] && [ -n "$rb" ] && [ "$rb" != n/a ] && [ "$per" != n/a ] && \
        printf '   %s/redis-benchmark %s' "$t" "$(awk -v a="$per" -v b="$rb" 'BEGIN { printf "%.3f", a / b }')"
      echo
    done
  done
}

echo "# luamech r:pipeline vs redis-benchmark -P: $(machine_line)"
echo "# MODE=$MODE, depths $DEPTHS, luamech forms $FORMS (--io $IO), keys $KEYS, values ${VALUE_SIZE} B; server CPU $SERVER_CPU, generator CPU $GEN_CPU; results in $OUT"
if [ "$MODE" = cpu ]; then
  echo "# $ROUNDS rounds of $N commands per run; window 10..90 % of the server's count"
  cpu_mode
else
  echo "# callgrind at $N_SMALL and $N_BIG commands"
  instr_mode
fi
