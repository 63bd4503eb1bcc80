/* compare_stats.c - the statistics of `luamech compare` on sets of repeated
 * runs: the median of a side's per-run figures, and a one-sided
 * Mann-Whitney U test of whether B's runs are worse than A's beyond the
 * spread of the runs themselves (exact by enumerating every split of the
 * pooled values for small sets, the normal approximation for large ones).
 *
 * Pure functions (tests/unit/test_compare.c); no files, no printing.  Not
 * here: which figures are compared and how the result is shown
 * (compare_sets.c). */
#include "cmd/compare.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* Splits enumerated at most for the exact test. */
#define CMP_MWU_EXACT_MAX 200000.0
/* Pooled runs at most for the exact test (the index array is on the stack). */
#define CMP_MWU_EXACT_N 64

static int cmp_dbl_cmp(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

double cmp_median(double *v, size_t n) {
    if (n == 0) return NAN;
    qsort(v, n, sizeof *v, cmp_dbl_cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* C(n, k) as a double (exact up to 2^53). */
static double cmp_choose(size_t n, size_t k) {
    if (k > n) return 0;
    if (k > n - k) k = n - k;
    double c = 1;
    for (size_t i = 1; i <= k; i++) c = c * (double)(n - k + i) / (double)i;
    return round(c);
}

double cmp_mwu_min_p(size_t na, size_t nb) {
    if (na == 0 || nb == 0) return 1;
    return 1.0 / cmp_choose(na + nb, na);
}

/* A pooled value: worse is higher; from B or not. */
typedef struct cmp_pooled {
    double v;
    int from_b;
} cmp_pooled;

static int cmp_pooled_cmp(const void *x, const void *y) {
    return cmp_dbl_cmp(&((const cmp_pooled *)x)->v, &((const cmp_pooled *)y)->v);
}

/* Doubled mid-ranks (integers: tied values share the mean of their ranks)
 * of the sorted pooled values into r2; returns sum(t^3 - t) over the tie
 * groups (for the normal approximation). */
static double cmp_midranks2(const cmp_pooled *p, size_t n, int64_t *r2) {
    double ties = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && p[j + 1].v == p[i].v) j++;
        for (size_t k = i; k <= j; k++) r2[k] = (int64_t)(i + j + 2);
        double t = (double)(j - i + 1);
        ties += t * t * t - t;
        i = j + 1;
    }
    return ties;
}

/* Exact: the share of the C(n, nb) splits whose B side has a rank sum
 * (doubled) of at least obs2. */
static double cmp_mwu_exact(const int64_t *r2, size_t n, size_t nb, int64_t obs2) {
    size_t idx[CMP_MWU_EXACT_N];
    double hits = 0, total = 0;
    for (size_t k = 0; k < nb; k++) idx[k] = k;
    for (;;) {
        int64_t sum = 0;
        for (size_t k = 0; k < nb; k++) sum += r2[idx[k]];
        hits += sum >= obs2;
        total++;
        size_t k = nb;      /* the next combination in lexicographic order */
        while (k > 0 && idx[k - 1] == n - nb + k - 1) k--;
        if (k == 0) break;
        idx[k - 1]++;
        for (size_t m = k; m < nb; m++) idx[m] = idx[m - 1] + 1;
    }
    return hits / total;
}

/* Normal approximation with the tie and continuity corrections. */
static double cmp_mwu_normal(size_t na, size_t nb, int64_t obs2, double ties) {
    double n = (double)(na + nb), u = (double)obs2 / 2 - (double)nb * ((double)nb + 1) / 2;
    double mean = (double)na * (double)nb / 2;
    double var = (double)na * (double)nb / 12 * ((n + 1) - ties / (n * (n - 1)));
    if (!(var > 0)) return 1;
    double z = (u - mean - 0.5) / sqrt(var);
    return 0.5 * erfc(z / sqrt(2.0));
}

double cmp_mwu_p(const double *a, size_t na, const double *b, size_t nb, int higher_is_worse) {
    if (na == 0 || nb == 0) return NAN;
    size_t n = na + nb;
    cmp_pooled *p = malloc(n * sizeof *p);
    int64_t *r2 = malloc(n * sizeof *r2);
    double pv = NAN;
    if (!p || !r2) goto done;
    for (size_t i = 0; i < n; i++) {
        double v = i < na ? a[i] : b[i - na];
        p[i] = (cmp_pooled){higher_is_worse ? v : -v, i >= na};
    }
    qsort(p, n, sizeof *p, cmp_pooled_cmp);
    double ties = cmp_midranks2(p, n, r2);
    int64_t obs2 = 0;
    for (size_t i = 0; i < n; i++)
        if (p[i].from_b) obs2 += r2[i];
    if (n <= CMP_MWU_EXACT_N && cmp_choose(n, nb) <= CMP_MWU_EXACT_MAX) pv = cmp_mwu_exact(r2, n, nb, obs2);
    else pv = cmp_mwu_normal(na, nb, obs2, ties);
done:
    free(p);
    free(r2);
    return pv;
}
