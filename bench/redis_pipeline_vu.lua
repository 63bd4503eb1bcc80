-- redis_pipeline_vu.lua: the VU of bench/redis_pipeline.lua.  Every
-- transaction sends one pipeline of DEPTH commands: DEPTH/2 SETs of
-- random keys to a VALUE_SIZE-byte value of 'x', then DEPTH/2 GETs of
-- random keys (keys "key:%012d" in [0, KEYS)).  FORM:
--   fresh  a new table of new command tables per transaction (the
--          documented r:pipeline({{cmd, ...}, ...}) as most scripts write it)
--   reuse  one table of command tables built at init; each transaction
--          only puts new keys in it (what redis-benchmark does with its
--          command buffer)
local r = assert(luamech.redis.connect(luamech.param("REDIS", "127.0.0.1:6379")))
local KEYS = tonumber(luamech.param("KEYS", "10000"))
local DEPTH = tonumber(luamech.param("DEPTH", "200"))
local HALF = math.floor(DEPTH / 2)
local FORM = luamech.param("FORM", "fresh")
local VALUE = string.rep("x", tonumber(luamech.param("VALUE_SIZE", "32")))
local fmt, random = string.format, luamech.random

local function fresh()
  local cmds = {}
  for i = 1, HALF do cmds[i] = { "SET", fmt("key:%012d", random(0, KEYS - 1)), VALUE } end
  for i = HALF + 1, DEPTH do cmds[i] = { "GET", fmt("key:%012d", random(0, KEYS - 1)) } end
  return cmds
end

local cmds = fresh()
local function reuse()
  for i = 1, DEPTH do cmds[i][2] = fmt("key:%012d", random(0, KEYS - 1)) end
  return cmds
end
local build = ({ fresh = fresh, reuse = reuse })[FORM] or error("FORM must be fresh or reuse")

return function()
  local t, err = r:pipeline(build())
  if not t then error(err) end
end
