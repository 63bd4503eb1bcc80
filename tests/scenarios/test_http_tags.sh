# The `tags` option of luamech.http (per request, over the client's
# defaults): each tag set is timed under a tagged timer whose tags are data
# in summary.json (its `tags` object), found here by those fields, never by
# parsing names; its counts, errors and interval rows equal what nginx
# logged for the requests of that tag set; tags.name names the call (k6's
# URL grouping); bad tags are Lua errors (checked in the VU).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_http.sh"
F=$SRC/tests/scenarios/fixtures
start_nginx PORT "$TMP/ng"
L=$TMP/ng/access.log
"$LUAMECH" run "$F/http_tags.lua" -q -e PORT=$PORT -o "$TMP/r" > "$TMP/r.out" 2>&1
rc=$?
nginx_settle "$L"
s=$TMP/r/summary.json
check "exit 0 (got $rc: $(tail -3 "$TMP/r.out"))" [ $rc -eq 0 ]
check "no failed transaction (the bad tags raised as expected)" [ "$(timer_errors "$s" "All Transactions")" -eq 0 ]
# by_tags JSON-OBJECT FIELD [TIMER]: FIELD of TIMER's (default http.get)
# tagged timer whose tags equal the object, selected by its data fields
# (the family, its views aside: views.jq's s2 reads schema 1 and 2 alike)
by_tags() { jqv -r --argjson t "$1" --arg f "$2" --arg of "${3:-http.get}" \
    'include "views"; [s2.timers[] | select(.tagged_of == $of and .tags == $t) | .summary[$f]] | add // 0' "$s"; }
logged() { grep -c "GET $1 HTTP" "$L" || true; }
a=$(by_tags '{"env":"staging","kind":"a"}' count)
echo "tag sets: a=$a b=$(by_tags '{"env":"prod","flag":"true","kind":"b","n":"3"}' count) | nginx: a=$(logged '/hello?set=a') fail=$(logged '/missing?set=fail')"
check "some load" [ "$a" -gt 10 ]
check "env=staging,kind=a: the client's env and the request's kind; its GETs of /hello and /missing (nginx)" \
    [ "$a" -eq $(( $(logged '/hello?set=a') + $(logged '/missing?set=fail') )) ]
check "its errors: the 404s" [ "$(by_tags '{"env":"staging","kind":"a"}' errors)" -eq "$(logged '/missing?set=fail')" ]
check "a request's tag wins over the client's (env=prod), numbers and booleans as strings" \
    [ "$(by_tags '{"env":"prod","flag":"true","kind":"b","n":"3"}' count)" -eq "$(logged '/hello?set=b')" ]
check "tags.name names the call: 'http hello' and its tagged timer" \
    [ "$(timer_count "$s" "http hello")" -eq "$(logged '/hello?set=named')" -a \
      "$(by_tags '{"env":"staging","kind":"a"}' count "http hello")" -eq "$(logged '/hello?set=named')" ]
check "the interval rows of a tagged timer add up to its count" \
    [ "$(jqv -r 'include "views"; [s2.timers[] | select(.tagged_of == "http.get" and .tags == {"env":"staging","kind":"a"}) | .intervals[].count] | add' "$s")" -eq "$a" ]
check "its (all) twin is a view of the tagged timer" \
    [ "$(jqv -r 'include "views"; [s2.timers[] | select(.tagged_of == "http.get" and .tags == {"env":"staging","kind":"a"}) | .views.all.summary.count] | .[0]' "$s")" -eq "$a" ]
check "untagged timers have no tags fields (http.get)" [ "$(jq -r '[.timers[] | select(.name == "http.get") | has("tags") or has("tagged_of")] | .[0]' "$s")" = false ]
check "http.get still counts every GET" [ "$(timer_count "$s" http.get)" -eq "$(grep -c 'GET ' "$L")" ]
check "a threshold names a tagged timer: passed, measured its count" \
    [ "$(jq -r '.thresholds[0] | "\(.passed) \(.measured)"' "$s")" = "true $a" ]
# luamech merge keeps a tagged timer's data fields: two segments (one VU
# each, started together) merged into one result; the merged tag set's
# count is the segments' sum and equals what nginx logged for it.
: > "$L"
at=$(date -u -d "+2 sec" +%Y-%m-%dT%H:%M:%S.%3NZ)
segs=()
for i in 1 2; do
    timeout 60 "$LUAMECH" run "$F/http_tags.lua" -q -e PORT=$PORT --segment $i/2 --start-at "$at" -o "$TMP/seg$i" > "$TMP/seg$i.out" 2>&1 &
    segs+=($!)
done
wait "${segs[@]}"
nginx_settle "$L"
"$LUAMECH" merge "$TMP/seg1" "$TMP/seg2" --out "$TMP/m" > "$TMP/m.out" 2>&1
rc=$?
check "merge of two tagged segments: exit 0 ($rc: $(tail -3 "$TMP/m.out"))" [ $rc -eq 0 ]
s=$TMP/m/summary.json
ma=$(by_tags '{"env":"staging","kind":"a"}' count)
sa=0
for i in 1 2; do s=$TMP/seg$i/summary.json; sa=$((sa + $(by_tags '{"env":"staging","kind":"a"}' count))); done
s=$TMP/m/summary.json
check "merged tagged timer keeps tagged_of and tags: count $ma = segments' $sa = nginx's" \
    [ "$ma" -gt 0 -a "$ma" -eq "$sa" -a "$ma" -eq $(( $(logged '/hello?set=a') + $(logged '/missing?set=fail') )) ]
finish
