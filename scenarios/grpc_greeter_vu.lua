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
end
