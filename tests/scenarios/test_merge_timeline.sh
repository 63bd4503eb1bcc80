# Merged segments on a timeline (docs/distributed.md, "merge"; issue 27 item
# 4), with two segments of a no-server scenario (fixtures/merge_seed.lua):
#  - merged CPU % of an interval is over the workers of the segments that
#    ran in it: a segment that had not started yet, or had ended, is not
#    counted as an idle worker (segment 2 placed 2 s later: each merged
#    interval's CPU % is the one segment's own);
#  - a phased merge does not print the alignment warning (each segment
#    starts a phase when it ended the one before; --start-at is refused for
#    phased runs), while the segments table keeps misaligned_ms; an
#    unphased merge of the same misalignment still warns.
. "$(dirname "$0")/lib.sh"
F=$SRC/tests/scenarios/fixtures
jqe() { jq "$@" > /dev/null; }
S=$TMP/segs
for i in 1 2; do
    "$LUAMECH" run "$F/merge_seed.lua" -q -e RUN_TIME=2s --segment $i/2 -o "$S/seg-$i" > /dev/null 2>&1 &
done
wait
# segment 2 two seconds later: merged intervals 1-2 are segment 1's, 3-4 segment 2's
cp -r "$S" "$TMP/late"
jq '.start_unix_ns += 2000000000' "$S/seg-2/summary.json" > "$TMP/late/seg-2/summary.json"
"$LUAMECH" merge "$TMP/late/seg-1" "$TMP/late/seg-2" --out "$TMP/late/merged" > /dev/null 2> "$TMP/late.err"
check "late: merged (exit $?)" [ $? -eq 0 ]
m=$TMP/late/merged/summary.json
check "late: segment 2 shifted by 2 intervals" jqe -e '.segments[1].interval_shift == 2' "$m"
for k in 0 1; do
    for i in 1 2; do
        want=$(jq ".generator.intervals[$k].cpu_percent" "$S/seg-$i/summary.json")
        mk=$(( k + (i - 1) * 2 ))
        got=$(jq ".generator.intervals[$mk].cpu_percent" "$m")
        check "late: merged interval $((mk + 1)) CPU % $got == segment $i's own interval $((k + 1)) $want (the other segment not running)" \
            awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; exit !(d < 0.06 && d > -0.06 && b > 0) }'
    done
done
# the same 2 s, 400 ms more: misaligned, the warning is printed
cp -r "$S" "$TMP/mis"
jq '.start_unix_ns += 2400000000' "$S/seg-2/summary.json" > "$TMP/mis/seg-2/summary.json"
"$LUAMECH" merge "$TMP/mis/seg-1" "$TMP/mis/seg-2" --out "$TMP/mis/merged" > /dev/null 2> "$TMP/mis.err"
check "misaligned unphased: the merge warns (exit $?)" grep -q "more than the tolerance, 50 ms" "$TMP/mis.err"

# phased: segment 2 starts 0.4 s after segment 1, so every phase is misaligned
P=$TMP/ph
"$LUAMECH" run "$F/merge_seed_phases.lua" -q --segment 1/2 -o "$P/seg-1" > /dev/null 2>&1 &
sleep 0.4
"$LUAMECH" run "$F/merge_seed_phases.lua" -q --segment 2/2 -o "$P/seg-2" > /dev/null 2>&1
wait
"$LUAMECH" merge "$P/seg-1" "$P/seg-2" --out "$P/merged" > /dev/null 2> "$TMP/ph.err"
check "phased: merged (exit $?)" [ $? -eq 0 ]
mis=$(jq -s -c '[.[] | .segments[] | .misaligned_ms]' "$P/merged/1-one/summary.json" "$P/merged/2-two_b/summary.json")
check "phased: the segments tables keep the misalignment ($mis ms)" \
    jqe -n -e --argjson m "$mis" '[$m[] | fabs] | max > 50'
check "phased: no alignment warning ($(grep -c tolerance "$TMP/ph.err") lines)" bash -c "! grep -q 'tolerance' '$TMP/ph.err'"
finish
