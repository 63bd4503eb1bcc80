# Issue 24, item 9: in a rate group a transaction that starts late is timed
# from its intended start (the catch-up correction), and so are the timers
# of the calls it makes (http.get); the phases of one request (http.connect,
# http.tls, http.wait, http.receive, http.dns) are not: they measure a part
# of one request, which began when the request reached it.  One VU asked for
# 20/s of a 0.2 s request falls behind by over a second: http.get's p99 (from
# the intended start) shows the backlog, http.wait's stays near nginx's
# 0.2 s, http.receive's near 0, and the phases have no "(uncorrected)" twin.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_http.sh"
F=$SRC/tests/scenarios/fixtures
start_nginx PORT "$TMP/ng"
"$LUAMECH" run "$F/co_phases.lua" -q -w 1 -e PORT=$PORT -o "$TMP/r" > "$TMP/out" 2>&1
rc=$?
check "the run completes (exit $rc)" [ $rc -eq 0 ]
s=$TMP/r/summary.json
# fig NAME FIGURE: a timer's or a view's ("X (uncorrected)") summary figure (views.jq)
fig() { jqv -r --arg n "$1" --arg f "$2" 'include "views"; tview($n) | .summary[$f] // "none"' "$s"; }
# nviews NAME VIEW: 1 when timer NAME has that view, else 0
nviews() { jqv --arg n "$1" --arg v "$2" 'include "views"; [s2.timers[] | select(.name == $n) | .views[$v] // empty] | length' "$s"; }
get99=$(fig http.get p99_ms); uget99=$(fig "http.get (uncorrected)" p99_ms)
wait99=$(fig http.wait p99_ms); wmax=$(fig http.wait max_ms); rmax=$(fig http.receive max_ms)
cmax=$(fig http.connect max_ms); late=$(jq '[.counters[] | select(.name == "engine.late_starts") | .total] | add // 0' "$s")
echo "http.get p99 $get99 ms (uncorrected $uget99), http.wait p99 $wait99 max $wmax, http.receive max $rmax, http.connect max $cmax, late starts $late"
check "the arrivals fell behind: http.get p99 from the intended start $get99 ms > 800 ms" awk "BEGIN { exit !($get99 > 800) }"
check "http.get (uncorrected) is the request alone: p99 $uget99 ms < 600 ms" awk "BEGIN { exit !($uget99 < 600) }"
check "http.wait is nginx's 0.2 s, not the backlog: max $wmax ms in 150..600" awk "BEGIN { exit !($wmax > 150 && $wmax < 600) }"
check "http.receive is the body's arrival alone: max $rmax ms < 100" awk "BEGIN { exit !($rmax < 100) }"
check "http.connect is the connect alone: max $cmax ms < 100" awk "BEGIN { exit !($cmax < 100) }"
for t in http.wait http.receive http.connect; do
    check "$t: latency from the actual start, no (uncorrected) twin" \
        [ "$(jqv -r --arg n "$t" 'include "views"; tview($n) | .latency_from' "$s")" = "actual start" \
          -a "$(nviews "$t" uncorrected)" = 0 ]
done
check "http.get keeps its (uncorrected) twin" [ "$(nviews http.get uncorrected)" = 1 ]
finish
