# Counts that reconcile and latency over every sample: requests cancelled by
# a second SIGINT are counted (memcached's own counter must equal ok + errors
# + cancelled), "NAME (all)" twins carry failures at the time they failed
# and skipped arrivals at their wait, and distinct timer names are capped
# (max_timers) with memory that stays small per timer.
. "$(dirname "$0")/lib.sh"
F=$SRC/tests/scenarios/fixtures
start_memcached PORT
eval "mcpid=\$MC_PID_$PORT"

# ---- cancelled: two SIGINTs while every VU waits on a frozen server ----
s0=$(mc_stat "$PORT" cmd_set)
"$LUAMECH" run "$F/cancel.lua" -q -e TIMEOUT=30 -e MEMCACHED=127.0.0.1:$PORT -o "$TMP/c" > "$TMP/c.out" 2>&1 &
pid=$!
# the freeze once the VUs run (memcached counted 60 sets: polled, <= 10 s),
# not after a fixed 1.5 s that a slow start may spend before the first set
for _ in $(seq 200); do [ "$(( $(mc_stat "$PORT" cmd_set) - s0 ))" -ge 60 ] && break; sleep 0.05; done
kill -STOP "$mcpid"
sleep 0.5
kill -INT $pid
sleep 0.5
kill -INT $pid
wait $pid; rc=$?
kill -CONT "$mcpid"
s=$TMP/c/summary.json
check "two SIGINTs: exit 5 (got $rc)" [ $rc -eq 5 ]
# tc SUMMARY NAME FIGURE: a timer's or a view's ("X (all)") summary figure (views.jq)
tc() { jqv -r --arg n "$2" --arg f "$3" 'include "views"; [tview($n) | .summary[$f] // 0] | add // 0' "$1"; }
ok_err=$(tc "$s" memcached.set count) cancelled=$(tc "$s" memcached.set cancelled)
# memcached reads the sets sent while it was stopped once it runs again:
# wait (<= 10 s) until it counted as many as the run did, then compare
for _ in $(seq 100); do
    sets=$(( $(mc_stat "$PORT" cmd_set) - s0 ))
    [ "$sets" -ge $((ok_err + cancelled)) ] && break; sleep 0.1
done
check "memcached.set: 6 requests cancelled (got $cancelled)" [ "$cancelled" = 6 ]
check "memcached.set: count $ok_err + cancelled $cancelled == the server's cmd_set $sets" \
    [ $((ok_err + cancelled)) -eq "$sets" ]
tx=$(tc "$s" "All Transactions" count) txc=$(tc "$s" "All Transactions" cancelled)
check "All Transactions: 6 cancelled (got $txc), count + cancelled == sets ($tx + $txc vs $sets)" \
    [ "$txc" = 6 ] && [ $((tx + txc)) -eq "$sets" ]
csv=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "cancelled") c = i }
               $4 == "\"memcached.set\"" { s += $c } END { print s + 0 }' "$TMP/c/intervals.csv")
check "intervals.csv: the cancelled column sums to 6 (got $csv)" [ "$csv" = 6 ]
check "console: cancelled shown" grep -q "cancelled:  *6 " "$TMP/c.out"
all=$(tc "$s" "memcached.set (all)" count)
check "memcached.set (all) counts the cancelled ones too ($all = $ok_err + 6)" [ "$all" = $((ok_err + 6)) ]

# ---- latency over all samples: failures in "(all)", not in the timer ----
"$LUAMECH" run "$F/all_samples.lua" -n 1000 -d 0 --verbose -o "$TMP/a" > "$TMP/a.out" 2>&1
rc=$?
s=$TMP/a/summary.json
n=$(tc "$s" op count) e=$(tc "$s" op errors)
an=$(tc "$s" "op (all)" count) ae=$(tc "$s" "op (all)" errors)
check "240 of 1000 samples failed ($e of $n)" [ "$e" = 240 -a "$n" = 1000 ]
check "(all): same count and errors as the timer ($an/$ae vs $n/$e)" [ "$an" = "$n" -a "$ae" = "$e" ]
p99=$(tc "$s" op p99_ms) ap99=$(tc "$s" "op (all)" p99_ms) ap50=$(tc "$s" "op (all)" p50_ms)
check "the timer's p99 is over successes (1 ms: $p99)" [ "$p99" = 1 ]
check "(all) p99 is the failures' 300 ms ($ap99), p50 a success's 1 ms ($ap50)" [ "$ap99" = 300 -a "$ap50" = 1 ]
check "(all) is labelled: latency_over all samples" \
    [ "$(jqv -r 'include "views"; tview("op (all)") | .latency_over' "$s")" = "all samples" ]
check "the timer is labelled: latency_over successes" \
    [ "$(jqv -r 'include "views"; tview("op") | .latency_over' "$s")" = successes ]
check "thresholds choose: the success-only one passes, the (all) one fails, exit 6 (got $rc)" \
    [ $rc -eq 6 ] && [ "$(jq -c '[.thresholds[].passed]' "$s")" = "[true,false]" ]
check "All Transactions (all) exists: transactions failed" [ "$(tc "$s" "All Transactions (all)" errors)" = 240 -a \
    "$(jqv 'include "views"; [s2.timers[] | select(.name == "All Transactions") | .views.all.latency_over]' -c "$s")" = '["all samples"]' ]
check "console: the (all) row is shown" grep -q 'over all samples ("op (all)"' "$TMP/a.out"

# ---- skipped arrivals: counted, and in "(all)" at their wait ----
"$LUAMECH" run "$F/skipped.lua" -q -o "$TMP/k" > "$TMP/k.out" 2>&1
check "rate run exits 0" [ $? -eq 0 ]
s=$TMP/k/summary.json
sk=$(jq '[.counters[] | select(.name == "engine.skipped_starts") | .total] | add // 0' "$s")
tsk=$(tc "$s" "All Transactions" skipped) gsk=$(tc "$s" "group rate" skipped)
check "arrivals were skipped ($sk)" [ "$sk" -gt 50 ]
check "All Transactions and the group count them ($tsk, $gsk == $sk)" [ "$tsk" = "$sk" -a "$gsk" = "$sk" ]
n=$(tc "$s" "All Transactions" count) an=$(tc "$s" "All Transactions (all)" count)
check "(all) count = count + skipped ($an = $n + $sk)" [ "$an" = $((n + sk)) ]
amax=$(tc "$s" "All Transactions (all)" max_ms)
# from its intended start (before 0.1 s) to the stop: at least 1.8 s (a
# busy machine only makes it longer), at most the run's span (the stop is
# in it; were the stop processed late, the wait grows with it)
span=$(jq .span_s "$s")
check "(all) max: the oldest skipped arrival waited almost the whole run (1800 < $amax ms <= span_s $span s)" \
    awk "BEGIN{exit !($amax > 1800 && $amax <= $span * 1000)}"

# ---- the timer cap: past max_timers, names go to "(other custom timers)" ----
"$LUAMECH" run "$F/timer_cap.lua" -n 100 -d 0 -o "$TMP/t" > "$TMP/t.out" 2>&1
check "cap run exits 0" [ $? -eq 0 ]
s=$TMP/t/summary.json
named=$(jqv 'include "views"; [s2.timers[] | select(.kind == "custom" and (.name | test("item")))] | length' "$s")
check "50 named custom timers kept (got $named)" [ "$named" = 50 ]
check "the other 150 samples are counted under (other custom timers)" \
    [ "$(tc "$s" "(other custom timers)" count)" = 150 ]
check "summary.json names the first name past the cap" \
    [ "$(jq -r '.timer_overflow.first_name + " " + (.timer_overflow.max_timers | tostring)' "$s")" = "item 26 50" ]
check "console: a warning names it" grep -q 'WARNING: .*max_timers = 50.*"item 26"' "$TMP/t.out"
check "max_timers = 0 is refused" \
    bash -c "! '$LUAMECH' run '$F/timer_cap.lua' -n 1 -e MAX_TIMERS=0 -o '$TMP/t0' > '$TMP/t0.out' 2>&1 && grep -q max_timers '$TMP/t0.out'"
# memory per timer: 3000 distinct names (1500 transactions) under 600 MB
# peak (about 0.6 MB per name before histograms were sparse: 1.8 GB; now
# about 50 MB in a normal build, 370 MB under ASan, whose quarantine keeps
# freed memory)
/usr/bin/time -o "$TMP/t1.time" -f '%M' "$LUAMECH" run "$F/timer_cap.lua" -q -n 1500 -d 0 -w 1 \
    -e MAX_TIMERS=3000 -o "$TMP/t1" > /dev/null 2>&1
kb=$(tail -1 "$TMP/t1.time")
check "3000 distinct timers: all kept" [ "$(jq '[.timers[] | select(.name | test("item"))] | length' "$TMP/t1/summary.json")" -ge 3000 ]
check "3000 distinct timers: peak RSS $kb kB < 600 MB" [ "$kb" -lt 600000 ]
finish
