#!/usr/bin/env bash
# test_determinism.sh - a fixed-seed run with a transaction budget gives the
# same summary.json, less its times (tests/scenarios/determinism.jq), as the
# code before the middle was reshaped (issue 11): the expected file
# fixtures/determinism.expected.json was written by main's luamech before the
# layering, typed timers and the runner.  A reshaping must not change it; a
# deliberate change of the output updates it with a note in docs/results.md.
# Another seed must give other figures (the comparison bites).  No server.
. "$(dirname "$0")/lib.sh"
F=$SRC/tests/scenarios/fixtures
JQ=$SRC/tests/scenarios/determinism.jq

for i in 1 2; do
    "$LUAMECH" run "$F/determinism.lua" -q -w 1 -n 400 -o "$TMP/r$i" > /dev/null 2>&1
    check "run $i: exit 0" [ $? -eq 0 ]
    jq -f "$JQ" "$TMP/r$i/summary.json" > "$TMP/r$i.json"
    if diff -u "$F/determinism.expected.json" "$TMP/r$i.json" > "$TMP/diff$i"; then pass "run $i: deterministic fields unchanged"
    else fail "run $i: deterministic fields changed:"; head -40 "$TMP/diff$i"; fi
done
"$LUAMECH" run "$F/determinism.lua" -q -w 1 -n 400 -s 8 -o "$TMP/s8" > /dev/null 2>&1
jq -f "$JQ" "$TMP/s8/summary.json" > "$TMP/s8.json"
differs() { ! cmp -s "$1" "$2"; }
check "seed 8: other figures (the comparison would see a change)" differs "$F/determinism.expected.json" "$TMP/s8.json"
finish
