#!/usr/bin/env bash
# test_typed_timers.sh - timers carry their group, stage and twin as data
# (summary.json's group, stage, uncorrected_of, all_of; docs/results.md) and
# the reports read those, never the names: groups whose names look like
# another group's timers keep their own spans and sections.  No server.
. "$(dirname "$0")/lib.sh"
F=$SRC/tests/scenarios/fixtures

"$LUAMECH" run "$F/typed_timers.lua" -q -w 1 --verbose -o "$TMP/tt" > "$TMP/tt.out" 2>&1
check "look-alike names: exit 0" [ $? -eq 0 ]
S=$TMP/tt/summary.json
# tm NAME FILTER: FILTER over the timer family NAME (views.jq's s2: a twin,
# paired by its uncorrected_of / all_of, is under its family's .views, not a
# timer of its own; schema 1 and 2 read alike)
tm() { jqv -r --arg n "$1" "include \"views\"; s2.timers[] | select(.name == \$n) | $2" "$S"; }
check "stage 1 of 'a (uncorrected)' is over its own stage (0-1 s), not group a's (0-2 s)" \
    [ "$(tm 'stage 1 a (uncorrected)' '"\(.start_s) \(.end_s)"')" = "0 1" ]
check "... and says so: group 'a (uncorrected)', stage 1, a timer of its own, no views" \
    [ "$(tm 'stage 1 a (uncorrected)' '"\(.group)|\(.stage)|\(.views)"')" = "a (uncorrected)|1|null" ]
check "group a's stage 1 is 0-2 s" [ "$(tm 'stage 1 a' '"\(.start_s) \(.end_s) \(.group) \(.stage)"')" = "0 2 a 1" ]
check "the group timer 'group a (uncorrected)' is group 'a (uncorrected)', nobody's twin" \
    [ "$(tm 'group a (uncorrected)' '"\(.group)|\(.views)|\(.latency_from)"')" = "a (uncorrected)|null|actual start" ]
check "the end report has a section for each group" \
    [ "$(grep -c -x -e 'Group: a' -e 'Group: a (uncorrected)' "$TMP/tt.out")" = 2 ]
check "report.html: the group 'a (uncorrected)' has its own section" grep -q '<h3>a (uncorrected)</h3>' "$TMP/tt/report.html"
check "report.html: ... and no timer shown as another's uncorrected view" \
    [ "$(grep -c 'data-view="uncorrected"' "$TMP/tt/report.html")" = 0 ]
check "report.html: its stage 1 row is over 0-1 s, not marked uncorrected" \
    grep -q '<tr class="stage"><td class="l">a (uncorrected)</td><td>1</td><td>0.000&ndash;1.000</td>' "$TMP/tt/report.html"

"$LUAMECH" run "$F/typed_twins.lua" -q -w 1 -o "$TMP/tw" > /dev/null 2>&1
check "rate group: exit 0" [ $? -eq 0 ]
S=$TMP/tw/summary.json
check "each uncorrected twin is its timer's view (paired by data)" \
    [ "$(jqv -r 'include "views"; [s2.timers[] | select(.views.uncorrected) | "\(.name)<\(.views.uncorrected.latency_from)"] | join(",")' "$S")" = \
      "All Transactions<actual start,group r<actual start,stage 1 r<actual start,stage 2 r<actual start" ]
check "a twin is a view of its timer's group and stage (and span)" \
    [ "$(tm 'stage 2 r' '"\(.group) \(.stage) \(.start_s) \(.end_s) \(.views.uncorrected.summary.count > 0)"')" = "r 2 1 2 true" ]
check "timers with a twin are from the intended start" \
    [ "$(tm 'stage 2 r' .latency_from)" = "intended start" ]
finish
