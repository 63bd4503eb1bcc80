# Requests that leave a client's base origin (issue 12): an absolute
# https:// URL and redirects that cross host or scheme (http -> https,
# https -> http, a scheme-relative Location from an https hop) use pooled
# connections per origin (scheme + host + port) with the client's tls
# options; Secure cookies go back over https only.  nginx with TLS on two
# ports (B, C) and plaintext on A, a CA made by the openssl CLI; what
# luamech timed must equal what each port's access log saw, connection by
# connection; http.dns has one sample per connection to a name (one per client: dns.ttl 300 s).  A wrong CA makes the http -> https redirect fail: counted as
# request errors with the verification message, nothing reaches port B.
# Pooled clients follow one key rule (origin, keep-alive, TLS options).
# A client keeps at most 64 other origins (http_many_origins.py: 150 ports
# redirecting in turn; 20,000 redirects to origins of their own): open
# connections and memory stay bounded.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_http.sh"
F=$SRC/tests/scenarios/fixtures
PKI=$TMP/pki
test_pki "$PKI"
A=$(free_port); B=$(free_port); C=$(free_port)
NG=$TMP/nginx
nginx_conf_head "$NG" '$server_port $connection $scheme $request $status'
cat >> "$NG/nginx.conf" <<EOF
    absolute_redirect off;
    server {
        listen 127.0.0.1:$A;
        location = /to_https { return 302 https://localhost:$B/landed; }
        location = /plain { return 200 "plain"; }
        location = /showcookie { return 200 "cookie:\$http_cookie"; }
    }
EOF
nginx_tls_server "$NG" "$B" "$PKI" \
    'location = /landed { return 200 "landed $scheme"; }' \
    'location = /setsecure { add_header Set-Cookie "s=1; Secure; Path=/"; return 200 "set"; }' \
    'location = /showcookie { return 200 "cookie:$http_cookie"; }' \
    'location = /schemerel { return 302 //localhost:'"$C"'/c; }' \
    'location = /to_http { return 302 http://127.0.0.1:'"$A"'/plain; }'
nginx_tls_server "$NG" "$C" "$PKI" \
    'location = /c { return 200 "c"; }'
nginx_conf_end "$NG"
nginx_launch "$NG" "$A" "$B" "$C"
L=$NG/access.log
run() { # run NAME args...: results in $TMP/NAME, rc in RC
    local name=$1; shift
    "$LUAMECH" run "$F/http_origins.lua" -q -o "$TMP/$name" -e A="$A" -e B="$B" -e C="$C" "$@" \
        > "$TMP/$name.out" 2>&1
    RC=$?
    nginx_settle "$L"
}
logged() { awk -v p="$1" -v r="$2" '$1 == p && $5 == r' "$L" | wc -l; }          # PORT PATH
conns() { awk -v p="$1" '$1 == p { print $2 }' "$L" | sort -u | wc -l; }        # PORT
CA="{ ca_file = '$PKI/ca.pem' }"

run all -e "TLS=$CA"
s=$TMP/all/summary.json
n=$(timer_count "$s" "http to_https")
echo "chains: to_https=$n abs_https=$(timer_count "$s" "http abs_https") | nginx: A /to_https=$(logged "$A" /to_https) B /landed=$(logged "$B" /landed) C /c=$(logged "$C" /c)"
echo "connections: A=$(conns "$A") B=$(conns "$B") C=$(conns "$C") | http.tls=$(timer_count "$s" http.tls) http.redirects=$(counter "$s" http.redirects)"
check "exit 0 (got $RC)" [ "$RC" -eq 0 ]
check "no errors" [ "$(timer_errors "$s" "All Transactions")" -eq 0 ]
check "some load" [ "$n" -gt 20 ]
check "http -> https redirect: every chain reached B over TLS (A /to_https == B /landed == chains)" \
    [ "$(logged "$A" /to_https)" -eq "$n" -a "$(logged "$B" /landed)" -eq "$n" ]
check "B saw only https" [ "$(awk -v p="$B" '$1 == p && $3 != "https"' "$L" | wc -l)" -eq 0 ]
check "absolute https:// URL and the scheme-relative Location both reached C" \
    [ "$(logged "$C" /c)" -eq $(( $(timer_count "$s" "http abs_https") + $(timer_count "$s" "http schemerel") )) ]
check "https -> http redirect reached A's /plain" [ "$(logged "$A" /plain)" -eq "$(timer_count "$s" "http to_http")" ]
check "one kept-alive connection per VU to B (origin localhost:$B)" [ "$(conns "$B")" -eq 2 ]
check "one handshake per TLS connection nginx saw (B and C)" \
    [ "$(timer_count "$s" http.tls)" -eq $(( $(conns "$B") + $(conns "$C") )) ]
check "http.redirects counts every hop (to_https + schemerel + to_http)" \
    [ "$(counter "$s" http.redirects)" -eq $(( n + $(timer_count "$s" "http schemerel") + $(timer_count "$s" "http to_http") )) ]
check "http.dns: one lookup per client and origin (dns.ttl 300 s, one connection each): 2 VUs x localhost:$B, localhost:$A, localhost:$C (127.0.0.1 is not looked up) ($(timer_count "$s" http.dns))" \
    [ "$(timer_count "$s" http.dns)" -eq 6 ]
check "the Secure cookie went back over https (checked in the VU) and never over http" \
    [ "$(timer_count "$s" "http show_http")" -gt 0 -a "$(timer_errors "$s" "http show_https")" -eq 0 ]

: > "$L"
run pool -e "TLS=$CA" -e POOL=1 -d 1s
s=$TMP/pool/summary.json
n=$(timer_count "$s" "http to_https")
check "pool = true: exit 0, no errors (got $RC)" [ "$RC" -eq 0 -a "$(timer_errors "$s" "All Transactions")" -eq 0 ]
check "pool = true: chains == B /landed ($n)" [ "$n" -gt 5 -a "$(logged "$B" /landed)" -eq "$n" ]

: > "$L"
run badca -e "TLS={ ca_file = '$PKI/ca2.pem' }" -e MODE=badca -d 1s
s=$TMP/badca/summary.json
n=$(timer_count "$s" "http to_https")
e=$(grep -E "^request,[0-9]+,\"http.get localhost:$B: TLS error: certificate verification failed" "$TMP/badca/errors.csv" | cut -d, -f2)
echo "wrong CA: chains=$n errors=$(timer_errors "$s" "http to_https") errors.csv=${e:-none} | A /to_https=$(logged "$A" /to_https) B lines=$(awk -v p="$B" '$1 == p' "$L" | wc -l)"
check "wrong CA: every chain failed, as a request error naming B and the verification" \
    [ "$n" -gt 0 -a "$(timer_errors "$s" "http to_https")" -eq "$n" -a "${e:-0}" -eq "$n" ]
check "wrong CA: A saw each first hop, B no request" \
    [ "$(logged "$A" /to_https)" -eq "$n" -a "$(awk -v p="$B" '$1 == p' "$L" | wc -l)" -eq 0 ]

# The one key rule of pooled clients (lm_http_pool_key): objects made with
# pool = true share a client (and so its kept-alive connection) exactly when
# everything that changes a connection is equal: origin (host as written,
# port, scheme), keep-alive and the TLS options.  One VU, requests one after
# another: each distinct key is one connection at nginx.  A key that left
# out keep-alive, the host or a TLS option would share a connection (fewer).
cat > "$TMP/pk_vu.lua" <<'LUA'
local A, B, ca = luamech.param("A"), luamech.param("B"), luamech.param("CA")
local function new(url, o) o.pool = true; return assert(luamech.http.new(url, o)) end
local a = new("http://127.0.0.1:" .. A, {})
local b = new("http://127.0.0.1:" .. A, {})                        -- a's key: a's client
local c = new("http://127.0.0.1:" .. A, { keepalive = false })     -- another keep-alive
local d = new("http://localhost:" .. A, {})                        -- another host
local e = new("https://127.0.0.1:" .. B, { tls = { ca_file = ca } })
local f = new("https://127.0.0.1:" .. B, { tls = { ca_file = ca } })   -- e's key
local g = new("https://127.0.0.1:" .. B, { tls = { ca_file = ca, server_name = "localhost" } })
return function()
  for _, x in ipairs({ { a, "/plain?pk=a" }, { b, "/plain?pk=b" }, { c, "/plain?pk=c" }, { d, "/plain?pk=d" },
                       { a, "/plain?pk=a2" }, { e, "/landed?pk=e" }, { f, "/landed?pk=f" }, { g, "/landed?pk=g" } }) do
    local r, err = x[1]:get(x[2])
    assert(r and r.status == 200, err or x[2])
  end
end
LUA
printf 'return { groups = { { vus = 1, script = "pk_vu.lua" } } }\n' > "$TMP/pk.lua"
: > "$L"
"$LUAMECH" run "$TMP/pk.lua" -q -n 1 -w 1 -o "$TMP/pk" -e A="$A" -e B="$B" -e CA="$PKI/ca.pem" > "$TMP/pk.out" 2>&1
rc=$?
nginx_settle "$L"
pk_conns() { awk -v p="$1" '$1 == p && $5 ~ /pk=/ { print $2 }' "$L" | sort -u | wc -l; }   # PORT
echo "pool keys: A connections $(pk_conns "$A"), B connections $(pk_conns "$B"), requests $(grep -c 'pk=' "$L")"
check "pool keys: the run exits 0 (got $rc: $(tail -2 "$TMP/pk.out"))" [ "$rc" -eq 0 ]
check "pool keys: 8 requests reached nginx" [ "$(grep -c 'pk=' "$L")" -eq 8 ]
check "pool keys: A saw 3 connections (a = b; keepalive = false; localhost)" [ "$(pk_conns "$A")" -eq 3 ]
check "pool keys: B saw 2 connections (e = f; server_name)" [ "$(pk_conns "$B")" -eq 2 ]
# The other origins a client keeps (docs/http.md: at most 64): a server on
# 150 ports whose every answer redirects to the next port (keep-alive),
# one VU, 100 calls of 10 hops each.  Without the bound the client keeps a
# connection open to every port it reached (150 at once at the server);
# with it, the least recently used idle origin is closed for a new one:
# at most 64 + the base URL's open at once (+ 2 for a close the server has
# not read yet).
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
"$PY" "$F/http_many_origins.py" ports 150 "$TMP/many.ports" "$TMP/many.stats" & PIDS+=("$!")
for _ in $(seq 300); do [ -f "$TMP/many.ports" ] && break; sleep 0.05; done
read -r -a MP < "$TMP/many.ports"
cat > "$TMP/many_vu.lua" <<'LUA'
local c = assert(luamech.http.new("http://127.0.0.1:" .. luamech.param("P")))
local k = 0
return function()
  local r, err = c:get("/hop?n=" .. k, { name = "hops" })
  assert(r and r.status == 302 and r.redirects == 10, tostring(err))
  k = k + 11
end
LUA
printf 'return { groups = { { vus = 1, script = "many_vu.lua" } } }\n' > "$TMP/many.lua"
"$LUAMECH" run "$TMP/many.lua" -q -n 100 -w 1 -o "$TMP/many" -e P="${MP[0]}" > "$TMP/many.out" 2>&1
rc=$?
sleep 0.5
st() { jq -r ".$1" "$TMP/many.stats"; }
echo "many origins: exit $rc; the servers saw $(st requests) requests on $(st ports_hit) ports, $(st opened) connections, at most $(st max_open) open at once ($(st open) open now)"
check "many origins: the run exits 0, no errors (got $rc: $(tail -2 "$TMP/many.out"))" \
    [ "$rc" -eq 0 -a "$(timer_errors "$TMP/many/summary.json" "http hops")" -eq 0 ]
check "many origins: every hop reached a server (100 x 11 requests)" [ "$(st requests)" -eq 1100 ]
check "many origins: the chains went through all 150 ports" [ "$(st ports_hit)" -eq 150 ]
check "many origins: at most 64 + 1 (+ 2) connections open at once (got $(st max_open))" \
    [ "$(st max_open)" -le 67 -a "$(st max_open)" -ge 60 ]
check "many origins: the evicted origins' connections were closed (more opened than 150: $(st opened))" \
    [ "$(st opened)" -gt 150 ]

# pool = true: the worker pools the clients of at most 256 other origins
# (LM_HTTP_MAX_POOLED, kept for every object of the worker); past that an
# object's own client, bounded as above.  400 ports, 50 chains of 11 hops
# (377 distinct ports): at most 256 + 64 + 1 (+ 2) open; before the bound
# every port reached stayed open.
"$PY" "$F/http_many_origins.py" ports 400 "$TMP/mp.ports" "$TMP/mp.stats" & PIDS+=("$!")
for _ in $(seq 300); do [ -f "$TMP/mp.ports" ] && break; sleep 0.05; done
read -r -a MPP < "$TMP/mp.ports"
sed 's|luamech.param("P")))|luamech.param("P"), { pool = true }))|' "$TMP/many_vu.lua" > "$TMP/mpool_vu.lua"
printf 'return { groups = { { vus = 1, script = "mpool_vu.lua" } } }\n' > "$TMP/mpool.lua"
"$LUAMECH" run "$TMP/mpool.lua" -q -n 50 -w 1 -o "$TMP/mpool" -e P="${MPP[0]}" > "$TMP/mpool.out" 2>&1
rc=$?
sleep 0.5
sp() { jq -r ".$1" "$TMP/mp.stats"; }
echo "pooled, many origins: exit $rc; $(sp requests) requests on $(sp ports_hit) ports, $(sp opened) connections, at most $(sp max_open) open at once"
check "pooled, many origins: exit 0, no errors, 550 requests on more than 323 ports (got $rc)" \
    [ "$rc" -eq 0 -a "$(timer_errors "$TMP/mpool/summary.json" "http hops")" -eq 0 -a "$(sp requests)" -eq 550 -a "$(sp ports_hit)" -gt 323 ]
check "pooled, many origins: more than 256 open at once (the pooled ones stay), at most 256 + 64 + 3 (got $(sp max_open))" \
    [ "$(sp max_open)" -gt 256 -a "$(sp max_open)" -le 323 ]

# Memory: 20,000 redirects each to an origin of its own (127.a.b.c:1, which
# refuses: one failed hop per call) against 20,000 to one origin.  Before
# the bound the first kept every origin's client (74.5 MB against 8.7 MB).
for mode in same distinct; do
    "$PY" "$F/http_many_origins.py" refused "$mode" "$TMP/ref_$mode.port" & PIDS+=("$!")
    for _ in $(seq 300); do [ -f "$TMP/ref_$mode.port" ] && break; sleep 0.05; done
    cat > "$TMP/ref_vu.lua" <<'LUA'
local c = assert(luamech.http.new("http://127.0.0.1:" .. luamech.param("P")))
return function() c:get("/r", { name = "refused" }) end
LUA
    printf 'return { groups = { { vus = 1, script = "ref_vu.lua" } } }\n' > "$TMP/ref.lua"
    /usr/bin/time -o "$TMP/ref_$mode.time" -f '%M' \
        "$LUAMECH" run "$TMP/ref.lua" -q -n 20000 -w 1 -o "$TMP/ref_$mode" -e P="$(cat "$TMP/ref_$mode.port")" \
        > "$TMP/ref_$mode.out" 2>&1
    printf -v "RSS_$mode" '%s' "$(( $(tail -n 1 "$TMP/ref_$mode.time") / 1024 ))"
    printf -v "ERR_$mode" '%s' "$(timer_errors "$TMP/ref_$mode/summary.json" "http refused")"
done
echo "20,000 redirects: peak RSS $RSS_same MB to one origin, $RSS_distinct MB to 20,000 ($ERR_same, $ERR_distinct failed calls)"
check "20,000 redirects: every call failed at its refused hop (counted)" \
    [ "$ERR_same" -eq 20000 -a "$ERR_distinct" -eq 20000 ]
# SAN_MB: a sanitizer build keeps freed memory in quarantine (up to 256 MB)
SAN_MB=0
ldd "$LUAMECH" 2>/dev/null | grep -q libasan && SAN_MB=260
check "20,000 origins cost at most 16 MB more than one ($RSS_distinct vs $RSS_same MB, + $SAN_MB for a sanitizer)" \
    [ "$RSS_distinct" -le $((RSS_same + 16 + SAN_MB)) ]
finish
