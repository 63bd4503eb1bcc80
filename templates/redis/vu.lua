-- Runs once per VU: connect, build the key and operation generators.
local r = assert(luamech.redis.connect(luamech.param("REDIS", "127.0.0.1:6379")))
local keys = luamech.keys{ pattern = "gaussian", n = 10000, prefix = "{{NAME}}:" }
local op = luamech.random.weighted{ get = 80, set = 20 }

-- One transaction.
return function()
  local key = keys()
  if op() == "set" then
    assert(r:set(key, "v" .. luamech.iteration()))
  else
    local _, err = r:get(key)          -- nil (no error) when the key is missing
    if err then error(err) end
  end
end
