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
# "On time" is against what a broken feature would take, not against the
# machine's speed: the graceful stop is 120 s, so a request that did not time
# out (or a cancel that did not happen) keeps the run 120 s past its 3 s; a
# correct run ends in about 3.5 s, and the bound is 30 s (room for a slow start).
# The freeze comes after the server counted 60 sets (polled), not after a
# fixed sleep that a slow start may spend before the first request.
start_memcached FPORT
eval "fpid=\$MC_PID_$FPORT"
freeze_after_sets() { # freeze_after_sets N SETS0: SIGSTOP memcached once it counted N sets since SETS0 (<= 10 s)
    for _ in $(seq 200); do [ "$(( $(mc_stat "$FPORT" cmd_set) - $2 ))" -ge "$1" ] && break; sleep 0.05; done
    kill -STOP "$fpid"
}
s0=$(mc_stat "$FPORT" cmd_set)
start=$(date +%s.%N)
"$LUAMECH" run "$F/frozen.lua" -q -g 120s -e TIMEOUT=0.5 -e MEMCACHED=127.0.0.1:$FPORT -o "$TMP/c" > /dev/null 2>&1 &
pid=$!
freeze_after_sets 60 "$s0"
wait $pid; rc=$?
end=$(date +%s.%N)
kill -CONT "$fpid"
check "frozen server (timeouts): exit 0 (got $rc)" [ $rc -eq 0 ]
check "frozen server (timeouts): ended within 30 s, not at the 120 s graceful stop ($(awk "BEGIN{print $end - $start}") s)" \
    awk "BEGIN{exit !($end - $start < 30)}"
check "timeouts were counted as errors" grep -q "memcached.set 127.0.0.1:$FPORT: timeout" "$TMP/c/errors.csv"

# Frozen server, long request timeout: the graceful stop cancels in-flight requests.
# The request timeout is 120 s: a run that waited for it would end 120 s late.
s0=$(mc_stat "$FPORT" cmd_set)
start=$(date +%s.%N)
"$LUAMECH" run "$F/frozen.lua" -q -g 500ms -e TIMEOUT=120 -e MEMCACHED=127.0.0.1:$FPORT -o "$TMP/d" > /dev/null 2>&1 &
pid=$!
freeze_after_sets 60 "$s0"
wait $pid; rc=$?
end=$(date +%s.%N)
kill -CONT "$fpid"
check "frozen server (cancel): exit 0 (got $rc)" [ $rc -eq 0 ]
check "frozen server (cancel): ended within 30 s, not at the 120 s request timeout ($(awk "BEGIN{print $end - $start}") s)" \
    awk "BEGIN{exit !($end - $start < 30)}"
check "frozen server (cancel): the in-flight sets were cancelled at the graceful stop" \
    [ "$(jq '[.timers[] | select(.name == "memcached.set") | .views.all.summary.cancelled // 0] | add' "$TMP/d/summary.json")" -ge 1 ]
check "frozen server (cancel): summary written, completed" [ "$(jq -r .status "$TMP/d/summary.json")" = completed ]
check "frozen server (cancel): work before the freeze counted" [ "$(timer_count "$TMP/d/summary.json" memcached.set)" -gt 50 ]
finish
