/* test_plan.c - the run plan's rules (src/scenario/plan.c): every rule of
 * plan_check() on a final scenario struct with its message, who is blamed
 * (scenario file, suite entry, flag), the limits and names, and the rule
 * that turns names into path components (report_path_name). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "report/results.h"
#include "scenario/plan.h"

typedef struct fixture {
    scenario s;
    group_cfg g[2];
    scenario_overrides o;
    char err[512];
} fixture;

/* A plan that passes: one closed group of 1 VU for 1 s. */
static void fixture_init(fixture *f) {
    memset(f, 0, sizeof *f);
    f->s.path = "s.lua";
    f->s.name = "s";
    f->s.run_time_ns = 1000000000;
    f->s.interval_ns = 1000000000;
    f->s.graceful_stop_ns = 0;
    f->s.ngroups = 1;
    f->s.groups = f->g;
    f->g[0].name = "g";
    f->g[0].vus = 1;
    sched_constant(&f->g[0].sched, 1);
    scenario_overrides_init(&f->o);
}

static int check(fixture *f) {
    f->err[0] = 0;
    return plan_check(&f->s, &f->o, f->err, sizeof f->err);
}

static void test_good_plan(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f);
    assert_int_equal(check(&f), PLAN_OK);
}

/* 9.15: an interval that is not a whole number of 100 ms ticks. */
static void test_interval_rule_and_blame(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f);
    f.s.interval_ns = 250000000;
    assert_int_equal(check(&f), PLAN_BAD_SCENARIO);
    assert_string_equal(f.err, "s.lua: interval: expected a duration from 100ms to 24h, a whole number of 100ms, got 0.25 s");
    f.o.interval_ns = 250000000;                      /* the same value from a suite entry */
    f.o.origin = "suite.lua: runs[2]";
    assert_int_equal(check(&f), PLAN_BAD_SCENARIO);
    assert_non_null(strstr(f.err, "suite.lua: runs[2]: interval: "));
    f.o.origin = NULL;                                /* from the command line */
    assert_int_equal(check(&f), PLAN_BAD_FLAG);
    assert_non_null(strstr(f.err, "--interval: "));
    f.s.interval_ns = 0;
    f.o.interval_ns = -1;
    assert_int_equal(check(&f), PLAN_BAD_SCENARIO);
}

static void test_bounds(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f);
    f.s.run_time_ns = 0;                              /* no clock, no budget */
    assert_int_equal(check(&f), PLAN_BAD_SCENARIO);
    assert_non_null(strstr(f.err, "neither a run_time nor a requests budget"));
    f.s.requests = 10;
    assert_int_equal(check(&f), PLAN_OK);
    f.g[0].vus = 0;                                   /* a budget nobody can spend */
    sched_constant(&f.g[0].sched, 0);
    assert_int_equal(check(&f), PLAN_BAD_SCENARIO);
    assert_non_null(strstr(f.err, "no VU can ever start"));
    f.o.vus = 0;                                      /* -u 0 -n 10 */
    assert_int_equal(check(&f), PLAN_BAD_FLAG);
    assert_non_null(strstr(f.err, "--vus: "));
}

static void test_vus_limits(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f);
    f.s.ngroups = 2;
    f.g[1] = f.g[0];
    f.g[1].name = "h";
    f.g[0].vus = f.g[1].vus = PLAN_MAX_VUS / 2 + 1;   /* each fine, together too many */
    assert_int_equal(check(&f), PLAN_BAD_SCENARIO);
    assert_non_null(strstr(f.err, "at most 10000000 in a run"));
    f.g[0].vus = PLAN_MAX_VUS + 1;
    assert_int_equal(check(&f), PLAN_BAD_SCENARIO);
    assert_non_null(strstr(f.err, "vus: expected an integer from 0 to 10000000"));
}

static void test_pacing_and_stages(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f);
    f.g[0].model = MODEL_PACED;
    f.g[0].pacing_ns = 0;                             /* 1e-12 s rounded to nothing */
    assert_int_equal(check(&f), PLAN_BAD_SCENARIO);
    assert_non_null(strstr(f.err, "pacing: expected a duration from 1us to 24h"));
    f.g[0].pacing_ns = 1000;
    assert_int_equal(check(&f), PLAN_OK);
    f.g[0].sched.n = 1;
    f.g[0].sched.st[0] = (sched_stage){1000000000, INFINITY};
    assert_int_equal(check(&f), PLAN_BAD_SCENARIO);
    assert_non_null(strstr(f.err, "target: expected a number from 0 to 10000000"));
}

static void test_names(void **state) {
    (void)state;
    fixture f;
    char why[256], long_name[PLAN_MAX_NAME_BYTES + 2];
    fixture_init(&f);
    f.s.name = "bad\xffname";
    assert_int_equal(check(&f), PLAN_BAD_SCENARIO);
    assert_string_equal(f.err, "s.lua: name: not valid UTF-8 (byte 4 is 0xff)");
    f.s.name = "s";
    f.g[0].name = "g\xff";
    assert_int_equal(check(&f), PLAN_BAD_SCENARIO);
    assert_non_null(strstr(f.err, "groups[1].name: not valid UTF-8"));
    assert_int_equal(plan_name_check("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", why, sizeof why), 0);
    assert_int_equal(plan_name_check("\xc0\x80", why, sizeof why), -1);          /* overlong NUL */
    assert_int_equal(plan_name_check("\xed\xa0\x80", why, sizeof why), -1);      /* a surrogate */
    assert_int_equal(plan_name_check("\xf4\x90\x80\x80", why, sizeof why), -1);  /* above U+10FFFF */
    assert_int_equal(plan_name_check("\xe2\x82", why, sizeof why), -1);          /* cut short */
    assert_int_equal(plan_name_check("a\nb", why, sizeof why), -1);
    assert_int_equal(plan_name_check("", why, sizeof why), -1);
    memset(long_name, 'x', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = 0;
    assert_int_equal(plan_name_check(long_name, why, sizeof why), -1);
    long_name[PLAN_MAX_NAME_BYTES] = 0;
    assert_int_equal(plan_name_check(long_name, why, sizeof why), 0);
}

static void test_phases_and_suite_name(void **state) {
    (void)state;
    fixture f, ph;
    fixture_init(&f);
    fixture_init(&ph);
    ph.s.name = "p";
    ph.s.interval_ns = 150000000;
    f.s.nphases = 1;
    f.s.phases = &ph.s;
    assert_int_equal(check(&f), PLAN_BAD_SCENARIO);
    assert_non_null(strstr(f.err, "s.lua: phases[1].interval: "));
    ph.s.interval_ns = 100000000;
    f.o.name = "r\xff";                               /* a suite run's name */
    f.o.origin = "suite.lua: runs[1]";
    ph.s.name = "r\xff";
    assert_int_equal(check(&f), PLAN_BAD_SCENARIO);
    assert_non_null(strstr(f.err, "suite.lua: runs[1]: name: not valid UTF-8"));
}

static void test_values(void **state) {
    (void)state;
    char why[256];
    const plan_limit *vus = plan_limit_of("vus"), *iv = plan_limit_of("interval");
    assert_non_null(vus);
    assert_int_equal(plan_value_check(vus, NAN, why, sizeof why), -1);
    assert_int_equal(plan_value_check(vus, INFINITY, why, sizeof why), -1);
    assert_int_equal(plan_value_check(vus, 4294967297.0, why, sizeof why), -1);
    assert_int_equal(plan_value_check(vus, 2.5, why, sizeof why), -1);
    assert_int_equal(plan_value_check(vus, 0, why, sizeof why), 0);
    assert_int_equal(plan_value_check(iv, 300e6, why, sizeof why), 0);
    assert_int_equal(plan_value_check(iv, 86400e9 + 1e8, why, sizeof why), -1);
    assert_int_equal(plan_value_check(plan_limit_of("pacing"), 1e-3, why, sizeof why), -1);
    assert_non_null(strstr(why, "below the 1us resolution"));
    assert_null(plan_limit_of("nope"));
}

static void test_flags(void **state) {
    (void)state;
    scenario_overrides o;
    char err[256];
    scenario_overrides_init(&o);
    assert_int_equal(plan_check_flags(&o, err, sizeof err), PLAN_OK);
    o.run_time_ns = 0;                                /* -d 0: until the budget */
    assert_int_equal(plan_check_flags(&o, err, sizeof err), PLAN_OK);
    o.vus = 4294967298LL;
    assert_int_equal(plan_check_flags(&o, err, sizeof err), PLAN_BAD_FLAG);
    assert_string_equal(err, "--vus: expected an integer from 0 to 10000000, got 4294967298");
    o.vus = -1;
    o.seed = 9007199254740992LL;                      /* 2^53 */
    assert_int_equal(plan_check_flags(&o, err, sizeof err), PLAN_BAD_FLAG);
    assert_non_null(strstr(err, "--seed: "));
}

static void test_path_names(void **state) {
    (void)state;
    char buf[128];
    report_path_name(buf, sizeof buf, "x/../../../../escaped");
    assert_string_equal(buf, "x_.._.._.._.._escaped");
    report_path_name(buf, sizeof buf, "../../escaped");
    assert_string_equal(buf, "_._.._escaped");
    report_path_name(buf, sizeof buf, "vus=10, a+b@c");
    assert_string_equal(buf, "vus=10,_a+b@c");
    report_path_name(buf, sizeof buf, "caf\xc3\xa9");
    assert_string_equal(buf, "caf__");
    char long_name[200];
    memset(long_name, 'y', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = 0;
    report_path_name(buf, sizeof buf, long_name);
    assert_int_equal(strlen(buf), 64);
    report_phase_subdir(buf, sizeof buf, 0, "..");
    assert_string_equal(buf, "1-_.");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_plan),       cmocka_unit_test(test_interval_rule_and_blame),
        cmocka_unit_test(test_bounds),          cmocka_unit_test(test_vus_limits),
        cmocka_unit_test(test_pacing_and_stages), cmocka_unit_test(test_names),
        cmocka_unit_test(test_phases_and_suite_name), cmocka_unit_test(test_values),
        cmocka_unit_test(test_flags),           cmocka_unit_test(test_path_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
