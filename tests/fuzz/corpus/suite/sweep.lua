return { scenario = "sc.lua", sweep = { vus = { 1, 2, 10 } }, interval = "1s" }
