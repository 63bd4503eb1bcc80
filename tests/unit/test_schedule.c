/* test_schedule.c - load schedules as pure functions: targets between
 * stages, when VU i may run, arrival times of constant and ramping rates
 * (checked against the integral, not against the code's own figures). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <cmocka.h>

#include "scenario/schedule.h"

#define S(x) ((int64_t)((x) * 1e9))

static void stages(schedule *s, double start, int n, const double *durs, const double *targets) {
    sched_constant(s, start);
    s->n = n;
    for (int i = 0; i < n; i++) s->st[i] = (sched_stage){S(durs[i]), targets[i]};
}

static void test_target(void **state) {
    (void)state;
    schedule s;
    double d[] = {10, 20, 5}, t[] = {100, 100, 0};
    stages(&s, 0, 3, d, t);
    assert_true(fabs(sched_target(&s, 0) - 0) < 1e-9);
    assert_true(fabs(sched_target(&s, S(5)) - 50) < 1e-9);
    assert_true(fabs(sched_target(&s, S(10)) - 100) < 1e-9);
    assert_true(fabs(sched_target(&s, S(25)) - 100) < 1e-9);
    assert_true(fabs(sched_target(&s, S(32.5)) - 50) < 1e-9);
    assert_true(fabs(sched_target(&s, S(100)) - 0) < 1e-9);   /* holds after the last stage */
    assert_true(fabs(sched_max(&s) - 100) < 1e-9);
    assert_int_equal(sched_total_ns(&s), S(35));
}

static void test_first_above(void **state) {
    (void)state;
    schedule s;
    double d[] = {10, 10, 10}, t[] = {10, 10, 0};
    stages(&s, 0, 3, d, t);
    /* VU i (0-based) of a 0->10 ramp over 10 s starts at i seconds */
    for (int i = 0; i < 10; i++) {
        int64_t at = sched_first_above(&s, i, 0);
        assert_true(llabs(at - S(i)) <= 1);
        assert_true(sched_target(&s, at + 1) > i);
    }
    assert_int_equal(sched_first_above(&s, 10, 0), SCHED_NEVER);   /* never above 10 */
    /* during the ramp down VU 7 stops at 23 s; it never comes back */
    assert_int_equal(sched_first_above(&s, 7, S(23.5)), SCHED_NEVER);
    assert_int_equal(sched_first_above(&s, 7, S(12)), S(12));        /* running */
}

/* The engine starts a closed group's VUs in index order from one cursor
 * (engine/pace.c): a VU's first start never comes before a lower index's,
 * whatever the stages (up, down, up again, odd lengths, a non-zero start),
 * and the VUs that never start are the highest indices. */
static void test_first_above_ordered(void **state) {
    (void)state;
    schedule s;
    double d1[] = {3.7}, t1[] = {1000};
    double d2[] = {2, 1, 0.3, 3, 5}, t2[] = {5, 2, 2, 9, 9};
    double d3[] = {0.001, 7.3, 1}, t3[] = {3, 777, 0};
    struct { double start; int n; const double *d, *t; int top; } shapes[] = {
        {0, 1, d1, t1, 1000}, {1, 5, d2, t2, 9}, {0, 3, d3, t3, 777}, {4, 5, d2, t2, 9},
    };
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        stages(&s, shapes[k].start, shapes[k].n, shapes[k].d, shapes[k].t);
        int64_t prev = 0;
        for (int i = 0; i < shapes[k].top + 3; i++) {
            int64_t at = sched_first_above(&s, i, 0);
            if (at < prev) fail_msg("shape %zu: VU %d starts at %lld ns, before VU %d (%lld)", k, i,
                                    (long long)at, i - 1, (long long)prev);
            if (i < shapes[k].top) assert_true(at != SCHED_NEVER);
            else assert_int_equal(at, SCHED_NEVER);
            prev = at;
        }
    }
}

static void test_constant_rate(void **state) {
    (void)state;
    schedule s;
    sched_constant(&s, 1000);                 /* 1000/s: arrival k at k ms */
    for (int k = 0; k < 5000; k += 37) {
        int64_t t = sched_arrival_ns(&s, k);
        assert_true(llabs(t - (int64_t)k * 1000000) <= 1);
    }
    assert_true(fabs(sched_integral(&s, S(10)) - 10000) < 1e-6);
}

static void test_ramping_rate(void **state) {
    (void)state;
    schedule s;
    double d[] = {10, 5}, t[] = {1000, 1000};
    stages(&s, 0, 2, d, t);                   /* 0 -> 1000/s over 10 s, then 1000/s */
    /* integral over the ramp: 1000 * 10 / 2 = 5000 arrivals */
    assert_true(fabs(sched_integral(&s, S(10)) - 5000) < 1e-6);
    assert_true(fabs(sched_integral(&s, S(15)) - 10000) < 1e-6);
    for (double k = 1; k < 12000; k += 97) {
        int64_t at = sched_arrival_ns(&s, k);
        /* the integral reaches k exactly at the arrival time (to 1 ns) */
        assert_true(sched_integral(&s, at) >= k - 1e-6);
        assert_true(sched_integral(&s, at - 2) < k);
    }
    schedule z;
    double dz[] = {1}, tz[] = {0};
    stages(&z, 10, 1, dz, tz);                /* 10/s down to 0 over 1 s: 5 arrivals in all */
    assert_true(sched_arrival_ns(&z, 4.9) != SCHED_NEVER);
    assert_int_equal(sched_arrival_ns(&z, 5.1), SCHED_NEVER);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_target),
        cmocka_unit_test(test_first_above),
        cmocka_unit_test(test_first_above_ordered),
        cmocka_unit_test(test_constant_rate),
        cmocka_unit_test(test_ramping_rate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
