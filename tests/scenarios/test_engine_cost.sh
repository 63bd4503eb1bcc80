# The engine's own cost per transaction stays small: 1,000,000 empty
# transactions of one VU take less than 1 s of CPU (1 µs each; about 0.1 µs
# on the 2-vCPU VM in bench/timer_cost.sh, 1.7 µs when every iteration that
# never yielded also yielded and waited for a loop turn).  CPU time, not
# wall time: a busy machine delays the run but does not add CPU to it.  The
# sanitizer build is several times slower: there the bound is 5 s.  Every
# transaction is counted.
. "$(dirname "$0")/lib.sh"
F=$SRC/tests/scenarios/fixtures
LIMIT=1.0
ldd "$LUAMECH" 2>/dev/null | grep -q libasan && LIMIT=5.0
TIMEFORMAT='%U %S'
cpu=$( { time "$LUAMECH" run "$F/empty_tx.lua" -n 1000000 -d 0 -w 1 -q -o "$TMP/r" > "$TMP/out" 2>&1; } 2>&1 )
rc=$?
check "1M empty transactions: exit 0 ($rc)" [ $rc -eq 0 ]
n=$(timer_count "$TMP/r/summary.json" "All Transactions")
check "every transaction counted ($n)" [ "$n" = 1000000 ]
total=$(awk -v c="$cpu" 'BEGIN{split(c, a, " "); printf "%.2f", a[1] + a[2]}')
check "1M empty transactions in $total s of CPU (< $LIMIT s)" awk "BEGIN{exit !($total < $LIMIT)}"
finish
