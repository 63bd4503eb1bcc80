# Issue 24, items 1 and 2: a flow whose client carries tags = { flow = "shop" }
# and whose requests are named (and one not), a third of them answered 500
# by nginx.  "http{flow:shop} errors rate < 1%" must select every request
# carrying the tag (the named ones' tagged timers are "http login{flow=shop}",
# ..., the unnamed one's "http.get{flow=shop}")
# and fail, exit 6; "http" is every HTTP request of the run, its count and
# errors equal to what nginx logged, in summary.json and intervals.csv.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_http.sh"
F=$SRC/tests/scenarios/fixtures
start_nginx PORT "$TMP/ng"
L=$TMP/ng/access.log
"$LUAMECH" run "$F/http_flow_tag.lua" -q -e PORT=$PORT -o "$TMP/r" > "$TMP/out" 2>&1
rc=$?
nginx_settle "$L"
s=$TMP/r/summary.json
passed() { jq -r ".thresholds[$1].passed" "$s"; }
measured() { jq -r ".thresholds[$1].measured" "$s"; }
shop=$(( $(logged 't=home ') + $(logged 't=login ') + $(logged 't=cart ') ))
e500=$(logged 't=cart HTTP/1.1 500')
all=$(logged ' HTTP/1.1')
check "exit 6: the flow's errors rate fails the gate (got $rc: $(tail -3 "$TMP/out"))" [ "$rc" -eq 6 ]
check "http{flow:shop} errors rate < 1% fails: measured $(measured 0) %" \
    [ "$(passed 0)" = false -a "$(jq -r '.thresholds[0].measured | floor' "$s")" -ge 30 ]
check "http{flow:shop} counts every request of the tagged client: $(measured 1) = nginx's $shop" \
    [ "$shop" -gt 0 -a "$(measured 1)" = "$shop" ]
check "http counts every HTTP request: $(measured 3) = nginx's $all" [ "$all" -gt 0 -a "$(measured 3)" = "$all" ]
check "http errors rate: nginx's $e500 500s of $all ($(measured 2) %)" \
    [ "$(passed 2)" = false -a "$(jq -r --argjson e "$e500" --argjson n "$all" \
        '(.thresholds[2].measured - 100 * $e / $n) | fabs < 0.001' "$s")" = true ]
check "http p95 < 10s passes" [ "$(passed 4)" = true ]
check "summary.json has the http timer: count $(timer_count "$s" http), errors $(timer_errors "$s" http) = nginx's $all, $e500" \
    [ "$(timer_count "$s" http)" = "$all" -a "$(timer_errors "$s" http)" = "$e500" ]
check "the http timer is the sum of http.get and http.post" \
    [ "$(timer_count "$s" http)" -eq $(( $(timer_count "$s" http.get) + $(timer_count "$s" http.post) )) ]
note_ok=no
jq -e '.thresholds[6].note | test("not selected: 2 tagged timer.*http (login|cart)\\{flow=shop\\}.*http\\{")' "$s" > /dev/null && note_ok=yes
check "http.*{flow:shop} selects the unnamed calls only (0 %, passes) and says which it left out: $(jq -r '.thresholds[6].note' "$s")" \
    [ "$(passed 6)" = true -a "$(measured 6)" = 0 -a "$note_ok" = yes ]
check "the console prints the note" grep -q '  note: not selected: 2 tagged timer' "$TMP/out"
csv=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
    $h["timer"] == "\"http\"" { n += $h["count"] } END { print n + 0 }' "$TMP/r/intervals.csv")
check "intervals.csv's http rows add up to nginx's $all (got $csv)" [ "$csv" = "$all" ]
finish
