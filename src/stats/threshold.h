/* threshold.h - pass/fail criteria on a run's figures, such as
 * "GET p95 < 5ms", "GET (all) p99 < 1s" (a view of the GET family), "errors rate < 0.1%", "checks rate > 99.9%",
 * "transactions rate >= 1000/s", and on custom metrics "hits rate > 95%",
 * "retries count < 10", "queue value <= 100".  Parsing is pure; evaluation reads an agg. */
#ifndef LUAMECH_THRESHOLD_H
#define LUAMECH_THRESHOLD_H

#include <stddef.h>
#include "stats/agg.h"
#include "stats/figures.h"

typedef enum th_stat {
    TH_LATENCY,      /* a latency figure of the table (threshold.fig: min, avg, p50 ... stdev), ms */
    TH_COUNT,        /* samples */
    TH_RATE,         /* samples per second */
    TH_ERRORS,       /* failed samples */
    TH_ERROR_RATE,   /* failed / all, percent */
    TH_CHECKS_RATE,  /* passed checks / all checks, percent */
    TH_FRACTION,     /* a custom rate metric: true / all, percent ("NAME rate > 95%") */
    TH_VALUE         /* a custom counter's total or a gauge's value */
} th_stat;

typedef enum th_op { TH_LT, TH_LE, TH_GT, TH_GE, TH_EQ } th_op;

/* What the plan knows of a subject before the run (run/subjects.c sets it;
 * threshold_parse leaves TH_SUBJ_UNKNOWN): a name luamech makes by itself
 * that this run may produce, as a timer or as a counter.  A known counter
 * that never moved is 0, not "no data"; a known timer without samples has
 * no "did you mean". */
typedef enum th_subject_kind { TH_SUBJ_UNKNOWN = 0, TH_SUBJ_TIMER, TH_SUBJ_COUNTER } th_subject_kind;

#define TH_MAX_TAGS 16
#define TH_TAG_LEN 64

typedef struct threshold {
    char text[256];          /* as written */
    char timer[200];         /* the subject as written ("transactions", or none: "All
                              * Transactions"), view suffix included: for messages */
    char family[200];        /* the subject without its view suffix: a timer family
                              * (stats/agg.h) or a tag selector */
    timer_view view;         /* its suffix " (uncorrected)", " (all)", " (default)";
                              * none: TV_DEFAULT */
    th_stat stat;
    int fig;                 /* the figure (stats/figures.h fig_id) of TH_LATENCY, TH_COUNT, TH_RATE
                              * and TH_ERRORS; -1 for the others */
    th_op op;
    th_subject_kind subject_kind;   /* set before the run by run/subjects.c */
    double limit;            /* in the stat's unit: ms, count, per second, percent */
    /* A tag selector "BASE{k=v,...}" (or k6's "BASE{k:v}"): ntags > 0, and
     * the criterion is evaluated on every tagged timer whose tagged_of
     * matches BASE (a glob: * and ? wildcards; empty: any; a family, one
     * word such as "http": tagged_of is it or starts with "http." or
     * "http ") and whose tags include every k=v, their histograms merged. */
    int ntags;
    char base[200];
    char tag_k[TH_MAX_TAGS][TH_TAG_LEN + 1], tag_v[TH_MAX_TAGS][TH_TAG_LEN + 1];
} threshold;

/* What a criterion is evaluated on: its subject timer's figures over one
 * span (possibly merged from several runs, e.g. the phases of a run), or
 * the check counters. */
typedef struct th_input {
    const hist *h;           /* successful samples (an "(all)" view: every sample, its
                              * failed ones counted by h->not_ok); NULL when the timer
                              * does not exist */
    int64_t errors;          /* failed samples */
    double span_s;           /* the span the samples were taken over (rates) */
    int64_t checks_pass, checks_all;
    int has_metric;          /* a counter or gauge of the subject's name exists */
    int metric_gauge;        /* ... and it is a gauge */
    int64_t metric;          /* its total (a gauge: its value at the end) */
    int64_t rate_true, rate_all;   /* a custom rate of the subject's name */
    double run_span_s;       /* the runs' spans, summed (a counter's rate) */
} th_input;

/* The outcome of one evaluation. */
typedef enum th_state {
    TH_MEASURED,             /* *value holds the figure */
    TH_NO_DATA,              /* no such timer, or no check at all: the criterion fails */
    TH_NO_SUCCESS,           /* a latency criterion over a timer without a successful sample: fails */
    TH_NOT_APPLICABLE        /* the stat does not apply to the subject (a counter's p95, a gauge's
                              * rate per second): fails, threshold_applies says why */
} th_state;

/* Parse one criterion; returns 0, or -1 with the reason in err. */
int threshold_parse(const char *text, threshold *t, char *err, size_t err_len);
/* 1 for criteria on a latency figure (min ... stdev, in ms). */
int threshold_is_latency(const threshold *t);
/* The family head of t's subject in a and, in *view, which of its views:
 * a head named the whole subject wins (a group called "a (uncorrected)":
 * its default view), else the head named t->family with t->view; NULL when
 * neither exists. */
const agg_timer *threshold_family(const threshold *t, const agg *a, timer_view *view);
/* 1 when t has a view suffix and a head of a is named its whole subject
 * (threshold_family's first rule). */
int threshold_exact(const threshold *t, const agg *a);
/* The subject timer of t in a: view *view of threshold_family's head, or
 * NULL (no such family, or no such view of it). */
const agg_timer *threshold_timer(const threshold *t, const agg *a);
/* View v of head as a threshold reads it: agg_view, but a family without
 * an "all" view (engine timers) gives its default view, as a missing "all"
 * view means everywhere. */
const agg_timer *threshold_view_of(const agg_timer *head, timer_view v);
/* A tag selector: 1 when a tagged timer of tagged_of whose tag values are
 * given by tag(ctx, name) (NULL: no such tag) is selected by t. */
int threshold_tags_match(const threshold *t, const char *tagged_of,
                         const char *(*tag)(void *ctx, const char *name), void *ctx);
/* Adds a's check counters to *pass and *all. */
void threshold_checks_add(const agg *a, int64_t *pass, int64_t *all);
/* Adds a's custom metrics named as t's subject (a counter, a gauge, a
 * rate; lm_metrics.c) to in. */
void threshold_metrics_add(const threshold *t, const agg *a, th_input *in);
/* Evaluates t on in; *value is set when the result is TH_MEASURED. */
th_state threshold_eval(const threshold *t, const th_input *in, double *value);
/* For TH_NOT_APPLICABLE: what the subject is and which stats apply to it
 * ("a counter: count, value and rate (per second) apply"), from in (or,
 * in NULL, from t->subject_kind). */
const char *threshold_applies(const threshold *t, const th_input *in);
/* 1 when t's stat can be judged on a counter (count, value, rate per second). */
int threshold_counter_stat(const threshold *t);
/* summary.json's thresholds[].subject_kind: "timer", "counter", or NULL
 * (unknown); and back (NULL or another word: TH_SUBJ_UNKNOWN), for
 * `luamech merge`, which reads the criteria from there. */
const char *threshold_subject_kind_name(th_subject_kind k);
th_subject_kind threshold_subject_kind_parse(const char *s);
/* 1 when the measured value satisfies the criterion. */
int threshold_passes(const threshold *t, double value);
const char *threshold_unit(const threshold *t);   /* "ms", "/s", "%", "" */

#endif
