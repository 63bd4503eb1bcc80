-- http2_api.lua: the JSON API of http_api.lua over HTTP/2, as a service
-- behind an HTTP/2 front end sees it: the VUs of a worker share one client
-- (pool = true), so their requests are concurrent streams of one TLS
-- connection per worker (up to max_streams each); each session logs in
-- (POST, JSON) and then reads and updates the profile as a batch of
-- concurrent streams.  http = "2" requires h2 by ALPN (the default,
-- "auto", would fall back to HTTP/1.1 on a server without it).
-- scripts/run-local.sh starts the API with an HTTP/2 listener
-- (scripts/api-nginx.sh) and passes API_H2_BASE and API_CA:
--   bash scripts/run-local.sh scenarios/http2_api.lua
-- Against another server: -e API_H2_BASE=https://host:port -e API_CA=ca.pem
-- (API_CA=system: the system's CA store).
local base = luamech.param("API_H2_BASE", "https://127.0.0.1:8443")
local ca = luamech.param("API_CA", "")
if ca == "" then
  error("http2_api.lua: API_CA is not set: give the file of the CA that signs the API's certificate " ..
        "(-e API_CA=/path/ca.pem; scripts/run-local.sh passes its own), or -e API_CA=system", 0)
end
local f = ca ~= "system" and io.open(ca, "r")
if f == nil then error("http2_api.lua: API_CA " .. ca .. ": cannot read the file", 0) end
if f then f:close() end
return {
  name = "http2_api",
  interval = "1s",
  run_time = luamech.param("RUN_TIME", "10s"),
  notes = "JSON API over HTTP/2 at " .. base,
  groups = { { name = "h2", vus = tonumber(luamech.param("VUS", "20")), script = "http2_api_vu.lua" } },
  thresholds = {
    "http login p95 < 500ms",
    "http me p95 < 500ms",
    "errors rate < 1%",
    "checks rate >= 99.9%",
  },
}
