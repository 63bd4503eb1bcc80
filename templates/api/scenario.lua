-- {{NAME}}: a JSON API test, one user session per transaction: login (POST
-- JSON) -> the token from the JSON reply -> an authorized GET (bearer token
-- and the session cookie) -> PATCH (JSON) -> logout (a 302 followed) -> a
-- 401 expected after it; checks on every reply and thresholds on the run,
-- over https with the API's certificate verified against a CA.
-- The API it expects is the one scripts/run-local.sh starts (nginx, with a
-- CA it makes at start), which passes API_BASE and API_CA:
--   bash {{RUN_LOCAL}} {{NAME}}/scenario.lua
-- Against your API (change the paths and checks in vu.lua):
--   luamech run {{NAME}}/scenario.lua -e API_BASE=https://host:port -e API_CA=ca.pem
-- (API_CA=system: the system's CA store; http://host:port needs no CA).
local base = luamech.param("API_BASE", "https://127.0.0.1:8443")
local ca = luamech.param("API_CA", "")
if base:match("^https://") then
  if ca == "" then
    error("{{NAME}}: API_BASE is " .. base .. " but API_CA is not set: give the file of the CA that " ..
          "signs the API's certificate (-e API_CA=/path/ca.pem; scripts/run-local.sh passes its own), " ..
          "or -e API_CA=system for the system's CA store", 0)
  end
  local f = ca ~= "system" and io.open(ca, "r")
  if f == nil then error("{{NAME}}: API_CA " .. ca .. ": cannot read the file", 0) end
  if f then f:close() end
end
-- (with types/luamech.lua, an editor running the Lua language server checks these fields)
---@type luamech.Scenario
local scenario = {
  name = "{{NAME}}",
  run_time = "10s",
  interval = "1s",
  notes = "JSON API at " .. base,
  groups = {
    -- a failed session (the API down) waits 1 s before the next one
    { name = "api", vus = 5, script = "vu.lua", on_error = { pause = "1s" } },
  },
  thresholds = {
    "http login p99 < 200ms",
    "http me p99 < 200ms",
    "errors rate < 1%",
    "checks rate >= 99.9%",
  },
}
return scenario
