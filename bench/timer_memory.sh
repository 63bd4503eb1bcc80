#!/usr/bin/env bash
# bench/timer_memory.sh - memory per distinct timer name, run from the repo
# root:
#
#   bash bench/timer_memory.sh
#
# bench/timer_memory.lua runs one VU on one worker for N transactions
# (--requests N, -d 0); transaction i records 4 samples (0.16 to 5 ms) under
# a timer named "item <i>" (DISTINCT=1: N distinct timers) or always "item"
# (DISTINCT=0, the baseline).  Peak RSS comes from /usr/bin/time (%M), and
#   memory per timer = (peak RSS(DISTINCT=1) - peak RSS(DISTINCT=0)) / N
# summary.json lists N timers named "item ..." in the first case (printed).
# MAX_TIMERS, when set, is passed to the scenario's max_timers (the cap on
# distinct names, default 1000); it must then be >= N.
#
# Settings (environment): N=500  MAX_TIMERS=  OUT=DIR  BUILD_DIR=./build
set -u -o pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

N=${N:-500}
MAX_TIMERS=${MAX_TIMERS:-}
OUT=${OUT:-/tmp/luamech-bench/timermem-$(date +%Y%m%d-%H%M%S)}
[ "$N" -ge 1 ] && [ "$N" -le 100000 ] || die "N must be 1..100000"
need_luamech
need /usr/bin/time time
need jq jq
mkdir -p "$OUT" || die "cannot create $OUT"

run_tm() {
  local distinct=$1 d=$OUT/distinct$1 rc
  mkdir -p "$d"
  # bounded: --requests N and the scenario's 60 s cap
  timeout 120 /usr/bin/time -o "$d/time" -f '%M %e' "$LUAMECH" run "$BENCH_DIR/timer_memory.lua" \
    -n "$N" -d 0 -w 1 -q -o "$d/results" -e "DISTINCT=$distinct" ${MAX_TIMERS:+-e "MAX_TIMERS=$MAX_TIMERS"} \
    >"$d/stdout" 2>"$d/stderr"
  rc=$?
  [ "$rc" = 0 ] || note "DISTINCT=$distinct: exit code $rc (see $d/stderr)"
  local kb wall
  read -r kb wall < <(grep -E '^[0-9]+ [0-9.]+$' "$d/time" | tail -1)
  local ntimers
  ntimers=$(jq '[.timers[] | select(.name | startswith("item"))] | length' "$d/results/summary.json" 2>/dev/null || echo 0)
  printf '%-9s %10s %8s %8s\n' "$distinct" "${kb:-0}" "${wall:-0}" "$ntimers"
  echo "${kb:-0}" >"$d/kb"
  echo "$ntimers" >"$d/ntimers"
}

echo "# timer memory: $(machine_line)"
echo "# $("$LUAMECH" --version 2>&1 | head -1); N=$N transactions, max_timers=${MAX_TIMERS:-default}; results in $OUT"
printf '%-9s %10s %8s %8s\n' distinct peak_kB wall_s timers
run_tm 0
run_tm 1
k0=$(cat "$OUT/distinct0/kb") k1=$(cat "$OUT/distinct1/kb")
awk -v a="$k1" -v b="$k0" -v n="$N" 'BEGIN{ printf "memory per distinct timer: %.1f kB ((%d - %d) kB / %d)\n", (a-b)/n, a, b, n }'
