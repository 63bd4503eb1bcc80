# luamech.stop(reason) ends the run gracefully (exit 0, status "stopped",
# the reason in summary.json); luamech.abort(reason) ends it at once (exit
# 8, status "script_aborted", results written).  Counted by memcached.
. "$(dirname "$0")/lib.sh"
F=$SRC/tests/scenarios/fixtures
start_memcached PORT
mc_cmd() { # mc_cmd LINE: one reply line
    local line
    exec 3<>"/dev/tcp/127.0.0.1/$PORT"; printf '%s\r\n' "$1" >&3
    IFS= read -r -t 2 line <&3; exec 3<&- 3>&-; echo "${line%$'\r'}"
}
# one command at a time, each reply read: a write-and-close of both could
# lose the second (memcached drops the rest of a connection reset by its peer)
for k in stops aborts; do
    [ "$(mc_cmd $'set '$k$' 0 0 1\r\n0')" = STORED ] || { echo "FAIL: cannot set $k"; exit 1; }
done

"$LUAMECH" run "$F/stop_abort.lua" -q -e MEMCACHED=127.0.0.1:$PORT -e AT=200 -o "$TMP/r1" > "$TMP/out1" 2>&1
rc=$?
S=$TMP/r1/summary.json
check "luamech.stop exits 0 (got $rc)" [ $rc -eq 0 ]
check "status stopped" [ "$(jq -r .status "$S")" = stopped ]
check "the reason is in summary.json" [ "$(jq -r .stop_reason "$S")" = "counter reached 200" ]
check "the run ended long before its 30 s" awk "BEGIN{exit !($(jq .run_time_s "$S") < 10)}"
incr=$(mc_cmd "incr stops 0")
tx=$(timer_count "$S" "All Transactions")
check "graceful: every transaction the server counted is in the results ($incr incr, $tx transactions)" [ "$incr" -eq "$tx" ]
check "graceful: no failed or cancelled transaction" [ "$(timer_errors "$S" "All Transactions")" -eq 0 ]
check "the console said why" grep -q "stopping by the script: counter reached 200" "$TMP/out1"

"$LUAMECH" run "$F/stop_abort.lua" -q -e MEMCACHED=127.0.0.1:$PORT -e AT=150 -e HOW=abort -e KEY=aborts -o "$TMP/r2" > "$TMP/out2" 2>&1
rc=$?
S=$TMP/r2/summary.json
check "luamech.abort exits 8 (got $rc)" [ $rc -eq 8 ]
check "status script_aborted, exit_code 8 in summary.json" [ "$(jq -r '.status + " " + (.exit_code|tostring)' "$S")" = "script_aborted 8" ]
check "the abort reason is in summary.json" [ "$(jq -r .stop_reason "$S")" = "counter reached 150" ]
check "the results were written (transactions counted)" [ "$(timer_count "$S" "All Transactions")" -ge 140 ]
check "report.html was written" [ -s "$TMP/r2/report.html" ]

# in the init (before any load): stop ends the run with no load, exit 0;
# abort exits 8
"$LUAMECH" run "$F/stop_abort.lua" -q -e MEMCACHED=127.0.0.1:$PORT -e IN_INIT=1 -e KEY=init -o "$TMP/r3" > "$TMP/out3" 2>&1
rc=$?
check "stop in the init exits 0 (got $rc)" [ $rc -eq 0 ]
check "...with no transaction" [ "$(timer_count "$TMP/r3/summary.json" "All Transactions")" -eq 0 ]
"$LUAMECH" run "$F/stop_abort.lua" -q -e MEMCACHED=127.0.0.1:$PORT -e IN_INIT=1 -e HOW=abort -e KEY=init -o "$TMP/r4" > "$TMP/out4" 2>&1
rc=$?
check "abort in the init exits 8 (got $rc)" [ $rc -eq 8 ]
check "...saying why" grep -q "given up in init" "$TMP/out4"
check "no incr reached the server from the init runs" [ "$(mc_cmd 'incr init 1')" = "NOT_FOUND" ]
finish
