/* test_randdist.c - the distributions of common/randdist.c against their
 * expected frequencies: for each, N draws are binned, Pearson's chi-square
 * statistic is computed here from the exact probabilities (zipf's k^-s / H,
 * the CDFs of the normal, exponential and pareto laws, the normalised
 * weights) and compared with the critical value at significance 0.001
 * (Wilson-Hilferty approximation of the chi-square quantile, within 1% for
 * these degrees of freedom).  The seeds are fixed, so the outcome is
 * deterministic; a negative control shows the test rejects a wrong law. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "common/randdist.h"

#define N_DRAWS 200000
#define Z_999 3.0902323   /* standard normal quantile at 0.999 */

static uint64_t t_splitmix(void *ctx) {
    uint64_t *x = ctx;
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* chi-square quantile at 0.999 for df degrees of freedom (Wilson-Hilferty) */
static double t_chi2_crit(int df) {
    double a = 2.0 / (9.0 * df);
    double c = 1.0 - a + Z_999 * sqrt(a);
    return df * c * c * c;
}

/* Pearson's statistic of observed counts against expected probabilities */
static double t_chi2(const double *obs, const double *p, int bins, double n) {
    double x = 0;
    for (int i = 0; i < bins; i++) {
        double e = n * p[i];
        assert_true(e >= 5);            /* the chi-square approximation holds */
        x += (obs[i] - e) * (obs[i] - e) / e;
    }
    return x;
}

static void t_assert_fits(const char *what, const double *obs, const double *p, int bins, double n) {
    double x = t_chi2(obs, p, bins, n), crit = t_chi2_crit(bins - 1);
    printf("%s: chi-square %.2f, critical %.2f (df %d, alpha 0.001)\n", what, x, crit, bins - 1);
    assert_true(x < crit);
}

/* zipf(n, s): ranks 1..bins-1 alone, the rest in the last bin */
static double t_zipf_chi2(double n, double s, double s_expected, int bins, uint64_t seed, double *crit) {
    rd_zipf z;
    assert_int_equal(rd_zipf_init(&z, n, s), 0);
    rd_source src = {t_splitmix, &seed};
    double *obs = calloc((size_t)bins, sizeof *obs), *p = calloc((size_t)bins, sizeof *p);
    assert_non_null(obs);
    assert_non_null(p);
    for (int i = 0; i < N_DRAWS; i++) {
        double k = rd_zipf_draw(&z, &src);
        assert_true(k >= 1 && k <= n && k == floor(k));
        obs[k < bins ? (int)k - 1 : bins - 1]++;
    }
    double h = 0;
    for (double k = n; k >= 1; k--) h += pow(k, -s_expected);   /* small terms first */
    double head = 0;
    for (int k = 1; k < bins; k++) { p[k - 1] = pow(k, -s_expected) / h; head += p[k - 1]; }
    p[bins - 1] = 1.0 - head;
    double x = t_chi2(obs, p, bins, N_DRAWS);
    *crit = t_chi2_crit(bins - 1);
    printf("zipf(%g, %g) vs s=%g: chi-square %.2f, critical %.2f\n", n, s, s_expected, x, *crit);
    free(obs);
    free(p);
    return x;
}

static void test_zipf_fits(void **state) {
    (void)state;
    double crit;
    assert_true(t_zipf_chi2(50, 1.1, 1.1, 50, 1, &crit) < crit);     /* every rank its own bin */
    assert_true(t_zipf_chi2(1000, 1.0, 1.0, 40, 2, &crit) < crit);   /* s == 1: the log branch */
    assert_true(t_zipf_chi2(1000, 0.99, 0.99, 40, 3, &crit) < crit); /* YCSB's constant */
    assert_true(t_zipf_chi2(200, 0.5, 0.5, 100, 4, &crit) < crit);
    assert_true(t_zipf_chi2(1e6, 1.2, 1.2, 60, 5, &crit) < crit);
}

static void test_zipf_edges(void **state) {
    (void)state;
    rd_zipf z;
    uint64_t seed = 9;
    rd_source src = {t_splitmix, &seed};
    assert_int_equal(rd_zipf_init(&z, 0, 1), -1);
    assert_int_equal(rd_zipf_init(&z, 10, 0), -1);
    assert_int_equal(rd_zipf_init(&z, 10, -1), -1);
    assert_int_equal(rd_zipf_init(&z, NAN, 1), -1);
    assert_int_equal(rd_zipf_init(&z, 1, 0.99), 0);
    for (int i = 0; i < 1000; i++) assert_true(rd_zipf_draw(&z, &src) == 1);
}

/* the negative control: draws with s = 1.0 do not pass for s = 1.05 */
static void test_zipf_rejects_wrong_exponent(void **state) {
    (void)state;
    double crit;
    assert_true(t_zipf_chi2(1000, 1.0, 1.05, 40, 7, &crit) > crit);
}

/* continuous laws: B equal-probability bins from the inverse CDF */
typedef double (*t_cdf)(double x, double a, double b);
static double t_normal_cdf(double x, double mean, double sd) { return 0.5 * erfc(-(x - mean) / (sd * M_SQRT2)); }
static double t_exp_cdf(double x, double mean, double unused) { (void)unused; return x <= 0 ? 0 : -expm1(-x / mean); }
static double t_pareto_cdf(double x, double xm, double alpha) { return x <= xm ? 0 : 1.0 - pow(xm / x, alpha); }

/* bin by the law's own CDF: bin i holds draws with CDF in [i/B, (i+1)/B) */
static void t_continuous_fits(const char *what, double (*draw)(rd_source *, double, double), t_cdf cdf,
                              double a, double b, uint64_t seed) {
    enum { B = 50 };
    double obs[B] = {0}, p[B];
    rd_source src = {t_splitmix, &seed};
    for (int i = 0; i < B; i++) p[i] = 1.0 / B;
    for (int i = 0; i < N_DRAWS; i++) {
        int bin = (int)(cdf(draw(&src, a, b), a, b) * B);
        obs[bin >= B ? B - 1 : bin < 0 ? 0 : bin]++;
    }
    t_assert_fits(what, obs, p, B, N_DRAWS);
}

static double t_draw_exp(rd_source *s, double mean, double unused) { (void)unused; return rd_exponential(s, mean); }

static void test_gaussian_fits(void **state) {
    (void)state;
    t_continuous_fits("gaussian(0, 1)", rd_gaussian, t_normal_cdf, 0, 1, 11);
    t_continuous_fits("gaussian(100, 15)", rd_gaussian, t_normal_cdf, 100, 15, 12);
}

static void test_exponential_fits(void **state) {
    (void)state;
    t_continuous_fits("exponential(0.5)", t_draw_exp, t_exp_cdf, 0.5, 0, 13);
    t_continuous_fits("exponential(1000)", t_draw_exp, t_exp_cdf, 1000, 0, 14);
}

static void test_pareto_fits(void **state) {
    (void)state;
    t_continuous_fits("pareto(1, 1.16)", rd_pareto, t_pareto_cdf, 1, 1.16, 15);   /* the 80/20 shape */
    t_continuous_fits("pareto(10, 3)", rd_pareto, t_pareto_cdf, 10, 3, 16);
}

/* negative control: exponential draws of mean 1 do not pass for mean 1.05 */
static void test_continuous_rejects_wrong_law(void **state) {
    (void)state;
    enum { B = 50 };
    double obs[B] = {0}, p[B];
    uint64_t seed = 17;
    rd_source src = {t_splitmix, &seed};
    for (int i = 0; i < B; i++) p[i] = 1.0 / B;
    for (int i = 0; i < N_DRAWS; i++) {
        int bin = (int)(t_exp_cdf(rd_exponential(&src, 1.0), 1.05, 0) * B);
        obs[bin >= B ? B - 1 : bin]++;
    }
    double x = t_chi2(obs, p, B, N_DRAWS);
    printf("exponential(1) vs mean 1.05: chi-square %.2f, critical %.2f\n", x, t_chi2_crit(B - 1));
    assert_true(x > t_chi2_crit(B - 1));
}

static void test_weighted_fits(void **state) {
    (void)state;
    const double w[] = {5, 0, 1, 3, 1, 10, 0.5, 90};
    enum { W = sizeof w / sizeof w[0] };
    rd_alias a;
    uint64_t seed = 21;
    rd_source src = {t_splitmix, &seed};
    assert_int_equal(rd_alias_init(&a, w, W), 0);
    double obs[W] = {0}, sum = 0;
    for (int i = 0; i < W; i++) sum += w[i];
    for (int i = 0; i < N_DRAWS; i++) {
        size_t k = rd_alias_draw(&a, &src);
        assert_true(k < W);
        obs[k]++;
    }
    assert_true(obs[1] == 0);                 /* weight 0: never */
    /* the seven items of non-zero weight */
    double o[W - 1], p[W - 1];
    for (int i = 0, j = 0; i < W; i++)
        if (w[i] > 0) { o[j] = obs[i]; p[j] = w[i] / sum; j++; }
    t_assert_fits("weighted", o, p, W - 1, N_DRAWS);
    rd_alias_free(&a);
}

static void test_weighted_edges(void **state) {
    (void)state;
    rd_alias a;
    const double zeros[] = {0, 0}, neg[] = {1, -1}, inf[] = {1, INFINITY}, one[] = {3};
    assert_int_equal(rd_alias_init(&a, one, 0), -1);
    assert_int_equal(rd_alias_init(&a, zeros, 2), -1);
    assert_int_equal(rd_alias_init(&a, neg, 2), -1);
    assert_int_equal(rd_alias_init(&a, inf, 2), -1);
    assert_int_equal(rd_alias_init(&a, one, 1), 0);
    uint64_t seed = 22;
    rd_source src = {t_splitmix, &seed};
    for (int i = 0; i < 100; i++) assert_true(rd_alias_draw(&a, &src) == 0);
    rd_alias_free(&a);
}

/* rd_below: the uniform key pattern */
static void test_uniform_fits(void **state) {
    (void)state;
    enum { B = 97 };
    double obs[B] = {0}, p[B];
    uint64_t seed = 31;
    for (int i = 0; i < B; i++) p[i] = 1.0 / B;
    for (int i = 0; i < N_DRAWS; i++) obs[rd_below(t_splitmix(&seed), B)]++;
    t_assert_fits("uniform below 97", obs, p, B, N_DRAWS);
    assert_true(rd_u01(UINT64_MAX) < 1.0);
    assert_true(rd_u01(0) == 0.0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zipf_fits),
        cmocka_unit_test(test_zipf_edges),
        cmocka_unit_test(test_zipf_rejects_wrong_exponent),
        cmocka_unit_test(test_gaussian_fits),
        cmocka_unit_test(test_exponential_fits),
        cmocka_unit_test(test_pareto_fits),
        cmocka_unit_test(test_continuous_rejects_wrong_law),
        cmocka_unit_test(test_weighted_fits),
        cmocka_unit_test(test_weighted_edges),
        cmocka_unit_test(test_uniform_fits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
