# luamech.redis in cluster mode against a real 3-master redis Cluster:
# routing and refusals in one transaction; load while a slot migrates (MOVED
# and ASK really happen and are counted; the nodes' INFO commandstats sum to
# luamech's counts); a node down mid-run; connect errors.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_redis.sh"
. "$(dirname "$0")/lib_redis_cluster.sh"
F=$SRC/tests/scenarios/fixtures

start_redis_cluster
start_redis PLAIN
echo "cluster: $CLUSTER, plain redis: $PLAIN"

# 1. The API, one transaction.
"$LUAMECH" run "$F/redis_cluster_api.lua" -q -e CLUSTER="$CLUSTER" -e NOCLUSTER=127.0.0.1:$PLAIN \
    -o "$TMP/a" > "$TMP/stdout_a" 2>&1
check "api run exits 0 ($(grep -m1 -i 'error\|fail' "$TMP/stdout_a"))" [ $? -eq 0 ]
s=$TMP/a/summary.json
check "one transaction, not failed ($(tail -n +2 "$TMP/a/errors.csv" | grep -v CROSSSLOT | head -3))" \
    [ "$(timer_count "$s" "All Transactions")" -eq 1 -a "$(timer_errors "$s" "All Transactions")" -eq 0 ]
check "the cross-slot refusals are tallied errors" grep -q "CROSSSLOT: the keys of MGET are in different slots" "$TMP/a/errors.csv"
n=0; for p in "${CL_PORTS[@]}"; do [ "$(redis_cmdstat "$p" get)" -gt 0 ] && n=$((n + 1)); done
check "every master served GETs" [ "$n" -eq 3 ]
check "nothing was sent for the refused commands (no mget with k1 k2: 1 mget call in all)" \
    [ "$(cluster_cmdstat mget)" -eq 1 -a "$(cluster_cmdstat multi)" -eq 0 ]
check "the plain redis was asked CLUSTER SLOTS once and nothing else" \
    [ "$(redis_cmdstat "$PLAIN" 'cluster|slots')" -eq 1 -a "$(redis_cmdstat "$PLAIN" get)" -eq 0 ]

# 2. Load while the slot of {hot} migrates from its master to another, key
#    batch by key batch (ASK for the keys already moved), then is given to
#    the new master (MOVED at the old one).
slot=$(redis-cli -p "${CL_PORTS[0]}" cluster keyslot hot | tr -d '\r')
from=$(cluster_slot_owner "$slot")
for p in "${CL_PORTS[@]}"; do [ "$p" != "$from" ] && to=$p && break; done
g0=$(cluster_cmdstat get); s0=$(cluster_cmdstat set); cs0=$(cluster_cmdstat 'cluster|slots')
"$LUAMECH" run "$F/redis_cluster_load.lua" -q -w 2 -e RUN_TIME=12s -e CLUSTER="$CLUSTER" \
    -o "$TMP/l" > "$TMP/stdout_l" 2>&1 &
lpid=$!
# the migration once the load runs (the nodes counted 200 gets: polled, not a
# fixed 2 s that a slow start may spend before the first): ASK needs load in it
for _ in $(seq 200); do [ $(( $(cluster_cmdstat get) - g0 )) -ge 200 ] && break; sleep 0.05; done
cluster_migrate "$slot" "$from" "$to" 0.05
echo "slot $slot of {hot} moved from $from to $to: $(redis-cli -p "$to" cluster countkeysinslot "$slot" | tr -d '\r') keys"
wait $lpid
check "load run exits 0 ($(head -3 "$TMP/stdout_l"))" [ $? -eq 0 ]
s=$TMP/l/summary.json
rg=$(timer_count "$s" redis.get); rs=$(timer_count "$s" redis.set)
moved=$(cluster_counter "$s" redis.cluster.moved); ask=$(cluster_counter "$s" redis.cluster.ask)
sg=$(( $(cluster_cmdstat get) - g0 )); ss=$(( $(cluster_cmdstat set) - s0 ))
rej=$(( $(cluster_cmdstat get rejected_calls) + $(cluster_cmdstat set rejected_calls) ))
echo "luamech get=$rg set=$rs moved=$moved ask=$ask | nodes get=$sg set=$ss rejected get+set=$rej"
check "some load was generated" [ "$rg" -gt 500 ]
check "no errors ($(tail -n +2 "$TMP/l/errors.csv" | head -3))" [ "$(timer_errors "$s" "All Transactions")" -eq 0 ]
check "MOVED happened and was counted" [ "$moved" -gt 0 ]
check "ASK happened and was counted" [ "$ask" -gt 0 ]
check "redis.get count == the nodes' cmdstat_get calls" [ "$rg" -eq "$sg" ]
check "redis.set count == the nodes' cmdstat_set calls" [ "$rs" -eq "$ss" ]
check "MOVED + ASK == the nodes' rejected GET and SET calls" [ $((moved + ask)) -eq "$rej" ]
check "ASKING was sent once per ASK" [ "$(cluster_cmdstat asking)" -eq "$ask" ]
check "the slot is served by its new master now" [ "$(cluster_slot_owner "$slot")" = "$to" ]
# 6 cluster clients (4 VUs' own, one pooled per worker) discovered the map
# once each; a MOVED refreshes it (CLUSTER SLOTS again), at most once per MOVED
cs=$(( $(cluster_cmdstat 'cluster|slots') - cs0 ))
check "the map was refreshed after MOVED (CLUSTER SLOTS: $cs = 6 discoveries + 1..$moved refreshes)" \
    [ "$cs" -ge 7 -a "$cs" -le $((6 + moved)) ]

# 3. A node down mid-run: its slots' commands fail, counted, with the node
#    named; the others go on; the run ends normally.
down=${CL_PORTS[2]}
"$LUAMECH" run "$F/redis_cluster_load.lua" -q -e RUN_TIME=4s -e CLUSTER="$CLUSTER" \
    -o "$TMP/d" > "$TMP/stdout_d" 2>&1 &
dpid=$!
sleep 1.5
eval "kill \$REDIS_PID_$down"
wait $dpid
rc=$?
s=$TMP/d/summary.json
check "run with a node killed exits 0 or 3 (errors), not a crash (rc=$rc)" [ "$rc" -eq 0 -o "$rc" -eq 3 ]
check "the failures are tallied with the node's address" grep -q "node 127.0.0.1:$down: " "$TMP/d/errors.csv"
check "transactions went on after the kill" [ "$(timer_count "$s" "All Transactions")" -gt 200 ]

# 4. Connect errors: a node of the map down at connect; no seed answers.
"$LUAMECH" run "$F/redis_cluster_api.lua" -q -e CLUSTER="$CLUSTER" -e NOCLUSTER=127.0.0.1:$PLAIN \
    -o "$TMP/c" > "$TMP/stdout_c" 2>&1
rc=$?
check "a master down at connect: the init fails, exit 4 (rc=$rc)" [ "$rc" -eq 4 ]
check "... naming the node" grep -q "redis.connect .*: server down: node 127.0.0.1:$down: " "$TMP/stdout_c"
"$LUAMECH" run "$F/redis_cluster_api.lua" -q -e CLUSTER="127.0.0.1:$(free_port)" -e NOCLUSTER=127.0.0.1:$PLAIN \
    -o "$TMP/n" > "$TMP/stdout_n" 2>&1
rc=$?
check "no seed answers: exit 4 with 'no seed answered' (rc=$rc)" [ "$rc" -eq 4 -a "$(grep -c "server down: no seed answered" "$TMP/stdout_n")" -ge 1 ]
finish
