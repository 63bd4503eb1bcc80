-- soak.lua: the scenario of bench/soak.sh.  Two groups whose VU counts go
-- up and down all run long (VUs parked and resumed, busy and idle
-- connections), against memcached and HTTP (nginx).  One swing (up, down,
-- up, down: four stages) takes CHURN_S seconds, repeated to the run's end
-- (DURATION, seconds, as soak.sh passes it), but at most two swings: every
-- stage has its own timer ("stage k GROUP", kept for the report), so a
-- longer run gets longer stages rather than more of them, and what the soak
-- measures is the run, not the number of stages.
local run_s = tonumber(luamech.param("DURATION", "3600"))
local period = math.max(tonumber(luamech.param("CHURN_S", "60")), run_s / 2)
local function churn(high, low)
  local st = {}
  local swings = math.min(2, math.ceil(run_s / period))
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
