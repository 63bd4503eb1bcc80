-- http_kv_get.lua: seed 001 (OrientDB key/value over HTTP: `ab -k -n 100000
-- -c N` GET of one key): HTTP GET of one key with keep-alive connections at a
-- chosen concurrency (--vus, default 10).  The sweep over 1, 2, 10, 50 and 100
-- is the suite scenarios/suites/http_kv_get_sweep.lua.  The server is any HTTP
-- key/value endpoint; scripts/run-local.sh starts webdis (GET /GET/key-1).
--   luamech run scenarios/http_kv_get.lua --vus 50 -e HTTP_BASE=http://127.0.0.1:7379
return {
  name = "http_kv_get",
  requests = luamech.param("REQUESTS", "100000"),
  interval = "1s",
  notes = "GET " .. luamech.param("HTTP_BASE", "http://127.0.0.1:7379") .. luamech.param("KEY_PATH", "/GET/key-1") ..
          " with keep-alive, as ab -k",
  groups = { { name = "get", vus = 10, script = "http_kv_get_vu.lua" } },
}
