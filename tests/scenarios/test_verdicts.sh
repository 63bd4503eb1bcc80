# Verdicts: a latency criterion over a timer without a successful sample
# fails; stage rates are over each stage's span (summary.json carries it);
# thresholds are scoped (a phase's own on that phase, the scenario's on the
# whole run merged, with a top-level junit.xml); report.html's headline
# states the verdict in its colour (checked in headless Chromium); closed-loop
# runs carry the caveat that they cannot show stalls; redis timers of paced
# groups have their "(uncorrected)" twin, as the docs now say.  The servers' own
# counters are the ground truth for counts.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_redis.sh"
not_grep() { ! grep "$@"; }
F=$SRC/tests/scenarios/fixtures

# 1. all logins fail: nothing listens on the port
for _ in $(seq 20); do DEAD=$((10000 + RANDOM % 22000)); port_open "$DEAD" || break; done
"$LUAMECH" run "$F/verdict_allfail.lua" -q -w 1 -e HTTP_BASE=http://127.0.0.1:$DEAD -o "$TMP/af" > "$TMP/af.out" 2>&1
rc=$?
S=$TMP/af/summary.json
check "all requests failed: exit 6 (got $rc)" [ $rc -eq 6 ]
check "200 logins, all failed" [ "$(timer_count "$S" login)/$(timer_errors "$S" login)" = "200/200" ]
th() { jq -r --arg c "$1" ".thresholds[] | select(.criterion == \$c) | $2" "$S"; }
check "login p95: not passed" [ "$(th 'login p95 < 50ms' .passed)" = "false" ]
check "login p95: measured null" [ "$(th 'login p95 < 50ms' .measured)" = "null" ]
check "login p95: reason says no successful samples" \
    [ "$(th 'login p95 < 50ms' .reason)" = "no successful samples of login (200 failed)" ]
check "http.get p95 fails too" [ "$(th 'http.get p95 < 50ms' .passed)" = "false" ]
check "mixed (half failed) p95 is over the successes: 10 ms, passes" \
    [ "$(th 'mixed p95 < 50ms' .passed)/$(th 'mixed p95 < 50ms' .measured)" = "true/10" ]
check "console: FAIL with (no successful samples)" \
    grep -qE "^login p95 < 50ms +\(no successful samples\)  FAIL" "$TMP/af.out"
check "junit.xml: the failure says why" \
    grep -q '<failure message="no successful samples of login (200 failed)"/>' "$TMP/af/junit.xml"
check "junit.xml: 4 tests, 2 failures" grep -q 'tests="4" failures="2"' "$TMP/af/junit.xml"

# 2. stage rates over each stage's span; memcached counts every transaction
start_memcached PORT
"$LUAMECH" run "$F/verdict_stages.lua" -q -w 1 -e MEMCACHED=127.0.0.1:$PORT -o "$TMP/st" > "$TMP/st.out" 2>&1
rc=$?
S=$TMP/st/summary.json
counts=$(jq -c '[.stages[] | .count]' "$S")
total=$(timer_count "$S" "group ramp")
sets=$(mc_stat "$PORT" cmd_set)
check "memcached saw one set per transaction ($sets, $total)" [ "$sets" -eq "$total" ]
check "three stages whose counts add up to the run's ($counts, $total)" \
    [ "$(jq '[.stages[] | .count] | add' "$S")" -eq "$total" -a "$(jq '.stages | length' "$S")" -eq 3 ]
# 100 arrivals are due per stage; a starved generator starts some late (next stage): judge what it did
low=$(jq '[.stages[] | select(.count < 50)] | length' "$S")
check "staged rate run: exit 0 unless a stage started < 50 ($counts; got $rc)" [ $rc -eq $([ "$low" -eq 0 ] && echo 0 || echo 6) ]
spans=$(jq -c '[.stages[] | [.start_s, .end_s, .period_s]]' "$S")
check "stage spans are [0,1] [1,2] [2,3] of 1 s each ($spans)" [ "$spans" = "[[0,1,1],[1,2,1],[2,3,1]]" ]
check "stages[] rates are over their 1 s span: rate == count ($counts)" \
    [ "$(jq -c '[.stages[] | .rate]' "$S")" = "$counts" ]
check "stage timers' summaries are over their stage: rate == count" \
    [ "$(jqv -c 'include "views"; [s2.timers[] | select(.kind == "stage") | .summary.rate]' "$S")" = "$counts" ]
check "stage timers carry their span" \
    [ "$(jq -c '[.timers[] | select(.name == "stage 2 ramp") | [.start_s, .end_s]][0]' "$S")" = "[1,2]" ]
# the group timer's span is the run and its drain (span_s: 3 s, more when a
# transaction in flight at the stop ended after it, as on a busy machine),
# its rate count / span_s; the stage timers' spans end at the run's 3 s
span=$(jq .span_s "$S")
grp=$(jq -c '[.timers[] | select(.name == "group ramp") | [.start_s, .end_s, (.summary.rate * .end_s | round)]][0]' "$S")
check "the group timer is over the run: [0, span_s], count / span_s ($grp, span_s $span, $total)" \
    [ "$grp" = "[0,$span,$total]" ]
check "span_s is the run's 3 s and at most the 5 s graceful stop's drain (3 <= $span <= 8)" awk "BEGIN{exit !($span >= 3 && $span <= 8)}"
c2=$(jq '.stages[1].count' "$S")
check "console threshold: stage 2 measured at its count per second ($c2)" \
    grep -qE "^stage 2 ramp rate >= 50/s +$c2\.000 /s  (pass|FAIL)" "$TMP/st.out"
for k in 1 2 3; do
    ck=$(jq ".stages[$((k - 1))].count" "$S")
    check "report.html's stages table: stage $k over 1.000 s at $ck.00/s" \
        grep -q "<tr class=\"stage\"><td class=\"l\">ramp</td><td>$k</td><td class=\"l\">latency from the intended start</td><td>$((k - 1)).000&ndash;$k.000</td><td>$ck</td><td>0</td><td>$ck.00</td>" "$TMP/st/report.html"
done
# a run cut short (--duration 1.5s): stage 2's span ends with the run, and its rate is over that half second
"$LUAMECH" run "$F/verdict_stages.lua" -q -w 1 -d 1500ms -e MEMCACHED=127.0.0.1:$PORT -o "$TMP/st2" > /dev/null 2>&1
S2=$TMP/st2/summary.json
spans=$(jq -c '[.stages[] | [.start_s, .end_s]]' "$S2")
check "cut at 1.5 s: stage 2 ends with the run, no hold ($spans)" [ "$spans" = "[[0,1],[1,1.5]]" ]
c2=$(jq '.stages[1].count' "$S2")
check "cut at 1.5 s: stage 2's rate is its count over 0.5 s ($c2)" \
    [ "$(jq '.stages[1].rate' "$S2")" = "$((c2 * 2))" ]

# 3. scoped thresholds in a phased run
sets0=$(mc_stat "$PORT" cmd_set) gets0=$(mc_stat "$PORT" cmd_get)
"$LUAMECH" run "$F/verdict_phases.lua" -q -w 1 -e MEMCACHED=127.0.0.1:$PORT -o "$TMP/ph" > "$TMP/ph.out" 2>&1
rc=$?
check "phased run with scoped thresholds: exit 0 (got $rc)" [ $rc -eq 0 ]
check "memcached saw 500 sets and 500 gets" \
    [ "$(( $(mc_stat "$PORT" cmd_set) - sets0 ))/$(( $(mc_stat "$PORT" cmd_get) - gets0 ))" = "500/500" ]
T=$TMP/ph/summary.json
check "top summary.json: 4 whole-run thresholds, all passed" \
    [ "$(jq '[.thresholds[] | select(.passed)] | length' "$T")" -eq 4 ]
check "whole run: transactions count merged over both phases (1000)" \
    [ "$(jq '.thresholds[] | select(.criterion == "transactions count == 1000") | .measured' "$T")" = "1000" ]
check "top junit.xml: 4 tests, 0 failures" grep -q 'tests="4" failures="0"' "$TMP/ph/junit.xml"
check "write phase: no thresholds of its own, no junit.xml" \
    [ "$(jq '.thresholds | length' "$TMP/ph/1-write/summary.json")" -eq 0 -a ! -e "$TMP/ph/1-write/junit.xml" ]
check "read phase: its own 2 thresholds, judged on the phase" \
    [ "$(jq -c '[.thresholds[] | [.criterion, .passed]]' "$TMP/ph/2-read/summary.json")" = '[["GET count == 500",true],["transactions count == 500",true]]' ]
check "the phased index page lists the whole run's thresholds (4 of 4 passed)" \
    grep -q '<span class="badge pass">pass</span> 4 of 4 passed' "$TMP/ph/report.html"
check "console: the whole run's thresholds after the phases table" \
    grep -q "Thresholds of the whole run (all phases' data merged) (4 of 4 passed)" "$TMP/ph.out"

# 13. redis timers of a paced group have an (uncorrected) twin, as documented
start_redis RPORT
"$LUAMECH" run "$F/verdict_redis_paced.lua" -q -w 1 -e REDIS=127.0.0.1:$RPORT -o "$TMP/rd" > /dev/null 2>&1
check "paced redis run: exit 0" [ $? -eq 0 ]
for t in redis.set redis.pipeline; do
    check "$t: from the intended start, with a twin of the same count" \
        [ "$(jq -r --arg n "$t" '[.timers[] | select(.name == $n) | .latency_from][0]' "$TMP/rd/summary.json")" = "intended start" -a \
          "$(timer_count "$TMP/rd/summary.json" "$t (uncorrected)")" = "$(timer_count "$TMP/rd/summary.json" "$t")" ]
done
check "redis saw 100 SETs, as the run counted" \
    [ "$(redis_cmdstat "$RPORT" set)/$(timer_count "$TMP/rd/summary.json" redis.set)" = "100/100" ]

# 4. report.html's headline: the verdict, in its colour
H=$TMP/af/report.html
check "all failed: headline verdict is red (bad), thresholds failed first" \
    grep -q '<div class="verdict bad" id="verdict" data-verdict="bad" role="status"><strong>thresholds failed (2 of 4 passed)</strong> &middot; every transaction failed (200 of 200) &middot; ' "$H"
check "all failed: the headline ends with the exit code" grep -q 'exit code 6 (a threshold failed)</div>' "$H"
check "all failed: the thresholds table says no successful samples" \
    grep -q '<td>no successful samples of login (200 failed)</td>' "$H"
# a clean run is green, unless the generator was suspect (a loaded machine): then amber, saying so
if [ "$(jq .generator.suspect "$TMP/st/summary.json")" = true ]; then
    ST_VERDICT=warn ST_COLOUR='rgb(138, 90, 0)'
    check "the staged rate run, suspect: verdict warn, saying why" \
        grep -q '<div class="verdict warn" id="verdict" data-verdict="warn" role="status"><strong>suspect: ' "$TMP/st/report.html"
else
    ST_VERDICT=ok ST_COLOUR='rgb(30, 123, 52)'
    check "the staged rate run: verdict ok" \
        grep -q '<div class="verdict ok" id="verdict" data-verdict="ok" role="status"><strong>passed: every threshold held, no error</strong>' "$TMP/st/report.html"
fi
check "the phased index: verdict ok, whole-run thresholds listed" \
    grep -q '<div class="verdict ok" id="verdict" data-verdict="ok" role="status"><strong>passed: every threshold held' "$TMP/ph/report.html"

# 12. the closed-loop caveat, once, where latency is shown
check "console: one closed-loop caveat (closed group users)" \
    [ "$(grep -c '^Note: closed-loop group(s) users: ' "$TMP/af.out")" -eq 1 ]
check "report.html: one closed-loop caveat, before All Transactions" \
    [ "$(grep -c 'id="closed-loop-caveat"' "$H")" -eq 1 -a \
      "$(grep -n 'id="closed-loop-caveat"' "$H" | cut -d: -f1)" -lt "$(grep -n '<section class="timer" id="t0"' "$H" | cut -d: -f1)" ]
check "a rate-only run has no caveat" not_grep -q 'closed-loop group\|closed-loop-caveat' "$TMP/st.out" "$TMP/st/report.html"

CHROMIUM=/usr/bin/chromium
if [ ! -x "$CHROMIUM" ]; then echo "SKIP: no $CHROMIUM: colours not checked in a browser"; finish; fi
colour() {
    timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
        --disable-component-update --disable-sync --user-data-dir="$(mktemp -d "$TMP/chrome.XXXXXX")" \
        --dump-dom "file://$1" 2>> "$TMP/chrome.err" | grep -o 'data-verdict-colour="[^"]*"'
}
check "chromium: the failed run's headline is red (#b3261e)" [ "$(colour "$H")" = 'data-verdict-colour="rgb(179, 38, 30)"' ]
check "chromium: the clean run's headline is $ST_VERDICT ($ST_COLOUR)" [ "$(colour "$TMP/st/report.html")" = "data-verdict-colour=\"$ST_COLOUR\"" ]
finish
