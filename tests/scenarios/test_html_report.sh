# report.html: a run writes it, `luamech report DIR` renders it again from the
# saved files, and headless Chromium (when installed: .ci/setup installs it)
# draws every chart with one point per interval of the run, without a script
# error, on a laptop-wide and a phone-wide window.  Also the phased index.
. "$(dirname "$0")/lib.sh"

not_grep() { ! grep "$@"; }

start_memcached PORT
R=$TMP/r
"$LUAMECH" run "$SRC/scenarios/membase.lua" -q -d 6s -r 2s -i 1s -u 4 -w 2 \
    -e MEMCACHED=127.0.0.1:$PORT -o "$R" > "$TMP/run.out" 2>&1
check "membase run exits 0" [ $? -eq 0 ]
check "the run wrote report.html" [ -s "$R/report.html" ]
S=$R/summary.json

# re-render from the files alone
rm -f "$R/report.html"
out=$("$LUAMECH" report "$R/" 2> "$TMP/err"); rc=$?
check "luamech report exits 0 (got $rc: $(head -c 300 "$TMP/err"))" [ $rc -eq 0 ]
check "it prints the report's path ($out)" [ "$out" = "$R/report.html" ]
check "report.html written" [ -s "$R/report.html" ]
check "no temporary file left" [ ! -e "$R/.report.html.tmp" ]
H=$R/report.html
ntimers=$(jq '.timers | length' "$S")
check "one section per timer ($ntimers)" [ "$(grep -o 'class="timer"' "$H" | wc -l)" -eq "$ntimers" ]
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
check "3 charts per timer drawn" grep -q "id=\"render-ok\"[^>]*data-charts=\"$((3 * ntimers))\"" "$TMP/dom.html"
series() { grep -o "data-kind=\"$1\" data-series=\"[^\"]*\" data-points=\"[0-9]*\"" "$TMP/dom.html"; }
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
finish
