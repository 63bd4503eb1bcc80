# The fields of summary.json that a fixed-seed run with a transaction budget
# determines (test_determinism.sh): no times, rates or latencies measured by
# the clock, no paths.  Custom timers record the values the script drew.
# Timers are read through views.jq's tflat: a family and its views as the
# flat schema-1 entries ("X", "X (all)"), so schema 1 and schema 2 files give
# the same output (fixtures/determinism.expected.json, byte for byte).
include "views" {search: "./"};
{seed, status, exit_code, scenario,
 settings: (.settings | {requests, workers, interval_s}),
 groups: [.groups[] | {name, vus}],
 errors: [.errors[] | {message: (.message | sub("^.*/"; "")), count}],
 request_errors, checks, thresholds, timer_overflow,
 timers: [tflat | select(.kind != "engine") | . as $t |
   {name, kind, latency_from, latency_over,
    summary: (.summary | if $t.kind == "custom"
                         then {count, errors, cancelled, skipped, min_ms, avg_ms, p50_ms, p80_ms, p90_ms, p95_ms,
                               p99_ms, p99_9_ms, max_ms, stdev_ms}
                         else {count, errors, cancelled, skipped} end)}
   ] }
