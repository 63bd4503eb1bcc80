-- Runs once per VU: connect, build the key and operation generators.
local mc = assert(luamech.memcached.connect(luamech.param("MEMCACHED", "127.0.0.1:11211")))
local keys = luamech.keys{ pattern = "zipf", n = 10000, s = 0.99, prefix = "{{NAME}}:" }
local op = luamech.random.weighted{ get = 90, set = 10 }
local value = string.rep("x", 100)

-- One transaction.
return function()
  local key = keys()
  if op() == "set" then
    assert(mc:set(key, value))
  else
    local v, err = mc:get(key)
    if v == nil and err ~= "miss" then error(err) end   -- a miss is not a failure
  end
end
