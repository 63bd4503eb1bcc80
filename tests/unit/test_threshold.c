/* test_threshold.c - criterion parsing: subjects, statistics, operators,
 * units, errors; comparison semantics; and evaluation on counters and
 * gauges (count, value, rate per second of the run; what does not apply). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "stats/threshold.h"

static threshold parse_ok(const char *s) {
    threshold t;
    char err[512];
    int rc = threshold_parse(s, &t, err, sizeof err);
    if (rc != 0) fail_msg("%s: %s", s, err);
    return t;
}

static void test_parse(void **state) {
    (void)state;
    threshold t = parse_ok("GET p95 < 5ms");
    assert_string_equal(t.timer, "GET");
    assert_int_equal(t.stat, TH_LATENCY);
    assert_int_equal(t.fig, FIG_P95);
    assert_int_equal(t.op, TH_LT);
    assert_true(t.limit == 5.0);
    t = parse_ok("All Transactions p99.9 <= 0.25s");
    assert_string_equal(t.timer, "All Transactions");
    assert_int_equal(t.stat, TH_LATENCY);
    assert_int_equal(t.fig, FIG_P999);
    assert_true(t.limit == 250.0);
    t = parse_ok("memcached.get max > 300us");
    assert_true(t.limit == 0.3);
    assert_int_equal(t.op, TH_GT);
    t = parse_ok("errors rate < 0.1%");
    assert_string_equal(t.timer, "All Transactions");
    assert_int_equal(t.stat, TH_ERROR_RATE);
    t = parse_ok("checks rate > 99.9%");
    assert_int_equal(t.stat, TH_CHECKS_RATE);
    t = parse_ok("transactions rate >= 1000/s");
    assert_string_equal(t.timer, "All Transactions");
    assert_int_equal(t.stat, TH_RATE);
    assert_int_equal(t.op, TH_GE);
    t = parse_ok("SET count == 12");
    assert_int_equal(t.stat, TH_COUNT);
    assert_int_equal(t.op, TH_EQ);
    t = parse_ok("SET errors == 0");
    assert_int_equal(t.stat, TH_ERRORS);
    t = parse_ok("GET errors rate <= 5%");
    assert_string_equal(t.timer, "GET");
    assert_int_equal(t.stat, TH_ERROR_RATE);
    t = parse_ok("GET avg < 2");
    assert_true(t.limit == 2.0);            /* a bare number of ms */
}

static void test_parse_errors(void **state) {
    (void)state;
    const char *bad[] = {"", "GET", "GET p95", "GET p95 <", "GET p42 < 5ms", "GET p95 ~ 5ms",
                         "GET p95 < 5 ms", "GET p95 < 5kg", "errors rate < 0.1", "checks rate > 99",
                         "GET count == 3/s", "GET rate > 10/m"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        threshold t;
        char err[512] = "";
        if (threshold_parse(bad[i], &t, err, sizeof err) == 0) fail_msg("accepted: '%s'", bad[i]);
        assert_non_null(strstr(err, "threshold"));
    }
}

/* A view suffix is parsed off the subject (also after a tag selector); no
 * suffix is the default view; "transactions" maps before the suffix. */
static void test_parse_views(void **state) {
    (void)state;
    static const struct { const char *text, *timer, *family; timer_view view; } cases[] = {
        {"GET p95 < 5ms", "GET", "GET", TV_DEFAULT},
        {"GET (all) p99 < 500ms", "GET (all)", "GET", TV_ALL},
        {"http login (uncorrected) p95 < 1s", "http login (uncorrected)", "http login", TV_UNCORRECTED},
        {"GET (default) p95 < 1s", "GET (default)", "GET", TV_DEFAULT},
        {"transactions (all) p99 < 1s", "All Transactions (all)", "All Transactions", TV_ALL},
        {"All Transactions (uncorrected) p99 < 1s", "All Transactions (uncorrected)", "All Transactions", TV_UNCORRECTED},
        {"group a (uncorrected) (all) count > 0", "group a (uncorrected) (all)", "group a (uncorrected)", TV_ALL},
        {"GET (ALL) p95 < 1s", "GET (ALL)", "GET (ALL)", TV_DEFAULT},          /* not a view word: a name */
        {"GET (mine) p95 < 1s", "GET (mine)", "GET (mine)", TV_DEFAULT},
        {"GET(all) p95 < 1s", "GET(all)", "GET(all)", TV_DEFAULT},             /* no space: a name */
        {"(all) p95 < 1s", "All Transactions (all)", "All Transactions", TV_ALL},   /* no subject: All Transactions */
        {"p95 < 1s", "All Transactions", "All Transactions", TV_DEFAULT},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        threshold t = parse_ok(cases[i].text);
        assert_string_equal(t.timer, cases[i].timer);
        assert_string_equal(t.family, cases[i].family);
        assert_int_equal(t.view, cases[i].view);
        assert_int_equal(t.ntags, 0);
    }
    threshold t = parse_ok("http{flow:shop} (all) p99 < 1s");     /* a selector, then a view */
    assert_string_equal(t.timer, "http{flow:shop} (all)");
    assert_string_equal(t.family, "http{flow:shop}");
    assert_int_equal(t.view, TV_ALL);
    assert_int_equal(t.ntags, 1);
    assert_string_equal(t.base, "http");
    assert_string_equal(t.tag_k[0], "flow");
    assert_string_equal(t.tag_v[0], "shop");
    t = parse_ok("http.*{kind=api} (uncorrected) errors rate < 1%");
    assert_int_equal(t.view, TV_UNCORRECTED);
    assert_int_equal(t.stat, TH_ERROR_RATE);
    assert_string_equal(t.base, "http.*");
    t = parse_ok("checks rate > 99%");
    assert_int_equal(t.stat, TH_CHECKS_RATE);
}

static void test_compare(void **state) {
    (void)state;
    threshold t = parse_ok("x p50 < 5ms");
    assert_true(threshold_passes(&t, 4.999));
    assert_false(threshold_passes(&t, 5));
    t = parse_ok("x p50 <= 5ms");
    assert_true(threshold_passes(&t, 5));
    assert_false(threshold_passes(&t, 5.001));
    t = parse_ok("x p50 > 5ms");
    assert_false(threshold_passes(&t, 5));
    t = parse_ok("x p50 >= 5ms");
    assert_true(threshold_passes(&t, 5));
    t = parse_ok("x count == 7");
    assert_true(threshold_passes(&t, 7));
    assert_false(threshold_passes(&t, 8));
    assert_string_equal(threshold_unit(&t), "");
    t = parse_ok("x rate > 1/s");
    assert_string_equal(threshold_unit(&t), "/s");
}

static void test_eval_metrics(void **state) {
    (void)state;
    double v;
    th_input in;
    memset(&in, 0, sizeof in);
    in.has_metric = 1, in.metric = 6, in.run_span_s = 2;
    threshold t = parse_ok("grpc.status.OK rate > 1/s");          /* a counter's rate: total / span */
    assert_int_equal(threshold_eval(&t, &in, &v), TH_MEASURED);
    assert_true(v == 3);
    t = parse_ok("hits count == 6");
    assert_int_equal(threshold_eval(&t, &in, &v), TH_MEASURED);
    assert_true(v == 6);
    t = parse_ok("hits p95 < 1ms");                                 /* does not apply, says why */
    assert_int_equal(threshold_eval(&t, &in, &v), TH_NOT_APPLICABLE);
    assert_non_null(strstr(threshold_applies(&t, &in), "a counter"));
    in.metric_gauge = 1;                                            /* a gauge has no rate per second */
    t = parse_ok("queue rate > 1/s");
    assert_int_equal(threshold_eval(&t, &in, &v), TH_NOT_APPLICABLE);
    assert_non_null(strstr(threshold_applies(&t, &in), "a gauge"));
    memset(&in, 0, sizeof in);                                      /* no data at all */
    t = parse_ok("http.status_5xx count == 0");
    assert_int_equal(threshold_eval(&t, &in, &v), TH_NO_DATA);
    t.subject_kind = TH_SUBJ_COUNTER;                               /* known, never moved: 0 */
    assert_int_equal(threshold_eval(&t, &in, &v), TH_MEASURED);
    assert_true(v == 0 && threshold_passes(&t, v));
    t = parse_ok("http.wait p95 < 1ms");
    t.subject_kind = TH_SUBJ_TIMER;                                 /* known timer without samples */
    assert_int_equal(threshold_eval(&t, &in, &v), TH_NO_DATA);
    assert_int_equal(threshold_subject_kind_parse(threshold_subject_kind_name(TH_SUBJ_COUNTER)), TH_SUBJ_COUNTER);
    assert_int_equal(threshold_subject_kind_parse(NULL), TH_SUBJ_UNKNOWN);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_parse_views),
        cmocka_unit_test(test_compare),
        cmocka_unit_test(test_eval_metrics),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
