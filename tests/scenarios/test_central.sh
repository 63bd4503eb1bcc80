# Central live thresholds (docs/distributed.md "Central thresholds"): 3
# segments (separate processes, each in its own network namespace where the
# machine allows it, else on loopback) against memcached, followed by
# `luamech merge --follow`.  memcached is frozen (SIGSTOP) for 2.5 s at a
# known time: every VU's requests time out (0.25 s, then a 0.25 s pause), about 15 errors per
# segment, 45 in all, so "errors < 30" fails on the whole run while every
# segment's own share passes it.  The follower judges it on the merged data,
# asks every segment to stop; each stops within two intervals of that
# verdict, exits 6 and names the criterion; the merged result names it too,
# exits 6, and its counts equal memcached's.  Then the same run without a
# follower: every segment passes alone and runs to its end (as before).
. "$(dirname "$0")/lib.sh"
F=$SRC/tests/scenarios/fixtures
N=3
jqe() { jq "$@" > /dev/null; }      # check "..." jqe -e FILTER FILE: a jq test, its output dropped
NSS=()
netns_cleanup() { for ns in "${NSS[@]:-}"; do [ -n "$ns" ] && ip netns del "$ns" 2>/dev/null; done; }
trap 'cleanup; netns_cleanup' EXIT
SRV=lmcsrv-$$
central_netns() {   # memcached's namespace behind a bridge, a namespace per segment
    ip netns add "$SRV" && NSS+=("$SRV") && ip -n "$SRV" link set lo up &&
        ip -n "$SRV" link add br0 type bridge && ip -n "$SRV" addr add 10.78.0.1/24 dev br0 &&
        ip -n "$SRV" link set br0 up || return 1
    for i in $(seq $N); do
        local ns=lmcseg$i-$$
        ip netns add "$ns" && NSS+=("$ns") && ip -n "$ns" link set lo up &&
            ip link add "c$i" netns "$ns" type veth peer name "q$i" netns "$SRV" &&
            ip -n "$ns" addr add "10.78.0.$((10 + i))/24" dev "c$i" && ip -n "$ns" link set "c$i" up &&
            ip -n "$SRV" link set "q$i" master br0 && ip -n "$SRV" link set "q$i" up || return 1
    done
}
if [ "$(id -u)" -eq 0 ] && central_netns 2> "$TMP/netns.err"; then
    ip netns exec "$SRV" memcached -l 127.0.0.1,10.78.0.1 -p 11211 -U 0 -u root -t 1 &
    MCPID=$!
    PIDS+=("$MCPID")
    ADDR=10.78.0.1:11211
    stat_mc() { ip netns exec "$SRV" bash -c "$(declare -f mc_stat); mc_stat 11211 $1"; }
    seg_prefix() { echo "ip netns exec lmcseg$1-$$"; }
    echo "note: segments in 3 network namespaces (10.78.0.11-13), memcached at $ADDR"
else
    echo "note: no network namespaces here ($(id -un): $(cat "$TMP/netns.err" 2>/dev/null)): the segments run on loopback"
    start_memcached PORT
    eval "MCPID=\$MC_PID_$PORT"
    ADDR=127.0.0.1:$PORT
    stat_mc() { mc_stat "$PORT" "$1"; }
    seg_prefix() { :; }
fi
for _ in $(seq 50); do [ -n "$(stat_mc pid 2>/dev/null)" ] && break; sleep 0.1; done
check "memcached answers at $ADDR" [ -n "$(stat_mc pid)" ]

# run_segments DIR [follow [nofault]]: the 3 segments from one instant, the fault 0.3 s in
run_segments() {
    local d=$1 follow=${2:-} nofault=${3:-} at i
    mkdir -p "$d"
    at=$(date -u -d '+3 sec' +%Y-%m-%dT%H:%M:%S.%3NZ)
    SEGPIDS=()
    for i in $(seq $N); do
        $(seg_prefix "$i") "$LUAMECH" run "$F/central.lua" -q -s 5 --segment $i/$N --start-at "$at" \
            -e MEMCACHED=$ADDR -o "$d/seg-$i" > "$d/seg$i.out" 2> "$d/seg$i.err" &
        SEGPIDS+=($!)
    done
    if [ -n "$follow" ]; then
        timeout 300 "$LUAMECH" merge --follow "$d"/seg-1 "$d"/seg-2 "$d"/seg-3 --out "$d/merged" \
            ${DASH:+--dashboard 0 --dashboard-linger} > "$d/merge.out" 2> "$d/merge.err" &
        FOLLOWPID=$!
    fi
    sleep 3.3   # the start, then 0.3 s of load
    if [ -z "$nofault" ]; then kill -STOP "$MCPID"; sleep 2.5; kill -CONT "$MCPID"; fi
    [ -n "${LOSE:-}" ] && sleep 1 && kill -9 "${SEGPIDS[$((LOSE - 1))]}"
    SEGRC=()
    for i in $(seq $N); do wait "${SEGPIDS[$((i - 1))]}"; SEGRC+=($?); done
}

# ---- with a follower: the merged verdict stops every segment
g0=$(stat_mc cmd_get)
run_segments "$TMP/f" follow
wait "$FOLLOWPID"; mrc=$?
g1=$(stat_mc cmd_get)
m=$TMP/f/merged/summary.json
check "follow: the follower exits 6 ($mrc)" [ "$mrc" -eq 6 ]
check "follow: it says why it stopped the segments" grep -q 'threshold "errors < 30" failed .* on the merged data of 3 segment(s) at .*: asking every segment to stop' "$TMP/f/merge.err"
req=$TMP/f/seg-1/stop_request.json
check "follow: the stop request is in each segment's directory" [ -f "$req" -a -f "$TMP/f/seg-2/stop_request.json" -a -f "$TMP/f/seg-3/stop_request.json" ]
asked=$(jq -r .requested_unix_ns "$req")
for i in $(seq $N); do
    s=$TMP/f/seg-$i/summary.json
    check "follow: segment $i exits 6 (${SEGRC[$((i - 1))]})" [ "${SEGRC[$((i - 1))]}" -eq 6 ]
    e=$(timer_errors "$s" "All Transactions")
    check "follow: segment $i's own share passes the criterion ($e errors < 30)" [ "$e" -lt 30 ]
    check "follow: segment $i says the merge stopped it" jqe -e '.stopped_by | test("errors < 30.*merged data of 3")' "$s"
    check "follow: segment $i said so on stderr" grep -q "the merge following the segments asks them to stop" "$TMP/f/seg$i.err"
    # its end (t0 + run time) within two intervals (2 s) of the request, and well before the 20 s
    late=$(jq --argjson a "$asked" '(.start_unix_ns + .run_time_s * 1e9 - $a) / 1e9' "$s")
    check "follow: segment $i stopped ${late} s after the request (<= 2 intervals)" awk "BEGIN{exit !($late <= 2.0)}"
    check "follow: segment $i ran $(jq .run_time_s "$s") s of 20" jqe -e '.run_time_s < 15' "$s"
done
check "follow: the merged result names the criterion" jqe -e '.stopped_by | test("threshold \"errors < 30\" failed")' "$m"
check "follow: the merged console says what stopped the run" grep -q '^stopped by: *threshold "errors < 30"' "$TMP/f/merge.out"
me=$(timer_errors "$m" "All Transactions")
check "follow: the merged errors fail it ($me >= 30)" [ "$me" -ge 30 ]
check "follow: merged junit.xml has the failure" grep -q '<failure' "$TMP/f/merged/junit.xml"
# what reached the server: every answered get; a get that timed out was sent,
# and the server may or may not have read it before the client closed
mg=$(jq '[.timers[] | select(.name == "memcached.get") | .summary.count] | add' "$m")
mt=$(jq '[.request_errors[] | select(.message | test(": timeout$")) | .count] | add // 0' "$m")
check "follow: memcached counted $((g1 - g0)) gets: the merged memcached.get's $mg answered, up to $mt timed out more" \
    [ $((g1 - g0)) -ge "$mg" -a $((g1 - g0)) -le $((mg + mt)) ]
check "follow: the merged load shows the segments' VUs (9 at once)" jqe -e '[.load.active_vus[]] | max == 9' "$m"
check "follow: the live progress lines showed the VUs and the segments' states" \
    grep -qE '^3/3 segments \(running 3, done 0, lost 0, waiting 0\): \[.*\] vus +9 ' "$TMP/f/merge.err"

# ---- without a follower: each segment judges its share alone, passes, runs on
run_segments "$TMP/n"
for i in $(seq $N); do
    s=$TMP/n/seg-$i/summary.json
    check "alone: segment $i exits 0 (${SEGRC[$((i - 1))]}): its share passes" [ "${SEGRC[$((i - 1))]}" -eq 0 ]
    check "alone: segment $i ran its 20 s" jqe -e '.run_time_s >= 19.9 and .stopped_by == null' "$s"
done
"$LUAMECH" merge "$TMP"/n/seg-* --out "$TMP/n/merged" > "$TMP/n/merge.out" 2>&1
check "alone: the merge after the fact fails the criterion on the whole (exit $?)" [ $? -eq 6 ]

# ---- a segment lost during the run (killed): the follower says so within 3
# intervals (5 s at least), its state is "lost" in the segments table, the
# merged run ends interrupted (exit 5) instead of silently shrinking
# (with the live dashboard, lingering after the merge: its Segments table in Chromium)
LOSE=2 DASH=1 run_segments "$TMP/l" follow nofault
URL=""
for _ in $(seq 100); do URL=$(grep -o 'http://[^ ]*' "$TMP/l/merge.err" | head -1); [ -n "$URL" ] && break; sleep 0.1; done
for _ in $(seq 300); do grep -q 'Merged from' "$TMP/l/merge.out" 2> /dev/null && break; sleep 0.1; done
check "lost: the follower's dashboard is up ($URL)" [ -n "$URL" ]
if [ -x /usr/bin/chromium ] && [ -n "$URL" ]; then
    if node --experimental-websocket -e 'process.exit(typeof WebSocket === "function" ? 0 : 1)' 2> /dev/null; then
        timeout 60 /usr/bin/chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
            --disable-component-update --disable-sync --remote-allow-origins='*' --user-data-dir="$TMP/chrome2" \
            --window-size=1200,1400 --remote-debugging-port=0 "$URL" > /dev/null 2>&1 &
        chpid=$!
        timeout 50 node --experimental-websocket "$F/cdp_watch.js" "$TMP/chrome2" "$URL" 4 "$TMP/dash.png" > "$TMP/cdp.txt" 2>&1
        kill "$chpid" 2> /dev/null
        [ -n "${KEEP_SHOT:-}" ] && cp "$TMP/dash.png" "$KEEP_SHOT"
        last=$(grep '"done":true' "$TMP/cdp.txt" | tail -1)
        segrows=$(echo "$last" | jq -r '[.last.segments[] | "\(.[0]) \(.[1]) \(.[3])"] | join(";")' 2> /dev/null)
        check "lost: the dashboard lists the 3 segments with their states and counts ($segrows)" \
            python3 -c 'import sys; r = sys.argv[1].split(";"); sys.exit(not (len(r) == 3 and [x.split()[:2] for x in r] == [["1", "done"], ["2", "lost"], ["3", "done"]] and all(int(x.split()[2]) > 0 for x in r)))' "$segrows"
        check "lost: the dashboard's VUs chart has the merged intervals" \
            [ "$(echo "$last" | jq '[.last.series[] | select(startswith("c-vus:active VUs:"))] | length')" -eq 1 ]
        check "lost: no script error on the page" [ "$(echo "$last" | jq -c '[.errors[], (.last.errors | select(. != ""))]')" = "[]" ]
        check "lost: a screenshot of the dashboard was taken" [ -s "$TMP/dash.png" ]
    else
        echo "SKIP: node --experimental-websocket missing: the follower's dashboard is not checked in a browser"
    fi
else
    echo "SKIP: no chromium: the follower's dashboard is not checked in a browser"
fi
pkill -TERM -P "$FOLLOWPID" 2> /dev/null   # the lingering dashboard ends with SIGTERM (the merge under timeout)
wait "$FOLLOWPID"; lrc=$?
check "lost: the others exit 0 (${SEGRC[0]} ${SEGRC[2]}), the killed one 137 (${SEGRC[1]})" \
    [ "${SEGRC[0]}" -eq 0 -a "${SEGRC[2]}" -eq 0 -a "${SEGRC[1]}" -eq 137 ]
check "lost: the follower said segment 2 was lost" grep -q "segment 2 (.*seg-2) wrote nothing for .* s (3 intervals): lost" "$TMP/l/merge.err"
check "lost: its progress lines counted it" grep -qE '^3/3 segments \(running 2, done 0, lost 1, waiting 0\)' "$TMP/l/merge.err"
check "lost: the merge exits 5, interrupted ($lrc)" [ "$lrc" -eq 5 ]
check "lost: the segments table says lost for 2, done for 1 and 3" \
    jqe -e '[.segments[] | .state] == ["done", "lost", "done"]' "$TMP/l/merged/summary.json"

# ---- the follower's mark: a followed segment writes summary.json at every
# interval (the live verdict lags by one interval), an unfollowed one on the
# growing schedule (after the first 16 intervals, when an eighth more have
# closed).  Counted as the snapshots renamed into place (strace) over a 6 s
# run of 100 ms intervals: 60 intervals.
snapshots() {   # snapshots DIR MARK: how many times summary.json was replaced
    local d=$1 mark=$2 pid
    $(seg_prefix 1) strace -f -qq -e trace=rename,renameat,renameat2 -o "$d.strace" \
        "$LUAMECH" run "$F/central.lua" -q -d 6s -i 100ms --segment 1/$N -e MEMCACHED=$ADDR -o "$d" > /dev/null 2>&1 &
    pid=$!
    while kill -0 "$pid" 2> /dev/null; do   # the mark, as the follower leaves it (the run clears a stale one at its start)
        [ "$mark" = 1 ] && [ -d "$d" ] && : > "$d/followed"
        sleep 0.1
    done
    wait "$pid"
    grep -c 'summary.json.tmp.*summary.json"' "$d.strace"
}
if command -v strace > /dev/null; then
    marked=$(snapshots "$TMP/mark1" 1)
    plain=$(snapshots "$TMP/mark0" 0)
    check "followed: summary.json replaced $marked times in 60 intervals of 100 ms (>= 50: at every interval)" [ "$marked" -ge 50 ]
    check "not followed: $plain times (the growing schedule: 29 for 60 intervals)" [ "$plain" -le 32 ]
else
    echo "SKIP: the follower's mark: strace is not installed (apt-get install strace; .ci/setup does)"
fi
finish
