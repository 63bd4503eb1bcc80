# Every shipped scenario runs, shortened, through scripts/run-local.sh (the
# README's way) against private servers, and completes without errors.
. "$(dirname "$0")/lib.sh"
cd "$SRC"
# scenario | options that shorten it
while IFS='|' read -r sc opts; do
    [ -z "$sc" ] && continue
    case $sc in suites/*) pre=--suite ;; *) pre= ;; esac
    API_H2_ACCESS_LOG=$TMP/${sc//\//_}.h2.log LUAMECH=$LUAMECH bash scripts/run-local.sh $pre "scenarios/$sc" $opts \
        -q -o "$TMP/${sc//\//_}" > "$TMP/${sc//\//_}.out" 2>&1
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
http2_api.lua|-n 300 -u 10 -w 2
LIST
# http2_api.lua at its server (the API's HTTP/2 listener): 4 requests a
# transaction, every one HTTP/2.0, the VUs of each of the 2 workers sharing
# one TLS connection
L=$TMP/http2_api.lua.h2.log
for _ in 1 2 3 4 5 6 7 8 9 10; do [ "$(wc -l < "$L" 2>/dev/null || echo 0)" -ge 1200 ] && break; sleep 0.2; done
check "http2_api.lua: nginx served 1200 HTTP/2.0 requests ($(grep -c ' HTTP/2.0 ' "$L") of $(wc -l < "$L"))" \
    [ "$(grep -c ' HTTP/2.0 [A-Z]* /api/[a-z]* 200$' "$L")" -eq 1200 -a "$(wc -l < "$L")" -eq 1200 ]
check "http2_api.lua: on 2 connections, one per worker ($(awk '{print $1}' "$L" | sort -u | wc -l))" \
    [ "$(awk '{print $1}' "$L" | sort -u | wc -l)" -eq 2 ]
finish
