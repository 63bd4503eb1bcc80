-- redis_cluster.lua: a session store on a redis Cluster (managed redis is
-- usually clustered).  Each user's session is a hash plus a cart list under
-- one hash tag {user:<id>}, so that a user's keys share a slot and a
-- multi-key command on them is allowed; the users spread over every master.
-- Two groups: "browse" reads a session and its cart (one pipeline split by
-- node over five users, as a page listing them would), "shop" updates a
-- session and its cart together.  MOVED/ASK (a resharding during the run)
-- are followed and counted (counters redis.cluster.moved / .ask).
--   luamech run scenarios/redis_cluster.lua -e REDIS_CLUSTER=127.0.0.1:7000,127.0.0.1:7001
--   (scripts/run-local.sh starts a 3-master cluster for it)
return {
  name = "redis_cluster",
  run_time = "1m",
  interval = "5s",
  notes = "redis Cluster at " .. luamech.param("REDIS_CLUSTER", "127.0.0.1:7000") ..
          "; sessions {user:<id>} for ids 1.." .. luamech.param("USERS", "10000"),
  groups = {
    { name = "browse", vus = 40, script = "redis_cluster_vu.lua" },
    { name = "shop", vus = 10, script = "redis_cluster_vu.lua" },
  },
  thresholds = { "errors rate <= 0%" },
}
