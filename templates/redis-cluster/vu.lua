-- Runs once per VU: discover the cluster's slots (any seed will do), build
-- the key and operation generators and a prepared pipeline.
local r = assert(luamech.redis.connect(luamech.param("REDIS_CLUSTER", "127.0.0.1:7000"), { cluster = true }))
local keys = luamech.keys{ pattern = "gaussian", n = 10000, prefix = "{{NAME}}:" }
local op = luamech.random.weighted{ get = 80, set = 20 }
-- five GETs of drawn keys: split by node, the replies in this order
local batch = r:prepare({ { "GET", keys }, { "GET", keys }, { "GET", keys }, { "GET", keys }, { "GET", keys } })

-- One transaction.
return function()
  local key = keys()
  if op() == "set" then
    assert(r:set(key, "v" .. luamech.iteration()))
  else
    local _, err = r:get(key)          -- nil (no error) when the key is missing
    if err then error(err) end
  end
  -- keys of one hash tag share a slot: multi-key commands on them are fine
  if luamech.iteration() % 10 == 0 then
    local user = "{" .. "{{NAME}}:user" .. luamech.random(1, 100) .. "}"
    assert(r:call("MSET", user .. ".name", "n", user .. ".seen", luamech.iteration()))
    assert(r:pipeline(batch))
  end
end
