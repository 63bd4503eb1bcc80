-- kv_performance.lua: seed 003's KeyValuePerformance: x VUs write n values
-- of length l in total (write phase), then read them (read phase); the
-- phases table gives writes per second and reads per second.
--   luamech run scenarios/kv_performance.lua -e REDIS=127.0.0.1:6379 -e X=2 -e N=10000 -e L=32
local x, n = tonumber(luamech.param("X", "2")), luamech.param("N", "10000")
return {
  name = "kv_performance",
  interval = "1s",
  workers = 1,                 -- keys are numbered across the VUs with luamech.shared
  notes = string.format("x = %d VUs, n = %s requests, l = %s bytes", x, n, luamech.param("L", "32")),
  phases = {
    { name = "write", requests = n, groups = { { name = "writers", vus = x, script = "kv_performance_vu.lua" } } },
    { name = "read", requests = n, groups = { { name = "readers", vus = x, script = "kv_performance_vu.lua" } } },
  },
}
