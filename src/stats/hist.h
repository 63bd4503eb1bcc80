/* hist.h - constant-memory latency histogram in the HdrHistogram layout.
 *
 * Values are recorded in microseconds, 3 significant digits, from 1 us to
 * HIST_HIGHEST_US (a little over one hour); larger values are clamped to the
 * highest trackable value and counted in `clamped`.  Bucket layout, percentile,
 * mean and stdev definitions follow HdrHistogram (Gil Tene) so that figures
 * agree with wrk2, memtier_benchmark and redis-benchmark.  min and max are kept
 * exactly (not rounded to a bucket), which is within the stated precision.
 *
 * A hist is a plain struct with a fixed-size counts array: no allocation after
 * hist_init, no locking.  Merging two histograms adds their counts. */
#ifndef LUAMECH_HIST_H
#define LUAMECH_HIST_H

#include <stdint.h>
#include <stddef.h>

#define HIST_SIG_DIGITS 3
#define HIST_SUB_BUCKET_COUNT 2048      /* 2 * 10^3 rounded up to a power of two */
#define HIST_SUB_BUCKET_HALF 1024
#define HIST_BUCKET_COUNT 22            /* 2048 << 21 > 3.6e9 us = 1 h */
#define HIST_COUNTS_LEN ((HIST_BUCKET_COUNT + 1) * HIST_SUB_BUCKET_HALF)
#define HIST_HIGHEST_US ((int64_t)3600 * 1000 * 1000)

typedef struct hist {
    int64_t total;        /* number of recorded values */
    int64_t min_us;       /* exact; INT64_MAX when empty */
    int64_t max_us;       /* exact; 0 when empty */
    int64_t clamped;      /* values above HIST_HIGHEST_US, recorded as that */
    int32_t lo_idx;       /* lowest and highest non-zero counts index, for fast merge */
    int32_t hi_idx;
    int64_t counts[HIST_COUNTS_LEN];
} hist;

void hist_init(hist *h);
void hist_reset(hist *h);
/* Record one value in microseconds (values < 1 are recorded as 0). */
void hist_record_us(hist *h, int64_t value_us);
/* Record `n` occurrences of one value. */
void hist_record_n_us(hist *h, int64_t value_us, int64_t n);
/* dst += src */
void hist_merge(hist *dst, const hist *src);

/* Value at percentile p (0..100), HdrHistogram semantics: the highest
 * equivalent value of the bucket in which the cumulative count reaches
 * ceil(p/100 * total).  p >= 100 returns max.  0 when empty. */
int64_t hist_percentile_us(const hist *h, double p);
double hist_mean_us(const hist *h);      /* mean of bucket median-equivalent values */
double hist_stdev_us(const hist *h);     /* population stdev, same convention */
int64_t hist_min_us(const hist *h);      /* exact, 0 when empty */
int64_t hist_max_us(const hist *h);      /* exact, 0 when empty */

/* Layout helpers, exposed for tests and for the HdrHistogram log writer. */
int32_t hist_index_of(int64_t value_us);
int64_t hist_value_at_index(int32_t idx);          /* lowest value of the bucket */
int64_t hist_lowest_equivalent(int64_t value_us);
int64_t hist_highest_equivalent(int64_t value_us);
int64_t hist_median_equivalent(int64_t value_us);

#endif
