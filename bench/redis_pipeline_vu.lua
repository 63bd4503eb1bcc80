-- redis_pipeline_vu.lua: the VU of bench/redis_pipeline.lua.  Every
-- transaction sends one pipeline of DEPTH commands: DEPTH/2 SETs of
-- random keys to a VALUE_SIZE-byte value of 'x', then DEPTH/2 GETs of
-- random keys.  FORM, how the script builds it:
--   fresh     a new table of new command tables per transaction, keys
--             string.format("key:%012d", luamech.random(0, KEYS - 1)) (the
--             documented r:pipeline({{cmd, ...}, ...}) as most scripts write it)
--   reuse     one table of command tables built at init; each transaction
--             only puts new keys in it (the same keys as fresh)
--   keys      one table built at init whose key arguments are a luamech.keys
--             generator: r:pipeline draws a key per command (keys
--             "key:00000000" .. 1..KEYS, uniform: mostly 16 bytes, as
--             redis-benchmark's key:%012d)
--   prepared  the same table given once to r:prepare; each transaction
--             sends r:pipeline(prepared) (encoded once, a key drawn per
--             command)
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

local function with_generator()
  local keys = luamech.keys { pattern = "uniform", n = KEYS, prefix = "key:00000000" }
  local cmds = {}
  for i = 1, HALF do cmds[i] = { "SET", keys, VALUE } end
  for i = HALF + 1, DEPTH do cmds[i] = { "GET", keys } end
  return cmds
end

local send
if FORM == "fresh" then
  send = function() return r:pipeline(fresh()) end
elseif FORM == "reuse" then
  local cmds = fresh()
  send = function()
    for i = 1, DEPTH do cmds[i][2] = fmt("key:%012d", random(0, KEYS - 1)) end
    return r:pipeline(cmds)
  end
elseif FORM == "keys" then
  local cmds = with_generator()
  send = function() return r:pipeline(cmds) end
elseif FORM == "prepared" then
  local p = r:prepare(with_generator())
  send = function() return r:pipeline(p) end
else
  error("FORM must be fresh, reuse, keys or prepared")
end

return function()
  local t, err = send()
  if not t then error(err) end
end
