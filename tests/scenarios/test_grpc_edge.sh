# gRPC at the edges, against raw-frame servers that count what they saw
# (fixtures/grpc/grpc_hostile.py) and the real greeter (scripts/grpc-greeter.py):
# a proxy's HTML error page (non-200 with a body) mapped by gRPC's HTTP
# status table, never deframed; a 200 that is not application/grpc refused;
# calls the server did not process (GOAWAY above its last stream id as
# nginx's keepalive_requests does, RST_STREAM REFUSED_STREAM, GOAWAY 0)
# retried transparently and counted in grpc.retries, equal to the server's
# refusals; c:close() while a stream runs on a connection draining after a
# GOAWAY (it used to outlive the close: use-after-free); metadata refused
# (control characters, reserved names), -bin values sent in base64 as the
# greeter decodes them; c:stream's messages in grpc.stream.messages_*; a
# target with a scheme refused with one message; the aggregate timer "grpc"
# (every call) and a threshold on it; nginx's grpc_pass with
# keepalive_requests in front of the greeter (no call lost to its GOAWAYs).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_http.sh"
PY=/usr/bin/python3
F=$SRC/tests/scenarios/fixtures/grpc
P=$SRC/scenarios
mkdir -p "$TMP/sc"
cp "$P/greeter.proto" "$TMP/sc/"
checks() { jq -r --arg k "$2" '[.checks[]? | .[$k]] | add // 0' "$1"; }   # checks FILE passes|fails
hostile() {   # hostile PORT MODE [DELAY]: a raw-frame server, counts in $TMP/MODE[-DELAY].txt
    "$PY" "$F/grpc_hostile.py" "$1" "$2" "$TMP/$2${3:+-$3}.txt" ${3:+"$3"} & PIDS+=($!)
    for _ in $(seq 50); do port_open "$1" && break; sleep 0.1; done
}
# fields of a counts file: reqs rst data gz served refused conns
field() { read -r -a f < "$TMP/$1.txt"; echo "${f[$2]}"; }

# 1. non-200 with an HTML body, and a 200 without content-type
HP=$(free_port); NP=$(free_port)
hostile "$HP" html503; hostile "$NP" noct
cat > "$TMP/sc/h.lua" <<'S'
return { requests = 4, groups = { { name = "g", vus = 2, script = "hvu.lua" } } }
S
cat > "$TMP/sc/hvu.lua" <<'S'
local html = luamech.grpc.connect("127.0.0.1:" .. luamech.param("HTML"), { proto = "greeter.proto" })
local noct = luamech.grpc.connect("127.0.0.1:" .. luamech.param("NOCT"), { proto = "greeter.proto" })
return function()
  local r, code, msg = html:invoke("lmgrpc.Greeter/SayHello", { name = "x" })
  luamech.check(r == nil and code == 14 and msg == "HTTP status 503 without grpc-status", "503 page: " .. tostring(code) .. " " .. tostring(msg))
  local r2, code2, msg2 = noct:invoke("lmgrpc.Greeter/SayHello", { name = "x" })
  luamech.check(r2 == nil and code2 == 2 and msg2:find("content-type is not application/grpc", 1, true) ~= nil, "200 without content-type: " .. tostring(code2) .. " " .. tostring(msg2))
end
S
timeout 60 "$LUAMECH" run "$TMP/sc/h.lua" -q -w 1 -e HTML="$HP" -e NOCT="$NP" -o "$TMP/oh" > "$TMP/oh.out" 2>&1
RC=$?
S=$TMP/oh/summary.json
check "non-200 HTML page: exit 0, 8 checks pass ($RC, $(checks "$S" passes)/$(checks "$S" fails); $(grep -m1 -o 'grpc lmgrpc[^"]*' "$TMP/oh/errors.csv"))" \
    [ $RC -eq 0 -a "$(checks "$S" passes)" -eq 8 -a "$(checks "$S" fails)" -eq 0 ]
check "the 503 server's $(field html503 0) calls = luamech's UNAVAILABLE ($(counter "$S" grpc.status.UNAVAILABLE)); the no-content-type server's $(field noct 0) = UNKNOWN ($(counter "$S" grpc.status.UNKNOWN))" \
    [ "$(field html503 0)" -eq 4 -a "$(counter "$S" grpc.status.UNAVAILABLE)" -eq 4 -a "$(field noct 0)" -eq 4 -a "$(counter "$S" grpc.status.UNKNOWN)" -eq 4 ]

# 2. transparent retries: GOAWAY after 3 requests per connection (keepalive_requests), a
# connection's first stream refused (REFUSED_STREAM), and a server that refuses everything
GP=$(free_port); RP=$(free_port); ZP=$(free_port)
hostile "$GP" goaway; hostile "$RP" refused; hostile "$ZP" goaway0
cat > "$TMP/sc/r.lua" <<'S'
return { requests = tonumber(luamech.param("N")), groups = { { name = "g", vus = 2, script = "rvu.lua" } } }
S
cat > "$TMP/sc/rvu.lua" <<'S'
local p = luamech.param
local ga = luamech.grpc.connect("127.0.0.1:" .. p("GA"), { proto = "greeter.proto" })
local rf = luamech.grpc.connect("127.0.0.1:" .. p("RF"), { proto = "greeter.proto" })
local z = luamech.grpc.connect("127.0.0.1:" .. p("Z"), { proto = "greeter.proto" })
local n = 0
return function()
  n = n + 1
  local r, code, msg = ga:invoke("lmgrpc.Greeter/SayHello", { name = "x" })
  luamech.check(code == 0 and r.message == "r", "past GOAWAY: " .. tostring(code) .. " " .. tostring(msg))
  local rs, c2, m2 = rf:stream("lmgrpc.Greeter/Count", { name = "x" })
  luamech.check(c2 == 0 and #rs == 1, "past REFUSED_STREAM: " .. tostring(c2) .. " " .. tostring(m2))
  if n == 1 then
    local _, c3, m3 = z:invoke("lmgrpc.Greeter/SayHello", { name = "x" })
    luamech.check(c3 == 14 and m3:find("2 retries", 1, true) ~= nil, "refused 3 times: UNAVAILABLE " .. tostring(c3) .. " " .. tostring(m3))
  end
end
S
N=20
timeout 60 "$LUAMECH" run "$TMP/sc/r.lua" -q -w 1 -e GA="$GP" -e RF="$RP" -e Z="$ZP" -e N=$N -o "$TMP/or" > "$TMP/or.out" 2>&1
RC=$?
S=$TMP/or/summary.json
refused=$(( $(field goaway 5) + $(field refused 5) + $(field goaway0 5) ))
check "retries: exit 0, every check passed ($RC, $(checks "$S" passes)/$(checks "$S" fails); $(grep -m1 -o 'grpc lmgrpc[^"]*' "$TMP/or/errors.csv"))" \
    [ $RC -eq 0 -a "$(checks "$S" passes)" -eq $((N * 2 + 2)) -a "$(checks "$S" fails)" -eq 0 ]
check "retries: the servers served $(field goaway 4) + $(field refused 4) calls = luamech's OK ($(counter "$S" grpc.status.OK)), $((N * 2)) expected" \
    [ "$(field goaway 4)" -eq $N -a "$(field refused 4)" -eq $N -a "$(counter "$S" grpc.status.OK)" -eq $((N * 2)) ]
check "retries: the servers refused $refused streams = luamech's grpc.retries ($(counter "$S" grpc.retries)) + its 2 UNAVAILABLE ($(counter "$S" grpc.status.UNAVAILABLE)); GOAWAY-0 saw 3 tries per call ($(field goaway0 0) for 2)" \
    [ "$refused" -eq $(( $(counter "$S" grpc.retries) + 2 )) -a "$(counter "$S" grpc.retries)" -gt 4 -a "$(field goaway0 0)" -eq 6 -a "$(counter "$S" grpc.status.UNAVAILABLE)" -eq 2 ]
check "retries: 2 connections each refused their first stream ($(field refused 5)), GOAWAY at every 4th request ($(field goaway 5) for $(field goaway 0) requests)" \
    [ "$(field refused 5)" -eq 2 -a "$(field goaway 0)" -eq $(( N + $(field goaway 5) )) ]

# 3. c:close() while a stream runs on a connection draining after a GOAWAY: the stream ends
# CANCELLED at the close (it used to run on, and to be read after its record was freed)
DP=$(free_port)
hostile "$DP" drain 1.5
cat > "$TMP/sc/d.lua" <<'S'
return { requests = 2, groups = { { name = "g", vus = 1, script = "dvu.lua" } } }
S
cat > "$TMP/sc/dvu.lua" <<'S'
return function()
  local c = luamech.grpc.connect("127.0.0.1:" .. luamech.param("PORT"), { proto = "greeter.proto", timeout = 5 })
  local s = c:open_stream("lmgrpc.Greeter/Count", { name = "x", count = 1 })
  local u = c:open_stream("lmgrpc.Greeter/Count", { name = "y", count = 1 })
  luamech.sleep(0.4)                  -- the GOAWAY arrived: the session drains, no longer the client's live one
  c:close()
  local m, code = s:recv()
  luamech.check(m == nil and code == 1, "closed: CANCELLED (" .. tostring(code) .. ")")
  s = nil u = nil
  collectgarbage() collectgarbage()
  for _ = 1, 200 do local _ = { string.rep("x", 600) } end
  luamech.sleep(1.6)                  -- the server's message and status arrive for the stream
end
S
timeout 60 "$LUAMECH" run "$TMP/sc/d.lua" -q -w 1 -e PORT="$DP" -o "$TMP/od" > "$TMP/od.out" 2>&1
RC=$?
S=$TMP/od/summary.json
check "close on a draining connection: exit 0, no crash, CANCELLED at the close ($RC, $(checks "$S" passes)/$(checks "$S" fails), CANCELLED $(counter "$S" grpc.status.CANCELLED))" \
    [ $RC -eq 0 -a "$(checks "$S" passes)" -eq 2 -a "$(counter "$S" grpc.status.CANCELLED)" -eq 4 -a "$(counter "$S" grpc.status.OK)" -eq 0 ]
# per transaction: s on the first connection; u above the GOAWAY's last id, retried on a second
# (the first may read u's HEADERS after its pause): no reply reached luamech
check "close on a draining connection: the server saw at least the 4 streams ($(field drain-1.5 0)) on 4 connections or more ($(field drain-1.5 6)); no message arrived ($(counter "$S" grpc.stream.messages_received))" \
    [ "$(field drain-1.5 0)" -ge 4 -a "$(field drain-1.5 6)" -ge 4 -a "$(counter "$S" grpc.stream.messages_received)" -eq 0 ]

# 5. the run's end: a unary call in flight on a draining connection at a hard stop (graceful_stop 0)
# is cancelled on its timer (it used to vanish: its session was never closed); a stream opened in
# init and dropped, never collected before the end, is cancelled too, not an error, while one
# cancelled by s:cancel() is a sample failed CANCELLED: errors.csv says what the timer says
EP=$(free_port); WP=$(free_port)
hostile "$EP" drain 3; hostile "$WP" window
cat > "$TMP/sc/e.lua" <<'S'
return { run_time = "1s", graceful_stop = "0s", groups = { { name = "g", vus = 1, script = "evu.lua" } } }
S
cat > "$TMP/sc/evu.lua" <<'S'
local c = luamech.grpc.connect("127.0.0.1:" .. luamech.param("PORT"), { proto = "greeter.proto", timeout = 10 })
local w = luamech.grpc.connect("127.0.0.1:" .. luamech.param("WIN"), { proto = "greeter.proto", timeout = 10 })
do local _ = w:open_stream("lmgrpc.Greeter/Chat", nil, { name = "dropped" }) end
local k = w:open_stream("lmgrpc.Greeter/Chat", nil, { name = "cancelled" })
k:cancel()
return function()
  c:invoke("lmgrpc.Greeter/SayHello", { name = "x" })
end
S
timeout 60 "$LUAMECH" run "$TMP/sc/e.lua" -q -w 1 -e PORT="$EP" -e WIN="$WP" -o "$TMP/oe" > "$TMP/oe.out" 2>&1
RC=$?
S=$TMP/oe/summary.json
tcancelled() { jqv -r --arg n "$2" 'include "views"; [tview($n) | .summary.cancelled] | add // 0' "$1"; }
check "hard stop: the unary call on the draining connection the server saw ($(field drain-3 0)) is cancelled on its timer ($(tcancelled "$S" "grpc lmgrpc.Greeter/SayHello")), no error ($(timer_errors "$S" "grpc lmgrpc.Greeter/SayHello")), exit $RC" \
    [ $RC -eq 0 -a "$(field drain-3 0)" -eq 1 -a "$(tcancelled "$S" "grpc lmgrpc.Greeter/SayHello")" -eq 1 -a "$(timer_errors "$S" "grpc lmgrpc.Greeter/SayHello")" -eq 0 ]
check "init streams: the server saw the dropped one ($(field window 0); the cancelled one never left); s:cancel() a failed sample, CANCELLED, tallied ($(timer_errors "$S" "grpc cancelled"), $(grep -c 'Chat: CANCELLED' "$TMP/oe/errors.csv")); dropped and left to the end: cancelled only ($(tcancelled "$S" "grpc dropped"), errors $(timer_errors "$S" "grpc dropped")); grpc.status.CANCELLED $(counter "$S" grpc.status.CANCELLED)" \
    [ "$(field window 0)" -eq 1 -a "$(timer_errors "$S" "grpc cancelled")" -eq 1 -a "$(tcancelled "$S" "grpc dropped")" -eq 1 \
      -a "$(timer_errors "$S" "grpc dropped")" -eq 0 -a "$(counter "$S" grpc.status.CANCELLED)" -eq 1 \
      -a "$(grep -o '^request,[0-9]*,"grpc lmgrpc.Greeter/Chat: CANCELLED' "$TMP/oe/errors.csv" | cut -d, -f2)" = 1 ]

# 4. metadata: -bin values in base64 (the greeter decodes them), bad values and reserved names
# refused; c:stream's messages counted as open_stream's
protoc --include_imports --descriptor_set_out="$TMP/g.desc" -I "$P" greeter.proto || { fail "protoc"; finish; }
RG=$(free_port)
"$PY" "$SRC/scripts/grpc-greeter.py" "$TMP/g.desc" "$RG" "$TMP/counts.json" > "$TMP/srv.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do grep -q ready "$TMP/srv.log" && break; sleep 0.1; done
served() { jq -r --arg k "$1" '.[$k] // 0' "$TMP/counts.json"; }
cat > "$TMP/sc/m.lua" <<'S'
return { requests = 3, groups = { { name = "g", vus = 1, script = "mvu.lua" } }, thresholds = { "grpc p95 < 60s" } }
S
cat > "$TMP/sc/mvu.lua" <<'S'
local function err(f) local ok, e = pcall(f) assert(not ok, "no error") return tostring(e) end
local at = "127.0.0.1:" .. luamech.param("PORT")
local c = luamech.grpc.connect(at, { proto = "greeter.proto", metadata = { ["x-key-bin"] = "\0\255\r\n" } })
for _, bad in ipairs({ "a\r\nx-evil: 1", "nul\0", "bell\7" }) do
  local e = err(function() c:invoke("lmgrpc.Greeter/SayHello", {}, { metadata = { ["x-run"] = bad } }) end)
  assert(e:find("metadata 'x-run' has CR, LF, NUL or another control character in its value", 1, true), e)
end
for _, name in ipairs({ "content-type", "te", "grpc-timeout", "grpc-encoding", "connection" }) do
  local e = err(function() c:invoke("lmgrpc.Greeter/SayHello", {}, { metadata = { [name] = "x" } }) end)
  assert(e:find("metadata name '" .. name .. "' is reserved", 1, true), e)
end
local e = err(function() luamech.grpc.connect(at, { proto = "greeter.proto", metadata = { te = "x" } }) end)
assert(e:find("grpc.connect: metadata name 'te' is reserved", 1, true), e)
local many = {}
for i = 1, 70 do many["x-" .. i] = "v" end
e = err(function() c:invoke("lmgrpc.Greeter/SayHello", {}, { metadata = many }) end)
assert(e:find("metadata: more than 64 entries (the client's included)", 1, true), e)
e = err(function() luamech.grpc.connect("http://" .. at, { proto = "greeter.proto" }) end)
assert(e:find("'http://" .. at .. "': host:port expected (no scheme; use tls = {...} for TLS)", 1, true), e)
e = err(function() luamech.grpc.connect("nosuch.invalid:1", { proto = "greeter.proto" }) end)
assert(e:find("grpc.connect: cannot resolve 'nosuch.invalid:1'", 1, true), e)
return function()
  local r, code, msg = c:invoke("lmgrpc.Greeter/SayHello", { name = "m" }, { metadata = { ["x-run"] = "tab\there" } })
  luamech.check(code == 0 and r.meta["x-key-bin"] == "00ff0d0a" and r.meta["x-run"] == "tab\there",
    "-bin in base64, decoded by the server: " .. tostring(code) .. " " .. tostring(msg) .. " " .. tostring(r and r.meta["x-key-bin"]))
  local rs, c2 = c:stream("lmgrpc.Greeter/Count", { name = "s", count = 3 })
  luamech.check(c2 == 0 and #rs == 3, "server stream")
end
S
b_msg=$(served Count.msg)
timeout 60 "$LUAMECH" run "$TMP/sc/m.lua" -q -w 1 -e PORT="$RG" -o "$TMP/om" > "$TMP/om.out" 2>&1
RC=$?
S=$TMP/om/summary.json
check "metadata: exit 0, refusals raised, every check passed ($RC, $(checks "$S" passes)/$(checks "$S" fails): $(grep -m1 -iE 'error|assert' "$TMP/om.out"))" \
    [ $RC -eq 0 -a "$(checks "$S" passes)" -eq 6 -a "$(checks "$S" fails)" -eq 0 ]
check "the aggregate timer grpc: every call, 3 unary and 3 streams ($(timer_count "$S" grpc)); its threshold measured and passed ($(jq -c '[.thresholds[]? | .passed, .measured]' "$S"))" \
    [ "$(timer_count "$S" grpc)" -eq 6 -a "$(jq -r '[.thresholds[]? | select(.passed and .measured != null)] | length' "$S")" -eq 1 ]
check "c:stream's messages: the server sent $(( $(served Count.msg) - b_msg )) = grpc.stream.messages_received ($(counter "$S" grpc.stream.messages_received)), 3 requests = messages_sent ($(counter "$S" grpc.stream.messages_sent))" \
    [ $(( $(served Count.msg) - b_msg )) -eq 9 -a "$(counter "$S" grpc.stream.messages_received)" -eq 9 -a "$(counter "$S" grpc.stream.messages_sent)" -eq 3 ]
# 6. nginx's grpc_pass with keepalive_requests 20 in front of the greeter: nginx ends each
# client connection with GOAWAY after 20 streams, and streams already sent above its last id
# are refused; every call must end OK, the greeter's count equal to luamech's (a few of 500
# failed UNAVAILABLE before the transparent retry)
NG=$TMP/nginx
NP=$(free_port)
nginx_conf_head "$NG" '$server_protocol $status'
cat >> "$NG/nginx.conf" <<EOF
    server {
        listen 127.0.0.1:$NP http2;
        keepalive_requests 20;
        location / { grpc_pass grpc://127.0.0.1:$RG; }
    }
EOF
nginx_conf_end "$NG"
nginx_launch "$NG" "$NP"
cat > "$TMP/sc/n.lua" <<'S'
return { requests = 400, groups = { { name = "g", vus = 8, script = "nvu.lua" } } }
S
cat > "$TMP/sc/nvu.lua" <<'S'
local c = luamech.grpc.connect("127.0.0.1:" .. luamech.param("PORT"), { proto = "greeter.proto", pool = true })
return function()
  local r, code, msg = c:invoke("lmgrpc.Greeter/SayHello", { name = "n" })
  luamech.check(code == 0 and r.message == "hello n", "through nginx: " .. tostring(code) .. " " .. tostring(msg))
end
S
b_ok=$(served SayHello.ok)
timeout 120 "$LUAMECH" run "$TMP/sc/n.lua" -q -w 2 -e PORT="$NP" -o "$TMP/on" > "$TMP/on.out" 2>&1
RC=$?
S=$TMP/on/summary.json
check "nginx keepalive_requests 20: 400 calls OK ($RC, OK $(counter "$S" grpc.status.OK), $(grep -m1 -o 'grpc lmgrpc[^"]*' "$TMP/on/errors.csv")) = the greeter's $(( $(served SayHello.ok) - b_ok )) = nginx's 200s ($(grep -c ' 200$' "$NG/access.log")); retried $(counter "$S" grpc.retries)" \
    [ $RC -eq 0 -a "$(counter "$S" grpc.status.OK)" -eq 400 -a $(( $(served SayHello.ok) - b_ok )) -eq 400 -a "$(grep -c ' 200$' "$NG/access.log")" -eq 400 ]
# 7. a stream of empty messages (5 bytes each on the wire): each kept message
# counts for 64 bytes besides its own toward the 64 MiB a stream keeps, so 6,000,000
# of them end the call RESOURCE_EXHAUSTED (c:stream, and open_stream while the
# script does not recv) instead of growing the client's memory (before: OK with
# every message, 450-750 MB RSS for 15 MB from the server)
EP=$(free_port)
hostile "$EP" empties
cat > "$TMP/sc/emp.lua" <<'S'
return { requests = 1, groups = { { name = "g", vus = 1, script = "empvu.lua" } } }
S
cat > "$TMP/sc/empvu.lua" <<'S'
local c = assert(luamech.grpc.connect("127.0.0.1:" .. luamech.param("PORT"), { proto = "greeter.proto", timeout = 120 }))
local function served()   -- the server's count of streams it wrote to their end
  local f = io.open(luamech.param("COUNTS"))
  local line = f and f:read("*l") or ""
  if f then f:close() end
  local k = {}
  for w in line:gmatch("%S+") do k[#k + 1] = tonumber(w) end
  return k[5] or 0
end
return function()
  local rs, code, msg = c:stream("lmgrpc.Greeter/Count", { name = "e", count = 1 })
  luamech.check(rs == nil and code == 8, "c:stream of 6,000,000 empty messages: " .. tostring(rs and #rs) .. " " .. tostring(code) .. " " .. tostring(msg))
  while served() < 1 do luamech.sleep(0.05) end
  local s = c:open_stream("lmgrpc.Greeter/Count", { name = "e", count = 1 })
  while served() < 2 do luamech.sleep(0.05) end    -- all written: what the client read waits in s's queue
  local n, m, code2, msg2 = 0, nil, nil, nil
  repeat
    m, code2, msg2 = s:recv()
    if m then n = n + 1 end
  until not m
  luamech.check(code2 == 8 and n < 6000000, "open_stream of 6,000,000 empty messages, not received: " .. n .. " " .. tostring(code2) .. " " .. tostring(msg2))
end
S
/usr/bin/time -f '%M' -o "$TMP/oemp.rss" timeout 120 "$LUAMECH" run "$TMP/sc/emp.lua" -q -w 1 -e PORT="$EP" -e COUNTS="$TMP/empties.txt" -o "$TMP/oemp" > "$TMP/oemp.out" 2>&1
RC=$?
S=$TMP/oemp/summary.json
check "empty messages: exit 0, both calls RESOURCE_EXHAUSTED ($RC, $(checks "$S" passes)/$(checks "$S" fails): $(grep -m1 -o 'RESOURCE_EXHAUSTED: [^"]*' "$TMP/oemp/errors.csv"))" \
    [ $RC -eq 0 -a "$(checks "$S" passes)" -eq 2 -a "$(checks "$S" fails)" -eq 0 ]
check "empty messages: the server wrote both streams ($(field empties 4)), RESOURCE_EXHAUSTED counted twice ($(counter "$S" grpc.status.RESOURCE_EXHAUSTED)), peak RSS under 250 MB ($(tail -1 "$TMP/oemp.rss") KB)" \
    [ "$(field empties 4)" -eq 2 -a "$(counter "$S" grpc.status.RESOURCE_EXHAUSTED)" -eq 2 -a "$(tail -1 "$TMP/oemp.rss")" -lt 250000 ]
# 8. more calls than the server's SETTINGS_MAX_CONCURRENT_STREAMS (10) allows: past 4096
# waiting on one connection, a call ends RESOURCE_EXHAUSTED at once (before: every one waited
# in libnghttp2's queue, where ending one walks the queue: 20,000 streams of one VU took the
# watchdog's stop, exit 7, or 11 s past the run's end); c:close() ends the others CANCELLED
# (8 and 8b) one VU opens N streams at once (after the server's SETTINGS with
# SETTLE=1), closes the client, and counts how each ended by its code
cat > "$TMP/sc/many.lua" <<'S'
return { requests = 1, groups = { { name = "g", vus = 1, script = "manyvu.lua" } } }
S
cat > "$TMP/sc/manyvu.lua" <<'S'
local c = assert(luamech.grpc.connect("127.0.0.1:" .. luamech.param("PORT"), { proto = "greeter.proto", timeout = 0 }))
local N = tonumber(luamech.param("N"))
if luamech.param("SETTLE") == "1" then luamech.sleep(0.3) end   -- the server's SETTINGS read
return function()
  local t = {}
  for i = 1, N do t[i] = c:open_stream("lmgrpc.Greeter/Chat", { name = "m" }) end
  c:close()
  local n = {}
  for i = 1, #t do
    local m, code = t[i]:recv()
    n[code] = (n[code] or 0) + 1
  end
  if luamech.param("SETTLE") == "1" then
    -- 10 streams open, 4096 waiting (100 while the SETTINGS are not read yet): the rest refused
    luamech.check((n[8] or 0) >= N - 100 - 4096 and (n[8] or 0) <= N - 10 - 4096 and (n[8] or 0) + (n[1] or 0) == N,
      "12,000 streams, server max 10: RESOURCE_EXHAUSTED " .. tostring(n[8]) .. ", CANCELLED " .. tostring(n[1]))
  else
    luamech.check((n[1] or 0) == N, "6,000 streams before the server's SETTINGS: CANCELLED " .. tostring(n[1]) .. ", RESOURCE_EXHAUSTED " .. tostring(n[8]))
  end
end
S
MP=$(free_port)
hostile "$MP" mcs10
timeout 120 "$LUAMECH" run "$TMP/sc/many.lua" -q -w 1 -e PORT="$MP" -e N=12000 -e SETTLE=1 -o "$TMP/omcs" > "$TMP/omcs.out" 2>&1
RC=$?
S=$TMP/omcs/summary.json
check "max concurrent streams 10: exit 0, the check passed ($RC, $(checks "$S" passes)/$(checks "$S" fails): $(grep -m1 -o 'RESOURCE_EXHAUSTED: [^"]*' "$TMP/omcs/errors.csv"))" \
    [ $RC -eq 0 -a "$(checks "$S" passes)" -eq 1 -a "$(checks "$S" fails)" -eq 0 ]
check "max concurrent streams 10: the server saw at most 100 streams ($(field mcs10 0))" [ "$(field mcs10 0)" -le 100 ]
# 8b. before the server's first SETTINGS its limit is not known (libnghttp2
# assumes 100): 6,000 calls opened at once on a fresh connection all wait
# (before: past 100 + 4096 they ended RESOURCE_EXHAUSTED, "(100)")
LP=$(free_port)
hostile "$LP" late
timeout 60 "$LUAMECH" run "$TMP/sc/many.lua" -q -w 1 -e PORT="$LP" -e N=6000 -o "$TMP/olate" > "$TMP/olate.out" 2>&1
RC=$?
S=$TMP/olate/summary.json
check "SETTINGS not read yet: exit 0, 6,000 calls waited, none refused ($RC, $(checks "$S" passes)/$(checks "$S" fails): $(grep -m1 -o 'RESOURCE_EXHAUSTED: [^"]*' "$TMP/olate/errors.csv"))" \
    [ $RC -eq 0 -a "$(checks "$S" passes)" -eq 1 -a "$(checks "$S" fails)" -eq 0 ]
# 9. a grpc-status that is no gRPC code (99): the script gets 2 UNKNOWN, as the counter
# grpc.status.UNKNOWN and the tally say (before: 99 to the script, UNKNOWN in the counts)
SP9=$(free_port)
hostile "$SP9" status99
cat > "$TMP/sc/s99.lua" <<'S'
return { requests = 5, groups = { { name = "g", vus = 1, script = "s99vu.lua" } } }
S
cat > "$TMP/sc/s99vu.lua" <<'S'
local c = assert(luamech.grpc.connect("127.0.0.1:" .. luamech.param("PORT"), { proto = "greeter.proto" }))
return function()
  local r, code, msg = c:invoke("lmgrpc.Greeter/SayHello", { name = "x" })
  luamech.check(r == nil and code == 2 and msg == "odd", "grpc-status 99: " .. tostring(code) .. " " .. tostring(msg))
end
S
timeout 60 "$LUAMECH" run "$TMP/sc/s99.lua" -q -w 1 -e PORT="$SP9" -o "$TMP/o99" > "$TMP/o99.out" 2>&1
RC=$?
S=$TMP/o99/summary.json
check "grpc-status 99: exit 0, the script saw 2 UNKNOWN 5 times ($RC, $(checks "$S" passes)/$(checks "$S" fails)); grpc.status.UNKNOWN $(counter "$S" grpc.status.UNKNOWN) = the server's $(field status99 4)" \
    [ $RC -eq 0 -a "$(checks "$S" passes)" -eq 5 -a "$(counter "$S" grpc.status.UNKNOWN)" -eq 5 -a "$(field status99 4)" -eq 5 ]
# 10. libnghttp2 refuses a field (grpc-status " 0") naming the stream: the reason is one text
# for every call, one line in the tally (before: one line per stream id)
SPP=$(free_port)
hostile "$SPP" spstatus
sed 's/status99/spstatus/' "$TMP/sc/s99.lua" > "$TMP/sc/sp.lua"
cat > "$TMP/sc/s99vu.lua" <<'S'
local c = assert(luamech.grpc.connect("127.0.0.1:" .. luamech.param("PORT"), { proto = "greeter.proto" }))
return function()
  local r, code, msg = c:invoke("lmgrpc.Greeter/SayHello", { name = "x" })
  luamech.check(code == 13, "bad grpc-status field: " .. tostring(code))
end
S
timeout 60 "$LUAMECH" run "$TMP/sc/sp.lua" -q -w 1 -e PORT="$SPP" -o "$TMP/osp" > "$TMP/osp.out" 2>&1
RC=$?
E=$TMP/osp/errors.csv
check "bad grpc-status field: exit 0, 5 calls INTERNAL, tallied on one line without a stream id ($RC; $(grep -c '^request' "$E") line(s): $(grep -m1 '^request' "$E"))" \
    [ $RC -eq 0 -a "$(counter "$TMP/osp/summary.json" grpc.status.INTERNAL)" -eq 5 -a "$(grep -c '^request,5,.*Invalid HTTP header field' "$E")" -eq 1 ]
finish
