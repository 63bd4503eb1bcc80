return { run_time = "4s", interval = "1s",
  groups = {
    { name = "closed", stages = { { duration = "2s", target = 8 }, { duration = "1s", target = 8 },
                                  { duration = "1s", target = 2 } }, script = "s.lua" },
    { name = "ramp", model = "rate", start = 100, stages = { { duration = "2s", target = 300 },
                                                             { duration = "2s", target = 300 } },
      vus = 5, max_vus = 50, script = "s.lua" },
    { name = "paced", model = "paced", pacing = "1s", vus = 3, script = "s.lua" },
  } }
