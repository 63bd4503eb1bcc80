-- mc_multiget.lua: the luamech side of bench/mc_multiget_vs_peers.sh.
-- One VU (one connection), closed loop: each transaction is one
-- mc:get_multi of DEPTH random keys "memtier-<n>", n in [1, KEYS] (the keys
-- memtier_benchmark's preload wrote: --key-prefix memtier- --key-pattern P:P),
-- so every key is a hit.  -n sets the number of transactions (keys / DEPTH).
-- FORM (bench/mc_multiget_vu.lua) picks how the script builds the key list.
return {
  name = "mc_multiget",
  interval = "1s",
  notes = "memcached at " .. luamech.param("MEMCACHED", "127.0.0.1:11211") .. "; get_multi of " ..
          luamech.param("DEPTH", "100") .. " keys, form " .. luamech.param("FORM", "fresh"),
  groups = { { name = "multiget", vus = 1, script = "mc_multiget_vu.lua" } },
}
