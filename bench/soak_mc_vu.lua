-- soak_mc_vu.lua: a VU of bench/soak.lua.  Its own memcached connection;
-- SET then GET of a random key, THINK s (default 0.1) of think time, every 50th transaction a fresh client
-- (connect, one GET, close) so connections churn all run long.  Errors while
-- the server restarts are expected and counted, not raised.
local ADDR = luamech.param("MEMCACHED", "127.0.0.1:11211")
local mc = luamech.memcached.connect(ADDR, { timeout = 1 })
local VALUE = string.rep("s", 512)
local THINK = tonumber(luamech.param("THINK", "0.1"))

return function()
  local key = "soak:" .. luamech.random(1, 10000)
  if not mc then mc = luamech.memcached.connect(ADDR, { timeout = 1 }) end
  if mc then
    mc:set(key, VALUE)
    mc:get(key)
  end
  if luamech.iteration() % 50 == 0 then
    local c = luamech.memcached.connect(ADDR, { timeout = 1 })
    if c then c:get(key); c:close() end
  end
  luamech.sleep(THINK)
end
