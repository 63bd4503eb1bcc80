-- Runs once per VU: the connection (wss:// for TLS; headers, subprotocols
-- and timeout are options of connect).
local ws = assert(luamech.ws.connect(luamech.param("WS_URL", "ws://127.0.0.1:8080/"), { timeout = 5 }))

-- One transaction: a message out, its echo back (ws.receive times the wait).
return function()
  local msg = "hello from VU " .. luamech.vu_id() .. " #" .. luamech.iteration()
  assert(ws:send(msg))
  local got, err = ws:receive()
  if not got then error(err) end
  luamech.check((got:gsub("\n$", "")) == msg, "echoed")   -- line-based servers add a newline
end
