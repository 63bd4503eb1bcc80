/* view.h - one closed interval as every output sees it (view.c): the run's
 * data with its threshold verdicts (thresholds.c) and generator health
 * (health.c), each evaluated once, and the interval bus that hands that
 * view to the sinks (the live outputs, the result files, histograms.hlog,
 * a job log's progress line).  Also the verdicts and health themselves,
 * for a caller without a view (a phased run's top-level criteria). */
#ifndef LUAMECH_REPORT_VIEW_H
#define LUAMECH_REPORT_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "scenario/scenario.h"
#include "stats/run_result.h"
#include "stats/threshold.h"

/* Thresholds.  A run's own criteria (a scenario's, or a phase's) are
 * evaluated on that run's totals; the top-level criteria of a phased
 * scenario on the data of all its phases merged (report_run_*). */
typedef struct th_result {
    const threshold *t;
    double measured;          /* valid when state == TH_MEASURED */
    th_state state;
    int found;                /* the subject exists (state != TH_NO_DATA) */
    char hint[256];           /* no data: the nearest timer or metric name the run has, or "" */
    int64_t unselected;       /* a narrower tag selector ("http.*{k:v}"): tagged timers of its
                               * family carrying the tags that it did not select (named calls) */
    char unselected_name[200];    /* the first of them */
    int passed;
    int64_t failed;           /* failed samples of the subject */
    int exact;                /* a timer was named the whole subject, view suffix included:
                               * its default view was judged, not t->view of t->family */
    const char *applies;      /* TH_NOT_APPLICABLE: what the subject is, which stats apply */
    int64_t run_tx, run_failed;   /* the runs' transactions and failed ones (why no samples) */
    int64_t run_req_errors;   /* ... and their failed requests */
} th_result;

/* Generator health per interval; *suspect when the generator itself may
 * have been the bottleneck (reasons in why). Caller frees *rows. */
typedef struct health_row {
    double cpu_pct, lag_p99_ms, lag_max_ms, sched_p99_ms;
    double cpu_wait_pct;      /* workers ready to run but without a CPU, % of the interval */
    int64_t late, skipped;
    /* engine.dispatch_delay: how long completions waited for the loop */
    int64_t dispatch_count;
    double dispatch_p50_ms, dispatch_p99_ms, dispatch_max_ms;
    /* their sum per transaction, and as a share of the mean latency of
     * "All Transactions (uncorrected)" (else "All Transactions") */
    double inflation_ms, inflation_pct;
} health_row;
/* Dispatch delay summed over the run per transaction (ms) and its share of
 * the mean transaction latency (%): by how much the figures may be inflated. */
void report_health_inflation(const run_result *r, double *ms, double *pct);
int report_health(const run_result *r, health_row **rows, int *suspect, char *why, size_t why_len);

/* ---- view.c: one closed interval as every output sees it ---- */
/* The run's merged data with its threshold verdicts and generator health,
 * each evaluated on first use and kept: built once per closed interval
 * (runner, merge --follow) and handed to every output, so that thresholds
 * and health are evaluated once per interval, not once per output.  An
 * output given NULL builds its own. */
typedef struct report_view {
    const scenario *sc;
    const run_result *r;
    int th_done, th_failed;
    th_result *th;           /* sc->nthresholds verdicts (NULL: out of memory) */
    int health_done, nhealth, suspect;
    health_row *health;
    char why[1024];
} report_view;
void report_view_init(report_view *v, const scenario *sc, const run_result *r);
const th_result *report_view_thresholds(report_view *v, int *failed);
const health_row *report_view_health(report_view *v, int *n, int *suspect, const char **why);
void report_view_free(report_view *v);

/* The interval bus: the sinks of a run's closed intervals (the live
 * outputs, the result files, histograms.hlog, a job log's progress line),
 * each handed the interval's one view in the order added.  Not a sink: the
 * progress line on a terminal (a line a second, not an interval event). */
#define REPORT_BUS_MAX 8
typedef struct report_sink {
    const char *name;        /* what it is, for messages */
    void *self;
    void (*on_interval)(void *self, report_view *v);
} report_sink;
typedef struct report_bus {
    int n;
    report_sink sinks[REPORT_BUS_MAX];
} report_bus;
/* 0, or -1 when the bus already has REPORT_BUS_MAX sinks or on_interval is NULL. */
int report_bus_add(report_bus *b, const char *name, void *self, void (*on_interval)(void *self, report_view *v));
/* Every sink of b, in the order added, with v (built once by the caller,
 * freed by it after its own reads, e.g. the stop checks). */
void report_bus_publish(const report_bus *b, report_view *v);
/* With LUAMECH_TRACE_EVAL set in the environment, one stderr line per
 * evaluation of the thresholds or of the health ("luamech trace: WHAT
 * evaluated at N intervals"; tests/scenarios/test_eval_once.sh counts them). */
void report_trace_eval(const run_result *r, const char *what);

/* "measured 1.234 ms", "no data for X" or "no successful samples of X (N
 * failed)", into buf. */
const char *report_threshold_text(const th_result *x, char *buf, size_t len);
/* "not selected: N tagged timer(s) ... e.g. "http login{k=v}" ..." when
 * x->unselected, else "", into buf. */
const char *report_threshold_note(const th_result *x, char *buf, size_t len);
/* Fills *out (caller frees) and returns how many failed. */
int report_threshold_results(const scenario *sc, const run_result *r, th_result **out);
int report_thresholds_failed(const scenario *sc, const run_result *r);
/* abort_on_threshold's rule, the same for a run and for the merged data of
 * its segments (luamech merge --follow): the first criterion that was
 * measured and failed, counts left out (they may still grow).  Returns 1
 * and says which, with the measured figure, in why; 0 when none. */
int report_threshold_stop(report_view *v, char *why, size_t len);
/* The top-level criteria of a phased scenario sc over its first n phases'
 * results rs, merged: timers of the same name add up (histograms, errors,
 * spans), checks too.  Fills *out (caller frees), returns how many failed;
 * console.h and results.h have their table, junit.xml and JSON. */
int report_run_threshold_results(const scenario *sc, const run_result *rs, int n, th_result **out);

#endif
