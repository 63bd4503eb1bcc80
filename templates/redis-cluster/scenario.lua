-- {{NAME}}: a redis Cluster: GET/SET (80/20) over 10,000 keys drawn from a
-- gaussian, routed to the masters by their hash slots; a pipeline across
-- the nodes every tenth transaction.
--   luamech run scenario.lua -e REDIS_CLUSTER=127.0.0.1:7000,127.0.0.1:7001
-- (with types/luamech.lua, an editor running the Lua language server checks these fields)
---@type luamech.Scenario
local scenario = {
  name = "{{NAME}}",
  run_time = "10s",
  interval = "1s",
  groups = {
    { name = "kv", vus = 10, script = "vu.lua" },
  },
  -- the run fails (exit 6) when more than 1% of transactions fail,
  -- e.g. when the server is down
  thresholds = { "errors rate < 1%" },
}
return scenario
