-- timer_memory.lua: the scenario of bench/timer_memory.sh: one VU on one
-- worker, no network; each transaction records one sample under a timer
-- named per transaction (DISTINCT=1) or always under the same name
-- (DISTINCT=0, the baseline).  MAX_TIMERS, when set, raises the cap.
return {
  name = "timer_memory",
  run_time = "60s",      -- a cap; the script bounds the run with --requests -d 0
  interval = "1s",
  max_timers = tonumber(luamech.param("MAX_TIMERS", "")),
  groups = {
    { name = "timers", vus = 1, script = "timer_memory_vu.lua" },
  },
}
