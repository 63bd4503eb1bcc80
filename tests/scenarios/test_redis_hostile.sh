# Hostile servers cannot crash luamech, make it hold unbounded memory, or keep
# a run past its end (tests/scenarios/fixtures/hostile_redis.py is the fake
# server): a redis reply nobody asked for (after a reply, or on connect) and
# a reply that is not RESP are protocol errors of the connection; a streamed
# 512 MiB bulk and a 2^31-1 element array are refused at their headers.  The
# reply limits against a real redis-server, with its own counts.  A memcached
# server that talks unasked: the "server down" errors name the first cause;
# an unsolicited reply right behind a solicited one (same write) is a
# protocol error, never the reply of the GET the VU sends next.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_redis.sh"
F=$SRC/tests/scenarios/fixtures
not_grep() { ! grep "$@"; }

# hostile MODE: start the fake server; sets HPORT, HSTATS
hostile() {
    local mode=$1 pid
    HSTATS=$TMP/$mode.stats
    python3 "$F/hostile_redis.py" "$mode" "$TMP/$mode.port" "$HSTATS" &
    pid=$!
    PIDS+=("$pid")
    for _ in $(seq 100); do [ -s "$TMP/$mode.port" ] && break; sleep 0.05; done
    HPORT=$(cat "$TMP/$mode.port")
}
stat_of() { awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' "$1"; }

# run_hostile MODE [TIMEOUT]: a 3 s run (graceful_stop 1 s) against it, with
# that request timeout (s, default 1), timed, RSS measured
run_hostile() {
    local mode=$1
    hostile "$mode"
    /usr/bin/time -f '%e %M' -o "$TMP/$mode.time" \
        timeout -s KILL 60 "$LUAMECH" run "$F/hostile_redis.lua" -q -e RUN_TIME=3s -e TIMEOUT="${2:-1}" \
        -e REDIS="127.0.0.1:$HPORT" -o "$TMP/$mode" > "$TMP/$mode.out" 2>&1
    RC=$?
    read -r WALL RSS_KB < <(tail -1 "$TMP/$mode.time")
    echo "$mode: exit $RC, ${WALL}s, max RSS ${RSS_KB} KB, server: $(cat "$HSTATS")"
    check "$mode: exit 0, not an abort (got $RC)" [ "$RC" -eq 0 ]
    check "$mode: summary.json written, run completed" \
        [ "$(jqr "$TMP/$mode/summary.json" .status 2>/dev/null)" = completed ]
}

# 1. replies nobody asked for
run_hostile extra
check "extra: the extra reply is a protocol error, tallied" \
    grep -q "protocol error: a reply nobody asked for" "$TMP/extra/errors.csv"
check "extra: the connection was reset and reconnected (server saw > 1 connection)" \
    [ "$(stat_of "$HSTATS" connections)" -gt 1 ]
check "extra: some GETs succeeded between resets" \
    [ "$(timer_count "$TMP/extra/summary.json" redis.get)" -gt "$(timer_errors "$TMP/extra/summary.json" redis.get)" ]
run_hostile hello
check "hello: the greeting is a protocol error, named in 'server down' errors" \
    grep -q "server down (reconnect backoff not elapsed) after: protocol error: a reply nobody asked for" \
    "$TMP/hello/errors.csv"
run_hostile garbage
check "garbage: not RESP is a protocol error" grep -q "protocol error: Protocol error" "$TMP/garbage/errors.csv"

# 2. replies too big: refused at the header, the run ends on time (a 5 s
#    request timeout: without the limit the bulk would stream for 5 s)
run_hostile bigbulk 5
check "bigbulk: refused at its header" \
    grep -q "reply refused: bulk string of 536870912 bytes (max_reply 67108864)" "$TMP/bigbulk/errors.csv"
check "bigbulk: max RSS < 200 MB (${RSS_KB} KB)" [ "$RSS_KB" -lt 200000 ]
check "bigbulk: ended on time (${WALL}s < 7s)" awk -v w="$WALL" 'BEGIN { exit !(w < 7) }'
run_hostile bigarray
check "bigarray: refused at its header" \
    grep -q "reply refused: more than 1048576 array elements (max_elements 1048576)" "$TMP/bigarray/errors.csv"
check "bigarray: max RSS < 200 MB (${RSS_KB} KB)" [ "$RSS_KB" -lt 200000 ]
check "bigarray: ended on time (${WALL}s < 7s)" awk -v w="$WALL" 'BEGIN { exit !(w < 7) }'
# a max_reply of its own: a stream is cut once the bytes pass it
hostile bigbulk
"$LUAMECH" run "$F/hostile_redis.lua" -q -e RUN_TIME=2s -e REDIS="127.0.0.1:$HPORT" \
    -e MAX_REPLY=1000000000 -o "$TMP/own" > "$TMP/own.out" 2>&1
check "max_reply 1e9 lets a 512 MiB header through, exit 0" [ $? -eq 0 ]
check "... and the 1-second request timeout ends the stream" grep -q "redis.get .*: timeout" "$TMP/own/errors.csv"

# 3. the limits against a real server; counts reconcile with the server's
start_redis PORT
"$LUAMECH" run "$F/redis_limits.lua" -q -e REDIS="127.0.0.1:$PORT" -o "$TMP/lim" > "$TMP/lim.out" 2>&1
check "limits run exits 0" [ $? -eq 0 ]
s=$TMP/lim/summary.json
check "its one transaction passed ($(tail -n +2 "$TMP/lim/errors.csv" | grep -v refused | head -3))" \
    [ "$(timer_errors "$s" "All Transactions")" -eq 0 ]
check "redis.get count == server cmdstat_get ($(timer_count "$s" redis.get))" \
    [ "$(timer_count "$s" redis.get)" -eq "$(redis_cmdstat "$PORT" get)" ]
check "redis.lrange count == server cmdstat_lrange" \
    [ "$(timer_count "$s" redis.lrange)" -eq "$(redis_cmdstat "$PORT" lrange)" ]
check "the refused replies are errors of their timers (get 1, lrange 1, eval 1)" \
    [ "$(timer_errors "$s" redis.get)" -eq 1 -a "$(timer_errors "$s" redis.lrange)" -eq 1 \
      -a "$(timer_errors "$s" redis.eval)" -eq 1 ]

# 4. memcached: a server talking unasked; the first cause is in the tally
hostile mcextra
"$LUAMECH" run "$F/mc_hostile.lua" -q -e MC="127.0.0.1:$HPORT" -o "$TMP/mc" > "$TMP/mc.out" 2>&1
check "mcextra: exit 0" [ $? -eq 0 ]
check "mcextra: 'server down' errors name the first cause ($(tail -n +2 "$TMP/mc/errors.csv" | cut -c1-200 | head -3 | tr '\n' ' '))" \
    grep -q "server down (reconnect backoff not elapsed) after: protocol error" "$TMP/mc/errors.csv"
hostile mctrail
"$LUAMECH" run "$F/mc_hostile.lua" -q -e MC="127.0.0.1:$HPORT" -e BACK_TO_BACK=1 -o "$TMP/mct" > "$TMP/mct.out" 2>&1
check "mctrail: exit 0" [ $? -eq 0 ]
check "mctrail: the trailing reply is a protocol error" \
    grep -q "protocol error (unparseable or unsolicited reply)" "$TMP/mct/errors.csv"
check "mctrail: no GET took it for its reply" not_grep -q "took the unsolicited value" "$TMP/mct/errors.csv"
finish
