return { run_time = "10s", interval = "1s", graceful_stop = "2s",
         groups = { { name = "rate", rate = 1000, vus = 20, max_vus = 200, script = "s.lua" } } }
