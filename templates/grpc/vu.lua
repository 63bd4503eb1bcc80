-- Runs once per VU: connect (pool = true: the worker's VUs share one
-- HTTP/2 connection, a stream per call). Put your own .proto next to this
-- file and name its methods as "package.Service/Method".
local c = assert(luamech.grpc.connect(luamech.param("GRPC", "127.0.0.1:50051"),
  { proto = "service.proto", pool = true, timeout = 5 }))

-- One transaction: a failed call returns its status, it never raises.
return function()
  local reply, code, msg = c:invoke("lmgrpc.Greeter/SayHello", { name = "vu" .. luamech.vu_id() })
  if code ~= 0 then error("SayHello: status " .. code .. ": " .. msg) end
  luamech.check(reply.message ~= nil, "SayHello answers a message")
  -- A bidirectional stream (c:open_stream; client streaming is the same
  -- without recv until close_send, which then returns the reply):
  -- send and recv while it runs, close_send, then recv until nil.
  local s = c:open_stream("lmgrpc.Greeter/Chat", { name = "vu", count = 1 })
  assert(s:send({ name = "again", count = 1 }))
  s:close_send()
  local replies = 0
  while true do
    local m, scode, smsg = s:recv()
    if not m then
      if scode ~= 0 then error("Chat: status " .. scode .. ": " .. smsg) end
      break
    end
    replies = replies + 1
  end
  luamech.check(replies == 2, "Chat answers each message")
end
