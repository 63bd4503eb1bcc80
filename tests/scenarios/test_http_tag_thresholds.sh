# Thresholds on one tag across timers (k6's http_req_duration{kind:api}):
# "http.*{kind:api}" selects every tagged timer of http.<method> whose tags
# include kind=api, by the timers' data fields, and is judged on their
# histograms merged.  MODE a: the tagged criterion passes while the
# untagged http.get (slowed by the 200 ms kind=slow requests) fails, exit 6;
# b: the other way round (kind=slow and kind=web fail, http.get passes),
# exit 6; c: all pass, exit 0.  The selected counts and errors equal what
# nginx logged for those requests.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_http.sh"
F=$SRC/tests/scenarios/fixtures
start_nginx PORT "$TMP/ng"
L=$TMP/ng/access.log
# passed INDEX -> true/false of the run's summary.json threshold
passed() { jq -r ".thresholds[$1].passed" "$s"; }
measured() { jq -r ".thresholds[$1].measured" "$s"; }
for mode in a b c; do
    : > "$L"
    "$LUAMECH" run "$F/http_tag_thresholds.lua" -q -e PORT=$PORT -e MODE=$mode -o "$TMP/$mode" > "$TMP/$mode.out" 2>&1
    eval "rc_$mode=$?"
    nginx_settle "$L"
    cp "$L" "$TMP/$mode.log"
done
L=$TMP/a.log s=$TMP/a/summary.json
check "a: exit 6 (got $rc_a: $(tail -3 "$TMP/a.out"))" [ "$rc_a" -eq 6 ]
check "a: http.*{kind:api} p95 < 150ms passes ($(measured 0) ms)" [ "$(passed 0)" = true ]
check "a: the untagged http.get p95 < 150ms fails ($(measured 1) ms: the slow GETs)" [ "$(passed 1)" = false ]
api=$(( $(logged 'GET /hello?t=api1 ') + $(logged 'HEAD /hello?t=apih ') ))
check "a: http.*{kind:api} merges http.get{kind=api,v=1} and http.head{kind=api}: count $(measured 2) = nginx's $api" \
    [ "$api" -gt 0 -a "$(measured 2)" = "$api" ]
check "a: {kind=web} errors = nginx's 404s ($(measured 3))" [ "$(measured 3)" = "$(logged 'GET /missing?t=web ')" ]
check "a: failed criteria in summary.json: only http.get's" [ "$(jq '[.thresholds[] | select(.passed | not)] | length' "$s")" -eq 1 ]
L=$TMP/b.log s=$TMP/b/summary.json
check "b: exit 6 (got $rc_b: $(tail -3 "$TMP/b.out"))" [ "$rc_b" -eq 6 ]
check "b: http.*{kind=slow} p50 < 150ms fails, measured on its 200 ms requests ($(measured 0) ms)" \
    [ "$(passed 0)" = false -a "$(jq '.thresholds[0].measured >= 150' "$s")" = true ]
check "b: the untagged http.get p50 < 150ms passes ($(measured 1) ms)" [ "$(passed 1)" = true ]
web=$(logged 'GET /missing?t=web ')
check "b: {kind:web} errors rate < 1% fails: 100% of its $web requests (nginx) failed" \
    [ "$(passed 2)" = false -a "$web" -gt 0 -a "$(jq -r '.thresholds[2].measured | floor' "$s")" -eq 100 ]
gets=$(logged 'GET ')
check "b: http.get errors rate < 50% passes: nginx's $web 404s of its $gets GETs" \
    [ "$(passed 3)" = true -a "$(jq -r --argjson e "$web" --argjson n "$gets" \
        '(.thresholds[3].measured - 100 * $e / $n) | fabs < 0.001' "$s")" = true ]
s=$TMP/c/summary.json
check "c: every criterion passes: exit 0 (got $rc_c: $(tail -3 "$TMP/c.out"))" [ "$rc_c" -eq 0 -a "$(passed 0)" = true ]
finish
