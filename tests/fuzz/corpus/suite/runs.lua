return { runs = { { name = "a", scenario = "sc.lua", vus = 1, params = { X = "1" } }, { name = "b", scenario = "sc.lua", run_time = "2s" } } }
