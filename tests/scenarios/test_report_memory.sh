# report.html of a long run in memory that does not grow with the run's
# length: a real run's summary.json stretched to 300, 1,000 and 30,000
# intervals (fixtures/stretch_summary.py) is rendered with `luamech report`;
# the peak RSS at 30,000 may be at most twice that at 1,000 (reading the
# whole file took 30 times more).  Past HTML_MAX_POINTS (1,000) intervals the
# page merges every K consecutive interval rows into one: counts summed,
# percentiles the highest of the K, each row saying which intervals it holds,
# the arrays still aligned; up to 1,000 the page is as it always was.
. "$(dirname "$0")/lib.sh"

not_grep() { ! grep "$@"; }

F=$SRC/tests/scenarios/fixtures
start_memcached PORT
"$LUAMECH" run "$F/metrics.lua" -q -d 3s -i 1s -e MEMCACHED=127.0.0.1:$PORT -o "$TMP/r" > "$TMP/run.out" 2>&1
check "the run exits 0 ($(tail -c 300 "$TMP/run.out"))" [ $? -eq 0 ]

# peak_rss_kb DIR: luamech report DIR's peak RSS (kB); the exit code in $TMP/rc.
# ASan's quarantine keeps up to 256 MB of freed memory (every interval row
# parsed and freed in turn): capped at 8 MB, as test_hostile.sh does, so that
# in the sanitizer build too the peak RSS is what luamech holds.
peak_rss_kb() {
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=8" python3 -c 'import resource, subprocess, sys
rc = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL).returncode
open(sys.argv[1], "w").write(str(rc))
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$TMP/rc" "$LUAMECH" report "$1"
}

for n in 300 1000 30000; do
    mkdir -p "$TMP/n$n"
    cp "$TMP/r/intervals.csv" "$TMP/n$n/" 2>/dev/null
    timeout 300 python3 "$F/stretch_summary.py" "$TMP/r/summary.json" "$TMP/n$n/summary.json" $n
    check "stretched to $n intervals" [ -s "$TMP/n$n/summary.json" ]
    rss=$(peak_rss_kb "$TMP/n$n")
    eval "RSS$n=$rss"
    check "luamech report of $n intervals exits 0" [ "$(cat "$TMP/rc")" = 0 ]
    echo "peak RSS rendering $n intervals: $rss kB (summary.json $(( $(stat -c %s "$TMP/n$n/summary.json") / 1024 )) kB)"
done
check "30,000 intervals take at most twice the memory of 1,000 ($RSS30000 kB vs $RSS1000 kB)" \
    [ "$RSS30000" -le $((2 * RSS1000)) ]

# the embedded copy of summary.json in the page, and its checks
embedded() { # embedded DIR: the JSON inside <script id="summary-data">
    python3 -c 'import sys
h = open(sys.argv[1]).read()
a = h.index("id=\"summary-data\">") + len("id=\"summary-data\">")
print(h[a:h.index("</script>", a)])' "$1/report.html"
}
embedded "$TMP/n300" > "$TMP/e300.json"
embedded "$TMP/n30000" > "$TMP/e30000.json"
check "300 intervals: every row as it is" [ "$(jq -c '.timers' "$TMP/e300.json")" = "$(jq -c '.timers' "$TMP/n300/summary.json")" ]
check "300 intervals: no merged note" not_grep -q 'merged-note' "$TMP/n300/report.html"
check "300 intervals: 300 interval rows titled so" grep -q 'Interval details (300 intervals, ms)' "$TMP/n300/report.html"
check "1,000 intervals (the most not merged): no merged note" not_grep -q 'merged-note' "$TMP/n1000/report.html"
E=$TMP/e30000.json
check "30,000 intervals: the note says 30 are merged into one row" \
    grep -q 'id="merged-note">A long run: the per-interval tables and charts show every 30 consecutive' "$TMP/n30000/report.html"
check "30,000 intervals: 1,000 rows per timer" [ "$(jq '[.timers[].intervals | length] | unique' -c "$E")" = "[1000]" ]
check "the generator's and the load's rows stay aligned with the timers'" \
    [ "$(jq -c '[(.generator.intervals | length), (.load.active_vus | length), (.load.groups[].targets | length), (.counters[].intervals | length)] | unique' "$E")" = "[1000]" ]
# one pass of jq over the 100 MB file: the sums and the second merged row's period
jq -c '[([.timers[0].intervals[].count] | add), [.counters[] | [.intervals[]] | add],
        ([.timers[0].intervals[30:60][].period_s] | add * 1000 | round)]' "$TMP/n30000/summary.json" > "$TMP/whole"
check "the counts are all there (sum of the merged rows = sum of the 30,000)" \
    [ "$(jq '[.timers[0].intervals[].count] | add' "$E")" -eq "$(jq '.[0]' "$TMP/whole")" ]
check "the counters' per-interval sums are all there" \
    [ "$(jq -c '[.counters[] | [.intervals[]] | add]' "$E")" = "$(jq -c '.[1]' "$TMP/whole")" ]
check "a merged row's p99 is the highest of its 30 (intervals 31-60: 59)" \
    [ "$(jq '.timers[0].intervals[1].p99_ms' "$E")" = 59 ]
check "a merged row's period is the sum of its 30" \
    [ "$(jq '.timers[0].intervals[1].period_s * 1000 | round' "$E")" = "$(jq '.[2]' "$TMP/whole")" ]
check "the last row holds intervals 29,971-30,000" \
    [ "$(jq -c '.timers[0].intervals[-1] | [.first_interval, .intervals_merged]' "$E")" = "[29971,30]" ]
check "the table numbers the merged rows" grep -q '<tr class="ivrow"><td>29971&ndash;30000</td>' "$TMP/n30000/report.html"
check "the details title counts intervals and rows" \
    grep -q 'Interval details (30000 intervals in 1000 merged rows, ms)' "$TMP/n30000/report.html"
check "gauges: the lowest and highest as in the short run" \
    [ "$(grep -A3 '<h3>Gauges' "$TMP/n30000/report.html" | tail -1)" = "$(grep -A3 '<h3>Gauges' "$TMP/n300/report.html" | tail -1)" ]
finish
