# report.html: a run writes it, `luamech report DIR` renders it again from the
# saved files, and headless Chromium (when installed: .ci/setup installs it)
# draws every chart with one point per interval of the run, without a script
# error, on a laptop-wide and a phone-wide window.  Also the phased index, the
# thresholds table of a failing run, and a paced run: generator health (table,
# charts with one point per interval, engine timers in it) and the
# "(uncorrected)" twins, whose p99 (from the actual start) the response time
# chart of their timer draws next to its own (from the intended start).  The
# Load section: active VUs per interval against the groups' targets (a
# rampup), and a rate group's target against its achieved rate; the event
# loop lag with its own title.  Each timer has one section, its
# "(uncorrected)" and "(all)" views behind a switch: clicked in Chromium
# (fixtures/cdp_views.js), each view shows its own figures from summary.json
# and its own chart.
. "$(dirname "$0")/lib.sh"

not_grep() { ! grep "$@"; }

start_memcached PORT
R=$TMP/r
"$LUAMECH" run "$SRC/scenarios/membase.lua" -q -d 6s -r 2s -i 1s -u 4 -w 2 \
    -e MEMCACHED=127.0.0.1:$PORT -o "$R" > "$TMP/run.out" 2>&1
check "membase run exits 0" [ $? -eq 0 ]
check "the run wrote report.html" [ -s "$R/report.html" ]
S=$R/summary.json

# re-render from the files alone: the same page, byte for byte (round trip:
# run -> results directory -> luamech report gives the same numbers)
cp "$R/report.html" "$TMP/report.at-run.html"
rm -f "$R/report.html"
out=$("$LUAMECH" report "$R/" 2> "$TMP/err"); rc=$?
check "luamech report exits 0 (got $rc: $(head -c 300 "$TMP/err"))" [ $rc -eq 0 ]
check "it prints the report's path ($out)" [ "$out" = "$R/report.html" ]
check "report.html written" [ -s "$R/report.html" ]
check "the re-rendered report equals the one written at the end of the run" cmp -s "$R/report.html" "$TMP/report.at-run.html"
check "no temporary file left" [ ! -e "$R/.report.html.tmp" ]
H=$R/report.html
# timers with a section (stage timers are one table; a timer's "(uncorrected)" and "(all)" views are
# in its section: views.jq's s2 reads schema 1's twins as such views); health charts when there are intervals
sections() { jqv 'include "views"; [s2.timers[] | select(.kind != "stage")] | length' "$1"; }
ntimers=$(sections "$S")
nhealth=$(jq 'if (.generator.intervals | length) > 0 then 2 else 0 end' "$S")
nload=$(jq 'if (.load.active_vus | length) > 0 then 1 + ([.load.groups[] | select(.target == "rate")] | if length > 0 then 1 else 0 end) else 0 end' "$S")
ngroups=$(jq '.load.groups | length' "$S")
check "summary.json: active VUs per interval, one per interval" [ "$(jq '.load.active_vus | length' "$S")" -eq "$(jq '.timers[0].intervals | length' "$S")" ]
check "summary.json: the rampup's targets grow to the group's VUs (4)" \
    [ "$(jq -c '[.load.groups[0].targets[0] < 4, .load.groups[0].targets[-1] == 4]' "$S")" = "[true,true]" ]
check "summary.json: all VUs run once ramped up" [ "$(jq ".load.active_vus[-2] == 4 * $ngroups" "$S")" = true ]
check "report.html: a Load section" grep -q '<section id="load"><h2>Load</h2>' "$R/report.html"
check "one section per timer ($ntimers)" [ "$(grep -o '<section class="timer' "$H" | wc -l)" -eq "$ntimers" ]
for name in "All Transactions" "user_group-1" "user_group-2" "memcached.get" "memcached.set" "GET" "SET"; do
    check "section for $name" grep -q ">$name</h[23]>" "$H"
done
check "self-contained: no http(s) URL, no external resource" \
    not_grep -qiE 'https?://|<link|<img| src=|url\(|@import' "$H"
check "embedded summary.json is valid JSON equal to the file" \
    [ "$(sed -n 's|.*<script type="application/json" id="summary-data">\(.*\)</script>.*|\1|p' "$H" | jq -S -c .)" = "$(jq -S -c . "$S")" ]

# usage and input errors
"$LUAMECH" report > /dev/null 2>&1
check "no directory: exit 2" [ $? -eq 2 ]
"$LUAMECH" report "$R" "$R" > /dev/null 2>&1
check "two directories: exit 2" [ $? -eq 2 ]
"$LUAMECH" report --bogus "$R" > /dev/null 2>&1
check "unknown option: exit 2" [ $? -eq 2 ]
"$LUAMECH" report --help > "$TMP/help" 2>&1
check "--help: exit 0 and usage" [ $? -eq 0 -a -n "$(grep 'usage: luamech report RESULTS_DIR' "$TMP/help")" ]
"$LUAMECH" report "$TMP/nothere" > /dev/null 2> "$TMP/err"
check "missing directory: exit 3" [ $? -eq 3 ]
check "the message names the directory" grep -q "$TMP/nothere" "$TMP/err"
mkdir -p "$TMP/empty"
"$LUAMECH" report "$TMP/empty" > /dev/null 2> "$TMP/err"
check "no summary.json: exit 3" [ $? -eq 3 ]
check "the message names summary.json" grep -q "$TMP/empty/summary.json" "$TMP/err"
mkdir -p "$TMP/bad" && echo '{"timers": [' > "$TMP/bad/summary.json"
"$LUAMECH" report "$TMP/bad" > /dev/null 2> "$TMP/err"
check "invalid summary.json: exit 3" [ $? -eq 3 ]
check "the message names the file and says why" grep -q "$TMP/bad/summary.json: invalid JSON" "$TMP/err"
check "no report.html for an invalid summary" [ ! -e "$TMP/bad/report.html" ]

# a phased run: the top directory gets an index linking every phase's report
"$LUAMECH" run "$SRC/tests/scenarios/fixtures/phases.lua" -q -w 1 -e MEMCACHED=127.0.0.1:$PORT \
    -o "$TMP/p" > /dev/null 2>&1
check "phased run exits 0" [ $? -eq 0 ]

# thresholds: a table near the top, FAIL badges, the exit code
"$LUAMECH" run "$SRC/tests/scenarios/fixtures/thresholds_fail.lua" -q -o "$TMP/th" > /dev/null 2>&1
check "failing thresholds: exit 6" [ $? -eq 6 ]
TH=$TMP/th/report.html
check "thresholds section before the summary" \
    [ "$(grep -n '<section id="thresholds">' "$TH" | cut -d: -f1)" -lt "$(grep -n '<section id="summary">' "$TH" | cut -d: -f1)" ]
check "1 of 4 passed, exit code 6" grep -q '1 of 4 passed &middot; exit code 6 (a threshold failed)' "$TH"
check "failed criterion with its measure and a FAIL badge" \
    grep -q 'fixed p95 &lt; 9ms</td><td class="l">fixed</td><td>10.000 ms</td><td class="l"><span class="badge fail">FAIL</span>' "$TH"
check "passed criterion with a pass badge" \
    grep -q 'fixed p95 &lt; 11ms</td>.*<span class="badge pass">pass</span>' "$TH"
check "criterion without data" grep -q 'nosuchtimer</td><td>no data</td>' "$TH"
check "3 FAIL rows" [ "$(grep -c '<tr class="fail">' "$TH")" -eq 3 ]
check "checks not listed as counters" not_grep -q '<td class="l">check\.\(pass\|fail\) ' "$TH"

# a paced run: twins and generator health
"$LUAMECH" run "$SRC/tests/scenarios/fixtures/models_paced.lua" -q -w 1 -e MEMCACHED=127.0.0.1:$PORT \
    -e RUN_TIME=3s -o "$TMP/pc" > /dev/null 2>&1
check "paced run exits 0" [ $? -eq 0 ]
PS=$TMP/pc/summary.json PH=$TMP/pc/report.html
PN=$(jq '.generator.intervals | length' "$PS")
check "the paced run has 3 intervals of generator health ($PN)" [ "$PN" -eq 3 ]
check "the loop lag has its own title" grep -q '<h3 id="loop-lag">Event loop lag</h3>' "$PH"
check "... and the CPU its own" grep -q '<h3 id="generator-cpu">Generator CPU</h3>' "$PH"

# a rate group: target and achieved rate
"$LUAMECH" run "$SRC/tests/scenarios/fixtures/models_rate.lua" -q -w 1 -e MEMCACHED=127.0.0.1:$PORT \
    -e RUN_TIME=3s -e RATE=200 -o "$TMP/rt" > /dev/null 2>&1
check "rate run exits 0" [ $? -eq 0 ]
RS=$TMP/rt/summary.json RH=$TMP/rt/report.html
RN=$(jq '.load.active_vus | length' "$RS")
check "rate run: the target is 200/s in every interval" [ "$(jq '[.load.groups[0].targets[] | select(. == 200)] | length' "$RS")" -eq "$RN" ]
check "rate run: a target-vs-achieved chart" grep -q 'data-kind="load-rate"' "$RH"
check "health table: one row per interval" [ "$(grep -c '<tr class="hrow">' "$PH")" -eq "$PN" ]
gen_line=$(grep -n '<section id="generator">' "$PH" | cut -d: -f1)
prim_line=$(grep -n '<h2>Primitives</h2>' "$PH" | cut -d: -f1)
for name in engine.loop_lag engine.schedule_lag; do
    l=$(grep -n ">$name</h3>" "$PH" | cut -d: -f1)
    check "$name in generator health (line ${l:-none}, section at $gen_line)" [ "${l:-0}" -gt "${gen_line:-999999}" ]
done
check "no engine timer under Primitives" \
    not_grep -q '>engine\.' <(sed -n "${prim_line:-1},${gen_line:-1}p" "$PH")
# timers with an uncorrected view (from the intended start; the views are from the actual start)
ntwins=$(jqv 'include "views"; [s2.timers[] | select(.views.uncorrected)] | length' "$PS")
check "paced run: 5 timers with a twin: All, group, inner, memcached.get/set ($ntwins)" [ "$ntwins" -eq 5 ]
check "each labelled from the intended start" [ "$(grep -c 'class="lf intended">latency from the intended start<' "$PH")" -eq "$ntwins" ]
check "each twin labelled uncorrected" [ "$(grep -c 'class="lf actual">uncorrected: from the actual start<' "$PH")" -eq "$ntwins" ]
toc=$(sed -n 's/.*<nav class="toc">\(.*\)<\/nav>.*/\1/p' "$PH")
check "paced run: the contents list each timer once, not its (uncorrected) view" \
    [ -n "$toc" -a "$(echo "$toc" | grep -c '(uncorrected)')" -eq 0 -a "$(echo "$toc" | grep -o '>All Transactions<' | wc -l)" -eq 1 ]
check "paced run: the first screen's latency chart draws the twin's p99 too" \
    grep -q 'data-view="overview" data-kind="rt" data-timer="0" data-twin-view="uncorrected"' "$PH"
check "All Transactions' twin is a view in its section, not a section" \
    grep -q '<div class="view" data-view="uncorrected" data-timer="0" data-timer-view="uncorrected" id="t0-uncorrected">' \
        <(sed -n '/<section class="timer" id="t0"/,/<\/section>/p' "$PH")
check "paced run: one section per timer, the twins in them ($(sections "$PS"))" \
    [ "$(grep -c '<section class="timer' "$PH")" -eq "$(sections "$PS")" ]
# a paced run with failures: All Transactions, the group and "op" have three views each (corrected,
# uncorrected, all), one section each with a switch between them
"$LUAMECH" run "$SRC/tests/scenarios/fixtures/html_views.lua" -q -w 1 -o "$TMP/vw" > /dev/null 2>&1
check "views run exits 0" [ $? -eq 0 ]
VS=$TMP/vw/summary.json VH=$TMP/vw/report.html
nviews=$(jqv 'include "views"; [s2.timers[] | .views // {} | keys[]] | length' "$VS")
check "views run: 6 twins, of All Transactions, the group and op ($nviews)" [ "$nviews" -eq 6 ]
check "views run: 3 switches, each with corrected, uncorrected and all" \
    [ "$(grep -o '<div class="view-switch"[^>]*><span>view:</span><button type="button" data-view="corrected" aria-pressed="true">corrected</button><button type="button" data-view="uncorrected" aria-pressed="false">uncorrected</button><button type="button" data-view="all" aria-pressed="false">all</button></div>' "$VH" | wc -l)" -eq 3 ]
toc=$(sed -n 's/.*<nav class="toc">\(.*\)<\/nav>.*/\1/p' "$VH")
check "views run: the contents list op once, not its views" \
    [ "$(echo "$toc" | grep -o '>op<' | wc -l)" -eq 1 -a "$(echo "$toc" | grep -c '(all)\|(uncorrected)')" -eq 0 ]
rm -f "$TMP/p/report.html" "$TMP/p"/*/report.html
"$LUAMECH" report "$TMP/p" > /dev/null 2> "$TMP/err"
check "luamech report on the phases directory exits 0" [ $? -eq 0 ]
check "index links the write phase" grep -q 'href="1-write/report.html"' "$TMP/p/report.html"
check "index links the read phase" grep -q 'href="2-read/report.html"' "$TMP/p/report.html"
check "each phase's report rendered" [ -s "$TMP/p/1-write/report.html" -a -s "$TMP/p/2-read/report.html" ]

CHROMIUM=/usr/bin/chromium
if [ ! -x "$CHROMIUM" ]; then
    echo "SKIP: $CHROMIUM is absent (.ci/setup installs the chromium package): charts not checked in a browser"
    finish
fi
chrome() {
    local profile
    profile=$(mktemp -d "$TMP/chrome.XXXXXX")
    timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$profile" "$@" 2>> "$TMP/chrome.err"
}

# intervals of the run, from intervals.csv (not from the file the page embeds)
N=$(grep -c ',"All Transactions",all,' "$R/intervals.csv")
check "the run has 6 intervals ($N)" [ "$N" -eq 6 ]
chrome --window-size=1200,2000 --dump-dom "file://$H" > "$TMP/dom.html"
check "chromium dumped the page" grep -q '</html>' "$TMP/dom.html"
check "the script finished (render-ok)" grep -q 'id="render-ok"' "$TMP/dom.html"
check "no script error (render-errors)" not_grep -q 'id="render-errors"' "$TMP/dom.html"
nover=$(( nload > 0 ? 3 : 2 ))     # the first screen: throughput, latency, and the load when there is one
check "3 charts per timer, the health charts and the first screen's $nover drawn" \
    grep -q "id=\"render-ok\"[^>]*data-charts=\"$((3 * ntimers + nhealth + nload + nover))\"" "$TMP/dom.html"
# issue 24: the first screen is the verdict, the thresholds and three charts of the run, then the contents
pos() { grep -ob "$1" "$H" | head -1 | cut -d: -f1; }
check "the first screen: verdict, charts, then the contents and the summary" \
    [ "$(pos 'class="verdict')" -lt "$(pos '<section id="overview">')" -a "$(pos '<section id="overview">')" -lt "$(pos '<nav class="toc">')" \
      -a "$(pos '<nav class="toc">')" -lt "$(pos '<section id="summary">')" ]
series() { grep -o "data-kind=\"$1\" data-series=\"[^\"]*\" data-points=\"[0-9]*\"" "$TMP/dom.html"; }
check "its throughput and errors: 2 series of $N points" \
    [ "$(series overview-tput | grep -c "data-points=\"$N\"")" -eq 2 ]
check "its latency percentiles over time: 5 series of $N points" \
    [ "$(series overview-rt | grep -c "data-points=\"$N\"")" -eq 5 ]
check "its active VUs and targets: $((1 + ngroups)) series" [ "$(series overview-load-vus | wc -l)" -eq $((1 + ngroups)) ]
check "response time: 5 series per timer" [ "$(series rt | wc -l)" -eq $((5 * ntimers)) ]
check "response time: $N points in every series" [ "$(series rt | grep -vc "data-points=\"$N\"")" -eq 0 ]
check "throughput: 2 series per timer" [ "$(series tput | wc -l)" -eq $((2 * ntimers)) ]
check "throughput: $N points in every series" [ "$(series tput | grep -vc "data-points=\"$N\"")" -eq 0 ]
check "distribution: 7 percentiles per timer" \
    [ "$(series dist | wc -l)" -eq "$ntimers" -a "$(series dist | grep -vc 'data-points="7"')" -eq 0 ]
check "charts have drawn paths" grep -q '<path class="series"[^>]* d="M' "$TMP/dom.html"

# headless Chromium's narrowest window is 500 px: the page must fit it
chrome --window-size=500,900 --dump-dom "file://$H" > "$TMP/dom-narrow.html"
check "narrow window: render-ok, no errors" \
    [ -n "$(grep -o 'id="render-ok"' "$TMP/dom-narrow.html")" -a -z "$(grep -o 'id="render-errors"' "$TMP/dom-narrow.html")" ]
vw=$(grep -o 'data-viewport="[0-9]*"' "$TMP/dom-narrow.html" | tr -dc '0-9')
pw=$(grep -o 'data-page-width="[0-9]*"' "$TMP/dom-narrow.html" | tr -dc '0-9')
widest=$(grep -o 'data-width="[0-9]*"' "$TMP/dom-narrow.html" | tr -dc '0-9\n' | sort -n | tail -1)
check "narrow window: charts fit the window (widest ${widest:-none} px of ${vw:-?})" \
    [ "${widest:-999999}" -le "${vw:-0}" -a "${vw:-0}" -le 520 ]
check "narrow window: no sideways page scroll (page ${pw:-?} px)" [ "${pw:-999999}" -le "${vw:-0}" ]

chrome --window-size=1200,2000 --hide-scrollbars --screenshot="$TMP/shot.png" "file://$H" > /dev/null
check "screenshot is a PNG" [ "$(head -c 8 "$TMP/shot.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ]

chrome --dump-dom "file://$TMP/p/report.html" > "$TMP/dom-phases.html"
check "phases index: render-ok, no errors" \
    [ -n "$(grep -o 'id="render-ok"' "$TMP/dom-phases.html")" -a -z "$(grep -o 'id="render-errors"' "$TMP/dom-phases.html")" ]
check "phases index: throughput and p95 charts with one point per phase" \
    [ "$(grep -oE 'data-kind="phases-(rate|p95)" data-series="[^"]*" data-points="2"' "$TMP/dom-phases.html" | wc -l)" -eq 2 ]
chrome --dump-dom "file://$TMP/p/2-read/report.html" > "$TMP/dom-read.html"
check "a phase's report draws too" \
    [ -n "$(grep -o 'id="render-ok"' "$TMP/dom-read.html")" -a -z "$(grep -o 'id="render-errors"' "$TMP/dom-read.html")" ]

# the paced run in the browser: health charts and both p99 series, one point per interval
chrome --window-size=1200,2000 --dump-dom "file://$PH" > "$TMP/dom-paced.html"
check "paced: render-ok, no errors" \
    [ -n "$(grep -o 'id="render-ok"' "$TMP/dom-paced.html")" -a -z "$(grep -o 'id="render-errors"' "$TMP/dom-paced.html")" ]
pseries() { grep -o "data-kind=\"$1\" data-series=\"$2\" data-points=\"[0-9]*\"" "$TMP/dom-paced.html"; }
check "health: CPU % drawn with $PN points" [ "$(pseries health-cpu 'CPU %')" = "data-kind=\"health-cpu\" data-series=\"CPU %\" data-points=\"$PN\"" ]
check "health: CPU wait % drawn with $PN points" [ "$(pseries health-cpu 'CPU wait %')" = "data-kind=\"health-cpu\" data-series=\"CPU wait %\" data-points=\"$PN\"" ]
for se in 'loop lag p99' 'loop lag max' 'schedule lag p99' 'dispatch delay p99'; do
    check "health: $se drawn with $PN points" \
        [ "$(pseries health-lag "$se")" = "data-kind=\"health-lag\" data-series=\"$se\" data-points=\"$PN\"" ]
done
check "health charts have drawn paths" \
    [ "$(grep -oE '<path class="series" data-kind="health-(cpu|lag)"[^>]* d="M[0-9.]+,[0-9.]+(L[0-9.]+,[0-9.]+){2}"' "$TMP/dom-paced.html" | wc -l)" -eq 6 ]
for se in 'p99 intended start' 'p99 actual start'; do
    check "rt: '$se' drawn for each of the $ntwins timers, $PN points each" \
        [ "$(pseries rt "$se" | grep -c "data-points=\"$PN\"")" -eq "$ntwins" -a "$(pseries rt "$se" | wc -l)" -eq "$ntwins" ]
done
lseries() { grep -o "data-kind=\"$1\" data-series=\"$2\" data-points=\"[0-9]*\"" "$TMP/dom.html"; }
LN=$(jq '.load.active_vus | length' "$S")
check "load: active VUs drawn with $LN points" [ "$(lseries load-vus 'active VUs')" = "data-kind=\"load-vus\" data-series=\"active VUs\" data-points=\"$LN\"" ]
check "load: a dashed target per group, $LN points" [ "$(lseries load-vus 'target [^\"]*' | grep -c "data-points=\"$LN\"")" -eq "$ngroups" ]
chrome --window-size=1200,2000 --dump-dom "file://$RH" > "$TMP/dom-rate.html"
check "rate: render-ok, no errors" \
    [ -n "$(grep -o 'id="render-ok"' "$TMP/dom-rate.html")" -a -z "$(grep -o 'id="render-errors"' "$TMP/dom-rate.html")" ]
for se in 'target rate' 'achieved rate'; do
    check "rate: '$se' drawn with $RN points" \
        grep -q "data-kind=\"load-rate\" data-series=\"$se\" data-points=\"$RN\"" "$TMP/dom-rate.html"
done
at=$(grep -oP '<div class="chart" data-kind="rt" data-timer="0" data-twin-view="uncorrected"[^>]*><svg.*?</svg>' "$TMP/dom-paced.html")
check "All Transactions' rt chart draws the p99 from the intended and from the actual start" \
    [ -n "$(grep -o "data-series=\"p99 intended start\" data-points=\"$PN\" d=\"M" <<< "$at")" \
      -a -n "$(grep -o "data-series=\"p99 actual start\" data-points=\"$PN\" d=\"M" <<< "$at")" ]

# the view switch, clicked in Chromium (fixtures/cdp_views.js): each click shows one view, its summary
# table's figures are that view's timer's in summary.json, and its response time chart is that timer's
if ! node --experimental-websocket -e 'process.exit(typeof WebSocket === "function" ? 0 : 1)' 2> /dev/null; then
    echo "SKIP: node --experimental-websocket missing: the view switch is not clicked"
    finish
fi
mkdir -p "$TMP/chrome-views"
timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --remote-allow-origins='*' --user-data-dir="$TMP/chrome-views" \
    --window-size=1200,1000 --remote-debugging-port=0 "file://$VH" > /dev/null 2>&1 &
PIDS+=($!)
timeout 110 node --experimental-websocket "$SRC/tests/scenarios/fixtures/cdp_views.js" "$TMP/chrome-views" "file://$VH" \
    > "$TMP/cdp-views.txt" 2>&1
V=$(grep '"done":true' "$TMP/cdp-views.txt" | tail -1)
[ -n "$V" ] || cat "$TMP/cdp-views.txt"
check "views: 9 buttons clicked (3 timers x 3 views) ($(echo "$V" | jq -c .buttons))" [ "$(echo "$V" | jq .buttons)" = 9 ]
check "views: no script exception or console error" [ "$(echo "$V" | jq -c .errors)" = "[]" ]
# each click: the button pressed, one view visible, the section's timer and that view (its "views" in
# schema 2; views.jq's s2 folds schema 1's twins, by uncorrected_of / all_of, the way the page does), its
# count and every latency cell equal to summary.json's (to the 3 decimals shown), its chart drawn
bad=$(jqv -r --slurpfile s "$VS" 'include "views";
  ($s[0] | s2 | .timers) as $T
  | .clicks[] | . as $c | ($c.section[1:] | tonumber) as $i | $i as $want
  | (if $c.view == "corrected" then $T[$i] else $T[$i].views[$c.view] end | .summary) as $sum
  | [range($c.heads | length) | {h: $c.heads[.], v: $c.cells[.]}] as $cells
  | [$cells[] | select(.h == "count") | (.v | tonumber) == $sum.count] as $cnt
  | [$cells[] | select(.h | test("^(min|avg|p[0-9.]+|max)$")) | .h as $h
     | (.v | tonumber) as $shown
     | ($sum | to_entries[] | select(.key == ($h | gsub("\\."; "_")) + "_ms") | .value) as $f
     | (($shown - $f) | fabs) <= 0.0006] as $lat
  | select($c.pressed != "true" or $c.visible != 1 or $c.timer != $want or $c.rt.timer != $want or $sum == null
           or $c.timer_view != (if $c.view == "corrected" then null else $c.view end) or $c.rt.timer_view != $c.timer_view
           or ($c.rt.series | length) < 5 or ([$c.rt.series[] | select(endswith(":0"))] | length) > 0
           or $cnt != [true] or ($lat | length) < 5 or ($lat | all | not))
  | "\($c.section) \($c.view): shown timer \($c.timer) chart \($c.rt.timer) want \($want) cells \($c.cells)"' <<< "$V" 2>&1)
check "views: every click shows its view's figures and chart${bad:+: $bad}" [ -n "$V" -a -z "$bad" ]
op=$(jqv 'include "views"; [s2.timers[].name] | index("op")' "$VS")
p99s=$(echo "$V" | jq -r --arg t "t$op" '[.clicks[] | select(.section == $t) | .cells[(.heads | index("p99"))]] | join(" ")')
check "views: op's p99 changes with the view: successes 1 ms, all samples 300 ms ($p99s)" \
    [ "$p99s" = "1.000 1.000 300.000" ]
finish
