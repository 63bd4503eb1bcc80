return {
  interval = "1s", thresholds = { "GET p95 < 5ms", "errors rate < 0.1%", "checks rate > 99.9%" },
  phases = {
    { name = "write", requests = 500, groups = { { name = "writers", vus = 4, script = "s.lua" } } },
    { name = "read", run_time = "2s", groups = { { name = "readers", vus = 4, script = "s.lua" } } },
  },
}
