# lib_hdrjs.sh - a merged result's percentiles checked against
# hdr-histogram-js (tests/hlog_js) reading the segments' own logs, one after
# another: an independent merge of the same HdrHistogram logs.  Sourced after
# lib.sh by test_segments.sh and test_slurm.sh.

# hdrjs_check_merge MERGED_SUMMARY_JSON SEGMENT_DIR...: for memcached.set and
# All Transactions, the count equals and p50, p90, p99 and max fall in
# hdr-histogram-js's bucket of the same percentile.
hdrjs_check_merge() {
    local m=$1 js=$SRC/tests/hlog_js name p sum tag first=1 d
    shift
    if command -v npm > /dev/null 2>&1 && [ ! -d "$js/node_modules/hdr-histogram-js" ]; then
        if [ ! -d "$TMP/hlog_js/node_modules/hdr-histogram-js" ]; then   # the locked packages into a copy
            mkdir -p "$TMP/hlog_js"
            cp "$js/package.json" "$js/package-lock.json" "$js/hlog_check.js" "$TMP/hlog_js/"
            (cd "$TMP/hlog_js" && npm ci --no-audit --no-fund --loglevel=error) > "$TMP/npm.log" 2>&1 || cat "$TMP/npm.log"
        fi
        js=$TMP/hlog_js
    fi
    if ! command -v node > /dev/null 2>&1 || [ ! -d "$js/node_modules/hdr-histogram-js" ]; then
        fail "hdr-histogram-js could not be installed (npm ci in a copy of tests/hlog_js)"
        return
    fi
    : > "$TMP/hdrjs.hlog"
    for d in "$@"; do
        if [ $first -eq 1 ]; then cat "$d/histograms.hlog" >> "$TMP/hdrjs.hlog"; first=0
        else grep -v '^[#"]' "$d/histograms.hlog" >> "$TMP/hdrjs.hlog"; fi
    done
    node "$js/hlog_check.js" "$TMP/hdrjs.hlog" --json > "$TMP/hdrjs.json"
    for name in "memcached.set" "All Transactions"; do
        sum=$(jqv -c --arg n "$name" 'include "views"; first(tview($n))' "$m")
        tag=$(jq -c --arg n "$name" '.tags[$n]' "$TMP/hdrjs.json")
        check "$name: hdr-histogram-js count $(jq .count <<< "$tag") == merged $(jq .summary.count <<< "$sum")" \
            bash -c 'jq -n -e --argjson s "$1" --argjson t "$2" "\$t.count == \$s.summary.count" > /dev/null' _ "$sum" "$tag"
        for p in p50 p90 p99 max; do
            check "$name: merged $p $(jq -r ".summary.${p}_ms" <<< "$sum") ms in hdr-histogram-js's bucket $(jq -c "[.$p.lo, .$p.hi]" <<< "$tag") us" \
                bash -c 'jq -n -e --argjson s "$1" --argjson t "$2" --arg p "$3" \
                    "(\$s.summary[\$p + \"_ms\"] * 1000 | round) as \$v | \$v >= \$t[\$p].lo and \$v <= \$t[\$p].hi" > /dev/null' \
                _ "$sum" "$tag" "$p"
        done
    done
}
