-- profile.lua: the scenario of bench/profile.sh.  One group of VUs running
-- VU_SCRIPT (a bench/*_vu.lua file: mc_getset_vu.lua, redis_set_vu.lua,
-- http_get_vu.lua), closed loop, no think time; VUs, workers and run time
-- come from the command line (-u, -w, -d), the server's address and POOL
-- from -e (each VU script's own parameters).
return {
  name = "profile",
  run_time = "10s",
  interval = "1s",
  notes = "bench/profile.sh: " .. luamech.param("VU_SCRIPT", "mc_getset_vu.lua"),
  groups = {
    { name = "p", vus = 50, script = luamech.param("VU_SCRIPT", "mc_getset_vu.lua") },
  },
}
