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
end
