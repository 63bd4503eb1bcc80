# --mm-results writes multi-mechanize's results.csv: a line per transaction,
# numbered in start order, with the group, time, error and custom timers.
. "$(dirname "$0")/lib.sh"
F=$SRC/tests/scenarios/fixtures
mkdir -p "$TMP/o"
"$LUAMECH" run "$F/lua_api.lua" -q -d 1s --mm-results -e OUT="$TMP/o" -o "$TMP/r" > /dev/null 2>&1
check "run exits 0" [ $? -eq 0 ]
csv=$TMP/r/results.csv
s=$TMP/r/summary.json
check "results.csv exists" [ -f "$csv" ]
check "a line per transaction" [ "$(wc -l < "$csv")" -eq "$(timer_count "$s" "All Transactions")" ]
check "lines numbered 1..N" awk -F, '$1 != NR { exit 1 }' "$csv"
check "lines in start order" awk -F, 'NR > 1 && $2 + 0 < prev { exit 1 } { prev = $2 + 0 }' "$csv"
check "epoch is a wall-clock time" awk -F, '$3 < 1600000000 { exit 1 }' "$csv"
check "failed transactions carry their error" [ "$(grep -c 'boom even' "$csv")" -eq "$(timer_errors "$s" "group failing")" ]
# ('busy': its seconds, 0.02 and more: a busy machine that preempts the 20 ms
# busy wait makes it 0.1 or 0.3, so the value is any number, not "0.0")
check "custom timers as a dict: every successful api line has 'busy'" \
    [ "$(grep -cE "'busy': [0-9]+\.[0-9]+[,}]" "$csv")" -eq $(( $(timer_count "$s" "group api") - $(timer_errors "$s" "group api") )) ]
check "groups named" [ "$(grep -c ',api,' "$csv")" -eq "$(timer_count "$s" "group api")" ]
check "no part files left" [ "$(ls -a "$TMP/r" | grep -c '^\.mm-')" -eq 0 ]
finish
