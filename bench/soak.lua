-- soak.lua: the scenario of bench/soak.sh.  Two groups whose VU counts go
-- up and down all run long (churn of VUs and their connections), against
-- memcached and HTTP (nginx).  One swing (up, down, up, down) takes CHURN_S
-- seconds; the stages repeat it until the run's end (DURATION, seconds, as
-- soak.sh passes it).  A group takes at most 64 stages, so a run longer than
-- 16 swings stretches each swing to DURATION / 16.
local run_s = tonumber(luamech.param("DURATION", "3600"))
local period = math.max(tonumber(luamech.param("CHURN_S", "60")), run_s / 16)
local function churn(high, low)
  local st = {}
  local swings = math.min(16, math.ceil(run_s / period))
  for i = 1, 4 * swings do
    st[#st + 1] = { duration = (period / 4) .. "s", target = (i % 2 == 1) and high or low }
  end
  return st
end
return {
  name = "soak",
  run_time = run_s .. "s",
  interval = luamech.param("INTERVAL", "10s"),
  groups = {
    { name = "mc", stages = churn(200, 20), script = "soak_mc_vu.lua" },
    { name = "http", stages = churn(100, 10), script = "soak_http_vu.lua" },
  },
}
