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
    if [ "$SKIPS" -ne 0 ]; then echo "all checks passed ($SKIPS skipped: the machine was busy)"; exit 0; fi
    echo "all checks passed"; exit 0
}

# Contention.  Some checks measure the machine, not the code: a rate
# reached, "a calm run is not suspect".  They hold on a quiet machine and
# fail on a busy one (CI may run on a developer's machine doing other work,
# and ctest -j2 runs two tests at once on 2 CPUs).  busy_mark starts a
# window; check_quiet runs such a check and, when it fails, skips it with
# the reason if, since the mark, other processes (neither this test's shell
# nor its descendants) used more than BUSY_OTHER_PCT % of a CPU, or if the run's own
# health says its workers waited for a CPU (cpu_wait_percent above
# BUSY_WAIT_PCT in any interval).  Not busy: the failure counts.
SKIPS=0
BUSY_OTHER_PCT=${BUSY_OTHER_PCT:-25}
BUSY_WAIT_PCT=${BUSY_WAIT_PCT:-5}
busy_own_ticks() {   # CPU ticks of this test's processes: $$ and its descendants, living or reaped
    cat /proc/[0-9]*/stat 2>/dev/null | awk -v me=$$ '{ line = $0; pid = $1; sub(/.*\) /, "", line); split(line, f, " ")
                              ppid[pid] = f[2]; own[pid] = f[12] + f[13]; if (pid == me) reaped = f[14] + f[15] }
                   END { t = reaped
                         for (p in own) { q = p; for (d = 0; d < 64 && q != "" && q != me && q > 1; d++) q = ppid[q]
                                          if (q == me) t += own[p] }
                         print t }'
}
busy_snapshot() {   # prints: total ticks, busy ticks (all CPUs; steal counts as busy), this test's ticks
    awk '/^cpu / { t = 0; for (i = 2; i <= 9; i++) t += $i; printf "%d %d ", t, t - $5 - $6 }' /proc/stat
    busy_own_ticks
}
busy_mark() { BUSY_MARK=$(busy_snapshot); }
# busy_reason [SUMMARY]: prints why the machine was busy since busy_mark (nothing when quiet)
busy_reason() {
    local now ncpu w
    now=$(busy_snapshot); ncpu=$(nproc)
    # shellcheck disable=SC2086
    set -- ${BUSY_MARK:-0 0 0} $now
    awk -v t0="$1" -v b0="$2" -v o0="$3" -v t1="$4" -v b1="$5" -v o1="$6" -v n="$ncpu" -v lim="$BUSY_OTHER_PCT" \
        'BEGIN { dt = t1 - t0; if (dt <= 0) exit; other = (b1 - b0) - (o1 - o0); if (other < 0) other = 0
                 p = 100 * n * other / dt; if (p > lim) printf "other processes used %.0f%% of a CPU; ", p }'
    if [ -n "${BUSY_SUMMARY:-}" ] && [ -f "$BUSY_SUMMARY" ]; then
        w=$(jq -r '[.generator.intervals[]?.cpu_wait_percent // 0] | max // 0' "$BUSY_SUMMARY" 2>/dev/null)
        awk -v w="${w:-0}" -v lim="$BUSY_WAIT_PCT" 'BEGIN { if (w > lim) printf "its workers waited for a CPU up to %.0f%% of an interval; ", w }'
    fi
}
# check_quiet "description" SUMMARY|"" test-expression...: a check that measures the machine
check_quiet() {
    local what=$1; BUSY_SUMMARY=$2; shift 2
    if "$@"; then pass "$what"; else skip_if_busy "$what" "$(busy_reason)"; fi
}
# skip_if_busy "description" REASON: a failed check that measures the machine: skipped when REASON says why
skip_if_busy() {
    if [ -n "$2" ]; then
        echo "skip: $1 (the machine was busy: ${2%; })"; SKIPS=$((SKIPS + 1))
    else
        fail "$1 (the machine was quiet)"
    fi
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
# jqv ARGS...: jq that finds tests/scenarios/views.jq; a filter starting
# 'include "views";' gets tview, s2 and tflat (summary.json's timers read
# alike in schema 1 and schema 2)
jqv() { jq -L "$SRC/tests/scenarios" "$@"; }
# timer_count SUMMARY NAME: count of a timer in summary.json; NAME may be a
# view's flat label, "X (uncorrected)" or "X (all)"
timer_count() { jqv -r --arg n "$2" 'include "views"; [tview($n) | .summary.count] | add // 0' "$1"; }
timer_errors() { jqv -r --arg n "$2" 'include "views"; [tview($n) | .summary.errors] | add // 0' "$1"; }
