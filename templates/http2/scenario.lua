-- {{NAME}}: HTTP/2 GETs from 20 VUs sharing one client (pool = true): their
-- requests are concurrent streams of one TCP connection per worker (up to
-- max_streams = 100 each).  H2_BASE is the server; http = "2" speaks h2c
-- with prior knowledge on http:// and requires h2 by ALPN on https://.
--   luamech run scenario.lua -e H2_BASE=http://127.0.0.1:8080
-- (with types/luamech.lua, an editor running the Lua language server checks these fields)
---@type luamech.Scenario
local scenario = {
  name = "{{NAME}}",
  run_time = "10s",
  interval = "1s",
  groups = {
    { name = "streams", vus = 20, script = "vu.lua" },
  },
  -- the run fails (exit 6) when more than 1% of transactions fail,
  -- e.g. when the server is down
  thresholds = { "errors rate < 1%" },
}
return scenario
