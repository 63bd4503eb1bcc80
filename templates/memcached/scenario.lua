-- {{NAME}}: memcached, 90% get / 10% set over 10,000 keys with a zipf
-- popularity (a few hot keys, a long tail).
--   luamech run scenario.lua -e MEMCACHED=127.0.0.1:11211
-- (with types/luamech.lua, an editor running the Lua language server checks these fields)
---@type luamech.Scenario
local scenario = {
  name = "{{NAME}}",
  run_time = "10s",
  interval = "1s",
  groups = {
    { name = "cache", vus = 10, script = "vu.lua" },
  },
  -- the run fails (exit 6) when more than 1% of transactions fail,
  -- e.g. when the server is down
  thresholds = { "errors rate < 1%" },
}
return scenario
