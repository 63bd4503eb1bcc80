#!/usr/bin/env bash
# bench/redis_vs_redis_benchmark.sh - luamech against redis-benchmark on the
# same redis workload, run from the repo root:
#
#   bash bench/redis_vs_redis_benchmark.sh
#
# Workload (both tools): 50 connections, closed loop, no pipelining (one
# command in flight per connection), a SET phase of N commands then a GET
# phase of N commands, random keys "key:%012d" in [0, KEYS) (16 bytes),
# 32-byte values.
#   - redis-benchmark: redis-benchmark -h 127.0.0.1 -p PORT -c 50 -P 1 -d 32
#     -t set,get -n N -r KEYS --csv   (one thread, its default; -r KEYS turns
#     key:__rand_int__ into key:000000012345, a random number below KEYS).
#   - luamech: bench/redis_setget.lua, two phases (set, get) of N transactions
#     each (-n N -d 0), 50 VUs (one connection each), --workers 1; one
#     command per transaction (bench/redis_set_vu.lua, bench/redis_get_vu.lua).
#
# Method (that of bench/memcached_vs_memcaslap.sh): a fresh redis-server
# (--save "" --appendonly no) for every run, pinned to CPU 0; the generator
# pinned to CPU 1; runs alternate luamech, redis-benchmark, ... for ROUNDS
# rounds; medians and ratios.  Operations are counted by the server
# (INFO commandstats: cmdstat_set / cmdstat_get calls).
# Per run and phase, a steady-state window: from the moment the server has
# counted 10 % of the phase's N commands to the moment it has counted 90 %
# (polled every 50 ms; the exact counts at the two samples are used), the
# server's calls, the generator's utime+stime (/proc/PID/stat, all threads),
# the server's utime+stime and the machine's busy ticks are sampled.
#   win_ops/s = server calls / window; win_us/op = generator CPU / server
#   calls; gen% = generator CPU / window; srv_us/op = redis CPU per call;
#   oth% = CPU of all other processes in the window (noise; 100 = one CPU).
# The row "all" of a run pools its two windows.  Whole process (row "all"):
# proc_us/op = /usr/bin/time user+sys / all server set+get calls of the run;
# tool_ops/s = the tool's own rate (redis-benchmark's CSV rps; luamech:
# redis.set / redis.get counts of each phase's summary.json / run_time_s).
#
# Pooled mode, POOL=1: luamech's CONNS VUs (default 200) share one connection
# (pool = true, one worker), so up to CONNS commands are pipelined on it;
# redis-benchmark runs -c 1 -P CONNS (one connection, CONNS commands per
# pipeline batch).
#
# memtier_benchmark (not in Debian; build it from its source outside this
# repo) is a third tool of every round when MEMTIER=/path/to/memtier_benchmark
# is set or memtier_benchmark is on PATH; otherwise the script says it is
# skipped.  It runs one process per phase (--ratio=1:0 then 0:1), one thread:
# -c CONNS --pipeline=1 -n N/CONNS, or pooled -c 1 --pipeline=CONNS -n N
# (CONNS requests in flight on one connection, as luamech's pooled VUs);
# keys key:<n> with n uniform in [1, KEYS] (--key-pattern=R:R; not zero-padded,
# so its keys are up to 6 bytes shorter), -d VALUE_SIZE.  Its window CPU is
# that of the phase's memtier process; tool_ops/s is its "Totals" Ops/sec.
# IO=uring|epoll|auto: luamech's --io (bench/lib.sh); the ratios are then headed luamech(IO).
# Settings (environment): ROUNDS=5  N=500000 (commands per phase)  CONNS=50  POOL=0
# MEMTIER= (path; default: memtier_benchmark on PATH, if any)
# KEYS=100000  VALUE_SIZE=32  OUT=DIR (default /tmp/luamech-bench/redis-<time>)
# CLEAN_PCT=10  BUILD_DIR=./build  SERVER_CPU=0  GEN_CPU=1  QUIET_WAIT=60
# QUIET_PCT=15
set -u -o pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib_window.sh"

ROUNDS=${ROUNDS:-5}
N=${N:-500000}
POOL=${POOL:-0}
if [ "$POOL" = 1 ]; then CONNS=${CONNS:-200}; else CONNS=${CONNS:-50}; fi
KEYS=${KEYS:-100000}
VALUE_SIZE=${VALUE_SIZE:-32}
QUIET_WAIT=${QUIET_WAIT:-60}
QUIET_PCT=${QUIET_PCT:-15}
GEN_CPU=${GEN_CPU:-1}
SERVER_CPU=${SERVER_CPU:-0}
CLEAN_PCT=${CLEAN_PCT:-10}
OUT=${OUT:-/tmp/luamech-bench/redis-$(date +%Y%m%d-%H%M%S)}

[ "$ROUNDS" -ge 1 ] && [ "$ROUNDS" -le 100 ] || die "ROUNDS must be 1..100"
[ "$N" -ge 10000 ] && [ "$N" -le 100000000 ] || die "N must be 10000..100000000"
[ "$CONNS" -ge 1 ] && [ "$CONNS" -le 4000 ] || die "CONNS must be 1..4000"
[ "$KEYS" -ge 2 ] || die "KEYS must be >= 2"

need_luamech
need redis-server redis-server
need redis-benchmark redis-tools
need /usr/bin/time time
need jq jq
need taskset util-linux
MEMTIER=${MEMTIER:-$(command -v memtier_benchmark 2>/dev/null)}
if [ -n "$MEMTIER" ] && [ ! -x "$MEMTIER" ]; then die "MEMTIER=$MEMTIER is not an executable"; fi
if [ -z "$MEMTIER" ]; then
  note "memtier_benchmark: skipped (set MEMTIER=/path/to/memtier_benchmark or put it on PATH)"
fi
[ -z "$MEMTIER" ] || [ $((N % CONNS)) = 0 ] || die "N must be a multiple of CONNS for memtier (-n N/CONNS per connection)"
mkdir -p "$OUT" || die "cannot create $OUT"
CLK_TCK=$(getconf CLK_TCK)
# the longest a phase may take before the run is given up (bounded waits)
PHASE_LIMIT=${PHASE_LIMIT:-300}

# --- redis-server ----------------------------------------------------------
RS_PID=
RFD=
rs_start() {   # PORT DIR
  local port=$1 dir=$2 i
  taskset -c "$SERVER_CPU" redis-server --bind 127.0.0.1 --port "$port" --save "" \
    --appendonly no --dir "$dir" --logfile "$dir/redis.log" --maxclients 4096 \
    --daemonize no >/dev/null 2>&1 &
  RS_PID=$!
  for i in $(seq 1 100); do              # up to 5 s
    if (exec 9<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      exec {RFD}<>"/dev/tcp/127.0.0.1/$port" || die "cannot connect to redis on $port"
      return 0
    fi
    kill -0 "$RS_PID" 2>/dev/null || die "redis-server on port $port exited at start"
    nap 0.05
  done
  die "redis-server did not listen on 127.0.0.1:$port within 5 s"
}
rs_stop() {
  if [ -n "$RFD" ]; then exec {RFD}>&-; RFD=; fi
  if [ -n "$RS_PID" ] && kill -0 "$RS_PID" 2>/dev/null; then
    kill "$RS_PID" 2>/dev/null
    local i
    for i in $(seq 1 100); do kill -0 "$RS_PID" 2>/dev/null || break; nap 0.05; done
    kill -9 "$RS_PID" 2>/dev/null
    wait "$RS_PID" 2>/dev/null
  fi
  RS_PID=
}
# rs_info SECTION...: INFO over the open connection (bash builtins only);
# sets INFO_TEXT.
rs_info() {
  local line len
  INFO_TEXT=
  printf 'INFO %s\r\n' "$*" 1>&"$RFD" 2>/dev/null || return 1
  IFS= read -r -t 2 -u "$RFD" line || return 1
  line=${line%$'\r'}
  case $line in \$[0-9]*) ;; *) return 1 ;; esac
  len=${line#\$}
  IFS= read -r -d '' -N "$((len + 2))" -t 2 -u "$RFD" INFO_TEXT || return 1
}
# info_field NAME SEP: the value after NAME up to SEP in INFO_TEXT (0 if absent)
info_field() {
  local t=${INFO_TEXT#*"$1"}
  if [ "$t" = "$INFO_TEXT" ]; then FIELD=0; else FIELD=${t%%["$2"]*}; fi
}
# rs_calls: sets R_SET R_GET (server calls so far)
rs_calls() {
  rs_info commandstats || return 1
  info_field $'\ncmdstat_set:calls=' ','; R_SET=$FIELD
  info_field $'\ncmdstat_get:calls=' ','; R_GET=$FIELD
}

trap 'rs_stop' EXIT
trap 'rs_stop; exit 130' INT TERM

TSV=$OUT/runs.tsv
printf 'round\ttool\tphase\twin_ops_s\twin_cpu_us_op\twin_gen_util_pct\twin_srv_cpu_us_op\twin_other_pct\ttool_ops_s\tproc_cpu_us_op\thit_pct\twall_s\tuser_s\tsys_s\tsrv_ops\ttool_ops\trc\n' >"$TSV"

# gen_pid: the process whose CPU a window counts: the generator, or for
# memtier (a shell running one memtier process per phase) its current child.
gen_pid() {
  if [ "$TOOL" != memtier ]; then echo "$GPID"; return; fi
  local c
  c=$(cat "/proc/$GPID/task/$GPID/children" 2>/dev/null)
  echo "${c%% *}"
}
# sample: one window sample into S_T S_OPS S_GEN S_SRV S_BUSY
sample() {
  rs_calls || return 1
  now_s; S_T=$NOW
  ticks_of "$(gen_pid)" || return 1; S_GEN=$TICKS     # a window needs the generator alive
  ticks_of "$RS_PID"; S_SRV=$TICKS
  busy_now; S_BUSY=$BUSY
  S_OPS=$((R_SET + R_GET))
}
# wait_calls WHICH TARGET: poll until the server counted TARGET calls of
# WHICH (set|get), at most PHASE_LIMIT s; fails if the generator is gone.
wait_calls() {
  local which=$1 target=$2 i n
  for ((i = 0; i < PHASE_LIMIT * 20; i++)); do
    rs_calls || return 1
    if [ "$which" = set ]; then n=$R_SET; else n=$R_GET; fi
    [ "$n" -ge "$target" ] && return 0
    kill -0 "$GPID" 2>/dev/null || return 1
    nap 0.05
  done
  return 1
}

# run_one TOOL ROUND
run_one() {
  local tool=$1 round=$2 d port cmd=() tpid rc quiet i pipe=() mt=()
  TOOL=$tool
  d=$OUT/$round-$tool
  mkdir -p "$d"
  quiet=$(wait_quiet "$QUIET_WAIT" "$QUIET_PCT")
  [ "$quiet" -lt "$QUIET_PCT" ] || note "round $round $tool: machine still busy (${quiet}% of a CPU) after ${QUIET_WAIT}s; running anyway"
  port=$(free_port)
  rs_start "$port" "$d"
  if [ "$tool" = luamech ]; then
    cmd=("$LUAMECH" run "$BENCH_DIR/redis_setget.lua" "${LM_IO_ARGS[@]}" -u "$CONNS" -w 1 -i 1s -q -n "$N" -d 0
         -o "$d/results" -e "REDIS=127.0.0.1:$port" -e "KEYS=$KEYS" -e "VALUE_SIZE=$VALUE_SIZE"
         -e "POOL=$POOL")
  elif [ "$tool" = memtier ]; then
    if [ "$POOL" = 1 ]; then pipe=(-c 1 --pipeline="$CONNS" -n "$N"); else pipe=(-c "$CONNS" --pipeline=1 -n "$((N / CONNS))"); fi
    mt=("$MEMTIER" -s 127.0.0.1 -p "$port" --protocol=redis -t 1 "${pipe[@]}" -d "$VALUE_SIZE"
        --key-prefix=key: --key-pattern=R:R --key-minimum=1 --key-maximum="$KEYS"
        --hide-histogram)
    # one process per phase, in a shell whose current child is the generator
    # (not the last command of the -c string: bash would exec it, leaving no child)
    cmd=(bash -c '"$@" --ratio=1:0 --out-file="$0/memtier-set.txt" && "$@" --ratio=0:1 --out-file="$0/memtier-get.txt"; rc=$?; exit $rc'
         "$d" "${mt[@]}")
  else
    if [ "$POOL" = 1 ]; then pipe=(-c 1 -P "$CONNS"); else pipe=(-c "$CONNS" -P 1); fi
    cmd=(redis-benchmark -h 127.0.0.1 -p "$port" "${pipe[@]}" -d "$VALUE_SIZE"
         -t "set,get" -n "$N" -r "$KEYS" --csv)
  fi
  echo "${cmd[*]}" >"$d/command"

  /usr/bin/time -o "$d/time" -f '%e %U %S %M' taskset -c "$GEN_CPU" "${cmd[@]}" \
    >"$d/stdout" 2>"$d/stderr" &
  tpid=$!
  GPID=$(child_pid "$tpid") || GPID=

  # windows: 10 % .. 90 % of each phase's N, counted by the server
  local lo=$((N / 10)) hi=$((N * 9 / 10)) ph ok
  declare -A W=()
  for ph in set get; do
    ok=0
    if [ -n "$GPID" ] && wait_calls "$ph" "$lo" && sample; then
      local a_t=$S_T a_o=$S_OPS a_g=$S_GEN a_s=$S_SRV a_b=$S_BUSY
      if wait_calls "$ph" "$hi" && sample; then
        W[$ph]="$(awk -v t0="$a_t" -v t1="$S_T" 'BEGIN{printf "%.6f", t1 - t0}') $((S_OPS - a_o)) $((S_GEN - a_g)) $((S_SRV - a_s)) $((S_BUSY - a_b))"
        ok=1
      fi
    fi
    [ "$ok" = 1 ] || note "round $round $tool: no $ph window (the phase did not reach 10 % and 90 % of $N)"
  done

  local limit=$((PHASE_LIMIT * 2))
  for ((i = 0; i < limit * 10; i++)); do kill -0 "$tpid" 2>/dev/null || break; nap 0.1; done
  if kill -0 "$tpid" 2>/dev/null; then
    note "round $round $tool: still running after ${limit}s; stopping it"
    [ -n "$GPID" ] && kill "$GPID" 2>/dev/null
  fi
  wait "$tpid"; rc=$?

  local srv_set=0 srv_get=0 hits=0 miss=0
  if rs_calls; then srv_set=$R_SET srv_get=$R_GET; fi
  if rs_info stats; then
    info_field $'\nkeyspace_hits:' $'\r'; hits=$FIELD
    info_field $'\nkeyspace_misses:' $'\r'; miss=$FIELD
  fi
  rs_stop

  local wall user sys rss
  read -r wall user sys rss < <(grep -E '^[0-9.]+ [0-9.]+ [0-9.]+ [0-9]+$' "$d/time" | tail -1)
  : "${wall:=0}" "${user:=0}" "${sys:=0}" "${rss:=0}"

  # the tool's own counts and rates per phase: "count rate"
  declare -A TOOL=()
  local sj
  if [ "$tool" = luamech ]; then
    for ph in set get; do
      sj=$(ls "$d"/results/*-"$ph"/summary.json 2>/dev/null | head -1)
      if [ -n "$sj" ] && [ -s "$sj" ]; then
        TOOL[$ph]=$(jq -r --arg t "redis.$ph" '([.timers[] | select(.name == $t) | .summary.count] | add // 0) as $n
          | "\($n) \(if .run_time_s > 0 then ($n / .run_time_s) else 0 end) \(.run_time_s)"' "$sj")
        local e
        e=$(jq '[.request_errors[]?.count] | add // 0' "$sj")
        [ "$e" = 0 ] || note "round $round luamech $ph: $e failed requests (see $sj)"
      fi
    done
  elif [ "$tool" = memtier ]; then
    for ph in set get; do
      local rps
      rps=$(awk '$1 == "Totals" { print $2 }' "$d/memtier-$ph.txt" 2>/dev/null | tail -1)
      [ -n "$rps" ] && TOOL[$ph]="$N $rps $(awk -v n="$N" -v r="$rps" 'BEGIN{ if (r > 0) printf "%.6f", n / r; else print 0 }')"
    done
  else
    for ph in set get; do
      local up=${ph^^} rps
      rps=$(sed -n "s/^\"$up\",\"\([0-9.]*\)\".*/\1/p" "$d/stdout" | tail -1)
      # redis-benchmark does not print its count; it does N requests per test
      [ -n "$rps" ] && TOOL[$ph]="$N $rps $(awk -v n="$N" -v r="$rps" 'BEGIN{ if (r > 0) printf "%.6f", n / r; else print 0 }')"
    done
  fi

  [ "$rc" = 0 ] || note "round $round $tool: exit code $rc (see $d/stderr)"
  local hitp
  hitp=$(fmt_div "$((hits * 100))" "$((hits + miss))" 1 1)

  # rows: set, get, all
  local row_t=0 row_o=0 row_g=0 row_s=0 row_b=0 tt_n=0 tt_t=0
  for ph in set get all; do
    local dt ops gt st bt w_ops=n/a w_cpu=n/a w_util=n/a w_srv=n/a w_oth=n/a trate=n/a tn=0 tt
    local proc=n/a hp=n/a srv_ops
    if [ "$ph" = all ]; then
      dt=$row_t ops=$row_o gt=$row_g st=$row_s bt=$row_b
      [ -n "${W[set]:-}" ] && [ -n "${W[get]:-}" ] || ops=0
      tn=$tt_n; tt=$tt_t
      srv_ops=$((srv_set + srv_get))
      proc=$(awk -v u="$user" -v s="$sys" -v o="$srv_ops" 'BEGIN{ if (o > 0) printf "%.3f", (u+s)*1e6/o; else print "n/a" }')
      hp=$hitp
    else
      if [ -n "${W[$ph]:-}" ]; then read -r dt ops gt st bt <<<"${W[$ph]}"; else dt=0 ops=0 gt=0 st=0 bt=0; fi
      row_t=$(awk -v a="$row_t" -v b="$dt" 'BEGIN{printf "%.6f", a + b}')
      row_o=$((row_o + ops)) row_g=$((row_g + gt)) row_s=$((row_s + st)) row_b=$((row_b + bt))
      if [ -n "${TOOL[$ph]:-}" ]; then
        read -r tn _ tt <<<"${TOOL[$ph]}"
        tt_n=$((tt_n + tn)); tt_t=$(awk -v a="$tt_t" -v b="$tt" 'BEGIN{printf "%.6f", a + b}')
      else tt=0; fi
      if [ "$ph" = set ]; then srv_ops=$srv_set; else srv_ops=$srv_get; hp=$hitp; fi
      [ "$tool" = luamech ] && [ "$tn" != "$srv_ops" ] && \
        note "round $round luamech $ph: summary.json counts $tn commands, the server $srv_ops"
    fi
    if [ "$ops" -gt 0 ]; then
      w_ops=$(fmt_div "$ops" "$dt" 1 0)
      w_cpu=$(fmt_div "$gt" "$ops" "$(awk -v k="$CLK_TCK" 'BEGIN{print 1e6 / k}')")
      w_util=$(fmt_div "$gt" "$dt" "$(awk -v k="$CLK_TCK" 'BEGIN{print 100 / k}')" 0)
      w_srv=$(fmt_div "$st" "$ops" "$(awk -v k="$CLK_TCK" 'BEGIN{print 1e6 / k}')")
      w_oth=$(awk -v x="$((bt - gt - st))" -v k="$CLK_TCK" -v t="$dt" \
        'BEGIN{v = 100*x/k/t; if (v < 0) v = 0; printf "%.0f", v}')
    fi
    trate=$(fmt_div "$tn" "$tt" 1 0)
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
      "$round" "$tool" "$ph" "$w_ops" "$w_cpu" "$w_util" "$w_srv" "$w_oth" "$trate" "$proc" "$hp" \
      "$wall" "$user" "$sys" "$srv_ops" "$tn" "$rc" >>"$TSV"
    printf '%-5s %-15s %-5s %10s %10s %5s %10s %5s %10s %10s %6s %6s %10s %10s %3s\n' \
      "$round" "$tool" "$ph" "$w_ops" "$w_cpu" "$w_util" "$w_srv" "$w_oth" "$trate" "$proc" "$hp" "$wall" "$srv_ops" "$tn" "$rc"
  done
}

echo "# $LM_NAME vs redis-benchmark: $(machine_line)"
echo "# luamech $("$LUAMECH" --version 2>&1 | head -1); $(redis-benchmark --version 2>&1 | head -1); $(redis-server --version | awk '{print $1, $2, $3}')"
[ -z "$MEMTIER" ] || echo "# memtier: $("$MEMTIER" --version 2>&1 | head -1) ($MEMTIER)"
echo "# $ROUNDS rounds, $CONNS connections (POOL=$POOL: 1 = luamech's VUs on one connection, redis-benchmark -c 1 -P $CONNS), $N SET then $N GET per run, keys $KEYS, values ${VALUE_SIZE} B; window 10..90 % of each phase; server CPU $SERVER_CPU, generator CPU $GEN_CPU; results in $OUT"
echo "#"
echo "# win_ops/s, win_us/op: steady-state window, server cmdstat calls; generator utime+stime per call"
echo "# gen%: generator CPU use in the window (100 = one CPU); srv_us/op: redis-server CPU per call in the window"
echo "# oth%: CPU used by all other processes in the window (noise; 100 = one CPU)"
echo "# tool_ops/s: the tool's own rate; proc_us/op: /usr/bin/time user+sys / all server set+get calls; hit%: GET keyspace hits"
printf '%-5s %-15s %-5s %10s %10s %5s %10s %5s %10s %10s %6s %6s %10s %10s %3s\n' \
  round tool phase win_ops/s win_us/op gen% srv_us/op oth% tool_ops/s proc_us/op hit% wall srv_ops tool_ops rc
for r in $(seq 1 "$ROUNDS"); do
  run_one luamech "$r"
  run_one redis-benchmark "$r"
  [ -z "$MEMTIER" ] || run_one memtier "$r"
done

# med TOOL PHASE COL [MAX_OTHER]
med() {
  awk -F'\t' -v t="$1" -v p="$2" -v c="$3" -v m="${4:-}" \
    'NR > 1 && $2 == t && $3 == p && (m == "" || ($8 != "n/a" && $8 + 0 < m + 0)) { print $c }' "$TSV" | median
}
nruns() { awk -F'\t' -v t="$1" -v m="$2" 'NR > 1 && $2 == t && $3 == "all" && $8 != "n/a" && $8 + 0 < m + 0' "$TSV" | wc -l; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (a+0 > 0 && b+0 > 0) printf "%.3f", a/b; else print "n/a" }'; }
summary() {   # PEER [MAX_OTHER]
  local f name col a b ph peer=$1
  printf '%-5s %-20s %12s %16s %16s\n' phase figure "$LM_NAME" "$peer" "$LM_NAME/$peer"
  for ph in set get all; do
    for f in "win_ops/s:4" "win_cpu_us/op:5" "win_gen_util_pct:6" "win_srv_cpu_us/op:7" "win_other_pct:8" \
             "tool_ops/s:9" "proc_cpu_us/op:10" "hit_pct:11"; do
      name=${f%%:*} col=${f##*:}
      [ "$ph" != all ] && [ "$name" = proc_cpu_us/op ] && continue
      [ "$ph" = set ] && [ "$name" = hit_pct ] && continue
      a=$(med luamech "$ph" "$col" "${2:-}") b=$(med "$peer" "$ph" "$col" "${2:-}")
      printf '%-5s %-20s %12s %16s %16s\n' "$ph" "$name" "$a" "$b" "$(ratio "$a" "$b")"
    done
  done
}
paired() {   # PEER PHASE COL
  awk -F'\t' -v peer="$1" -v p="$2" -v c="$3" 'NR > 1 && $3 == p { v[$1 "," $2] = $c; r[$1] = 1 }
    END { for (k in r) { a = v[k ",luamech"]; b = v[k "," peer]
          if (a != "n/a" && b != "n/a" && a + 0 > 0 && b + 0 > 0) print a / b } }' "$TSV" | median
}
PEERS=(redis-benchmark)
[ -z "$MEMTIER" ] || PEERS+=(memtier)
for peer in "${PEERS[@]}"; do
  echo
  echo "# $LM_NAME vs $peer: medians over all $ROUNDS rounds"
  summary "$peer"
  echo
  echo "# $LM_NAME vs $peer: medians over the quiet runs only (oth% of the pooled window < $CLEAN_PCT: $(nruns luamech "$CLEAN_PCT") luamech, $(nruns "$peer" "$CLEAN_PCT") $peer runs)"
  summary "$peer" "$CLEAN_PCT"
  echo
  echo "# paired: median over rounds of the round's $LM_NAME/$peer ratio"
  printf '%-5s %-20s %16s\n' phase figure "$LM_NAME/$peer"
  for ph in set get all; do
    for f in "win_ops/s:4" "win_cpu_us/op:5" "tool_ops/s:9" "proc_cpu_us/op:10"; do
      [ "$ph" != all ] && [ "${f%%:*}" = proc_cpu_us/op ] && continue
      printf '%-5s %-20s %16s\n' "$ph" "${f%%:*}" "$(paired "$peer" "$ph" "${f##*:}")"
    done
  done
done
[ -n "$MEMTIER" ] || echo "# memtier_benchmark: skipped (MEMTIER unset and not on PATH)"
echo "# targets: ops/s ratio >= 1, CPU us/op ratio <= 1.  Per-run files: $OUT"
