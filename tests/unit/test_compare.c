/* test_compare.c - `luamech compare` arithmetic: percent change (zero bases
 * are "n/a", never inf or nan), the direction of a regression per figure,
 * --fail-if parsing (percent, absolute amounts, floors) and whether a limit
 * is exceeded, and the statistics of sets of runs (median, Mann-Whitney U
 * p-values checked against values enumerated by hand / with Python's
 * itertools). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "cmd/compare.h"

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
    assert_int_equal(cmp_fig_parse("cancelled", 9), -1);    /* in the table, not comparable */
    assert_int_equal(cmp_fig_parse("p95_ms", 6), -1);        /* a key, not a name */
    for (int f = 0; f < CMP_NFIGS; f++) {       /* every name parses back to itself */
        if (!cmp_fig_comparable(f)) continue;
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
    /* an exponent: out of range, or written without it; never "put % after the number" */
    assert_int_equal(cmp_limit_parse("p95>1e999%", &l, err, sizeof err), -1);
    assert_non_null(strstr(err, "the number is out of range"));
    assert_int_equal(cmp_limit_parse("p95>-1E+400%", &l, err, sizeof err), -1);
    assert_non_null(strstr(err, "the number is out of range"));
    assert_int_equal(cmp_limit_parse("p95>1e3%", &l, err, sizeof err), -1);
    assert_non_null(strstr(err, "without an exponent"));
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

/* A limit's normalised text parses again to the same limit (found by
 * fuzz_compare: 'p99>=+25000000000000s' became 'p99>=+25000000000000000ms',
 * 17 digits, which the parser refuses; '123456789012.345%' was written
 * with six decimals, '123456789012.345001%'). */
static void test_limit_text_parses_back(void **state) {
    (void)state;
    const char *ok[] = {"p95>123456789012.345%", "p95>+123456789.012345s", "p99>=+999999999999ms",
                        "p50>1.5%,floor=123456789.012345s", "rate<-999999999999.5/s", "p95>+0.000123456789us",
                        "errors>+1000000000000"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        cmp_limit l = limit_ok(ok[i]), again = limit_ok(l.text);
        double v = l.absolute ? l.amount : l.pct, w = again.absolute ? again.amount : again.pct;
        if (fabs(v - w) > 1e-6 * fmax(1, fabs(v)) || again.absolute != l.absolute || again.floor != l.floor ||
            strcmp(again.text, l.text) != 0)
            fail_msg("%s: text %s parses to %s", ok[i], l.text, again.text);
    }
    const char *big[] = {"p99>=+25000000000000s", "p95>+1000000000001ms", "p50>10%,floor=25000000000000s",
                         "count<-1000000000001"};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        cmp_limit l;
        char err[512] = "";
        if (cmp_limit_parse(big[i], &l, err, sizeof err) == 0) fail_msg("'%s' was accepted as %s", big[i], l.text);
        assert_non_null(strstr(err, "too large"));
    }
    cmp_unit u;
    double v;
    char err[512];
    assert_int_equal(cmp_amount_parse("1000000000001", &u, &v, err, sizeof err), -1);
    assert_non_null(strstr(err, "at most 1000000000000"));
    assert_int_equal(cmp_amount_parse("1000000000000", &u, &v, err, sizeof err), 0);
}

static void test_limit_parse_absolute(void **state) {
    (void)state;
    cmp_limit l = limit_ok("p95>+2ms");
    assert_int_equal(l.fig, CMP_P95);
    assert_true(l.absolute);
    assert_true(l.amount == 2.0);
    assert_false(l.has_floor);
    assert_string_equal(l.text, "p95>+2ms");
    l = limit_ok("p99>=+250us");
    assert_true(l.or_equal && l.absolute && l.amount == 0.25);
    assert_string_equal(l.text, "p99>=+0.25ms");
    l = limit_ok("max>+1s");
    assert_true(l.amount == 1000.0);
    l = limit_ok("p95>-1ms");                     /* B must be 1 ms faster */
    assert_true(l.amount == -1.0);
    l = limit_ok("rate<-500/s");
    assert_int_equal(l.fig, CMP_RATE);
    assert_true(l.absolute && l.amount == -500.0);
    assert_string_equal(l.text, "rate<-500/s");
    l = limit_ok("errors>+10");
    assert_true(l.absolute && l.amount == 10.0);
    assert_string_equal(l.text, "errors>+10");
    l = limit_ok("count<-1000");
    assert_true(l.absolute && l.amount == -1000.0);
    l = limit_ok("p50>10%,floor=1ms");
    assert_false(l.absolute);
    assert_true(l.pct == 10.0 && l.has_floor && l.floor == 1.0);
    assert_string_equal(l.text, "p50>10%,floor=1ms");
    l = limit_ok("p50>10%,floor=500us");
    assert_true(l.floor == 0.5);
    assert_string_equal(l.text, "p50>10%,floor=0.5ms");
    l = limit_ok("rate<-5%,floor=50/s");
    assert_true(l.floor == 50.0);
    assert_string_equal(l.text, "rate<-5%,floor=50/s");
    l = limit_ok("errors>50%,floor=5");
    assert_string_equal(l.text, "errors>50%,floor=5");
    /* --floor: the limit's own floor wins */
    l = limit_ok("p95>10%");
    cmp_limit_default_floor(&l, 2.0);
    assert_string_equal(l.text, "p95>10%,floor=2ms");
    l = limit_ok("p95>10%,floor=1ms");
    cmp_limit_default_floor(&l, 2.0);
    assert_true(l.floor == 1.0);

    const char *bad[] = {
        "p95>2ms",          /* an absolute change takes its sign */
        "rate<500/s", "errors>10",
        "p95>+2", "p95>+2/s", "rate<-500ms", "rate<-500", "errors>+2ms", "count<-5/s",
        "p95>+2msx", "p95>+2 xs", "p95>+2mss",
        "p95<-2ms",         /* wrong way */
        "rate>+500/s",
        "p95>10%,floor=1", "p95>10%,floor=1/s", "rate<-5%,floor=1ms", "p95>10%,floor=-1ms",
        "p95>10%,floor=+1ms", "p95>10%,floor=0ms", "p95>10%,floor=", "p95>10%,flor=1ms", "p95>10%,",
        "p95>10%,floor=1ms,floor=2ms", "p95>10%floor=1ms",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cmp_limit b;
        char err[512] = "";
        if (cmp_limit_parse(bad[i], &b, err, sizeof err) == 0) fail_msg("'%s' was accepted", bad[i]);
        assert_true(strlen(err) > 0);
    }
    char err[512];
    assert_int_equal(cmp_limit_parse("p95>2ms", &l, err, sizeof err), -1);
    assert_non_null(strstr(err, "'p95>+2ms'"));       /* says how to write it */
    assert_int_equal(cmp_limit_parse("rate<-500ms", &l, err, sizeof err), -1);
    assert_non_null(strstr(err, "/s"));
}

static void test_amount_parse(void **state) {
    (void)state;
    cmp_unit u;
    double v;
    char err[256];
    assert_int_equal(cmp_amount_parse("1ms", &u, &v, err, sizeof err), 0);
    assert_true(u == CMP_UNIT_MS && v == 1.0);
    assert_int_equal(cmp_amount_parse("250us", &u, &v, err, sizeof err), 0);
    assert_true(u == CMP_UNIT_MS && v == 0.25);
    assert_int_equal(cmp_amount_parse("0.5s", &u, &v, err, sizeof err), 0);
    assert_true(u == CMP_UNIT_MS && v == 500.0);
    assert_int_equal(cmp_amount_parse("50/s", &u, &v, err, sizeof err), 0);
    assert_true(u == CMP_UNIT_RATE && v == 50.0);
    assert_int_equal(cmp_amount_parse("10", &u, &v, err, sizeof err), 0);
    assert_true(u == CMP_UNIT_COUNT && v == 10.0);
    const char *bad[] = {"", "ms", "-1ms", "+1ms", "0ms", "0", "1xs", "1 ms x", "1e3ms", "inf"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (cmp_amount_parse(bad[i], &u, &v, err, sizeof err) == 0) fail_msg("'%s' was accepted", bad[i]);
}

static void test_limit_exceeded_absolute(void **state) {
    (void)state;
    cmp_limit p95 = limit_ok("p95>+2ms");
    assert_false(cmp_limit_exceeded(&p95, 1.0, 3.0));         /* exactly +2 ms: not past */
    assert_true(cmp_limit_exceeded(&p95, 1.0, 3.001));
    assert_false(cmp_limit_exceeded(&p95, 0.2, 2.2));         /* 2.0000000000000004: rounded, not past */
    assert_false(cmp_limit_exceeded(&p95, 0.1, 0.217));       /* +117 % but +0.117 ms */
    assert_false(cmp_limit_exceeded(&p95, 5.0, 1.0));
    assert_true(cmp_limit_exceeded(&p95, 0, 2.5));            /* a zero base is no special case */
    cmp_limit rate = limit_ok("rate<-500/s");
    assert_false(cmp_limit_exceeded(&rate, 1000, 500));       /* exactly -500/s */
    assert_true(cmp_limit_exceeded(&rate, 1000, 499.5));
    assert_false(cmp_limit_exceeded(&rate, 1000, 2000));
    cmp_limit errs = limit_ok("errors>=+10");
    assert_true(cmp_limit_exceeded(&errs, 0, 10));
    assert_false(cmp_limit_exceeded(&errs, 3, 12));

    /* floors: changes for the worse under the floor are ignored */
    cmp_limit fl = limit_ok("p50>10%,floor=1ms");
    assert_false(cmp_limit_exceeded(&fl, 0.1, 0.217));        /* the noise case: +117 %, +0.117 ms */
    assert_false(cmp_limit_exceeded(&fl, 0.4, 1.3));          /* +225 %, +0.9 ms */
    assert_true(cmp_limit_exceeded(&fl, 0.2, 1.2));           /* +500 %, +1 ms (1.2 - 0.2 rounded) */
    assert_true(cmp_limit_exceeded(&fl, 0.5, 1.6));
    assert_false(cmp_limit_exceeded(&fl, 20.0, 21.5));        /* +1.5 ms but +7.5 % */
    cmp_limit ef = limit_ok("errors>50%,floor=5");
    assert_false(cmp_limit_exceeded(&ef, 0, 3));              /* zero base, +3 < 5 */
    assert_true(cmp_limit_exceeded(&ef, 0, 5));
    cmp_limit rf = limit_ok("rate<-5%,floor=50/s");
    assert_false(cmp_limit_exceeded(&rf, 500, 460));          /* -8 %, -40/s */
    assert_true(cmp_limit_exceeded(&rf, 1000, 900));
    cmp_limit improve = limit_ok("p95>-20%,floor=1ms");       /* only a change for the worse of 1 ms counts */
    assert_false(cmp_limit_exceeded(&improve, 1.0, 1.0));
    assert_true(cmp_limit_exceeded(&improve, 1.0, 2.0));
}

static void test_median(void **state) {
    (void)state;
    double a[] = {3, 1, 2}, b[] = {4, 1, 3, 2}, c[] = {7};
    assert_true(cmp_median(a, 3) == 2.0);
    assert_true(cmp_median(b, 4) == 2.5);
    assert_true(cmp_median(c, 1) == 7.0);
    assert_true(isnan(cmp_median(c, 0)));
}

static void assert_p(double got, double want) {
    if (!(fabs(got - want) < 1e-12)) fail_msg("p %.15g, expected %.15g", got, want);
}

static void test_mwu(void **state) {
    (void)state;
    /* fully separated: only 1 of C(6,3) = 20 splits puts B's three on top */
    const double a3[] = {1, 2, 3}, b3[] = {4, 5, 6}, lo3[] = {0.1, 0.2, 0.3};
    assert_p(cmp_mwu_p(a3, 3, b3, 3, 1), 1.0 / 20);
    assert_p(cmp_mwu_p(a3, 3, lo3, 3, 1), 1.0);           /* B better: every split is at least as bad */
    assert_p(cmp_mwu_p(a3, 3, lo3, 3, 0), 1.0 / 20);      /* lower is worse (rates): B worse */
    const double a4[] = {1, 2, 3, 4}, b4[] = {5, 6, 7, 8};
    assert_p(cmp_mwu_p(a4, 4, b4, 4, 1), 1.0 / 70);
    /* overlap, and ties (counted as 1/2; enumerated with itertools): */
    const double a5[] = {1, 2, 4}, b5[] = {3, 5, 6};
    assert_p(cmp_mwu_p(a5, 3, b5, 3, 1), 2.0 / 20);
    const double a6[] = {1, 2, 2}, b6[] = {2, 3, 4};
    assert_p(cmp_mwu_p(a6, 3, b6, 3, 1), 3.0 / 20);
    const double a7[] = {1, 2, 2, 5}, b7[] = {2, 3, 4, 4, 6};
    assert_p(cmp_mwu_p(a7, 4, b7, 5, 1), 14.0 / 126);
    const double same[] = {1, 1, 1};
    assert_p(cmp_mwu_p(same, 3, same, 3, 1), 1.0);        /* no difference at all */
    assert_true(isnan(cmp_mwu_p(a3, 3, b3, 0, 1)));
    /* large sets: the normal approximation (C(40, 20) splits) */
    double x[20], y[20];
    for (int i = 0; i < 20; i++) x[i] = i, y[i] = 100 + i;
    assert_true(cmp_mwu_p(x, 20, y, 20, 1) < 1e-6);
    assert_true(cmp_mwu_p(y, 20, x, 20, 1) > 0.999999);
    for (int i = 0; i < 20; i++) x[i] = 2 * i, y[i] = 2 * i + 1;   /* interleaved */
    double p = cmp_mwu_p(x, 20, y, 20, 1);
    assert_true(p > 0.3 && p < 0.6);
    double z[20];
    for (int i = 0; i < 20; i++) z[i] = 5;
    assert_p(cmp_mwu_p(z, 20, z, 20, 1), 1.0);
    /* the smallest p: 1 / C(na + nb, na) */
    assert_p(cmp_mwu_min_p(3, 3), 0.05);
    assert_p(cmp_mwu_min_p(2, 2), 1.0 / 6);
    assert_p(cmp_mwu_min_p(1, 19), 0.05);
    assert_p(cmp_mwu_min_p(5, 5), 1.0 / 252);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pct_change),   cmocka_unit_test(test_fmt_pct),
        cmocka_unit_test(test_figures),      cmocka_unit_test(test_direction),
        cmocka_unit_test(test_limit_parse),  cmocka_unit_test(test_limit_parse_errors),
        cmocka_unit_test(test_limit_exceeded),
        cmocka_unit_test(test_limit_parse_absolute), cmocka_unit_test(test_amount_parse),
        cmocka_unit_test(test_limit_text_parses_back),
        cmocka_unit_test(test_limit_exceeded_absolute), cmocka_unit_test(test_median),
        cmocka_unit_test(test_mwu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
