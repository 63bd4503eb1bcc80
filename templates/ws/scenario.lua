-- {{NAME}}: WebSocket echo round trips: each VU keeps one connection, each
-- transaction sends a message and waits for its echo.
--   luamech run scenario.lua -e WS_URL=ws://127.0.0.1:8080/
-- (an echo server to try it: websocketd --port=8080 cat)
-- (with types/luamech.lua, an editor running the Lua language server checks these fields)
---@type luamech.Scenario
local scenario = {
  name = "{{NAME}}",
  run_time = "10s",
  interval = "1s",
  groups = {
    { name = "echo", vus = 5, script = "vu.lua" },
  },
  thresholds = { "ws.receive p99 < 100ms", "checks rate >= 99.9%" },
}
return scenario
