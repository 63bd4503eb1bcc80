/* agg.h - the main thread's view of a run: merges the workers' tick messages
 * in lockstep (tick t is merged once every worker has sent tick t or has
 * finished), closes statistics intervals anchored at the run's start, and
 * keeps per timer the whole-run histogram and one summary row per interval.
 * Memory is constant in the number of samples. */
#ifndef LUAMECH_AGG_H
#define LUAMECH_AGG_H

#include <stdint.h>
#include "stats/hist.h"
#include "stats/local.h"
#include "stats/tally.h"

/* Summary figures of one histogram over one period; times in microseconds. */
typedef struct agg_row {
    int64_t count;        /* samples, failures included (an "(all)" timer: also
                           * cancelled and skipped ones) */
    int64_t errors;       /* failed samples (not in the latency figures, but
                           * in an "(all)" timer's) */
    int64_t cancelled;    /* samples cut short by a hard stop (not in count,
                           * but in an "(all)" timer's) */
    int64_t skipped;      /* arrivals that never started (rate groups; not in
                           * count, but in an "(all)" timer's) */
    int64_t sampled;      /* samples in the latency figures (the histogram's): 0 means
                           * the latency figures below are no data, not 0 ms */
    double period_s;      /* length of the period the rate is over */
    double rate;          /* count / period_s */
    int64_t min_us, p50_us, p80_us, p90_us, p95_us, p99_us, p999_us, max_us;
    double avg_us, stdev_us;
} agg_row;

typedef struct agg_timer {
    char *name;
    timer_kind kind;
    timer_role role;      /* TR_TWIN also for the "(all)" twins */
    struct agg_timer *all;   /* its "NAME (all)" twin: latency over every sample,
                              * failed, cancelled and skipped ones included; NULL
                              * for twins and engine timers */
    const struct agg_timer *of;  /* for an "(all)" twin: its timer; else NULL */
    struct agg_timer *uncorrected;   /* its "(uncorrected)" twin (latency from the
                                      * actual start), when it is timed from the
                                      * intended start; else NULL */
    const struct agg_timer *twin_of; /* for an "(uncorrected)" twin: its timer; else NULL */
    int group;            /* group and stage timers (and their twins): the
                           * scenario's group index; else -1 */
    int stage;            /* stage timers (and their twins): from 1; else 0 */
    char *tags;           /* a tagged timer (and its "(all)" twin): its data
                           * fields, a JSON object's text; else NULL */
    hist total;
    hist interval;        /* the open interval */
    hist recent;          /* the last merged tick, for live progress (All
                           * Transactions only; empty for the others) */
    int64_t total_errors, interval_errors, recent_errors;
    int64_t total_cancelled, interval_cancelled;
    int64_t total_skipped, interval_skipped;
    int nrows, cap_rows;
    agg_row *rows;        /* one per closed interval; zeros when empty */
} agg_timer;

typedef struct agg_counter {
    char *name;
    counter_kind kind;    /* of the first tick that had it (stats/local.h) */
    const char *base;     /* name without its kind's prefix: a check's, gauge's or
                           * rate's own name (points into name) */
    int64_t total, interval;
    int nrows, cap_rows;
    int64_t *rows;        /* one per closed interval */
} agg_counter;

struct agg_timer;
/* Called for every timer when an interval closes, with that interval's
 * histogram (e.g. to append it to an HdrHistogram interval log). */
typedef void (*agg_hist_fn)(void *ctx, const struct agg_timer *t, int interval,
                            double start_s, double len_s, const hist *h);

typedef struct agg {
    int nworkers;
    int64_t tick_ns, interval_ns;
    int64_t ticks_per_interval;
    int n, cap;
    agg_timer **timers;
    names index;                /* (name, kind) -> index in timers */
    int max_timers;             /* cap on distinct custom + primitive names */
    int ncapped;
    char *overflow_name;        /* the first name past the cap, or NULL */
    timer_kind overflow_kind;
    int ncounters, cap_counters;
    agg_counter **counters;
    tally errors;               /* failed transactions, by message */
    tally req_errors;           /* failed requests of primitives, by message */
    int64_t next_tick;          /* next tick to merge */
    int nintervals;             /* closed intervals */
    int64_t active_vus, started_vus;
    int nrows_vus, cap_vus;
    int64_t *vus_rows;          /* active VUs at the end of each closed interval */
    /* lockstep queues, one per worker */
    struct tick_msg **head, **tail;
    int *finished;
    agg_hist_fn on_hist;        /* optional */
    void *on_hist_ctx;
    /* optional: takes each merged message (else it is freed here): the
     * engine hands it back to the worker that made it, for reuse */
    void (*give_back)(void *ctx, struct tick_msg *m);
    void *give_back_ctx;
    int64_t rows_lost;          /* interval rows not kept for lack of memory */
} agg;

/* tick_ns divides interval_ns.  The cap on timer names is STATS_MAX_TIMERS;
 * set max_timers after it to change it. */
void agg_init(agg *a, int nworkers, int64_t interval_ns, int64_t tick_ns);
/* Takes ownership of m. Merges every tick that is complete. Returns the
 * number of intervals closed by this call. */
int agg_push(agg *a, tick_msg *m);
/* At the end of the run: close the open interval; its length is what
 * remains of run_ns. */
void agg_finish(agg *a, int64_t run_ns);
/* The same, when samples were still taken after run_ns (the graceful stop's
 * drain) until span_ns: the last interval's period, and so its rate, runs to
 * span_ns, the end of sampling.  Returns the end of the last interval (ns
 * since t0): the span the summary rates are over. */
int64_t agg_finish_span(agg *a, int64_t run_ns, int64_t span_ns);
/* 1 when the open interval holds a sample, an error or a counter value
 * (samples of a preflight in a run stopped before t0). */
int agg_open_has_data(const agg *a);
/* The bounds of closed interval k, in seconds since t0: the one rule every
 * output uses (intervals.csv, the stream's events, Prometheus's timestamps).
 * It starts at k * interval and lasts the period its rows were closed over:
 * the interval, but the last one ends with sampling (agg_finish_span: the
 * graceful stop's drain, or an earlier end). */
void agg_interval_bounds(const agg *a, int k, double *start_s, double *end_s);
agg_timer *agg_find(const agg *a, const char *name);
/* The "All Transactions" timer, or NULL before the first transaction. */
agg_timer *agg_all(const agg *a);
agg_counter *agg_find_counter(const agg *a, const char *name);
/* Fill a summary row from a histogram, its failures (beyond the h->not_ok
 * failed values that are in h) and period; cancelled and skipped are 0. */
void agg_row_fill(agg_row *r, const hist *h, int64_t errors, double period_s);
/* 0 for an "(all)" twin identical to its timer (no failed, cancelled or
 * skipped sample in the run): the result files and reports leave it out;
 * thresholds can still name it. */
int agg_timer_reported(const agg_timer *t);
/* The whole-run row of t over run_s, cancelled and skipped included. */
void agg_timer_total_row(agg_row *r, const agg_timer *t, double run_s);

/* A timer family: a head (a timer that is no twin) and its views, the one
 * vocabulary of every output (Prometheus's `view` label, thresholds'
 * " (all)" suffix): the head itself (default: successes only, latency from
 * the intended start where the timer is corrected), its "(uncorrected)"
 * twin (latency from the actual start) and its "(all)" twin (latency over
 * every sample, failed, cancelled and skipped ones too).  Known from the
 * data (twin_of, of), never from a name.  None of this is on the
 * per-sample path. */
typedef enum timer_view { TV_DEFAULT, TV_UNCORRECTED, TV_ALL, TV_N } timer_view;
/* "default", "uncorrected", "all"; NULL out of range. */
const char *timer_view_name(timer_view v);
/* The view named name (timer_view_name's words), or TV_N. */
timer_view timer_view_parse(const char *name);
/* The family's head of t: t itself, or the timer t is a twin of. */
const agg_timer *agg_head(const agg_timer *t);
/* View v of the family of head: the head, or its twin; NULL when it has no
 * such view (an engine timer, a timer not timed from the intended start). */
const agg_timer *agg_view(const agg_timer *head, timer_view v);
/* Which view of its family t is. */
timer_view agg_view_of(const agg_timer *t);
/* The flat label of view v of head: "X", "X (uncorrected)", "X (all)" (the
 * twins' names; what flat outputs show: CSV rows, console, hlog tags),
 * whether the view exists or not.  Returns snprintf's count. */
int agg_view_label(const agg_timer *head, timer_view v, char *buf, size_t len);
void agg_free(agg *a);

#endif
