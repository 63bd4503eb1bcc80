-- idle_vus.lua: the scenario of bench/idle_vus.sh: many VUs that only sleep,
-- to measure the memory a VU costs.  VUs, run time and ramp-up come from the
-- command line (-u, -d, -r).
return {
  name = "idle_vus",
  run_time = "10s",
  rampup = "2s",
  interval = "1s",
  notes = "every VU sleeps 1 s per transaction; no network",
  groups = {
    { name = "idle", vus = 100000, script = "idle_vu.lua" },
  },
}
