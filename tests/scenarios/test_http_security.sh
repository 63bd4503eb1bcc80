# Hostile responses to the HTTP client (issue 23), against fake servers of
# tests/scenarios/fixtures/http_security.py (python3 stdlib) that log what
# they RECEIVED: A and B plain on 127.0.0.1 (B also reached as localhost),
# T over TLS with the test PKI.
# - credentials (Authorization, Proxy-Authorization, Cookie set by hand,
#   credential_headers) follow a redirect only to their origin (scheme,
#   host, port): not to another host, another port, nor over a downgrade;
#   an https -> http redirect is refused unless allow_downgrade = true;
# - a Location of another scheme (file:, ftp:, javascript:) is refused,
#   naming the scheme, and the server sees no second request;
# - so is a Location that is not a usable http(s) URL or relative
#   reference (user info, bad port or host, no host, empty, spaces, tab):
#   one counted error naming it; a 3xx without Location is the answer.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_http.sh"
F=$SRC/tests/scenarios/fixtures
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
PKI=$TMP/pki
test_pki "$PKI"
LOG=$TMP/received.jsonl
: > "$LOG"
"$PY" "$F/http_security.py" "$LOG" "$TMP/port.A" & PIDS+=("$!")
"$PY" "$F/http_security.py" "$LOG" "$TMP/port.B" & PIDS+=("$!")
"$PY" "$F/http_security.py" "$LOG" "$TMP/port.T" "$PKI/server.pem" "$PKI/server.key" & PIDS+=("$!")
for s in A B T; do
    for _ in $(seq 300); do [ -f "$TMP/port.$s" ] && break; sleep 0.05; done
    [ -f "$TMP/port.$s" ] || { echo "http_security.py $s did not start"; exit 1; }
    printf -v "$s" '%s' "$(cat "$TMP/port.$s")"
done

# run NAME MODE [args]: one VU, one transaction; RC, S (summary.json), E
# (errors.csv), RSS_MB (peak, /usr/bin/time)
run() {
    local name=$1 mode=$2
    shift 2
    /usr/bin/time -o "$TMP/$name.time" -f '%M' \
    "$LUAMECH" run "$F/http_security.lua" -q -o "$TMP/$name" -e MODE="$mode" -e A="$A" -e B="$B" -e T="$T" \
        -e CA="$PKI/ca.pem" "$@" > "$TMP/$name.out" 2>&1
    RC=$?
    RSS_MB=$(( $(tail -n 1 "$TMP/$name.time") / 1024 ))
    S=$TMP/$name/summary.json
    E=$TMP/$name/errors.csv
}
# received PORT PATH [FIELD]: requests PORT received for PATH (with FIELD set)
received() {
    jq -c --argjson p "$1" --arg path "$2" --arg f "${3:-}" \
        'select(.port == $p and .path == $path and ($f == "" or has($f)))' "$LOG" | wc -l
}

# ---- credentials stay with their origin; downgrades; other schemes ----
run redirects redirects
echo "   exit $RC; transaction errors $(timer_errors "$S" "All Transactions"): $(grep -v '^request,' "$E" 2>/dev/null | head -3 | cut -c1-300)"
check "redirects: the VU's checks passed (exit $RC)" \
    [ "$RC" -eq 0 -a "$(timer_errors "$S" "All Transactions")" -eq 0 -a "$(timer_count "$S" "All Transactions")" -eq 1 ]
for p in /client-host /client-port /req-host /req-port; do
    check "$p reached B once" [ "$(received "$B" "$p")" -eq 1 ]
    for f in authorization proxy-authorization cookie x-api-key; do
        check "$p: B did not receive $f" [ "$(received "$B" "$p" "$f")" -eq 0 ]
    done
done
check "the client's credentials are its base URL's: not sent with an absolute URL to B" \
    [ "$(received "$B" /client-abs)" -eq 1 -a "$(received "$B" /client-abs authorization)" -eq 0 ]
for p in /client-same /client-back /client-rel; do
    for f in authorization proxy-authorization cookie x-api-key; do
        check "$p: the origin A received $f again" [ "$(received "$A" "$p" "$f")" -eq 1 ]
    done
done
check "a hand-set Cookie stays with its origin; the jar's cookie went to B ($(jq -r 'select(.path == "/jar-hop") | .cookie' "$LOG"))" \
    [ "$(jq -r 'select(.path == "/jar-hop") | .cookie' "$LOG")" = "sid=S" ]
check "https -> http refused: B never saw /downgrade" [ "$(received "$B" /downgrade)" -eq 0 ]
check "allow_downgrade = true: B saw /downgrade-allowed, without Authorization or Cookie" \
    [ "$(received "$B" /downgrade-allowed)" -eq 1 -a "$(received "$B" /downgrade-allowed authorization)" -eq 0 \
      -a "$(received "$B" /downgrade-allowed cookie)" -eq 0 ]
check "the downgrade is a counted error naming it" grep -q 'redirect from https to http (a downgrade' "$E"
scheme_hops=$(jq -r --argjson a "$A" 'select(.port == $a and (.path | test("file:|ftp:|javascript:|etc/passwd|alert|malformed"))) | .path' "$LOG" | grep -vc '^/redir?' || true)
check "other schemes: A saw no request for the Location itself ($scheme_hops)" [ "$scheme_hops" -eq 0 ]
for sc in file ftp javascript; do
    check "scheme $sc: a counted error naming it" grep -q "redirect to scheme \"\"$sc\"\"\|redirect to scheme \"$sc\"" "$E"
done
check "http.redirects: only the hops followed (6 on the client, 3 on the request, the allowed downgrade: 10; got $(counter "$S" http.redirects))" \
    [ "$(counter "$S" http.redirects)" -eq 10 ]

# ---- a redirect to an unusable Location fails the call, naming it ----
n_before=$(wc -l < "$LOG")
run badloc badloc
echo "   exit $RC; transaction errors $(timer_errors "$S" "All Transactions"): $(grep -v '^request,' "$E" 2>/dev/null | head -3 | cut -c1-300)"
check "badloc: the VU's checks passed (exit $RC)" \
    [ "$RC" -eq 0 -a "$(timer_errors "$S" "All Transactions")" -eq 0 ]
bad_seen=$(tail -n +$((n_before + 1)) "$LOG" | jq -r '.path' | grep -c '^/bad' || true)
check "no server saw a request for an unusable Location ($bad_seen)" [ "$bad_seen" -eq 0 ]
redir_seen=$(tail -n +$((n_before + 1)) "$LOG" | jq -r '.path' | grep -c '^/redir?' || true)
check "A saw the 63 redirecting requests (62 + redirects = 0) and nothing more ($redir_seen)" [ "$redir_seen" -eq 63 ]
check "each refusal is a counted error of the call (http badloc: 62 errors of 62; got $(timer_errors "$S" "http badloc") of $(timer_count "$S" "http badloc"))" \
    [ "$(timer_errors "$S" "http badloc")" -eq 62 -a "$(timer_count "$S" "http badloc")" -eq 62 ]
check "... tallied as one message per Location (12 distinct; got $(grep -c 'refused (Location: ' "$E"))" \
    [ "$(grep -c 'refused (Location: ' "$E")" -eq 12 ]
check "user info in a Location is refused as such" grep -q 'redirect to a URL with user info' "$E"
check "http.redirects: no hop followed ($(counter "$S" http.redirects))" [ "$(counter "$S" http.redirects)" -eq 0 ]
check "3xx without Location (300, 304, 302) and redirects = 0: answers, not errors" \
    [ "$(timer_errors "$S" "http noloc")" -eq 0 -a "$(timer_count "$S" "http noloc")" -eq 3 \
      -a "$(timer_errors "$S" "http badloc_off")" -eq 0 ]

# ---- TLS: a body delimited by the connection's end needs close_notify ----
run tls tls
echo "   exit $RC; transaction errors $(timer_errors "$S" "All Transactions"): $(grep -v '^request,' "$E" 2>/dev/null | head -3 | cut -c1-300)"
check "tls: the VU's checks passed (exit $RC)" \
    [ "$RC" -eq 0 -a "$(timer_errors "$S" "All Transactions")" -eq 0 ]
check "a bare TCP close after 1,000 bytes: a counted error (http eof_bare errors 1)" \
    [ "$(timer_errors "$S" "http eof_bare")" -eq 1 ]
check "... tallied with its message" grep -q 'http.get [^ ]*: TLS error: connection closed without close_notify' "$E"
check "with close_notify: a success (http eof_notify errors 0 of 1)" \
    [ "$(timer_count "$S" "http eof_notify")" -eq 1 -a "$(timer_errors "$S" "http eof_notify")" -eq 0 ]

# ---- a gzip body of two members ----
run gzip gzip
check "gzip: two members decode to \"hello world\" (exit $RC, $(grep -v '^request,' "$E" 2>/dev/null | tail -n +2 | head -1 | cut -c1-200))" \
    [ "$RC" -eq 0 -a "$(timer_errors "$S" "All Transactions")" -eq 0 ]

# ---- the cookie jar keeps RFC 6265's minimums; what it drops is counted ----
run cookies cookies
cookie_of() { jq -r --arg path "$1" 'select(.path == $path) | .cookie // ""' "$LOG"; }
after3=$(cookie_of /show-after-3)
after60=$(cookie_of /show-after-60)
echo "   exit $RC; after three 4 KB cookies A received a Cookie of ${#after3} bytes: ${after3:0:40}...; after 61: $(echo "$after60" | tr ';' '\n' | wc -l) cookies"
check "cookies: the VU's checks passed (exit $RC)" [ "$RC" -eq 0 -a "$(timer_errors "$S" "All Transactions")" -eq 0 ]
check "after three 4 KB cookies the session cookie was still sent (with all three)" \
    [ "${after3:0:6}" = "sid=S;" -a "${#after3}" -gt 12000 ]
check "61 cookies for one domain: A received the newest 50" \
    [ "$(echo "$after60" | tr ';' '\n' | wc -l)" -eq 50 -a -z "$(echo "$after60" | grep -o 'sid=S')" ]
check "http.cookies_dropped counts the 11 dropped ($(counter "$S" http.cookies_dropped))" \
    [ "$(counter "$S" http.cookies_dropped)" -eq 11 ]
check "the tally says it once" [ "$(grep -c 'http: cookies dropped' "$E")" -eq 1 ]

# ---- res:json(): bounded memory ----
# "[0,0,...]": 2 bytes a value; the decoded tree costs ~28 times the text
# (it took 839 MB of RSS for 32 MB); the limits refuse it before decoding.
# SAN_MB: the sanitizer build's own overhead (shadow memory, quarantine).
SAN_MB=0
ldd "$LUAMECH" 2>/dev/null | grep -q libasan && SAN_MB=200
for case in "1 decoded" "4 more than 1000000 values (max_values)" "32 is over max_bytes (16777216)"; do
    mb=${case%% *} want=${case#* }
    run "json$mb" json -e MB="$mb" -e WANT="$want"
    echo "   res:json() of $mb MiB: exit $RC, peak RSS $RSS_MB MB"
    check "json $mb MiB: $want (exit $RC, $(grep -v '^request,' "$E" 2>/dev/null | tail -n +2 | head -1 | cut -c1-200))" \
        [ "$RC" -eq 0 -a "$(timer_errors "$S" "All Transactions")" -eq 0 ]
    [ "$mb" = 32 ] && check "json 32 MiB refused: peak RSS $RSS_MB MB < $((200 + SAN_MB)) MB (the body is held twice: read buffer and Lua string)" \
        [ "$RSS_MB" -lt $((200 + SAN_MB)) ]
done
finish
