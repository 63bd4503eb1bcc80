-- mc_multiget_vu.lua: the VU of bench/mc_multiget.lua.  Every transaction
-- sends one mc:get_multi of DEPTH random keys (all hits: the preload wrote
-- them; the bench script checks the server's get_hits = cmd_get).  FORM:
--   fresh   a new key table per transaction, keys string.format'ed (as most
--           scripts write it)
--   reuse   one key table made at init; each transaction puts new keys in it
local mc = assert(luamech.memcached.connect(luamech.param("MEMCACHED", "127.0.0.1:11211")))
local KEYS = tonumber(luamech.param("KEYS", "10000"))
local DEPTH = tonumber(luamech.param("DEPTH", "100"))
local FORM = luamech.param("FORM", "fresh")
local fmt, random = string.format, luamech.random

local keys = {}
local function fill(t)
  for i = 1, DEPTH do t[i] = fmt("memtier-%d", random(1, KEYS)) end
  return t
end

if FORM == "reuse" then
  return function() assert(mc:get_multi(fill(keys))) end
end
return function() assert(mc:get_multi(fill({}))) end
