/* hist.c - HdrHistogram-layout latency histogram (3 significant digits,
 * unit magnitude 0, 2048 sub-buckets, 22 buckets) with HdrHistogram's
 * index, equivalent-value, percentile, mean and stdev definitions.
 * Counts live in lazily allocated chunks (see hist.h): a chunk is allocated
 * on the first value that falls in it.  It does not lock, print, change the
 * layout, correct coordinated omission or serialize; min/max are exact,
 * percentiles are capped to them. */
#include "stats/hist.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SUB_HALF_MAG 10                          /* log2(HIST_SUB_BUCKET_HALF) */
#define SUB_MASK ((int64_t)HIST_SUB_BUCKET_COUNT - 1)
/* First value past the last counts slot: 2048 << 21. */
#define TRACKABLE_END ((int64_t)HIST_SUB_BUCKET_COUNT << (HIST_BUCKET_COUNT - 1))

static int64_t clamp_trackable(int64_t v)
{
    if (v < 0)
        return 0;
    return v < TRACKABLE_END ? v : TRACKABLE_END - 1;
}

/* HdrHistogram get_bucket_index with unit magnitude 0. */
static int32_t bucket_of(int64_t v)
{
    int pow2ceil = 64 - __builtin_clzll((unsigned long long)(v | SUB_MASK));
    return (int32_t)(pow2ceil - (SUB_HALF_MAG + 1));
}

static int64_t range_size(int64_t v)
{
    return (int64_t)1 << bucket_of(clamp_trackable(v));
}

int32_t hist_index_of(int64_t value_us)
{
    int64_t v = clamp_trackable(value_us);
    int32_t b = bucket_of(v);
    int32_t sub = (int32_t)(v >> b);
    return ((b + 1) << SUB_HALF_MAG) + (sub - HIST_SUB_BUCKET_HALF);
}

int64_t hist_value_at_index(int32_t idx)
{
    if (idx < 0)
        idx = 0;
    if (idx >= HIST_COUNTS_LEN)
        idx = HIST_COUNTS_LEN - 1;
    int32_t b = (idx >> SUB_HALF_MAG) - 1;
    int32_t sub = (idx & (HIST_SUB_BUCKET_HALF - 1)) + HIST_SUB_BUCKET_HALF;
    if (b < 0) {
        sub -= HIST_SUB_BUCKET_HALF;
        b = 0;
    }
    return (int64_t)sub << b;
}

int64_t hist_lowest_equivalent(int64_t value_us)
{
    return hist_value_at_index(hist_index_of(value_us));
}

int64_t hist_highest_equivalent(int64_t value_us)
{
    return hist_lowest_equivalent(value_us) + range_size(value_us) - 1;
}

int64_t hist_median_equivalent(int64_t value_us)
{
    return hist_lowest_equivalent(value_us) + (range_size(value_us) >> 1);
}

void hist_init(hist *h)
{
    memset(h, 0, sizeof *h);
    h->min_us = INT64_MAX;
    h->lo_idx = HIST_COUNTS_LEN;   /* empty range: lo > hi */
    h->hi_idx = -1;
}

void hist_reset(hist *h)
{
    if (h->nchunks)
        memset(h->pool, 0, (size_t)h->nchunks * HIST_CHUNK_LEN * sizeof h->pool[0]);
    h->total = 0;
    h->min_us = INT64_MAX;
    h->max_us = 0;
    h->clamped = 0;
    h->not_ok = 0;
    h->dropped = 0;
    h->lo_idx = HIST_COUNTS_LEN;
    h->hi_idx = -1;
}

void hist_free(hist *h)
{
    free(h->pool);
    hist_init(h);
}

size_t hist_bytes(const hist *h)
{
    return (size_t)h->cap_chunks * HIST_CHUNK_LEN * sizeof h->pool[0];
}

/* Allocate chunk c (zeroed) and return 1 + its position, or 0 when out of
 * memory.  The pool doubles, so a histogram grows at most 8 times. */
static uint8_t hist_new_chunk(hist *h, int32_t c)
{
    if (h->nchunks == h->cap_chunks) {
        int32_t cap = h->cap_chunks ? h->cap_chunks * 2 : 1;
        if (cap > HIST_NCHUNKS)
            cap = HIST_NCHUNKS;
        int64_t *pool = realloc(h->pool, (size_t)cap * HIST_CHUNK_LEN * sizeof *pool);
        if (!pool)
            return 0;
        h->pool = pool;
        h->cap_chunks = cap;
    }
    memset(&h->pool[(size_t)h->nchunks * HIST_CHUNK_LEN], 0, HIST_CHUNK_LEN * sizeof h->pool[0]);
    h->chunk_at[c] = (uint8_t)++h->nchunks;
    return h->chunk_at[c];
}

/* The count slot of index idx, its chunk allocated if needed; NULL when out
 * of memory. */
static inline int64_t *hist_slot(hist *h, int32_t idx)
{
    int32_t c = idx >> HIST_CHUNK_SHIFT;
    uint8_t p = h->chunk_at[c];
    if (__builtin_expect(p == 0, 0) && (p = hist_new_chunk(h, c)) == 0)
        return NULL;
    return &h->pool[((int32_t)(p - 1) << HIST_CHUNK_SHIFT) | (idx & (HIST_CHUNK_LEN - 1))];
}

int hist_add_at_index(hist *h, int32_t idx, int64_t n)
{
    int64_t *slot = hist_slot(h, idx);
    if (!slot)
        return -1;
    *slot += n;
    return 0;
}

static void widen_range(hist *h, int32_t lo, int32_t hi)
{
    if (lo < h->lo_idx)
        h->lo_idx = lo;
    if (hi > h->hi_idx)
        h->hi_idx = hi;
}

static void note_min_max(hist *h, int64_t min, int64_t max)
{
    if (min < h->min_us)
        h->min_us = min;
    if (max > h->max_us)
        h->max_us = max;
}

void hist_record_n_us(hist *h, int64_t value_us, int64_t n)
{
    if (n <= 0)
        return;
    int64_t v = value_us < 0 ? 0 : value_us;
    if (v > HIST_HIGHEST_US) {
        v = HIST_HIGHEST_US;
        h->clamped += n;
    }
    int32_t idx = hist_index_of(v);
    int64_t *slot = hist_slot(h, idx);
    if (!slot) {
        h->dropped += n;
        return;
    }
    *slot += n;
    h->total += n;
    note_min_max(h, v, v);
    widen_range(h, idx, idx);
}


void hist_merge(hist *dst, const hist *src)
{
    dst->not_ok += src->not_ok;
    dst->dropped += src->dropped;
    if (src->total == 0)
        return;
    for (int32_t c = src->lo_idx >> HIST_CHUNK_SHIFT; c <= src->hi_idx >> HIST_CHUNK_SHIFT; c++) {
        uint8_t p = src->chunk_at[c];
        if (!p)
            continue;
        const int64_t *from = &src->pool[(int32_t)(p - 1) << HIST_CHUNK_SHIFT];
        int64_t *to = hist_slot(dst, c << HIST_CHUNK_SHIFT);
        if (!to) {                      /* out of memory: count what is lost */
            for (int32_t i = 0; i < HIST_CHUNK_LEN; i++)
                dst->dropped += from[i];
            continue;
        }
        for (int32_t i = 0; i < HIST_CHUNK_LEN; i++)
            to[i] += from[i];
    }
    dst->total += src->total;
    dst->clamped += src->clamped;
    note_min_max(dst, src->min_us, src->max_us);
    widen_range(dst, src->lo_idx, src->hi_idx);
}

/* ceil(p/100 * total), >= 1.  The small downward nudge absorbs floating-point
 * error so that e.g. p99.9 of 1000 values is rank 999, not 1000 (the Java
 * implementation nudges p with nextAfter for the same reason). */
static int64_t rank_at(double p, int64_t total)
{
    double fp = p * (double)total / 100.0;
    int64_t rank = (int64_t)ceil(fp - fp * 4 * DBL_EPSILON);
    if (rank < 1)
        rank = 1;
    return rank < total ? rank : total;
}

static int64_t clamp_to_min_max(const hist *h, int64_t v)
{
    if (v < h->min_us)
        return h->min_us;
    return v > h->max_us ? h->max_us : v;
}

int64_t hist_percentile_us(const hist *h, double p)
{
    if (h->total == 0)
        return 0;
    if (p >= 100.0)
        return h->max_us;
    if (!(p > 0.0))   /* also catches NaN */
        return h->min_us;
    int64_t rank = rank_at(p, h->total), seen = 0;
    int32_t i = h->lo_idx;
    for (; i < h->hi_idx; i++) {
        if (!h->chunk_at[i >> HIST_CHUNK_SHIFT]) {      /* a whole chunk of zeros */
            i |= HIST_CHUNK_LEN - 1;
            continue;
        }
        seen += hist_count_at(h, i);
        if (seen >= rank)
            break;
    }
    int64_t v = hist_highest_equivalent(hist_value_at_index(i));
    return clamp_to_min_max(h, v);
}

double hist_mean_us(const hist *h)
{
    if (h->total == 0)
        return 0.0;
    double sum = 0.0;
    for (int32_t i = h->lo_idx; i <= h->hi_idx; i++) {
        int64_t c = hist_count_at(h, i);
        if (c)
            sum += (double)hist_median_equivalent(hist_value_at_index(i)) * (double)c;
    }
    return sum / (double)h->total;
}

double hist_stdev_us(const hist *h)
{
    if (h->total == 0)
        return 0.0;
    double mean = hist_mean_us(h), dev = 0.0;
    for (int32_t i = h->lo_idx; i <= h->hi_idx; i++) {
        int64_t c = hist_count_at(h, i);
        if (!c)
            continue;
        double d = (double)hist_median_equivalent(hist_value_at_index(i)) - mean;
        dev += d * d * (double)c;
    }
    return sqrt(dev / (double)h->total);
}

int64_t hist_min_us(const hist *h)
{
    return h->total ? h->min_us : 0;
}

int64_t hist_max_us(const hist *h)
{
    return h->total ? h->max_us : 0;
}
