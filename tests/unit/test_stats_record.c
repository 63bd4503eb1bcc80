/* test_stats_record.c - stats_record_n (src/stats/local.c), the engine's
 * one-index record of a transaction under All Transactions, its group and
 * its stage, leaves every timer exactly as stats_record does one timer at a
 * time: the same counts at every histogram index, total, min, max, lo/hi
 * index, not-ok histogram, errors and cancellations, for successes across
 * the whole range (0, sub-microsecond rounding, every bucket boundary, the
 * highest trackable value and beyond it), failures and cancellations.
 * stats_record_count (count samples of one value: a redis pipeline's
 * replies of one read) leaves a timer as count calls of stats_record. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "stats/hist.h"
#include "stats/local.h"

static void expect_same_hist(const hist *want, const hist *got) {
    if (want == NULL) {
        assert_null(got);
        return;
    }
    assert_non_null(got);
    assert_int_equal(got->total, want->total);
    assert_int_equal(got->min_us, want->min_us);
    assert_int_equal(got->max_us, want->max_us);
    assert_int_equal(got->lo_idx, want->lo_idx);
    assert_int_equal(got->hi_idx, want->hi_idx);
    assert_int_equal(got->not_ok, want->not_ok);
    for (int32_t i = 0; i < HIST_COUNTS_LEN; i++)
        if (hist_count_at(got, i) != hist_count_at(want, i)) fail_msg("index %d: %lld, want %lld", i,
                                                                      (long long)hist_count_at(got, i),
                                                                      (long long)hist_count_at(want, i));
}

static void expect_same_timer(const stat_timer *want, const stat_timer *got) {
    expect_same_hist(want->h, got->h);
    expect_same_hist(want->nok, got->nok);
    assert_int_equal(got->errors, want->errors);
    assert_int_equal(got->cancelled, want->cancelled);
}

static void test_record_n_equals_record(void **state) {
    (void)state;
    stats_local s;
    assert_int_equal(stats_local_init(&s), 0);
    int one = stats_timer_id(&s, "one at a time", TK_ALL);
    int ids[3] = {stats_timer_id(&s, "all", TK_ALL), stats_timer_id(&s, "group", TK_GROUP),
                  stats_timer_id(&s, "stage", TK_GROUP)};
    assert_true(one >= 0 && ids[0] >= 0 && ids[1] >= 0 && ids[2] >= 0);
    int two = stats_timer_id(&s, "one at a time, two", TK_ALL);
    int pair[2] = {stats_timer_id(&s, "pair a", TK_ALL), stats_timer_id(&s, "pair b", TK_GROUP)};
    assert_true(two >= 0 && pair[0] >= 0 && pair[1] >= 0);

    /* successes over the whole range: every power of two and its
     * neighbours (each bucket's edges), sub-µs rounding, 0, and past the
     * highest trackable value (clamped, counted apart) */
    int64_t us_values[] = {0, 1, 2, 999, 1000, 1023, 1024, 2047, 2048, 2049, 123456,
                           HIST_HIGHEST_US - 1, HIST_HIGHEST_US, HIST_HIGHEST_US + 1, HIST_HIGHEST_US * 4};
    int ns_values[] = {0, 1, 499, 500, 501, 999};
    for (size_t i = 0; i < sizeof us_values / sizeof us_values[0]; i++)
        for (size_t j = 0; j < sizeof ns_values / sizeof ns_values[0]; j++) {
            int64_t dur_ns = us_values[i] * 1000 + ns_values[j];
            stats_record(&s, one, dur_ns, SAMPLE_OK);
            stats_record_n(&s, ids, 3, dur_ns, SAMPLE_OK);
        }
    for (int b = 0; b < 62; b++)
        for (int64_t d = -1; d <= 1; d++) {
            int64_t dur_ns = ((int64_t)1 << b) + d;
            if (dur_ns < 0) continue;
            stats_record(&s, two, dur_ns, SAMPLE_OK);
            stats_record_n(&s, pair, 2, dur_ns, SAMPLE_OK);
        }
    /* failures and cancellations: counted and in the not-ok histogram */
    for (int k = 0; k < 5; k++) {
        stats_record(&s, one, 7000000 + k, SAMPLE_FAILED);
        stats_record_n(&s, ids, 3, 7000000 + k, SAMPLE_FAILED);
        stats_record(&s, one, 300 * k, SAMPLE_CANCELLED);
        stats_record_n(&s, ids, 3, 300 * k, SAMPLE_CANCELLED);
    }
    assert_true(s.timers[one].h && s.timers[one].h->total > 0 && s.timers[one].nok);
    assert_true(s.timers[one].errors == 5 && s.timers[one].cancelled == 5);
    for (int i = 0; i < 3; i++) expect_same_timer(&s.timers[one], &s.timers[ids[i]]);
    for (int i = 0; i < 2; i++) expect_same_timer(&s.timers[two], &s.timers[pair[i]]);
    stats_local_free(&s);
}

static void test_record_count_equals_record(void **state) {
    (void)state;
    stats_local s;
    assert_int_equal(stats_local_init(&s), 0);
    int one = stats_timer_id(&s, "one at a time", TK_PRIMITIVE);
    int many = stats_timer_id(&s, "counted", TK_PRIMITIVE);
    assert_true(one >= 0 && many >= 0);
    int64_t durs[] = {0, 499, 1500, 2047999, (int64_t)HIST_HIGHEST_US * 1000, (int64_t)HIST_HIGHEST_US * 4000};
    int oks[] = {SAMPLE_OK, SAMPLE_FAILED, SAMPLE_CANCELLED};
    for (size_t i = 0; i < sizeof durs / sizeof durs[0]; i++)
        for (int k = 0; k < 3; k++) {
            int64_t count = (int64_t)(i * 3 + (size_t)k) % 7 + 1;
            for (int64_t c = 0; c < count; c++) stats_record(&s, one, durs[i], oks[k]);
            stats_record_count(&s, many, durs[i], oks[k], count);
        }
    stats_record_count(&s, many, 1000, SAMPLE_OK, 0);       /* nothing */
    assert_true(s.timers[one].errors > 0 && s.timers[one].cancelled > 0);
    expect_same_timer(&s.timers[one], &s.timers[many]);
    stats_local_free(&s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record_n_equals_record),
        cmocka_unit_test(test_record_count_equals_record),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
