# DIR/histograms.hlog, checked by another implementation: the HdrHistogram
# interval log of real runs is decoded with hdr-histogram-js (the TypeScript
# port of HdrHistogram, tests/hlog_js) and must agree with summary.json:
# per timer, the counts of its successful samples, interval by interval, and
# p50/p90/p99/max within HdrHistogram's 3-significant-digit buckets.  Then
# `luamech report DIR --distribution TIMER` in both styles against summary.json
# and against the same listing computed in JavaScript.
. "$(dirname "$0")/lib.sh"

if ! command -v node > /dev/null 2>&1 || ! command -v npm > /dev/null 2>&1; then
    echo "SKIPPED: node and npm are not installed (apt-get install nodejs npm): cannot decode"
    echo "histograms.hlog with hdr-histogram-js"
    exit 0
fi
JS=$SRC/tests/hlog_js
if [ ! -d "$JS/node_modules/hdr-histogram-js" ]; then
    # a clean checkout: install the locked packages into a copy, not the source tree
    mkdir -p "$TMP/hlog_js"
    cp "$JS/package.json" "$JS/package-lock.json" "$JS/hlog_check.js" "$TMP/hlog_js/"
    if ! (cd "$TMP/hlog_js" && npm ci --no-audit --no-fund --loglevel=error) > "$TMP/npm.log" 2>&1; then
        cat "$TMP/npm.log"
        fail "npm ci in a copy of tests/hlog_js"
        finish
    fi
    JS=$TMP/hlog_js
fi

# compare_run DIR: every timer of DIR/summary.json against the decoded log
compare_run() {
    local dir=$1 h=$1/histograms.hlog s=$1/summary.json name sum tag ivs p
    check "$dir: histograms.hlog written" [ -s "$h" ]
    check "header: log format version" grep -qx '#\[Histogram log format version 1.3\]' "$h"
    check "header: the unit is stated" grep -q '^#\[Values and Interval_Max in microseconds' "$h"
    check "header: StartTime" grep -Eq '^#\[StartTime: [0-9]+\.[0-9]{3} \(seconds since epoch\), .+\]$' "$h"
    check "header: BaseTime" grep -Eq '^#\[BaseTime: [0-9]+\.[0-9]{3} \(seconds since epoch\)\]$' "$h"
    check "header: legend" grep -qx '"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"' "$h"
    check "every interval line is tagged, with no space in its tag" \
        bash -c "! grep -v '^[#\"]' '$h' | grep -v '^Tag=[^ ,]*,[0-9.]*,[0-9.]*,[0-9.]*,HISTF[A-Za-z0-9+/=]*\$'"
    if ! node "$JS/hlog_check.js" "$h" --json > "$TMP/hlog.json" 2> "$TMP/hlog.err"; then
        cat "$TMP/hlog.err"
        fail "hdr-histogram-js decodes $h"
        return
    fi
    pass "hdr-histogram-js decodes $h"
    node "$JS/hlog_check.js" "$h"
    local start start_iso
    start=$(jq -r '.start' "$TMP/hlog.json")
    start_iso=$(date -u -d "@${start%.*}" +%Y-%m-%dT%H:%M:%SZ)
    check "StartTime ($start_iso) is the run's t = 0 ($(jqr "$s" .start))" [ "$start_iso" = "$(jqr "$s" .start)" ]
    # the log holds each timer's successes, one tag per timer and view by its
    # flat label ("X (uncorrected)"); "(all)" views are not in it (views.jq's
    # tflat and tview read schema 1 and 2 alike)
    check "one tag per timer" [ "$(jq '.tags | length' "$TMP/hlog.json")" -eq \
        "$(jqv 'include "views"; [tflat | select(.latency_over != "all samples")] | length' "$s")" ]
    while IFS= read -r name; do
        sum=$(jqv -c --arg n "$name" 'include "views"; first(tview($n))' "$s")
        tag=$(jq -c --arg n "$name" '.tags[$n]' "$TMP/hlog.json")
        if [ "$tag" = null ]; then
            fail "timer '$name' is in histograms.hlog"
            continue
        fi
        ivs=$(jq -c '[.intervals[] | .count - .errors]' <<< "$sum")
        check "$name: count $(jq .count <<< "$tag") == count - errors $(jq '.summary.count - .summary.errors' <<< "$sum")" \
            jq -n -e --argjson s "$sum" --argjson t "$tag" '$t.count == $s.summary.count - $s.summary.errors' > /dev/null
        check "$name: per interval $(jq -c .interval_counts <<< "$tag") == $ivs" \
            jq -n -e --argjson t "$tag" --argjson i "$ivs" '$t.interval_counts == $i' > /dev/null
        check "$name: Interval_Max is the exact max ($(jq .interval_max <<< "$tag") us)" \
            jq -n -e --argjson s "$sum" --argjson t "$tag" '$t.interval_max == ($s.summary.max_ms * 1000 | round)' > /dev/null
        for p in p50 p90 p99 max; do
            check "$name: $p $(jq -r ".summary.${p}_ms" <<< "$sum") ms in hdr-histogram-js's bucket $(jq -c "[.$p.lo, .$p.hi]" <<< "$tag") us" \
                jq -n -e --argjson s "$sum" --argjson t "$tag" --arg p "$p" \
                '($s.summary[$p + "_ms"] * 1000 | round) as $v | $v >= $t[$p].lo and $v <= $t[$p].hi' > /dev/null
        done
    done < <(jqv -r 'include "views"; tflat | select(.latency_over != "all samples") | .name' "$s")
}

# check_dist DIR TIMER: `luamech report --distribution` in both styles
check_dist() {
    local dir=$1 name=$2 s=$1/summary.json out
    out=$TMP/ab.txt
    "$LUAMECH" report "$dir" --distribution "$name" --style ab > "$out" 2> "$TMP/ab.err"
    check "$name: report --style ab exits 0" [ $? -eq 0 ]
    cat "$out"
    check "$name: ab header" grep -qx 'Percentage of the requests served within a certain time (ms)' "$out"
    local p v want
    for p in 50 90 99 100; do
        case $p in 100) v=max_ms;; *) v=p${p}_ms;; esac
        want=$(printf '%.3f' "$(jqv -r --arg n "$name" "include \"views\"; first(tview(\$n)) | .summary.$v" "$s")")
        v=$(awk -v p="$p%" '$1 == p { print $2 }' "$out")
        check "$name: ab $p% ($v) == summary.json $want" [ "$v" = "$want" ]
    done
    check "$name: ab 100% is the longest request" grep -q '^ 100%  .* (longest request)$' "$out"
    out=$TMP/redis.txt
    "$LUAMECH" report "$dir" --distribution "$name" > "$out" 2> "$TMP/redis.err"
    check "$name: report --distribution (redis style) exits 0" [ $? -eq 0 ]
    cat "$out"
    local n
    n=$(jqv -r --arg n "$name" 'include "views"; first(tview($n)) | .summary.count - .summary.errors' "$s")
    check "$name: redis header" grep -qx "====== $name ======" "$out"
    check "$name: redis count line ($n)" grep -qE "^  $n requests completed in [0-9.]+ seconds\$" "$out"
    node "$JS/hlog_check.js" "$dir/histograms.hlog" --redis "$name" > "$TMP/redis_js.txt"
    check "$name: redis listing == hdr-histogram-js's" diff <(tail -n +4 "$out") "$TMP/redis_js.txt"
    check "$name: redis listing ends at 100.00%" grep -qE '^100\.00% <= [0-9]+ milliseconds$' <(tail -n 1 "$out")
}

# 1. the membase scenario against a real memcached
start_memcached PORT
out=$TMP/membase
"$LUAMECH" run "$SRC/scenarios/membase.lua" -d 3s -r 1s -i 1s -u 5 -q \
    -e MEMCACHED=127.0.0.1:$PORT -o "$out" > "$TMP/stdout" 2> "$TMP/stderr"
rc=$?
check "membase: exit code 0 (got $rc)" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || cat "$TMP/stderr"
check "membase: some load was generated" [ "$(timer_count "$out/summary.json" GET)" -gt 100 ]
compare_run "$out"
check_dist "$out" "All Transactions"
check_dist "$out" memcached.get

# 2. known latencies over several milliseconds, some failed samples, and a
#    timer name that needs escaping in a tag
cat > "$TMP/known.lua" <<'EOF'
return { name = "known", run_time = "2s", rampup = "0s", interval = "1s", seed = 7,
         groups = { { name = "g", vus = 4, script = "known_vu.lua" } } }
EOF
cat > "$TMP/known_vu.lua" <<'EOF'
local vals = { 0.0004, 0.0009, 0.0015, 0.0030, 0.0042, 0.0123, 0.0999, 0.25 }
return function()
  luamech.record("known, 100% made up", vals[luamech.random(1, #vals)], luamech.random(1, 10) > 1)
  luamech.sleep(0.005)
end
EOF
out=$TMP/known
"$LUAMECH" run "$TMP/known.lua" -q -o "$out" > "$TMP/stdout" 2> "$TMP/stderr"
rc=$?
check "known: exit code 0 (got $rc)" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || cat "$TMP/stderr"
check "known: some samples failed" [ "$(timer_errors "$out/summary.json" "known, 100% made up")" -gt 0 ]
check "known: the tag is percent-encoded" grep -q '^Tag=known%2C%20100%25%20made%20up,' "$out/histograms.hlog"
compare_run "$out"
check_dist "$out" "known, 100% made up"
check "known: redis listing has 7 lines (<= 1, 2, 3, 5, 13, 100, 250 ms)" [ "$(tail -n +4 "$TMP/redis.txt" | wc -l)" -eq 7 ]

"$LUAMECH" report "$out" --distribution "no such timer" > /dev/null 2> "$TMP/err"
rc=$?
check "report --distribution of an unknown timer exits 3 (got $rc)" [ "$rc" -eq 3 ]
check "... and lists the timers" grep -q '"known, 100% made up"' "$TMP/err"
rm "$out/histograms.hlog"
"$LUAMECH" report "$out" --distribution "All Transactions" > /dev/null 2>&1
rc=$?
check "report --distribution without histograms.hlog exits 3 (got $rc)" [ "$rc" -eq 3 ]
finish
