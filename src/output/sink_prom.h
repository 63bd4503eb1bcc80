/* sink_prom.h - the samples of one remote-write push (prom_series.c): which
 * metrics luamech sends, with which labels (docs/outputs.md), and their
 * packing into a WriteRequest (protobuf-c). */
#ifndef LUAMECH_SINK_PROM_H
#define LUAMECH_SINK_PROM_H

#include <stddef.h>
#include <stdint.h>

#include "output/output_priv.h"

#define PROM_MAX_LABELS (OUTPUT_MAX_LABELS + 9)

typedef struct prom_series {
    int nl;
    const char *lname[PROM_MAX_LABELS];   /* point into the run, the config or own[] */
    const char *lval[PROM_MAX_LABELS];    /* NULL: own[] */
    char metric[80];
    char own[40];            /* le= or quantile= value */
    double v;
    int native;              /* > 0: a native histogram, b->nh[native - 1], instead of v */
} prom_series;

/* A native histogram (integer counts: exact zeros in the zero bucket, the
 * rest in positive buckets), its spans and deltas as remote write has them. */
typedef struct prom_native {
    int schema;
    int64_t count;
    int64_t zero;            /* samples of 0 us (the zero bucket, threshold 0) */
    double sum;
    int nspans;
    int32_t *span_off;       /* offset of each span (the first: its first index) */
    uint32_t *span_len;
    int ndeltas;
    int64_t *deltas;         /* each bucket's count minus the previous bucket's */
} prom_native;

typedef struct prom_batch {
    int n, cap;
    prom_series *s;
    int nbase;               /* labels of every series: run_id, scenario, phase, segment, the user's */
    char segment[32];        /* "i/N" of --segment i/N */
    const char *bname[PROM_MAX_LABELS], *bval[PROM_MAX_LABELS];
    int64_t ts_ms;           /* the samples' timestamp */
    int64_t dropped;         /* samples dropped so far (reported as a counter) */
    int native_hist;         /* histograms=native */
    int nnh, nh_cap;
    prom_native *nh;
    const scenario *sc;      /* the groups' names (a group timer carries its index) */
} prom_batch;

void prom_batch_init(prom_batch *b, const output_run *run, const output_stream_cfg *c, int64_t dropped);
/* Every series of interval k (cumulative ones over the run so far). */
void prom_batch_fill(prom_batch *b, const output_run *run, int k);
/* A serialised WriteRequest (malloc'd, *len bytes), or NULL. */
uint8_t *prom_batch_pack(const prom_batch *b, size_t *len);
void prom_batch_free(prom_batch *b);
/* "user:password" in base64 into out (NUL-terminated, truncated to len). */
void prom_base64(const char *in, char *out, size_t len);
/* The classic histogram's upper bounds in seconds (+Inf not included), at
 * most max of them into bounds; returns how many. */
int prom_bucket_bounds(double *bounds, int max);
/* The native-histogram schema for luamech's histograms: the finest whose
 * bucket (a factor 2^(2^-schema) wide) is not finer than their precision
 * (HIST_SIG_DIGITS), at most 8 (Prometheus's finest). */
int prom_native_schema(void);
/* The index of the native bucket of schema that holds v (> 0). */
int32_t prom_native_index(double v, int schema);

#endif
