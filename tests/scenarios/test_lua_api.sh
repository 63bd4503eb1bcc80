# The core Lua API in a real run: timers leave think time out, record(),
# failing transactions counted by message while the VU goes on, per-VU
# globals, reproducible per-VU random streams.
. "$(dirname "$0")/lib.sh"
F=$SRC/tests/scenarios/fixtures
mkdir -p "$TMP/a" "$TMP/b" "$TMP/c"
"$LUAMECH" run "$F/lua_api.lua" -q --verbose -s 42 -e OUT="$TMP/a" -o "$TMP/ra" > "$TMP/stdout" 2>&1
check "run exits 0" [ $? -eq 0 ]
s=$TMP/ra/summary.json
num() { jq -r --arg n "$1" ".timers[] | select(.name == \$n) | .summary.$2" "$s"; }
check "api transactions had no errors" [ "$(num "group api" errors)" -eq 0 ]
check "the sleepy timer never saw the 500 ms sleep (max $(num sleepy max_ms) ms < 250)" awk "BEGIN{exit !($(num sleepy max_ms) < 250)}"
check "the busy timer saw the 20 ms busy wait (min $(num busy min_ms) ms)" awk "BEGIN{exit !($(num busy min_ms) >= 19.5)}"
check "record(0.123) is recorded as 123 ms" awk "BEGIN{p=$(num recorded p50_ms); exit !(p >= 122.9 && p <= 123.2)}"
check "record(..., false) counts failures" [ "$(num recorded_fail errors)" -eq "$(num recorded_fail count)" -a "$(num recorded_fail count)" -gt 0 ]
fc=$(num "group failing" count); fe=$(num "group failing" errors)
check "failing group: about half its $fc transactions failed ($fe)" [ "$fe" -ge $((fc / 2 - 2)) -a "$fe" -le $((fc / 2 + 2)) -a "$fc" -gt 20 ]
check "the error message is tallied with file:line" grep -q "lua_api_fail_vu.lua:4: boom even" "$TMP/ra/errors.csv"
tally=$(jq -r '[.errors[] | select(.message | test("boom even")) | .count] | add' "$s")
check "the tally count ($tally) equals the failed transactions ($fe)" [ "$tally" -eq "$fe" ]
check "transactions exclude sleep: api p50 $(num "group api" p50_ms) ms < 250 (a 500 ms sleep, a 20 ms busy wait)" \
    awk "BEGIN{exit !($(num "group api" p50_ms) < 250)}"
check "4 intervals of 500 ms" [ "$(grep -c '"All Transactions"' "$TMP/ra/intervals.csv")" -eq 4 ]
cp=$(jq '.checks[] | select(.name == "odd iteration") | .passes' "$s"); cf=$(jq '.checks[] | select(.name == "odd iteration") | .fails' "$s")
ac=$(num "group api" count)
check "checks: passes ($cp) + failures ($cf) == api transactions ($ac)" [ $((cp + cf)) -eq "$ac" ]
check "checks: odd iterations pass, even ones fail (4 VUs: 0 <= passes - failures <= 4)" [ $((cp - cf)) -ge 0 -a $((cp - cf)) -le 4 ]
check "checks are in the report" grep -qE "^odd iteration +$cp +$cf" "$TMP/stdout"
# same seed, same streams; other seed, other streams
"$LUAMECH" run "$F/lua_api.lua" -q -d 300ms -s 42 -e OUT="$TMP/b" -o "$TMP/rb" > /dev/null 2>&1
"$LUAMECH" run "$F/lua_api.lua" -q -d 300ms -s 43 -e OUT="$TMP/c" -o "$TMP/rc" > /dev/null 2>&1
check "4 api VUs wrote their random streams" [ "$(ls "$TMP/a" | wc -l)" -eq 4 ]
same=1; for f in "$TMP"/a/random-*; do cmp -s "$f" "$TMP/b/$(basename "$f")" || same=0; done
check "the same seed gives the same per-VU random streams" [ $same -eq 1 ]
differ=0; for f in "$TMP"/a/random-*; do cmp -s "$f" "$TMP/c/$(basename "$f")" || differ=1; done
check "another seed gives other streams" [ $differ -eq 1 ]
check "VU streams differ from each other" [ "$(cat "$TMP"/a/random-* | sort | uniq -d | wc -l)" -eq 0 ]
check "seed is in summary.json" [ "$(jq -r .seed "$s")" = 42 ]
finish
