# Issue 24, item 7: the live dashboard answers "am I passing?" at a glance.
# Watched in headless Chromium (fixtures/cdp_watch.js) while dash_view.lua
# runs: the threshold verdict is at the top, above the thresholds table,
# which is above the charts and the timers table; in every sample the
# verdict agrees with the intervals seen (no data yet before the first,
# no data yet while "group buy count < 75" holds (for "never"), failing from
# interval 8, when it does not;
# "never p95 < 5ms" shows "no data yet", not failing); every chart has
# tick values on its y axis and a time axis ("0 s" ...); a rate group's
# target rate/s is on the right axis of the VUs chart, the VUs on the left;
# the loop lag (ms) on the right of the health chart, CPU % on the left;
# the picker lists each timer once and a view switch picks its view.
# The screenshot is docs/images/dashboard.png (SHOT=path keeps it).
. "$(dirname "$0")/lib.sh"
F=$SRC/tests/scenarios/fixtures
CHROMIUM=/usr/bin/chromium
if ! [ -x "$CHROMIUM" ] || ! node --experimental-websocket -e 'process.exit(typeof WebSocket === "function" ? 0 : 1)' 2> /dev/null; then
    echo "SKIP: chromium or node --experimental-websocket missing: the dashboard is not checked in a browser"
    finish
fi
start_memcached MC
url_of() { for _ in $(seq 100); do grep -o 'http://[^ ]*' "$1" 2> /dev/null && return; sleep 0.1; done; }
"$LUAMECH" run "$F/dash_view.lua" -q -w 1 -e MEMCACHED=127.0.0.1:$MC -o "$TMP/r" --dashboard 0 --dashboard-linger \
    > "$TMP/out.txt" 2> "$TMP/err.txt" &
pid=$!
busy_mark
URL=$(url_of "$TMP/err.txt")
check "the dashboard's address is printed" [ -n "$URL" ]
mkdir -p "$TMP/chrome"
timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --remote-allow-origins='*' --user-data-dir="$TMP/chrome" \
    --window-size=1200,1100 --remote-debugging-port=0 "$URL" > /dev/null 2>&1 &
PIDS+=($!)
timeout 110 node --experimental-websocket "$F/cdp_watch.js" "$TMP/chrome" "$URL" 60 "${SHOT:-$TMP/shot.png}" > "$TMP/cdp.txt" 2>&1
[ -n "${KEEP:-}" ] && cp "$TMP/cdp.txt" "$KEEP"
kill -INT "$pid" 2> /dev/null
wait "$pid"
rc=$?
d=$(grep '"done":true' "$TMP/cdp.txt" | tail -1)
[ -n "$d" ] || cat "$TMP/cdp.txt"
echo "verdicts seen: $(grep '"step":"sample"' "$TMP/cdp.txt" | jq -r '"\(.n):\(.verdict[0])"' | uniq | tr '\n' ' ')"
check "the run fails its thresholds: exit 6 (got $rc)" [ "$rc" -eq 6 ]
check "the page ends with the run" [ "$(echo "$d" | jq -r .last.state)" = "ended: completed (exit code 6)" ]
check "final verdict at the top: FAIL, 2 of 4 (1 without data) ($(echo "$d" | jq -r '.last.verdict[1]'))" \
    [ "$(echo "$d" | jq -r '.last.verdict | "\(.[0])|\(.[1])"')" = "failing|FAIL: 2 of 4 thresholds failed (1 without data)at the end of the run" ]
bad=$(grep '"step":"sample"' "$TMP/cdp.txt" | jq -r 'select((.n == 0 and .verdict[0] != "waiting") or (.n >= 1 and .n <= 7 and .state == "running" and .verdict[0] != "nodata")
                                                         or (.n >= 8 and .verdict[0] != "failing")) | "\(.n):\(.verdict[0])"' | head -3)
check "every sample's verdict agrees with its intervals (none before the first; no data yet for never while buy passes; failing from 8) ${bad:+: $bad}" [ -z "$bad" ]
live=$(grep '"step":"sample"' "$TMP/cdp.txt" | jq -r 'select(.state == "running" and .n >= 1) | .n' | sort -un | wc -l)
check_quiet "the page showed a live verdict while the run went ($live interval counts)" "$TMP/r/summary.json" [ "$live" -ge 2 ]
check "the criterion without data says so, failed at the end" \
    [ "$(echo "$d" | jq -r '.last.threshold_rows[] | select(.[0] == "never p95 < 5ms") | .[1]')" = "no data: failed" ]
check "the measured failure says failing" \
    [ "$(echo "$d" | jq -r '.last.threshold_rows[] | select(.[0] == "group buy count < 75") | .[1]')" = "failing" ]
check "order: verdict, thresholds, charts, timers ($(echo "$d" | jq -c .last.top))" \
    [ "$(echo "$d" | jq '.last.top | (.verdict < .thresholds and .thresholds < ."c-tput" and ."c-tput" < .timers)')" = true ]
for c in c-tput c-lat c-vus c-health; do
    t=$(echo "$d" | jq -r --arg c "$c" '.last.ticks[] | select(startswith($c + ":"))')
    check "$c: a time axis and y values ($t)" \
        sh -c "echo '$t' | awk -F: '\$2 >= 3 && \$3 >= 3 && \$4 ~ /^0 s,/ { ok = 1 } END { exit !ok }'"
done
check "VUs on the left axis, the rate group's target rate/s on the right, the closed group's target VUs on the left" \
    [ "$(echo "$d" | jq -r '[.last.axes[] | select(startswith("c-vus:"))] | join(",")')" = "c-vus:active VUs:left,c-vus:target rate/s buy:right,c-vus:target VUs browse:left" ]
check "health: CPU % left, loop lag ms right" \
    [ "$(echo "$d" | jq -r '[.last.axes[] | select(startswith("c-health:"))] | join(",")')" = "c-health:worker CPU %:left,c-health:waiting for a CPU %:left,c-health:loop lag p99 ms:right" ]
# Stream schema 2: each timer once in the picker, its views behind a switch
# that drives the latency chart (a rate group has an uncorrected view; an
# engine timer has no other view: nothing drawn for uncorrected, and "all"
# is its default).
check "the timer picker lists each timer once, no view names ($(echo "$d" | jq -c '.views.picks'))" \
    [ "$(echo "$d" | jq '[.views.picks[] | select(test(" \\((uncorrected|all)\\)$"))] | length')" -eq 0 -a \
      "$(echo "$d" | jq '.views.picks | index("group buy") != null')" = true ]
check "the view switch offers default, uncorrected, all" [ "$(echo "$d" | jq -c '.views.views')" = '["default","uncorrected","all"]' ]
check "latency lines per timer and view: an engine timer has no uncorrected view ($(echo "$d" | jq -c '.views.drawn'))" \
    [ "$(echo "$d" | jq -c '.views.drawn | [."group buy|default", ."group buy|uncorrected", ."group buy|all", ."engine.loop_lag|default", ."engine.loop_lag|uncorrected", ."engine.loop_lag|all"] | map(if . > 0 then 1 else . end)')" = "[1,1,1,1,0,1]" ]
check "no script exception or console error" [ "$(echo "$d" | jq -c '[.errors[], (.last.errors | select(. != ""))]')" = "[]" ]
check "a screenshot was taken" [ -s "${SHOT:-$TMP/shot.png}" ]
finish
