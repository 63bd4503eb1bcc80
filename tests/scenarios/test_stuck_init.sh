# The watchdog's slow cases, in their own file (run in parallel with the
# rest): an init that never returns (the preflight limit, 60 s, aborts it;
# the watchdog interrupts, then abandons the stuck worker; the run ends, exit
# 7, about 62 s in), and a VU that stops yielding in a 60 s run (stopped
# after 10 s without yielding, not at the end of the run).
. "$(dirname "$0")/lib.sh"
F=$SRC/tests/scenarios/fixtures
t0=$(date +%s)
timeout -s KILL 90 "$LUAMECH" run "$F/stuck.lua" -q -e WHERE=init -o "$TMP/i1" > "$TMP/out" 2>&1
rc=$?
s=$(( $(date +%s) - t0 ))
check "stuck init: exit 7 (got $rc)" [ $rc -eq 7 ]
check "stuck init: ended within the preflight limit + 8 s (${s} s)" [ "$s" -le 68 ]
err=$(jq -r .error "$TMP/i1/summary.json")
check "stuck init: status stuck" [ "$(jq -r .status "$TMP/i1/summary.json")" = stuck ]
check "stuck init: names the VU and its init ($err)" grep -q "VU 1 (group 'spin', worker 1) ran [0-9.]* s without yielding, in its init (stuck_vu.lua)" <<< "$err"
check "stuck init: says the preflight limit was reached" grep -q "did not finish within 60 s" <<< "$err"
check "stuck init: no load had started" grep -q "no load had started" <<< "$err"

# a VU stuck 1.5 s into a 60 s run: the run stops 10 s later
t0=$(date +%s)
timeout -s KILL 40 "$LUAMECH" run "$F/stuck.lua" -q -e WHERE=tx -e RUN_TIME=60s -o "$TMP/t1" > "$TMP/out2" 2>&1
rc=$?
s=$(( $(date +%s) - t0 ))
check "stalled VU in a 60 s run: exit 7 (got $rc)" [ $rc -eq 7 ]
check "stalled VU: stopped 10 s after it stopped yielding (ended at ${s} s)" [ "$s" -ge 11 -a "$s" -le 16 ]
err=$(jq -r .error "$TMP/t1/summary.json")
check "stalled VU: named ($err)" grep -q "VU 1 (group 'spin', worker [12]) ran 1[0-9].[0-9] s without yielding, in transaction" <<< "$err"
check "stalled VU: summary.json run_time_s is up to the stop, about 11.5 s" \
    awk "BEGIN{exit !($(jq .run_time_s "$TMP/t1/summary.json") > 10.5 && $(jq .run_time_s "$TMP/t1/summary.json") < 14)}"
finish
