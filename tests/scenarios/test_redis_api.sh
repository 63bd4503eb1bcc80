# luamech.redis against real redis servers: every Lua-level behaviour in one
# transaction (the script asserts each reply, so any error fails it), counts
# that match the server's INFO commandstats, and a server restarted mid-run.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_redis.sh"
F=$SRC/tests/scenarios/fixtures

# 1. The API, one transaction: TCP, unix socket, AUTH (good and bad), SELECT.
start_redis PORT --unixsocket "$TMP/redis.sock" --unixsocketperm 700
start_redis APORT --requirepass s3cret
"$LUAMECH" run "$F/redis_api.lua" -q -e REDIS=127.0.0.1:$PORT -e REDIS_SOCK="$TMP/redis.sock" \
    -e REDIS_AUTH=127.0.0.1:$APORT -o "$TMP/r" > "$TMP/stdout" 2>&1
check "run exits 0" [ $? -eq 0 ]
s=$TMP/r/summary.json
check "one transaction" [ "$(timer_count "$s" "All Transactions")" -eq 1 ]
check "it did not fail ($(tail -n +2 "$TMP/r/errors.csv" | grep -v 'ERR\|MYERR' | head -3))" \
    [ "$(timer_errors "$s" "All Transactions")" -eq 0 ]
for t in ping set get del exists incr incrby hset hget lpush rpop lrange expire eval mget pipeline; do
    check "redis.$t was timed" [ "$(timer_count "$s" "redis.$t")" -gt 0 ]
done
check "error replies are errors of their timer (redis.incr: 2)" [ "$(timer_errors "$s" redis.incr)" -eq 2 ]
check "successful commands are not errors" [ "$(timer_errors "$s" redis.ping)" -eq 0 -a "$(timer_errors "$s" redis.set)" -eq 0 ]
check "the NOAUTH reply is the one redis.get error" [ "$(timer_errors "$s" redis.get)" -eq 1 ]
check "the pipeline itself did not fail" [ "$(timer_errors "$s" redis.pipeline)" -eq 0 ]
check "errors.csv names the command and the server" \
    grep -q "redis.incr 127.0.0.1:$PORT: ERR value is not an integer" "$TMP/r/errors.csv"
check "the authenticated client reached the password server" [ "$(redis_cmdstat "$APORT" set s3cret)" -eq 1 ]
check "SELECT 5 was sent at connect" [ "$(redis_cmdstat "$PORT" select)" -ge 1 ]

# 2. Several VUs, per-VU and pooled clients, on 2 workers: what luamech
#    reports equals what the server counted.
start_redis CPORT
"$LUAMECH" run "$F/redis_counts.lua" -q -w 2 -e RUN_TIME=2s -e REDIS=127.0.0.1:$CPORT \
    -o "$TMP/c" > "$TMP/stdout_c" 2>&1
check "counts run exits 0" [ $? -eq 0 ]
s=$TMP/c/summary.json
rs=$(timer_count "$s" redis.set); rg=$(timer_count "$s" redis.get)
rp=$(timer_count "$s" redis.pipeline); tx=$(timer_count "$s" "All Transactions")
ss=$(redis_cmdstat "$CPORT" set); sg=$(redis_cmdstat "$CPORT" get)
echo "redis.set=$rs redis.get=$rg redis.pipeline=$rp tx=$tx | server set=$ss get=$sg"
check "some load was generated" [ "$tx" -gt 100 ]
check "redis.set count == server cmdstat_set" [ "$rs" -eq "$ss" ]
check "redis.get count == server cmdstat_get" [ "$rg" -eq "$sg" ]
check "pipeline commands counted per command (set == 3 x transactions)" [ "$rs" -eq $((3 * tx)) ]
check "prepared pipeline commands counted per command (get == 4 x transactions)" [ "$rg" -eq $((4 * tx)) ]
check "two pipelines per transaction" [ "$rp" -eq $((2 * tx)) ]
check "no errors" [ "$(timer_errors "$s" "All Transactions")" -eq 0 ]
check "pooled group ran too" [ "$(timer_count "$s" "group pooled")" -gt 10 ]

# 3. redis killed mid-run, restarted on the same port: errors are counted,
#    the VUs reconnect, the run completes.  The reconnect backoff doubles
#    (100 ms ... 1.6 s by 1.5 s of downtime), so on a loaded machine, where
#    the restart itself takes a while, the first retry after it may come
#    3.1 s after the kill: the count is polled until the run ends.  The kill
#    comes once redis counted 100 sets (polled, not a fixed 1.5 s that a slow
#    start may spend before the first).
start_redis KPORT
eval "kpid=\$REDIS_PID_$KPORT"
"$LUAMECH" run "$F/redis_steady.lua" -q -e RUN_TIME=8s -e REDIS=127.0.0.1:$KPORT -o "$TMP/k" \
    > "$TMP/stdout_k" 2>&1 &
pid=$!
for _ in $(seq 200); do [ "$(redis_cmdstat "$KPORT" set)" -ge 100 ] 2>/dev/null && break; sleep 0.05; done
kill -9 "$kpid"
sleep 1
redis_spawn "$KPORT" || fail "redis restarted on $KPORT"
after=0
while kill -0 "$pid" 2>/dev/null; do
    after=$(redis_cmdstat "$KPORT" set); [ "${after:-0}" -gt 100 ] && break; sleep 0.1
done
wait $pid; rc=$?
check "after the restart the VUs reconnected and worked ($after sets before the run's end)" [ "${after:-0}" -gt 100 ]
check "run with a restarted server exits 0 (got $rc)" [ $rc -eq 0 ]
s=$TMP/k/summary.json
check "status completed" [ "$(jq -r .status "$s")" = completed ]
e=$(timer_errors "$s" "All Transactions")
check "failed transactions were counted ($e)" [ "$e" -gt 0 ]
check "redis.set errors were counted" [ "$(timer_errors "$s" redis.set)" -gt 0 ]
check "errors.csv names the server, the kind and the failure ($(grep -m1 -oE 'redis.(set|get) [^"]*' "$TMP/k/errors.csv"))" \
    grep -qE "redis.(set|get) 127.0.0.1:$KPORT: server down: connection (closed by server|reset by peer|refused)" "$TMP/k/errors.csv"
check "commands before the kill succeeded" [ "$(timer_count "$s" redis.set)" -gt "$(timer_errors "$s" redis.set)" ]
finish
