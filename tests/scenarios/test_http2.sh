# HTTP/2 against nginx (Debian nginx-light's http2 listen option): h2c with
# prior knowledge (http = "2" on http://), counted from nginx's access log
# ($server_protocol, $connection): every request luamech counts is an
# HTTP/2.0 request nginx served; the VUs of a pooled client share one TCP
# connection (streams multiplexed); max_streams caps the streams of a
# connection (more connections); http = "1.1" on the same client code
# speaks HTTP/1.1 and res.proto says which; GET, POST with a body, HEAD,
# redirects, cookies, query, JSON, form, expect and gzip on HTTP/2.  Over
# TLS: ALPN (auto, the default on https://, opens exactly the connections
# http = "1.1" opens on an HTTP/1.1-only server: nginx's stub_status counts
# them), a redirect chain h2 -> HTTP/1.1 -> h2 counted at both servers.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_http.sh"
D=$TMP/ng
mkdir -p "$D/www" "$D/www/gz"
printf 'hello static\n' > "$D/www/small.txt"
head -c 3145728 /dev/urandom > "$D/www/large.bin"
seq 1 20000 | sed 's/$/ luamech h2 gzip line/' > "$D/www/gz/text.txt"
chmod -R a+rX "$D"
H2=$(free_port); H1=$(free_port); S2=$(free_port); S1=$(free_port); R2=$(free_port); R1=$(free_port)
PKI=$TMP/pki
test_pki "$PKI"
nginx_conf_head "$D" '$connection $server_protocol $request_method $uri $status'
cat >> "$D/nginx.conf" <<NG
    default_type application/octet-stream;
    http2_max_concurrent_streams 128;
    client_max_body_size 8m;
    client_body_buffer_size 8m;
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
        location = /status { access_log off; stub_status; }
    }
    server {
        listen 127.0.0.1:$S2 ssl http2;
        listen 127.0.0.1:$S1 ssl;
        ssl_certificate $PKI/server.pem;
        ssl_certificate_key $PKI/server.key;
        location = /hello { return 200 "hello"; }
        location = /echo { echo_read_request_body; echo -n "\$request_method \$args \$http_content_type|"; echo_request_body; }
    }
    server {
        listen 127.0.0.1:$R2 ssl http2;
        ssl_certificate $PKI/server.pem;
        ssl_certificate_key $PKI/server.key;
        access_log $D/r2.log lm;
        location = /start { return 302 https://127.0.0.1:$R1/mid; }
        location = /end { return 200 "end"; }
    }
    server {
        listen 127.0.0.1:$R1 ssl;
        ssl_certificate $PKI/server.pem;
        ssl_certificate_key $PKI/server.key;
        access_log $D/r1.log lm;
        location = /mid { return 302 https://127.0.0.1:$R2/end; }
    }
NG
nginx_conf_end "$D"
nginx_launch "$D" "$H2" "$H1" "$S2" "$S1" "$R2" "$R1"
LOG=$D/access.log

cat > "$TMP/s.lua" <<'S'
local n = tonumber(luamech.param("N") or "400")
local vus = tonumber(luamech.param("VUS") or "8")
return { requests = n, groups = { { name = "h2", vus = vus, script = "vu.lua" } } }
S
cat > "$TMP/vu.lua" <<'S'
local port, mode = luamech.param("PORT"), luamech.param("HTTP")
if mode == "" then mode = nil end   -- the default
local ms, ca = luamech.param("MAX_STREAMS"), luamech.param("CA")
local c = luamech.http.new((ca and "https" or "http") .. "://127.0.0.1:" .. port,
                           { http = mode, pool = luamech.param("POOL") == "1", max_streams = ms and tonumber(ms),
                             tls = ca and { ca_file = ca } or nil })
local want = luamech.param("WANT") or (mode == "2" and "HTTP/2" or "HTTP/1.1")
return function()
  local r = assert(c:get("/hello"))
  assert(r.status == 200 and r.body == "hello", "GET")
  assert(r.proto == want, "proto " .. tostring(r.proto) .. " want " .. want)
  r = assert(c:post("/echo", "payload-" .. string.rep("x", 3000)))
  assert(r.body == "POST  |payload-" .. string.rep("x", 3000), "POST echo: " .. r.body:sub(1, 40))
end
S
run_h2() { # OUT PORT HTTP POOL [MAX_STREAMS] [N] [VUS] [extra -e ...]
    local args=(-e PORT="$2" -e HTTP="$3" -e POOL="$4" -e N="${6:-400}" -e VUS="${7:-8}")
    [ -n "${5:-}" ] && args+=(-e MAX_STREAMS="$5")
    args+=("${@:8}")
    : > "$LOG"
    timeout 60 "$LUAMECH" run "$TMP/s.lua" -q -w 1 "${args[@]}" -o "$TMP/$1" > "$TMP/$1.out" 2>&1
    RC=$?
    nginx_settle "$LOG"
}
conns() { awk '{print $1}' "$LOG" | sort -u | wc -l; }
# every TCP connection nginx accepted, those that never carried a request
# included (stub_status's "accepts"; the access log sees only the others)
accepts() { curl -s "http://127.0.0.1:$H1/status" | awk 'NR == 3 {print $1}'; }
# run_accepts OUT ARGS...: run_h2 OUT ARGS..., ACC = connections nginx accepted for it
run_accepts() {
    local a0 a1
    a0=$(accepts)
    run_h2 "$@"
    a1=$(accepts)
    ACC=$((a1 - a0 - 1))      # less the status request's own
}

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

# everything the HTTP/1.1 client does, on HTTP/2 (h2c), one private client per VU:
# methods, JSON, form, query, cookies, redirects, gzip, expect, tags, HEAD,
# discard_body, a batch of 20 as concurrent streams of one connection, and
# flow control both ways: a 3 MiB response (over the 1 MiB stream window)
# and a 2 MiB request body (over nginx's 64 KiB initial window)
cat > "$TMP/p.lua" <<'S'
return { requests = 1, groups = { { name = "parity", vus = 1, script = "pvu.lua" } } }
S
cat > "$TMP/pvu.lua" <<'S'
local port, www = luamech.param("PORT"), luamech.param("WWW")
local c = luamech.http.new("http://127.0.0.1:" .. port, { http = "2", tags = { proto = "h2" } })
local function slurp(p) local f = assert(io.open(p, "rb")); local d = f:read("*a"); f:close(); return d end
local large, text = slurp(www .. "/large.bin"), slurp(www .. "/gz/text.txt")
return function()
  local r = assert(c:post("/echo", nil, { json = { a = 1 }, query = { q = "a b" } }))
  assert(r.proto == "HTTP/2" and r.body == 'POST q=a%20b application/json|{"a":1}', "json+query: " .. r.body)
  r = assert(c:post("/echo", nil, { form = { u = "ada" } }))
  assert(r.body == "POST  application/x-www-form-urlencoded|u=ada", "form: " .. r.body)
  for _, m in ipairs({ "PUT", "PATCH", "DELETE", "OPTIONS" }) do
    r = assert(c:request(m, "/echo", { body = m == "PUT" and "p" or nil }))
    assert(r.body:sub(1, #m) == m, m .. ": " .. r.body)
  end
  r = assert(c:head("/small.txt"))
  assert(r.status == 200 and r.body == "" and r.headers["content-length"] == "13", "HEAD")
  r = assert(c:get("/cookies"))
  assert(r.cookies.a == "1", "cookie set")
  r = assert(c:get("/showcookie"))
  assert(r.body == "cookie:a=1", "cookie sent: " .. r.body)
  for _, v in ipairs({ "x=1", "x=1", "x=2", "x=2", "x=30", "x=30" }) do   -- a record's header list reused only when equal
    r = assert(c:get("/showcookie", { headers = { Cookie = v } }))
    assert(r.body == "cookie:" .. v, "the request's own header (" .. v .. "): " .. r.body)
  end
  r = assert(c:get("/r1"))
  assert(r.body == "hello" and r.redirects == 1, "redirect")
  r = assert(c:get("/gz/text.txt"))
  assert(r.headers["content-encoding"] == "gzip" and r.body == text, "gzip")
  r = assert(c:get("/missing", { expect = 404, tags = { kind = "miss" } }))
  assert(r.status == 404, "expect")
  r = assert(c:get("/large.bin"))
  assert(r.body == large, "3 MiB body: " .. #r.body)
  r = assert(c:get("/large.bin", { discard_body = true }))
  assert(r.body == nil and r.body_bytes == #large, "discard_body")
  local big = string.rep("0123456789abcdef", 131072)
  r = assert(c:post("/echo", big))
  assert(r.body == "POST  |" .. big, "2 MiB request body: " .. #r.body)
  local reqs = {}
  for i = 1, 20 do reqs[i] = "/hello" end
  local res, errs = c:batch(reqs)
  for i = 1, 20 do assert(res[i] and res[i].body == "hello", errs[i]) end
end
S
: > "$LOG"
timeout 60 "$LUAMECH" run "$TMP/p.lua" -q -w 1 -e PORT="$H2" -e WWW="$D/www" -o "$TMP/par" > "$TMP/par.out" 2>&1
RC=$?
nginx_settle "$LOG"
S=$TMP/par/summary.json
check "parity transaction passed (exit $RC, $(grep -v '^source' "$TMP/par/errors.csv" | head -2))" \
    [ $RC -eq 0 -a "$(timer_count "$S" "All Transactions")" -eq 1 -a "$(timer_errors "$S" "All Transactions")" -eq 0 ]
check "nginx served all 42 of them over HTTP/2.0 ($(nginx_requests "$LOG" ' HTTP/2.0 ') of $(nginx_requests "$LOG"))" \
    [ "$(nginx_requests "$LOG" ' HTTP/2.0 ')" -eq 42 -a "$(nginx_requests "$LOG")" -eq 42 ]
check "on one connection, the batch's 20 streams included ($(conns))" [ "$(conns)" -eq 1 ]
check "tagged timer and breakdown timers are there" \
    [ "$(timer_count "$S" "http.get{kind=miss,proto=h2}")" -eq 1 -a "$(timer_count "$S" http.wait)" -eq 42 -a "$(timer_count "$S" http.connect)" -eq 1 ]

# https: ALPN.  http = "auto" on a server offering h2: HTTP/2, one connection
run_h2 sauto "$S2" auto 1 "" 400 8 -e CA="$PKI/ca.pem" -e WANT=HTTP/2
S=$TMP/sauto/summary.json
check "https auto, h2 server: 800 HTTP/2.0 requests on 1 connection (exit $RC, $(nginx_requests "$LOG" ' HTTP/2.0 ') on $(conns))" \
    [ $RC -eq 0 -a "$(nginx_requests "$LOG" ' HTTP/2.0 ')" -eq 800 -a "$(conns)" -eq 1 ]
check "one TLS handshake ($(counter "$S" http.tls_handshakes)) and one connect ($(counter "$S" http.connects))" \
    [ "$(counter "$S" http.connects)" -eq 1 ]
# auto on a server without h2: HTTP/1.1 on the connection whose ALPN
# selected it (handed to the HTTP/1.1 path: no second handshake), so as
# many connections as http = "1.1", counted by nginx (accepted, and in the
# access log): 1 VU, then 8 VUs with a client each
run_accepts sauto1 "$S1" auto 1 "" 400 8 -e CA="$PKI/ca.pem" -e WANT=HTTP/1.1
check "https auto, HTTP/1.1-only server: 800 HTTP/1.1 requests (exit $RC, $(nginx_requests "$LOG" ' HTTP/1.1 '))" \
    [ $RC -eq 0 -a "$(nginx_requests "$LOG" ' HTTP/1.1 ')" -eq 800 -a "$(nginx_requests "$LOG")" -eq 800 ]
for vus_pool in "1 1" "8 0"; do
    set -- $vus_pool
    run_accepts ca11 "$S1" 1.1 "$2" "" 100 "$1" -e CA="$PKI/ca.pem"
    A11=$ACC C11=$(conns) R11=$RC
    run_accepts caut "$S1" auto "$2" "" 100 "$1" -e CA="$PKI/ca.pem" -e WANT=HTTP/1.1
    check "$1 VU(s), HTTP/1.1-only server: auto opens as many connections as 1.1 (accepted $ACC vs $A11, in the log $(conns) vs $C11, exit $RC/$R11)" \
        [ $RC -eq 0 -a $R11 -eq 0 -a "$ACC" -eq "$A11" -a "$(conns)" -eq "$C11" -a "$ACC" -eq "$1" ]
    check "$1 VU(s): the handed-over connections are counted once, their handshakes timed (http.connects $(counter "$TMP/caut/summary.json" http.connects), http.tls count $(timer_count "$TMP/caut/summary.json" http.tls) vs $(timer_count "$TMP/ca11/summary.json" http.tls))" \
        [ "$(counter "$TMP/caut/summary.json" http.connects)" -eq "$1" -a "$(timer_count "$TMP/caut/summary.json" http.tls)" -eq "$1" \
          -a "$(timer_count "$TMP/ca11/summary.json" http.tls)" -eq "$1" ]
done
# the default on https:// is auto: HTTP/2 on the h2 listener, HTTP/1.1 on the other
run_accepts sdef2 "$S2" "" 1 "" 100 4 -e CA="$PKI/ca.pem" -e WANT=HTTP/2
check "https default on an h2 server: 200 HTTP/2.0 requests on 1 connection (exit $RC, $(nginx_requests "$LOG" ' HTTP/2.0 ') on $(conns), accepted $ACC)" \
    [ $RC -eq 0 -a "$(nginx_requests "$LOG" ' HTTP/2.0 ')" -eq 200 -a "$(conns)" -eq 1 -a "$ACC" -eq 1 ]
run_accepts sdef1 "$S1" "" 0 "" 100 4 -e CA="$PKI/ca.pem" -e WANT=HTTP/1.1
check "https default on an HTTP/1.1-only server: 200 HTTP/1.1 requests on 4 connections (exit $RC, $(nginx_requests "$LOG" ' HTTP/1.1 ') on $(conns), accepted $ACC)" \
    [ $RC -eq 0 -a "$(nginx_requests "$LOG" ' HTTP/1.1 ')" -eq 200 -a "$(conns)" -eq 4 -a "$ACC" -eq 4 ]
# plaintext http:// stays HTTP/1.1 by default (h2c only with http = "2")
run_h2 pdef "$H1" "" 1 "" 100 4 -e WANT=HTTP/1.1
check "http:// default: HTTP/1.1 (exit $RC, $(nginx_requests "$LOG" ' HTTP/1.1 ') HTTP/1.1 requests)" \
    [ $RC -eq 0 -a "$(nginx_requests "$LOG" ' HTTP/1.1 ')" -eq 200 ]
# a redirect that changes protocol: an h2 server sends to an HTTP/1.1-only
# one, which sends back (https, the default auto): each hop on the
# protocol its server negotiated, counted at both servers' logs
cat > "$TMP/rvu.lua" <<'S'
local c = luamech.http.new("https://127.0.0.1:" .. luamech.param("R2"), { tls = { ca_file = luamech.param("CA") } })
return function()
  local r = assert(c:get("/start"))
  assert(r.status == 200 and r.body == "end" and r.redirects == 2, "redirects: " .. r.status .. " " .. r.redirects)
  assert(r.proto == "HTTP/2", "the last hop's proto: " .. tostring(r.proto))
end
S
printf 'return { requests = 60, groups = { { name = "r", vus = 3, script = "rvu.lua" } } }\n' > "$TMP/r.lua"
: > "$D/r1.log"; : > "$D/r2.log"
timeout 60 "$LUAMECH" run "$TMP/r.lua" -q -w 1 -e R2="$R2" -e CA="$PKI/ca.pem" -o "$TMP/redir" > "$TMP/redir.out" 2>&1
RC=$?
nginx_settle "$D/r1.log"; nginx_settle "$D/r2.log"
S=$TMP/redir/summary.json
check "cross-protocol redirects: 60 transactions, no error (exit $RC, $(timer_errors "$S" "All Transactions") errors)" \
    [ $RC -eq 0 -a "$(timer_count "$S" "All Transactions")" -eq 60 -a "$(timer_errors "$S" "All Transactions")" -eq 0 ]
check "the h2 server saw 60 HTTP/2.0 /start 302 and 60 HTTP/2.0 /end 200 ($(grep -c ' HTTP/2.0 GET /start 302$' "$D/r2.log"), $(grep -c ' HTTP/2.0 GET /end 200$' "$D/r2.log") of $(wc -l < "$D/r2.log"))" \
    [ "$(grep -c ' HTTP/2.0 GET /start 302$' "$D/r2.log")" -eq 60 -a "$(grep -c ' HTTP/2.0 GET /end 200$' "$D/r2.log")" -eq 60 \
      -a "$(wc -l < "$D/r2.log")" -eq 120 ]
check "the HTTP/1.1-only server saw 60 HTTP/1.1 /mid 302 ($(grep -c ' HTTP/1.1 GET /mid 302$' "$D/r1.log") of $(wc -l < "$D/r1.log"))" \
    [ "$(grep -c ' HTTP/1.1 GET /mid 302$' "$D/r1.log")" -eq 60 -a "$(wc -l < "$D/r1.log")" -eq 60 ]
check "one connection per VU at each server ($(awk '{print $1}' "$D/r2.log" | sort -u | wc -l) h2, $(awk '{print $1}' "$D/r1.log" | sort -u | wc -l) HTTP/1.1)" \
    [ "$(awk '{print $1}' "$D/r2.log" | sort -u | wc -l)" -eq 3 -a "$(awk '{print $1}' "$D/r1.log" | sort -u | wc -l)" -eq 3 ]
check "http.redirects says 120 ($(counter "$S" http.redirects))" [ "$(counter "$S" http.redirects)" -eq 120 ]
# "2" requires h2 (it offers h2 alone): nginx refuses the handshake (no_application_protocol), every request fails with the reason
run_h2 sreq "$S1" 2 1 "" 20 2 -e CA="$PKI/ca.pem"
check "https http=2 on an HTTP/1.1-only server: 20 failed transactions, nothing served (exit $RC, $(timer_errors "$TMP/sreq/summary.json" "All Transactions"), $(nginx_requests "$LOG"))" \
    [ "$(timer_errors "$TMP/sreq/summary.json" "All Transactions")" -eq 20 -a "$(nginx_requests "$LOG")" -eq 0 ]
check "the reason is tallied" grep -q ': TLS error: .*no application protocol' "$TMP/sreq/errors.csv"
# "1.1" never offers h2
run_h2 s11 "$S2" 1.1 1 "" 400 8 -e CA="$PKI/ca.pem"
check "https http=1.1 on an h2 server: 800 HTTP/1.1 requests (exit $RC, $(nginx_requests "$LOG" ' HTTP/1.1 '))" \
    [ $RC -eq 0 -a "$(nginx_requests "$LOG" ' HTTP/1.1 ')" -eq 800 ]
# https http=2 with 8 private clients: 8 connections
run_h2 s2 "$S2" 2 0 "" 400 8 -e CA="$PKI/ca.pem"
check "https http=2: 800 HTTP/2.0 requests on 8 connections (exit $RC, $(nginx_requests "$LOG" ' HTTP/2.0 ') on $(conns))" \
    [ $RC -eq 0 -a "$(nginx_requests "$LOG" ' HTTP/2.0 ')" -eq 800 -a "$(conns)" -eq 8 ]
finish
