#!/usr/bin/env bash
# bench/memcached_vs_memcaslap.sh - luamech against memcaslap (libmemcached's
# memaslap) on the same memcached workload, run from the repo root:
#
#   bash bench/memcached_vs_memcaslap.sh
#
# Workload (both tools): 50 connections, closed loop, no think time, GET:SET
# 1:1, 16-byte keys, 32-byte values, ASCII protocol, fixed duration (10 s)
# or, with COUNT=N, a fixed number N of memcached operations.
#   - memcaslap: -T 1 (one thread) -c 50 (50 connections) -F CFG where CFG
#     says `key 16 16 1`, `value 32 32 1`, `cmd 0 0.5 / 1 0.5` (set 50 %, get
#     50 %).  memcaslap only GETs keys it has SET, so every GET is a hit, and
#     with a non-zero set share it does no warm-up SETs.  -t 10s or -x N.
#   - luamech: bench/mc_getset.lua, 50 VUs (one connection each, the default),
#     --workers 1, each transaction one SET then one GET of the same random
#     16-byte key (bench/mc_getset_vu.lua), so GET:SET is 1:1 and GETs hit.
#     -d 10s or -n N/2 -d 0.
# The script checks the mix on the server: cmd_get/cmd_set ~ 1, get_hits =
# cmd_get, and bytes read by the server per operation (memcaslap's
# object_bytes / cmd_set = 48 = 16 + 32 is printed too).
#
# Method: a fresh memcached for every run (same empty state for both tools;
# hashpower=21 so no hash-table expansion happens during a run), pinned to
# CPU 0 with one worker thread; the generator pinned to CPU 1; runs alternate
# luamech, memcaslap, luamech, ... for ROUNDS rounds; medians are reported.
# Per run, two measurements:
#   window  - steady state: WARMUP s after the server sees the first
#             operation, the server's cmd_get+cmd_set and the generator's
#             utime+stime (/proc/PID/stat, all threads) are sampled, and again
#             WINDOW s later.  ops/s = server ops / window, CPU us/op =
#             generator CPU / server ops.  This is the headline figure: it
#             leaves out start-up (memcaslap builds a 10 MB random table,
#             luamech starts Lua states) and the stop.
#   process - whole process: user+sys from /usr/bin/time over all server ops
#             of the run, and the tool's own ops/s (luamech: memcached.get +
#             memcached.set counts of summary.json / run_time_s; memcaslap:
#             its "Ops" / "Run time").
#
# Pooled mode, POOL=1: luamech's CONNS VUs (default 200) share one connection
# (pool = true, one worker: up to CONNS requests pipelined on it, written
# together once per loop turn).  memcaslap has no deep pipelining; it keeps
# -c CONNS connections, so the pooled rows compare CPU per op at equal
# concurrency, not equal connection counts.
# MC_PROTOCOL=meta: luamech's GETs go as memcached meta gets (`mg <key> v f`,
# connect's protocol = "meta"; SETs stay text), whose replies memcached
# batches (one send per 20 GET replies instead of one each); the peers keep
# the text protocol (memtier's memcache_text, memcaslap's ASCII).  Default
# text.  The ratios are then headed luamech(meta).
# memtier_benchmark (not in Debian; build it from its public source outside
# this repo) is a third tool of every round when MEMTIER=/path/to/memtier_benchmark
# is set or memtier_benchmark is on PATH; otherwise the script says it is
# skipped.  One thread, -P memcache_text, --ratio=1:1 (SET:GET as the other
# two), -d 32, keys "mcbench:" + 8 digits (16 bytes, as luamech's) uniform
# over KEYS keys (--key-pattern=R:R: unlike the other two its GETs can miss a
# key not SET yet; hit% shows how many), -c CONNS --pipeline=1, or pooled
# -c 1 --pipeline=CONNS (CONNS requests in flight on one connection, the
# same depth as luamech's pooled VUs).  -n COUNT (per connection: COUNT/CONNS)
# or --test-time=DURATION; tool_ops/s is its "Totals" Ops/sec.
# IO=uring|epoll|auto: luamech's --io (bench/lib.sh); the ratios are then headed luamech(IO).
# Settings (environment): ROUNDS=5  POOL=0  MC_PROTOCOL=text  MEMTIER= (path; default: memtier_benchmark
# on PATH, if any)  DURATION=10 (s)  COUNT= (ops; replaces
# DURATION)  CONNS=50  WARMUP=2  WINDOW=DURATION-4 (5 with COUNT)  KEYS=100000
# (luamech key space)  OUT=DIR (default /tmp/luamech-bench/mc-<time>)
# CLEAN_PCT=10 (second set of medians over runs with oth% below it)
# BUILD_DIR=./build  SERVER_CPU=0  GEN_CPU=1  QUIET_WAIT=60 QUIET_PCT=15 (before
# each run, wait up to QUIET_WAIT s for the machine to use < QUIET_PCT % of a
# CPU over 1 s: the machine is shared; the oth% column shows what other
# processes still used during the window)
set -u -o pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-10}
COUNT=${COUNT:-}
POOL=${POOL:-0}
MC_PROTOCOL=${MC_PROTOCOL:-text}
case $MC_PROTOCOL in text|meta) ;; *) die "MC_PROTOCOL must be text or meta";; esac
if [ "$MC_PROTOCOL" = meta ]; then
  if [ -n "$IO" ]; then LM_NAME="luamech($IO,meta)"; else LM_NAME="luamech(meta)"; fi
fi
if [ "$POOL" = 1 ]; then CONNS=${CONNS:-200}; else CONNS=${CONNS:-50}; fi
WARMUP=${WARMUP:-2}
if [ -n "$COUNT" ]; then WINDOW=${WINDOW:-5}; else WINDOW=${WINDOW:-$((DURATION - 4))}; fi
KEYS=${KEYS:-100000}
QUIET_WAIT=${QUIET_WAIT:-60}
QUIET_PCT=${QUIET_PCT:-15}
GEN_CPU=${GEN_CPU:-1}
OUT=${OUT:-/tmp/luamech-bench/mc-$(date +%Y%m%d-%H%M%S)}

[ "$ROUNDS" -ge 1 ] && [ "$ROUNDS" -le 100 ] || die "ROUNDS must be 1..100"
[ "$DURATION" -ge 5 ] && [ "$DURATION" -le 600 ] || die "DURATION must be 5..600 s"
[ "$WINDOW" -ge 1 ] || die "WINDOW must be >= 1 s"
[ "$CONNS" -ge 1 ] && [ "$CONNS" -le 4000 ] || die "CONNS must be 1..4000"
if [ -n "$COUNT" ]; then
  [ "$COUNT" -ge 1000 ] && [ "$COUNT" -le 100000000 ] || die "COUNT must be 1000..100000000"
fi

need_luamech
need memcached memcached
need memcaslap libmemcached-tools
MEMTIER=${MEMTIER:-$(command -v memtier_benchmark 2>/dev/null)}
if [ -n "$MEMTIER" ] && [ ! -x "$MEMTIER" ]; then die "MEMTIER=$MEMTIER is not an executable"; fi
[ -n "$MEMTIER" ] || note "memtier_benchmark: skipped (set MEMTIER=/path/to/memtier_benchmark or put it on PATH)"
PEERS=(memcaslap)
[ -z "$MEMTIER" ] || PEERS+=(memtier)
[ "$KEYS" -ge 1 ] && [ "$KEYS" -le 90000000 ] || die "KEYS must be 1..90000000 (memtier's keys are 8 digits)"
need /usr/bin/time time
need jq jq
need taskset util-linux
mkdir -p "$OUT" || die "cannot create $OUT"
CLK_TCK=$(getconf CLK_TCK)

# memcaslap's configuration: key and value size distributions and GET/SET mix.
CFG=$OUT/memcaslap.cnf
cat >"$CFG" <<'EOF'
# key: start_len end_len proportion (16 is memcaslap's minimum key size)
key
16 16 1
# value: start_len end_len proportion
value
32 32 1
# cmd: type proportion; 0 = set, 1 = get
cmd
0 0.5
1 0.5
EOF

if [ -n "$COUNT" ]; then
  LM_BOUND=(-d 0 -n "$((COUNT / 2))")     # a transaction is 2 operations
  MS_BOUND=(-x "$COUNT")
  if [ "$POOL" = 1 ]; then MT_BOUND=(-n "$COUNT"); else MT_BOUND=(-n "$(( (COUNT + CONNS - 1) / CONNS ))"); fi
else
  LM_BOUND=(-d "${DURATION}s")
  MS_BOUND=(-t "${DURATION}s")
  MT_BOUND=(--test-time="$DURATION")
fi
if [ "$POOL" = 1 ]; then MT_PIPE=(-c 1 --pipeline="$CONNS"); else MT_PIPE=(-c "$CONNS" --pipeline=1); fi

TSV=$OUT/runs.tsv
printf 'round\ttool\twin_ops_s\twin_cpu_us_op\twin_gen_util_pct\twin_srv_cpu_us_op\twin_other_pct\ttool_ops_s\tproc_cpu_us_op\tget_set\thit_pct\tsrv_in_B_op\twall_s\tuser_s\tsys_s\tmaxrss_kb\tsrv_ops\ttool_ops\trc\n' >"$TSV"

trap 'mc_stop' EXIT
trap 'mc_stop; exit 130' INT TERM

# run_one TOOL ROUND: one run against a fresh memcached; appends a line to TSV.
run_one() {
  local tool=$1 round=$2 d port cmd=() base b0 b1 i tpid gpid rc
  d=$OUT/$round-$tool
  mkdir -p "$d"
  local quiet
  quiet=$(wait_quiet "$QUIET_WAIT" "$QUIET_PCT")
  [ "$quiet" -lt "$QUIET_PCT" ] || note "round $round $tool: machine still busy (${quiet}% of a CPU) after ${QUIET_WAIT}s; running anyway"
  port=$(free_port)
  mc_start "$port" -o hashpower=21
  if [ "$tool" = luamech ]; then
    cmd=("$LUAMECH" run "$BENCH_DIR/mc_getset.lua" "${LM_IO_ARGS[@]}" -u "$CONNS" -w 1 -i 1s -q
         "${LM_BOUND[@]}" -o "$d/results" -e "MEMCACHED=127.0.0.1:$port" -e "KEYS=$KEYS"
         -e "POOL=$POOL" -e "MC_PROTOCOL=$MC_PROTOCOL")
  elif [ "$tool" = memtier ]; then
    cmd=("$MEMTIER" -s 127.0.0.1 -p "$port" -P memcache_text -t 1 "${MT_PIPE[@]}" --ratio=1:1 -d 32
         --key-prefix=mcbench: --key-minimum=10000000 --key-maximum=$((10000000 + KEYS - 1))
         --key-pattern=R:R --hide-histogram "${MT_BOUND[@]}")
  else
    cmd=(memcaslap -s "127.0.0.1:$port" -T 1 -c "$CONNS" -F "$CFG" "${MS_BOUND[@]}")
  fi
  echo "${cmd[*]}" >"$d/command"
  read -r b0 b1 _ < <(mc_getset "$port")
  base=$((b0 + b1))

  /usr/bin/time -o "$d/time" -f '%e %U %S %M' taskset -c "$GEN_CPU" "${cmd[@]}" \
    >"$d/stdout" 2>"$d/stderr" &
  tpid=$!
  gpid=$(child_pid "$tpid") || gpid=

  # wait (at most 30 s) for the first operation to reach the server
  local started=0 g s
  for i in $(seq 1 600); do
    read -r g s _ < <(mc_getset "$port")
    if [ $((g + s)) -gt "$base" ]; then started=1; break; fi
    kill -0 "$tpid" 2>/dev/null || break
    sleep 0.05
  done

  local w_ops=n/a w_cpu=n/a w_util=n/a w_srv=n/a w_oth=n/a
  if [ "$started" = 1 ] && [ -n "$gpid" ]; then
    sleep "$WARMUP"
    local c0 t0 o0 s0 c1 t1 o1 s1 m0 m1 a0 a1
    a0=$(busy_ticks); m0=$(pid_ticks "$MC_PID")
    c0=$(proc_cpu_ticks "$gpid"); t0=$(date +%s.%N); read -r g s s0 < <(mc_getset "$port"); o0=$((g + s))
    sleep "$WINDOW"
    c1=$(proc_cpu_ticks "$gpid"); t1=$(date +%s.%N); read -r g s s1 < <(mc_getset "$port"); o1=$((g + s))
    a1=$(busy_ticks); m1=$(pid_ticks "$MC_PID")
    if [ -n "$c0" ] && [ -n "$c1" ] && kill -0 "$gpid" 2>/dev/null && [ "$o1" -gt "$o0" ]; then
      w_ops=$(awk -v o="$((o1 - o0))" -v a="$t0" -v b="$t1" 'BEGIN{printf "%.0f", o/(b-a)}')
      w_cpu=$(awk -v c="$((c1 - c0))" -v k="$CLK_TCK" -v o="$((o1 - o0))" 'BEGIN{printf "%.3f", c/k*1e6/o}')
      w_util=$(awk -v c="$((c1 - c0))" -v k="$CLK_TCK" -v a="$t0" -v b="$t1" 'BEGIN{printf "%.0f", 100*c/k/(b-a)}')
      w_srv=$(awk -v a="$s0" -v b="$s1" -v o="$((o1 - o0))" 'BEGIN{printf "%.3f", (b-a)*1e6/o}')
      # CPU of every other process in the window, in % of one CPU (noise)
      w_oth=$(awk -v x="$(( (a1 - a0) - (c1 - c0) - (m1 - m0) ))" -v k="$CLK_TCK" -v a="$t0" -v b="$t1" \
        'BEGIN{v = 100*x/k/(b-a); if (v < 0) v = 0; printf "%.0f", v}')
    else
      note "round $round $tool: the run ended inside the measuring window; no window figures"
    fi
  fi

  # bounded wait for the generator: DURATION (or 300 s with COUNT) + 60 s
  local limit
  if [ -n "$COUNT" ]; then limit=360; else limit=$((DURATION + 60)); fi
  for i in $(seq 1 $((limit * 10))); do kill -0 "$tpid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$tpid" 2>/dev/null; then
    note "round $round $tool: still running after ${limit}s; stopping it"
    [ -n "$gpid" ] && kill "$gpid" 2>/dev/null
  fi
  wait "$tpid"; rc=$?

  local st cg cs hits bin
  st=$(mc_stats "$port")
  mc_stop
  cg=$(awk '$1=="cmd_get"{print $2}' <<<"$st")
  cs=$(awk '$1=="cmd_set"{print $2}' <<<"$st")
  hits=$(awk '$1=="get_hits"{print $2}' <<<"$st")
  bin=$(awk '$1=="bytes_read"{print $2}' <<<"$st")
  local srv_ops=$((cg + cs - base))
  local wall user sys rss
  read -r wall user sys rss < <(grep -E '^[0-9.]+ [0-9.]+ [0-9.]+ [0-9]+$' "$d/time" | tail -1)
  : "${wall:=0}" "${user:=0}" "${sys:=0}" "${rss:=0}"

  local tool_ops=0 tool_rate=n/a
  if [ "$tool" = luamech ]; then
    local sj=$d/results/summary.json
    if [ -s "$sj" ]; then
      tool_ops=$(jq '[.timers[] | select(.name=="memcached.get" or .name=="memcached.set") | .summary.count] | add // 0' "$sj")
      tool_rate=$(jq -r --argjson n "$tool_ops" 'if .run_time_s > 0 then ($n / .run_time_s | floor) else "n/a" end' "$sj")
    fi
  elif [ "$tool" = memtier ]; then
    # its last progress line counts the operations ("... 1234 ops, ..."); Totals has the rate
    tool_ops=$(cat "$d/stdout" "$d/stderr" | tr '\r' '\n' | sed -n 's/.* \([0-9][0-9]*\) ops, .*/\1/p' | tail -1)
    : "${tool_ops:=0}"
    tool_rate=$(awk '$1 == "Totals" { printf "%.0f", $2 }' "$d/stdout" | tail -1)
    : "${tool_rate:=n/a}"
  else
    tool_ops=$(sed -n 's/.*Ops: \([0-9]*\).*/\1/p' "$d/stdout" | tail -1)
    local rt
    rt=$(sed -n 's/^Run time: \([0-9.]*\)s.*/\1/p' "$d/stdout" | tail -1)
    : "${tool_ops:=0}"
    [ -n "$rt" ] && tool_rate=$(awk -v n="$tool_ops" -v t="$rt" 'BEGIN{ if (t > 0) printf "%.0f", n/t; else print "n/a" }')
    local ob
    ob=$(sed -n 's/^object_bytes: \([0-9]*\).*/\1/p' "$d/stdout" | tail -1)
    [ -n "$ob" ] && [ "$cs" -gt 0 ] && note "round $round memcaslap: object_bytes/cmd_set = $(awk -v a="$ob" -v b="$(sed -n 's/^cmd_set: \([0-9]*\).*/\1/p' "$d/stdout" | tail -1)" 'BEGIN{ if (b > 0) printf "%.1f", a/b; else print "n/a" }') bytes (key 16 + value 32 = 48)"
  fi
  local proc_cpu getset hitp binop
  proc_cpu=$(awk -v u="$user" -v s="$sys" -v o="$srv_ops" 'BEGIN{ if (o > 0) printf "%.3f", (u+s)*1e6/o; else print "n/a" }')
  getset=$(awk -v g="$cg" -v s="$cs" 'BEGIN{ if (s > 0) printf "%.3f", g/s; else print "n/a" }')
  hitp=$(awk -v h="$hits" -v g="$cg" 'BEGIN{ if (g > 0) printf "%.1f", 100*h/g; else print "n/a" }')
  binop=$(awk -v b="$bin" -v o="$srv_ops" 'BEGIN{ if (o > 0) printf "%.1f", b/o; else print "n/a" }')
  [ "$rc" = 0 ] || note "round $round $tool: exit code $rc (see $d/stderr)"
  [ "$tool" = luamech ] && [ "$tool_ops" != "$srv_ops" ] && \
    note "round $round luamech: summary.json counts $tool_ops operations, the server $srv_ops"

  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
    "$round" "$tool" "$w_ops" "$w_cpu" "$w_util" "$w_srv" "$w_oth" "$tool_rate" "$proc_cpu" "$getset" "$hitp" "$binop" \
    "$wall" "$user" "$sys" "$rss" "$srv_ops" "$tool_ops" "$rc" >>"$TSV"
  printf '%-5s %-9s %10s %10s %5s %10s %5s %10s %10s %7s %6s %7s %6s %10s %10s %3s\n' \
    "$round" "$tool" "$w_ops" "$w_cpu" "$w_util" "$w_srv" "$w_oth" "$tool_rate" "$proc_cpu" "$getset" "$hitp" "$binop" "$wall" "$srv_ops" "$tool_ops" "$rc"
}

echo "# $LM_NAME vs ${PEERS[*]}: $(machine_line)"
echo "# luamech $("$LUAMECH" --version 2>&1 | head -1); $(memcaslap -V 2>&1 | head -1); memcached $(memcached -V 2>&1 | awk '{print $2}')"
[ -z "$MEMTIER" ] || echo "# memtier: $("$MEMTIER" --version 2>&1 | head -1) ($MEMTIER; ${MT_PIPE[*]})"
if [ -n "$COUNT" ]; then bound="$COUNT ops per run"; else bound="${DURATION}s per run"; fi
echo "# $ROUNDS rounds, $CONNS connections (POOL=$POOL: 1 = luamech's VUs on one connection), $bound, window ${WINDOW}s after ${WARMUP}s; server CPU ${SERVER_CPU:-0}, generator CPU $GEN_CPU; results in $OUT"
echo "#"
echo "# win_ops/s, win_us/op: steady-state window, server cmd_get+cmd_set; generator utime+stime per op"
echo "# gen%: generator CPU use in the window (100 = one CPU); srv_us/op: memcached rusage per op in the window"
echo "# oth%: CPU used by all other processes in the window (noise; 100 = one CPU)"
echo "# tool_ops/s: the tool's own count / its run time; proc_us/op: /usr/bin/time user+sys / all server ops"
echo "# get/set, hit%, in_B/op: server cmd_get/cmd_set, get_hits/cmd_get, bytes_read per op"
printf '%-5s %-9s %10s %10s %5s %10s %5s %10s %10s %7s %6s %7s %6s %10s %10s %3s\n' \
  round tool win_ops/s win_us/op gen% srv_us/op oth% tool_ops/s proc_us/op get/set hit% in_B/op wall srv_ops tool_ops rc
for r in $(seq 1 "$ROUNDS"); do
  run_one luamech "$r"
  run_one memcaslap "$r"
  [ -z "$MEMTIER" ] || run_one memtier "$r"
done

# med TOOL COL [MAX_OTHER]: median of column COL over TOOL's runs (only those
# whose oth% (column 7) is below MAX_OTHER, when given).
med() {
  awk -F'\t' -v t="$1" -v c="$2" -v m="${3:-}" \
    'NR > 1 && $2 == t && (m == "" || ($7 != "n/a" && $7 + 0 < m + 0)) { print $c }' "$TSV" | median
}
nruns() { awk -F'\t' -v t="$1" -v m="$2" 'NR > 1 && $2 == t && $7 != "n/a" && $7 + 0 < m + 0' "$TSV" | wc -l; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (a+0 > 0 && b+0 > 0) printf "%.3f", a/b; else print "n/a" }'; }
summary() {
  local f name col a b p hdr
  hdr=$(printf '%-22s %12s' figure "$LM_NAME")
  for p in "${PEERS[@]}"; do hdr+=$(printf ' %12s %18s' "$p" "$LM_NAME/$p"); done
  echo "$hdr"
  for f in "win_ops/s:3" "win_cpu_us/op:4" "win_gen_util_pct:5" "win_srv_cpu_us/op:6" "win_other_pct:7" \
           "tool_ops/s:8" "proc_cpu_us/op:9"; do
    name=${f%%:*} col=${f##*:}
    a=$(med luamech "$col" "${1:-}")
    hdr=$(printf '%-22s %12s' "$name" "$a")
    for p in "${PEERS[@]}"; do
      b=$(med "$p" "$col" "${1:-}")
      hdr+=$(printf ' %12s %18s' "$b" "$(ratio "$a" "$b")")
    done
    echo "$hdr"
  done
}
# paired COL PEER: the median over rounds of each round's luamech/PEER ratio
# (the runs of a round are back to back, so slow drifts of the machine cancel)
paired() {
  awk -F'\t' -v c="$1" -v p="$2" 'NR > 1 { v[$1 "," $2] = $c; r[$1] = 1 }
    END { for (k in r) { a = v[k ",luamech"]; b = v[k "," p]
          if (a != "n/a" && b != "n/a" && a + 0 > 0 && b + 0 > 0) print a / b } }' "$TSV" | median
}
CLEAN_PCT=${CLEAN_PCT:-10}
echo
echo "# medians over all $ROUNDS rounds"
summary
echo
nq="$(nruns luamech "$CLEAN_PCT") luamech"
for p in "${PEERS[@]}"; do nq+=", $(nruns "$p" "$CLEAN_PCT") $p"; done
echo "# medians over the quiet runs only (oth% < $CLEAN_PCT: $nq)"
summary "$CLEAN_PCT"
echo
echo "# paired: median over rounds of the round's luamech/peer ratio"
hdr=$(printf '%-22s' figure)
for p in "${PEERS[@]}"; do hdr+=$(printf ' %18s' "$LM_NAME/$p"); done
echo "$hdr"
for f in "win_ops/s:3" "win_cpu_us/op:4" "tool_ops/s:8" "proc_cpu_us/op:9"; do
  hdr=$(printf '%-22s' "${f%%:*}")
  for p in "${PEERS[@]}"; do hdr+=$(printf ' %18s' "$(paired "${f##*:}" "$p")"); done
  echo "$hdr"
done
[ -n "$MEMTIER" ] || echo "# memtier_benchmark: skipped (MEMTIER unset and not on PATH)"
echo "# targets: ops/s ratio >= 1, CPU us/op ratio <= 1.  Per-run files: $OUT"
