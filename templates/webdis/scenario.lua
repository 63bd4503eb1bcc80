-- {{NAME}}: a key-value flow over HTTP per transaction: create an item (PUT),
-- read it back (GET), delete it (POST), each step timed under its own name.
-- The paths are webdis's (a REST front end to redis, as scripts/run-local.sh
-- starts).  For a JSON API test (login, token, checks, thresholds, https):
-- luamech new NAME --template api.
--   luamech run scenario.lua -e HTTP_BASE=http://127.0.0.1:7379
-- (with types/luamech.lua, an editor running the Lua language server checks these fields)
---@type luamech.Scenario
local scenario = {
  name = "{{NAME}}",
  run_time = "10s",
  interval = "1s",
  groups = {
    { name = "kv", vus = 5, script = "vu.lua" },
  },
  -- the run fails (exit 6) when more than 1% of transactions fail,
  -- e.g. when the server is down
  thresholds = { "errors rate < 1%" },
}
return scenario
