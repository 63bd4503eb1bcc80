-- http_api.lua: a JSON API test as a k6 user would write it (docs/k6.md):
-- login (POST, JSON) -> token from the JSON reply -> authorized GET (bearer
-- token and the session cookie) -> PATCH (JSON) -> logout (a 302 followed),
-- with checks and thresholds, over HTTPS.  scripts/run-local.sh starts the
-- API server (scripts/api-nginx.sh, with a CA it makes at start) and passes
-- API_BASE (https://...) and API_CA (that CA's file):
--   bash scripts/run-local.sh scenarios/http_api.lua
-- Against another server: -e API_BASE=https://host:port -e API_CA=ca.pem
-- (API_CA=system: the system's CA store), or -e API_BASE=http://host:port.
local base = luamech.param("API_BASE", "https://127.0.0.1:8443")
local ca = luamech.param("API_CA", "")
if base:match("^https://") then
  if ca == "" then
    error("http_api.lua: API_BASE is " .. base .. " but API_CA is not set: give the file of the CA that " ..
          "signs the API's certificate (-e API_CA=/path/ca.pem; scripts/run-local.sh passes its own), " ..
          "or -e API_CA=system for the system's CA store", 0)
  end
  local f = ca ~= "system" and io.open(ca, "r")
  if f == nil then error("http_api.lua: API_CA " .. ca .. ": cannot read the file", 0) end
  if f then f:close() end
end
return {
  name = "http_api",
  interval = "1s",
  run_time = luamech.param("RUN_TIME", "10s"),
  notes = "JSON API at " .. base,
  groups = { { name = "api", vus = tonumber(luamech.param("VUS", "10")), script = "http_api_vu.lua" } },
  thresholds = {
    "http login p99 < 100ms",
    "http me p99 < 100ms",
    "http update me p99 < 100ms",
    "http.get errors == 0",          -- the 401 after logout is expected: not an error
    "errors rate < 1%",
    "checks rate >= 99.9%",
  },
}
