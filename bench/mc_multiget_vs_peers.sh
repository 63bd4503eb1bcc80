#!/usr/bin/env bash
# bench/mc_multiget_vs_peers.sh - memcached multi-key gets: luamech's
# mc:get_multi against memtier_benchmark at the same depth, run from the repo
# root:
#
#   MEMTIER=/path/to/memtier_benchmark bash bench/mc_multiget_vs_peers.sh
#   MODE=instr MEMTIER=... bash bench/mc_multiget_vs_peers.sh   # instructions/key
#
# Workload, per depth D (DEPTHS, default "10 100"): N keys fetched per run,
# one connection, one request of D keys in flight, every key a hit (KEYS
# keys of VALUE_SIZE bytes preloaded by memtier: "memtier-1".."memtier-KEYS"):
#   - luamech-FORM: bench/mc_multiget.lua, one VU, -n N/D transactions of one
#     mc:get_multi of D random keys (FORMS, default "fresh reuse": see
#     bench/mc_multiget_vu.lua)
#   - memtier-mget: memtier_benchmark --protocol=memcache_text -t 1 -c 1
#     --ratio=0:D --multi-key-get=D: one "get k1 .. kD" per request, the same
#     bytes on the wire as luamech's get_multi (the fairest pair)
#   - memtier-pipe: memtier_benchmark --protocol=memcache_text -t 1 -c 1
#     --ratio=0:D --pipeline=D: D single-key gets in flight (the same keys in
#     flight, D times the requests: a reference, not the target; on this
#     machine its gets stall (p50 1.9 ms, 12 k keys/s at D=100), so a CPU run
#     of it takes minutes: PEERS=mget leaves it out)
# memaslap (memcaslap) is left out: its --division multi-gets only keys it
# SET itself earlier in the same run, with a set:get mix from its config, so
# it cannot run this pure-get workload.
# The keys are counted by the server (stats cmd_get; get_hits must equal it):
# a run whose count differs from N is reported, not averaged.
#
# MODE=cpu (default): ROUNDS rounds; in each, for each depth, every tool once
# (the order reversed in even rounds), each against a fresh memcached pinned
# to SERVER_CPU (preloaded before the tool starts), the generator pinned to
# GEN_CPU.  A steady-state window from 10 % to 90 % of N counted by the
# server (polled every 20 ms, bash builtins only): us/key = generator
# utime+stime / keys in the window; oth% = CPU of all other processes in the
# window (100 = one CPU: on a busy machine the figures are noise, say so).
# Printed: a row per run, then per depth the medians and the median of the
# per-round ratios luamech/memtier-mget (<= 1: luamech spends no more CPU per
# key).
# MODE=instr: per depth and tool, two runs under valgrind --tool=callgrind at
# N_SMALL and N_BIG keys; Ir/key = the marginal instructions per key (start-up
# cancelled out), repeatable on a busy machine.  luamech: its worker thread
# (--toggle-collect=worker_main); memtier: the whole process.
# Settings (environment): MEMTIER (required) MODE=cpu|instr ROUNDS=3
# DEPTHS="10 100" FORMS="fresh reuse" PEERS="mget pipe" N=2000000 N_SMALL=20000 N_BIG=120000
# KEYS=10000 VALUE_SIZE=32 SERVER_CPU=0 GEN_CPU=1 IO=auto LIMIT_S=300
# OUT=/tmp/luamech-bench/mc-multiget-<time>
set -u -o pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib_window.sh"

MODE=${MODE:-cpu}
ROUNDS=${ROUNDS:-3}
DEPTHS=${DEPTHS:-"10 100"}
FORMS=${FORMS:-"fresh reuse"}
PEERS=${PEERS:-"mget pipe"}
N=${N:-2000000}
N_SMALL=${N_SMALL:-20000}
N_BIG=${N_BIG:-120000}
KEYS=${KEYS:-10000}
VALUE_SIZE=${VALUE_SIZE:-32}
SERVER_CPU=${SERVER_CPU:-0}
GEN_CPU=${GEN_CPU:-1}
LIMIT_S=${LIMIT_S:-300}
IO=${IO:-auto}
OUT=${OUT:-/tmp/luamech-bench/mc-multiget-$(date +%Y%m%d-%H%M%S)}
MEMTIER=${MEMTIER:-}

case $MODE in cpu|instr) ;; *) die "MODE must be cpu or instr" ;; esac
case $IO in auto|uring|epoll) ;; *) die "IO must be auto, uring or epoll" ;; esac
[ "$ROUNDS" -ge 1 ] && [ "$ROUNDS" -le 100 ] || die "ROUNDS must be 1..100"
for f in $FORMS; do case $f in fresh|reuse) ;; *) die "unknown FORM $f (fresh, reuse)" ;; esac; done
case " $PEERS " in *" mget "*) ;; *) die "PEERS must include mget (the ratios' reference)" ;; esac
for p in $PEERS; do case $p in mget|pipe) ;; *) die "unknown peer $p (mget, pipe)" ;; esac; done
for d in $DEPTHS; do
  [ "$d" -ge 1 ] && [ "$d" -le 1000 ] || die "depths must be 1..1000"
  for n in "$N" "$N_SMALL" "$N_BIG"; do
    [ $((n % d)) = 0 ] || die "N, N_SMALL and N_BIG must be multiples of every depth ($n, $d)"
  done
done
[ "$N_BIG" -gt "$N_SMALL" ] || die "N_BIG must be larger than N_SMALL"
[ -n "$MEMTIER" ] && [ -x "$MEMTIER" ] || die "set MEMTIER to a memtier_benchmark binary (built from its public source, outside this repo)"
need_luamech
need memcached memcached
need taskset util-linux
[ "$MODE" = cpu ] || { need valgrind valgrind; need callgrind_annotate valgrind; }
mkdir -p "$OUT" || die "cannot create $OUT"
CLK_TCK=$(getconf CLK_TCK)

# --- memcached: fresh and preloaded per run; stats over one open connection --
MFD=
srv_start() {   # DIR: sets MC_PORT, MC_PID (mc_start), MFD; preloads KEYS keys
  MC_PORT=$(free_port)
  mc_start "$MC_PORT"
  exec {MFD}<>"/dev/tcp/127.0.0.1/$MC_PORT" || die "cannot open a stats connection"
  taskset -c "$GEN_CPU" "$MEMTIER" -s 127.0.0.1 -p "$MC_PORT" --protocol=memcache_text -t 1 -c 1 \
    --ratio=1:0 --key-pattern=P:P --key-minimum=1 --key-maximum="$KEYS" -n allkeys -d "$VALUE_SIZE" \
    --hide-histogram >"$1/preload.out" 2>&1 || die "the preload failed (see $1/preload.out)"
  srv_keys && [ "$SETS" -ge "$KEYS" ] || die "the preload set $SETS keys, not $KEYS"
}
srv_stop() {
  if [ -n "$MFD" ]; then exec {MFD}>&-; MFD=; fi
  mc_stop
}
# srv_keys: GETS = cmd_get, HITS = get_hits, SETS = cmd_set so far (builtins only)
srv_keys() {
  local line
  GETS=0 HITS=0 SETS=0
  printf 'stats\r\n' 1>&"$MFD" 2>/dev/null || return 1
  while IFS= read -r -t 2 -u "$MFD" line; do
    line=${line%$'\r'}
    case $line in
      END) return 0 ;;
      "STAT cmd_get "*) GETS=${line#STAT cmd_get } ;;
      "STAT get_hits "*) HITS=${line#STAT get_hits } ;;
      "STAT cmd_set "*) SETS=${line#STAT cmd_set } ;;
    esac
  done
  return 1
}
trap 'srv_stop' EXIT
trap 'srv_stop; exit 130' INT TERM

# tool_cmd TOOL DEPTH N PORT DIR: sets CMD (the generator's command line)
tool_cmd() {
  local tool=$1 d=$2 n=$3 port=$4 dir=$5
  case $tool in
    memtier-mget)
      CMD=("$MEMTIER" -s 127.0.0.1 -p "$port" --protocol=memcache_text -t 1 -c 1 --ratio="0:$d"
           --multi-key-get="$d" --key-pattern=R:R --key-minimum=1 --key-maximum="$KEYS" -d "$VALUE_SIZE"
           -n $((n / d)) --hide-histogram) ;;
    memtier-pipe)
      CMD=("$MEMTIER" -s 127.0.0.1 -p "$port" --protocol=memcache_text -t 1 -c 1 --ratio="0:$d"
           --pipeline="$d" --key-pattern=R:R --key-minimum=1 --key-maximum="$KEYS" -d "$VALUE_SIZE"
           -n "$n" --hide-histogram) ;;
    *)
      CMD=("$LUAMECH" run "$BENCH_DIR/mc_multiget.lua" -w 1 -q -n $((n / d)) -d 0 -i 1s --io "$IO"
           -o "$dir/results" -e "MEMCACHED=127.0.0.1:$port" -e "DEPTH=$d" -e "FORM=${tool#luamech-}"
           -e "KEYS=$KEYS") ;;
  esac
}

TOOLS=()
for p in $PEERS; do TOOLS+=("memtier-$p"); done
for f in $FORMS; do TOOLS+=("luamech-$f"); done

# ---- MODE=cpu --------------------------------------------------------------
TSV=$OUT/runs.tsv
run_cpu() {   # TOOL DEPTH ROUND
  local tool=$1 d=$2 round=$3 dir=$OUT/$2-$1-$3 gpid lo=$((N / 10)) hi=$((N * 9 / 10)) i
  local t0 c0 g0 s0 b0 t1 c1 g1 s1 b1 ok=0 rc keys=0 hits=0
  mkdir -p "$dir"
  srv_start "$dir"
  tool_cmd "$tool" "$d" "$N" "$MC_PORT" "$dir"
  echo "${CMD[*]}" >"$dir/command"
  taskset -c "$GEN_CPU" "${CMD[@]}" >"$dir/stdout" 2>"$dir/stderr" &
  gpid=$!
  for ((i = 0; i < LIMIT_S * 50; i++)); do      # the window's start: 10 % of N counted
    srv_keys && [ "$GETS" -ge "$lo" ] && break
    kill -0 "$gpid" 2>/dev/null || break
    nap 0.02
  done
  if srv_keys && [ "$GETS" -ge "$lo" ] && ticks_of "$gpid"; then
    now_s; t0=$NOW; c0=$GETS; g0=$TICKS; ticks_of "$MC_PID"; s0=$TICKS; busy_now; b0=$BUSY
    for ((i = 0; i < LIMIT_S * 50; i++)); do
      srv_keys && [ "$GETS" -ge "$hi" ] && break
      kill -0 "$gpid" 2>/dev/null || break
      nap 0.02
    done
    if srv_keys && [ "$GETS" -ge "$hi" ] && ticks_of "$gpid"; then
      now_s; t1=$NOW; c1=$GETS; g1=$TICKS; ticks_of "$MC_PID"; s1=$TICKS; busy_now; b1=$BUSY; ok=1
    fi
  fi
  for ((i = 0; i < LIMIT_S * 10; i++)); do kill -0 "$gpid" 2>/dev/null || break; nap 0.1; done
  kill -0 "$gpid" 2>/dev/null && { note "$tool D=$d round $round: still running after ${LIMIT_S}s; stopped"; kill "$gpid"; }
  wait "$gpid"; rc=$?
  srv_keys && { keys=$GETS; hits=$HITS; }
  srv_stop
  local kps=n/a cpu=n/a oth=n/a
  if [ "$ok" = 1 ]; then
    read -r kps cpu oth < <(awk -v t0="$t0" -v t1="$t1" -v c="$((c1 - c0))" -v g="$((g1 - g0))" \
      -v o="$((b1 - b0 - (g1 - g0) - (s1 - s0)))" -v k="$CLK_TCK" \
      'BEGIN { dt = t1 - t0; if (o < 0) o = 0
               printf "%.0f %.4f %.0f\n", c / dt, g / k * 1e6 / c, 100 * o / k / dt }')
  else
    note "$tool D=$d round $round: no window (the server did not count 10 % and 90 % of $N)"
  fi
  [ "$keys" = "$N" ] || { note "$tool D=$d round $round: the server counted $keys gets, not $N: a miss"; cpu=n/a; }
  [ "$hits" = "$keys" ] || { note "$tool D=$d round $round: $hits hits of $keys gets (the preload?)"; cpu=n/a; }
  [ "$rc" = 0 ] || { note "$tool D=$d round $round: exit code $rc (see $dir/stderr)"; cpu=n/a; }
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$d" "$tool" "$round" "$kps" "$cpu" "$oth" "$keys" "$rc" >>"$TSV"
  printf '%-6s %-15s %-5s %10s %10s %5s %10s %3s\n' "$d" "$tool" "$round" "$kps" "$cpu" "$oth" "$keys" "$rc"
}

cpu_mode() {
  printf 'depth\ttool\tround\twin_keys_s\tus_per_key\toth_pct\tsrv_gets\trc\n' >"$TSV"
  printf '%-6s %-15s %-5s %10s %10s %5s %10s %3s\n' depth tool round keys/s us/key oth% srv_gets rc
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
  echo "# medians over $ROUNDS rounds; ratio = median of the per-round TOOL/memtier-mget us/key (<= 1: met)"
  printf '%-6s %-15s %10s %10s %8s %14s %10s\n' depth tool keys/s us/key oth% mget_us/key ratio
  for d in $DEPTHS; do
    local mg
    mg=$(awk -F'\t' -v d="$d" 'NR > 1 && $1 == d && $2 == "memtier-mget" { print $5 }' "$TSV" | median)
    for t in "${TOOLS[@]}"; do
      local kps cpu oth ratio
      kps=$(awk -F'\t' -v d="$d" -v t="$t" 'NR > 1 && $1 == d && $2 == t { print $4 }' "$TSV" | median)
      cpu=$(awk -F'\t' -v d="$d" -v t="$t" 'NR > 1 && $1 == d && $2 == t { print $5 }' "$TSV" | median)
      oth=$(awk -F'\t' -v d="$d" -v t="$t" 'NR > 1 && $1 == d && $2 == t { print $6 }' "$TSV" | median)
      ratio=$(awk -F'\t' -v d="$d" -v t="$t" 'NR > 1 && $1 == d { v[$3 "," $2] = $5; r[$3] = 1 }
        END { for (k in r) { a = v[k "," t]; b = v[k ",memtier-mget"]
              if (a != "" && b != "" && a != "n/a" && b != "n/a" && b + 0 > 0) print a / b } }' "$TSV" | median)
      printf '%-6s %-15s %10s %10s %8s %14s %10s\n' "$d" "$t" "$kps" "$cpu" "$oth" "$mg" "$ratio"
    done
  done
}

# ---- MODE=instr ------------------------------------------------------------
total() { callgrind_annotate "$1" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }'; }

instr_one() {   # TOOL DEPTH N DIR: sets IR KEYSEEN
  local tool=$1 d=$2 n=$3 dir=$4 vg
  mkdir -p "$dir"
  srv_start "$dir"
  tool_cmd "$tool" "$d" "$n" "$MC_PORT" "$dir"
  vg=(valgrind --tool=callgrind --callgrind-out-file="$dir/cg.out")
  case $tool in luamech-*) vg+=(--toggle-collect=worker_main) ;; esac
  timeout 1800 "${vg[@]}" "${CMD[@]}" >"$dir/stdout" 2>"$dir/stderr" || note "$tool D=$d N=$n: failed (see $dir/stderr)"
  KEYSEEN=0; srv_keys && KEYSEEN=$GETS
  srv_stop
  IR=$(total "$dir/cg.out")
}

instr_mode() {
  printf '%-6s %-15s %12s %12s %10s\n' depth tool keys_small keys_big Ir/key
  local d t
  for d in $DEPTHS; do
    local mg=
    for t in "${TOOLS[@]}"; do
      instr_one "$t" "$d" "$N_SMALL" "$OUT/instr-$d-$t-small"; local i1=$IR c1=$KEYSEEN
      instr_one "$t" "$d" "$N_BIG" "$OUT/instr-$d-$t-big"; local i2=$IR c2=$KEYSEEN
      local per=n/a
      [ "$c2" -gt "$c1" ] && per=$(( (i2 - i1) / (c2 - c1) ))
      [ "$c1" = "$N_SMALL" ] && [ "$c2" = "$N_BIG" ] || note "$t D=$d: the server counted $c1 / $c2, not $N_SMALL / $N_BIG"
      [ "$t" = memtier-mget ] && mg=$per
      printf '%-6s %-15s %12s %12s %10s' "$d" "$t" "$c1" "$c2" "$per"
      [ "$t" != memtier-mget ] && [ -n "$mg" ] && [ "$mg" != n/a ] && [ "$per" != n/a ] && \
        printf '   %s/memtier-mget %s' "$t" "$(awk -v a="$per" -v b="$mg" 'BEGIN { printf "%.3f", a / b }')"
      echo
    done
  done
}

echo "# luamech mc:get_multi vs memtier_benchmark --multi-key-get / --pipeline: $(machine_line)"
echo "# MODE=$MODE, depths $DEPTHS, luamech forms $FORMS (--io $IO), keys $KEYS, values ${VALUE_SIZE} B; server CPU $SERVER_CPU, generator CPU $GEN_CPU; $("$MEMTIER" --version 2>&1 | head -1); results in $OUT"
if [ "$MODE" = cpu ]; then
  echo "# $ROUNDS rounds of $N keys per run; window 10..90 % of the server's count"
  cpu_mode
else
  echo "# callgrind at $N_SMALL and $N_BIG keys"
  instr_mode
fi
