#!/usr/bin/env bash
# bench/timer_cost.sh - the cost of one custom timer start/stop pair, run from
# the repo root:
#
#   bash bench/timer_cost.sh
#
# bench/timer_cost.lua runs one VU on one worker (pinned to CPU $GEN_CPU)
# for REQUESTS transactions (--requests, -d 0); each transaction loops INNER
# times over `local t = luamech.timer("X"); t:stop()` (TIMED=1) or over an
# empty body (TIMED=0, the baseline: same scenario, transactions and loop).
# The two alternate for ROUNDS rounds.  Cost per pair =
#   (median CPU(TIMED=1) - median CPU(TIMED=0)) / (REQUESTS * INNER)
# with CPU = user+sys of the process (/usr/bin/time); the same from the run
# time in summary.json (run_time_s, start-up excluded) as a cross-check.
# The count of timer X in summary.json must be REQUESTS * INNER.
#
# Then the engine's cost per transaction (begin, finish, their timer records
# and clock reads, and vu.lua's loop with its pcall around the transaction):
# empty transactions (TIMED=0 INNER=0), TX_N of them against a run of 1,
# alternating for ROUNDS rounds; cost = (median CPU(TX_N) - median CPU(1)) /
# (TX_N - 1).  Target (issue 13): <= 150 ns.
#
# Settings (environment): ROUNDS=5  REQUESTS=20000  INNER=1000  TX_N=5000000  GEN_CPU=1
# OUT=DIR  BUILD_DIR=./build
set -u -o pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ROUNDS=${ROUNDS:-5}
REQUESTS=${REQUESTS:-20000}
INNER=${INNER:-1000}
GEN_CPU=${GEN_CPU:-1}
TX_N=${TX_N:-5000000}
OUT=${OUT:-/tmp/luamech-bench/timer-$(date +%Y%m%d-%H%M%S)}

[ "$ROUNDS" -ge 1 ] && [ "$ROUNDS" -le 100 ] || die "ROUNDS must be 1..100"
[ "$REQUESTS" -ge 1 ] && [ "$REQUESTS" -le 10000000 ] || die "REQUESTS must be 1..10000000"
[ "$INNER" -ge 1 ] && [ "$INNER" -le 1000000 ] || die "INNER must be 1..1000000"
need_luamech
need /usr/bin/time time
need jq jq
need taskset util-linux
mkdir -p "$OUT" || die "cannot create $OUT"
PAIRS=$((REQUESTS * INNER))

TSV=$OUT/runs.tsv
printf 'round\ttimed\tcpu_s\twall_s\trun_time_s\ttimer_count\trc\n' >"$TSV"

# tc_run DIR N TIMED INNER: one run of timer_cost.lua (N transactions),
# pinned, timed and bounded, its command, time, stdout, stderr and results
# in DIR; sets rc, wall, user and sys (the caller's locals).
tc_run() {
  local d=$1
  mkdir -p "$d"
  local cmd=("$LUAMECH" run "$BENCH_DIR/timer_cost.lua" -n "$2" -d 0 -w 1 -q
             -o "$d/results" -e "TIMED=$3" -e "INNER=$4")
  echo "${cmd[*]}" >"$d/command"
  # bounded: luamech runs at most the scenario's 60 s cap plus its graceful stop
  timeout 120 /usr/bin/time -o "$d/time" -f '%e %U %S' taskset -c "$GEN_CPU" "${cmd[@]}" \
    >"$d/stdout" 2>"$d/stderr"
  rc=$?
  read -r wall user sys < <(grep -E '^[0-9.]+ [0-9.]+ [0-9.]+$' "$d/time" | tail -1)
}

run_tc() {
  local timed=$1 round=$2 d=$OUT/$2-timed$1 rc wall user sys rt=0 cnt=0
  tc_run "$d" "$REQUESTS" "$timed" "$INNER"
  if [ -s "$d/results/summary.json" ]; then
    rt=$(jq '.run_time_s' "$d/results/summary.json")
    cnt=$(jq '[.timers[] | select(.name=="X") | .summary.count] | add // 0' "$d/results/summary.json")
  fi
  [ "$rc" = 0 ] || note "round $round TIMED=$timed: exit code $rc (see $d/stderr)"
  [ "$timed" = 1 ] && [ "$cnt" != "$PAIRS" ] && note "round $round: timer X counted $cnt, expected $PAIRS"
  local cpu
  cpu=$(awk -v u="${user:-0}" -v s="${sys:-0}" 'BEGIN{printf "%.2f", u+s}')
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$timed" "$cpu" "${wall:-0}" "$rt" "$cnt" "$rc" >>"$TSV"
  printf '%-5s %-6s %8s %8s %12.6f %12s %3s\n' "$round" "$timed" "$cpu" "${wall:-0}" "$rt" "$cnt" "$rc"
}

echo "# timer cost: $(machine_line)"
echo "# $("$LUAMECH" --version 2>&1 | head -1); $ROUNDS rounds, $REQUESTS transactions x $INNER pairs = $PAIRS pairs per run, CPU $GEN_CPU; results in $OUT"
printf '%-5s %-6s %8s %8s %12s %12s %3s\n' round timed cpu_s wall_s run_time_s timer_X rc
for r in $(seq 1 "$ROUNDS"); do
  run_tc 1 "$r"
  run_tc 0 "$r"
done

col_med() { awk -F'\t' -v t="$1" -v c="$2" 'NR > 1 && $2 == t { print $c }' "$TSV" | median; }
c1=$(col_med 1 3) c0=$(col_med 0 3) r1=$(col_med 1 5) r0=$(col_med 0 5)
echo
echo "# medians: CPU timed ${c1}s, baseline ${c0}s; run time timed ${r1}s, baseline ${r0}s"
awk -v c1="$c1" -v c0="$c0" -v r1="$r1" -v r0="$r0" -v n="$PAIRS" 'BEGIN{
  printf "timer start/stop pair: %.1f ns (CPU time), %.1f ns (run time)\n", (c1-c0)*1e9/n, (r1-r0)*1e9/n }'

# ---- the engine's cost per transaction ----
TXT=$OUT/tx.tsv
printf 'round\ttx\tcpu_s\twall_s\tcount\trc\n' >"$TXT"
run_tx() {   # N ROUND
  local n=$1 round=$2 d=$OUT/tx-$2-$1 rc wall user sys cnt=0
  tc_run "$d" "$n" 0 0
  [ -s "$d/results/summary.json" ] && \
    cnt=$(jq '[.timers[] | select(.kind=="all") | .summary.count] | add // 0' "$d/results/summary.json")
  [ "$rc" = 0 ] || note "round $round tx=$n: exit code $rc (see $d/stderr)"
  [ "$cnt" = "$n" ] || note "round $round: $cnt transactions counted, expected $n"
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$n" "$(awk -v u="${user:-0}" -v s="${sys:-0}" 'BEGIN{printf "%.2f", u+s}')" \
    "${wall:-0}" "$cnt" "$rc" >>"$TXT"
}
echo
echo "# engine cost per transaction: $TX_N empty transactions against 1, $ROUNDS rounds"
for r in $(seq 1 "$ROUNDS"); do
  run_tx "$TX_N" "$r"
  run_tx 1 "$r"
done
tx_med() { awk -F'\t' -v t="$1" 'NR > 1 && $2 == t { print $3 }' "$TXT" | median; }
cn=$(tx_med "$TX_N") c1=$(tx_med 1)
awk -v cn="$cn" -v c1="$c1" -v n="$TX_N" 'BEGIN{
  v = (cn - c1) * 1e9 / (n - 1)
  printf "medians: CPU %ss for %d transactions, %ss for 1\n", cn, n, c1
  printf "engine cost per transaction: %.1f ns (target <= 150 ns: %s)\n", v, (v <= 150 ? "met" : "MISSED") }'
