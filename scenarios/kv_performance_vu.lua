-- kv_performance_vu.lua: writers SET kvp:1..n, readers GET them back in the
-- same order (one worker, so luamech.shared numbers keys across VUs).
local r = assert(luamech.redis.connect(luamech.param("REDIS", "127.0.0.1:6379")))
local value = string.rep("v", tonumber(luamech.param("L", "32")))
local writer = luamech.vu_group() == "writers"

return function()
  local slot = writer and "written" or "read"
  local k = (luamech.shared[slot] or 0) + 1
  luamech.shared[slot] = k
  if writer then
    assert(r:set("kvp:" .. k, value))
  else
    luamech.check(r:get("kvp:" .. k) == value, "read what was written")
  end
end
