-- redis_set_vu.lua: a VU of bench/redis_setget.lua's SET phase.  One SET per
-- transaction of a random key "key:%012d" in [0, KEYS) -- the form of
-- redis-benchmark's key:__rand_int__ with -r KEYS -- to a VALUE_SIZE-byte
-- value of 'x' (redis-benchmark -d fills its value with 'x').
local r = assert(luamech.redis.connect(luamech.param("REDIS", "127.0.0.1:6379"),
                                       { pool = luamech.param("POOL", "0") == "1" }))  -- POOL=1: one shared connection per worker
local KEYS = tonumber(luamech.param("KEYS", "100000"))
local VALUE = string.rep("x", tonumber(luamech.param("VALUE_SIZE", "32")))
local fmt, random = string.format, luamech.random

return function()
  local ok, err = r:set(fmt("key:%012d", random(0, KEYS - 1)), VALUE)
  if not ok then error(err) end
end
