# Run control: ramp-up timing, --requests budgets, SIGINT (also in the
# preflight: its samples are interval 1), SIGTERM, and a
# memcached killed mid-run.  Each run must leave a complete, valid result set.
. "$(dirname "$0")/lib.sh"
F=$SRC/tests/scenarios/fixtures
start_memcached PORT

# ramp-up: VU i of n starts at i * rampup / n
mkdir -p "$TMP/ramp"
"$LUAMECH" run "$F/rampup.lua" -q -w 2 -e OUT="$TMP/ramp" -o "$TMP/r0" > /dev/null 2>&1
check "ramp-up run exits 0" [ $? -eq 0 ]
bad=0
for i in $(seq 1 10); do
    t=$(cat "$TMP/ramp/start-$i" 2>/dev/null || echo 99)
    want=$(awk "BEGIN{print ($i - 1) * 0.2}")
    awk "BEGIN{exit !($t >= $want && $t <= $want + 0.06)}" || { echo "VU $i started at $t, want $want"; bad=1; }
done
check "10 VUs started at i*0.2 s (never early, at most 60 ms late)" [ $bad -eq 0 ]
active=$(awk -F, '$4 == "\"All Transactions\"" {print $6}' "$TMP/r0/intervals.csv" | head -1)
check "the first interval has fewer transactions than the last (ramp-up)" \
    [ "$active" -lt "$(awk -F, '$4 == "\"All Transactions\"" {c=$6} END{print c}' "$TMP/r0/intervals.csv")" ]

# --requests: exactly N transactions, spread over workers, server agrees
g0=$(mc_stat "$PORT" cmd_get)
"$LUAMECH" run "$F/steady.lua" -q -n 1234 -w 2 -e MEMCACHED=127.0.0.1:$PORT -o "$TMP/r1" > /dev/null 2>&1
check "--requests run exits 0" [ $? -eq 0 ]
check "exactly 1234 transactions" [ "$(timer_count "$TMP/r1/summary.json" "All Transactions")" -eq 1234 ]
check "server saw 1234 gets" [ $(( $(mc_stat "$PORT" cmd_get) - g0 )) -eq 1234 ]
check "--requests alone is not cut at 10 s: run_time_s > 0" \
    awk "BEGIN{exit !($(jq .run_time_s "$TMP/r1/summary.json") > 0)}"

# SIGINT: stop early, exit 5, results complete.  The signal comes 2.5 s
# after memcached saw the run's first get (polled): t = 0 is before it, so
# the run time is at least 2.5 s however slow the start (a fixed 2.5 s from
# the launch gave less than 2 s when the start took over 0.5 s)
g1=$(mc_stat "$PORT" cmd_get)
"$LUAMECH" run "$F/steady.lua" -q -e MEMCACHED=127.0.0.1:$PORT -o "$TMP/r2" > "$TMP/out2" 2>&1 &
pid=$!
for _ in $(seq 200); do [ $(( $(mc_stat "$PORT" cmd_get) - g1 )) -ge 1 ] && break; sleep 0.05; done
sleep 2.5
kill -INT $pid
wait $pid; rc=$?
check "SIGINT exits 5 (got $rc)" [ $rc -eq 5 ]
s=$TMP/r2/summary.json
check "status interrupted" [ "$(jq -r .status "$s")" = interrupted ]
rt=$(jq .run_time_s "$s")
# (at most: the 30 s run would be 30 s without the stop; a busy machine's
# sleep overruns stay far under 10 s)
check "run time from 2.5 s to the stop, well short of 30 s ($rt)" awk "BEGIN{exit !($rt >= 2.5 && $rt < 10)}"
check "the report was printed" grep -q "All Transactions" "$TMP/out2"
check "interrupted: transactions counted" [ "$(timer_count "$s" "All Transactions")" -gt 100 ]
check "intervals.csv covers the run" [ "$(grep -c '"All Transactions"' "$TMP/r2/intervals.csv")" -ge 3 ]

# SIGINT during the preflight: what the init recorded (a set, the dispatch
# delays of the replies, the counters) is interval 1, so the
# intervals add up to the summary (before: engine.dispatch_delay had count
# 2 and no interval row).
sets0=$(mc_stat "$PORT" cmd_set)
"$LUAMECH" run "$F/preflight_slow.lua" -q -e MEMCACHED=127.0.0.1:$PORT -o "$TMP/rp" > "$TMP/outp" 2>&1 &
pid=$!
for _ in $(seq 100); do [ "$(( $(mc_stat "$PORT" cmd_set) - sets0 ))" -ge 1 ] && break; sleep 0.05; done
sleep 0.3
kill -INT $pid
wait $pid; rc=$?
s=$TMP/rp/summary.json
check "SIGINT in the preflight: exit 5 (got $rc)" [ $rc -eq 5 ]
check "SIGINT in the preflight: says it stopped before the load" grep -q "stopping before the load started" "$TMP/outp"
check "SIGINT in the preflight: no transaction" [ "$(timer_count "$s" "All Transactions")" -eq 0 ]
check "SIGINT in the preflight: the init's set is counted" [ "$(timer_count "$s" memcached.set)" -eq 1 ]
bad_rows=$(jq -r '(.timers[] | select(([.intervals[].count] | add // 0) != .summary.count) | "timer \(.name): \([.intervals[].count] | add // 0) in intervals, \(.summary.count) in summary"),
                  (.counters[] | select(([.intervals[]] | add // 0) != .total) | "counter \(.name): \([.intervals[]] | add // 0) in intervals, \(.total) total")' "$s")
echo "SIGINT in the preflight: $(jq -c '[.timers[] | {name, n: .summary.count, rows: [.intervals[].count]}]' "$s")"
check "SIGINT in the preflight: every timer's and counter's intervals add up to its total${bad_rows:+ ($bad_rows)}" [ -z "$bad_rows" ]
check "SIGINT in the preflight: intervals.csv has the rows" [ "$(grep -c '"memcached.set"' "$TMP/rp/intervals.csv")" -eq 1 ]

# SIGTERM: same
"$LUAMECH" run "$F/steady.lua" -q -e MEMCACHED=127.0.0.1:$PORT -o "$TMP/r3" > /dev/null 2>&1 &
pid=$!; sleep 1.5; kill -TERM $pid; wait $pid; rc=$?
check "SIGTERM exits 5 (got $rc)" [ $rc -eq 5 ]
check "SIGTERM: summary valid and interrupted" [ "$(jq -r .status "$TMP/r3/summary.json")" = interrupted ]

# memcached killed mid-run: errors counted, the run completes, results
# written; restarted on the same port: the VUs reconnect and go on.
start_memcached KPORT
eval "kpid=\$MC_PID_$KPORT"
"$LUAMECH" run "$F/steady.lua" -q -e RUN_TIME=5s -e MEMCACHED=127.0.0.1:$KPORT -o "$TMP/r4" > "$TMP/out4" 2>&1 &
pid=$!
# the kill once the run works (memcached counted 100 gets: polled); after the
# restart the count is polled until the run ends (the reconnect backoff has
# doubled to 0.8 s by then, and a busy machine's restart takes a while)
for _ in $(seq 200); do [ "$(mc_stat "$KPORT" cmd_get)" -ge 100 ] && break; sleep 0.05; done
kill -9 "$kpid"
sleep 1
memcached -l 127.0.0.1 -p "$KPORT" -U 0 -u root -t 1 &
PIDS+=($!)
after=0
while kill -0 "$pid" 2>/dev/null; do
    after=$(mc_stat "$KPORT" cmd_get 2>/dev/null); [ "${after:-0}" -gt 100 ] && break; sleep 0.1
done
wait $pid; rc=$?
check "after the restart the VUs reconnected and worked ($after gets before the run's end)" [ "${after:-0}" -gt 100 ]
check "run with a killed server completes (exit $rc)" [ $rc -eq 0 ]
s=$TMP/r4/summary.json
check "status completed" [ "$(jq -r .status "$s")" = completed ]
e=$(timer_errors "$s" "All Transactions")
check "failed transactions were counted ($e)" [ "$e" -gt 0 ]
check "errors.csv names the server and the failure" grep -qE "memcached.(set|get) 127.0.0.1:$KPORT: (connection|server down|end of file)" "$TMP/r4/errors.csv"
check "transactions before the kill succeeded" [ "$(timer_count "$s" memcached.get)" -gt "$(timer_errors "$s" memcached.get)" ]
check "report lists top errors" grep -q "Top errors" "$TMP/out4"
finish
