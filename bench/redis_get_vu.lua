-- redis_get_vu.lua: a VU of bench/redis_setget.lua's GET phase.  One GET per
-- transaction of a random key "key:%012d" in [0, KEYS) (redis-benchmark's
-- key:__rand_int__ with -r KEYS).  A missing key (nil reply) is not an error.
-- Both phases run with the same seed, so each VU draws the same numbers in
-- the GET phase as in the SET phase: the key is shifted by KEYS/2 so that
-- GETs do not simply replay the SETs (hits then depend on how much of the
-- key space the SET phase covered, as with redis-benchmark's independent
-- draws).
local r = assert(luamech.redis.connect(luamech.param("REDIS", "127.0.0.1:6379"),
                                       { pool = luamech.param("POOL", "0") == "1" }))  -- POOL=1: one shared connection per worker
local KEYS = tonumber(luamech.param("KEYS", "100000"))
local SHIFT = math.floor(KEYS / 2)
local fmt, random = string.format, luamech.random

return function()
  local v, err = r:get(fmt("key:%012d", (random(0, KEYS - 1) + SHIFT) % KEYS))
  if v == nil and err ~= nil then error(err) end
end
