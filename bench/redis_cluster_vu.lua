-- redis_cluster_vu.lua: a VU of bench/redis_cluster.lua: one SET and one GET
-- of random keys per transaction, routed by the cluster client.
local r = assert(luamech.redis.connect(luamech.param("CLUSTER", "127.0.0.1:7000"), { cluster = true }))
local KEYS = tonumber(luamech.param("KEYS", "100000"))
local VALUE = string.rep("x", tonumber(luamech.param("VALUE_SIZE", "32")))
local random = luamech.random

return function()
  local ok, err = r:set("key:" .. random(1, KEYS), VALUE)
  if not ok then error(err) end
  ok, err = r:get("key:" .. random(1, KEYS))
  if err then error(err) end
end
