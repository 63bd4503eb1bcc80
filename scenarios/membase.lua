-- membase.lua: the multi-mechanize membase run of seed 004, as luamech runs it.
-- Two groups of 140 VUs, one doing GETs and one doing SETs of 30 KB values on
-- random keys 1..1000 with 50 ms think time; 30 minutes with a 30 minute
-- ramp-up and 100 s statistics intervals.  Shorten it from the command line:
--   luamech run scenarios/membase.lua -d 30s -r 10s -i 5s -e MEMCACHED=127.0.0.1:11211
return {
  name = "membase",
  run_time = "30m",
  rampup = "30m",
  interval = "100s",
  console = "full",   -- multi-mechanize's report: summary, interval details, custom timers
  notes = "memcached at " .. luamech.param("MEMCACHED", "127.0.0.1:11211") ..
          "; VU scripts: SETs and GETs of random keys 1..1000, 30 KB values, 50 ms think time",
  groups = {
    { name = "user_group-1", vus = 140, script = "membase_get.lua" },
    { name = "user_group-2", vus = 140, script = "membase_set.lua" },
  },
}
