-- {{NAME}}: HTTP GETs with think time (exponential, 50 ms on average), as a
-- browser-like closed workload.  HTTP_BASE is the server, e.g. webdis.
--   luamech run scenario.lua -e HTTP_BASE=http://127.0.0.1:7379
-- (with types/luamech.lua, an editor running the Lua language server checks these fields)
---@type luamech.Scenario
local scenario = {
  name = "{{NAME}}",
  run_time = "10s",
  interval = "1s",
  groups = {
    { name = "browse", vus = 10, script = "vu.lua" },
  },
  -- the run fails (exit 6) when more than 1% of transactions fail,
  -- e.g. when the server is down
  thresholds = { "errors rate < 1%" },
}
return scenario
