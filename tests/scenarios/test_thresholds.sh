# Thresholds: every operator and statistic kind, the exit code when one
# fails (6), junit.xml, abort_on_threshold, and bad criteria rejected.
. "$(dirname "$0")/lib.sh"
F=$SRC/tests/scenarios/fixtures
"$LUAMECH" run "$F/thresholds.lua" -q -o "$TMP/ok" > "$TMP/ok.out" 2>&1
rc=$?
check "all thresholds pass: exit 0 (got $rc)" [ $rc -eq 0 ]
s=$TMP/ok/summary.json
check "11 thresholds in summary.json, all passed" [ "$(jq '[.thresholds[] | select(.passed)] | length' "$s")" -eq 11 ]
check "the report lists them" grep -q "Thresholds (11 of 11 passed)" "$TMP/ok.out"
check "junit.xml: 11 tests, 0 failures" grep -q 'tests="11" failures="0"' "$TMP/ok/junit.xml"
m=$(jq '.thresholds[] | select(.criterion == "fixed p95 < 11ms") | .measured' "$s")
check "measured p95 of a fixed 10 ms is 10 ms within 0.1% ($m)" awk "BEGIN{exit !($m >= 10 && $m <= 10.01)}"

"$LUAMECH" run "$F/thresholds_fail.lua" -q -o "$TMP/bad" > "$TMP/bad.out" 2>&1
rc=$?
check "a failed threshold exits 6 (got $rc)" [ $rc -eq 6 ]
check "exactly 3 of 4 failed" [ "$(jq '[.thresholds[] | select(.passed | not)] | length' "$TMP/bad/summary.json")" -eq 3 ]
check "junit.xml: 4 tests, 3 failures" grep -q 'tests="4" failures="3"' "$TMP/bad/junit.xml"
check "a missing timer fails with 'no data'" grep -q "no data for nosuchtimer" "$TMP/bad/junit.xml"
check "the report marks failures" grep -qE "fixed p95 < 9ms +10\.[0-9]+ ms +FAIL" "$TMP/bad.out"

start=$(date +%s)
"$LUAMECH" run "$F/thresholds_abort.lua" -q -o "$TMP/abort" > /dev/null 2> "$TMP/abort.err"
rc=$?
took=$(( $(date +%s) - start ))
check "abort_on_threshold: exit 6 (got $rc)" [ $rc -eq 6 ]
check "abort_on_threshold: stopped early ($took s of 20)" [ $took -lt 6 ]
check "abort_on_threshold: says why" grep -q 'threshold "fixed p50 < 1ms" failed' "$TMP/abort.err"

"$LUAMECH" run "$F/bad_threshold.lua" -q -o "$TMP/x" > /dev/null 2> "$TMP/x.err"
check "a bad criterion is a scenario error (exit 3)" [ $? -eq 3 ]
check "the message names the field" grep -q 'thresholds\[1\]: threshold "fixed p95 < fast": bad time value' "$TMP/x.err"
finish
