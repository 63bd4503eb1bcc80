/* test_hist.c - unit tests for src/stats/hist.c.
 *
 * Every figure the histogram reports is checked against (a) an exact
 * computation on the sorted raw values (nearest-rank percentiles, exact
 * mean/stdev) with error bounds derived from the layout, and (b) a naive
 * reference model of the HdrHistogram layout written independently here
 * (loop-based, no clz), which must agree exactly.  RNG has a fixed seed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/hist.h"

#define MAX_N 200000

static hist g_h1, g_h2, g_h3;
static int64_t g_raw[MAX_N], g_raw2[MAX_N], g_sorted[MAX_N];

/* ---- fixed-seed RNG (xorshift64*) ---- */
static uint64_t rng_state;
static void rng_seed(uint64_t s) { rng_state = s ? s : 0x9E3779B97F4A7C15ull; }
static uint64_t rng_u64(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}
static double rng_unit(void) /* (0, 1) */
{
    return ((double)(rng_u64() >> 11) + 0.5) * 0x1.0p-53;
}
static int64_t rng_range(int64_t lo, int64_t hi) /* [lo, hi] */
{
    return lo + (int64_t)(rng_u64() % (uint64_t)(hi - lo + 1));
}

/* ---- independent reference model of the layout ---- */
static int ref_shift(int64_t v)
{
    int k = 0;
    while ((v >> k) >= 2048)
        k++;
    return k;
}
static int32_t ref_index(int64_t v) { int k = ref_shift(v); return (int32_t)(k * 1024 + (v >> k)); }
static int64_t ref_lowest(int64_t v) { int k = ref_shift(v); return (v >> k) << k; }
static int64_t ref_highest(int64_t v) { return ref_lowest(v) + ((int64_t)1 << ref_shift(v)) - 1; }
static int64_t ref_median(int64_t v) { return ref_lowest(v) + (((int64_t)1 << ref_shift(v)) >> 1); }

static int64_t clamp_value(int64_t v)
{
    return v < 0 ? 0 : (v > HIST_HIGHEST_US ? HIST_HIGHEST_US : v);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

#define CHECK(cond, ...)                                                    \
    do {                                                                    \
        if (!(cond)) {                                                      \
            print_error("%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
            print_error(__VA_ARGS__);                                       \
            print_error("\n");                                              \
            fail();                                                         \
        }                                                                   \
    } while (0)

/* lo_idx/hi_idx are the exact non-zero range and counts sum to total. */
static void check_invariants(const hist *h, const char *name)
{
    int64_t sum = 0;
    int32_t lo = HIST_COUNTS_LEN, hi = -1;
    for (int32_t i = 0; i < HIST_COUNTS_LEN; i++) {
        CHECK(hist_count_at(h, i) >= 0, "%s: negative count at %d", name, i);
        if (hist_count_at(h, i)) {
            if (lo == HIST_COUNTS_LEN)
                lo = i;
            hi = i;
            sum += hist_count_at(h, i);
        }
    }
    CHECK(sum == h->total, "%s: sum %lld total %lld", name, (long long)sum, (long long)h->total);
    if (h->total) {
        CHECK(h->lo_idx == lo && h->hi_idx == hi, "%s: lo/hi %d/%d want %d/%d",
              name, h->lo_idx, h->hi_idx, lo, hi);
    }
}

/* Percentiles in parts per million, so the nearest rank is integer-exact. */
static const int64_t k_ppm[] = {500000, 800000, 900000, 950000, 990000, 999000,
                                1000000, 1, 1000, 333000, 999900, 999990};

static void check_percentiles(const hist *h, const int64_t *s, int64_t n, const char *name)
{
    for (size_t j = 0; j < sizeof k_ppm / sizeof k_ppm[0]; j++) {
        int64_t rank = (k_ppm[j] * n + 999999) / 1000000;
        if (rank < 1)
            rank = 1;
        int64_t exact = s[rank - 1];
        double p = (double)k_ppm[j] / 10000.0;
        int64_t got = hist_percentile_us(h, p);
        /* Layout bound: a value v >= 2048 shares a bucket of width <= v/1024,
         * below 2048 buckets have width 1. */
        CHECK(got >= exact && got - exact <= exact / 1024,
              "%s p%g: got %lld exact %lld", name, p, (long long)got, (long long)exact);
        CHECK(llabs(got - exact) <= exact / 1000 + 1, "%s p%g 0.1%%", name, p);
        /* HdrHistogram semantics: highest equivalent of the rank's bucket,
         * capped to the exact max; p100 is the max. */
        int64_t want = k_ppm[j] == 1000000 ? s[n - 1] : ref_highest(exact);
        if (want > s[n - 1])
            want = s[n - 1];
        CHECK(got == want, "%s p%g: got %lld want %lld", name, p, (long long)got, (long long)want);
    }
    CHECK(hist_percentile_us(h, 0.0) == s[0], "%s p0", name);
    CHECK(hist_percentile_us(h, 150.0) == s[n - 1], "%s p150", name);
}

static void check_mean_stdev(const hist *h, const int64_t *s, int64_t n, const char *name)
{
    long double sum = 0, rsum = 0, err2 = 0;
    for (int64_t i = 0; i < n; i++) {
        sum += s[i];
        rsum += ref_median(s[i]);
        err2 += ((long double)s[i] / 2048) * ((long double)s[i] / 2048);
    }
    long double mean = sum / n, rmean = rsum / n, var = 0, rvar = 0;
    for (int64_t i = 0; i < n; i++) {
        var += (s[i] - mean) * (s[i] - mean);
        rvar += (ref_median(s[i]) - rmean) * (ref_median(s[i]) - rmean);
    }
    double sd = (double)sqrtl(var / n), rsd = (double)sqrtl(rvar / n);
    double m = hist_mean_us(h), hs = hist_stdev_us(h);
    /* |median_equivalent(v) - v| <= v/2048, so the mean moves by at most
     * mean/2048 and the stdev by at most rms(v/2048) (triangle inequality in
     * L2).  The latter is not always within 0.1% of the stdev (tight clusters
     * of large values), so the derived bound is used for the stdev. */
    CHECK(fabs(m - (double)mean) <= (double)mean / 1000 + 1, "%s mean %.3f exact %.3f",
          name, m, (double)mean);
    CHECK(fabs(m - (double)mean) <= (double)mean / 2048 + 1e-6, "%s mean bound", name);
    CHECK(fabs(hs - sd) <= (double)sqrtl(err2 / n) + 1e-6 * sd + 1e-6,
          "%s stdev %.3f exact %.3f", name, hs, sd);
    CHECK(fabs(m - (double)rmean) <= 1e-9 * (double)rmean + 1e-9, "%s mean %.6f ref %.6f",
          name, m, (double)rmean);
    CHECK(fabs(hs - rsd) <= 1e-6 * rsd + 1e-6 * (double)rmean + 1e-9,
          "%s stdev %.6f ref %.6f", name, hs, rsd);
}

/* Record raw[0..n) and compare every getter with the exact computation. */
static void check_against_exact(const int64_t *raw, int64_t n, const char *name)
{
    int64_t clamped = 0;
    hist_free(&g_h1);
    for (int64_t i = 0; i < n; i++) {
        hist_record_us(&g_h1, raw[i]);
        g_sorted[i] = clamp_value(raw[i]);
        clamped += raw[i] > HIST_HIGHEST_US;
    }
    qsort(g_sorted, (size_t)n, sizeof g_sorted[0], cmp_i64);
    CHECK(g_h1.total == n, "%s total", name);
    CHECK(g_h1.clamped == clamped, "%s clamped %lld want %lld", name,
          (long long)g_h1.clamped, (long long)clamped);
    CHECK(hist_min_us(&g_h1) == g_sorted[0], "%s min", name);
    CHECK(hist_max_us(&g_h1) == g_sorted[n - 1], "%s max", name);
    check_invariants(&g_h1, name);
    check_percentiles(&g_h1, g_sorted, n, name);
    check_mean_stdev(&g_h1, g_sorted, n, name);
}

/* ---- tests ---- */

static void test_uniform_random(void **state)
{
    (void)state;
    rng_seed(1);
    for (int i = 0; i < MAX_N; i++)
        g_raw[i] = rng_range(0, 1000000);
    check_against_exact(g_raw, MAX_N, "uniform 0..1e6");
    for (int i = 0; i < 100000; i++)
        g_raw[i] = rng_range(0, HIST_HIGHEST_US);
    check_against_exact(g_raw, 100000, "uniform 0..1h");
    for (int i = 0; i < 1000; i++)   /* ranks matter exactly below 2048 */
        g_raw[i] = rng_range(1, 1000);
    check_against_exact(g_raw, 1000, "uniform 1..1000 n=1000");
    for (int i = 0; i < 1000; i++)
        g_raw[i] = i + 1;
    check_against_exact(g_raw, 1000, "1..1000 distinct");
    for (int i = 0; i < 10000; i++)
        g_raw[i] = 10000 - i;
    check_against_exact(g_raw, 10000, "1..10000 distinct");
}

static void test_long_tail_random(void **state)
{
    (void)state;
    rng_seed(2);
    for (int i = 0; i < MAX_N; i++)     /* log-uniform over 1 us .. 1 h */
        g_raw[i] = (int64_t)exp(rng_unit() * log((double)HIST_HIGHEST_US));
    check_against_exact(g_raw, MAX_N, "log-uniform 1us..1h");
    for (int i = 0; i < MAX_N; i++)     /* exponential, mean 5 ms */
        g_raw[i] = (int64_t)(-5000.0 * log(rng_unit()));
    check_against_exact(g_raw, MAX_N, "exponential mean 5ms");
    for (int i = 0; i < MAX_N; i++) {   /* Pareto alpha 1.1 from 200 us, tail to 1 h */
        double v = 200.0 / pow(rng_unit(), 1.0 / 1.1);
        g_raw[i] = v > 3.0e9 ? (int64_t)3.0e9 : (int64_t)v;
    }
    check_against_exact(g_raw, MAX_N, "pareto");
}

static void test_adversarial(void **state)
{
    (void)state;
    for (int i = 0; i < 1000; i++)
        g_raw[i] = 123457;
    check_against_exact(g_raw, 1000, "all equal 123457");
    for (int i = 0; i < 1000; i++)
        g_raw[i] = 7;
    check_against_exact(g_raw, 1000, "all equal 7");

    rng_seed(3);
    for (int i = 0; i < 10000; i++)     /* 50/50 far-apart clusters */
        g_raw[i] = i % 2 ? rng_range(95, 105) : rng_range(2999999000, 3000001000);
    check_against_exact(g_raw, 10000, "two clusters 50/50");
    for (int i = 0; i < 10000; i++)     /* 99/1: p99 sits on the cluster edge */
        g_raw[i] = i % 100 ? rng_range(1000, 1010) : rng_range(1000000, 1000500);
    check_against_exact(g_raw, 10000, "two clusters 99/1");
    for (int i = 0; i < 100000; i++)    /* tight cluster of large values */
        g_raw[i] = rng_range(1000000, 1000020);
    check_against_exact(g_raw, 100000, "tight large cluster");

    int n = 0;
    static const int64_t edges[] = {0, 1, 2, 1023, 1024, 1025, 2046, 2047, 2048,
                                    2049, 2050, 4094, 4095, 4096, 4097, 4098};
    for (size_t j = 0; j < sizeof edges / sizeof edges[0]; j++)
        for (int r = 0; r < 3; r++)
            g_raw[n++] = edges[j];
    for (int k = 12; k < 32; k++)
        for (int64_t d = -1; d <= 1; d++)
            g_raw[n++] = ((int64_t)1 << k) + d;
    g_raw[n++] = HIST_HIGHEST_US;
    g_raw[n++] = HIST_HIGHEST_US - 1;
    check_against_exact(g_raw, n, "bucket boundaries");

    static const int64_t singles[] = {0, 1, 2047, 2048, 4095, 4096, 5000,
                                      HIST_HIGHEST_US, -5, HIST_HIGHEST_US + 1};
    for (size_t j = 0; j < sizeof singles / sizeof singles[0]; j++) {
        char name[64];
        snprintf(name, sizeof name, "single %lld", (long long)singles[j]);
        check_against_exact(&singles[j], 1, name);
    }

    for (int i = 0; i < 500; i++)
        g_raw[i] = i % 3 ? 0 : -(int64_t)i;   /* zeros and negatives */
    check_against_exact(g_raw, 500, "zeros and negatives");

    rng_seed(4);
    for (int i = 0; i < 10000; i++) {   /* 5% above the max, clamped */
        int64_t huge[] = {HIST_HIGHEST_US + 1, (int64_t)1 << 40, INT64_MAX, 5000000000};
        g_raw[i] = i % 20 ? rng_range(100, 100000) : huge[i / 20 % 4];
    }
    check_against_exact(g_raw, 10000, "clamped huge");
    CHECK(g_h1.clamped == 500, "clamped count %lld", (long long)g_h1.clamped);
    CHECK(hist_max_us(&g_h1) == HIST_HIGHEST_US, "clamped max");
}

/* The rank is ceil(p/100 * n) exactly, with no floating-point off-by-one
 * (e.g. p99.9 of 41000 is rank 40959): value 1 holds the first `rank`
 * counts, value 2 the rest, so the answer flips from 1 to 2 at the rank. */
static void check_rank(int64_t n, int64_t ppm)
{
    int64_t rank = (ppm * n + 999999) / 1000000;
    double p = (double)ppm / 10000.0;
    if (rank < 1)
        rank = 1;
    hist_reset(&g_h1);
    hist_record_n_us(&g_h1, 1, rank);
    hist_record_n_us(&g_h1, 2, n - rank);
    CHECK(hist_percentile_us(&g_h1, p) == 1, "n=%lld p%g rank %lld too high",
          (long long)n, p, (long long)rank);
    if (rank == 1)
        return;
    hist_reset(&g_h1);
    hist_record_n_us(&g_h1, 1, rank - 1);
    hist_record_n_us(&g_h1, 2, n - rank + 1);
    CHECK(hist_percentile_us(&g_h1, p) == 2, "n=%lld p%g rank %lld too low",
          (long long)n, p, (long long)rank);
}

static void test_percentile_rank_exact(void **state)
{
    (void)state;
    hist_free(&g_h1);
    for (size_t j = 0; j < sizeof k_ppm / sizeof k_ppm[0]; j++) {
        if (k_ppm[j] == 1000000)
            continue;
        for (int64_t n = 1; n <= 20000; n++)
            check_rank(n, k_ppm[j]);
        for (int64_t n = 21000; n <= 5000000; n += 1000)
            check_rank(n, k_ppm[j]);
    }
}

static void assert_hist_equal(const hist *a, const hist *b, const char *name);

static void test_record_n(void **state)
{
    (void)state;
    hist_free(&g_h1);
    hist_free(&g_h2);
    rng_seed(5);
    for (int i = 0; i < 1000; i++) {
        int64_t v = rng_range(-10, HIST_HIGHEST_US + 1000000), n = rng_range(0, 5);
        hist_record_n_us(&g_h1, v, n);
        for (int64_t r = 0; r < n; r++)
            hist_record_us(&g_h2, v);
    }
    hist_record_n_us(&g_h1, 77, -3);    /* ignored */
    assert_hist_equal(&g_h1, &g_h2, "same");
}

static void assert_hist_equal(const hist *a, const hist *b, const char *name)
{
    for (int32_t i = 0; i < HIST_COUNTS_LEN; i++)
        CHECK(hist_count_at(a, i) == hist_count_at(b, i), "%s counts[%d] %lld vs %lld", name, i,
              (long long)hist_count_at(a, i), (long long)hist_count_at(b, i));
    CHECK(a->total == b->total, "%s total", name);
    CHECK(a->min_us == b->min_us, "%s min", name);
    CHECK(a->max_us == b->max_us, "%s max", name);
    CHECK(a->clamped == b->clamped, "%s clamped", name);
    CHECK(a->lo_idx == b->lo_idx && a->hi_idx == b->hi_idx, "%s lo/hi", name);
}

static void merge_case(int na, int nb, const char *name)
{
    hist_free(&g_h1);
    hist_free(&g_h2);
    hist_free(&g_h3);
    for (int i = 0; i < na; i++) {
        hist_record_us(&g_h1, g_raw[i]);
        hist_record_us(&g_h3, g_raw[i]);
    }
    for (int i = 0; i < nb; i++) {
        hist_record_us(&g_h2, g_raw2[i]);
        hist_record_us(&g_h3, g_raw2[i]);
    }
    hist_merge(&g_h1, &g_h2);
    assert_hist_equal(&g_h1, &g_h3, name);
    check_invariants(&g_h1, name);
    CHECK(hist_percentile_us(&g_h1, 99.0) == hist_percentile_us(&g_h3, 99.0), "%s p99", name);
}

static void test_merge(void **state)
{
    (void)state;
    rng_seed(6);
    for (int i = 0; i < 50000; i++) {
        g_raw[i] = rng_range(0, 100000);
        g_raw2[i] = (int64_t)exp(rng_unit() * log(1e10)); /* some clamped */
    }
    merge_case(50000, 50000, "A=uniform B=long tail");
    merge_case(0, 50000, "A empty");
    merge_case(50000, 0, "B empty");
    merge_case(0, 0, "both empty");
    for (int i = 0; i < 1000; i++) {    /* B entirely below A: lo_idx must move */
        g_raw[i] = rng_range(1000000, 2000000);
        g_raw2[i] = rng_range(0, 50);
    }
    merge_case(1000, 1000, "B below A");
    merge_case(1, 1000, "single A");

    /* merge is additive: merging the same source twice doubles counts */
    hist_free(&g_h1);
    hist_free(&g_h2);
    hist_free(&g_h3);
    for (int i = 0; i < 1000; i++) {
        hist_record_us(&g_h2, g_raw[i]);
        hist_record_n_us(&g_h3, g_raw[i], 2);
    }
    hist_merge(&g_h1, &g_h2);
    hist_merge(&g_h1, &g_h2);
    assert_hist_equal(&g_h1, &g_h3, "merge twice");
}

static void test_reset(void **state)
{
    (void)state;
    hist_free(&g_h1);
    hist_free(&g_h2);
    rng_seed(7);
    for (int i = 0; i < 10000; i++)
        hist_record_us(&g_h1, (int64_t)exp(rng_unit() * log(1e10)));
    hist_reset(&g_h1);
    assert_hist_equal(&g_h1, &g_h2, "same");
    hist_record_us(&g_h1, 42);
    hist_record_us(&g_h2, 42);
    assert_hist_equal(&g_h1, &g_h2, "same");
}

static void test_index_round_trip(void **state)
{
    (void)state;
    int64_t prev = -1;
    for (int32_t i = 0; i < HIST_COUNTS_LEN; i++) {
        int64_t v = hist_value_at_index(i);
        CHECK(v > prev, "value_at_index not increasing at %d", i);
        CHECK(hist_index_of(v) == i, "index_of(value_at_index(%d))=%d", i, hist_index_of(v));
        CHECK(ref_index(v) == i && ref_lowest(v) == v, "layout differs from reference at %d", i);
        prev = v;
    }
    /* Out-of-range arguments stay inside the counts array. */
    CHECK(hist_index_of(-1) == 0 && hist_index_of(INT64_MIN) == 0, "negative index");
    CHECK(hist_index_of(INT64_MAX) == HIST_COUNTS_LEN - 1, "huge index");
    CHECK(hist_index_of((int64_t)1 << 40) == HIST_COUNTS_LEN - 1, "2^40 index");
    CHECK(hist_value_at_index(-5) == 0, "negative idx");
    CHECK(hist_value_at_index(HIST_COUNTS_LEN + 5) == hist_value_at_index(HIST_COUNTS_LEN - 1),
          "idx past end");
    /* Every trackable value up to the last counts slot is covered. */
    int64_t last = hist_value_at_index(HIST_COUNTS_LEN - 1);
    CHECK(hist_highest_equivalent(last) >= HIST_HIGHEST_US, "range too small");
    CHECK(hist_index_of(HIST_HIGHEST_US) < HIST_COUNTS_LEN, "highest out of range");
}

static void check_value(int64_t v)
{
    int64_t lo = hist_lowest_equivalent(v), hi = hist_highest_equivalent(v);
    int64_t med = hist_median_equivalent(v);
    int32_t idx = hist_index_of(v);
    CHECK(lo <= v && v <= hi, "v=%lld lo=%lld hi=%lld", (long long)v, (long long)lo, (long long)hi);
    CHECK(lo <= med && med <= hi, "median of %lld", (long long)v);
    CHECK(hi - lo <= (v < 2048 ? 0 : v / 1024), "bucket of %lld too wide", (long long)v);
    CHECK(idx == ref_index(v) && lo == ref_lowest(v) && hi == ref_highest(v)
              && med == ref_median(v), "v=%lld differs from reference", (long long)v);
    CHECK(hist_index_of(lo) == idx && hist_index_of(hi) == idx, "v=%lld range", (long long)v);
    CHECK(lo == 0 || hist_index_of(lo - 1) == idx - 1, "v=%lld below", (long long)v);
    CHECK(idx == HIST_COUNTS_LEN - 1 || hist_index_of(hi + 1) == idx + 1, "v=%lld above",
          (long long)v);
}

static void test_value_equivalents(void **state)
{
    (void)state;
    for (int64_t v = 0; v <= 300000; v++)
        check_value(v);
    for (int k = 10; k < 32; k++)
        for (int64_t d = -2; d <= 2; d++)
            check_value(((int64_t)1 << k) + d);
    check_value(HIST_HIGHEST_US);
    rng_seed(8);
    for (int i = 0; i < 1000000; i++)
        check_value(rng_range(0, HIST_HIGHEST_US));
    for (int i = 0; i < 100000; i++)
        check_value((int64_t)exp(rng_unit() * log((double)HIST_HIGHEST_US)));
}

static void test_empty(void **state)
{
    (void)state;
    hist_free(&g_h1);
    static const double ps[] = {0, 50, 90, 99, 99.9, 100, 150};
    for (size_t j = 0; j < sizeof ps / sizeof ps[0]; j++)
        assert_int_equal(hist_percentile_us(&g_h1, ps[j]), 0);
    assert_true(hist_mean_us(&g_h1) == 0.0);
    assert_true(hist_stdev_us(&g_h1) == 0.0);
    assert_int_equal(hist_min_us(&g_h1), 0);
    assert_int_equal(hist_max_us(&g_h1), 0);
    assert_int_equal(g_h1.total, 0);
    assert_int_equal(g_h1.clamped, 0);
    hist_free(&g_h2);
    hist_merge(&g_h1, &g_h2);
    hist_reset(&g_h1);
    assert_hist_equal(&g_h1, &g_h2, "same");
    hist_record_n_us(&g_h1, 10, 0);     /* n = 0 records nothing */
    assert_int_equal(g_h1.total, 0);
    assert_int_equal(hist_max_us(&g_h1), 0);
}

/* A histogram owns memory only for the sub-ranges its values fall in: a
 * narrow band costs a few kB, the whole range at most the full array, and
 * the figures are those of the flat layout (checked by the tests above). */
static void test_sparse_memory(void **state)
{
    (void)state;
    hist_free(&g_h1);
    assert_int_equal(hist_bytes(&g_h1), 0);
    rng_seed(9);
    for (int i = 0; i < 100000; i++)          /* 900 us .. 1.1 ms */
        hist_record_us(&g_h1, rng_range(900, 1100));
    size_t narrow = sizeof g_h1 + hist_bytes(&g_h1);
    CHECK(narrow <= 4096, "a 900-1100 us band costs %zu bytes", narrow);
    hist_free(&g_h2);
    for (int i = 0; i < 100000; i++)
        hist_record_us(&g_h2, (int64_t)exp(rng_unit() * log(1e10)));
    CHECK(hist_bytes(&g_h2) <= (size_t)HIST_COUNTS_LEN * sizeof(int64_t), "full range %zu bytes",
          hist_bytes(&g_h2));
    hist_merge(&g_h1, &g_h2);                 /* the union, exact */
    CHECK(g_h1.total == 200000, "merged total %lld", (long long)g_h1.total);
    hist_reset(&g_h1);                        /* reset keeps the chunks, zeroed */
    CHECK(hist_bytes(&g_h1) > 0 && g_h1.total == 0 && hist_percentile_us(&g_h1, 50) == 0, "reset");
    hist_free(&g_h1);
    hist_free(&g_h2);
    assert_int_equal(hist_bytes(&g_h1), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uniform_random),
        cmocka_unit_test(test_long_tail_random),
        cmocka_unit_test(test_adversarial),
        cmocka_unit_test(test_percentile_rank_exact),
        cmocka_unit_test(test_record_n),
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_reset),
        cmocka_unit_test(test_index_round_trip),
        cmocka_unit_test(test_value_equivalents),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_sparse_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
