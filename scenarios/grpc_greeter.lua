-- grpc_greeter.lua: a gRPC service under load, as k6's k6/net/grpc or ghz
-- would drive it: 20 VUs share one HTTP/2 connection per worker and call
-- lmgrpc.Greeter (scenarios/greeter.proto, compiled by protoc at start):
-- a unary SayHello, a server-streaming Count of 5 replies and a
-- bidirectional Chat (c:open_stream: 2 requests, 3 replies) per
-- transaction, with checks and thresholds on the "grpc <method>" timers.
--   bash scripts/run-local.sh scenarios/grpc_greeter.lua   (starts the server below)
--   luamech run scenarios/grpc_greeter.lua -e GRPC=127.0.0.1:50051
-- A server for it: scripts/grpc-greeter.py (python3-grpcio):
--   protoc --include_imports --descriptor_set_out=g.desc -I scenarios greeter.proto
--   /usr/bin/python3 scripts/grpc-greeter.py g.desc 50051 counts.json
return {
  name = "grpc_greeter",
  run_time = "20s",
  interval = "1s",
  notes = "gRPC server at " .. luamech.param("GRPC", "127.0.0.1:50051"),
  groups = { { name = "greeter", vus = 20, script = "grpc_greeter_vu.lua" } },
  thresholds = { "grpc lmgrpc.Greeter/SayHello p95 < 1s", "errors rate < 0.1%", "checks rate > 99.9%" },
}
