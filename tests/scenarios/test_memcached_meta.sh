# memcached's meta protocol (connect's protocol = "meta"): every command of
# the Lua API returns what it returns on the text protocol (mc_api_vu.lua
# with MC_PROTOCOL=meta compares the two clients key by key), the reads
# reach the server as mg (memcached -vv logs each command), and the server's
# own counters (cmd_get, get_hits, get_misses, cmd_set) equal luamech's
# counts, pooled (200 VUs on one connection) and with a connection per VU.
# A server answering meta gets badly (fixtures/hostile_meta.py: a bad VA
# length, too much data, an unsolicited VA, junk, a text reply) gives
# counted protocol errors, never a value it did not ask for, and no crash.
. "$(dirname "$0")/lib.sh"
F=$SRC/tests/scenarios/fixtures
start_memcached PORT

for proto in meta text; do
    "$LUAMECH" run "$F/mc_api.lua" -q -e MEMCACHED=127.0.0.1:$PORT -e MC_PROTOCOL=$proto \
        -o "$TMP/api-$proto" > "$TMP/api-$proto.out" 2>&1
    rc=$?
    s=$TMP/api-$proto/summary.json
    check "api, $proto: run exits 0 ($(tail -2 "$TMP/api-$proto.out"))" [ $rc -eq 0 ]
    check "api, $proto: one transaction, not failed ($(tail -n +2 "$TMP/api-$proto/errors.csv" 2>/dev/null))" \
        [ "$(timer_count "$s" "All Transactions")" -eq 1 -a "$(timer_errors "$s" "All Transactions")" -eq 0 ]
done

# The load: each transaction sets an even key or not, then gets it: even
# keys hit (the value is checked), odd keys miss.
cat > "$TMP/load_vu.lua" <<'LUA'
local mc = assert(luamech.memcached.connect(luamech.param("MEMCACHED"),
  { pool = luamech.param("POOL") == "1", protocol = "meta" }))
local hits, misses = luamech.metrics.counter("hits"), luamech.metrics.counter("misses")
return function()
  local k = luamech.random(1, 1000)
  local key = "meta:" .. k
  if k % 2 == 0 then assert(mc:set(key, "v" .. k, 0, k)) end
  local v, flags = mc:get(key)
  if k % 2 == 0 then
    assert(v == "v" .. k and flags == k, "a hit returns its value and flags")
    hits:add()
  else
    assert(v == nil and flags == "miss", "a miss returns nil, \"miss\"")
    misses:add()
  end
end
LUA
counter() { jq -r --arg n "$2" '[.counters[] | select(.name == $n) | .total] | add // 0' "$1"; }
N=6000
for mode in pooled:1:200 conn:0:20; do
    IFS=: read -r name pool vus <<< "$mode"
    start_memcached MP -vv 2> "$TMP/mc-$name.log"
    printf 'return { requests = %d, groups = { { vus = %d, script = "load_vu.lua" } } }\n' $N "$vus" \
        > "$TMP/load.lua"
    "$LUAMECH" run "$TMP/load.lua" -q -w 1 -e MEMCACHED=127.0.0.1:$MP -e POOL=$pool \
        -o "$TMP/$name" > "$TMP/$name.out" 2>&1
    rc=$?
    s=$TMP/$name/summary.json
    gets=$(timer_count "$s" memcached.get) sets=$(timer_count "$s" memcached.set)
    hits=$(counter "$s" hits) misses=$(counter "$s" misses)
    echo "   $name: $N transactions, $gets gets ($hits hits, $misses misses), $sets sets"
    check "$name: run exits 0 ($(tail -2 "$TMP/$name.out"))" [ $rc -eq 0 ]
    check "$name: $N transactions, none failed" \
        [ "$(timer_count "$s" "All Transactions")" -eq $N -a "$(timer_errors "$s" "All Transactions")" -eq 0 ]
    check "$name: both hits and misses ($hits, $misses)" [ "$hits" -gt 0 -a "$misses" -gt 0 -a $((hits + misses)) -eq $N ]
    check "$name: cmd_get = luamech's gets ($gets)" [ "$(mc_stat "$MP" cmd_get)" -eq "$gets" ]
    check "$name: get_hits = the script's hits" [ "$(mc_stat "$MP" get_hits)" -eq "$hits" ]
    check "$name: get_misses = the script's misses" [ "$(mc_stat "$MP" get_misses)" -eq "$misses" ]
    check "$name: cmd_set = luamech's sets ($sets)" [ "$(mc_stat "$MP" cmd_set)" -eq "$sets" ]
    kill "$(eval echo \$MC_PID_$MP)"; wait "$(eval echo \$MC_PID_$MP)" 2>/dev/null
    check "$name: every get reached the server as mg ($(grep -c '^<[0-9]* mg ' "$TMP/mc-$name.log"))" \
        [ "$(grep -c '^<[0-9]* mg ' "$TMP/mc-$name.log")" -eq "$gets" ]
    fds=$(grep '^<[0-9]* mg ' "$TMP/mc-$name.log" | cut -d' ' -f1 | sort -u | wc -l)
    want=$vus; [ "$pool" = 1 ] && want=1
    check "$name: the gets came over $want connection(s) ($fds)" [ "$fds" -eq "$want" ]
    check "$name: and no text get" [ "$(grep -c '^<[0-9]* gets\? ' "$TMP/mc-$name.log")" -eq 0 ]
    check "$name: the sets stayed text ($sets)" [ "$(grep -c '^<[0-9]* set ' "$TMP/mc-$name.log")" -eq "$sets" ]
done

# ---- hostile servers ----
cat > "$TMP/hostile_vu.lua" <<'LUA'
local mc = assert(luamech.memcached.connect(luamech.param("MC"), { timeout = 1, protocol = "meta" }))
return function()
  local v = mc:get("k")
  local w = mc:get("k")                    -- sent as soon as the first returns
  if v == "z" or w == "z" then error("took the unsolicited value for a reply") end
  luamech.sleep(0.02)
end
LUA
printf 'return { run_time = "2s", interval = "1s", groups = { { vus = 2, script = "hostile_vu.lua" } } }\n' \
    > "$TMP/hostile.lua"
not_grep() { ! grep "$@"; }
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
for mode in badlen shortva trail junk text; do
    "$PY" "$F/hostile_meta.py" $mode "$TMP/h-$mode.port" &
    PIDS+=("$!")
done
for mode in badlen shortva trail junk text; do
    for _ in $(seq 300); do [ -s "$TMP/h-$mode.port" ] && break; sleep 0.05; done
    hp=$(cat "$TMP/h-$mode.port")
    "$LUAMECH" run "$TMP/hostile.lua" -q -e MC=127.0.0.1:$hp -o "$TMP/h-$mode" > "$TMP/h-$mode.out" 2>&1
    rc=$?
    s=$TMP/h-$mode/summary.json
    errs=$(timer_errors "$s" memcached.get)
    answered=$(cat "$TMP/h-$mode.port.count" 2>/dev/null || echo 0)
    echo "   $mode: exit $rc, $errs failed gets, the server answered $answered command lines"
    check "$mode: exit 0 ($(tail -2 "$TMP/h-$mode.out"))" [ $rc -eq 0 ]
    check "$mode: the server was asked" [ "$answered" -gt 0 ]
    check "$mode: failed gets are counted ($errs)" [ "$errs" -gt 0 ]
    check "$mode: as protocol errors" \
        grep -q "protocol error (unparseable or unsolicited reply)" "$TMP/h-$mode/errors.csv"
    check "$mode: no get took a value it did not ask for" \
        not_grep -q "took the unsolicited value" "$TMP/h-$mode/errors.csv"
done

# A server without the meta commands: every get and get_multi fails with its
# ERROR (not a protocol error: the replies still pair with the commands)
cat > "$TMP/old_vu.lua" <<'LUA'
local mc = assert(luamech.memcached.connect(luamech.param("MC"), { timeout = 1, protocol = "meta" }))
return function()
  local v, err = mc:get("k")
  assert(v == nil and err:find(": ERROR$"), "get: " .. tostring(v) .. " " .. tostring(err))
  local t, merr = mc:get_multi({ "a", "b", "c" })
  assert(t == nil and merr:find(": ERROR$"), "get_multi: " .. tostring(t) .. " " .. tostring(merr))
end
LUA
printf 'return { requests = 20, groups = { { vus = 2, script = "old_vu.lua" } } }\n' > "$TMP/old.lua"
"$PY" "$F/hostile_meta.py" old "$TMP/h-old.port" &
PIDS+=("$!")
for _ in $(seq 300); do [ -s "$TMP/h-old.port" ] && break; sleep 0.05; done
"$LUAMECH" run "$TMP/old.lua" -q -e MC=127.0.0.1:$(cat "$TMP/h-old.port") -o "$TMP/h-old" > "$TMP/h-old.out" 2>&1
rc=$?
s=$TMP/h-old/summary.json
check "old server: exit 0 ($(tail -2 "$TMP/h-old.out"))" [ $rc -eq 0 ]
check "old server: 20 transactions, none failed (each asserts the ERROR)" \
    [ "$(timer_count "$s" "All Transactions")" -eq 20 -a "$(timer_errors "$s" "All Transactions")" -eq 0 ]
check "old server: 40 failed requests, all ERROR" [ "$(timer_errors "$s" memcached.get)" -eq 20 -a \
    "$(timer_errors "$s" memcached.get_multi)" -eq 20 ]
check "old server: no protocol error" not_grep -q "protocol error" "$TMP/h-old/errors.csv"
check "old server: 80 command lines answered (20 x (1 + 3))" [ "$(cat "$TMP/h-old.port.count")" -eq 80 ]
finish
