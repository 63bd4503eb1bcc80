-- mc_getset_vu.lua: one VU of bench/mc_getset.lua.  One connection per VU
-- (the default), or with -e POOL=1 the worker's VUs pipelined over one shared
-- connection (pool = true).  One transaction = one SET then one GET of the same key:
-- a 1:1 get/set mix with every GET a hit, like memcaslap's (which only GETs
-- keys it has SET).  Keys are 16 bytes (memcaslap's minimum key size, set the
-- same in its config file), values 32 bytes, no think time.
local mc = assert(luamech.memcached.connect(luamech.param("MEMCACHED", "127.0.0.1:11211"),
                                            { pool = luamech.param("POOL", "0") == "1" }))
local KEYS = tonumber(luamech.param("KEYS", "100000"))
local VALUE = string.rep("v", tonumber(luamech.param("VALUE_SIZE", "32")))
local fmt, random = string.format, luamech.random

return function()
  local key = fmt("mcbench:%08d", random(1, KEYS))   -- 16 bytes
  assert(mc:set(key, VALUE))
  local v, err = mc:get(key)
  if v == nil and err ~= "miss" then error(err) end
end
