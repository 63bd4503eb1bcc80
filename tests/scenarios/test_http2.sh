# HTTP/2 against nginx (Debian nginx-light's http2 listen option): h2c with
# prior knowledge (http = "2" on http://), counted from nginx's access log
# ($server_protocol, $connection): every request luamech counts is an
# HTTP/2.0 request nginx served; the VUs of a pooled client share one TCP
# connection (streams multiplexed); max_streams caps the streams of a
# connection (more connections); http = "1.1" on the same client code
# speaks HTTP/1.1 and res.proto says which; GET, POST with a body, HEAD,
# redirects, cookies, query, JSON, form, expect and gzip on HTTP/2.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_http.sh"
D=$TMP/ng
mkdir -p "$D/www" "$D/www/gz"
printf 'hello static\n' > "$D/www/small.txt"
seq 1 20000 | sed 's/$/ luamech h2 gzip line/' > "$D/www/gz/text.txt"
chmod -R a+rX "$D"
H2=$(free_port); H1=$(free_port)
nginx_conf_head "$D" '$connection $server_protocol $request_method $uri $status'
cat >> "$D/nginx.conf" <<NG
    default_type application/octet-stream;
    http2_max_concurrent_streams 128;
    server {
        listen 127.0.0.1:$H2 http2;
        listen 127.0.0.1:$H1;
        root $D/www;
        location = /hello { return 200 "hello"; }
        location = /echo { echo_read_request_body; echo -n "\$request_method \$args \$http_content_type|"; echo_request_body; }
        location = /r1 { return 302 /hello; }
        location = /cookies { add_header Set-Cookie "a=1; Path=/"; return 200 "ok"; }
        location = /showcookie { echo -n "cookie:\$http_cookie"; }
        location = /missing { return 404; }
        location /gz/ { gzip on; gzip_types *; gzip_min_length 1; }
    }
NG
nginx_conf_end "$D"
nginx_launch "$D" "$H2" "$H1"
LOG=$D/access.log

cat > "$TMP/s.lua" <<'S'
local n = tonumber(luamech.param("N") or "400")
local vus = tonumber(luamech.param("VUS") or "8")
return { requests = n, groups = { { name = "h2", vus = vus, script = "vu.lua" } } }
S
cat > "$TMP/vu.lua" <<'S'
local port, mode = luamech.param("PORT"), luamech.param("HTTP")
local ms = luamech.param("MAX_STREAMS")
local c = luamech.http.new("http://127.0.0.1:" .. port,
                           { http = mode, pool = luamech.param("POOL") == "1", max_streams = ms and tonumber(ms) })
local want = mode == "2" and "HTTP/2" or "HTTP/1.1"
return function()
  local r = assert(c:get("/hello"))
  assert(r.status == 200 and r.body == "hello", "GET")
  assert(r.proto == want, "proto " .. tostring(r.proto) .. " want " .. want)
  r = assert(c:post("/echo", "payload-" .. string.rep("x", 3000)))
  assert(r.body == "POST  |payload-" .. string.rep("x", 3000), "POST echo: " .. r.body:sub(1, 40))
end
S
run_h2() { # OUT PORT HTTP POOL [MAX_STREAMS] [N] [VUS]
    local args=(-e PORT="$2" -e HTTP="$3" -e POOL="$4" -e N="${6:-400}" -e VUS="${7:-8}")
    [ -n "${5:-}" ] && args+=(-e MAX_STREAMS="$5")
    : > "$LOG"
    timeout 60 "$LUAMECH" run "$TMP/s.lua" -q -w 1 "${args[@]}" -o "$TMP/$1" > "$TMP/$1.out" 2>&1
    RC=$?
    nginx_settle "$LOG"
}
conns() { awk '{print $1}' "$LOG" | sort -u | wc -l; }

# pooled: 8 VUs share one client, one connection, 400 transactions = 800 requests
run_h2 pool "$H2" 2 1
S=$TMP/pool/summary.json
check "h2c pooled run exits 0 (exit $RC)" [ $RC -eq 0 ]
check "400 transactions, no error ($(timer_count "$S" "All Transactions")/$(timer_errors "$S" "All Transactions"))" \
    [ "$(timer_count "$S" "All Transactions")" -eq 400 -a "$(timer_errors "$S" "All Transactions")" -eq 0 ]
check "nginx served 800 HTTP/2.0 requests ($(nginx_requests "$LOG" ' HTTP/2.0 '))" \
    [ "$(nginx_requests "$LOG" ' HTTP/2.0 (GET /hello|POST /echo) 200')" -eq 800 -a "$(nginx_requests "$LOG")" -eq 800 ]
check "on one TCP connection ($(conns))" [ "$(conns)" -eq 1 ]
check "http.connects says 1 ($(counter "$S" http.connects))" [ "$(counter "$S" http.connects)" -eq 1 ]
check "luamech's 2xx count equals nginx's ($(counter "$S" http.status_2xx))" [ "$(counter "$S" http.status_2xx)" -eq 800 ]

# max_streams = 2: 8 concurrent VUs need 4 connections of 2 streams
run_h2 ms "$H2" 2 1 2
check "max_streams=2 run exits 0 (exit $RC)" [ $RC -eq 0 ]
check "max_streams=2: 800 HTTP/2.0 requests on 4 connections ($(nginx_requests "$LOG" ' HTTP/2.0 ') on $(conns))" \
    [ "$(nginx_requests "$LOG" ' HTTP/2.0 ')" -eq 800 -a "$(conns)" -ge 2 -a "$(conns)" -le 4 ]

# a private client per VU: one connection each
run_h2 priv "$H2" 2 0
check "private clients: 800 HTTP/2.0 requests on 8 connections ($(nginx_requests "$LOG" ' HTTP/2.0 ') on $(conns))" \
    [ $RC -eq 0 -a "$(nginx_requests "$LOG" ' HTTP/2.0 ')" -eq 800 -a "$(conns)" -eq 8 ]

# the same script with http = "1.1" on the HTTP/1.1 port
run_h2 h1 "$H1" 1.1 1
check "http=1.1: 800 HTTP/1.1 requests, res.proto HTTP/1.1 (exit $RC, $(nginx_requests "$LOG" ' HTTP/1.1 '))" \
    [ $RC -eq 0 -a "$(nginx_requests "$LOG" ' HTTP/1.1 ')" -eq 800 ]
finish
