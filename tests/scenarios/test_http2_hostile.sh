# Hostile HTTP/2 servers (fixtures/h2_hostile.py writes raw frames): streams
# reset, GOAWAY mid-run, a frame on stream 0, a huge HPACK table size, no
# flow-control window, a SETTINGS flood, 0 concurrent streams allowed, a
# stream's own error after another's; a plaintext client on a TLS port.
# (Stream ids used up and PINGs to a client whose bytes are never read:
# tests/integration/test_http2_hostile.c.)  Each run ends on time with its
# failures counted (as the server counted them) and bounded memory;
# requests the server never processed (above a GOAWAY's last stream) are
# sent again on a new connection and succeed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_http.sh"
cat > "$TMP/s.lua" <<'S'
return { requests = tonumber(luamech.param("N")), run_time = "8s",
         groups = { { name = "h", vus = 2, script = "vu.lua" } } }
S
cat > "$TMP/vu.lua" <<'S'
local c = luamech.http.new("http://127.0.0.1:" .. luamech.param("PORT"),
  { http = "2", pool = true, timeout = tonumber(luamech.param("TMO") or "0.5") })
local post = luamech.param("POST") == "1"
return function()
  local r, err
  if post then r, err = c:post("/x", "body") else r, err = c:get("/x") end
  assert(r, err)
  assert(r.status == 200 and r.body == "ok" and r.proto == "HTTP/2", "response")
end
S
hostile() { # MODE N [POST [TMO]]
    local port
    port=$(free_port)
    python3 "$SRC/tests/scenarios/fixtures/h2_hostile.py" "$port" "$1" "$TMP/$1.counts" &
    PIDS+=($!)
    for _ in $(seq 60); do port_open "$port" && break; sleep 0.05; done
    local t0=$SECONDS
    /usr/bin/time -f '%M' -o "$TMP/$1.rss" timeout 30 "$LUAMECH" run "$TMP/s.lua" -q -w 1 -e PORT="$port" \
        -e N="$2" -e POST="${3:-0}" -e TMO="${4:-0.5}" -o "$TMP/$1" > "$TMP/$1.out" 2>&1
    RC=$?
    EL=$((SECONDS - t0))
    S=$TMP/$1/summary.json
    E=$TMP/$1/errors.csv
    read -r CONNS REQS SERVED RSTS GOAWAYS GOAWAYS_IN PEAK TOP < "$TMP/$1.counts"
    TX=$(timer_count "$S" "All Transactions"); ERRS=$(timer_errors "$S" "All Transactions")
    RSS=$(tail -1 "$TMP/$1.rss")
    check "$1: exit 0 within 10 s, rss < 150 MB (exit $RC, ${EL}s, ${RSS} KB)" [ $RC -eq 0 -a $EL -le 10 -a "$RSS" -lt 150000 ]
}

hostile rst 100
check "rst: 100 failures, as many as the server's resets ($ERRS, $RSTS)" [ "$ERRS" -eq 100 -a "$RSTS" -eq 100 ]
check "rst: the reason is tallied" grep -q 'read: HTTP/2 stream reset by the server (INTERNAL_ERROR)' "$E"
# RFC 9113 6.8: an orderly close says GOAWAY(NO_ERROR) first; the port
# probe's connection sent nothing.
check "rst: every connection got the client's GOAWAY at the end ($GOAWAYS_IN, $CONNS connections)" \
    [ "$GOAWAYS_IN" -ge 1 -a "$GOAWAYS_IN" -eq $((CONNS - 1)) ]

# SETTINGS_MAX_CONCURRENT_STREAMS 0 (legal, RFC 9113 6.5.2): the connection
# cannot serve; each request fails once, saying so, on one connection that
# is closed (no retry on another: the same server would say the same), so
# connections stay bounded.
hostile mcs0 26
# (peak: 2 VUs, each connection closed as its stream is refused; the
# server notices a close a moment later: 8 leaves room for a loaded
# machine; before, 65 stayed open)
check "mcs0: 26 failures, one connection at most each, at most 8 open at once ($ERRS; $CONNS connections with the probe, peak $PEAK)" \
    [ "$ERRS" -eq 26 -a "$CONNS" -le 27 -a "$PEAK" -le 8 ]
check "mcs0: the reason is tallied" grep -q 'setup refused: HTTP/2: the server allows 0 concurrent streams' "$E"

# A response's error belongs to its stream: after one stream's header block
# too large, the server's later resets are reported as resets.
hostile stalemsg 8
check "stalemsg: 8 failures, the server reset 7 ($ERRS, $RSTS)" [ "$ERRS" -eq 8 -a "$RSTS" -eq 7 ]
check "stalemsg: 1 tallied as too large a header block" grep -q '^request,1,.*header block larger than 65536 bytes' "$E"
check "stalemsg: 7 tallied as the server's resets" grep -q '^request,7,.*stream reset by the server (INTERNAL_ERROR)' "$E"

hostile goaway 200
check "goaway: 200 transactions, no error, served == 200 ($TX, $ERRS, $SERVED)" [ "$TX" -eq 200 -a "$ERRS" -eq 0 -a "$SERVED" -eq 200 ]
check "goaway: $GOAWAYS GOAWAYs, $CONNS connections, retries counted ($(counter "$S" http.retries))" \
    [ "$GOAWAYS" -ge 15 -a "$CONNS" -ge 16 -a "$(counter "$S" http.retries)" -ge "$GOAWAYS" ]
check "goaway: http.connects equals the server's connections less the port probe ($(counter "$S" http.connects), $CONNS)" \
    [ "$(counter "$S" http.connects)" -eq $((CONNS - 1)) ]

# GOAWAY(last stream 0) at every request: sent again twice, then failed
# naming the GOAWAY (before: "(REFUSED_STREAM)", which the server never sent)
hostile goaway0 6
check "goaway0: 6 failures, at most 3 tries each ($ERRS; http.retries $(counter "$S" http.retries); the server saw $REQS requests, $GOAWAYS GOAWAYs)" \
    [ "$ERRS" -eq 6 -a "$REQS" -ge 6 -a "$REQS" -le 18 -a "$GOAWAYS" -eq "$REQS" ]
check "goaway0: http.retries counts every retry: 6 requests x 2 ($(counter "$S" http.retries))" \
    [ "$(counter "$S" http.retries)" -eq 12 ]
check "goaway0: the reason names the GOAWAY" grep -q '^request,6,.*HTTP/2 request refused by the server (GOAWAY), 2 retries' "$E"

hostile badframe 60
check "badframe: 60 transactions, the successes are the server's ($TX, $ERRS errors, $SERVED served)" \
    [ "$TX" -eq 60 -a $((TX - ERRS)) -eq "$SERVED" -a "$ERRS" -ge 1 ]
check "badframe: a protocol error is tallied" grep -q 'protocol error: HTTP/2: the server broke the protocol (PROTOCOL_ERROR' "$E"

hostile hpack 40
check "hpack: 40 failures, nothing accepted ($ERRS)" [ "$ERRS" -eq 40 ]
check "hpack: a compression error is tallied" grep -q 'protocol error: HTTP/2: the server broke the protocol (COMPRESSION_ERROR)' "$E"

hostile window 4 1
check "window: 4 requests, all timed out ($ERRS of $TX, the server saw $REQS)" [ "$TX" -eq 4 -a "$ERRS" -eq 4 ]
check "window: timeouts tallied" grep -q 'timeout' "$E"

hostile flood 40
check "flood: 40 transactions ended (as successes or counted errors: $TX, $ERRS errors, $SERVED served)" \
    [ "$TX" -eq 40 -a $((TX - ERRS)) -le "$SERVED" ]
# nghttp2's HTTP checks are off (luamech's own, client/http_h2.c): each
# malformed response is a counted protocol error with its reason.
malformed() { # MODE TEXT
    hostile "$1" 20
    check "$1: 20 failures, as many as the server's answers ($ERRS, $SERVED)" [ "$ERRS" -eq 20 -a "$SERVED" -eq 20 ]
    check "$1: the reason is tallied ($2)" grep -q "protocol error: $2" "$E"
}
malformed nostatus 'HTTP/2 response DATA before its :status'
malformed badstatus 'HTTP/2 response with an invalid :status'
malformed late 'HTTP/2 response with a pseudo-header after a regular field'
malformed upper 'uppercase header field name in an HTTP/2 response'
malformed clenlong 'HTTP/2 response body shorter than its content-length'
malformed clenshort 'HTTP/2 response body longer than its content-length'
malformed twostatus 'HTTP/2 response with more than one :status'
# A plaintext h2 client on a TLS port: the server's first bytes are a TLS
# record; the error says to use TLS, not "connection closed".
hostile tls 4
check "tls: 4 failures that say to use https:// ($ERRS)" [ "$ERRS" -eq 4 ]
check "tls: the reason is tallied" grep -q 'the server answered with TLS: use https://' "$E"

# http = "2" over TLS on a server that ignores ALPN (it selects nothing):
# each request fails as a setup refusal that names ALPN, not as "server
# down"; no HTTP/2 (nor HTTP/1.1) request reaches the server.
test_pki "$TMP/pki"
port=$(free_port)
python3 "$SRC/tests/scenarios/fixtures/tls_no_alpn.py" "$port" "$TMP/pki/server.pem" "$TMP/pki/server.key" "$TMP/alpn.counts" &
PIDS+=($!)
for _ in $(seq 60); do port_open "$port" && break; sleep 0.05; done
cat > "$TMP/alpn.lua" <<'S'
local c = luamech.http.new("https://127.0.0.1:" .. luamech.param("PORT"),
  { http = luamech.param("HTTP"), pool = true, timeout = 2, tls = { ca_file = luamech.param("CA") } })
return function()
  local r, err = c:get("/x")
  assert(r, err)
  assert(r.status == 200 and r.body == "ok", "response")
end
S
sed 's/vu.lua/alpn.lua/' "$TMP/s.lua" > "$TMP/alpn_s.lua"
for http in 2 auto; do
    timeout 30 "$LUAMECH" run "$TMP/alpn_s.lua" -q -w 1 -e PORT="$port" -e N=10 -e HTTP="$http" -e CA="$TMP/pki/ca.pem" \
        -o "$TMP/alpn$http" > "$TMP/alpn$http.out" 2>&1
    eval "RC_$http=$?"
done
read -r ACONNS AREQS < "$TMP/alpn.counts"
check "no ALPN, http=2: 10 failures (exit $RC_2, $(timer_errors "$TMP/alpn2/summary.json" "All Transactions")); http=auto: 10 successes over HTTP/1.1 (exit $RC_auto, $(timer_errors "$TMP/alpnauto/summary.json" "All Transactions" 2>/dev/null) errors); the server saw 10 requests ($AREQS)" \
    [ "$(timer_errors "$TMP/alpn2/summary.json" "All Transactions")" -eq 10 -a "$RC_auto" -eq 0 \
      -a "$(timer_errors "$TMP/alpnauto/summary.json" "All Transactions")" -eq 0 -a "$AREQS" -eq 10 ]
check "no ALPN, http=2: a setup refusal naming ALPN, not 'server down'" \
    grep -qF 'setup refused: the server did not select h2 by ALPN (it selected nothing); http = ""2"" requires HTTP/2' \
    "$TMP/alpn2/errors.csv"
check "no ALPN, http=2: never 'server down'" bash -c "! grep -q 'server down' '$TMP/alpn2/errors.csv'"
# gRPC over TLS on that server: grpc.connect fails as the same setup refusal
# naming ALPN (before: "server down: the connection failed or went away
# before it was open")
cat > "$TMP/galpn.lua" <<'S'
local c = assert(luamech.grpc.connect("127.0.0.1:" .. luamech.param("PORT"),
  { proto = luamech.param("PROTO"), timeout = 2, tls = { ca_file = luamech.param("CA") } }))
return function() end
S
sed 's/vu.lua/galpn.lua/' "$TMP/s.lua" > "$TMP/galpn_s.lua"
timeout 30 "$LUAMECH" run "$TMP/galpn_s.lua" -q -w 1 -e PORT="$port" -e N=1 -e CA="$TMP/pki/ca.pem" \
    -e PROTO="$SRC/scenarios/greeter.proto" -o "$TMP/galpn" > "$TMP/galpn.out" 2>&1
RC=$?
check "no ALPN, gRPC: exit 4 ($RC)" [ $RC -eq 4 ]
check "no ALPN, gRPC: grpc.connect fails as a setup refusal naming ALPN ($(grep -m1 -o 'grpc.connect.*' "$TMP/galpn.out"))" \
    grep -qE "grpc.connect 127.0.0.1:$port: setup refused: the server did not select h2 by ALPN \(it selected nothing\)" "$TMP/galpn.out"
finish
