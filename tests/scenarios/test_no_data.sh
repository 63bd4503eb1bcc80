# Issue 24, item 4: no data is no data.  A run where every request is
# answered 500 by nginx and every transaction fails has no latency sample:
# no output may show a 0 for it.  summary.json and the JSON stream (the
# file and the dashboard's events) carry null, intervals.csv empty fields,
# the console "–" (the end report and the progress line), report.html
# "&ndash;" in its tables and null in the data its charts draw (a gap, not
# a 0).  Engine timers are measurements (a 0 µs loop lag is one) and are
# not looked at.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_http.sh"
F=$SRC/tests/scenarios/fixtures
start_nginx PORT "$TMP/ng"
url_of() { for _ in $(seq 100); do grep -o 'http://[^ ]*' "$1" 2> /dev/null && return; sleep 0.1; done; }
"$LUAMECH" run "$F/http_all_fail.lua" -e PORT=$PORT -o "$TMP/r" --stream json="$TMP/stream.json" \
    --dashboard 0 > "$TMP/out" 2> "$TMP/err" &
pid=$!
URL=$(url_of "$TMP/err")
check "the dashboard's address is printed" [ -n "$URL" ]
curl -sN -m 4 "${URL}events" > "$TMP/events" 2> /dev/null
wait $pid
rc=$?
check "the run completes (exit $rc)" [ "$rc" -eq 0 ]
s=$TMP/r/summary.json
# the rows of timers without a latency sample: latency over successes, every sample failed
# (every timer and view, read as flat rows by views.jq's tflat: schema 1 or 2)
LAT='["min_ms","avg_ms","p50_ms","p80_ms","p90_ms","p95_ms","p99_ms","p99_9_ms","max_ms","stdev_ms"]'
rows=$(jqv --argjson k "$LAT" 'include "views"; [tflat | select(.kind != "engine" and .latency_over == "successes")
    | (.summary, .intervals[]) | select(.count > 0 and .count == .errors)] | length' "$s")
check "summary.json: rows without a latency sample ($rows, http.get's among them)" \
    [ "$rows" -ge 6 -a "$(jq '[.timers[] | select(.name == "http.get")] | length' "$s")" = 1 ]
bad=$(jqv --argjson k "$LAT" 'include "views"; [tflat | select(.kind != "engine" and .latency_over == "successes")
    | (.summary, .intervals[]) | select(.count == .errors) | .[$k[]] | select(. != null)] | length' "$s")
check "summary.json: their latencies are null, not 0 ($bad numbers)" [ "$bad" = 0 ]
check "summary.json: the (all) twin still has its latency (failures timed)" \
    [ "$(jqv 'include "views"; [tview("http.get (all)") | .summary.p50_ms | numbers] | length' "$s")" = 1 ]
csv=$(awk -F, '($4 == "\"http.get\"" || $4 == "\"All Transactions\"" || $4 == "\"http\"") && $6 > 0 {
    n++; for (i = 11; i <= 20; i++) if ($i != "") bad++ } END { print n + 0, bad + 0 }' "$TMP/r/intervals.csv")
check "intervals.csv: latency fields empty in the failed rows (rows, non-empty: $csv)" \
    [ "${csv#* }" = 0 -a "${csv% *}" -ge 4 ]
st() { jq -c --argjson k "$LAT" 'select(.type == "timer" and (.timer == "http.get" or .timer == "All Transactions"))
    | [.[$k[]] | select(. != null)] | length' "$1" | sort | uniq -c | tr -s ' '; }
sj=$(st "$TMP/stream.json")
check "the JSON stream: null latencies in every failed row (rows, numbers: $sj)" \
    [ "$(echo "$sj" | grep -c .)" = 1 -a "$(echo "$sj" | awk '{print $2}')" = 0 -a "$(echo "$sj" | awk '{print $1}')" -ge 4 ]
check "the JSON stream's end totals: null latencies for http.get" \
    [ "$(jq -c 'select(.type == "end") | .totals[] | select(.timer == "http.get") | .p95_ms' "$TMP/stream.json")" = null ]
sed -n 's/^data: //p' "$TMP/events" > "$TMP/events.json"
ev=$(st "$TMP/events.json")
check "the dashboard's events: http.get rows with null latencies (rows, numbers: $ev)" \
    [ "$(echo "$ev" | grep -c .)" = 1 -a "$(echo "$ev" | awk '{print $2}')" = 0 ]
allrow=$(grep -m1 -E '^All Transactions +[0-9]' "$TMP/out")
check "console: the All Transactions row shows – and no 0.000 ($allrow)" \
    sh -c "echo '$allrow' | grep -q '–' && ! echo '$allrow' | grep -q '0\.000'"
check "console: the progress line's p95 is – ($(grep -m1 'p95' "$TMP/err"))" grep -q 'p95 – ms' "$TMP/err"
check "console: no 0.000 p95 on the progress line" sh -c "! grep -q 'p95 0.000 ms' '$TMP/err'"
"$LUAMECH" compare "$TMP/r" "$TMP/r" > "$TMP/cmp.txt" 2>&1
crc=$?
check "compare reads the nulls: exit 0, no latency compared where there is none (got $crc: $(head -c 200 "$TMP/cmp.txt"))" \
    sh -c "[ $crc -eq 0 ] && ! awk '/^http.get \\(primitive\\)/ { on = 1; next } /^\$/ { on = 0 } on && /p50/' '$TMP/cmp.txt' | grep -q ."
h=$TMP/r/report.html
sed -n '/<script type="application\/json" id="summary-data">/,/<\/script>/p' "$h" | sed '1s/.*summary-data">//; $s/<\/script>.*//' > "$TMP/embedded.json"
check "report.html: the data its charts draw has http.get's p95 null, not 0" \
    [ "$(jq '[.timers[] | select(.name == "http.get") | (.summary, .intervals[]) | .p95_ms] | unique' "$TMP/embedded.json" | tr -d ' \n')" = '[null]' ]
check "report.html: no-data cells read &ndash;" grep -q '<td>&ndash;</td>' "$h"
if [ -x /usr/bin/chromium ]; then
    timeout 120 /usr/bin/chromium --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$TMP/chrome" \
        --virtual-time-budget=3000 --dump-dom "file://$h" > "$TMP/dom.html" 2> /dev/null
    check "report.html in Chromium: the latency charts draw no point (a gap, not a 0) and say no data" \
        sh -c "grep -q 'data-kind=\"rt\" data-series=\"p50\" data-points=\"0\"' '$TMP/dom.html' &&
               grep -q 'class=\"nodata\"' '$TMP/dom.html' && ! grep -q 'script error' '$TMP/dom.html'"
fi
finish
