-- idle_vu.lua: an idle VU for bench/idle_vus.sh: one transaction = sleep 1 s.
return function() luamech.sleep(1) end
