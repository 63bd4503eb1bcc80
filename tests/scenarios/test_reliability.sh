# Reliability: whatever a script or the machine does, a run ends on time,
# says why, writes its results and exits with a documented code.  Stuck VUs
# (the watchdog, exit 7), os.exit, error objects, signals (SIGHUP, before
# the load), plans the engine cannot run (no VUs, too many workers, too few
# file descriptors, too little memory), and a results directory removed
# during the run.  Every run is under a hard `timeout -s KILL`.
. "$(dirname "$0")/lib.sh"
F=$SRC/tests/scenarios/fixtures

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
# run_timed LIMIT_S OUTFILE args...: runs luamech, sets RC and MS (elapsed)
run_timed() {
    local limit=$1 out=$2; shift 2
    local t0; t0=$(now_ms)
    timeout -s KILL "$limit" "$LUAMECH" "$@" > "$out" 2>&1
    RC=$?
    MS=$(( $(now_ms) - t0 ))
}
summary_ok() { jq -e . "$1/summary.json" > /dev/null 2>&1; }
# wait_file FILE [PATTERN]: until FILE exists (and holds PATTERN), 20 s at most
wait_file() {
    for _ in $(seq 200); do
        [ -e "$1" ] && { [ -z "${2:-}" ] || grep -q "$2" "$1"; } && return 0
        sleep 0.1
    done
    return 1
}
# start_bg LIMIT_S OUTFILE args...: luamech in the background under a hard
# timeout (which passes signals on to it); sets PID
start_bg() {
    local limit=$1 out=$2; shift 2
    timeout -s KILL "$limit" "$LUAMECH" "$@" > "$out" 2>&1 &
    PID=$!
}

# --- a transaction that never returns (compiled: the hook cannot stop it) ---
# run 3 s, graceful stop 1 s: the watchdog interrupts at 5 s, abandons at 6 s.
run_timed 30 "$TMP/o1" run "$F/stuck.lua" -q -e WHERE=tx -o "$TMP/s1"
check "stuck transaction: exit 7 (got $RC)" [ $RC -eq 7 ]
# (the watchdog abandons at 6 s; without it the run goes on until the hard
# kill at 30 s: the bound is 20 s, not a busy machine's start-up and exit)
check "stuck transaction: ended within 20 s, not at the 30 s hard kill (${MS} ms)" [ "$MS" -lt 20000 ]
s=$TMP/s1/summary.json
check "stuck transaction: summary.json valid, status stuck" [ "$(jq -r .status "$s")" = stuck ]
check "stuck transaction: exit_code 7 in summary.json" [ "$(jq -r .exit_code "$s")" = 7 ]
err=$(jq -r .error "$s")
check "stuck transaction: names the VU, group, what and script ($err)" \
    grep -q "VU 1 (group 'spin', worker [12]) ran [0-9.]* s without yielding, in transaction [0-9]* (stuck_vu.lua)" <<< "$err"
check "stuck transaction: says the worker was abandoned" grep -q "worker [12] abandoned (its results up to t = 1.0 s are kept)" <<< "$err"
check "stuck transaction: run_time_s is the run time" [ "$(jq .run_time_s "$s")" = 3 ]
check "stuck transaction: transactions measured" [ "$(timer_count "$s" "All Transactions")" -gt 100 ]
check "stuck transaction: 3 intervals in intervals.csv" \
    [ "$(grep -c '"All Transactions"' "$TMP/s1/intervals.csv")" -eq 3 ]
check "stuck transaction: report.html written" [ -s "$TMP/s1/report.html" ]
check "stuck transaction: the console says so" grep -q "watchdog: VU 1" "$TMP/o1"

# --- the same loop interpreted: the hook stops it at its line ---
run_timed 30 "$TMP/o2" run "$F/stuck.lua" -q -e WHERE=tx -e JIT=off -o "$TMP/s2"
check "interruptible loop: exit 7 (got $RC)" [ $RC -eq 7 ]
check "interruptible loop: ended within 20 s, not at the 30 s hard kill (${MS} ms)" [ "$MS" -lt 20000 ]
err=$(jq -r .error "$TMP/s2/summary.json")
check "interruptible loop: file:line of the loop ($err)" grep -q "stopped at .*stuck_vu.lua:11" <<< "$err"
check "interruptible loop: the worker was not abandoned" bash -c "! grep -q abandoned <<< \"\$1\"" _ "$err"
check "interruptible loop: the interrupted transaction is an error in errors.csv" \
    grep -q "stopped by the watchdog: the VU ran too long without yielding at .*stuck_vu.lua:11" "$TMP/s2/errors.csv"

# --- SIGINT while a VU is stuck: the run still ends ---
start_bg 30 "$TMP/o3" run "$F/stuck.lua" -q -e WHERE=tx -e RUN_TIME=60s -o "$TMP/s3"
wait_file "$TMP/s3/summary.json"      # the run is going (first interval written)
sleep 1.5
t0=$(now_ms)
kill -INT "$PID"
wait "$PID"; rc=$?
ms=$(( $(now_ms) - t0 ))
check "SIGINT with a stuck VU: exit 7 (got $rc)" [ $rc -eq 7 ]
check "SIGINT with a stuck VU: ended within 15 s of the signal, not at the 60 s run's end or the hard kill (${ms} ms)" [ "$ms" -lt 15000 ]
check "SIGINT with a stuck VU: summary.json valid" summary_ok "$TMP/s3"

# --- os.exit is refused: a scenario error, a failed preflight, a failed transaction ---
run_timed 20 "$TMP/o4" run "$F/os_exit.lua" -q -e WHERE=scenario -o "$TMP/x1"
check "os.exit in the scenario file: exit 3 (got $RC)" [ $RC -eq 3 ]
check "os.exit in the scenario file: message" grep -q "os.exit is not allowed" "$TMP/o4"
run_timed 20 "$TMP/o5" run "$F/os_exit.lua" -q -e WHERE=init -o "$TMP/x2"
check "os.exit in init: exit 4 (got $RC)" [ $RC -eq 4 ]
check "os.exit in init: message with the line" grep -q "os_exit_vu.lua:2: os.exit is not allowed" "$TMP/o5"
run_timed 20 "$TMP/o6" run "$F/os_exit.lua" -q -e WHERE=tx -o "$TMP/x3"
check "os.exit in a transaction: the run completes (exit $RC)" [ $RC -eq 0 ]
check "os.exit in a transaction: status completed" [ "$(jq -r .status "$TMP/x3/summary.json")" = completed ]
check "os.exit in a transaction: report.html written" [ -s "$TMP/x3/report.html" ]
check "os.exit in a transaction: counted as transaction errors" grep -q "os.exit is not allowed" "$TMP/x3/errors.csv"

# --- error objects that are not strings ---
run_timed 30 "$TMP/o7" run "$F/error_object.lua" -q -e KIND=table -o "$TMP/e1"
check "table error in init: exit 4 (got $RC)" [ $RC -eq 4 ]
check "table error in init: its fields, not table: 0x" grep -q 'an error object (table): { code = 42, msg = "boom" }' "$TMP/o7"
run_timed 30 "$TMP/o8" run "$F/error_object.lua" -q -e KIND=badtostring -o "$TMP/e2"
check "error whose __tostring raises, in init: exit 4 (got $RC)" [ $RC -eq 4 ]
check "... at once, not after the 60 s preflight limit (${MS} ms)" [ "$MS" -lt 10000 ]
check "... described" grep -q "whose __tostring failed: .*tostring exploded" "$TMP/o8"
run_timed 30 "$TMP/o9" run "$F/error_object.lua" -q -e KIND=tostring -e WHERE=tx -o "$TMP/e3"
check "error object with __tostring in a transaction: its text in errors.csv" grep -q "custom error text" "$TMP/e3/errors.csv"
run_timed 30 "$TMP/o9" run "$F/error_object.lua" -q -e KIND=table -e WHERE=tx -o "$TMP/e4"
check "table error in a transaction: its fields in errors.csv" grep -q 'code = 42, msg = ""boom""' "$TMP/e4/errors.csv"

# --- SIGHUP is a stop like SIGTERM ---
start_bg 30 "$TMP/o10" run "$F/sleepy.lua" -q -e RUN_TIME=20s -o "$TMP/h1"
wait_file "$TMP/h1/summary.json"
kill -HUP "$PID"
wait "$PID"; rc=$?
check "SIGHUP: exit 5 (got $rc)" [ $rc -eq 5 ]
check "SIGHUP: status interrupted" [ "$(jq -r .status "$TMP/h1/summary.json")" = interrupted ]
check "SIGHUP: report.html written" [ -s "$TMP/h1/report.html" ]

# --- signals until the process ends: a late one (after the engine closed
# its handles, while the results are written) neither kills it nor loses them
start_bg 60 "$TMP/o10b" run "$F/many_timers.lua" -q -o "$TMP/h2"
wait_file "$TMP/h2/summary.json"
sleep 1
n=0
while kill -HUP "$PID" 2>/dev/null; do n=$((n + 1)); sleep 0.01; done
wait "$PID"; rc=$?
check "SIGHUP every 10 ms until it ends ($n sent): not killed by one, exit 5 (got $rc)" [ $rc -eq 5 ]
check "SIGHUP every 10 ms: status interrupted, report.html written" \
    [ "$(jq -r .status "$TMP/h2/summary.json")" = interrupted -a -s "$TMP/h2/report.html" ]

# --- a signal during the preflight (an init that sleeps 30 s) ---
start_bg 30 "$TMP/o11" run "$F/sleepy.lua" -q -e SLOW_INIT=1 -o "$TMP/p1"
wait_file "$TMP/o11" "results in"     # past the scenario load: the preflight is next
sleep 1
t0=$(now_ms)
kill -TERM "$PID"
wait "$PID"; rc=$?
ms=$(( $(now_ms) - t0 ))
check "SIGTERM in the preflight: exit 5 (got $rc) within 10 s, not after the init's 30 s sleep (${ms} ms)" [ $rc -eq 5 -a "$ms" -lt 10000 ]

# --- plans the engine refuses, before any load ---
run_timed 10 "$TMP/o12" run "$F/sleepy.lua" -q -u 0 -n 10 -o "$TMP/z1"
check "no VUs (-u 0 -n 10): refused with exit 2 or 3, no spin (got $RC)" [ $RC -eq 3 -o $RC -eq 2 ]
check "no VUs: one clear message" grep -qi "no VUs\|vus" "$TMP/o12"
run_timed 10 "$TMP/o13" run "$F/sleepy.lua" -q -w 10000 -o "$TMP/z2"
check "--workers 10000: refused (exit $RC)" [ $RC -eq 3 -o $RC -eq 2 ]
check "--workers 10000: names the limit" grep -q "1 to 1024" "$TMP/o13"
RC=$(ulimit -n 64; timeout -s KILL 10 "$LUAMECH" run "$F/sleepy.lua" -q -w 40 -d 1s -o "$TMP/z3" > "$TMP/o14" 2>&1; echo $?)
check "ulimit -n 64, 40 workers: exit 1, no crash (got $RC)" [ "$RC" -eq 1 ]
check "ulimit -n 64, 40 workers: says how many descriptors" grep -q "40 workers need at least .* file descriptors.*ulimit -n" "$TMP/o14"
# descriptors already taken: the estimate passes, a worker's loop cannot open
RC=$(ulimit -n 64; for fd in $(seq 20 50); do eval "exec $fd</dev/null"; done
     timeout -s KILL 10 "$LUAMECH" run "$F/sleepy.lua" -q -w 10 -d 1s -o "$TMP/z4" > "$TMP/o15" 2>&1; echo $?)
check "descriptors run out while workers start: exit 1, no crash (got $RC)" [ "$RC" -eq 1 ]
check "... names the worker and the cause" grep -q "cannot start worker [0-9]*: .*too many open files" "$TMP/o15"
check "... summary.json says aborted" [ "$(jq -r .status "$TMP/z4/summary.json")" = aborted ]
# a rate group whose arrivals cannot be timed (no timerfd: descriptors taken)
# is refused before any load; it used to run with no arrivals, silently
printf 'return function() luamech.sleep(0.001) end\n' > "$TMP/rate_vu.lua"
{ echo 'return { run_time = "1s", interval = "1s", groups = {'
  for g in $(seq 12); do echo "{ name = \"r$g\", model = \"rate\", rate = 50, vus = 2, max_vus = 2, script = \"rate_vu.lua\" },"; done
  echo '} }'; } > "$TMP/rate12.lua"
RC=$(ulimit -n 22; timeout -s KILL 10 "$LUAMECH" run "$TMP/rate12.lua" -q -w 1 -o "$TMP/z4r" > "$TMP/o15r" 2>&1; echo $?)
check "12 rate groups, ulimit -n 22: the preflight fails, exit 4 (got $RC)" [ "$RC" -eq 4 ]
check "... names the group whose arrivals cannot be timed" grep -q "cannot time the arrivals of group 'r[0-9]*' (timerfd: too many open files)" "$TMP/o15r"
if (ulimit -v 6000000; "$LUAMECH" --version > /dev/null 2>&1); then
    # 10M: the most the run plan allows (100M is a usage error there), 10 GB by the estimate
    RC=$(ulimit -v 6000000; timeout -s KILL 20 "$LUAMECH" run "$F/sleepy.lua" -q -u 10M -d 1s -o "$TMP/z5" > "$TMP/o16" 2>&1; echo $?)
    check "10M VUs under ulimit -v 6000000: exit 1, no crash (got $RC)" [ "$RC" -eq 1 ]
    check "10M VUs: refused up front with an estimate" grep -q "10000000 VUs need at least .* GB" "$TMP/o16"
else
    echo "skip: ulimit -v 6000000 (this build cannot start under it: a sanitizer build)"
fi

# --- the results directory removed during the run is created again ---
start_bg 30 "$TMP/o17" run "$F/sleepy.lua" -q -e RUN_TIME=3s -o "$TMP/d1"
wait_file "$TMP/d1/summary.json"
sleep 0.5
rm -rf "$TMP/d1"
wait "$PID"; rc=$?
check "results dir removed: the run completes (exit $rc)" [ $rc -eq 0 ]
check "results dir removed: summary.json completed" [ "$(jq -r .status "$TMP/d1/summary.json" 2>/dev/null)" = completed ]
check "results dir removed: every interval in intervals.csv" [ "$(grep -c '"All Transactions"' "$TMP/d1/intervals.csv")" -eq 3 ]
check "results dir removed: the scenario copy is back" [ -s "$TMP/d1/scenario/sleepy.lua" ]
check "results dir removed: the console says so" grep -q "was removed during the run: created again" "$TMP/o17"
finish
