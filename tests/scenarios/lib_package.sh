# lib_package.sh - helpers of the packaging tests (test_package.sh,
# test_static.sh), sourced after lib.sh.

# build_dir: the CMake build directory holding $LUAMECH
build_dir() {
    local b
    b=$(cd "$(dirname "$LUAMECH")" && pwd)
    while [ ! -f "$b/CMakeCache.txt" ] && [ "$b" != / ]; do b=$(dirname "$b"); done
    echo "$b"
}

# membase_run LABEL WORKDIR HOST_OUT OUT SCENARIO CMD...: runs the shipped
# membase scenario (shortened) as `CMD run SCENARIO ... -o OUT` from WORKDIR
# (outside the source tree) against a fresh memcached, and checks that the
# server counted what the run reports (HOST_OUT: OUT as seen from here).
membase_run() {
    local label=$1 wd=$2 hout=$3 out=$4 scenario=$5 port MB_PORT rc s gets sets cmd_get cmd_set
    shift 5
    start_memcached MB_PORT   # (start_memcached has a local named port)
    port=$MB_PORT
    mkdir -p "$wd"
    (cd "$wd" && timeout 120 "$@" run "$scenario" -d 2s -r 1s -i 1s -u 4 -w 1 -q \
        -e MEMCACHED=127.0.0.1:$port -o "$out" > "$TMP/membase.stdout" 2> "$TMP/membase.stderr")
    rc=$?
    check "$label: exit code 0 (got $rc; $(tail -c 300 "$TMP/membase.stderr"))" [ "$rc" -eq 0 ]
    s=$hout/summary.json
    gets=$(timer_count "$s" GET 2>/dev/null); sets=$(timer_count "$s" SET 2>/dev/null)
    cmd_get=$(mc_stat "$port" cmd_get); cmd_set=$(mc_stat "$port" cmd_set)
    echo "$label: GET=$gets SET=$sets | memcached cmd_get=$cmd_get cmd_set=$cmd_set"
    check "$label: load was sent (GET $gets, SET $sets)" [ "${gets:-0}" -gt 10 -a "${sets:-0}" -gt 10 ]
    check "$label: memcached counted the GETs and SETs the run reports" \
        [ "${gets:-x}" = "$cmd_get" -a "${sets:-x}" = "$cmd_set" ]
    check "$label: status completed, no errors" \
        [ "$(jq -r '.status, ([.timers[] | select(.name == "All Transactions") | .summary.errors] | add)' "$s" 2>/dev/null | tr '\n' ' ')" = "completed 0 " ]
}
