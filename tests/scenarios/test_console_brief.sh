# Issue 24, item 6: the console's end report is compact by default.  The
# API flow of scenarios/http_api.lua (run by scripts/run-local.sh, as the
# README says) gets about 35 lines: the verdict first, the thresholds, one
# table of the user's timers (transactions, the group, the named requests;
# no engine or per-primitive timer, no interval table, no uncorrected
# view), the checks, one line on generator health.  A failing flow shows
# FAIL and its errors; --verbose and a scenario's console = "full" (seed
# 004's multi-mechanize report) give the full report; a bad console value
# is a scenario error (exit 3).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_http.sh"
F=$SRC/tests/scenarios/fixtures
cd "$SRC"
LUAMECH=$LUAMECH bash scripts/run-local.sh scenarios/http_api.lua -n 200 -u 5 -q -o "$TMP/api" > "$TMP/api.out" 2>&1
rc=$?
check "http_api.lua exits 0 (exit $rc)" [ $rc -eq 0 ]
sed -n '/^luamech [0-9.]* - /,$p' "$TMP/api.out" > "$TMP/report"
n=$(wc -l < "$TMP/report")
check "the end report fits on one screen: $n lines (at most 40)" [ "$n" -ge 20 -a "$n" -le 40 ]
check "its first line is the verdict" \
    grep -q "^luamech [0-9.]* - http_api: completed, PASS (6 of 6 thresholds passed)$" "$TMP/report"
th=$(grep -n '^Thresholds (6 of 6 passed)$' "$TMP/report" | cut -d: -f1)
tm=$(grep -n '^Timers (ms' "$TMP/report" | cut -d: -f1)
check "the thresholds come before the timers (lines ${th:-none} and ${tm:-none})" [ "${th:-0}" -gt 0 -a "${tm:-0}" -gt "${th:-0}" ]
rows=$(awk '/^Timers \(ms/ { on = 1; next } on && /^name / { go = 1; next } go && /^$/ { exit } go { print }' "$TMP/report" \
       | sed 's/  *[0-9][0-9]* .*//' | tr '\n' '|')
check "one table of the user's timers: $rows" \
    [ "$rows" = "All Transactions|group api|http login|http me|http update me|http logout|http me after logout|" ]
check "each with count 200, errors 0 and p50/p95/p99" \
    [ "$(grep -cE '^(All Transactions|group api|http [a-z ]+) +200 +[0-9.]+ +0 +[0-9.]+ +[0-9.]+ +[0-9.]+$' "$TMP/report")" -eq 7 ]
for x in 'http\.connect' 'http\.tls' 'engine\.' 'Interval Details' '(uncorrected)' '^Counters' 'Primitive:'; do
    check "no '$x' in the compact report" [ "$(grep -c "$x" "$TMP/report")" -eq 0 ]
done
check "one line on generator health" [ "$(grep -c '^Generator: \(ok\|SUSPECT\) (worst interval: cpu' "$TMP/report")" -eq 1 ]
check "the checks in one line" grep -q '^Checks: 6, 1200 passes, 0 failures (100.00% passed)$' "$TMP/report"
check "it says where the rest is" grep -q -- '--verbose$' "$TMP/report"

start_nginx PORT "$TMP/ng"
"$LUAMECH" run "$F/http_flow_tag.lua" -q -d 1s -e PORT=$PORT -o "$TMP/ft" > "$TMP/ft.out" 2>&1
rc=$?
check "a failing flow: exit 6 (got $rc)" [ $rc -eq 6 ]
check "its verdict says FAIL" grep -q '^luamech [0-9.]* - http_flow_tag: completed, FAIL (5 of 7 thresholds passed)$' "$TMP/ft.out"
check "its top errors are shown" grep -qE '^ +[0-9]+  http.post /e500: status 500$' "$TMP/ft.out"
check "the named request that failed shows its errors and no latency" \
    grep -qE '^http cart +([0-9]+) +[0-9.]+ +\1 +– +– +–$' "$TMP/ft.out"
"$LUAMECH" run "$F/http_flow_tag.lua" -q -d 1s -e PORT=$PORT --verbose -o "$TMP/fv" > "$TMP/fv.out" 2>&1
check "--verbose: the full report (interval details, primitives, counters)" \
    [ "$(grep -c '^Interval Details (ms)$' "$TMP/fv.out")" -ge 1 -a "$(grep -c '^Primitive: http.get$' "$TMP/fv.out")" -eq 1 \
      -a "$(grep -c '^Counters$' "$TMP/fv.out")" -eq 1 ]

printf 'return { name = "full", run_time = "1s", interval = "1s", console = "full",\n  groups = { { name = "g", vus = 1, script = "%s" } } }\n' \
    "$F/http_flow_tag_vu.lua" > "$TMP/full.lua"
"$LUAMECH" run "$TMP/full.lua" -q -e PORT=$PORT -o "$TMP/fu" > "$TMP/fu.out" 2>&1
check "console = \"full\": the multi-mechanize report by default (Summary, interval details)" \
    [ "$(grep -c '^Summary$' "$TMP/fu.out")" -eq 1 -a "$(grep -c '^Interval Details (ms)$' "$TMP/fu.out")" -ge 1 ]
sed 's/console = "full"/console = "loud"/' "$TMP/full.lua" > "$TMP/loud.lua"
"$LUAMECH" run "$TMP/loud.lua" -q -e PORT=$PORT -o "$TMP/lo" > "$TMP/lo.out" 2>&1
rc=$?
check "console = \"loud\": exit 3, one message (got $rc: $(head -1 "$TMP/lo.out"))" \
    [ $rc -eq 3 -a "$(grep -c 'console: expected "compact"' "$TMP/lo.out")" -eq 1 ]
finish
