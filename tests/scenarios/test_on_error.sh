# A dead server (a closed loopback port) makes closed-loop VUs fail as fast
# as they can loop: on_error = { pause = ... } holds a failing VU back (the
# rate stays at about VUs / pause, the pause kept out of response time), and
# whatever the option, the end report, summary.json and report.html say when
# most transactions were fast failures, and when (a memcached killed
# mid-run).  on_error is validated with the other group fields.
. "$(dirname "$0")/lib.sh"
port=$(free_port)             # nothing listens there: every connect is refused

cat > "$TMP/vu.lua" <<'LUA'
local http = luamech.http.new("http://127.0.0.1:" .. luamech.param("PORT", "1"))
return function()
  local r, err = http:get("/")
  if not r then error(err) end
  luamech.check(r.status == 200, "status 200")
end
LUA
# sc NAME GROUP-EXTRA: a scenario of 5 closed VUs for 3 s
sc() {
    cat > "$TMP/$1.lua" <<LUA
return { name = "$1", run_time = "3s", interval = "1s", thresholds = { "checks rate > 99%" },
  groups = { { name = "g", vus = 5, script = "vu.lua" $2 } } }
LUA
}

sc paused ', on_error = { pause = "500ms" }'
"$LUAMECH" run "$TMP/paused.lua" -e PORT="$port" -o "$TMP/p" > "$TMP/p.out" 2> "$TMP/p.err"
S=$TMP/p/summary.json
tx=$(timer_count "$S" "All Transactions")
errs=$(timer_errors "$S" "All Transactions")
check "paused: every transaction failed ($errs of $tx)" [ "$tx" -gt 0 -a "$errs" = "$tx" ]
# 5 VUs, a failure then 500 ms of pause: 6 per VU in 3 s, 30 in all
check "paused: the rate stays at about VUs / pause: $tx transactions in 3 s (5 VUs / 0.5 s = 30)" \
    [ "$tx" -ge 20 -a "$tx" -le 40 ]
maxall=$(jqv -r 'include "views"; tview("All Transactions (all)") | .summary.max_ms' "$S")
check "paused: the pause is not in the failures' time (max $maxall ms < 400 ms)" \
    awk -v m="$maxall" 'BEGIN { exit !(m != "" && m < 400) }'
check "paused: summary.json's fast_failures line" \
    grep -q "of transactions failed in under 1 ms: the server was probably down" <<< "$(jq -r .fast_failures.text "$S")"
check "paused: the console's end report carries it" grep -q "^WARNING: .*failed in under 1 ms" "$TMP/p.out"
check "paused: report.html carries it" grep -q "failed in under 1 ms: the server was probably down" "$TMP/p/report.html"
check "paused: no hint to add the pause it has" bash -c "! grep -q 'slows a failing VU down' '$TMP/p.out'"

sc unpaused ''
"$LUAMECH" run "$TMP/unpaused.lua" -e PORT="$port" -o "$TMP/u" > "$TMP/u.out" 2> "$TMP/u.err"
utx=$(timer_count "$TMP/u/summary.json" "All Transactions")
check "unpaused: the failures swamp the run ($utx transactions, > 10 x $tx)" [ "$utx" -gt $((10 * tx)) ]
check "unpaused: the line, with the hint of on_error.pause" \
    grep -q "^WARNING: .*failed in under 1 ms.*on_error = { pause" "$TMP/u.out"
share=$(jq -r .fast_failures.share "$TMP/u/summary.json")
check "unpaused: share of fast failures $share > 0.5" awk -v s="$share" 'BEGIN { exit !(s > 0.5) }'

# A server that goes down mid-run: the line names the stretch it was down
start_memcached MC
cat > "$TMP/mc_vu.lua" <<'LUA'
local mc = assert(luamech.memcached.connect(luamech.param("MEMCACHED")))
return function()
  local ok, err = mc:set("k", "v")
  if not ok then error(err) end
end
LUA
cat > "$TMP/mid.lua" <<'LUA'
return { name = "mid", run_time = "4s", interval = "1s", groups = { { vus = 5, script = "mc_vu.lua" } } }
LUA
"$LUAMECH" run "$TMP/mid.lua" -e MEMCACHED=127.0.0.1:$MC -o "$TMP/m" > "$TMP/m.out" 2>&1 &
lm=$!
# down at about t = 1.2 s: 1.2 s after memcached counted the run's first 50
# sets (polled), not a fixed 2.2 s after the start, which a slow start eats
s0=$(mc_stat "$MC" cmd_set)
for _ in $(seq 200); do [ $(( $(mc_stat "$MC" cmd_set) - s0 )) -ge 50 ] && break; sleep 0.05; done
sleep 1.2
pid_var=MC_PID_$MC
kill "${!pid_var}"
wait $lm
from=$(jq -r .fast_failures.from_s "$TMP/m/summary.json"); to=$(jq -r .fast_failures.to_s "$TMP/m/summary.json")
check "down mid-run: the stretch starts when it went down and ends with the run (from $from s to $to s)" \
    awk -v f="$from" -v t="$to" 'BEGIN { exit !(f >= 1 && f <= 3 && t == 4) }'
check "down mid-run: the console says so, not 'the whole run' ($(grep -m1 -o 'probably down[^;]*' "$TMP/m.out"))" \
    grep -qE "probably down from [123] s to 4 s;" "$TMP/m.out"

# A healthy run has no such line: transactions that do not fail
cat > "$TMP/ok_vu.lua" <<'LUA'
return function() luamech.sleep(0.01) end
LUA
cat > "$TMP/ok.lua" <<'LUA'
return { run_time = "1s", groups = { { vus = 2, script = "ok_vu.lua", on_error = { pause = "1s" } } } }
LUA
"$LUAMECH" run "$TMP/ok.lua" -o "$TMP/ok" > "$TMP/ok.out" 2>&1
check "healthy: exit 0" [ $? -eq 0 ]
check "healthy: fast_failures is null" [ "$(jq -r .fast_failures "$TMP/ok/summary.json")" = null ]
check "healthy: no WARNING line" bash -c "! grep -q 'failed in under 1 ms' '$TMP/ok.out'"

# on_error is checked with the other group fields (exit 3, one message)
bad() { # bad DESCRIPTION GROUP-EXTRA PATTERN
    cat > "$TMP/bad.lua" <<LUA
return { run_time = "1s", groups = { { name = "g", vus = 1, script = "vu.lua" $2 } } }
LUA
    "$LUAMECH" run "$TMP/bad.lua" -o "$TMP/bad" > /dev/null 2> "$TMP/bad.err"
    local rc=$? found=0
    grep -qE -- "$3" "$TMP/bad.err" && found=1
    check "$1: exit 3 ($rc) and /$3/ ($(head -c 200 "$TMP/bad.err"))" [ "$rc" -eq 3 -a "$found" = 1 ]
}
bad "a pause below 1 ms" ', on_error = { pause = "10us" }' 'groups\[1\]\.on_error\.pause: expected a duration from 1ms to 1h'
bad "a pause above 1 h" ', on_error = { pause = "2h" }' 'on_error\.pause: expected a duration from 1ms to 1h'
bad "no pause" ', on_error = {}' 'on_error\.pause: expected a duration such as "1s", got nil'
bad "a misspelt field" ', on_error = { pase = "1s" }' "groups\[1\]\.on_error: unknown field 'pase' \(did you mean 'pause'\?\)"
bad "not a table" ', on_error = "1s"' 'on_error: expected a table such as \{ pause = "1s" \}'
bad "a rate group" ', rate = 10, on_error = { pause = "1s" }' 'on_error: on_error.pause is for closed groups: a rate group'
bad "a paced group" ', pacing = "1s", on_error = { pause = "1s" }' 'on_error.pause is for closed groups: a paced group'
finish
