-- http_rest.lua: seed 002 (AlchemyREST vs Luvit: `GET /SET/X/1` then
-- `GET /GET/X`, 1,000,000 requests each at 100 connections, ab -k, server and
-- generator on their own CPUs).  Two phases; pin the generator with --cpus.
--   luamech run scenarios/http_rest.lua -e HTTP_BASE=http://127.0.0.1:7379 --cpus 1
return {
  name = "http_rest",
  interval = "1s",
  notes = "REST key/value at " .. luamech.param("HTTP_BASE", "http://127.0.0.1:7379") .. " (webdis-style URLs)",
  phases = {
    { name = "SET", requests = "1M", groups = { { name = "set", vus = 100, script = "http_rest_vu.lua" } } },
    { name = "GET", requests = "1M", groups = { { name = "get", vus = 100, script = "http_rest_vu.lua" } } },
  },
}
