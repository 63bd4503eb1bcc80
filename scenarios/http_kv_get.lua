-- http_kv_get.lua: seed 001 (OrientDB key/value over HTTP, `ab -k -n 100000`
-- at concurrency 1, 2, 10, 50 and 100): HTTP GET of one key with keep-alive
-- connections, one phase per concurrency, and one table of the phases.
-- The server is any HTTP key/value endpoint; scripts/run-local.sh starts
-- webdis (GET /GET/key-1).
--   luamech run scenarios/http_kv_get.lua -e HTTP_BASE=http://127.0.0.1:7379
--   -e CONCURRENCY=1,10,100 -e REQUESTS=10000 change the sweep
local phases = {}
for c in luamech.param("CONCURRENCY", "1,2,10,50,100"):gmatch("%d+") do
  phases[#phases + 1] = {
    name = "c" .. c, requests = luamech.param("REQUESTS", "100000"),
    groups = { { name = "get", vus = tonumber(c), script = "http_kv_get_vu.lua" } },
  }
end
return {
  name = "http_kv_get",
  interval = "1s",
  notes = "GET " .. luamech.param("HTTP_BASE", "http://127.0.0.1:7379") .. luamech.param("KEY_PATH", "/GET/key-1") ..
          " with keep-alive, as ab -k",
  phases = phases,
}
