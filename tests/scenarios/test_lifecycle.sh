# setup() runs once before the load (its data reaches every VU of every
# worker), teardown(data) once after (also after SIGINT); a failing setup
# stops the run before any load.  Counted by memcached.
. "$(dirname "$0")/lib.sh"
F=$SRC/tests/scenarios/fixtures
start_memcached PORT
s0=$(mc_stat "$PORT" cmd_set); d0=$(mc_stat "$PORT" delete_hits)
"$LUAMECH" run "$F/lifecycle.lua" -q -e MEMCACHED=127.0.0.1:$PORT -o "$TMP/r1" > "$TMP/out1" 2>&1
rc=$?
check "the run exits 0 (got $rc: $(grep luamech: "$TMP/out1" | tail -1))" [ $rc -eq 0 ]
check "setup ran once: 20 sets" [ $(( $(mc_stat "$PORT" cmd_set) - s0 )) -eq 20 ]
check "teardown ran once with setup's data: 20 deletes hit" [ $(( $(mc_stat "$PORT" delete_hits) - d0 )) -eq 20 ]
S=$TMP/r1/summary.json
check "VUs on both workers read setup's keys: no failed transaction" [ "$(timer_errors "$S" "All Transactions")" -eq 0 ]
check "...and did read (transactions > 50)" [ "$(timer_count "$S" "All Transactions")" -gt 50 ]
check "setup and teardown are not in the load's figures (memcached.set absent)" \
    [ "$(jq '[.timers[] | select(.name=="memcached.set")] | length' "$S")" -eq 0 ]
check "no generated file is left in the results" [ -z "$(ls -A "$TMP/r1" | grep luamech-)" ]

# SIGINT: teardown still runs
s0=$(mc_stat "$PORT" cmd_set); d0=$(mc_stat "$PORT" delete_hits)
"$LUAMECH" run "$F/lifecycle.lua" -q -e RUN_TIME=30s -e MEMCACHED=127.0.0.1:$PORT -o "$TMP/r2" > "$TMP/out2" 2>&1 &
pid=$!
# the interrupt once setup wrote its 20 keys (polled) and the load ran a
# moment, not a fixed 2 s from the launch that a slow start may spend in setup
for _ in $(seq 200); do [ $(( $(mc_stat "$PORT" cmd_set) - s0 )) -ge 20 ] && break; sleep 0.05; done
sleep 0.5; kill -INT $pid; wait $pid; rc=$?
check "interrupted run exits 5 (got $rc)" [ $rc -eq 5 ]
check "teardown ran after the interrupt: 20 deletes" [ $(( $(mc_stat "$PORT" delete_hits) - d0 )) -eq 20 ]

# a failing setup: one message, exit 4, no load, no teardown
g0=$(mc_stat "$PORT" cmd_get); d0=$(mc_stat "$PORT" delete_hits)
"$LUAMECH" run "$F/lifecycle.lua" -q -e FAIL=setup -e MEMCACHED=127.0.0.1:$PORT -o "$TMP/r3" > "$TMP/out3" 2>&1
rc=$?
check "a failing setup exits 4 (got $rc)" [ $rc -eq 4 ]
check "...with one message naming it" grep -q "setup() failed, no load was generated: .*lifecycle.lua:.*the fixture could not be loaded" "$TMP/out3"
check "...and no load (no get)" [ "$(mc_stat "$PORT" cmd_get)" -eq "$g0" ]

# a failing teardown: said, the run's own exit code kept
"$LUAMECH" run "$F/lifecycle.lua" -q -e FAIL=teardown -e MEMCACHED=127.0.0.1:$PORT -o "$TMP/r4" > "$TMP/out4" 2>&1
rc=$?
check "a failing teardown keeps exit 0 (got $rc)" [ $rc -eq 0 ]
check "...and says so" grep -q "teardown() failed: .*cleanup failed" "$TMP/out4"

# setup must be a function
printf 'return { setup = 3, groups = { { vus = 1, script = "lifecycle_vu.lua" } } }\n' > "$TMP/bad.lua"
cp "$F/lifecycle_vu.lua" "$TMP/"
"$LUAMECH" run "$TMP/bad.lua" -q -o "$TMP/r5" > "$TMP/out5" 2>&1
rc=$?
check "setup = 3 exits 3 (got $rc)" [ $rc -eq 3 ]
check "...naming the field" grep -q "setup: expected a function, got number 3" "$TMP/out5"

# setup's data is luamech's own JSON: not bound by res:json()'s limits
# (1,000,000 values by default, docs/http.md#json): 1.1 M values arrive whole
cat > "$TMP/big.lua" <<'EOF'
return { requests = 1, groups = { { name = "g", vus = 1, script = "big_vu.lua" } },
  setup = function() local t = {} for i = 1, 1100000 do t[i] = i end return { ids = t } end }
EOF
cat > "$TMP/big_vu.lua" <<'EOF'
return function()
  local d = luamech.setup_data
  assert(d and #d.ids == 1100000, "setup_data: " .. tostring(d and #d.ids))
end
EOF
"$LUAMECH" run "$TMP/big.lua" -q -o "$TMP/r6" > "$TMP/out6" 2>&1
rc=$?
check "setup data of 1.1 M values reaches the VU whole (exit $rc, $(tail -n +2 "$TMP/r6/errors.csv" 2>/dev/null | head -1))" \
    [ $rc -eq 0 -a "$(timer_errors "$TMP/r6/summary.json" "All Transactions")" -eq 0 ]
# setup and teardown are called by the engine (its lifecycle mode), not
# through a Lua file generated into the results (which quoted the scenario's
# path into dofile([==[...]==])): a scenario folder whose name would end that
# long string changes nothing
Q="$TMP/odd]==]dir"
mkdir -p "$Q" && cp "$F/lifecycle.lua" "$F/lifecycle_vu.lua" "$Q/"
s0=$(mc_stat "$PORT" cmd_set); d0=$(mc_stat "$PORT" delete_hits)
"$LUAMECH" run "$Q/lifecycle.lua" -q -e MEMCACHED=127.0.0.1:$PORT -o "$TMP/r7" > "$TMP/out7" 2>&1
rc=$?
check "a scenario under a folder named ']==]' runs its setup and teardown (exit $rc: $(grep luamech: "$TMP/out7" | tail -1))" \
    [ $rc -eq 0 -a $(( $(mc_stat "$PORT" cmd_set) - s0 )) -eq 20 -a $(( $(mc_stat "$PORT" delete_hits) - d0 )) -eq 20 ]
finish
