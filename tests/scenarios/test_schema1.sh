#!/usr/bin/env bash
# test_schema1.sh - results written by a luamech of summary.json schema 1
# (tests/fixtures/schema1, made once by its make.sh: a paced group with
# failures, a tagged HTTP call, 3 s at 1 s; a run and two segments of
# another) are still read by today's report, merge and compare (issue 24:
# schema 2 nests a timer's "(uncorrected)" and "(all)" twins under its
# "views"; readers normalise schema 1, src/report/summary_read.c).
#   report:  one section per timer, each twin a view in its timer's section
#            whose summary cells are the twin's row of the file;
#   merge:   the two segments merge (exit 0), each merged "(all)" and
#            "(uncorrected)" count the sum of the segments';
#   compare: the run against itself, exit 0, its timers matched.
# No server.
. "$(dirname "$0")/lib.sh"
FX=$SRC/tests/fixtures/schema1
cp -r "$FX/run" "$FX/seg-1" "$FX/seg-2" "$TMP/"
check "the fixtures are schema 1 with twins" \
    [ "$(jq -c '[.schema_version, ([.timers[] | select(.uncorrected_of or .all_of)] | length > 5)]' "$TMP/run/summary.json")" = "[1,true]" ]

# ---- report ----
"$LUAMECH" report "$TMP/run" > /dev/null 2> "$TMP/report.err"
check "report exits 0 ($(head -c 300 "$TMP/report.err"))" [ $? -eq 0 ]
H=$TMP/run/report.html S=$FX/run/summary.json
# the expected sections: every timer but the twins (paired by data) and stage timers, by their heading
# (h2 for All Transactions, h3 for the others; a group's timer under its group's name)
want=$(jq -c '[.timers[] | select(.kind != "stage" and (.uncorrected_of | not) and (.all_of | not))
               | if .kind == "group" then .group else .name end] | sort' "$S")
got=$(sed -n 's/^<h[23]>\(.*\)<\/h[23]>$/\1/p' <(sed -n '/<section class="timer"/,/<\/section>/p' "$H") | jq -R . | jq -s -c sort)
check "report: one section per timer, twins not among them ($got)" [ -n "$got" -a "$got" = "$want" ]
check "report: All Transactions, the group and op each with 3 views, the HTTP timers with 2" \
    [ "$(grep -c '<section class="timer" [^>]*data-views="3"' "$H")" = 3 -a \
      "$(grep -c '<section class="timer" [^>]*data-views="2"' "$H")" = 3 ]
# every section's views: heading, view, the cells of its summary row, as JSON lines
awk '
    function js(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); return "\"" s "\"" }
    /^<section class="timer"/ { sec = 1; label = ""; view = "" }
    sec && /^<h[23]>/ { label = $0; sub(/^<h[23]>/, "", label); sub(/<\/h[23]>$/, "", label) }
    sec && /^<div class="view" data-view="/ { view = $0; sub(/^<div class="view" data-view="/, "", view); sub(/".*/, "", view) }
    sec && /<table class="summary">/ && !(label SUBSEP view in seen) {
        seen[label, view] = 1
        row = $0; sub(/.*<tbody><tr>/, "", row); sub(/<\/tr>.*/, "", row)
        n = split(row, c, /<\/td>/); out = ""
        for (i = 1; i < n; i++) { v = c[i]; sub(/^<td[^>]*>/, "", v); out = out (i > 1 ? "," : "") js(v) }
        print "{\"label\":" js(label) ",\"view\":" js(view) ",\"cells\":[" out "]}"
    }
    /^<\/section>/ { sec = 0 }' "$H" > "$TMP/cells.jsonl"
# each view's cells against the file's own row: the timer for corrected / successes, its twin (by
# uncorrected_of / all_of) for uncorrected and all; count and errors exact, latencies to the 3 decimals shown
bad=$(jq -r -s --slurpfile s "$S" '
    $s[0].timers as $T
    | def lbl: if .kind == "group" then .group else .name end;
      def row($lb; $view):
        [$T[] | select(if $view == "uncorrected" then (.uncorrected_of | type) == "string"
                       elif $view == "all" then (.all_of | type) == "string"
                       else (.uncorrected_of | not) and (.all_of | not) end)
              | . as $t | (if $view == "uncorrected" then .uncorrected_of elif $view == "all" then .all_of else .name end) as $of
              | select([$T[] | select(.name == $of and .kind == $t.kind and (.uncorrected_of | not) and (.all_of | not)) | lbl]
                       | index($lb) != null)
              | .summary];
      (if length < 9 then "only \(length) views shown" else empty end),
      (.[] | . as $c | (if .view == "corrected" or .view == "successes" then "default" else .view end) as $v
       | row($c.label; $v) as $r
       | if ($r | length) != 1 then "\($c.label) \($c.view): \($r | length) rows in the file"
         else $r[0] as $sum
         | ([$c.cells[0], $c.cells[2]] | map(tonumber? // .)) as $ce
         | [$c.cells[3:][] | tonumber? // null] as $ms
         | ["min_ms","avg_ms","p50_ms","p80_ms","p90_ms","p95_ms","p99_ms","p99_9_ms","max_ms","stdev_ms"] as $k
         | if $ce != [$sum.count, ($sum.errors | tonumber)] then "\($c.label) \($c.view): count, errors \($ce) in the page, \([$sum.count, $sum.errors]) in the file"
           elif ($ms | length) != 10 or ([range(10) as $i | ($ms[$i] == null and $sum[$k[$i]] == null)
                 or ($ms[$i] != null and $sum[$k[$i]] != null and (($ms[$i] - $sum[$k[$i]]) | fabs) <= 0.0006)] | all | not)
           then "\($c.label) \($c.view): latencies \($c.cells[3:]) in the page, \([$k[] as $x | $sum[$x]]) in the file"
           else empty end
         end)' "$TMP/cells.jsonl" 2>&1)
check "report: each view shows its own row of the file (count, errors, latencies)${bad:+: $bad}" \
    [ -s "$TMP/cells.jsonl" -a -z "$bad" ]
check "report: op's p99 per view: 2 ms over successes, 30 ms over all samples" \
    [ "$(jq -r -s -c '[.[] | select(.label == "op") | "\(.view)=\(.cells[9])"] | join(" ")' "$TMP/cells.jsonl")" = \
      "corrected=2.000 uncorrected=2.000 all=30.000" ]

# ---- merge ----
"$LUAMECH" merge "$TMP/seg-1" "$TMP/seg-2" --out "$TMP/merged" > "$TMP/merge.out" 2>&1
check "merge of the two schema-1 segments exits 0 ($(tail -3 "$TMP/merge.out"))" [ $? -eq 0 ]
M=$TMP/merged/summary.json
for name in "All Transactions" "group paced" op; do
    for v in "" " (uncorrected)" " (all)"; do
        a=$(timer_count "$TMP/seg-1/summary.json" "$name$v") b=$(timer_count "$TMP/seg-2/summary.json" "$name$v")
        m=$(timer_count "$M" "$name$v")
        check "merge: $name$v count $m == the segments' $a + $b" [ "$a" -gt 0 -a "$b" -gt 0 -a "$m" = $((a + b)) ]
    done
done
check "merge: the merged (all) views have the segments' errors (failures at the time they failed)" \
    [ "$(timer_errors "$M" "op (all)")" = $(( $(timer_errors "$TMP/seg-1/summary.json" "op (all)") + $(timer_errors "$TMP/seg-2/summary.json" "op (all)") )) ]
check "merge: the merged op (all) p99 is a failure's 30 ms" \
    [ "$(jqv -r 'include "views"; tview("op (all)") | .summary.p99_ms' "$M")" = 30 ]

# ---- compare ----
"$LUAMECH" compare "$TMP/run" "$FX/run/summary.json" > "$TMP/cmp.out" 2>&1
check "compare of the schema-1 run with itself exits 0 ($(tail -3 "$TMP/cmp.out"))" [ $? -eq 0 ]
check "compare: its timers are matched (op among them), none only on one side" \
    [ "$(grep -c 'only in' "$TMP/cmp.out")" = 0 -a "$(grep -c -x 'op (custom)' "$TMP/cmp.out")" = 1 ]
finish
