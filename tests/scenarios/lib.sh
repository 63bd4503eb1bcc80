# lib.sh - helpers for the command-line tests: start memcached on a free
# loopback port, read its counters, run luamech, check results.  Sourced by
# tests/scenarios/test_*.sh, which ctest runs as: bash test_x.sh LUAMECH SRC_DIR
set -u
LUAMECH=$1
SRC=$2
TMP=$(mktemp -d /tmp/luamech-test.XXXXXX)
PIDS=()
FAILS=0

cleanup() {
    for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill -CONT "$p" 2>/dev/null; kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT

fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
pass() { echo "ok: $*"; }
check() { # check "description" test-expression...
    local what=$1; shift
    if "$@"; then pass "$what"; else fail "$what"; fi
}
finish() {
    if [ "$FAILS" -ne 0 ]; then echo "$FAILS check(s) failed"; exit 1; fi
    echo "all checks passed"; exit 0
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# free_port: a loopback port nothing listens on (printed)
free_port() {
    local p
    for _ in $(seq 20); do
        p=$((10000 + RANDOM % 22000)); port_open "$p" || { echo "$p"; return; }
    done
    echo "no free port" >&2; exit 1
}

# start_memcached VAR [extra args]: sets VAR to the port, MC_PID_<port> to the pid
start_memcached() {
    local var=$1; shift
    local port pid i
    for i in 1 2 3 4 5 6 7 8 9 10; do
        port=$((10000 + RANDOM % 22000))   # below the ephemeral range 32768-60999
        port_open "$port" && continue
        memcached -l 127.0.0.1 -p "$port" -U 0 -u root -t 1 "$@" &
        pid=$!
        for _ in $(seq 50); do port_open "$port" && break; sleep 0.05; done
        if port_open "$port" && kill -0 "$pid" 2>/dev/null; then
            PIDS+=("$pid")
            printf -v "$var" '%s' "$port"
            printf -v "MC_PID_$port" '%s' "$pid"
            return 0
        fi
        kill "$pid" 2>/dev/null
    done
    echo "cannot start memcached"; exit 1
}

# mc_stat PORT NAME: one counter from memcached's "stats"
mc_stat() {
    local port=$1 name=$2 line
    exec 3<>"/dev/tcp/127.0.0.1/$port"
    printf 'stats\r\n' >&3
    while IFS= read -r -t 2 line <&3; do
        line=${line%$'\r'}
        [ "$line" = "END" ] && break
        case $line in "STAT $name "*) echo "${line#STAT $name }";; esac
    done
    exec 3<&- 3>&-
}

# jqr FILE FILTER: raw jq output
jqr() { jq -r "$2" "$1"; }
# timer_count SUMMARY NAME: count of a timer in summary.json
timer_count() { jq -r --arg n "$2" '[.timers[] | select(.name == $n) | .summary.count] | add // 0' "$1"; }
timer_errors() { jq -r --arg n "$2" '[.timers[] | select(.name == $n) | .summary.errors] | add // 0' "$1"; }
