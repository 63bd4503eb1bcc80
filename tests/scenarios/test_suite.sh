# Suites: a sweep of a setting (seed 001: one scenario at several VU counts)
# or of a parameter, and explicit runs; one table of all runs.
. "$(dirname "$0")/lib.sh"
F=$SRC/tests/scenarios/fixtures
mkdir -p "$TMP/o1" "$TMP/o2" "$TMP/o3"
"$LUAMECH" suite "$F/suite_sweep.lua" -q -e OUT="$TMP/o1" -o "$TMP/s1" > "$TMP/s1.out" 2>&1
check "sweep: exit 0" [ $? -eq 0 ]
s=$TMP/s1/summary.json
check "sweep: 3 runs named by value" [ "$(jq -r '[.phases[].name] | join(",")' "$s")" = "vus=1,vus=3,vus=6" ]
check "sweep: each run did its 60 transactions" [ "$(jq '[.phases[].transactions] | join(",")' -r "$s")" = "60,60,60" ]
check "sweep: the largest run had VU ids 1..6" [ "$(ls "$TMP/o1" | wc -l)" -eq 6 ]
for d in 1-vus=1 2-vus=3 3-vus=6; do
    check "sweep: $d has its own results" [ -f "$TMP/s1/$d/summary.json" ]
done
check "sweep: VUs per run in each run's summary" [ "$(jq '.groups[0].vus' "$TMP/s1/3-vus=6/summary.json")" -eq 6 ]
check "sweep: one table of runs" grep -qE "^all runs +180 " "$TMP/s1.out"
# issue 24, item 8: the runs' custom timers, a row per timer and run, counts as each run's summary.json
check "sweep: the custom timers table" grep -q "^Custom timers of the runs (ms)$" "$TMP/s1.out"
for d in 1-vus=1 2-vus=3 3-vus=6; do
    n=$(timer_count "$TMP/s1/$d/summary.json" step); r=${d#*-}
    check "sweep: custom timer step of $r: $n as in its summary.json" grep -qE "^step +$r +$n +0 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$" "$TMP/s1.out"
done
check "sweep: the HTML index" [ -f "$TMP/s1/report.html" ]

"$LUAMECH" suite "$F/suite_params.lua" -q -e OUT="$TMP/o2" -o "$TMP/s2" > /dev/null 2>&1
check "parameter sweep: exit 0" [ $? -eq 0 ]
check "parameter sweep: each run saw its own TAG" [ "$(cat "$TMP"/o2/red-* | sort -u)" = red -a "$(cat "$TMP"/o2/green-* | sort -u)" = green ]

"$LUAMECH" suite "$F/suite_runs.lua" -q -e OUT="$TMP/o3" -o "$TMP/s3" > /dev/null 2>&1
check "explicit runs: exit 0" [ $? -eq 0 ]
check "explicit runs: per-run settings (10 and 40 transactions)" [ "$(jq -r '[.phases[].transactions] | join(",")' "$TMP/s3/summary.json")" = "10,40" ]
check "explicit runs: per-run parameters (1 small VU, 4 big)" [ "$(ls "$TMP"/o3/small-* | wc -l)" -eq 1 -a "$(ls "$TMP"/o3/big-* | wc -l)" -eq 4 ]

"$LUAMECH" suite "$F/suite_bad.lua" -q -o "$TMP/x" > /dev/null 2> "$TMP/bad.err"
check "sweep and runs together: exit 3" [ $? -eq 3 ]
check "sweep and runs together: says so" grep -q "sweep: give either sweep or runs" "$TMP/bad.err"
"$LUAMECH" suite "$F/suite_phased.lua" -q -o "$TMP/y" > /dev/null 2> "$TMP/ph.err"
check "a phased scenario in a suite: exit 3 with a message" grep -q "has phases; a suite runs plain scenarios" "$TMP/ph.err"
finish
