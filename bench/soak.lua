-- soak.lua: the scenario of bench/soak.sh.  Two groups whose VU counts go
-- up and down all run long (churn of VUs and their connections), against
-- memcached and HTTP (nginx); run time and stages come from the parameters.
local period = tonumber(luamech.param("CHURN_S", "60"))
local function churn(high, low)
  local st = {}
  for i = 1, 4 do
    st[#st + 1] = { duration = (period / 4) .. "s", target = (i % 2 == 1) and high or low }
  end
  return st
end
return {
  name = "soak",
  run_time = luamech.param("DURATION", "1h"),
  interval = luamech.param("INTERVAL", "10s"),
  groups = {
    { name = "mc", stages = churn(200, 20), script = "soak_mc_vu.lua" },
    { name = "http", stages = churn(100, 10), script = "soak_http_vu.lua" },
  },
}
