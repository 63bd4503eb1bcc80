# Timing against ground truth: a delay server (tests/fixtures/delay_server.c)
# holds every response for a known delay and logs when it received and
# answered each request; luamech's rates and latencies are checked against
# that log.  Issue 9 items 6 (rates over the span of their samples), 7
# (paced starts to the microsecond), 8 (dispatch delay and the suspect flag)
# and 10 (luamech.record as given).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_delay.sh"
F=$SRC/tests/scenarios/fixtures/timing
within() { awk "BEGIN{d = $1 - $2; if (d < 0) d = -d; exit !(d <= $2 * $3)}"; }   # within A B FRACTION
# server_rate LOG: responses / (last response - first request), per second
server_rate() { awk 'NR == 1 {a = $1} {b = $3; n++} END {printf "%.3f", n / (b - a)}' "$1"; }

# ---- 6: the last interval's rate is over the span its samples were taken in
for rt in 2.05s 2s; do
    log=$TMP/drain$rt.log
    start_delay_server DPORT "$log"
    "$LUAMECH" run "$F/drain.lua" -q -e BASE=http://127.0.0.1:$DPORT -e RUN_TIME=$rt -o "$TMP/drain$rt" > /dev/null 2>&1
    rc=$?
    s=$TMP/drain$rt/summary.json
    truth=$(server_rate "$log")
    n=$(timer_count "$s" "All Transactions")
    check "drain $rt: exit 0 ($rc), the server answered all $n ($(wc -l < "$log"))" \
        [ $rc -eq 0 -a "$n" -eq "$(wc -l < "$log")" ]
    last=$(jq -r '.timers[] | select(.name == "All Transactions") | .intervals[-1] | "\(.count) \(.period_s) \(.rate)"' "$s")
    set -- $last
    check "drain $rt: last interval rate $3/s ($1 in $2 s) within 25% of the server's $truth/s" within "$3" "$truth" 0.25
    sum_rate=$(jq -r '.timers[] | select(.name == "All Transactions") | .summary.rate' "$s")
    check "drain $rt: summary rate $sum_rate/s within 10% of the server's $truth/s" within "$sum_rate" "$truth" 0.10
    csv=$(awk -F, '$4 == "\"All Transactions\"" {r = $8; e = $3} END {print r, e}' "$TMP/drain$rt/intervals.csv")
    jrate=$(echo "$last" | cut -d' ' -f3)
    set -- $csv
    check "drain $rt: intervals.csv's last rate ($1) is summary.json's ($jrate)" \
        awk "BEGIN{exit !(($1 - $jrate) ^ 2 < 1e-3)}"
    span=$(jq -r '.span_s' "$s")
    check "drain $rt: intervals.csv's last end_s ($2) is the sampling span ($span)" \
        awk "BEGIN{d = $2 - $span; exit !(d * d < 1e-5)}"
    isum=$(jq -r '[.timers[] | select(.name == "All Transactions") | .intervals[].count] | add' "$s")
    check "drain $rt: interval counts add up to the total ($isum, $n)" [ "$isum" -eq "$n" ]
    check "drain $rt: summary period is the span ($span s)" \
        [ "$(jq -r '.timers[] | select(.name == "All Transactions") | .summary.period_s' "$s")" = "$span" ]
done
# ---- 10: luamech.record records the script's own value, as given
"$LUAMECH" run "$F/record.lua" -q -o "$TMP/record" > /dev/null 2>&1
s=$TMP/record/summary.json
p50() { jq -r --arg n "$2" '.timers[] | select(.name == $n) | .summary.p50_ms' "$1"; }
late=$(jq -r '.timers[] | select(.name == "engine.schedule_lag") | .summary.p50_ms' "$s")
check "record: the paced VU fell behind (schedule lag p50 $late ms > 100 ms)" awk "BEGIN{exit !($late > 100)}"
check "record: 'measured' p50 is the 12.3 ms recorded ($(p50 "$s" measured))" [ "$(p50 "$s" measured)" = 12.3 ]
check "record: its twin too ($(p50 "$s" "measured (uncorrected)"))" [ "$(p50 "$s" "measured (uncorrected)")" = 12.3 ]
check "record: a timer of the same transaction still counts from the intended start ($(p50 "$s" timed) ms)" \
    awk "BEGIN{exit !($(p50 "$s" timed) > 100)}"
finish
