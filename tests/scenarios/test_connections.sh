# Connection modes seen from the server: one connection per VU by default; a
# pooled client shares one connection per worker and pipelines on it.  And a
# frozen server (SIGSTOP): requests time out or are cancelled at the end of
# the graceful stop, and the run still ends on time with its results.
. "$(dirname "$0")/lib.sh"
F=$SRC/tests/scenarios/fixtures
start_memcached PORT
c0=$(mc_stat "$PORT" total_connections)
"$LUAMECH" run "$F/pool.lua" -q -w 2 -e MEMCACHED=127.0.0.1:$PORT -o "$TMP/a" > /dev/null 2>&1
check "per-VU run exits 0" [ $? -eq 0 ]
c1=$(mc_stat "$PORT" total_connections)
# each stats query above is one connection too
check "per-VU mode: 40 VUs opened 40 connections ($((c1 - c0 - 1)))" [ $((c1 - c0 - 1)) -eq 40 ]
"$LUAMECH" run "$F/pool.lua" -q -w 2 -e POOL=1 -e MEMCACHED=127.0.0.1:$PORT -o "$TMP/b" > /dev/null 2>&1
check "pooled run exits 0" [ $? -eq 0 ]
c2=$(mc_stat "$PORT" total_connections)
check "pool mode: 2 workers opened 2 connections ($((c2 - c1 - 1)))" [ $((c2 - c1 - 1)) -eq 2 ]
g=$(mc_stat "$PORT" cmd_get)
t=$(( $(timer_count "$TMP/a/summary.json" memcached.get) + $(timer_count "$TMP/b/summary.json" memcached.get) ))
check "gets reported in both runs ($t) == server cmd_get ($g)" [ "$t" -eq "$g" ]
check "pooled transactions had no errors" [ "$(timer_errors "$TMP/b/summary.json" "All Transactions")" -eq 0 ]

# Frozen server, short request timeout: timeouts are counted, the run ends on time.
start_memcached FPORT
eval "fpid=\$MC_PID_$FPORT"
start=$(date +%s.%N)
"$LUAMECH" run "$F/frozen.lua" -q -e TIMEOUT=0.5 -e MEMCACHED=127.0.0.1:$FPORT -o "$TMP/c" > /dev/null 2>&1 &
pid=$!
sleep 1; kill -STOP "$fpid"
wait $pid; rc=$?
end=$(date +%s.%N)
kill -CONT "$fpid"
check "frozen server (timeouts): exit 0 (got $rc)" [ $rc -eq 0 ]
check "frozen server (timeouts): ended within 4.5 s" awk "BEGIN{exit !($end - $start < 4.5)}"
check "timeouts were counted as errors" grep -q "memcached.set 127.0.0.1:$FPORT: timeout" "$TMP/c/errors.csv"

# Frozen server, long request timeout: the graceful stop cancels in-flight requests.
start=$(date +%s.%N)
"$LUAMECH" run "$F/frozen.lua" -q -g 500ms -e TIMEOUT=30 -e MEMCACHED=127.0.0.1:$FPORT -o "$TMP/d" > /dev/null 2>&1 &
pid=$!
sleep 1; kill -STOP "$fpid"
wait $pid; rc=$?
end=$(date +%s.%N)
kill -CONT "$fpid"
check "frozen server (cancel): exit 0 (got $rc)" [ $rc -eq 0 ]
check "frozen server (cancel): ended within run time + graceful stop + 1 s" awk "BEGIN{exit !($end - $start < 4.5)}"
check "frozen server (cancel): summary written, completed" [ "$(jq -r .status "$TMP/d/summary.json")" = completed ]
check "frozen server (cancel): work before the freeze counted" [ "$(timer_count "$TMP/d/summary.json" memcached.set)" -gt 50 ]
finish
