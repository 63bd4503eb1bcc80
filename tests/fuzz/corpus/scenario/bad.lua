return { run_time = "1x", rampup = -1, groups = { { vus = 1e20, script = "s.lua", pacing = 0 }, nil, { vus = 0/0 } } }
