-- ws_echo.lua: WebSocket round trips against an echo server: each VU keeps
-- one connection and, per transaction, sends a burst of BURST messages
-- (they leave in one write) and waits for every echo, in order.  Timers:
-- "burst" (the whole burst), ws.receive (each wait), ws.connect.
--   luamech run scenarios/ws_echo.lua -e WS_URL=ws://127.0.0.1:8080/
--   (an echo server: websocketd --port=8080 cat; scripts/run-local.sh starts one)
return {
  name = "ws_echo",
  run_time = "30s",
  interval = "1s",
  notes = "echo server at " .. luamech.param("WS_URL", "ws://127.0.0.1:8080/") ..
          ", bursts of " .. luamech.param("BURST", "10"),
  groups = { { name = "echo", vus = 20, script = "ws_echo_vu.lua", pacing = "10ms" } },
  thresholds = { "burst p99 < 250ms", "errors rate < 0.1%", "checks rate >= 99.9%" },
}
