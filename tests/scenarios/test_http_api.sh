# luamech.http against a private nginx: every method, headers, bodies,
# statuses (a 404 is returned but counted as an error, a 302 not), HEAD, a timeout
# against a server that never answers, connection refused; then keep-alive
# checked from the server's side (its access log names each request's
# connection): N VUs keep N connections, keepalive=false opens one connection
# per request, pool=true shares connections between a worker's clients;
# max_body and discard_body, with the connections nginx saw.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_http.sh"
F=$SRC/tests/scenarios/fixtures
start_nginx PORT "$TMP/ng"
LOG=$TMP/ng/access.log

# A server that accepts connections and never answers: a second nginx, stopped.
start_nginx NEVER "$TMP/never"
eval "npid=\$NGINX_PID_$NEVER"
for w in $(pgrep -P "$npid"); do PIDS+=("$w"); done   # so cleanup resumes (and ends) its worker too
pkill -STOP -P "$npid"; kill -STOP "$npid"
# A port nothing listens on.
while :; do REFUSED=$((10000 + RANDOM % 22000)); port_open "$REFUSED" || break; done

# ---- the API, call by call ----
"$LUAMECH" run "$F/http_api.lua" -q -e PORT=$PORT -e NEVER=$NEVER -e REFUSED=$REFUSED \
    -o "$TMP/api" > "$TMP/api.out" 2>&1
check "api run exits 0" [ $? -eq 0 ]
s=$TMP/api/summary.json
check "one transaction" [ "$(timer_count "$s" "All Transactions")" -eq 1 ]
check "the script's checks passed ($(grep -v '^request,' "$TMP/api/errors.csv" | tail -n +2))" \
    [ "$(timer_errors "$s" "All Transactions")" -eq 0 ]
# GET: hello small missing redirect large never(timeout) slow(timeout) refused hello = 9
check "http.get timed 9 times ($(timer_count "$s" http.get))" [ "$(timer_count "$s" http.get)" -eq 9 ]
check "http.get errors: 404, 2 timeouts, refused; the 302 is a success ($(timer_errors "$s" http.get))" \
    [ "$(timer_errors "$s" http.get)" -eq 4 ]
check "http.post timed 4 times, 1 error" [ "$(timer_count "$s" http.post)" -eq 4 -a "$(timer_errors "$s" http.post)" -eq 1 ]
check "http.put timed once" [ "$(timer_count "$s" http.put)" -eq 1 -a "$(timer_errors "$s" http.put)" -eq 0 ]
check "http.delete timed once" [ "$(timer_count "$s" http.delete)" -eq 1 -a "$(timer_errors "$s" http.delete)" -eq 0 ]
check "http.head timed once" [ "$(timer_count "$s" http.head)" -eq 1 -a "$(timer_errors "$s" http.head)" -eq 0 ]
check "named call timed under 'http static'" [ "$(timer_count "$s" "http static")" -eq 1 ]
check "'http static' is a primitive timer" \
    [ "$(jq -r '.timers[] | select(.name == "http static") | .kind' "$s")" = primitive ]
e=$TMP/api/errors.csv
check "404 tallied" grep -q "http.get /missing: status 404" "$e"
check "302 not tallied (200-399 expected by default)" [ "$(grep -c "http.get /redirect" "$e")" -eq 0 ]
check "timeout tallied" grep -q "http.get 127.0.0.1:$NEVER: timeout" "$e"
check "per-request timeout tallied" grep -q "http.get 127.0.0.1:$PORT: timeout" "$e"
check "refused tallied" grep -q "http.get 127.0.0.1:$REFUSED: server down: connect: connection refused" "$e"
check "refused POST tallied" grep -q "http.post 127.0.0.1:$REFUSED: server down: connect: connection refused" "$e"
check "status_2xx counter (10)" [ "$(counter "$s" http.status_2xx)" -eq 10 ]
check "status_3xx counter (1)" [ "$(counter "$s" http.status_3xx)" -eq 1 ]
check "status_4xx counter (1)" [ "$(counter "$s" http.status_4xx)" -eq 1 ]
check "no 5xx" [ "$(counter "$s" http.status_5xx)" -eq 0 ]
# c: 1 connection, and a fresh one after the /slow timeout; the stopped server's backlog: 1
check "http.connects counter (3, got $(counter "$s" http.connects))" [ "$(counter "$s" http.connects)" -eq 3 ]
check "bytes received counted" [ "$(counter "$s" http.bytes_received)" -gt 1048576 ]
check "bytes sent counted" [ "$(counter "$s" http.bytes_sent)" -gt 500 ]
nginx_settle "$LOG"
for line in "GET /hello" "HEAD /small.txt" "PUT /echo" "DELETE /echo" "POST /echo" "GET /missing HTTP/1.1 404" "GET /large.bin"; do
    check "nginx saw '$line'" grep -q "$line" "$LOG"
done
check "nginx saw 3 POSTs (the 4th was refused)" [ "$(nginx_requests "$LOG" "POST /echo")" -eq 3 ]
kill -CONT "$npid"; pkill -CONT -P "$npid"

# ---- keep-alive seen from the server ----
# N VUs, one client each, 2 s: N connections, every request counted.
"$LUAMECH" run "$F/http_keepalive.lua" -q -u 5 -e PORT=$PORT -e URLPATH="/hello?run=ka" -o "$TMP/ka" > /dev/null 2>&1
check "keep-alive run exits 0" [ $? -eq 0 ]
nginx_settle "$LOG"
n=$(timer_count "$TMP/ka/summary.json" http.get)
r=$(nginx_requests "$LOG" "run=ka ")
c=$(nginx_connections "$LOG" "run=ka ")
echo "keep-alive: luamech http.get $n, nginx requests $r on $c connections"
check "keep-alive: many requests" [ "$n" -gt 100 ]
check "keep-alive: nginx requests == luamech http.get" [ "$r" -eq "$n" ]
check "keep-alive: exactly 5 connections for 5 VUs" [ "$c" -eq 5 ]
check "keep-alive: http.connects == 5" [ "$(counter "$TMP/ka/summary.json" http.connects)" -eq 5 ]
check "keep-alive: no errors" [ "$(timer_errors "$TMP/ka/summary.json" http.get)" -eq 0 ]

# keepalive = false: one connection per request.
"$LUAMECH" run "$F/http_keepalive.lua" -q -u 3 -e PORT=$PORT -e KEEPALIVE=0 -e URLPATH="/hello?run=close" -o "$TMP/cl" > /dev/null 2>&1
check "keepalive=false run exits 0" [ $? -eq 0 ]
nginx_settle "$LOG"
n=$(timer_count "$TMP/cl/summary.json" http.get)
r=$(nginx_requests "$LOG" "run=close ")
c=$(nginx_connections "$LOG" "run=close ")
echo "keepalive=false: luamech http.get $n, nginx requests $r on $c connections"
check "keepalive=false: many requests" [ "$n" -gt 50 ]
check "keepalive=false: nginx requests == luamech http.get" [ "$r" -eq "$n" ]
check "keepalive=false: one connection per request" [ "$c" -eq "$r" ]
check "keepalive=false: http.connects == requests" [ "$(counter "$TMP/cl/summary.json" http.connects)" -eq "$n" ]
check "keepalive=false: no errors" [ "$(timer_errors "$TMP/cl/summary.json" http.get)" -eq 0 ]

# pool = true: 3 VUs with 2 clients each on one worker.  Per-VU clients would
# need 6 connections; pooled, at most as many as requests in flight (3).
"$LUAMECH" run "$F/http_keepalive.lua" -q -u 3 -w 1 -e PORT=$PORT -e POOL=1 -e OBJECTS=2 \
    -e URLPATH="/hello?run=pool" -o "$TMP/pool" > /dev/null 2>&1
check "pool run exits 0" [ $? -eq 0 ]
nginx_settle "$LOG"
n=$(timer_count "$TMP/pool/summary.json" http.get)
r=$(nginx_requests "$LOG" "run=pool ")
c=$(nginx_connections "$LOG" "run=pool ")
echo "pool: luamech http.get $n, nginx requests $r on $c connections"
check "pool: nginx requests == luamech http.get" [ "$r" -eq "$n" ]
check "pool: 1..3 connections for 6 clients" [ "$c" -ge 1 -a "$c" -le 3 ]
check "pool: http.connects == connections" [ "$(counter "$TMP/pool/summary.json" http.connects)" -eq "$c" ]
# the same without the pool: 6 connections
"$LUAMECH" run "$F/http_keepalive.lua" -q -u 3 -w 1 -e PORT=$PORT -e OBJECTS=2 \
    -e URLPATH="/hello?run=nopool" -o "$TMP/nopool" > /dev/null 2>&1
nginx_settle "$LOG"
check "no pool: 6 connections for 6 clients" [ "$(nginx_connections "$LOG" "run=nopool ")" -eq 6 ]
# A client shared through luamech.shared and closed by one VU while others
# wait on it: their requests fail with "cancelled", delivered from the loop
# (never by resuming a VU inside another VU's call).
cat > "$TMP/close_vu.lua" <<'LUA'
if luamech.vu_index() == 1 then
  luamech.shared.c = luamech.http.new("http://127.0.0.1:" .. luamech.param("PORT"), { timeout = 10 })
end
return function()
  if luamech.vu_index() == 1 then
    luamech.sleep(0.5)
    luamech.shared.c:close()
  else
    local res, err = luamech.shared.c:get("/slow")
    assert(res == nil and err:find(": cancelled$"), tostring(err))
  end
end
LUA
printf 'return { requests = 3, groups = { { vus = 3, script = "close_vu.lua" } } }\n' > "$TMP/close.lua"
"$LUAMECH" run "$TMP/close.lua" -q -w 1 -e PORT=$PORT -o "$TMP/close" > "$TMP/close.out" 2>&1
check "close with others waiting: exit 0" [ $? -eq 0 ]
check "close with others waiting: 3 transactions, no failures ($(tail -n +2 "$TMP/close/errors.csv" | grep -v ': cancelled'))" \
    [ "$(timer_count "$TMP/close/summary.json" "All Transactions")" -eq 3 -a \
      "$(timer_errors "$TMP/close/summary.json" "All Transactions")" -eq 0 ]
check "close with others waiting: 2 cancelled requests" [ "$(timer_errors "$TMP/close/summary.json" http.get)" -eq 2 ]

# max_body and discard_body (fixtures/http_body_vu.lua asserts the results);
# nginx saw every request, and a refused body closed its connection: 10
# requests on 5 connections (each of the 3 clients has its own; a refusal
# makes the client's next request open a new one, twice).
"$LUAMECH" run "$F/http_body.lua" -q -e PORT=$PORT -o "$TMP/body" > "$TMP/body.out" 2>&1
check "body limits run exits 0" [ $? -eq 0 ]
check "body limits: the script's checks passed ($(grep -v '^request,' "$TMP/body/errors.csv" | tail -n +2))" \
    [ "$(timer_errors "$TMP/body/summary.json" "All Transactions")" -eq 0 ]
check "body limits: 2 refused bodies are http.get errors" [ "$(timer_errors "$TMP/body/summary.json" http.get)" -eq 2 ]
check "body limits: tallied with the limit" grep -qF "http.get 127.0.0.1:$PORT: over a size limit: response body larger than max_body (1000 bytes)" "$TMP/body/errors.csv"
nginx_settle "$LOG"
r=$(nginx_requests "$LOG" "run=body ")
c=$(nginx_connections "$LOG" "run=body ")
echo "body limits: nginx requests $r on $c connections"
check "body limits: nginx saw 10 requests" [ "$r" -eq 10 ]
check "body limits: on 5 connections (a refused body closes its connection)" [ "$c" -eq 5 ]
finish
