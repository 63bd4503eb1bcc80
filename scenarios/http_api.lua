-- http_api.lua: a JSON API test as a k6 user would write it (docs/k6.md):
-- login (POST, JSON) -> token from the JSON reply -> authorized GET (bearer
-- token and the session cookie) -> PATCH (JSON) -> logout (a 302 followed),
-- with checks and thresholds.  scripts/run-local.sh starts the API server
-- (scripts/api-nginx.sh) and passes API_BASE:
--   bash scripts/run-local.sh scenarios/http_api.lua
return {
  name = "http_api",
  interval = "1s",
  run_time = luamech.param("RUN_TIME", "10s"),
  notes = "JSON API at " .. luamech.param("API_BASE", "http://127.0.0.1:8080"),
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
