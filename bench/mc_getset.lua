-- mc_getset.lua: the luamech side of bench/memcached_vs_memcaslap.sh.
-- 50 VUs (50 connections), closed loop, no think time; run time and VUs are
-- overridden from the command line (-d, -u, -n).
return {
  name = "mc_getset",
  run_time = "10s",
  interval = "1s",
  notes = "memcached at " .. luamech.param("MEMCACHED", "127.0.0.1:11211") ..
          "; 1 SET + 1 GET of a 16-byte key and 32-byte value per transaction, no think time",
  groups = {
    { name = "getset", vus = 50, script = "mc_getset_vu.lua" },
  },
}
