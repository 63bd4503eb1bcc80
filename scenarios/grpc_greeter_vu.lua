-- One VU of grpc_greeter.lua: a pooled client (the worker's VUs share its
-- HTTP/2 connection, one stream per call).
local c = assert(luamech.grpc.connect(luamech.param("GRPC", "127.0.0.1:50051"),
  { proto = "greeter.proto", pool = true, timeout = 5, metadata = { ["x-user"] = "luamech" } }))

return function()
  local name = "vu" .. luamech.vu_id()
  local reply, code, msg = c:invoke("lmgrpc.Greeter/SayHello", { name = name, count = 2 })
  if code ~= 0 then error("SayHello: " .. code .. " " .. msg) end
  luamech.check(reply.message == "hello " .. name, "SayHello greets by name")
  local replies, scode, smsg = c:stream("lmgrpc.Greeter/Count", { name = name, count = 5 })
  if scode ~= 0 then error("Count: " .. scode .. " " .. smsg) end
  luamech.check(#replies == 5 and replies[5].n == 4, "Count streams 5 replies")
  -- a bidirectional stream, read and written while it runs: Chat answers
  -- each request with `count` replies; close_send ends the requests, recv
  -- returns nil and the status once the server is done
  local s = c:open_stream("lmgrpc.Greeter/Chat", { name = name, count = 2 })
  local first = s:recv()
  assert(s:send({ name = name, count = 1 }))
  s:close_send()
  local got = first and 1 or 0
  while true do
    local m, ccode, cmsg = s:recv()
    if not m then
      if ccode ~= 0 then error("Chat: " .. ccode .. " " .. cmsg) end
      break
    end
    got = got + 1
  end
  luamech.check(first ~= nil and first.message == name .. " 0" and got == 3, "Chat answers as it is written to")
end
