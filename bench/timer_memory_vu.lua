-- timer_memory_vu.lua: the VU of bench/timer_memory.lua.  Transaction i
-- stops a timer named "item <i>" (DISTINCT=1) or "item" (DISTINCT=0); the
-- values cover 50 us to 5 ms so every timer touches several sub-ranges.
local distinct = luamech.param("DISTINCT", "1") == "1"
local i = 0
return function()
  i = i + 1
  for k = 1, 4 do
    luamech.record(distinct and ("item " .. i) or "item", 0.00005 * (10 ^ (k / 2)))
  end
end
