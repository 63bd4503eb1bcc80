# gRPC against a real server: scripts/grpc-greeter.py
# (Debian's python3-grpcio, generic handlers, no generated code) counts what
# it served; luamech's timers and grpc.status.* counters must equal it.
# luamech compiles greeter.proto itself (protoc, run time).  Unary calls
# with every kind of field (maps, sint64 arrays, int64 as strings, oneof,
# Timestamp), metadata, server streaming, statuses from the server
# (percent-decoded message), UNIMPLEMENTED for a method the server lacks,
# INTERNAL for a malformed response, DEADLINE_EXCEEDED for a server that
# answers late and for one that never says anything (a bare TCP listener),
# UNAVAILABLE at connect for a closed port, script mistakes refused with
# one message, thresholds on "grpc <method>" timers; streams read and
# written while they run (c:open_stream: server-streaming, client-streaming,
# bidirectional), the server's counts of the messages it received and sent
# equal to luamech's, and hostile streams (reset mid-stream, no flow-control
# window, the deadline while sending, cancelled, dropped; 2.5 MiB per call
# through the windows); gzip compression both ways (the server's replies
# compressed, the requests it got compressed, a gzip bomb refused at the
# receive limit); the shipped
# scenario scenarios/grpc_greeter.lua (its proto is this test's); TLS
# with ALPN h2 against the same server with the test PKI's certificate;
# the folder of `luamech new --template grpc`, also through run-local.sh.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_http.sh"
PY=/usr/bin/python3
F=$SRC/tests/scenarios/fixtures/grpc
P=$SRC/scenarios
mkdir -p "$TMP/sc"
cp "$P/greeter.proto" "$TMP/sc/"
protoc --include_imports --descriptor_set_out="$TMP/g.desc" -I "$P" greeter.proto || { fail "protoc"; finish; }
GP=$(free_port)
"$PY" "$SRC/scripts/grpc-greeter.py" "$TMP/g.desc" "$GP" "$TMP/counts.json" > "$TMP/srv.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do grep -q ready "$TMP/srv.log" && break; sleep 0.1; done
grep -q ready "$TMP/srv.log" || { fail "the gRPC server did not start: $(cat "$TMP/srv.log")"; finish; }
served() { jq -r --arg k "$1" '.[$k] // 0' "$TMP/counts.json"; }
checks() { jq -r --arg k "$2" '[.checks[]? | .[$k]] | add // 0' "$1"; }   # checks FILE passes|fails

cat > "$TMP/sc/s.lua" <<'S'
return { requests = tonumber(luamech.param("N")), groups = { { name = "g", vus = 4, script = "vu.lua" } },
         thresholds = { luamech.param("TH") } }
S
cat > "$TMP/sc/vu.lua" <<'S'
local c = luamech.grpc.connect("127.0.0.1:" .. luamech.param("PORT"),
  { proto = "greeter.proto", pool = true, metadata = { ["x-user"] = "ann" } })
return function()
  local r, code, msg = c:invoke("lmgrpc.Greeter/SayHello", { name = "bob", count = 3, nums = { 1, -2 },
    tags = { a = "b" }, at = { seconds = 5, nanos = 7 } }, { metadata = { ["x-run"] = "r1" } })
  luamech.check(code == 0 and r.message == "hello bob" and r.n == 3, "unary reply")
  luamech.check(code == 0 and r.nums[1] == 2 and r.nums[2] == -4 and r.meta["x-user"] == "ann"
    and r.meta["x-run"] == "r1" and r.meta["tag-a"] == "b", "repeated, map, metadata")
  luamech.check(code == 0 and r.big == "-9007199254740993" and r.note == nil and r.at.seconds == 6
    and r.at.nanos == 7, "int64 past 2^53, oneof, Timestamp")
  local rs, c2 = c:stream("lmgrpc.Greeter/Count", { name = "s", count = 3 })
  luamech.check(c2 == 0 and #rs == 3 and rs[3].message == "s 2" and rs[3].n == 2, "server stream")
  local none, c3, m3 = c:invoke("lmgrpc.Greeter/SayHello", { name = "z", status = 5 }, { name = "refused" })
  luamech.check(none == nil and c3 == 5 and m3 == "refused: café 100% z", "status and message")
  local _, c4 = c:invoke("lmgrpc.Greeter/Missing", {})
  luamech.check(c4 == 12, "unimplemented")
  local _, c5, m5 = c:invoke("lmgrpc.Greeter/Garbage", {})
  luamech.check(c5 == 13 and m5:find("past the end", 1, true) ~= nil, "malformed response")
end
S
N=40
timeout 120 "$LUAMECH" run "$TMP/sc/s.lua" -q -w 2 -e PORT="$GP" -e N=$N -e TH="grpc lmgrpc.Greeter/SayHello p99 < 10s" \
    -o "$TMP/o1" > "$TMP/o1.out" 2>&1
RC=$?
S=$TMP/o1/summary.json
check "run exits 0 (exit $RC)" [ $RC -eq 0 ]
check "every check passed ($(checks "$S" passes) passed, $(checks "$S" fails) failed)" [ "$(checks "$S" fails)" -eq 0 -a "$(checks "$S" passes)" -eq $((N * 7)) ]
check "server: SayHello ok $N = luamech's grpc lmgrpc.Greeter/SayHello ($(served SayHello.ok), $(timer_count "$S" "grpc lmgrpc.Greeter/SayHello"))" \
    [ "$(served SayHello.ok)" -eq $N -a "$(timer_count "$S" "grpc lmgrpc.Greeter/SayHello")" -eq $N -a "$(timer_errors "$S" "grpc lmgrpc.Greeter/SayHello")" -eq 0 ]
check "server: refused $N = luamech's grpc refused errors and NOT_FOUND ($(served SayHello.status.5), $(timer_errors "$S" "grpc refused"), $(counter "$S" grpc.status.NOT_FOUND))" \
    [ "$(served SayHello.status.5)" -eq $N -a "$(timer_errors "$S" "grpc refused")" -eq $N -a "$(counter "$S" grpc.status.NOT_FOUND)" -eq $N ]
check "server: $((N * 3)) streamed messages in $N streams = luamech's Count timer ($(served Count.msg)/$(served Count.ok), $(timer_count "$S" "grpc lmgrpc.Greeter/Count"))" \
    [ "$(served Count.msg)" -eq $((N * 3)) -a "$(served Count.ok)" -eq $N -a "$(timer_count "$S" "grpc lmgrpc.Greeter/Count")" -eq $N ]
check "OK = SayHello + Count ($(counter "$S" grpc.status.OK))" [ "$(counter "$S" grpc.status.OK)" -eq $((N * 2)) ]
check "server: Garbage $N = INTERNAL $N ($(served Garbage), $(counter "$S" grpc.status.INTERNAL))" \
    [ "$(served Garbage)" -eq $N -a "$(counter "$S" grpc.status.INTERNAL)" -eq $N ]
check "UNIMPLEMENTED $N ($(counter "$S" grpc.status.UNIMPLEMENTED))" [ "$(counter "$S" grpc.status.UNIMPLEMENTED)" -eq $N ]
check "failures tallied with the status name" grep -q "grpc lmgrpc.Greeter/Missing: UNIMPLEMENTED" "$TMP/o1/errors.csv"

# the shipped scenario, shortened: its thresholds hold, the server saw what luamech counted
before=$(served SayHello.ok); b_chat=$(served Chat.ok); b_chin=$(served Chat.recv); b_chout=$(served Chat.sent); b_cnt=$(served Count.msg)
timeout 120 "$LUAMECH" run "$SRC/scenarios/grpc_greeter.lua" -q -w 2 -n 300 -u 10 -e GRPC="127.0.0.1:$GP" \
    -o "$TMP/shipped" > "$TMP/shipped.out" 2>&1
RC=$?
S=$TMP/shipped/summary.json
check "scenarios/grpc_greeter.lua: exit 0, 300 transactions, no error (exit $RC, $(timer_count "$S" "All Transactions")/$(timer_errors "$S" "All Transactions"))" \
    [ $RC -eq 0 -a "$(timer_count "$S" "All Transactions")" -eq 300 -a "$(timer_errors "$S" "All Transactions")" -eq 0 ]
check "scenarios/grpc_greeter.lua: the server served its 300 SayHello ($(( $(served SayHello.ok) - before )))" \
    [ $(( $(served SayHello.ok) - before )) -eq 300 ]
# the stream counters count c:stream's Count too (its request, its 5 replies), as k6's do
check "scenarios/grpc_greeter.lua: its 300 bidirectional Chat streams = the server's, 600 messages in, 900 out ($(( $(served Chat.ok) - b_chat )), $(( $(served Chat.recv) - b_chin )), $(( $(served Chat.sent) - b_chout )); timer $(timer_count "$S" "grpc lmgrpc.Greeter/Chat")); with Count's, messages_sent $(counter "$S" grpc.stream.messages_sent) = 900, messages_received $(counter "$S" grpc.stream.messages_received) = 900 + the server's $(( $(served Count.msg) - b_cnt ))" \
    [ $(( $(served Chat.ok) - b_chat )) -eq 300 -a $(( $(served Chat.recv) - b_chin )) -eq 600 -a $(( $(served Chat.sent) - b_chout )) -eq 900 \
      -a "$(timer_count "$S" "grpc lmgrpc.Greeter/Chat")" -eq 300 -a "$(counter "$S" grpc.stream.messages_sent)" -eq 900 \
      -a $(( $(served Count.msg) - b_cnt )) -eq 1500 -a "$(counter "$S" grpc.stream.messages_received)" -eq 2400 ]

# over TLS (ALPN h2; the test PKI's CA), against the same server code with a certificate
PKI=$TMP/pki
test_pki "$PKI"
TP=$(free_port)
"$PY" "$SRC/scripts/grpc-greeter.py" "$TMP/g.desc" "$TP" "$TMP/tcounts.json" "$PKI/server.pem" "$PKI/server.key" > "$TMP/tsrv.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do grep -q ready "$TMP/tsrv.log" && break; sleep 0.1; done
cat > "$TMP/sc/t.lua" <<'S'
return { requests = 20, groups = { { name = "g", vus = 2, script = "tvu.lua" } } }
S
cat > "$TMP/sc/tvu.lua" <<'S'
local c = assert(luamech.grpc.connect("localhost:" .. luamech.param("PORT"),
  { proto = "greeter.proto", tls = { ca_file = luamech.param("CA") } }))
return function()
  local r, code, msg = c:invoke("lmgrpc.Greeter/SayHello", { name = "tls" })
  luamech.check(code == 0 and r.message == "hello tls", "over TLS: " .. tostring(code) .. " " .. tostring(msg))
end
S
timeout 60 "$LUAMECH" run "$TMP/sc/t.lua" -q -w 1 -e PORT="$TP" -e CA="$PKI/ca.pem" -o "$TMP/o6" > "$TMP/o6.out" 2>&1
RC=$?
S=$TMP/o6/summary.json
check "over TLS: exit 0, 20 OK = the TLS server's 20 (exit $RC, $(counter "$S" grpc.status.OK), $(jq -r '."SayHello.ok" // 0' "$TMP/tcounts.json"))" \
    [ $RC -eq 0 -a "$(counter "$S" grpc.status.OK)" -eq 20 -a "$(jq -r '."SayHello.ok" // 0' "$TMP/tcounts.json")" -eq 20 ]
echo 'local c, err = luamech.grpc.connect("localhost:" .. luamech.param("PORT"), { proto = "greeter.proto", tls = { ca_file = luamech.param("CA") } }) assert(c == nil and err:find("^grpc%.connect localhost:%d+: TLS error: certificate verification failed"), err) return function() end' > "$TMP/sc/tvu.lua"
timeout 60 "$LUAMECH" run "$TMP/sc/t.lua" -q -w 1 -e PORT="$TP" -e CA="$PKI/ca2.pem" -o "$TMP/o7" > "$TMP/o7.out" 2>&1
RC=$?
check "over TLS with another CA: connect returns nil, '...: TLS error: certificate verification failed ...' (exit $RC: $(grep -o "grpc.connect[^)]*" "$TMP/o7.out" | head -1))" [ $RC -eq 0 ]

# luamech new --template grpc: its folder (with service.proto) runs green against this server
(cd "$TMP" && "$LUAMECH" new t_grpc --template grpc > "$TMP/new.out" 2>&1)
check "new --template grpc writes service.proto ($(head -1 "$TMP/new.out"))" [ -s "$TMP/t_grpc/service.proto" ]
before=$(served SayHello.ok); b_chat=$(served Chat.ok)
timeout 60 "$LUAMECH" run "$TMP/t_grpc/scenario.lua" -q -w 1 -d 1s -e GRPC="127.0.0.1:$GP" -o "$TMP/o8" > "$TMP/o8.out" 2>&1
RC=$?
S=$TMP/o8/summary.json
check "the grpc template runs green, its calls = the server's ($RC, $(timer_count "$S" "grpc lmgrpc.Greeter/SayHello") = $(( $(served SayHello.ok) - before )))" \
    [ $RC -eq 0 -a "$(timer_count "$S" "grpc lmgrpc.Greeter/SayHello")" -gt 0 -a "$(timer_errors "$S" "grpc lmgrpc.Greeter/SayHello")" -eq 0 \
      -a "$(timer_count "$S" "grpc lmgrpc.Greeter/SayHello")" -eq $(( $(served SayHello.ok) - before )) ]
check "the grpc template's Chat streams = the server's ($(timer_count "$S" "grpc lmgrpc.Greeter/Chat") = $(( $(served Chat.ok) - b_chat )))" \
    [ "$(timer_count "$S" "grpc lmgrpc.Greeter/Chat")" -gt 0 -a "$(timer_errors "$S" "grpc lmgrpc.Greeter/Chat")" -eq 0 \
      -a "$(timer_count "$S" "grpc lmgrpc.Greeter/Chat")" -eq $(( $(served Chat.ok) - b_chat )) ]

# ... and through run-local.sh, which starts a gRPC server of its own for it (the command new prints)
check "new --template grpc prints the run-local.sh command" grep -q "or:  bash .*run-local.sh t_grpc/scenario.lua" "$TMP/new.out"
(cd "$TMP" && LUAMECH=$LUAMECH timeout 120 bash "$SRC/scripts/run-local.sh" t_grpc/scenario.lua -d 1s -q -o "$TMP/o9" > "$TMP/o9.out" 2>&1)
RC=$?
S=$TMP/o9/summary.json
check "the grpc template through run-local.sh: exit 0, calls, no error ($RC, $(timer_count "$S" "grpc lmgrpc.Greeter/SayHello"), $(grep -m1 'gRPC greeter' "$TMP/o9.out"))" \
    [ $RC -eq 0 -a "$(timer_count "$S" "grpc lmgrpc.Greeter/SayHello")" -gt 0 -a "$(timer_errors "$S" "grpc lmgrpc.Greeter/SayHello")" -eq 0 ]

# a threshold on a gRPC timer fails the run (exit 6)
timeout 120 "$LUAMECH" run "$TMP/sc/s.lua" -q -w 1 -e PORT="$GP" -e N=4 -e TH="grpc lmgrpc.Greeter/Count errors > 1000" \
    -o "$TMP/o2" > "$TMP/o2.out" 2>&1
RC=$?
check "a failing threshold on grpc lmgrpc.Greeter/Count: exit 6 (exit $RC)" [ $RC -eq 6 ]

# deadlines: a server that answers only after the deadline, and one that never says anything
SP=$(free_port)
"$PY" -c 'import socket,sys,time
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(64)
held=[]
while True:
    c,_=s.accept(); held.append(c)' "$SP" &
PIDS+=($!)
for _ in $(seq 50); do port_open "$SP" && break; sleep 0.1; done
cat > "$TMP/sc/d.lua" <<'S'
return { requests = 8, groups = { { name = "g", vus = 4, script = "dvu.lua" } } }
S
cat > "$TMP/sc/dvu.lua" <<'S'
local late = luamech.grpc.connect("127.0.0.1:" .. luamech.param("PORT"), { proto = "greeter.proto" })
local mute = luamech.grpc.connect("127.0.0.1:" .. luamech.param("SILENT"), { proto = "greeter.proto", timeout = 0.3 })
return function()
  local _, c1, m1 = late:invoke("lmgrpc.Greeter/Never", {}, { timeout = 1 })
  luamech.check(c1 == 4, "late server: DEADLINE_EXCEEDED")
  local _, c2, m2 = mute:invoke("lmgrpc.Greeter/SayHello", { name = "x" })
  luamech.check(c2 == 4 and m2:find("deadline", 1, true) ~= nil, "silent server: DEADLINE_EXCEEDED")
end
S
before=$(served Never.started)
start=$(date +%s%N)
timeout 60 "$LUAMECH" run "$TMP/sc/d.lua" -q -w 1 -e PORT="$GP" -e SILENT="$SP" -o "$TMP/o3" > "$TMP/o3.out" 2>&1
RC=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
S=$TMP/o3/summary.json
check "deadline run exits 0 (exit $RC)" [ $RC -eq 0 ]
check "16 DEADLINE_EXCEEDED, checks pass ($(counter "$S" grpc.status.DEADLINE_EXCEEDED), $(checks "$S" passes))" \
    [ "$(counter "$S" grpc.status.DEADLINE_EXCEEDED)" -eq 16 -a "$(checks "$S" passes)" -eq 16 ]
check "the late server saw 8 calls ($(( $(served Never.started) - before )))" [ $(( $(served Never.started) - before )) -eq 8 ]
# (the late server's deadline is 1 s, not 0.2 s: grpcio calls the handler,
# which counts Never.started, only once a pool thread read the request; a
# busy machine's Python can take longer than 0.2 s, and the call cancelled
# by then never reaches the handler.  Without deadlines the run would take
# the handler's 30 s.)
check "bounded: 2 rounds of 1.3 s deadlines took under 20 s ($ms ms)" [ $ms -lt 20000 ]

# the pool key carries string options: another proto file or other metadata is another
# pooled client (the metadata the server echoes is each client's own), the same ones share
cp "$P/greeter.proto" "$TMP/sc/greeter2.proto"
cat > "$TMP/sc/pk.lua" <<'S'
return { requests = 8, groups = { { name = "g", vus = 2, script = "pkvu.lua" } } }
S
cat > "$TMP/sc/pkvu.lua" <<'S'
local at = "127.0.0.1:" .. luamech.param("PORT")
local a = luamech.grpc.connect(at, { proto = "greeter.proto", pool = true, metadata = { ["x-user"] = "ann" } })
local b = luamech.grpc.connect(at, { proto = "greeter2.proto", pool = true, metadata = { ["x-user"] = "ann" } })
local c = luamech.grpc.connect(at, { proto = "greeter.proto", pool = true, metadata = { ["x-user"] = "bob" } })
local d = luamech.grpc.connect(at, { proto = "greeter.proto", pool = true, metadata = { ["x-user"] = "ann" } })
return function()
  luamech.check(a ~= b and a ~= c and a == d, "pool: another proto or metadata, another client")
  local ra = a:invoke("lmgrpc.Greeter/SayHello", { name = "p" })
  local rc = c:invoke("lmgrpc.Greeter/SayHello", { name = "p" })
  luamech.check(ra and rc and ra.meta["x-user"] == "ann" and rc.meta["x-user"] == "bob",
    "pool: the server saw each client's own metadata")
end
S
timeout 60 "$LUAMECH" run "$TMP/sc/pk.lua" -q -w 1 -e PORT="$GP" -o "$TMP/opk" > "$TMP/opk.out" 2>&1
RC=$?
S=$TMP/opk/summary.json
check "pool key with string options: run exits 0, 16 checks pass, none fail (exit $RC, $(checks "$S" passes) passed, $(checks "$S" fails) failed)" \
    [ $RC -eq 0 -a "$(checks "$S" passes)" -eq 16 -a "$(checks "$S" fails)" -eq 0 ]

# connect to a closed port: the init fails (exit 4) with one message
CP=$(free_port)
cat > "$TMP/sc/c.lua" <<'S'
return { requests = 1, groups = { { name = "g", vus = 1, script = "cvu.lua" } } }
S
echo 'local c = assert(luamech.grpc.connect("127.0.0.1:" .. luamech.param("PORT"), { proto = "greeter.proto", connect_timeout = 2 })) return function() end' > "$TMP/sc/cvu.lua"
timeout 60 "$LUAMECH" run "$TMP/sc/c.lua" -q -w 1 -e PORT="$CP" -o "$TMP/o4" > "$TMP/o4.out" 2>&1
RC=$?
check "a closed port: exit 4 with grpc.connect's message (exit $RC: $(grep -m1 grpc.connect "$TMP/o4.out"))" \
    [ $RC -eq 4 ] && grep -q "grpc.connect 127.0.0.1:$CP" "$TMP/o4.out"

# streams read and written while they run (c:open_stream): server-streaming read message by message,
# client-streaming (the reply at close_send), bidirectional; the server's counts of the messages it
# received and sent equal luamech's grpc.stream.messages_sent and _received, its calls the timers'
cat > "$TMP/sc/st.lua" <<'S'
return { requests = tonumber(luamech.param("N")), groups = { { name = "g", vus = 4, script = "stvu.lua" } } }
S
cat > "$TMP/sc/stvu.lua" <<'S'
local c = luamech.grpc.connect("127.0.0.1:" .. luamech.param("PORT"), { proto = "greeter.proto", pool = true })
return function()
  local s = c:open_stream("lmgrpc.Greeter/Count", { name = "s", count = 4 })
  local got, last, code, msg = 0, nil, nil, nil
  while true do
    local m, c1, m1 = s:recv()
    if not m then code, msg = c1, m1 break end
    got, last = got + 1, m
  end
  luamech.check(got == 4 and last.message == "s 3" and code == 0 and msg == "", "server stream read message by message")
  local cs = c:open_stream("lmgrpc.Greeter/Collect", { name = "n0" })
  assert(cs:send({ name = "n1" }))
  assert(cs:send({ name = "n2" }))
  local r, c2 = cs:close_send()
  luamech.check(c2 == 0 and r.n == 3 and r.message == "n0,n1,n2", "client stream: the reply at close_send")
  local ok1, e1 = pcall(s.send, s, { name = "no" })
  local ok2, e2 = pcall(cs.recv, cs)
  luamech.check(not ok1 and tostring(e1):find("is server-streaming: its request went at open", 1, true)
    and not ok2 and tostring(e2):find("its reply comes from s:close_send()", 1, true), "stream misuse raises")
  local b = c:open_stream("lmgrpc.Greeter/Chat", { name = "x", count = 2 })
  local seen = {}
  for _ = 1, 2 do seen[#seen + 1] = b:recv().message end
  assert(b:send({ name = "y", count = 3 }))
  assert(b:close_send() == true)
  while true do
    local m, c3 = b:recv()
    if not m then luamech.check(c3 == 0, "bidi ends OK") break end
    seen[#seen + 1] = m.message
  end
  luamech.check(table.concat(seen, "|") == "x 0|x 1|y 0|y 1|y 2", "bidi: replies in order")
end
S
b_crecv=$(served Collect.recv); b_chrecv=$(served Chat.recv); b_chsent=$(served Chat.sent); b_cmsg=$(served Count.msg)
b_cok=$(served Count.ok); b_colok=$(served Collect.ok); b_chok=$(served Chat.ok)
N=30
timeout 120 "$LUAMECH" run "$TMP/sc/st.lua" -q -w 2 -e PORT="$GP" -e N=$N -o "$TMP/os" > "$TMP/os.out" 2>&1
RC=$?
S=$TMP/os/summary.json
d() { echo $(( $(served "$1") - $2 )); }
srv_in=$(( N + $(d Collect.recv "$b_crecv") + $(d Chat.recv "$b_chrecv") ))       # Count's request, then streams
srv_out=$(( $(d Count.msg "$b_cmsg") + $(d Collect.ok "$b_colok") + $(d Chat.sent "$b_chsent") ))
check "streams: exit 0, every check passed (exit $RC, $(checks "$S" passes) passed, $(checks "$S" fails) failed)" \
    [ $RC -eq 0 -a "$(checks "$S" fails)" -eq 0 -a "$(checks "$S" passes)" -eq $((N * 5)) ]
check "streams: the server received $srv_in messages = luamech's grpc.stream.messages_sent ($(counter "$S" grpc.stream.messages_sent)), $((N * 6)) expected" \
    [ "$(counter "$S" grpc.stream.messages_sent)" -eq "$srv_in" -a "$srv_in" -eq $((N * 6)) ]
check "streams: the server sent $srv_out messages = luamech's grpc.stream.messages_received ($(counter "$S" grpc.stream.messages_received)), $((N * 10)) expected" \
    [ "$(counter "$S" grpc.stream.messages_received)" -eq "$srv_out" -a "$srv_out" -eq $((N * 10)) ]
check "streams: the server's finished calls = luamech's timers (Count $(d Count.ok "$b_cok")/$(timer_count "$S" "grpc lmgrpc.Greeter/Count"), Collect $(d Collect.ok "$b_colok")/$(timer_count "$S" "grpc lmgrpc.Greeter/Collect"), Chat $(d Chat.ok "$b_chok")/$(timer_count "$S" "grpc lmgrpc.Greeter/Chat"))" \
    [ "$(d Count.ok "$b_cok")" -eq $N -a "$(timer_count "$S" "grpc lmgrpc.Greeter/Count")" -eq $N \
      -a "$(d Collect.ok "$b_colok")" -eq $N -a "$(timer_count "$S" "grpc lmgrpc.Greeter/Collect")" -eq $N \
      -a "$(d Chat.ok "$b_chok")" -eq $N -a "$(timer_count "$S" "grpc lmgrpc.Greeter/Chat")" -eq $N \
      -a "$(counter "$S" grpc.status.OK)" -eq $((N * 3)) ]

# hostile streams: a server that resets a bidirectional call mid-stream (raw frames,
# fixtures/grpc/grpc_hostile.py rst), one that never opens a flow-control window (window: the
# request's messages must not leave, the deadline ends the call), the real server's Hold reading
# nothing while luamech sends (the deadline while sending), a stream cancelled and one dropped
RP=$(free_port); WP=$(free_port)
"$PY" "$F/grpc_hostile.py" "$RP" rst "$TMP/rst.txt" & PIDS+=($!)
"$PY" "$F/grpc_hostile.py" "$WP" window "$TMP/win.txt" & PIDS+=($!)
for _ in $(seq 50); do port_open "$RP" && port_open "$WP" && break; sleep 0.1; done
cat > "$TMP/sc/hs.lua" <<'S'
return { requests = tonumber(luamech.param("N")), groups = { { name = "g", vus = 2, script = "hsvu.lua" } } }
S
cat > "$TMP/sc/hsvu.lua" <<'S'
local p = luamech.param
local rst = luamech.grpc.connect("127.0.0.1:" .. p("RST"), { proto = "greeter.proto" })
local win = luamech.grpc.connect("127.0.0.1:" .. p("WIN"), { proto = "greeter.proto", timeout = 0.3 })
local real = luamech.grpc.connect("127.0.0.1:" .. p("PORT"), { proto = "greeter.proto" })
return function()
  local b = rst:open_stream("lmgrpc.Greeter/Chat")
  local m = b:recv()
  luamech.check(m ~= nil and m.message == "r", "the message before the reset")
  assert(b:send({ name = "x" }))
  local m2, c2, e2 = b:recv()
  luamech.check(m2 == nil and c2 == 13 and e2:find("reset by the server (INTERNAL_ERROR)", 1, true) ~= nil, "reset mid-stream: INTERNAL")
  local ok, e = b:send({ name = "late" })
  luamech.check(ok == nil and e:find(": INTERNAL: the call is over: stream reset by the server (INTERNAL_ERROR)", 1, true) ~= nil, "send after the end: nil, err")
  local w = win:open_stream("lmgrpc.Greeter/Collect", { name = "a" })
  for _ = 1, 3 do assert(w:send({ name = string.rep("z", 1000) })) end
  local r, c3 = w:close_send()
  luamech.check(r == nil and c3 == 4, "no window: DEADLINE_EXCEEDED")
  local h = real:open_stream("lmgrpc.Greeter/Hold", nil, { timeout = 0.3 })
  for _ = 1, 50 do assert(h:send({ name = string.rep("h", 2000) })) end
  local r4, c4 = h:close_send()
  luamech.check(r4 == nil and c4 == 4, "deadline while sending: DEADLINE_EXCEEDED")
  local big = real:open_stream("lmgrpc.Greeter/Collect")
  for _ = 1, 40 do assert(big:send({ name = string.rep("b", 65536) })) end   -- 2.5 MiB: past every window
  local rb, cb = big:close_send()
  luamech.check(cb == 0 and rb.n == 40, "2.5 MiB through the windows: all 40 messages")
  local k = win:open_stream("lmgrpc.Greeter/Chat")
  k:cancel()
  local m5, c5 = k:recv()
  luamech.check(m5 == nil and c5 == 1, "cancelled: CANCELLED")
  do local _ = win:open_stream("lmgrpc.Greeter/Chat") end
  collectgarbage() collectgarbage()
end
S
before=$(served Hold.started); bcol=$(served Collect.recv)
N=6
timeout 60 "$LUAMECH" run "$TMP/sc/hs.lua" -q -w 1 -e PORT="$GP" -e RST="$RP" -e WIN="$WP" -e N=$N -o "$TMP/oh" > "$TMP/oh.out" 2>&1
RC=$?
S=$TMP/oh/summary.json
read -r rreqs rresets rdata _ < "$TMP/rst.txt"
read -r wreqs _ wdata _ < "$TMP/win.txt"
check "hostile streams: exit 0, every check passed (exit $RC, $(checks "$S" passes) passed, $(checks "$S" fails) failed)" \
    [ $RC -eq 0 -a "$(checks "$S" fails)" -eq 0 -a "$(checks "$S" passes)" -eq $((N * 7)) ]
check "reset mid-stream: the server's $rreqs calls and $rresets resets = luamech's INTERNAL ($(counter "$S" grpc.status.INTERNAL)); it got one 8-byte message each, nothing after the reset ($rdata bytes)" \
    [ "$rreqs" -eq $N -a "$rresets" -eq $N -a "$(counter "$S" grpc.status.INTERNAL)" -eq $N -a "$rdata" -eq $((N * 8)) ]
# DATA waits for the server's first SETTINGS (RFC 9113 6.9.2 lets a server
# start with a window of 0), so not one request byte leaves luamech.
check "no window: $wreqs calls reached the server (Collect's; the streams cancelled or dropped in the same loop turn never left), $wdata request bytes left luamech (flow control honoured from the first byte)" \
    [ "$wreqs" -eq $N -a "$wdata" -eq 0 ]
check "deadline while sending: the server's Hold calls ($(( $(served Hold.started) - before ))) and DEADLINE_EXCEEDED ($(counter "$S" grpc.status.DEADLINE_EXCEEDED)) = 2 per transaction" \
    [ $(( $(served Hold.started) - before )) -eq $N -a "$(counter "$S" grpc.status.DEADLINE_EXCEEDED)" -eq $((N * 2)) ]
check "2.5 MiB per call through the flow-control windows: the server received $(( $(served Collect.recv) - bcol )) messages, $((N * 40)) sent" \
    [ $(( $(served Collect.recv) - bcol )) -eq $((N * 40)) ]
check "a stream cancelled and one dropped: CANCELLED $((N * 2)) ($(counter "$S" grpc.status.CANCELLED))" \
    [ "$(counter "$S" grpc.status.CANCELLED)" -eq $((N * 2)) ]

# gzip compression (compression = "gzip"): against the real server compressing its replies
# (GREETER_COMPRESSION=gzip) unary, server-streaming and client-streaming calls, counted by the
# server; the raw-frame server counts the request messages that came compressed (flag 1) and
# answers a compressed reply luamech must decode, and a gzip bomb (16 MiB of zeros in 16 KiB)
# that must end RESOURCE_EXHAUSTED at the 4 MiB receive limit, not grow memory
ZP=$(free_port); GZP=$(free_port); BP=$(free_port)
GREETER_COMPRESSION=gzip "$PY" "$SRC/scripts/grpc-greeter.py" "$TMP/g.desc" "$ZP" "$TMP/zcounts.json" > "$TMP/zsrv.log" 2>&1 &
PIDS+=($!)
"$PY" "$F/grpc_hostile.py" "$GZP" gzip "$TMP/gz.txt" & PIDS+=($!)
"$PY" "$F/grpc_hostile.py" "$BP" bomb "$TMP/bomb.txt" & PIDS+=($!)
for _ in $(seq 100); do grep -q ready "$TMP/zsrv.log" && port_open "$GZP" && port_open "$BP" && break; sleep 0.1; done
zserved() { jq -r --arg k "$1" '.[$k] // 0' "$TMP/zcounts.json"; }
cat > "$TMP/sc/z.lua" <<'S'
return { requests = tonumber(luamech.param("N")), groups = { { name = "g", vus = 2, script = "zvu.lua" } } }
S
cat > "$TMP/sc/zvu.lua" <<'S'
local p = luamech.param
local c = luamech.grpc.connect("127.0.0.1:" .. p("PORT"), { proto = "greeter.proto", compression = "gzip" })
local gz = luamech.grpc.connect("127.0.0.1:" .. p("GZ"), { proto = "greeter.proto", compression = "gzip" })
local bomb = luamech.grpc.connect("127.0.0.1:" .. p("BOMB"), { proto = "greeter.proto" })
return function()
  local r, code = c:invoke("lmgrpc.Greeter/SayHello", { name = string.rep("gz", 500), count = 2 })
  luamech.check(code == 0 and r.message == "hello " .. string.rep("gz", 500) and r.note == "even", "gzip unary")
  local rs, c2 = c:stream("lmgrpc.Greeter/Count", { name = "z", count = 3 })
  luamech.check(c2 == 0 and #rs == 3 and rs[3].message == "z 2", "gzip server stream")
  local cs = c:open_stream("lmgrpc.Greeter/Collect", { name = "a" })
  assert(cs:send({ name = string.rep("b", 3000) }))
  local r3, c3 = cs:close_send()
  luamech.check(c3 == 0 and r3.n == 2 and #r3.message == 3002, "gzip client stream")
  local r4, c4 = gz:invoke("lmgrpc.Greeter/SayHello", { name = "q" })
  luamech.check(c4 == 0 and r4.message == string.rep("z", 1000), "a compressed reply decoded")
  local r5, c5, m5 = bomb:invoke("lmgrpc.Greeter/SayHello", { name = "q" })
  luamech.check(r5 == nil and c5 == 8 and m5:find("decompresses past the receive limit of 4194304", 1, true) ~= nil,
    "gzip bomb: RESOURCE_EXHAUSTED")
end
S
N=20
timeout 120 "$LUAMECH" run "$TMP/sc/z.lua" -q -w 1 -e PORT="$ZP" -e GZ="$GZP" -e BOMB="$BP" -e N=$N \
    -o "$TMP/oz" > "$TMP/oz.out" 2>&1
RC=$?
S=$TMP/oz/summary.json
read -r gzreqs _ _ gzin _ < "$TMP/gz.txt"
read -r breqs _ _ _ < "$TMP/bomb.txt"
check "gzip: exit 0, every check passed (exit $RC, $(checks "$S" passes) passed, $(checks "$S" fails) failed)" \
    [ $RC -eq 0 -a "$(checks "$S" fails)" -eq 0 -a "$(checks "$S" passes)" -eq $((N * 5)) ]
check "gzip: the compressing server served SayHello $(zserved SayHello.ok), Count $(zserved Count.ok) ($(zserved Count.msg) messages), Collect $(zserved Collect.ok) ($(zserved Collect.recv) messages) = luamech's timers" \
    [ "$(zserved SayHello.ok)" -eq $N -a "$(timer_count "$S" "grpc lmgrpc.Greeter/SayHello")" -eq $((N * 3)) \
      -a "$(zserved Count.ok)" -eq $N -a "$(zserved Count.msg)" -eq $((N * 3)) -a "$(timer_count "$S" "grpc lmgrpc.Greeter/Count")" -eq $N \
      -a "$(zserved Collect.ok)" -eq $N -a "$(zserved Collect.recv)" -eq $((N * 2)) -a "$(timer_count "$S" "grpc lmgrpc.Greeter/Collect")" -eq $N ]
check "gzip: the raw server got $gzreqs calls whose $gzin request messages were all compressed (flag 1), $N expected" \
    [ "$gzreqs" -eq $N -a "$gzin" -eq $N ]
check "gzip bomb: the server's $breqs calls = luamech's RESOURCE_EXHAUSTED ($(counter "$S" grpc.status.RESOURCE_EXHAUSTED)), OK $(counter "$S" grpc.status.OK) = $((N * 4))" \
    [ "$breqs" -eq $N -a "$(counter "$S" grpc.status.RESOURCE_EXHAUSTED)" -eq $N -a "$(counter "$S" grpc.status.OK)" -eq $((N * 4)) ]
check "gzip bomb: tallied with the status name" grep -q "RESOURCE_EXHAUSTED: grpc: a compressed message of" "$TMP/oz/errors.csv"

# script mistakes: one clear message each, raised to the script
cat > "$TMP/sc/e.lua" <<'S'
return { requests = 1, groups = { { name = "g", vus = 1, script = "evu.lua" } } }
S
cat > "$TMP/sc/evu.lua" <<'S'
local function err(f) local ok, e = pcall(f) assert(not ok) return tostring(e) end
local c = luamech.grpc.connect("127.0.0.1:" .. luamech.param("PORT"), { proto = "greeter.proto" })
local e1 = err(function() c:invoke("lmgrpc.Greeter/Nope", {}) end)
assert(e1:find("no method 'lmgrpc.Greeter/Nope'", 1, true), e1)
local e2 = err(function() c:invoke("lmgrpc.Greeter/SayHello", { nme = "x" }) end)
assert(e2:find("lmgrpc.HelloRequest has no field 'nme'", 1, true), e2)
local e3 = err(function() c:invoke("lmgrpc.Greeter/SayHello", { count = "many" }) end)
assert(e3:find("lmgrpc.HelloRequest.count: 'many' is not an integer", 1, true), e3)
local e4 = err(function() c:invoke("lmgrpc.Greeter/SayHello", { count = 2^40 }) end)
assert(e4:find("out of the 32-bit range", 1, true), e4)
local e5 = err(function() c:invoke("lmgrpc.Greeter/Count", {}) end)
assert(e5:find("server-streaming: use c:stream", 1, true), e5)
local e8 = err(function() c:open_stream("lmgrpc.Greeter/SayHello", {}) end)
assert(e8:find("SayHello is unary: use c:invoke", 1, true), e8)
local e9 = err(function() c:invoke("lmgrpc.Greeter/Chat", {}) end)
assert(e9:find("Chat is bidirectional: use c:open_stream", 1, true), e9)
local e10 = err(function() c:open_stream("lmgrpc.Greeter/Count") end)
assert(e10:find("its request is given here", 1, true), e10)
local e11 = err(function() luamech.grpc.connect("127.0.0.1:1", { proto = "greeter.proto", compression = "br" }) end)
assert(e11:find('grpc.connect: compression must be "gzip" or "none"', 1, true), e11)
local e12 = err(function() luamech.grpc.connect("127.0.0.1:1", { proto = "greeter.proto", max_recv = 1.5 }) end)
assert(e12:find("grpc.connect: max_recv must be a whole number of bytes in 1..1073741824", 1, true), e12)
local e13 = err(function() luamech.grpc.connect("127.0.0.1:1", { proto = "greeter.proto", connect_timeout = -1 }) end)
assert(e13:find("grpc.connect: connect_timeout must be a number of seconds between 0 and 86400", 1, true), e13)
local e14 = err(function() c:invoke("lmgrpc.Greeter/SayHello", {}, { tmeout = 1 }) end)
assert(e14:find("unknown option 'tmeout'", 1, true), e14)
local e15 = err(function() c:open_stream("lmgrpc.Greeter/Chat", nil, { timeout = -1 }) end)
assert(e15:find("timeout must be a number of seconds between 0 and 86400", 1, true), e15)
local e16 = err(function() c:stream("lmgrpc.Greeter/Count", {}, 5) end)
assert(e16:find("table expected", 1, true), e16)
local e6 = err(function() luamech.grpc.connect("127.0.0.1:1", { proto = "nope.proto" }) end)
assert(e6:find("protoc failed", 1, true), e6)
local pb = luamech.protobuf.load("greeter.proto")
local bytes = pb:encode("lmgrpc.HelloRequest", { name = "ü", nums = { -1, 5 }, tags = { k = "v" } })
local back = pb:decode("lmgrpc.HelloRequest", bytes)
assert(back.name == "ü" and back.nums[1] == -1 and back.nums[2] == 5 and back.tags.k == "v", "protobuf round trip")
local bad, e7 = pb:decode("lmgrpc.HelloRequest", "\10\9ab")
assert(bad == nil and e7:find("past the end", 1, true), tostring(e7))
return function() end
S
timeout 60 "$LUAMECH" run "$TMP/sc/e.lua" -q -w 1 -e PORT="$GP" -o "$TMP/o5" > "$TMP/o5.out" 2>&1
RC=$?
check "script mistakes raise clear messages (exit $RC: $(grep -m1 -i error "$TMP/o5.out"))" [ $RC -eq 0 ]
finish
