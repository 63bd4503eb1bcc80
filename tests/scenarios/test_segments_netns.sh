# Segments from N network namespaces (docs/distributed.md, "N hosts on one
# machine"): memcached in its own namespace behind a bridge, each of 4
# segments in its own namespace with its own address (10.77.0.11-14), all
# starting at one --start-at instant.  The server sees 4 hosts (its
# established connections come from 4 addresses), and the merged count equals
# memcached's own counter.  Namespaces are created by the test and deleted
# after it; no traffic leaves them.  Skips (exit 0, with the reason) where
# network namespaces cannot be created (not root, no `ip netns`).
. "$(dirname "$0")/lib.sh"
F=$SRC/tests/scenarios/fixtures
N=4
SRV=lmsrv-$$
NSS=()
netns_cleanup() {
    for ns in "${NSS[@]:-}"; do [ -n "$ns" ] && ip netns del "$ns" 2>/dev/null; done
}
trap 'cleanup; netns_cleanup' EXIT
if [ "$(id -u)" -ne 0 ] || ! ip netns add "$SRV" 2> "$TMP/netns.err"; then
    echo "SKIP: cannot create network namespaces here ($(id -un), $(cat "$TMP/netns.err" 2>/dev/null)): needs root and iproute2"
    exit 0
fi
NSS+=("$SRV")
# the bridge in the server's namespace, one veth per segment namespace
netns_setup() {
    ip -n "$SRV" link set lo up && ip -n "$SRV" link add br0 type bridge &&
        ip -n "$SRV" addr add 10.77.0.1/24 dev br0 && ip -n "$SRV" link set br0 up || return 1
    for i in $(seq $N); do
        local ns=lmseg$i-$$
        ip netns add "$ns" && NSS+=("$ns") && ip -n "$ns" link set lo up &&
            ip link add "s$i" netns "$ns" type veth peer name "p$i" netns "$SRV" &&
            ip -n "$ns" addr add "10.77.0.$((10 + i))/24" dev "s$i" && ip -n "$ns" link set "s$i" up &&
            ip -n "$SRV" link set "p$i" master br0 && ip -n "$SRV" link set "p$i" up || return 1
    done
}
if ! netns_setup 2> "$TMP/netns.err"; then
    echo "SKIP: cannot set up bridged namespaces here: $(cat "$TMP/netns.err")"
    exit 0
fi
ip netns exec "$SRV" memcached -l 127.0.0.1,10.77.0.1 -p 11211 -U 0 -u root -t 1 &
PIDS+=($!)
nsmc_stat() { ip netns exec "$SRV" bash -c "$(declare -f mc_stat); mc_stat 11211 $1"; }
for _ in $(seq 50); do [ -n "$(nsmc_stat pid)" ] && break; sleep 0.1; done
check "memcached answers in its namespace" [ -n "$(nsmc_stat pid)" ]
for i in $(seq $N); do
    check "segment namespace $i reaches the server" ip netns exec "lmseg$i-$$" bash -c 'exec 3<>/dev/tcp/10.77.0.1/11211'
done

before=$(nsmc_stat cmd_set)
at=$(date -u -d '+3 sec' +%Y-%m-%dT%H:%M:%S.%3NZ)
pids=()
for i in $(seq $N); do
    ip netns exec "lmseg$i-$$" "$LUAMECH" run "$F/segments.lua" -q -d 2s -s 7 --segment $i/$N --start-at "$at" \
        -e SERVER=10.77.0.1:11211 -o "$TMP/seg-$i" > "$TMP/seg$i.log" 2>&1 &
    pids+=($!)
done
# who is connected to the server, sampled every 0.2 s while the segments run
while kill -0 "${pids[@]}" 2> /dev/null; do
    ip netns exec "$SRV" ss -Htn >> "$TMP/ss.txt" 2>&1
    sleep 0.2
done
peers=$(awk '$1 == "ESTAB" && $4 ~ /:11211$/ {print $5}' "$TMP/ss.txt" | sed 's/:[0-9]*$//' | sort -u)
for i in $(seq $N); do wait "${pids[$((i - 1))]}" || fail "segment $i exited $? ($(tail -2 "$TMP/seg$i.log"))"; done
after=$(nsmc_stat cmd_set)
check "the server saw $N hosts: $(echo $peers)" [ "$(echo $peers)" = "10.77.0.11 10.77.0.12 10.77.0.13 10.77.0.14" ]
"$LUAMECH" merge "$TMP"/seg-* --out "$TMP/merged" > /dev/null 2>&1
check "merge exits 0 ($?)" [ $? -eq 0 ]
merged=$(timer_count "$TMP/merged/summary.json" memcached.set)
check "memcached counted $((after - before)) sets == merged $merged" [ $((after - before)) -eq "$merged" ]
check "the merged run did load ($merged sets)" [ "$merged" -gt 0 ]
check "every segment started on the same interval" bash -c "jq -e '[.segments[].interval_shift] == [0, 0, 0, 0]' '$TMP/merged/summary.json' > /dev/null"
finish
