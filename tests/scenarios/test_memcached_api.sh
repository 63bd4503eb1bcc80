# Every memcached command through the Lua API against a real memcached; the
# script asserts each reply, so any error fails the transaction.
. "$(dirname "$0")/lib.sh"
F=$SRC/tests/scenarios/fixtures
start_memcached PORT
"$LUAMECH" run "$F/mc_api.lua" -q -e MEMCACHED=127.0.0.1:$PORT -o "$TMP/r" > "$TMP/stdout" 2>&1
check "run exits 0" [ $? -eq 0 ]
s=$TMP/r/summary.json
check "one transaction" [ "$(timer_count "$s" "All Transactions")" -eq 1 ]
check "it did not fail ($(cat "$TMP/r/errors.csv" | tail -n +2))" [ "$(timer_errors "$s" "All Transactions")" -eq 0 ]
for cmd in get gets get_multi set add replace append prepend cas delete incr decr touch; do
    check "memcached.$cmd was timed" [ "$(timer_count "$s" "memcached.$cmd")" -gt 0 ]
done
check "negative replies are not timer errors" [ "$(timer_errors "$s" memcached.add)" -eq 0 ]

# A client per transaction, collected each time: connections are closed.
c0=$(mc_stat "$PORT" total_connections)
"$LUAMECH" run "$F/mc_gc.lua" -q -w 1 -e MEMCACHED=127.0.0.1:$PORT -o "$TMP/gc" > /dev/null 2>&1
check "collected clients: run exits 0" [ $? -eq 0 ]
check "collected clients: 300 transactions, no errors" [ "$(timer_count "$TMP/gc/summary.json" "All Transactions")" -eq 300 -a "$(timer_errors "$TMP/gc/summary.json" "All Transactions")" -eq 0 ]
check "collected clients: 300 connections opened" [ $(( $(mc_stat "$PORT" total_connections) - c0 - 1 )) -eq 300 ]
check "collected clients: all of them closed again" [ "$(mc_stat "$PORT" curr_connections)" -le 3 ]

# Two servers: keys are spread over both, and get_multi finds them all.
start_memcached P2
cat > "$TMP/multi_vu.lua" <<'LUA'
local mc = assert(luamech.memcached.connect(luamech.param("SERVERS")))
return function()
  local keys = {}
  for i = 1, 200 do keys[i] = "key:" .. i; assert(mc:set(keys[i], "v" .. i)) end
  local got = mc:get_multi(keys)
  local n = 0
  for k, v in pairs(got) do n = n + 1; assert(v == "v" .. k:sub(5)) end
  assert(n == 200, "get_multi found " .. n)
  assert(#mc:servers() == 2)
end
LUA
printf 'return { requests = 1, groups = { { vus = 1, script = "multi_vu.lua" } } }\n' > "$TMP/multi.lua"
i1=$(mc_stat "$PORT" curr_items)
"$LUAMECH" run "$TMP/multi.lua" -q -e SERVERS=127.0.0.1:$PORT,127.0.0.1:$P2 -o "$TMP/m" > /dev/null 2>&1
check "two-server run exits 0" [ $? -eq 0 ]
check "two-server transaction did not fail" [ "$(timer_errors "$TMP/m/summary.json" "All Transactions")" -eq 0 ]
a=$(( $(mc_stat "$PORT" curr_items) - i1 )); b=$(mc_stat "$P2" curr_items)
echo "server 1 got $a keys, server 2 got $b"
check "both servers got a fair share of the 200 keys" [ "$a" -ge 40 -a "$b" -ge 40 -a $((a + b)) -eq 200 ]

# Pooled clients: the same servers and options share one client (one
# connection at the server); another connect_timeout is another client (the
# old pool key left connect_timeout out: both got the first one's).
cat > "$TMP/pool_vu.lua" <<'LUA'
local S = luamech.param("MEMCACHED")
local a = assert(luamech.memcached.connect(S, { pool = true, timeout = 2 }))
local b = assert(luamech.memcached.connect(S, { pool = true, timeout = 2 }))
local c = assert(luamech.memcached.connect(S, { pool = true, timeout = 2, connect_timeout = 1 }))
assert(rawequal(a, b), "same options: not the same pooled client")
assert(not rawequal(a, c), "another connect_timeout: the same pooled client")
return function() assert(a:set("pool", "1")); assert(c:get("pool") == "1") end
LUA
printf 'return { requests = 1, groups = { { vus = 1, script = "pool_vu.lua" } } }\n' > "$TMP/pool.lua"
c0=$(mc_stat "$PORT" total_connections)
"$LUAMECH" run "$TMP/pool.lua" -q -w 1 -e MEMCACHED=127.0.0.1:$PORT -o "$TMP/pool" > "$TMP/pool.out" 2>&1
rc=$?
check "pooled clients: run exits 0 ($(tail -3 "$TMP/pool.out"))" [ $rc -eq 0 ]
check "pooled clients: two clients, two connections" [ $(( $(mc_stat "$PORT" total_connections) - c0 - 1 )) -eq 2 ]
finish
