-- redis_crud.lua: seed 000 (AlchemyDB's INSERT/SELECT/UPDATE/DELETE run with
-- redis-benchmark: 1,000,000 requests each, 200 parallel clients), against
-- redis.  Four phases, one named transaction each, run one after another;
-- each phase's report has requests per second and the latency distribution.
--   luamech run scenarios/redis_crud.lua -e REDIS=127.0.0.1:6379
--   (shorter: -n 100k; fewer clients: -u 50)
return {
  name = "redis_crud",
  interval = "1s",
  notes = "redis at " .. luamech.param("REDIS", "127.0.0.1:6379") ..
          "; rows are hashes row:<id>, ids random in 1.." .. luamech.param("ROWS", "100000"),
  phases = {
    { name = "INSERT", requests = "1M", groups = { { name = "insert", vus = 200, script = "redis_crud_vu.lua" } } },
    { name = "SELECT", requests = "1M", groups = { { name = "select", vus = 200, script = "redis_crud_vu.lua" } } },
    { name = "UPDATE", requests = "1M", groups = { { name = "update", vus = 200, script = "redis_crud_vu.lua" } } },
    { name = "DELETE", requests = "1M", groups = { { name = "delete", vus = 200, script = "redis_crud_vu.lua" } } },
  },
}
