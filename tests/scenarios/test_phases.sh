# Phases run one after another (seed 003: a write phase, then a read phase),
# each reported in its own directory, and together in a phases table.
. "$(dirname "$0")/lib.sh"
F=$SRC/tests/scenarios/fixtures
start_memcached PORT
"$LUAMECH" run "$F/phases.lua" -q -w 1 -e MEMCACHED=127.0.0.1:$PORT -o "$TMP/r" > "$TMP/out" 2>&1
check "phased run exits 0" [ $? -eq 0 ]
s=$TMP/r/summary.json
check "top summary lists 2 phases" [ "$(jq '.phases | length' "$s")" -eq 2 ]
check "phases in order: write then read" [ "$(jq -r '[.phases[].name] | join(",")' "$s")" = "write,read" ]
check "write phase: 500 transactions" [ "$(timer_count "$TMP/r/1-write/summary.json" "All Transactions")" -eq 500 ]
check "read phase: 500 transactions" [ "$(timer_count "$TMP/r/2-read/summary.json" "All Transactions")" -eq 500 ]
check "the server saw 500 sets and then 500 gets" [ "$(mc_stat "$PORT" cmd_set)" -eq 500 -a "$(mc_stat "$PORT" cmd_get)" -eq 500 ]
check "every read found what the write phase stored (500 passes)" \
    [ "$(jq '.checks[0].passes' "$TMP/r/2-read/summary.json")" -eq 500 -a "$(jq '.checks[0].fails' "$TMP/r/2-read/summary.json")" -eq 0 ]
check "phases.csv has a row per phase" [ "$(tail -n +2 "$TMP/r/phases.csv" | wc -l)" -eq 2 ]
check "the console shows the phases table" grep -qE "^all phases +1000 " "$TMP/out"
wps=$(jq '.phases[0].rate' "$s"); check "writes per second reported ($wps)" awk "BEGIN{exit !($wps > 0)}"
# a phase that cannot start ends the sequence with the preflight exit code
"$LUAMECH" run "$F/phases.lua" -q -w 1 -e MEMCACHED=127.0.0.1:1 -o "$TMP/bad" > /dev/null 2>&1
check "unreachable server in phase 1: exit 4" [ $? -eq 4 ]
check "only the first phase was attempted" [ "$(jq .phases_run "$TMP/bad/summary.json")" -eq 1 ]
finish
