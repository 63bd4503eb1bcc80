-- {{NAME}}: a gRPC service (service.proto, compiled by protoc when the run
-- starts) under load: 10 VUs calling a unary method and a bidirectional
-- stream over one shared HTTP/2 connection per worker.
--   luamech run scenario.lua -e GRPC=127.0.0.1:50051
-- (with types/luamech.lua, an editor running the Lua language server checks these fields)
---@type luamech.Scenario
local scenario = {
  name = "{{NAME}}",
  run_time = "10s",
  interval = "1s",
  groups = {
    { name = "calls", vus = 10, script = "vu.lua" },
  },
  thresholds = { "grpc lmgrpc.Greeter/SayHello p95 < 500ms", "errors rate < 1%" },
}
return scenario
