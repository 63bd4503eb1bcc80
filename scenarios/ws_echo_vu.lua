-- ws_echo_vu.lua: one connection per VU; a transaction is a burst of
-- messages sent at once and their echoes received in order (an echo server
-- that works by lines, as websocketd's cat, adds a newline to each).
local ws = assert(luamech.ws.connect(luamech.param("WS_URL", "ws://127.0.0.1:8080/"), { timeout = 5 }))
local burst = tonumber(luamech.param("BURST", "10"))
local sent = {}

return function()
  local t = luamech.timer("burst")
  for i = 1, burst do
    sent[i] = "vu " .. luamech.vu_id() .. " tx " .. luamech.iteration() .. " msg " .. i
    assert(ws:send(sent[i]))
  end
  for i = 1, burst do
    local got, err = ws:receive()
    if not got then error(err) end
    luamech.check((got:gsub("\n$", "")) == sent[i], "echo in order")
  end
  t:stop()
end
