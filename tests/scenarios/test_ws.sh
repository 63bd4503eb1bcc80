# luamech.ws against a real WebSocket server (Debian's python3-websockets:
# fixtures/ws_server.py, which counts what it saw) over ws:// and wss://:
# messages sent and received equal the server's counts, the handshake's
# headers and subprotocol reach it, the server's pings are answered, its
# close ends a stream with code 1000, a close we start carries our code.
# Hostile servers (fixtures/hostile_ws.py, raw sockets): bad frames, a masked
# frame, a 2^62 length, text that is not UTF-8, an endless fragmented
# message, a flood while nobody receives, a ping flood and a server that never
# reads (bounded write queue), no answer to a close, a wrong
# Sec-WebSocket-Accept: each ends in counted errors naming the cause (and
# the close code luamech sent, as the server saw it), bounded memory and a
# run that ends on time.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_http.sh"
F=$SRC/tests/scenarios/fixtures
PY=/usr/bin/python3
$PY -c 'import websockets' 2> /dev/null || { echo "python3-websockets is needed (apt-get install python3-websockets)"; exit 1; }
stat_of() { awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' "$1"; }
counter() { jq -r --arg n "$2" '[.counters[] | select(.name == $n) | .total] | add // 0' "$1"; }

# server NAME [CERT KEY]: start ws_server.py; sets PORT, STATS
server() {
    local name=$1 pid
    shift
    STATS=$TMP/$name.stats
    $PY "$F/ws_server.py" "$TMP/$name.port" "$STATS" "$@" > "$TMP/$name.srv.log" 2>&1 &
    pid=$!
    PIDS+=("$pid")
    for _ in $(seq 200); do [ -s "$TMP/$name.port" ] && break; sleep 0.05; done
    PORT=$(cat "$TMP/$name.port")
}
# settle N: wait until the server has seen N connections end
settle() {
    for _ in $(seq 100); do [ "$(stat_of "$STATS" connections)" -ge "$1" ] && return; sleep 0.05; done
}
# run NAME MODE URL [args]: a run of fixtures/ws.lua
run() {
    local name=$1 mode=$2 url=$3
    shift 3
    timeout -s KILL 120 "$LUAMECH" run "$F/ws.lua" -q -e MODE="$mode" -e URL="$url" "$@" -o "$TMP/$name" \
        > "$TMP/$name.out" 2>&1
    RC=$?
    S=$TMP/$name/summary.json
    check "$name: exit 0 (got $RC)" [ "$RC" -eq 0 ]
    [ "$RC" -eq 0 ] || tail -20 "$TMP/$name.out"
}

# 1. echo: 4 VUs, one connection each, 300 messages there and back (every
#    10th a 100 kB binary one)
server echo
ECHO_PORT=$PORT
run echo echo "ws://127.0.0.1:$PORT" -e N=300
settle 4
echo "echo: server: $(cat "$STATS")"
check "echo: no errors" [ "$(timer_errors "$S" ws.receive)" -eq 0 ]
check "echo: luamech sent what the server received (300)" \
    [ "$(counter "$S" ws.messages_sent)" -eq 300 ] && [ "$(stat_of "$STATS" received)" -eq 300 ]
check "echo: luamech received what the server sent (300)" \
    [ "$(counter "$S" ws.messages_received)" -eq 300 ] && [ "$(stat_of "$STATS" sent)" -eq 300 ]
check "echo: a ws.receive sample per message, a ws.connect per VU" \
    [ "$(timer_count "$S" ws.receive)" -eq 300 ] && [ "$(timer_count "$S" ws.connect)" -eq 4 ]
check "echo: the headers and the subprotocol reached the server (4 connections)" \
    [ "$(stat_of "$STATS" header)" -eq 4 ] && [ "$(stat_of "$STATS" proto)" -eq 4 ]

# 2. push: a connection per transaction, 25 messages pushed after a ping,
#    then the server's close (1000 "done"), which luamech echoes
server push
run push push "ws://127.0.0.1:$PORT" -e N=80 -e PUSH=25
settle 80
echo "push: server: $(cat "$STATS")"
check "push: luamech received every message the server pushed (2000)" \
    [ "$(counter "$S" ws.messages_received)" -eq 2000 ] && [ "$(stat_of "$STATS" sent)" -eq 2000 ]
check "push: every ping answered (80 pongs)" [ "$(stat_of "$STATS" pongs)" -eq 80 ]
check "push: the server's close was echoed with 1000 on every connection" \
    [ "$(stat_of "$STATS" codes)" = "1000:80" ]
check "push: the server's clean close is neither an error nor a sample" \
    [ "$(timer_errors "$S" ws.receive)" -eq 0 ] && [ "$(timer_count "$S" ws.receive)" -eq 2000 ] &&
    [ "$(tail -n +2 "$TMP/push/errors.csv" | wc -l)" -eq 0 ]
check "push: ws.close timed 80 times" [ "$(timer_count "$S" ws.close)" -eq 80 ]

# 3. close: ws:close(4000, "bye") reaches the server, its echo comes back
server close
run close close "ws://127.0.0.1:$PORT" -e N=60
settle 60
echo "close: server: $(cat "$STATS")"
check "close: the server saw code 4000 on 60 connections" [ "$(stat_of "$STATS" codes)" = "4000:60" ]
check "close: counts equal (60 each way)" \
    [ "$(stat_of "$STATS" received)" -eq 60 ] && [ "$(counter "$S" ws.messages_received)" -eq 60 ]

# 4. wss:// with a CA
PKI=$TMP/pki
test_pki "$PKI"
server tls "$PKI/server.pem" "$PKI/server.key"
run wss echo "wss://localhost:$PORT" -e N=100 -e TLS="$PKI/ca.pem"
settle 4
echo "wss: server: $(cat "$STATS")"
check "wss: counts equal (100 each way)" \
    [ "$(stat_of "$STATS" received)" -eq 100 ] && [ "$(counter "$S" ws.messages_received)" -eq 100 ]
check "wss: 4 TLS handshakes timed (ws.tls)" [ "$(timer_count "$S" ws.tls)" -eq 4 ]
"$LUAMECH" run "$F/ws.lua" -q -e MODE=echo -e URL="wss://localhost:$PORT" -e N=10 -e TLS="$PKI/ca2.pem" \
    -o "$TMP/wssbad" > "$TMP/wssbad.out" 2>&1
RC=$?
check "wss with the wrong CA: no load, exit 4 (got $RC)" [ "$RC" -eq 4 ]
check "wss with the wrong CA: the TLS reason named, with its kind as in the tally" \
    grep -q "ws.connect wss://localhost:$PORT/echo: TLS error: certificate verification failed" "$TMP/wssbad.out"

# 5. misuse raises with the call's name
cat > "$TMP/misuse_vu.lua" << 'EOF'
local url = luamech.param("URL")
local function msg(f) local ok, e = pcall(f) return ok and "no error" or tostring(e) end
local out = {
  msg(function() luamech.ws.connect("http://x/") end),
  msg(function() luamech.ws.connect(url, { nope = 1 }) end),
  msg(function() luamech.ws.connect(url, { headers = { Upgrade = "x" } }) end),
  msg(function() luamech.ws.connect(url, { subprotocols = { "a b" } }) end),
  msg(function() luamech.ws.connect(url, { max_queue = 0 }) end),
  msg(function() luamech.ws.connect(url, { max_message = 1.5 }) end),
  msg(function() luamech.ws.connect(url, { connect_timeout = "1" }) end),
  msg(function() luamech.ws.connect(url, { timeout = -1 }) end),
}
local ws = assert(luamech.ws.connect(url))
out[#out + 1] = msg(function() ws:send("\255") end)
out[#out + 1] = msg(function() ws:close(1005) end)
local f = assert(io.open(luamech.param("OUT"), "w"))
f:write(table.concat(out, "\n"), "\n")
f:close()
return function() end
EOF
printf 'return { requests = 1, groups = { { name = "m", vus = 1, script = "misuse_vu.lua" } } }\n' > "$TMP/misuse.lua"
"$LUAMECH" run "$TMP/misuse.lua" -q -e URL="ws://127.0.0.1:$ECHO_PORT/echo" -e OUT="$TMP/misuse.txt" -o "$TMP/misuse" \
    > "$TMP/misuse.out" 2>&1
cat "$TMP/misuse.txt" 2> /dev/null
for want in "ws.connect: the URL must start with ws:// or wss://" "ws.connect: unknown option 'nope'" \
            "ws.connect: header 'Upgrade' may not be sent" "ws.connect: subprotocols must be names" \
            "ws:send: text is not UTF-8" "ws:close: code 1005 may not be sent" \
            "ws.connect: max_queue must be a whole number of bytes in 1..1073741824" \
            "ws.connect: max_message must be a whole number of bytes in 1..1073741824" \
            "ws.connect: connect_timeout must be a number of seconds between 0 and 86400" \
            "ws.connect: timeout must be a number of seconds between 0 and 86400"; do
    check "misuse: '$want'" grep -qF "$want" "$TMP/misuse.txt"
done

# 6. hostile servers: a 3 s run (graceful_stop 1 s), timeouts of 1 s.  The
#    sanitizer build starts about 34 MB bigger (shadow memory, allocator):
#    its bound is 32 MB higher, with ASan's quarantine capped at 8 MB (as in
#    test_hostile.sh), so that the peak is what luamech holds.
SAN_MB=0
ldd "$LUAMECH" 2> /dev/null | grep -q libasan && SAN_MB=32
hostile() {
    local mode=$1 pid port
    shift
    HS=$TMP/h-$mode.stats
    python3 "$F/hostile_ws.py" "$mode" "$TMP/h-$mode.port" "$HS" &
    pid=$!
    PIDS+=("$pid")
    for _ in $(seq 200); do [ -s "$TMP/h-$mode.port" ] && break; sleep 0.05; done
    port=$(cat "$TMP/h-$mode.port")
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=8" \
    /usr/bin/time -f '%e %M' -o "$TMP/h-$mode.time" timeout -s KILL 60 "$LUAMECH" run "$F/hostile_ws.lua" -q \
        -e URL="ws://127.0.0.1:$port" "$@" -o "$TMP/h-$mode" > "$TMP/h-$mode.out" 2>&1
    RC=$?
    read -r WALL RSS_KB < <(tail -1 "$TMP/h-$mode.time")
    sleep 0.2
    echo "$mode: exit $RC, ${WALL}s, max RSS ${RSS_KB} KB, server: $(cat "$HS")"
    E=$TMP/h-$mode/errors.csv
    check "$mode: exit 0, summary written, run completed" \
        [ "$RC" -eq 0 ] && [ "$(jqr "$TMP/h-$mode/summary.json" .status 2> /dev/null)" = completed ]
    # (3 s + the 1 s graceful stop; a run the server held would end at the
    # 60 s kill: 20 s leaves a busy machine's start-up and exit out of it)
    check "$mode: on time (under 20 s for a 3 s run, got ${WALL}s)" awk -v w="$WALL" 'BEGIN { exit !(w < 20) }'
    check "$mode: bounded memory (under $((64 + SAN_MB)) MB, got ${RSS_KB} KB)" [ "$RSS_KB" -lt $(((64 + SAN_MB) * 1024)) ]
}
# errors MODE TEXT CODE: the errors name TEXT, the server saw close code CODE
# (the server records a close frame when it reads it, after luamech may have
# ended: its stats are polled, <= 5 s)
errors() {
    check "$1: counted errors: '$2'" grep -qF "$2" "$E"
    [ -z "${3:-}" ] && return
    for _ in $(seq 100); do grep -qE "codes $3:[0-9]+" "$HS" && break; sleep 0.05; done
    check "$1: luamech closed with $3" grep -qE "codes $3:[0-9]+" "$HS"
}
hostile badframe;  errors badframe "protocol error: reserved bits set" 1002
hostile opcode;    errors opcode "protocol error: unknown opcode" 1002
hostile masked;    errors masked "protocol error: a masked frame from the server" 1002
hostile hugelen;   errors hugelen "protocol error: a frame over max_message" 1009
hostile badutf8;   errors badutf8 "protocol error: a text message that is not UTF-8" 1007
hostile bigfrag;   errors bigfrag "protocol error: a fragmented message over max_message" 1009
hostile flood -e SLEEP=1
errors flood ": over a size limit: receive queue full: over max_queue" 1008
hostile noclose
errors noclose "ws.receive ws://127.0.0.1:" ""
errors noclose "close: no close frame from the server in time" 1000
hostile closecode
check "closecode: counted errors: 'ws.receive URL: server down: closed by the server (1011 oops)'" \
    grep -qE 'ws\.receive ws://127\.0\.0\.1:[0-9]+: server down: closed by the server \(1011 oops\)' "$E"
# a server that pings and never reads: no pong while 4 MiB wait for the socket (before: the
# pongs piled up, 650 MB in 6 s); one that never reads: ws:send refused past 4 MiB queued
# (before: 1.5 GB in 6 s of 64 KiB sends)
hostile pingflood
hostile noread -e SEND=1
errors noread "ws.send ws://127.0.0.1:" ""
errors noread "over a size limit: send queue full: 4 MiB wait to be written (the server does not read)" ""
hostile badaccept; errors badaccept "handshake: wrong Sec-WebSocket-Accept" ""
check "badaccept: one line per cause, not per connection" [ "$(grep -c Accept "$E")" -eq 1 ]

# 7. connect_timeout bounds the handshake, timeout does not (docs/lua-api.md#timeouts-every-client):
#    a listener that accepts and never answers the Upgrade; timeout is a day, connect_timeout
#    0.5 s (ws; and http over TLS): the connect fails with the timeout kind (a run that waited for `timeout` would be
#    killed by `timeout 60` instead), and the listener counted the connection it got.
python3 - "$TMP/silent.port" "$TMP/silent.count" <<'PY' &
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0)); s.listen(16)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
held, n = [], 0
s.settimeout(30)
try:
    while True:
        c, _ = s.accept(); held.append(c); n += 1
        open(sys.argv[2] + ".tmp", "w").write(str(n)); os.rename(sys.argv[2] + ".tmp", sys.argv[2])
except socket.timeout:
    pass
PY
PIDS+=($!)
for _ in $(seq 200); do [ -s "$TMP/silent.port" ] && break; sleep 0.05; done
SPORT=$(cat "$TMP/silent.port")
cat > "$TMP/silent.lua" <<'S'
return { requests = 1, groups = { { name = "g", vus = 1, script = "silent_vu.lua" } } }
S
cat > "$TMP/silent_vu.lua" <<'S'
return function()
  local ws, err = luamech.ws.connect("ws://127.0.0.1:" .. luamech.param("PORT") .. "/",
                                     { timeout = 86400, connect_timeout = 0.5 })
  luamech.check(ws == nil and err:find("timeout", 1, true) ~= nil, "connect_timeout ended the handshake")
  print("ERR " .. tostring(err))
  -- the same rule for http: the TLS handshake the listener never answers
  local h = luamech.http.new("https://127.0.0.1:" .. luamech.param("PORT"), { timeout = 86400, connect_timeout = 0.5 })
  local res, herr = h:get("/")
  luamech.check(res == nil and herr:find("timeout", 1, true) ~= nil, "http: connect_timeout ended the TLS handshake")
  print("HERR " .. tostring(herr))
end
S
timeout 60 "$LUAMECH" run "$TMP/silent.lua" -q -w 1 -e PORT="$SPORT" -o "$TMP/silent" > "$TMP/silent.out" 2>&1
RC=$?
check "connect_timeout (ws, http): exit 0, both checks passed, the listener got both connections (exit $RC, $(grep ERR "$TMP/silent.out" | tr '\n' ' '), $(cat "$TMP/silent.count" 2> /dev/null))" \
    [ $RC -eq 0 ] && [ "$(jqr "$TMP/silent/summary.json" '[.checks[]? | .fails] | add // 0')" -eq 0 ] && \
    [ "$(jqr "$TMP/silent/summary.json" '[.checks[]? | .passes] | add // 0')" -eq 2 ] && [ "$(cat "$TMP/silent.count")" -ge 2 ]

finish
