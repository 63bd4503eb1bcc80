return { run_time = "1s", interval = "1s", seed = 7, groups = { { name = "g", vus = 2, script = "s.lua" } } }
