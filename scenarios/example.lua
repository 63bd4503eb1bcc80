-- example.lua: the smallest useful scenario.  Ten VUs set and get a key on
-- memcached for 10 seconds.
--   build/luamech run scenarios/example.lua -e MEMCACHED=127.0.0.1:11211
return {
  run_time = "10s",
  interval = "1s",
  groups = {
    { name = "example", vus = 10, script = "example_vu.lua" },
  },
}
