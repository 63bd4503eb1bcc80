-- kv_correctness.lua: seed 003's KeyValueCorrectness: write random values to
-- random keys, read them back, and count every mismatch as a failed check;
-- the run fails (exit code 6) unless every check passed.
--   luamech run scenarios/kv_correctness.lua -e REDIS=127.0.0.1:6379
return {
  name = "kv_correctness",
  requests = luamech.param("N", "10000"),
  interval = "1s",
  thresholds = { "checks rate >= 100%", "errors rate <= 0%" },
  groups = { { name = "correctness", vus = tonumber(luamech.param("X", "2")), script = "kv_correctness_vu.lua" } },
}
