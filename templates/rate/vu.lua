-- Runs once per VU: connect (the VUs of a worker share one client).
local mc = assert(luamech.memcached.connect(luamech.param("MEMCACHED", "127.0.0.1:11211"), { pool = true }))
local keys = luamech.keys{ pattern = "uniform", n = 1000, prefix = "{{NAME}}:" }

-- One transaction: set then get a key.
return function()
  local key = keys()
  assert(mc:set(key, "value"))
  local v, err = mc:get(key)
  if v == nil and err ~= "miss" then error(err) end
end
