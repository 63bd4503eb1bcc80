# http = "auto" against an HTTPS server that speaks HTTP/1.1 only (nginx,
# TLS, no http2): a batch of 4 on a fresh client opens 4 connections, and
# each of them is one request's connect and TLS sample - the one the HTTP/2
# attempt opened (its ALPN answered http/1.1, handed over to HTTP/1.1)
# included: http.connects = nginx's connections = http.connect's and
# http.tls's samples = 4, each request carrying exactly one connection's
# timing (one sample per request), so that no request's latency keeps a
# handshake (the handed-over connection used to go to another request than
# the one carrying its timing: 3 samples, one of them two connections'
# time, and a request timed with the handshake in).  And HTTP/1.1 against
# an h2c-only port (nginx `listen ... http2` without ssl) says what to do
# instead of "protocol error: invalid constant string".
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_http.sh"
D=$TMP/ng
PKI=$TMP/pki
test_pki "$PKI"
S1=$(free_port); HC=$(free_port)
nginx_conf_head "$D" '$connection $server_protocol $request_method $uri $status'
nginx_tls_server "$D" "$S1" "$PKI" 'location = /hello { return 200 "hello"; }'
printf '    server {\n        listen 127.0.0.1:%s http2;\n        location / { return 200 "ok"; }\n    }\n' "$HC" >> "$D/nginx.conf"
nginx_conf_end "$D"
nginx_launch "$D" "$S1" "$HC"
LOG=$D/access.log

cat > "$TMP/s.lua" <<'S'
return { requests = 1, groups = { { name = "g", vus = 1, script = "vu.lua" } } }
S
cat > "$TMP/vu.lua" <<'S'
local c = luamech.http.new("https://127.0.0.1:" .. luamech.param("PORT"),
  { http = luamech.param("HTTP"), tls = { ca_file = luamech.param("CA") } })
return function()
  local res, errs = c:batch({ "/hello", "/hello", "/hello", "/hello" })
  for i = 1, 4 do
    assert(res[i] and res[i].status == 200 and res[i].proto == "HTTP/1.1", errs[i])
  end
end
S
# run NAME HTTP: the batch on a fresh client; sets S (its summary.json)
run() {
    : > "$LOG"
    "$LUAMECH" run "$TMP/s.lua" -q -w 1 -e PORT="$S1" -e HTTP="$2" -e CA="$PKI/ca.pem" -o "$TMP/$1" > "$TMP/$1.out" 2>&1
    RC=$?
    nginx_settle "$LOG"
    S=$TMP/$1/summary.json
}
for mode in 1.1 auto; do
    run "r$mode" "$mode"
    n=$(nginx_connections "$LOG"); cn=$(counter "$S" http.connects)
    tc=$(timer_count "$S" http.connect); tt=$(timer_count "$S" http.tls); tg=$(timer_count "$S" http.get)
    check "http=$mode: the batch passed (exit $RC, $(grep -m1 -i error "$TMP/r$mode.out"))" \
        [ $RC -eq 0 -a "$(nginx_requests "$LOG" ' HTTP/1.1 GET /hello 200')" -eq 4 -a "$tg" -eq 4 ]
    check "http=$mode: 4 connections, each one request's connect and TLS sample (nginx $n, http.connects $cn, http.connect $tc, http.tls $tt)" \
        [ "$n" -eq 4 -a "$cn" -eq 4 -a "$tc" -eq 4 -a "$tt" -eq 4 ]
done

# HTTP/1.1 on an h2c-only port: nginx answers with HTTP/2 frames (SETTINGS,
# then GOAWAY): the message says so and what to use
cat > "$TMP/h.lua" <<'S'
local c = luamech.http.new("http://127.0.0.1:" .. luamech.param("PORT"), { http = luamech.param("HTTP") })
return function()
  local r, e = c:get("/")
  if not r then error(e) end
end
S
for mode in auto 1.1; do
    sed 's/vu.lua/h.lua/' "$TMP/s.lua" > "$TMP/hs.lua"
    "$LUAMECH" run "$TMP/hs.lua" -q -w 1 -e PORT="$HC" -e HTTP="$mode" -o "$TMP/h$mode" > "$TMP/h$mode.out" 2>&1
    msg=$(jq -r '[.request_errors[]?.message] | join("; ")' "$TMP/h$mode/summary.json")
    check "http=$mode on an h2c-only port: says it is HTTP/2 and to use http = \"2\" ($msg)" \
        grep -qF 'protocol error: the server answered in HTTP/2 (h2c): use http = "2"' <<< "$msg"
done
# ... and http = "2" there works
"$LUAMECH" run "$TMP/hs.lua" -q -w 1 -e PORT="$HC" -e HTTP=2 -o "$TMP/h2" > "$TMP/h2.out" 2>&1
check "http=2 on the h2c port: passes (exit $?)" [ "$(timer_errors "$TMP/h2/summary.json" "All Transactions")" = 0 ]
finish
