-- timer_cost.lua: the scenario of bench/timer_cost.sh: one VU, bounded by
-- --requests, no network.
return {
  name = "timer_cost",
  run_time = "60s",      -- a cap; the script bounds the run with --requests -d 0
  interval = "10s",
  notes = "INNER=" .. luamech.param("INNER", "1000") .. " timer start/stop pairs per transaction, TIMED=" ..
          luamech.param("TIMED", "1"),
  groups = {
    { name = "timer", vus = 1, script = "timer_cost_vu.lua" },
  },
}
