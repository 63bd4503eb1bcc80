# luamech.json, luamech.url and luamech.http's API options (query, form,
# json, expect, redirects, absolute URLs, res:json, res:header_all, PATCH,
# OPTIONS) against a private nginx: the script's asserts, then the timers,
# counters and error tally against what nginx logged.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_http.sh"
F=$SRC/tests/scenarios/fixtures
start_nginx PORT "$TMP/ng"
LOG=$TMP/ng/access.log

"$LUAMECH" run "$F/http_features.lua" -q -e PORT=$PORT -o "$TMP/f" > "$TMP/f.out" 2>&1
rc=$?
check "features run exits 0 (exit $rc: $(tail -3 "$TMP/f.out"))" [ $rc -eq 0 ]
s=$TMP/f/summary.json
e=$TMP/f/errors.csv
check "the script's checks passed ($(grep -v '^request,' "$e" | tail -n +2 | head -5))" \
    [ "$(timer_errors "$s" "All Transactions")" -eq 0 -a "$(timer_count "$s" "All Transactions")" -eq 1 ]
check "http.patch timed once" [ "$(timer_count "$s" http.patch)" -eq 1 ]
check "http.options timed twice" [ "$(timer_count "$s" http.options)" -eq 2 ]
check "the batch's POST timed (http.post $(timer_count "$s" http.post))" [ "$(timer_count "$s" http.post)" -ge 5 ]
# the unexpected 401 is the only http error; the expected ones are successes
check "http.get: one error, the unexpected 401 ($(timer_errors "$s" http.get))" [ "$(timer_errors "$s" http.get)" -eq 1 ]
check "the 401 tallied" grep -q "http.get /unauth: status 401" "$e"
check "no other status tallied" [ "$(grep -c ': status ' "$e")" -eq 1 ]
# redirect hops: r1 (2) + r303 (1) + r307 (1) + rloop (3) + raway (1) + setredir (1) = 9
check "http.redirects counter 9 ($(counter "$s" http.redirects))" [ "$(counter "$s" http.redirects)" -eq 9 ]
nginx_settle "$LOG"
check "nginx: /r1 twice, /r2 once (redirects=0 stopped at /r1)" \
    [ "$(nginx_requests "$LOG" "GET /r1 ")" -eq 2 -a "$(nginx_requests "$LOG" "GET /r2\?from=r1 ")" -eq 1 ]
check "nginx: 303 followed by a GET" grep -q "GET /args?via=303 HTTP/1.1 200" "$LOG"
check "nginx: 307 followed by a POST" grep -q "POST /args?via=307 HTTP/1.1 200" "$LOG"
check "nginx: /rloop 4 times (3 hops)" [ "$(nginx_requests "$LOG" "GET /rloop ")" -eq 4 ]
check "nginx: the redirect to localhost followed" grep -q "GET /hello?away=1 HTTP/1.1 200" "$LOG"
check "nginx: the absolute URLs" [ "$(nginx_requests "$LOG" "GET /hello\?abs=")" -eq 2 ]
check "nginx: PATCH and OPTIONS" [ "$(nginx_requests "$LOG" "PATCH /args ")" -eq 1 -a "$(nginx_requests "$LOG" "OPTIONS /args ")" -eq 2 ]
# every request nginx logged was timed by luamech or counted as a hop
total=$(wc -l < "$LOG")
timed=0
for m in get head post put patch delete options; do timed=$((timed + $(timer_count "$s" http.$m))); done
check "nginx requests ($total) == luamech calls + hops ($timed + 9)" [ "$total" -eq $((timed + 9)) ]
# timing breakdown: every response (hops included) has a wait and a receive
# sample, every connection a connect sample; the 0.2 s of /slow200 is wait
tmax() { jq -r --arg n "$2" '.timers[] | select(.name == $n) | .summary.max_ms' "$1"; }
check "http.wait and http.receive: one per response ($total)" \
    [ "$(timer_count "$s" http.wait)" -eq "$total" -a "$(timer_count "$s" http.receive)" -eq "$total" ]
check "http.connect: one per connection ($(counter "$s" http.connects))" \
    [ "$(timer_count "$s" http.connect)" -eq "$(counter "$s" http.connects)" -a "$(counter "$s" http.connects)" -ge 3 ]
check "http.wait max >= 200 ms ($(tmax "$s" http.wait)), http.receive max < 150 ms ($(tmax "$s" http.receive))" \
    [ "$(jq '([.timers[] | select(.name == "http.wait") | .summary.max_ms][0] >= 199) and
             ([.timers[] | select(.name == "http.receive") | .summary.max_ms][0] < 150)' "$s")" = true ]
check "http slow200 >= its wait" [ "$(jq '[.timers[] | select(.name == "http slow200") | .summary.max_ms][0] >= 199' "$s")" = true ]
finish
