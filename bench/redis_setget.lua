-- redis_setget.lua: the luamech side of bench/redis_vs_redis_benchmark.sh.
-- Two phases, like `redis-benchmark -t set,get`: N SETs, then N GETs, each
-- by 50 VUs (one connection each, the default), closed loop, no think time,
-- one command per transaction.  N comes from -n (it overrides `requests` in
-- every phase); VUs from -u.
local N = luamech.param("N", "100000")
return {
  name = "redis_setget",
  interval = "1s",
  notes = "redis at " .. luamech.param("REDIS", "127.0.0.1:6379") ..
          "; SET phase then GET phase, key:%012d of " .. luamech.param("KEYS", "100000") ..
          " random keys, " .. luamech.param("VALUE_SIZE", "32") .. "-byte values",
  phases = {
    { name = "set", requests = N, groups = { { name = "set", vus = 50, script = "redis_set_vu.lua" } } },
    { name = "get", requests = N, groups = { { name = "get", vus = 50, script = "redis_get_vu.lua" } } },
  },
}
