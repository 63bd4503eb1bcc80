/* randdist.h - random distributions over a caller's uniform 64-bit source:
 * gaussian, exponential, pareto, zipf (rejection-inversion) and weighted
 * choice (alias table).  Pure C: no Lua, no allocation per draw. */
#ifndef LUAMECH_RANDDIST_H
#define LUAMECH_RANDDIST_H

#include <stddef.h>
#include <stdint.h>

/* A uniform 64-bit source (e.g. a VU's xoshiro256** stream). */
typedef struct rd_source {
    uint64_t (*next)(void *ctx);
    void *ctx;
} rd_source;

/* Uniform double in [0, 1) from the top 53 bits of r. */
double rd_u01(uint64_t r);
/* Uniform integer in [0, n) (n >= 1), multiply-shift. */
uint64_t rd_below(uint64_t r, uint64_t n);

/* Normal(mean, sd) by Box-Muller (two draws). */
double rd_gaussian(rd_source *src, double mean, double sd);
/* Exponential with the given mean (> 0): -mean * ln(1 - u). */
double rd_exponential(rd_source *src, double mean);
/* Pareto type I: scale xm > 0 (the minimum), shape alpha > 0;
 * P(X > x) = (xm / x)^alpha for x >= xm. */
double rd_pareto(rd_source *src, double xm, double alpha);

/* Zipf over ranks 1..n: P(k) proportional to k^-s (s > 0), by Hörmann and
 * Derflinger's rejection-inversion (1.000 to 1.013 uniforms per draw measured
 * for n 10..10^6, s 0.01..2). */
typedef struct rd_zipf {
    double n, s;
    double h_x1, h_n, cap;
} rd_zipf;
/* 0, or -1 when n < 1 or s <= 0 or either is not finite. */
int rd_zipf_init(rd_zipf *z, double n, double s);
double rd_zipf_draw(const rd_zipf *z, rd_source *src);

/* Weighted choice among n items with non-negative weights (sum > 0): Vose's
 * alias table, one index and one coin per draw. */
typedef struct rd_alias {
    size_t n;
    double *prob;     /* n entries: probability of keeping column i */
    uint32_t *alias;  /* n entries: the other item of column i */
} rd_alias;
/* 0; -1 (bad weights: negative, not finite, all zero, n == 0 or n > 2^31);
 * -2 (out of memory). */
int rd_alias_init(rd_alias *a, const double *weights, size_t n);
size_t rd_alias_draw(const rd_alias *a, rd_source *src);
void rd_alias_free(rd_alias *a);

#endif
