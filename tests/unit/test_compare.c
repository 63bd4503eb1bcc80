/* test_compare.c - `luamech compare` arithmetic: percent change (zero bases
 * are "n/a", never inf or nan), the direction of a regression per figure,
 * --fail-if parsing and whether a limit is exceeded. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "report/compare.h"

static double pct(double a, double b) {
    double p = -12345;
    if (cmp_pct_change(a, b, &p) != 0) fail_msg("cmp_pct_change(%g, %g) returned n/a", a, b);
    return p;
}

static void test_pct_change(void **state) {
    (void)state;
    assert_true(pct(1000, 950) == -5.0);
    assert_true(pct(100, 125) == 25.0);
    assert_true(pct(1.0, 1.1) == 10.0);          /* rounded: not 10.000000000000009 */
    assert_true(pct(0.2, 0.25) == 25.0);
    assert_true(pct(4, 4) == 0.0);
    assert_true(pct(3, 0) == -100.0);
    assert_true(pct(2, 6) == 200.0);
    assert_true(!signbit(pct(0.3, 0.3)));        /* no "-0" */
    double p = 7;
    assert_int_equal(cmp_pct_change(0, 5, &p), -1);
    assert_int_equal(cmp_pct_change(0, 0, &p), -1);
    assert_int_equal(cmp_pct_change(0, -1, &p), -1);
    assert_true(p == 7);                          /* untouched */
    assert_int_equal(cmp_pct_change(INFINITY, 1, &p), -1);
    assert_int_equal(cmp_pct_change(1e-310, 1e300, &p), -1);   /* would overflow to inf */
}

static void test_fmt_pct(void **state) {
    (void)state;
    char buf[32];
    cmp_fmt_pct(buf, sizeof buf, 1000, 950, 1);
    assert_string_equal(buf, "-5.0%");
    cmp_fmt_pct(buf, sizeof buf, 0.2, 0.25, 1);
    assert_string_equal(buf, "+25.0%");
    cmp_fmt_pct(buf, sizeof buf, 3, 4, 2);
    assert_string_equal(buf, "+33.33%");
    cmp_fmt_pct(buf, sizeof buf, 5, 5, 1);
    assert_string_equal(buf, "0.0%");
    cmp_fmt_pct(buf, sizeof buf, 0, 5, 1);
    assert_string_equal(buf, "n/a");
    cmp_fmt_pct(buf, sizeof buf, 0, 0, 1);
    assert_string_equal(buf, "n/a");
    assert_null(strstr(buf, "inf"));
}

static void test_figures(void **state) {
    (void)state;
    assert_int_equal(cmp_fig_parse("p95", 3), CMP_P95);
    assert_int_equal(cmp_fig_parse("p95>10%", 3), CMP_P95);
    assert_int_equal(cmp_fig_parse("p99.9", 5), CMP_P999);
    assert_int_equal(cmp_fig_parse("p99_9", 5), CMP_P999);
    assert_int_equal(cmp_fig_parse("p999", 4), CMP_P999);
    assert_int_equal(cmp_fig_parse("rate", 4), CMP_RATE);
    assert_int_equal(cmp_fig_parse("p9", 2), -1);
    assert_int_equal(cmp_fig_parse("p42", 3), -1);
    assert_int_equal(cmp_fig_parse("", 0), -1);
    assert_string_equal(cmp_fig_field(CMP_P999), "p99_9_ms");
    assert_string_equal(cmp_fig_field(CMP_RATE), "rate");
    assert_string_equal(cmp_fig_field(CMP_ERRORS), "errors");
    assert_string_equal(cmp_fig_name(CMP_AVG), "avg");
    for (int f = 0; f < CMP_NFIGS; f++) {       /* every name parses back to itself */
        const char *n = cmp_fig_name((cmp_fig)f);
        assert_int_equal(cmp_fig_parse(n, strlen(n)), f);
    }
}

static void test_direction(void **state) {
    (void)state;
    /* lower is worse: rate and count */
    assert_false(cmp_fig_higher_is_worse(CMP_RATE));
    assert_false(cmp_fig_higher_is_worse(CMP_COUNT));
    assert_true(cmp_is_worse(CMP_RATE, 1000, 950));
    assert_false(cmp_is_worse(CMP_RATE, 950, 1000));
    assert_true(cmp_is_worse(CMP_COUNT, 10, 9));
    /* higher is worse: errors and every latency */
    const cmp_fig hi[] = {CMP_ERRORS, CMP_MIN, CMP_AVG, CMP_P50, CMP_P80, CMP_P90, CMP_P95,
                          CMP_P99, CMP_P999, CMP_MAX, CMP_STDEV};
    for (size_t i = 0; i < sizeof hi / sizeof hi[0]; i++) {
        assert_true(cmp_fig_higher_is_worse(hi[i]));
        assert_true(cmp_is_worse(hi[i], 1.0, 1.5));
        assert_false(cmp_is_worse(hi[i], 1.5, 1.0));
        assert_false(cmp_is_worse(hi[i], 1.0, 1.0));
    }
    assert_true(cmp_is_worse(CMP_ERRORS, 0, 3));    /* zero base: still worse */
    assert_false(cmp_is_worse(CMP_RATE, 0, 3));
}

static cmp_limit limit_ok(const char *s) {
    cmp_limit l;
    char err[512];
    if (cmp_limit_parse(s, &l, err, sizeof err) != 0) fail_msg("%s: %s", s, err);
    return l;
}

static void test_limit_parse(void **state) {
    (void)state;
    cmp_limit l = limit_ok("p95>10%");
    assert_int_equal(l.fig, CMP_P95);
    assert_int_equal(l.op, '>');
    assert_false(l.or_equal);
    assert_true(l.pct == 10.0);
    assert_string_equal(l.text, "p95>10%");
    l = limit_ok("rate<-5%");
    assert_int_equal(l.fig, CMP_RATE);
    assert_int_equal(l.op, '<');
    assert_true(l.pct == -5.0);
    assert_string_equal(l.text, "rate<-5%");
    l = limit_ok(" p99.9 >= 2.5 % ");
    assert_int_equal(l.fig, CMP_P999);
    assert_true(l.or_equal);
    assert_true(l.pct == 2.5);
    assert_string_equal(l.text, "p99.9>=2.5%");
    l = limit_ok("errors>0%");
    assert_int_equal(l.fig, CMP_ERRORS);
    l = limit_ok("count<=-1.5%");
    assert_int_equal(l.fig, CMP_COUNT);
    assert_true(l.pct == -1.5);
    l = limit_ok("avg>+3%");
    assert_true(l.pct == 3.0);
    l = limit_ok("max>.5%");
    assert_true(l.pct == 0.5);
}

static void test_limit_parse_errors(void **state) {
    (void)state;
    const char *bad[] = {
        "", "p95", "p95>", "p95>%", "p95>10", "p95>10ms", "p95 10%", "p95=10%", "p42>10%", "latency>10%",
        ">10%", "p95>10%x", "p95>1e3%", "p95>inf%", "p95>nan%", "p95>-%", "p95>>10%",
        "p95<-10%",        /* wrong way: a lower p95 is better */
        "errors<5%",       /* wrong way */
        "rate>-5%",        /* wrong way: a higher rate is better (the typo of rate<-5%) */
        "count>5%",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cmp_limit l;
        char err[512] = "";
        if (cmp_limit_parse(bad[i], &l, err, sizeof err) == 0) fail_msg("'%s' was accepted", bad[i]);
        assert_true(strlen(err) > 0);
    }
    cmp_limit l;
    char err[512];
    assert_int_equal(cmp_limit_parse("rate>-5%", &l, err, sizeof err), -1);
    assert_non_null(strstr(err, "rate<-PCT%"));      /* the message says which way */
    assert_int_equal(cmp_limit_parse("p95>10", &l, err, sizeof err), -1);
    assert_non_null(strstr(err, "%"));
    assert_int_equal(cmp_limit_parse("p42>10%", &l, err, sizeof err), -1);
    assert_non_null(strstr(err, "p42"));
}

static void test_limit_exceeded(void **state) {
    (void)state;
    cmp_limit p95 = limit_ok("p95>10%");
    assert_false(cmp_limit_exceeded(&p95, 1.0, 1.05));
    assert_false(cmp_limit_exceeded(&p95, 1.0, 1.1));      /* exactly 10 %: not past */
    assert_true(cmp_limit_exceeded(&p95, 1.0, 1.1001));
    assert_true(cmp_limit_exceeded(&p95, 0.2, 0.25));
    assert_false(cmp_limit_exceeded(&p95, 1.0, 0.5));      /* better */
    cmp_limit p95e = limit_ok("p95>=10%");
    assert_true(cmp_limit_exceeded(&p95e, 1.0, 1.1));

    cmp_limit rate = limit_ok("rate<-5%");
    assert_false(cmp_limit_exceeded(&rate, 1000, 950));     /* exactly -5 % */
    assert_true(cmp_limit_exceeded(&rate, 1000, 949));
    assert_false(cmp_limit_exceeded(&rate, 1000, 1200));
    assert_true(cmp_limit_exceeded(&rate, 1000, 0));

    /* zero bases: n/a, decided by the direction of the change */
    cmp_limit err = limit_ok("errors>50%");
    assert_false(cmp_limit_exceeded(&err, 0, 0));
    assert_true(cmp_limit_exceeded(&err, 0, 3));            /* 0 -> 3 errors: +infinity */
    assert_false(cmp_limit_exceeded(&err, 4, 6));           /* +50 %: not past */
    assert_true(cmp_limit_exceeded(&err, 4, 7));
    assert_false(cmp_limit_exceeded(&rate, 0, 0));
    assert_false(cmp_limit_exceeded(&rate, 0, 100));        /* from nothing to something */
    cmp_limit zero = limit_ok("errors>0%");
    assert_false(cmp_limit_exceeded(&zero, 0, 0));
    assert_true(cmp_limit_exceeded(&zero, 0, 1));
    assert_true(cmp_limit_exceeded(&zero, 10, 11));
    assert_false(cmp_limit_exceeded(&zero, 10, 10));
    cmp_limit improve = limit_ok("p95>-20%");               /* B must be 20 % faster */
    assert_true(cmp_limit_exceeded(&improve, 1.0, 0.9));
    assert_false(cmp_limit_exceeded(&improve, 1.0, 0.8));
    assert_true(cmp_limit_exceeded(&improve, 0, 0));        /* 0 % > -20 % */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pct_change),   cmocka_unit_test(test_fmt_pct),
        cmocka_unit_test(test_figures),      cmocka_unit_test(test_direction),
        cmocka_unit_test(test_limit_parse),  cmocka_unit_test(test_limit_parse_errors),
        cmocka_unit_test(test_limit_exceeded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
