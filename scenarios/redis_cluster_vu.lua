-- redis_cluster_vu.lua: one page of scenarios/redis_cluster.lua per
-- transaction, by group (browse or shop).  Clients are pooled: the VUs of a
-- worker share one connection per master.
local r = assert(luamech.redis.connect(luamech.param("REDIS_CLUSTER", "127.0.0.1:7000"),
                                       { cluster = true, pool = true }))
local users = luamech.keys{ pattern = "zipf", n = tonumber(luamech.param("USERS", "10000")), prefix = "" }
local think = luamech.random.exponential(0.01)       -- 10 ms on average
local group = luamech.vu_group()

local function tag(id) return "{user:" .. id .. "}" end

local function browse()
  local cmds = {}
  for i = 1, 5 do
    local u = tag(users())
    cmds[2 * i - 1] = { "HGETALL", u .. ".session" }
    cmds[2 * i] = { "LRANGE", u .. ".cart", 0, 9 }
  end
  local t = luamech.timer("page")
  assert(r:pipeline(cmds))                          -- split by node, replies in this order
  t:stop()
end

local function shop()
  local u = tag(users())
  local t = luamech.timer("add to cart")
  assert(r:hset(u .. ".session", "seen", luamech.iteration(), "vu", luamech.vu_id()))
  assert(r:call("RPUSH", u .. ".cart", "item" .. luamech.random(1, 500)))
  assert(r:call("LTRIM", u .. ".cart", -20, -1))
  local n = assert(r:call("EXISTS", u .. ".session", u .. ".cart"))   -- two keys, one slot
  assert(n == 2, "session and cart exist")
  t:stop()
end

local tx = group == "shop" and shop or browse
return function()
  tx()
  luamech.sleep(think())
end
