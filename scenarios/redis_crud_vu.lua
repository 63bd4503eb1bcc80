-- redis_crud_vu.lua: one SQL-like operation per transaction, chosen by the
-- VU's group (insert, select, update, delete); rows are redis hashes.
local r = assert(luamech.redis.connect(luamech.param("REDIS", "127.0.0.1:6379")))
local rows = tonumber(luamech.param("ROWS", "100000"))
local op = luamech.vu_group()

local actions = {
  insert = function(id) return r:hset("row:" .. id, "name", "user" .. id, "age", id % 90) end,
  select = function(id) return r:call("HGETALL", "row:" .. id) end,
  update = function(id) return r:hset("row:" .. id, "age", luamech.random(1, 90)) end,
  delete = function(id) return r:del("row:" .. id) end,
}
local action = assert(actions[op], "unknown group " .. op)
local name = op:upper()

return function()
  local id = luamech.random(1, rows)
  local t = luamech.timer(name)
  local ok, err = action(id)
  if ok == nil and err then error(err) end
  t:stop()
end
