-- example_vu.lua: runs once per VU (connect), then returns the transaction.
local mc = assert(luamech.memcached.connect(luamech.param("MEMCACHED", "127.0.0.1:11211")))
local key = "example:" .. luamech.vu_id()

return function()
  assert(mc:set(key, "hello from VU " .. luamech.vu_id()))
  local value = assert(mc:get(key))
  assert(value:find("hello"), "unexpected value")
  luamech.sleep(0.1)
end
