-- membase_set.lua: seed 004's mem_set.py: 30 KB values on random keys.
local mc = assert(luamech.memcached.connect(luamech.param("MEMCACHED", "127.0.0.1:11211")))
local KEY_MIN, KEY_MAX = 1, 1000
local DATA = string.rep("*", 30000)
local WAIT_TIME = 0.05

return function()
  local key = tostring(luamech.random(KEY_MIN, KEY_MAX))
  local t = luamech.timer("SET")
  assert(mc:set(key, DATA))
  t:stop()
  luamech.sleep(WAIT_TIME)
end
