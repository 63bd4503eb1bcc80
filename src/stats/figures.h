/* figures.h - the one definition of a timer's per-interval figures (count,
 * errors, rate, min ... p99.9, max, stdev): each figure's key in the result
 * files and streams ("p95_ms"), its short name (thresholds, compare, the
 * console's head: "p95"), unit, where it sits in an interval row (agg_row),
 * how it is computed from a histogram, how rows merge, whether a threshold
 * or `compare` may name it, which direction is worse, and which outputs
 * carry it.  Every writer of figures (summary.json, intervals.csv, the
 * console's interval table, --stream json, Prometheus, the dashboard,
 * report.html, compare, merge, thresholds) loops over figures_table();
 * adding a figure to an output is one flag here (docs/results.md, "Figures").
 * scripts/check-figures.sh fails when a figure's key is written elsewhere
 * in src/. */
#ifndef LUAMECH_FIGURES_H
#define LUAMECH_FIGURES_H

#include <stddef.h>
#include <stdint.h>

#include "stats/agg.h"
#include "stats/hist.h"

/* Ids, in the order of the table (and of summary.json's rows and
 * intervals.csv's columns). */
typedef enum fig_id {
    FIG_COUNT = 0, FIG_ERRORS, FIG_CANCELLED, FIG_SKIPPED, FIG_PERIOD, FIG_RATE,
    FIG_MIN, FIG_AVG, FIG_P50, FIG_P80, FIG_P90, FIG_P95, FIG_P99, FIG_P999, FIG_MAX, FIG_STDEV,
    FIG_N
} fig_id;

typedef enum fig_unit {
    FIG_UNIT_COUNT = 0,   /* samples: a whole number */
    FIG_UNIT_S,           /* seconds */
    FIG_UNIT_RATE,        /* per second */
    FIG_UNIT_MS           /* a latency: kept in microseconds, shown in ms; no data without a sample */
} fig_unit;

/* How the rows of several intervals or segments make one (merge, the
 * long-run buckets of report.html). */
typedef enum fig_merge {
    FIG_MERGE_SUM = 0,    /* added */
    FIG_MERGE_RATE,       /* recomputed: the summed count over the summed period */
    FIG_MERGE_MIN,        /* the lowest */
    FIG_MERGE_MAX,        /* the highest */
    FIG_MERGE_WEIGHTED,   /* weighted by count (avg) */
    FIG_MERGE_HIST        /* from the merged histograms; rows alone: the highest (the worst) */
} fig_merge;

/* Outputs (figure.outputs), each a loop over the figures carrying its bit. */
enum {
    FIG_OUT_SUMMARY = 1 << 0,   /* summary.json: timers[].summary and .intervals[] */
    FIG_OUT_CSV = 1 << 1,       /* intervals.csv's columns */
    FIG_OUT_CONSOLE = 1 << 2,   /* the console's interval table, after count, rate/s, errors */
    FIG_OUT_STREAM = 1 << 3,    /* --stream json: "timer" events and the end's totals */
    FIG_OUT_PROM = 1 << 4,      /* Prometheus: luamech_*_latency_seconds{quantile=...} */
    FIG_OUT_DASH = 1 << 5,      /* the dashboard: its timer table and latency chart */
    FIG_OUT_HTML = 1 << 6,      /* report.html: the timer tables */
    FIG_OUT_HTML_CHART = 1 << 7 /* report.html: the latency-over-time chart's lines */
};

/* Flags (figure.flags). */
enum {
    FIG_THRESHOLD = 1 << 0,     /* "SUBJECT NAME < VALUE" */
    FIG_COMPARE = 1 << 1,       /* `luamech compare` and its --fail-if */
    FIG_COMPARE_DEFAULT = 1 << 2 /* in compare's default columns */
};

/* What a figure is of a histogram (figure.q below 0). */
#define FIG_Q_NONE (-1.0)     /* not a latency */
#define FIG_Q_MIN (-2.0)
#define FIG_Q_AVG (-3.0)
#define FIG_Q_MAX (-4.0)
#define FIG_Q_STDEV (-5.0)

typedef struct figure {
    fig_id id;
    const char *key;          /* in summary.json, intervals.csv, the stream: "p95_ms" */
    const char *name;         /* thresholds, compare, console and HTML heads: "p95" */
    fig_unit unit;
    size_t off;               /* offset in agg_row */
    int is_double;            /* the agg_row field is a double (else int64_t) */
    double q;                 /* percentile (0-100], or FIG_Q_* */
    const char *prom_q;       /* Prometheus quantile label ("0.95"), or NULL */
    fig_merge merge;
    int worse;                /* 1: higher is worse; -1: lower is worse; 0: neither */
    unsigned outputs;         /* FIG_OUT_* */
    unsigned flags;           /* FIG_THRESHOLD, FIG_COMPARE, ... */
} figure;

/* A figure's key by its id's tail: FIG_KEY(P95) is "p95_ms". */
#define FIG_KEY(id) (figure_get(FIG_##id)->key)

/* The table: FIG_N rows, row i of id i. */
const figure *figures_table(void);
const figure *figure_get(fig_id id);
/* The figure whose name (or key) is s[0..len) and which has every flag of
 * `flags` (0: any); "p99_9" and "p999" also name p99.9.  NULL if none. */
const figure *figure_find(const char *s, size_t len, unsigned flags);
/* The value of f in row x, in its unit (latencies in ms).  *has is 0 when
 * it is no data (a latency of a row without a sample). */
double figure_value(const figure *f, const agg_row *x, int *has);
/* A latency figure of histogram h, in microseconds. */
double figure_of_hist_us(const figure *f, const hist *h);
/* Fills x's latency figures (FIG_MERGE_HIST, MIN, MAX, WEIGHTED) from h. */
void figures_fill_row(agg_row *x, const hist *h);
/* The table as a JSON array (for the JavaScript of the dashboard and
 * report.html): [{"key","name","unit","q","merge","worse","outputs":[...]},...].
 * A malloc'd string, or NULL. */
char *figures_json(void);
const char *figure_unit_name(fig_unit u);
const char *figure_merge_name(fig_merge m);
/* The output's name in figures_json ("summary", "csv", ...), for one bit. */
const char *figure_output_name(unsigned bit);

#endif
