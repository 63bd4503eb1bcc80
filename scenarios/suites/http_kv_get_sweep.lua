-- http_kv_get_sweep.lua: seed 001's table: the same HTTP GET of one key,
-- 100,000 requests at 1, 2, 10, 50 and 100 concurrent keep-alive clients,
-- one row per concurrency.
--   luamech suite scenarios/suites/http_kv_get_sweep.lua -e HTTP_BASE=http://127.0.0.1:7379
return {
  name = "http_kv_get_sweep",
  scenario = "../http_kv_get.lua",
  requests = luamech.param("REQUESTS", "100000"),
  sweep = { vus = { 1, 2, 10, 50, 100 } },
}
