-- timer_cost_vu.lua: the VU of bench/timer_cost.lua.  One transaction runs
-- INNER iterations of a custom timer start/stop (TIMED=1), or the same loop
-- with an empty body (TIMED=0, the baseline).
local N = tonumber(luamech.param("INNER", "1000"))
local timer = luamech.timer

if luamech.param("TIMED", "1") == "1" then
  return function()
    for _ = 1, N do
      local t = timer("X")
      t:stop()
    end
  end
else
  return function()
    for _ = 1, N do
    end
  end
end
