/* randdist.c - random distributions over a caller's uniform 64-bit source
 * (see randdist.h): Box-Muller gaussian, inversion for exponential and
 * pareto, rejection-inversion for zipf (W. Hörmann, G. Derflinger, "Rejection-
 * inversion to generate variates from monotone discrete distributions", ACM
 * TOMACS 6(3), 1996) and Vose's alias method for weighted choice.  Set-up may
 * allocate (the alias table); draws never allocate, lock or print.  It does
 * not know Lua or VUs: the binding (lua/lm_random.c) passes the VU stream. */
#include "common/randdist.h"

#include <math.h>
#include <stdlib.h>

double rd_u01(uint64_t r) { return (double)(r >> 11) * (1.0 / 9007199254740992.0); }

uint64_t rd_below(uint64_t r, uint64_t n) { return (uint64_t)(((unsigned __int128)r * n) >> 64); }

static double rd_next01(rd_source *src) { return rd_u01(src->next(src->ctx)); }

double rd_gaussian(rd_source *src, double mean, double sd) {
    double u1 = 1.0 - rd_next01(src);            /* (0, 1]: log is finite */
    double u2 = rd_next01(src);
    return mean + sd * sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

double rd_exponential(rd_source *src, double mean) {
    return -mean * log(1.0 - rd_next01(src));
}

double rd_pareto(rd_source *src, double xm, double alpha) {
    return xm / pow(1.0 - rd_next01(src), 1.0 / alpha);
}

/* ---- zipf: rejection-inversion ---- */

/* log1p(x) / x, continuous at 0 */
static double rd_helper1(double x) {
    return fabs(x) > 1e-8 ? log1p(x) / x : 1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x));
}

/* expm1(x) / x, continuous at 0 */
static double rd_helper2(double x) {
    return fabs(x) > 1e-8 ? expm1(x) / x : 1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + 0.25 * x));
}

/* H(x) = integral of t^-s from 1 to x (log x when s == 1) */
static double rd_zipf_hint(double s, double x) {
    double lx = log(x);
    return rd_helper2((1.0 - s) * lx) * lx;
}

static double rd_zipf_h(double s, double x) { return exp(-s * log(x)); }

static double rd_zipf_hint_inv(double s, double x) {
    double t = x * (1.0 - s);
    if (t < -1.0) t = -1.0;
    return exp(rd_helper1(t) * x);
}

int rd_zipf_init(rd_zipf *z, double n, double s) {
    if (!isfinite(n) || !isfinite(s) || n < 1 || s <= 0) return -1;
    z->n = floor(n);
    z->s = s;
    z->h_x1 = rd_zipf_hint(s, 1.5) - 1.0;
    z->h_n = rd_zipf_hint(s, z->n + 0.5);
    z->cap = 2.0 - rd_zipf_hint_inv(s, rd_zipf_hint(s, 2.5) - rd_zipf_h(s, 2.0));
    return 0;
}

double rd_zipf_draw(const rd_zipf *z, rd_source *src) {
    for (;;) {
        double u = z->h_n + rd_next01(src) * (z->h_x1 - z->h_n);
        double x = rd_zipf_hint_inv(z->s, u);
        double k = floor(x + 0.5);
        if (k < 1) k = 1;
        else if (k > z->n) k = z->n;
        if (k - x <= z->cap || u >= rd_zipf_hint(z->s, k + 0.5) - rd_zipf_h(z->s, k)) return k;
    }
}

/* ---- weighted choice: Vose's alias method ---- */

static void rd_alias_fill(rd_alias *a, double *p, uint32_t *small, uint32_t *large) {
    size_t ns = 0, nl = 0, n = a->n;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < 1.0) small[ns++] = (uint32_t)i;
        else large[nl++] = (uint32_t)i;
    }
    while (ns > 0 && nl > 0) {
        uint32_t s = small[--ns], l = large[--nl];
        a->prob[s] = p[s];
        a->alias[s] = l;
        p[l] = (p[l] + p[s]) - 1.0;
        if (p[l] < 1.0) small[ns++] = l;
        else large[nl++] = l;
    }
    /* what is left is 1 up to rounding */
    while (nl > 0) { uint32_t l = large[--nl]; a->prob[l] = 1.0; a->alias[l] = l; }
    while (ns > 0) { uint32_t s = small[--ns]; a->prob[s] = 1.0; a->alias[s] = s; }
}

int rd_alias_init(rd_alias *a, const double *weights, size_t n) {
    a->n = 0;
    a->prob = NULL;
    a->alias = NULL;
    if (n == 0 || n > ((size_t)1 << 31)) return -1;
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(weights[i]) || weights[i] < 0) return -1;
        sum += weights[i];
    }
    if (!(sum > 0) || !isfinite(sum)) return -1;
    double *p = malloc(n * sizeof *p);
    uint32_t *work = malloc(2 * n * sizeof *work);
    a->prob = malloc(n * sizeof *a->prob);
    a->alias = malloc(n * sizeof *a->alias);
    if (!p || !work || !a->prob || !a->alias) {
        free(p); free(work); rd_alias_free(a);
        return -2;
    }
    a->n = n;
    for (size_t i = 0; i < n; i++) p[i] = weights[i] / sum * (double)n;
    rd_alias_fill(a, p, work, work + n);
    free(p);
    free(work);
    return 0;
}

size_t rd_alias_draw(const rd_alias *a, rd_source *src) {
    size_t i = (size_t)rd_below(src->next(src->ctx), a->n);
    return rd_next01(src) < a->prob[i] ? i : a->alias[i];
}

void rd_alias_free(rd_alias *a) {
    free(a->prob);
    free(a->alias);
    a->prob = NULL;
    a->alias = NULL;
    a->n = 0;
}
