-- mc_getset_vu.lua: one VU of bench/mc_getset.lua.  One connection per VU
-- (the default), or with -e POOL=1 the worker's VUs pipelined over one shared
-- connection (pool = true).  One transaction = one SET then one GET of the same key:
-- a 1:1 get/set mix with every GET a hit, like memcaslap's (which only GETs
-- keys it has SET).  Keys are 16 bytes (memcaslap's minimum key size, set the
-- same in its config file), values 32 bytes, no think time.  -e MC_PROTOCOL=meta
-- sends the GETs as meta gets (mg); -e GET_ONLY=1 leaves the SET out (GETs
-- of keys never set: misses, unless a run before set them).
local mc = assert(luamech.memcached.connect(luamech.param("MEMCACHED", "127.0.0.1:11211"),
                                            { pool = luamech.param("POOL", "0") == "1",
                                              protocol = luamech.param("MC_PROTOCOL", "text") }))
local SET = luamech.param("GET_ONLY", "0") ~= "1"
local KEYS = tonumber(luamech.param("KEYS", "100000"))
local VALUE = string.rep("v", tonumber(luamech.param("VALUE_SIZE", "32")))
local fmt, random = string.format, luamech.random

return function()
  local key = fmt("mcbench:%08d", random(1, KEYS))   -- 16 bytes
  if SET then assert(mc:set(key, VALUE)) end
  local v, err = mc:get(key)
  if v == nil and err ~= "miss" then error(err) end
end
