-- redis_cluster.lua: the luamech side of bench/redis_cluster_vs_memtier.sh.
-- CONNS VUs (-u), each with its own cluster client (a connection per
-- master, as each memtier client in --cluster-mode), closed loop, no think
-- time; a transaction is one SET and one GET (memtier --ratio=1:1) of
-- random keys "key:<n>", n uniform in [1, KEYS] (memtier --key-pattern=R:R).
-- The number of transactions comes from -n.
return {
  name = "redis_cluster",
  interval = "1s",
  notes = "redis cluster at " .. luamech.param("CLUSTER", "127.0.0.1:7000") .. "; SET+GET of "
          .. luamech.param("KEYS", "100000") .. " random keys, " .. luamech.param("VALUE_SIZE", "32")
          .. "-byte values",
  requests = 100000,
  groups = { { name = "setget", vus = 50, script = "redis_cluster_vu.lua" } },
}
