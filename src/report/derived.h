/* derived.h - what the console, the result files and the live outputs
 * derive alike from a run_result: the run's span and a timer's, the rows of
 * stages, checks, fast failures (a dead server) and custom rates.  Data
 * only; the text and JSON of them are in console.h and results.h. */
#ifndef LUAMECH_REPORT_DERIVED_H
#define LUAMECH_REPORT_DERIVED_H

#include <stdint.h>

#include "scenario/scenario.h"
#include "stats/run_result.h"

/* Seconds the run's samples were taken over: t0 to the end of the graceful
 * stop's drain (run_result.span_ns; run_ns when no span is known).  Every
 * rate over the whole run is over this span. */
double report_span_s(const run_result *r);

/* Stages of staged groups: one row per stage (and the hold after the last
 * one, when it had samples), rates over the stage's own length. */
typedef struct stage_row {
    const group_cfg *group;
    int stage;                /* 1-based */
    double from, to;          /* target at the stage's start and end */
    double start_s, end_s;    /* the stage's time in the run (s since t = 0), clipped to the run */
    agg_row row;              /* period_s = end_s - start_s */
} stage_row;
int report_stage_rows(const scenario *sc, const run_result *r, stage_row **rows);
/* The span of timer t's whole-run figures, in s since t = 0: a stage
 * timer's stage (clipped to the run), the run and its graceful stop's drain
 * (report_span_s) for any other timer.  Returns its length (end - start). */
double report_timer_span(const scenario *sc, const run_result *r, const struct agg_timer *t,
                         double *start_s, double *end_s);

/* Checks, from the check counters (kinds CK_CHECK_PASS and CK_CHECK_FAIL,
 * stats/local.h): one entry per name. */
typedef struct report_check {
    const char *name;         /* points into the agg's counter names */
    int64_t passes, fails;
} report_check;
/* Returns the number of checks; caller frees *out. */
int report_checks(const agg *a, report_check **out);

/* Fast failures (fastfail.c): more than half of the transactions failed in
 * under 1 ms (a dead server); from the run's data. */
typedef struct report_fastfail {
    int64_t transactions, failed, fast;   /* fast: failed in under 1 ms */
    double share;                         /* fast / transactions */
    double from_s, to_s;                  /* the intervals where failures were the majority */
    int whole;                            /* ... were every interval */
    char text[512];                       /* the line, in words */
} report_fastfail;
/* 1 and ff filled when the run is mostly fast failures; else 0. */
int report_fast_failures(const scenario *sc, const run_result *r, report_fastfail *ff);

/* Custom metrics (metrics.c): rates and gauges are counters of their own
 * kinds (CK_RATE_TRUE, CK_RATE_FALSE, CK_GAUGE); plain counters (CK_PLAIN)
 * are the bindings' and custom counters. */
typedef struct report_rate {
    const char *name;         /* points into the agg's counter names */
    int64_t trues, falses;
    const agg_counter *t, *f; /* their counters (per-interval rows), or NULL */
} report_rate;
int report_rates(const agg *a, report_rate **out);   /* caller frees *out */

#endif
