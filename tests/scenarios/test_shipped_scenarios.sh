# Every shipped scenario runs, shortened, through scripts/run-local.sh (the
# README's way) against private servers, and completes without errors.
. "$(dirname "$0")/lib.sh"
cd "$SRC"
# scenario | options that shorten it
while IFS='|' read -r sc opts; do
    [ -z "$sc" ] && continue
    case $sc in suites/*) pre=--suite ;; *) pre= ;; esac
    LUAMECH=$LUAMECH bash scripts/run-local.sh $pre "scenarios/$sc" $opts -q -o "$TMP/${sc//\//_}" > "$TMP/${sc//\//_}.out" 2>&1
    rc=$?
    s=$TMP/${sc//\//_}/summary.json
    if [ $rc -ne 0 ]; then fail "$sc exited $rc: $(tail -5 "$TMP/${sc//\//_}.out")"; continue; fi
    if jq -e '.phases' "$s" > /dev/null 2>&1; then
        tx=$(jq '[.phases[].transactions] | add' "$s"); err=$(jq '[.phases[].errors] | add' "$s")
    else
        tx=$(timer_count "$s" "All Transactions"); err=$(timer_errors "$s" "All Transactions")
    fi
    check "$sc: $tx transactions, $err errors" [ "$tx" -gt 0 -a "$err" -eq 0 ]
done <<'LIST'
membase.lua|-d 2s -r 1s -i 1s -u 5
example.lua|-d 1s
redis_crud.lua|-n 2000 -u 20
redis_cluster.lua|-d 2s -i 1s -u 10
http_kv_get.lua|-e REQUESTS=500 -u 5
http_rest.lua|-n 1000 -u 10
http_api.lua|-n 200 -u 5
ws_echo.lua|-d 2s -u 5
grpc_greeter.lua|-n 300 -u 10
kv_correctness.lua|-e N=500
kv_performance.lua|-e N=1000
suites/http_kv_get_sweep.lua|-e REQUESTS=300
LIST
finish
