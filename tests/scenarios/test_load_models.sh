# Load models against a real memcached: arrival rates achieved within 1%,
# paced VUs, stages at the right times, and a server freeze that raises the
# latency counted from the intended start while the uncorrected figure,
# as closed-loop tools report it, hides it.
. "$(dirname "$0")/lib.sh"
F=$SRC/tests/scenarios/fixtures
start_memcached PORT
within() { awk "BEGIN{d = $1 - $2; if (d < 0) d = -d; exit !(d <= $2 * $3)}"; }   # within A B FRACTION
# The sanitizer build's generator is several times slower: the rate and
# "calm" checks measure the generator, so there they are loosened (10 %) or
# left out, with a note; every correctness check still runs.
SANITIZED=0
ldd "$LUAMECH" 2>/dev/null | grep -q libasan && SANITIZED=1

for rate in 1000 20000; do
    s0=$(mc_stat "$PORT" cmd_set)
    busy_mark
    "$LUAMECH" run "$F/models_rate.lua" -q -w 2 -e RATE=$rate -e MEMCACHED=127.0.0.1:$PORT -o "$TMP/rate$rate" > /dev/null 2>&1
    rc=$?
    s=$TMP/rate$rate/summary.json
    n=$(timer_count "$s" "All Transactions")
    check "rate $rate/s: exit 0 ($rc)" [ $rc -eq 0 ]
    tol=0.01; [ $SANITIZED = 1 ] && tol=0.10
    # the schedule never issues more than it owes (the code's), and on a quiet
    # machine it reaches what it owes (the machine's)
    check "rate $rate/s for 10 s: $n transactions, not above $((rate * 10)) + $tol" awk "BEGIN{exit !($n <= $rate * 10 * (1 + $tol))}"
    check_quiet "rate $rate/s for 10 s: $n transactions, within $tol of $((rate * 10))" "$s" within "$n" $((rate * 10)) $tol
    check "rate $rate/s: the server saw every set ($(( $(mc_stat "$PORT" cmd_set) - s0 )))" [ $(( $(mc_stat "$PORT" cmd_set) - s0 )) -eq "$n" ]
    # per interval (counted by completion, so a start late by a few ms lands
    # in the next one); at 20000/s on 2 CPUs shared with memcached the
    # generator's own scheduling jitter dominates, so only the total is held
    if [ $rate -le 1000 ]; then
        bad=$(jq --argjson r $rate '[.timers[] | select(.name == "All Transactions") | .intervals[] | select((.count - $r) * (.count - $r) > ($r * 0.05) * ($r * 0.05))] | length' "$s")
        check_quiet "rate $rate/s: every 1 s interval within 5% of $rate" "$s" [ "$bad" -eq 0 ]
    fi
    check "rate $rate/s: uncorrected twin reported" [ "$(timer_count "$s" "All Transactions (uncorrected)")" -eq "$n" ]
    [ $rate = 1000 ] && RATE1000_BUSY=$(BUSY_SUMMARY=$s busy_reason)
done

# stages: closed VUs start and stop on the schedule; a ramping rate gives its integral
mkdir -p "$TMP/st"
busy_mark
"$LUAMECH" run "$F/models_stages.lua" -q -w 2 -e OUT="$TMP/st" -e MEMCACHED=127.0.0.1:$PORT -o "$TMP/stages" > /dev/null 2>&1
check "stages: exit 0" [ $? -eq 0 ]
bad=0
for k in 1 2 3 4 5 6 7 8; do
    first=$(head -1 "$TMP/st/vu-$k"); want=$(awk "BEGIN{print ($k - 1) * 0.25}")
    awk "BEGIN{exit !($first >= $want - 0.001 && $first <= $want + 0.08)}" || { echo "VU $k first at $first, want $want"; bad=1; }
done
check_quiet "stages: VU k starts at (k-1) * 0.25 s on the 0 -> 8 ramp" "$TMP/stages/summary.json" [ $bad -eq 0 ]
last8=$(tail -1 "$TMP/st/vu-8"); last3=$(tail -1 "$TMP/st/vu-3")
check_quiet "stages: VU 8 stops on the ramp down by 3.17 s (last start $last8)" "$TMP/stages/summary.json" awk "BEGIN{exit !($last8 <= 3.23)}"
check_quiet "stages: VU 3 runs to the end (last start $last3)" "$TMP/stages/summary.json" awk "BEGIN{exit !($last3 >= 3.85)}"
rn=$(timer_count "$TMP/stages/summary.json" "group ramp")
check_quiet "ramping rate 100 -> 300/s over 2 s then 300/s for 2 s: $rn transactions (integral 1000)" "$TMP/stages/summary.json" within "$rn" 1000 0.01

# a 1 s freeze during a paced run
start_memcached FPORT
eval "fpid=\$MC_PID_$FPORT"
busy_mark
"$LUAMECH" run "$F/models_paced.lua" -q -w 1 --verbose -e MEMCACHED=127.0.0.1:$FPORT -o "$TMP/freeze" > "$TMP/freeze.out" 2>&1 &
pid=$!
sleep 1.5; kill -STOP "$fpid"; sleep 1; kill -CONT "$fpid"
wait $pid
check "freeze: exit 0" [ $? -eq 0 ]
s=$TMP/freeze/summary.json
p99=$(jq '.timers[] | select(.name == "All Transactions") | .summary.p99_ms' "$s")
u99=$(jqv 'include "views"; tview("All Transactions (uncorrected)") | .summary.p99_ms' "$s")
echo "freeze: p99 from the intended start $p99 ms, uncorrected p99 $u99 ms"
check "freeze: corrected p99 shows the 1 s stall (> 500 ms)" awk "BEGIN{exit !($p99 > 500)}"
# (the 10 requests caught in the freeze are 0.5 % of 2000: above p99; the
# bound is half the stall, not a figure a busy machine's stalls can reach:
# counted from the intended start, as the corrected view is, p99 is > 500)
check "freeze: the uncorrected p99 hides it (< 500 ms)" awk "BEGIN{exit !($u99 < 500)}"
n=$(timer_count "$s" "All Transactions")
check_quiet "freeze: paced load kept its schedule: $n transactions of 2000" "$s" within "$n" 2000 0.02
check "freeze: late starts counted" [ "$(jq '.counters[] | select(.name == "engine.late_starts") | .total' "$s")" -gt 100 ]
check "freeze: inner custom timer is corrected too" [ "$(timer_count "$s" "inner (uncorrected)")" -eq "$(timer_count "$s" inner)" ]
ip99=$(jq '.timers[] | select(.name == "inner") | .summary.p99_ms' "$s")
check "freeze: inner timer p99 from the intended start > 500 ms ($ip99)" awk "BEGIN{exit !($ip99 > 500)}"
check "freeze: the report labels both" grep -q "uncorrected (latency from the actual start" "$TMP/freeze.out"
# a generator that is itself the bottleneck is reported as such
"$LUAMECH" run "$F/busy.lua" -q -o "$TMP/busy" > "$TMP/busy.out" 2>&1
check "busy generator: exit 0" [ $? -eq 0 ]
check "busy generator: results marked suspect" [ "$(jq .generator.suspect "$TMP/busy/summary.json")" = true ]
check "busy generator: the report warns" grep -q "WARNING: the generator may have been the bottleneck" "$TMP/busy.out"
if [ $SANITIZED = 0 ]; then
    calm="a calm run is not suspect ($(jq -r .generator.reasons "$TMP/rate1000/summary.json"))"
    if [ "$(jq .generator.suspect "$TMP/rate1000/summary.json")" = false ]; then pass "$calm"; else skip_if_busy "$calm" "$RATE1000_BUSY"; fi
else   # its slow loop is a real dispatch delay on sub-ms latencies: the flag may rightly fire
    echo "note: sanitizer build: the calm-run check is left out (suspect: $(jq -r .generator.reasons "$TMP/rate1000/summary.json"))"
fi
finish
