/* hist.h - constant-memory latency histogram in the HdrHistogram layout.
 *
 * Values are recorded in microseconds, 3 significant digits, from 1 us to
 * HIST_HIGHEST_US (a little over one hour); larger values are clamped to the
 * highest trackable value and counted in `clamped`.  Bucket layout, percentile,
 * mean and stdev definitions follow HdrHistogram (Gil Tene) so that figures
 * agree with wrk2, memtier_benchmark and redis-benchmark.  min and max are kept
 * exactly (not rounded to a bucket), which is within the stated precision.
 *
 * The counts array is sparse: it is cut into chunks of HIST_CHUNK_LEN
 * consecutive counts, and a chunk is allocated on the first value that falls
 * in it (all of a histogram's chunks live in one pool that doubles when it
 * is full).  An empty histogram owns no memory; one whose values sit in a
 * narrow band costs a few kB; the worst case (every chunk) is the full
 * HdrHistogram array, 188 kB.  Recording stays O(1): a chunk lookup, and a
 * pool growth at most log2(HIST_NCHUNKS) times in a histogram's life.  No
 * locking.  Merging two histograms adds their counts (exact).  hist_free
 * releases the pool. */
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
#define HIST_CHUNK_SHIFT 7
#define HIST_CHUNK_LEN (1 << HIST_CHUNK_SHIFT)                 /* counts per chunk: 1 kB */
#define HIST_NCHUNKS (HIST_COUNTS_LEN / HIST_CHUNK_LEN)       /* 184 */

typedef struct hist {
    int64_t total;        /* number of recorded values */
    int64_t min_us;       /* exact; INT64_MAX when empty */
    int64_t max_us;       /* exact; 0 when empty */
    int64_t clamped;      /* values above HIST_HIGHEST_US, recorded as that */
    int64_t not_ok;       /* how many of the values are not successes: set by the
                           * owner (a "(all)" timer), summed by merge, 0 by reset */
    int64_t dropped;      /* values not recorded for lack of memory (not in total) */
    int32_t lo_idx;       /* lowest and highest non-zero counts index, for fast merge */
    int32_t hi_idx;
    int32_t nchunks;      /* chunks in use in the pool */
    int32_t cap_chunks;   /* chunks the pool can hold */
    int64_t *pool;        /* cap_chunks * HIST_CHUNK_LEN counts; NULL when none */
    uint8_t chunk_at[HIST_NCHUNKS];   /* 1 + position of chunk c in the pool, 0 = none */
} hist;

/* An empty histogram; allocates nothing. */
void hist_init(hist *h);
/* Empty it; its chunks stay allocated (zeroed) for reuse. */
void hist_reset(hist *h);
/* Release the chunks; the histogram is empty and can be used again. */
void hist_free(hist *h);
/* Record `n` occurrences of one value in microseconds (values < 1 are
 * recorded as 0). */
void hist_record_n_us(hist *h, int64_t value_us, int64_t n);
/* The counts index of value_us, 0 <= value_us <= HIST_HIGHEST_US (the same
 * arithmetic as hist_index_of, inline). */
static inline int32_t hist_index_us(int64_t v)
{
    int32_t b = 64 - __builtin_clzll((unsigned long long)(v | (HIST_SUB_BUCKET_COUNT - 1))) - 11;
    return ((b + 1) << 10) + (int32_t)(v >> b) - HIST_SUB_BUCKET_HALF;
}
/* Record one value v (0..HIST_HIGHEST_US) whose counts index idx the
 * caller computed (hist_index_us): one index for several histograms. */
static inline void hist_record_at_us(hist *h, int64_t v, int32_t idx)
{
    uint8_t p = h->chunk_at[idx >> HIST_CHUNK_SHIFT];
    if (__builtin_expect(p == 0, 0)) {
        hist_record_n_us(h, v, 1);
        return;
    }
    h->pool[((int32_t)(p - 1) << HIST_CHUNK_SHIFT) | (idx & (HIST_CHUNK_LEN - 1))]++;
    h->total++;
    if (v < h->min_us)
        h->min_us = v;
    if (v > h->max_us)
        h->max_us = v;
    if (idx < h->lo_idx)
        h->lo_idx = idx;
    if (idx > h->hi_idx)
        h->hi_idx = idx;
}
/* Record one value: the hot path, inline when its chunk exists, else
 * hist_record_n_us. */
static inline void hist_record_us(hist *h, int64_t value_us)
{
    int64_t v = value_us;
    if (v < 0 || v > HIST_HIGHEST_US) {
        hist_record_n_us(h, v, 1);
        return;
    }
    hist_record_at_us(h, v, hist_index_us(v));
}
/* dst += src (also not_ok, clamped and dropped) */
void hist_merge(hist *dst, const hist *src);
/* The count at a counts index (0 when its chunk was never allocated). */
static inline int64_t hist_count_at(const hist *h, int32_t idx)
{
    uint8_t p = h->chunk_at[idx >> HIST_CHUNK_SHIFT];
    return p ? h->pool[((int32_t)(p - 1) << HIST_CHUNK_SHIFT) | (idx & (HIST_CHUNK_LEN - 1))] : 0;
}
/* Add n to the count at a counts index (a decoder's path: total, min, max
 * and lo/hi are the caller's to set).  -1 when out of memory. */
int hist_add_at_index(hist *h, int32_t idx, int64_t n);
/* Bytes the histogram owns beyond its struct. */
size_t hist_bytes(const hist *h);

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
