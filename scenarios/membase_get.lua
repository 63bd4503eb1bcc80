-- membase_get.lua: seed 004's mem_get.py. Init runs once per VU; the
-- returned function is one transaction.
local mc = assert(luamech.memcached.connect(luamech.param("MEMCACHED", "127.0.0.1:11211")))
local KEY_MIN, KEY_MAX = 1, 1000
local WAIT_TIME = 0.05

return function()
  local key = tostring(luamech.random(KEY_MIN, KEY_MAX))
  local t = luamech.timer("GET")
  local value, err = mc:get(key)
  if value == nil and err ~= "miss" then error(err) end
  t:stop()
  luamech.sleep(WAIT_TIME)        -- think time: not part of the response time
end
