# Many VUs on schedule (issue 13), checked by counts, never by elapsed time:
# - 20,000 VUs sleeping 1 s for 3 s (ramp-up 1 s) on one worker complete
#   about 3 transactions each: at most N x 3 + 1 (a sleep never ends early:
#   a VU started at s ends floor(3 - s) by the stop and one more then, and
#   only the first VU starts at 0), and at least 80 % of that (generous: a
#   busy machine delays wake-ups); every ended sleep is an engine.wake_lag
#   sample and its p99 is reported;
# - the VUs' coroutines exist before the clock starts: the ramp-up's first
#   VU finds them in the worker's Lua heap (before, each was made at its
#   start, in the ramp-up: allocation, page faults and collector work);
# - a ramp-up running behind (300 VU inits of 5 ms CPU each due within
#   0.5 s: 1.5 s of work on one worker) does not hold back the wake-ups of
#   the VUs already running: a ticker VU sleeping 50 ms completes at least
#   half of its 30 due transactions in the 1.5 s run (before, the starts
#   came first: its wake-ups waited for the start backlog and it made 3-4);
# - the worker threads are named lm-worker-N (top -H, perf, bench/idle_vus.sh);
# - the workers' CPU (engine.cpu_us, the generator-health CPU %) counts from
#   t = 0: a preflight spending 0.5 s of CPU before the clock is not in it
#   (a bound on CPU time, not on elapsed time: the 1 s run of one sleeping
#   VU takes milliseconds of CPU, under a sanitizer too; before, interval 1
#   held the 0.5 s, and with the coroutines made before t0 a million VUs'
#   set-up would show as a saturated first interval).
. "$(dirname "$0")/lib.sh"
F=$SRC/tests/scenarios/fixtures
N=20000

busy_mark
"$LUAMECH" run "$F/many_vus.lua" -u $N -r 1s -d 3s -w 1 -q -o "$TMP/r" > "$TMP/out" 2>&1 &
pid=$!
named=0
for _ in $(seq 100); do              # up to 10 s, while it runs
    if grep -qx "lm-worker-1" /proc/$pid/task/*/comm 2>/dev/null; then named=1; break; fi
    kill -0 $pid 2>/dev/null || break
    sleep 0.1
done
wait $pid
rc=$?
check "$N sleeping VUs: exit 0 ($rc; $(tail -c 300 "$TMP/out"))" [ $rc -eq 0 ]
check "the worker thread is named lm-worker-1" [ $named = 1 ]
S=$TMP/r/summary.json
tx=$(timer_count "$S" "All Transactions")
most=$((N * 3 + 1))
check "transactions: $tx of at most $most" [ "$tx" -le $most ]
check_quiet "transactions: $tx, at least 80 % of $most" "$S" [ "$tx" -ge $((most * 8 / 10)) ]
wakes=$(timer_count "$S" "engine.wake_lag")
check "every ended sleep is a wake-up sample: $wakes >= $tx - $N" [ "$wakes" -ge $((tx - N)) -a "$wakes" -le "$tx" ]
p99=$(jq -r '.timers[] | select(.name == "engine.wake_lag") | .summary.p99_ms' "$S")
p99type=$(jq -r '.timers[] | select(.name == "engine.wake_lag") | .summary.p99_ms | type' "$S")
check "wake-up lag p99 is reported ($p99 ms)" [ "$p99type" = number ]
check "intervals.csv has its per-interval rows" grep -q '"engine.wake_lag",engine' "$TMP/r/intervals.csv"
heap=$(jq -r '.gauges[] | select(.name == "heap_kb_at_first_start") | .value' "$S")
check "the coroutines were made before t0: $heap KB of Lua heap at the first ramp-up start (>= $((N / 4)) KB)" \
    [ "${heap:-0}" -ge $((N / 4)) ]

busy_mark
"$LUAMECH" run "$F/slow_starts.lua" -w 1 -q -o "$TMP/s" > "$TMP/out2" 2>&1
rc=$?
check "a ramp-up running behind: exit 0 ($rc; $(tail -c 300 "$TMP/out2"))" [ $rc -eq 0 ]
ticks=$(timer_count "$TMP/s/summary.json" "group ticker")
check_quiet "the ticker kept waking during the start backlog: $ticks transactions (>= 15 of 30 due)" "$TMP/s/summary.json" [ "$ticks" -ge 15 ]
started=$(jq -r '.load.active_vus | max' "$TMP/s/summary.json")
check "slow VUs started meanwhile ($started active at most)" [ "$started" -gt 1 ]
busy_mark
"$LUAMECH" run "$F/setup_cpu.lua" -w 1 -q -o "$TMP/c" > "$TMP/out3" 2>&1
rc=$?
check "a 0.5 s CPU preflight: exit 0 ($rc; $(tail -c 300 "$TMP/out3"))" [ $rc -eq 0 ]
cpu=$(jq -r '[.counters[] | select(.name == "engine.cpu_us") | .total] | add // 0' "$TMP/c/summary.json")
check_quiet "engine.cpu_us counts from t0: $cpu us (< 250000; the preflight spent 500000 before)" "$TMP/c/summary.json" [ "$cpu" -lt 250000 ]
finish
