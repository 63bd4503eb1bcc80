-- {{NAME}}: an open workload: transactions start at a fixed rate (200/s)
-- whatever the response times, with up to 50 VUs to carry them; latencies
-- are measured from each transaction's intended start.
--   luamech run scenario.lua -e MEMCACHED=127.0.0.1:11211
-- (with types/luamech.lua, an editor running the Lua language server checks these fields)
---@type luamech.Scenario
local scenario = {
  name = "{{NAME}}",
  run_time = "10s",
  interval = "1s",
  groups = {
    { name = "arrivals", rate = 200, vus = 10, max_vus = 50, script = "vu.lua" },
  },
  -- the run fails (exit 6) when more than 1% of transactions fail,
  -- e.g. when the server is down
  thresholds = { "errors rate < 1%" },
}
return scenario
