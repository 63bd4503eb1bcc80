# The shipped membase scenario, shortened, against a real memcached: what
# luamech reports must match what the server counted (cmd_get, cmd_set).
. "$(dirname "$0")/lib.sh"
start_memcached PORT
out=$TMP/run
"$LUAMECH" run "$SRC/scenarios/membase.lua" -d 3s -r 1s -i 1s -u 10 -w 2 -q \
    -e MEMCACHED=127.0.0.1:$PORT -o "$out" > "$TMP/stdout" 2> "$TMP/stderr"
rc=$?
check "exit code 0 (got $rc)" [ "$rc" -eq 0 ]
s=$out/summary.json
check "summary.json is valid JSON" jq -e . "$s" > /dev/null
gets=$(timer_count "$s" GET); sets=$(timer_count "$s" SET)
pg=$(timer_count "$s" memcached.get); ps=$(timer_count "$s" memcached.set)
tx=$(timer_count "$s" "All Transactions")
cmd_get=$(mc_stat "$PORT" cmd_get); cmd_set=$(mc_stat "$PORT" cmd_set)
echo "GET=$gets SET=$sets memcached.get=$pg memcached.set=$ps tx=$tx | server cmd_get=$cmd_get cmd_set=$cmd_set"
check "some load was generated" [ "$gets" -gt 100 -a "$sets" -gt 100 ]
check "GET timer count == server cmd_get" [ "$gets" -eq "$cmd_get" ]
check "SET timer count == server cmd_set" [ "$sets" -eq "$cmd_set" ]
check "memcached.get primitive == cmd_get" [ "$pg" -eq "$cmd_get" ]
check "memcached.set primitive == cmd_set" [ "$ps" -eq "$cmd_set" ]
check "transactions == GET + SET" [ "$tx" -eq $((gets + sets)) ]
check "no errors" [ "$(timer_errors "$s" "All Transactions")" -eq 0 ]
check "status completed" [ "$(jqr "$s" .status)" = completed ]
check "3 intervals per timer in intervals.csv" [ "$(grep -c '"All Transactions"' "$out/intervals.csv")" -eq 3 ]
sum=$(awk -F, '$4 == "\"All Transactions\"" { s += $6 } END { print s }' "$out/intervals.csv")
check "interval counts add up to the total ($sum)" [ "$sum" -eq "$tx" ]
check "scenario copied" [ -f "$out/scenario/membase.lua" -a -f "$out/scenario/membase_get.lua" -a -f "$out/scenario/membase_set.lua" ]
check "report has the custom timers" grep -q "Custom Timer: GET" "$TMP/stdout"
check "report has the workload table" grep -q "user_group-2" "$TMP/stdout"
check "seed 004's report: the interval details by default (console = \"full\")" [ "$(grep -c "^Interval Details (ms)$" "$TMP/stdout")" -ge 2 ]
# Think time (50 ms per transaction) is not response time.  Were it counted,
# every transaction would take >= 50 ms, so the median would too; the median
# (not p99, which a few stalls of a busy machine reach) is the robust bound.
p50=$(jq -r '.timers[] | select(.name == "All Transactions") | .summary.p50_ms' "$s")
check "transaction p50 ($p50 ms) excludes the 50 ms think time" awk "BEGIN { exit !($p50 < 50) }"
finish
