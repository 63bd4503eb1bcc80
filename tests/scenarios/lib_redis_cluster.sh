# lib_redis_cluster.sh - a redis Cluster of 3 masters for the command-line
# tests, sourced after lib.sh and lib_redis.sh: redis-server with
# cluster-enabled on free loopback ports (and their bus ports, +10000),
# joined by redis-cli --cluster create; helpers that sum the nodes' INFO
# commandstats and migrate a slot.

# start_redis_cluster: sets CL_PORTS (3 ports) and CLUSTER ("127.0.0.1:p,...")
start_redis_cluster() {
    local port tries=0
    CL_PORTS=()
    while [ ${#CL_PORTS[@]} -lt 3 ] && [ $tries -lt 30 ]; do
        tries=$((tries + 1))
        port=$((10000 + RANDOM % 20000))
        port_open "$port" || port_open $((port + 10000)) && continue
        mkdir -p "$TMP/cl$port"
        redis_spawn "$port" --cluster-enabled yes --cluster-config-file "$TMP/cl$port/nodes.conf" \
            --cluster-node-timeout 5000 --dir "$TMP/cl$port" && CL_PORTS+=("$port")
    done
    [ ${#CL_PORTS[@]} -eq 3 ] || { echo "cannot start 3 cluster nodes"; exit 1; }
    redis-cli --cluster create "127.0.0.1:${CL_PORTS[0]}" "127.0.0.1:${CL_PORTS[1]}" \
        "127.0.0.1:${CL_PORTS[2]}" --cluster-replicas 0 --cluster-yes > "$TMP/cluster-create.log" 2>&1 ||
        { cat "$TMP/cluster-create.log"; echo "redis-cli --cluster create failed"; exit 1; }
    for _ in $(seq 100); do
        local ok=0
        for port in "${CL_PORTS[@]}"; do
            redis-cli -p "$port" cluster info | grep -q '^cluster_state:ok' && ok=$((ok + 1))
        done
        [ $ok -eq 3 ] && break
        sleep 0.1
    done
    CLUSTER="127.0.0.1:${CL_PORTS[0]},127.0.0.1:${CL_PORTS[1]},127.0.0.1:${CL_PORTS[2]}"
}

# cluster_cmdstat CMD [FIELD]: FIELD (calls, rejected_calls, failed_calls) of
# CMD summed over the nodes still up
cluster_cmdstat() {
    local cmd=$1 field=${2:-calls} sum=0 n port
    for port in "${CL_PORTS[@]}"; do
        n=$(redis-cli -p "$port" info commandstats 2>/dev/null | tr -d '\r' |
            sed -n "s/^cmdstat_$cmd:\(.*,\)*$field=\([0-9]*\).*/\2/p")
        sum=$((sum + ${n:-0}))
    done
    echo "$sum"
}

# cluster_node_id PORT: the node's id
cluster_node_id() { redis-cli -p "$1" cluster myid | tr -d '\r'; }

# cluster_slot_owner SLOT: the port of the master serving SLOT
cluster_slot_owner() {
    local port
    for port in "${CL_PORTS[@]}"; do
        redis-cli -p "$port" cluster nodes | tr -d '\r' | grep myself | awk -v s="$1" '{
            for (i = 9; i <= NF; i++) { if ($i ~ /^\[/) continue
              n = split($i, r, "-"); lo = r[1]; hi = n > 1 ? r[2] : r[1]
              if (s + 0 >= lo + 0 && s + 0 <= hi + 0) found = 1 } }
            END { exit !found }' && { echo "$port"; return; }
    done
}

# cluster_migrate SLOT FROM TO [PAUSE]: move SLOT from port FROM to port TO
# as redis-cli --cluster reshard does (IMPORTING, MIGRATING, MIGRATE key by
# key with PAUSE seconds between keys, then SETSLOT NODE everywhere)
cluster_migrate() {
    local slot=$1 from=$2 to=$3 pause=${4:-0} fid tid port k
    fid=$(cluster_node_id "$from"); tid=$(cluster_node_id "$to")
    redis-cli -p "$to" cluster setslot "$slot" importing "$fid" > /dev/null
    redis-cli -p "$from" cluster setslot "$slot" migrating "$tid" > /dev/null
    while :; do
        # shellcheck disable=SC2207
        k=($(redis-cli -p "$from" cluster getkeysinslot "$slot" 50 | tr -d '\r'))
        [ ${#k[@]} -eq 0 ] && break
        redis-cli -p "$from" migrate 127.0.0.1 "$to" "" 0 5000 KEYS "${k[@]}" > /dev/null
        sleep "$pause"
    done
    for port in "${CL_PORTS[@]}"; do redis-cli -p "$port" cluster setslot "$slot" node "$tid" > /dev/null; done
}

# cluster_counter SUMMARY NAME: a counter's total in summary.json (0 when absent)
cluster_counter() { jq -r --arg n "$2" '[.counters[]? | select(.name == $n) | .total] | add // 0' "$1"; }
