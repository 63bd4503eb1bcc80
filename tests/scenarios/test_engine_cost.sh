# Iterations that never yield do not pay a loop turn each: 200,000 empty
# transactions of one VU run back to back in slices (up to 50 us each), so
# the process waits in epoll a few hundred times, not once per transaction
# (before the change every such iteration yielded and waited for a loop
# turn: one epoll_wait per transaction).  A structural count, not a timing:
# a busy or sanitized run takes longer, which makes more slices, so the
# bound is generous (a tenth of the transactions); the speed itself is
# measured by bench/timer_cost.sh, never here.  Every transaction is counted.
. "$(dirname "$0")/lib.sh"
F=$SRC/tests/scenarios/fixtures
N=200000
command -v strace > /dev/null || { echo "FAIL strace is missing (apt-get install strace)"; exit 1; }
# LeakSanitizer cannot run under ptrace: leaks are checked by every other test
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" timeout 300 strace -f -qq -c -o "$TMP/strace" -e trace=epoll_wait,epoll_pwait,epoll_pwait2 \
    "$LUAMECH" run "$F/empty_tx.lua" -n $N -d 0 -w 1 -q -o "$TMP/r" > "$TMP/out" 2>&1
rc=$?
check "$N empty transactions under strace: exit 0 ($rc; $(tail -c 300 "$TMP/out"))" [ $rc -eq 0 ]
n=$(timer_count "$TMP/r/summary.json" "All Transactions")
check "every transaction counted ($n)" [ "$n" = $N ]
waits=$(awk '$NF ~ /^epoll_(p?wait2?)$/ { s += $4 } END { print s + 0 }' "$TMP/strace")
check "loop turns: $waits epoll waits for $N transactions (< $((N / 10)))" [ "$waits" -gt 0 -a "$waits" -lt $((N / 10)) ]
finish
