#!/usr/bin/env bash
# test_kill9.sh - kill -9 at 12 moments of a run (intervals of 100 ms, so a
# write is in progress often): whatever was written is a valid set: every
# result file present parses (summary.json by jq, report.html whole, the
# CSVs with one column count per file, every hlog line complete), and
# summary.json's intervals agree with intervals.csv.  No server needed.
source "$(dirname "$0")/lib.sh"
F=$SRC/tests/scenarios/fixtures
for i in $(seq 1 12); do
    out=$TMP/k$i
    "$LUAMECH" run "$F/ok.lua" -q -d 5s -i 100ms -u 20 -o "$out" > /dev/null 2>&1 &
    pid=$!
    # from 0.15 s to 2.9 s: before t0 (preflight) up to well into the run
    sleep "$(awk -v i="$i" 'BEGIN { printf "%.3f", 0.15 + (i * 0.23) % 2.75 }')"
    kill -9 "$pid"; wait "$pid" 2>/dev/null
    [ -f "$out/summary.json" ] || { pass "kill $i: killed before the first write (nothing to check)"; continue; }
    check "kill $i: summary.json parses" jq -e .status "$out/summary.json" > /dev/null
    for csv in intervals.csv counters.csv errors.csv; do
        [ -f "$out/$csv" ] || continue
        cols=$(awk -F, '{ print NF }' "$out/$csv" | sort -u | wc -l)
        check "kill $i: $csv has one column count ($cols)" [ "$cols" -le 1 ]
    done
    if [ -f "$out/report.html" ]; then
        check "kill $i: report.html is whole" grep -q "</html>" "$out/report.html"
    fi
    if [ -f "$out/histograms.hlog" ]; then
        bad=$(grep -v '^#\|^"' "$out/histograms.hlog" | grep -cvE '^Tag=[^,]*,[0-9.]+,[0-9.]+,[0-9.]+,HISTF[A-Za-z0-9+/=]+$' || true)
        check "kill $i: every hlog line is complete ($bad incomplete)" [ "$bad" -eq 0 ]
    fi
    if [ -f "$out/intervals.csv" ]; then
        n_json=$(jq '[.timers[] | select(.name == "All Transactions") | .intervals | length] | add // 0' "$out/summary.json")
        n_csv=$(grep -c '^[0-9]*,.*,"All Transactions",' "$out/intervals.csv" || true)
        check "kill $i: intervals in summary.json ($n_json) <= those in intervals.csv ($n_csv)" [ "$n_json" -le "$n_csv" ]
    fi
done
finish
