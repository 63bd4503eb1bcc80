/* test_segments.c - the segment rule (src/scenario/plan.c, plan_segment_*):
 * over many (segments N, workers, groups of VUs, rate schedules, stages,
 * budgets) the union of the N segments is exactly the unsegmented run:
 * every VU id in one segment only with its group index, every arrival k of
 * a rate group taken by one (segment, worker) only, the closed groups'
 * running VU count at any time the whole run's target, the budget shares
 * adding up to the budget (and equal to the engine's per-worker shares when
 * each segment has one VU), --segment's parser and checks, and the
 * wall-clock times of --start-at (common/when.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/when.h"
#include "scenario/plan.h"

#define MAXG 3

typedef struct fixture {
    scenario s;
    group_cfg g[MAXG];
    scenario_overrides o;
    char err[512];
} fixture;

static uint64_t rng_next(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* A random plan: 1-3 groups of 0-40 VUs, closed (staged or not) or rate. */
static void fixture_random(fixture *f, uint64_t *x) {
    memset(f, 0, sizeof *f);
    f->s.path = "s.lua";
    f->s.name = "s";
    f->s.run_time_ns = 10000000000LL;
    f->s.interval_ns = 1000000000;
    f->s.ngroups = 1 + (int)(rng_next(x) % MAXG);
    f->s.groups = f->g;
    for (int g = 0; g < f->s.ngroups; g++) {
        group_cfg *c = &f->g[g];
        c->name = "g";
        c->vus = (int)(rng_next(x) % 41);
        c->model = rng_next(x) % 3 == 0 ? MODEL_RATE : MODEL_CLOSED;
        double top = c->model == MODEL_RATE ? (double)(1 + rng_next(x) % 5000) : c->vus;
        sched_constant(&c->sched, top);
        if (rng_next(x) % 2) {                    /* stages: up, hold, down */
            c->staged = 1;
            c->sched.start = 0;
            c->sched.n = 3;
            c->sched.st[0].dur_ns = 2000000000;
            c->sched.st[0].target = top;
            c->sched.st[1].dur_ns = 3000000000;
            c->sched.st[1].target = top;
            c->sched.st[2].dur_ns = 2000000000;
            c->sched.st[2].target = top / 3;
        }
    }
    if (f->g[0].vus == 0) f->g[0].vus = 1;
    scenario_overrides_init(&f->o);
}

static int64_t total_vus(const scenario *s) {
    int64_t n = 0;
    for (int g = 0; g < s->ngroups; g++) n += s->groups[g].vus;
    return n;
}

/* VU k of the run is in exactly one segment; each segment's per-group
 * counts are its VUs; the ids of a group keep their index. */
static void check_vus(fixture *f, int N) {
    int64_t V = total_vus(&f->s);
    int *seen = calloc((size_t)V + 1, sizeof *seen);
    for (int seg = 1; seg <= N; seg++) {
        f->s.seg_index = seg, f->s.seg_count = N;
        int64_t k = 0, mine = 0;
        for (int g = 0; g < f->s.ngroups; g++) {
            int ing = 0;
            for (int i = 0; i < f->g[g].vus; i++, k++)
                if (plan_segment_has_vu(&f->s, k)) seen[k]++, ing++, mine++;
            assert_int_equal(ing, plan_segment_group_vus(&f->s, g));
        }
        assert_int_equal(mine, plan_segment_vus(&f->s));
    }
    for (int64_t k = 0; k < V; k++) assert_int_equal(seen[k], 1);
    free(seen);
}

/* Arrival k (k < K) of every rate group is taken by exactly one worker of
 * one segment, and only segments with VUs of the group take any. */
static void check_arrivals(fixture *f, int N, int nworkers) {
    enum { K = 3000 };
    for (int g = 0; g < f->s.ngroups; g++) {
        if (f->g[g].model != MODEL_RATE || f->g[g].vus == 0) continue;
        int seen[K] = {0};
        for (int seg = 1; seg <= N; seg++) {
            f->s.seg_index = seg, f->s.seg_count = N;
            for (int w = 0; w < nworkers; w++) {
                uint64_t first, step;
                if (!plan_worker_arrivals(&f->s, g, nworkers, w, &first, &step)) continue;
                assert_true(plan_segment_group_vus(&f->s, g) > w % nworkers || nworkers > 1);
                assert_true(step >= 1);
                for (uint64_t k = first; k < K; k += step) seen[k]++;
            }
        }
        for (int k = 0; k < K; k++) assert_int_equal(seen[k], 1);
    }
}

/* Closed groups: at every time, the VUs that run in all segments (VU i
 * runs while the target is above i) are the whole run's target. */
static void check_targets(fixture *f, int N) {
    for (int g = 0; g < f->s.ngroups; g++) {
        if (f->g[g].model != MODEL_CLOSED) continue;
        for (int64_t t = 0; t < 8000000000LL; t += 250000000LL) {
            double target = sched_target(&f->g[g].sched, t);
            int64_t whole = 0, sum = 0, off = 0;
            for (int i = 0; i < g; i++) off += f->g[i].vus;
            for (int i = 0; i < f->g[g].vus; i++) whole += target > i;
            for (int seg = 1; seg <= N; seg++) {
                f->s.seg_index = seg, f->s.seg_count = N;
                for (int i = 0; i < f->g[g].vus; i++)
                    if (plan_segment_has_vu(&f->s, off + i)) sum += target > i;
            }
            assert_int_equal(sum, whole);
        }
    }
}

/* The shares of a budget add up to it, each about proportional to the
 * segment's VUs. */
static void check_budget(fixture *f, int N, int64_t R) {
    int64_t sum = 0, V = total_vus(&f->s);
    f->s.seg_count = N;
    for (int seg = 1; seg <= N; seg++) {
        f->s.seg_index = seg;
        int64_t q = plan_segment_share(&f->s, seg, R);
        int64_t fair = (int64_t)((__int128)R * plan_segment_vus(&f->s) / V);
        assert_true(q == fair || q == fair + 1);
        sum += q;
    }
    assert_int_equal(sum, R);
}

static void test_union_is_the_whole(void **state) {
    (void)state;
    uint64_t x = 42;
    for (int iter = 0; iter < 400; iter++) {
        fixture f;
        fixture_random(&f, &x);
        int N = 1 + (int)(rng_next(&x) % 12), nw = 1 + (int)(rng_next(&x) % 5);
        check_vus(&f, N);
        check_arrivals(&f, N, nw);
        check_targets(&f, N);
        check_budget(&f, N, (int64_t)(rng_next(&x) % 100000) + 1);
        check_budget(&f, N, 99999999999LL);
    }
}

/* One VU per segment: the segment's share equals what the engine gives
 * worker s - 1 of N in one process with one VU per worker (so each VU runs
 * the same number of transactions, and draws the same keys). */
static void test_one_vu_per_segment_matches_workers(void **state) {
    (void)state;
    fixture f;
    uint64_t x = 7;
    fixture_random(&f, &x);
    f.s.ngroups = 1;
    f.g[0].vus = 4;
    f.s.seg_count = 4;
    /* engine_quotas for 4 workers, 1 VU each, 10 requests: 3 3 2 2 */
    const int64_t want[4] = {3, 3, 2, 2};
    for (int s = 1; s <= 4; s++) assert_int_equal(plan_segment_share(&f.s, s, 10), want[s - 1]);
}

/* The rule on a worked example (docs/distributed.md): 10 VUs, 4 segments. */
static void test_worked_example(void **state) {
    (void)state;
    fixture f;
    uint64_t x = 1;
    fixture_random(&f, &x);
    f.s.ngroups = 1;
    f.g[0].vus = 10;
    f.g[0].model = MODEL_RATE;
    f.s.seg_index = 3, f.s.seg_count = 4;
    int ids[10], n = 0;
    for (int k = 0; k < 10; k++)
        if (plan_segment_has_vu(&f.s, k)) ids[n++] = k + 1;
    assert_int_equal(n, 2);
    assert_int_equal(ids[0], 3);
    assert_int_equal(ids[1], 7);
    uint64_t first, step;
    assert_true(plan_segment_arrivals(&f.s, 0, &first, &step));
    assert_int_equal(first, 2);
    assert_int_equal(step, 4);
    assert_true(plan_worker_arrivals(&f.s, 0, 2, 1, &first, &step));   /* its 2nd worker: 6, 14, 22, ... */
    assert_int_equal(first, 6);
    assert_int_equal(step, 8);
    assert_int_equal(plan_segment_share(&f.s, 3, 1000), 200);          /* 3 3 2 2 VUs: 300 300 200 200 */
}

static void test_parse(void **state) {
    (void)state;
    int i = 0, n = 0;
    char why[256];
    assert_int_equal(plan_segment_parse("3/8", &i, &n, why, sizeof why), 0);
    assert_int_equal(i, 3);
    assert_int_equal(n, 8);
    assert_int_equal(plan_segment_parse("1/1", &i, &n, why, sizeof why), 0);
    const char *bad[] = {"9/8", "0/0", "0/4", "x", "3/", "/8", "3/8x", "-1/8", "3/-8", "3 /8", "1/100001", ""};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        assert_int_equal(plan_segment_parse(bad[k], &i, &n, why, sizeof why), -1);
    plan_segment_parse("9/8", &i, &n, why, sizeof why);
    assert_string_equal(why, "segment 9 of 8: N is 1 to 100000 and i is 1 to N (segments count from 1)");
}

/* A segment with no VU, or no share of the budget, is refused (a flag error). */
static void test_empty_segment_refused(void **state) {
    (void)state;
    fixture f;
    uint64_t x = 3;
    fixture_random(&f, &x);
    f.s.ngroups = 1;
    f.g[0].vus = 3;
    f.g[0].model = MODEL_CLOSED;
    sched_constant(&f.g[0].sched, 3);
    f.s.seg_index = 4, f.s.seg_count = 4;
    assert_int_equal(plan_check(&f.s, &f.o, f.err, sizeof f.err), PLAN_BAD_FLAG);
    assert_string_equal(f.err, "--segment 4/4: the run has 3 VUs, so segment 4 would have none: use at most 3 segments");
    f.s.seg_index = 3;
    assert_int_equal(plan_check(&f.s, &f.o, f.err, sizeof f.err), PLAN_OK);
    f.s.requests = 2;
    assert_int_equal(plan_check(&f.s, &f.o, f.err, sizeof f.err), PLAN_BAD_FLAG);
    f.s.requests = 3;
    assert_int_equal(plan_check(&f.s, &f.o, f.err, sizeof f.err), PLAN_OK);
    plan_segment_apply(&f.s);
    assert_int_equal(f.s.requests, 1);
    assert_int_equal(f.s.requests_whole, 3);
}

/* --start-at's times: RFC 3339 with a zone (fractions, offsets), +DUR. */
#define NOW_NS (1796205600LL * 1000000000LL - 86400LL * 1000000000LL)   /* 2026-12-01T10:00:00Z */

static void test_start_at_times(void **state) {
    (void)state;
    int64_t at = 0;
    char why[256], buf[64];
    assert_int_equal(when_parse_ns("2026-12-02T10:00:00Z", NOW_NS, &at, why, sizeof why), 0);
    assert_true(at == 1796205600LL * 1000000000LL);
    assert_string_equal(when_format(at, buf, sizeof buf), "2026-12-02T10:00:00.000Z");
    assert_int_equal(when_parse_ns("2026-12-02T11:00:00.25+01:00", NOW_NS, &at, why, sizeof why), 0);
    assert_true(at == 1796205600LL * 1000000000LL + 250000000LL);
    assert_int_equal(when_parse_ns("2026-12-02T09:30:00-00:30", NOW_NS, &at, why, sizeof why), 0);
    assert_true(at == 1796205600LL * 1000000000LL);
    assert_int_equal(when_parse_ns("+30s", 5, &at, why, sizeof why), 0);
    assert_true(at == 30000000005LL);
    const char *bad[] = {"2026-12-02T10:00:00", "2026-02-30T10:00:00Z", "2026-12-02 10:00Z", "+0s", "+x",
                         "2026-12-02T25:00:00Z", "2026-12-02T10:00:00.Z", "tomorrow", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(when_parse_ns(bad[i], NOW_NS, &at, why, sizeof why), -1);
}

/* Far instants: refused with the reason, never multiplied into ns first (the
 * years 2300 and 9999 and +2500000h overflowed int64 ns: UBSan signed
 * overflow, and the CLI called them "-8617483818.634 s in the past"). */
static void test_start_at_range(void **state) {
    (void)state;
    int64_t at = -1;
    char why[256] = "";
    const char *far[] = {"2300-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "+2500000h", "+169h",
                         "2026-12-08T10:00:00.001Z", "2026-12-09T00:00:00+01:00"};
    for (size_t i = 0; i < sizeof far / sizeof far[0]; i++) {
        why[0] = 0;
        assert_int_equal(when_parse_ns(far[i], NOW_NS, &at, why, sizeof why), -1);
        assert_non_null(strstr(why, "too far in the future (at most 7 days ahead: 2026-12-08T10:00:00.000Z)"));
    }
    /* the limit itself, and just before 1970 */
    assert_int_equal(when_parse_ns("2026-12-08T10:00:00Z", NOW_NS, &at, why, sizeof why), 0);
    assert_true(at == NOW_NS + 7 * 86400LL * 1000000000LL);
    assert_int_equal(when_parse_ns("+168h", NOW_NS, &at, why, sizeof why), 0);
    assert_true(at == NOW_NS + 168 * 3600LL * 1000000000LL);
    assert_int_equal(when_parse_ns("1969-12-31T23:59:59Z", NOW_NS, &at, why, sizeof why), -1);
    assert_non_null(strstr(why, "before 1970"));
    assert_int_equal(when_parse_ns("0000-01-01T00:00:00Z", NOW_NS, &at, why, sizeof why), -1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_union_is_the_whole),
        cmocka_unit_test(test_one_vu_per_segment_matches_workers),
        cmocka_unit_test(test_worked_example),
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_empty_segment_refused),
        cmocka_unit_test(test_start_at_times),
        cmocka_unit_test(test_start_at_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
