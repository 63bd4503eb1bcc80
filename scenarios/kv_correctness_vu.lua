-- kv_correctness_vu.lua: one write and one read-back per transaction; keys
-- carry the VU id so VUs never overwrite each other's values.
local r = assert(luamech.redis.connect(luamech.param("REDIS", "127.0.0.1:6379")))
local len = tonumber(luamech.param("L", "32"))
local alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789\0\r\n"
local prefix = "kvc:" .. luamech.vu_id() .. ":"

local function random_value()
  local t = {}
  for i = 1, len do
    local k = luamech.random(1, #alphabet)
    t[i] = alphabet:sub(k, k)
  end
  return table.concat(t)
end

return function()
  local key = prefix .. luamech.random(1, 1000000)
  local value = random_value()
  assert(r:set(key, value))
  local got = r:get(key)
  luamech.check(got == value, "value read back equals value written")
end
