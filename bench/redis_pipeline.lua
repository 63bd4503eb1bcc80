-- redis_pipeline.lua: the luamech side of bench/pipeline_vs_peers.sh (redis).
-- One VU (one connection), closed loop: each transaction is one
-- r:pipeline of DEPTH commands, DEPTH/2 SETs then DEPTH/2 GETs of random keys
-- "key:%012d" in [0, KEYS) (redis-benchmark's key:__rand_int__ with -r KEYS),
-- VALUE_SIZE-byte values.  -n sets the number of transactions (commands /
-- DEPTH).  FORM (bench/redis_pipeline_vu.lua) picks how the script builds
-- the pipeline.
return {
  name = "redis_pipeline",
  interval = "1s",
  notes = "redis at " .. luamech.param("REDIS", "127.0.0.1:6379") .. "; pipelines of " ..
          luamech.param("DEPTH", "200") .. " commands (half SET, half GET), form " ..
          luamech.param("FORM", "fresh"),
  groups = { { name = "pipeline", vus = 1, script = "redis_pipeline_vu.lua" } },
}
