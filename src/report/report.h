/* report.h - writers of a run's results: the console (live progress line and
 * end report), summary.json, intervals.csv, errors.csv, and the results
 * directory with a copy of the scenario.  They read a run_result; they never
 * touch the engine, Lua or sockets. */
#ifndef LUAMECH_REPORT_H
#define LUAMECH_REPORT_H

#include <stdio.h>
#include "stats/figures.h"
#include "stats/run_result.h"
#include "scenario/scenario.h"

#define RESULTS_SCHEMA_VERSION 2   /* 2: one timers[] entry per timer family, its views nested */

const char *report_status_name(run_status s);   /* "completed", "interrupted", "aborted", "stuck" */

/* One line: elapsed/total, active VUs, transactions, rate, errors, p95
 * (rate and p95 over the last second's tick). */
void report_progress(FILE *out, const run_result *r, double elapsed_s, double total_s);
/* The same line for the interval that just closed: at its end, with its
 * rate and p95 (a job log's line per interval: the bus sink "progress"). */
void report_progress_interval(FILE *out, const run_result *r, double total_s);
/* The end report.  Compact unless full or the scenario's console = "full":
 * the verdict and thresholds, one table of the user's timers (All
 * Transactions, groups, custom timers, named requests), checks, the top
 * errors and one line on generator health (console_brief.c).  Full: every
 * table, in the spirit of multi-mechanize's report (summary, interval
 * details, custom timers), with the engine's and per-primitive timers, the
 * uncorrected views, counters and metrics. */
void report_console(FILE *out, const scenario *sc, const run_result *r, const char *out_dir, int full);
/* The compact end report (console_brief.c). */
void report_console_brief(FILE *out, const scenario *sc, const run_result *r, const char *out_dir);
/* "" or the escaped name under which the brief report lists a timer of the
 * user's (All Transactions, groups, custom timers, named requests), into
 * buf; NULL for the others (engine, per-primitive, tagged, stage, twins). */
const char *report_user_timer_name(const scenario *sc, const agg_timer *t, char *buf, size_t len);
/* A --segment run's end report: status, counts, p95 and where the results are, in three lines. */
void report_console_segment(FILE *out, const scenario *sc, const run_result *r, const char *out_dir, int code);

/* Create dir (and parents) and copy the scenario file and its scripts into
 * dir/scenario/.  Returns 0 or -1 with a message. */
int report_prepare_dir(const char *dir, const scenario *sc, char *err, size_t err_len);
/* files.c: copy the scenario file and its scripts into sub (DIR/scenario)
 * at their paths relative to the scenario's folder.  0 or -1 (errno). */
int report_copy_scenario(const char *sub, const scenario *sc);
/* After the run: copy the files the scripts read (absolute paths) that lie
 * in root (the scenario's folder, absolute) into DIR/scenario/ at the same
 * relative paths, within the limits below, and list them all in
 * DIR/summary.json as "scenario_files".  0 or -1. */
#define REPORT_COPY_FILE_MAX (64LL << 20)     /* bytes: a larger file is listed, not copied */
#define REPORT_COPY_TOTAL_MAX (256LL << 20)   /* bytes over all read files */
int report_copy_read(const char *dir, const char *root, const char *const *paths, int n);
/* Default: results/<scenario name as a path name>-<YYYYmmdd-HHMMSS> */
void report_default_dir(char *buf, size_t len, const scenario *sc);
/* A name as one path component (docs/results.md): bytes other than
 * A-Z a-z 0-9 . _ - + = , @ become '_', a leading '.' too, at most 64 bytes. */
void report_path_name(char *buf, size_t len, const char *name);
/* Phase (or suite run) i's subdirectory name: "<i+1>-<path name>". */
void report_phase_subdir(char *buf, size_t len, int i, const char *name);
/* Is dir usable as a results directory without creating anything?  Empty,
 * an existing non-directory, or a path under a non-directory or an
 * unwritable directory is not.  0, or -1 with the reason. */
int report_check_out(const char *dir, char *err, size_t err_len);
/* Creates dir (and parents) and probes that a file can be written in it.
 * 0, or -1 with the reason. */
int report_make_out(const char *dir, char *err, size_t err_len);

/* Each writes to a temporary file and renames it, so a reader never sees a
 * half-written file.  Return 0 or -1. */
int report_write_json(const char *dir, const scenario *sc, const run_result *r,
                      const char *status, int exit_code);
int report_write_intervals_csv(const char *dir, const run_result *r);
int report_write_errors_csv(const char *dir, const run_result *r);
int report_write_counters_csv(const char *dir, const run_result *r);
/* All three. */
int report_write_all(const char *dir, const scenario *sc, const run_result *r,
                     const char *status, int exit_code);

/* The result files of a running run (report/append.c): intervals.csv and
 * counters.csv get the rows of the intervals closed since the last call
 * appended (one write(2) of whole lines per file and call, to the file
 * this writer made: same inode, every earlier state a prefix); a file that
 * is missing or not as written (the directory was removed) is rewritten
 * whole, atomically, and appended to again.  errors.csv and junit.xml
 * are replaced as by report_write_all; summary.json too, but only when
 * report_summary_due (or it is missing), and always when final.  final:
 * the run is over (the last counter row's rate is over its real length). */
typedef struct report_appender report_appender;
report_appender *report_appender_new(const char *dir);   /* NULL: out of memory */
int report_append_all(report_appender *a, const scenario *sc, const run_result *r,
                      const char *status, int exit_code, int final);
void report_appender_free(report_appender *a);
/* The running run's summary.json holds every interval's rows, so it is not
 * rewritten at every interval (that is quadratic in the run's length): a
 * snapshot is due when `closed` intervals exceed those of the last snapshot
 * (`last`, -1 for none) by at least last / REPORT_SUMMARY_GROWTH (at least
 * one).  The snapshots' sizes then grow geometrically, so all of them
 * together write about REPORT_SUMMARY_GROWTH + 1 times the final file's
 * rows (8.4-8.9 times from 300 to 86,400 intervals), O(log n) snapshots,
 * and a snapshot lags the run by less than 1 / REPORT_SUMMARY_GROWTH of
 * the intervals closed. */
#define REPORT_SUMMARY_GROWTH 8
int report_summary_due(int closed, int last);
/* Rows and headers of intervals.csv and counters.csv (docs/results.md). */
/* intervals.csv's header: its columns are the figures carrying FIG_OUT_CSV
 * (stats/figures.h), in the table's order. */
void report_intervals_header(FILE *f);
#define REPORT_COUNTERS_HEADER "interval,start_s,end_s,counter,value,rate\n"
void report_interval_row(FILE *f, const agg *a, const agg_timer *t, int k);
void report_counter_row(FILE *f, const run_result *r, const agg_counter *c, int k, int final);
/* s in double quotes, a quote doubled, escaped (common/text.h). */
void report_csv_string(FILE *f, const char *s);

/* "1.234" ms from microseconds. */
double report_ms(double us);
struct json_t;
/* An interval or summary row as a JSON object: the figures carrying the
 * bit `output` (FIG_OUT_SUMMARY, FIG_OUT_STREAM; stats/figures.h) by key.
 * A row without a latency sample (agg_row.sampled 0: every sample failed,
 * or none) has no latency: its latency figures are null ("" in CSV, "–" in
 * text; docs/results.md).  NULL when out of memory. */
struct json_t *report_row_json(const agg_row *x, unsigned output);
/* A latency cell of a text table, width w: us in ms to 3 decimals, or "–"
 * (right-aligned) when has is 0.  Returns buf. */
const char *report_ms_cell(char *buf, size_t len, int w, double us, int has);
/* Seconds the run's samples were taken over: t0 to the end of the graceful
 * stop's drain (run_result.span_ns; run_ns when no span is known).  Every
 * rate over the whole run is over this span. */
double report_span_s(const run_result *r);

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
void report_health_table(FILE *out, const run_result *r);

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
} th_result;

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
/* report_write_json and report_append_all with the interval's view. */
int report_write_json_view(const char *dir, const char *status, int exit_code, report_view *v);
int report_write_all_view(const char *dir, const char *status, int exit_code, report_view *v);
struct report_appender;
int report_append_view(struct report_appender *a, const char *status, int exit_code, int final, report_view *v);

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

/* A request to stop, from `luamech merge --follow` to the segments it
 * follows (docs/distributed.md "Central thresholds"): DIR/stop_request.json,
 * {"reason": ..., "requested": RFC 3339}, written through a rename.  A
 * segment (--segment i/N, N > 1) looks for it at every interval boundary
 * and stops gracefully when it is there, with exit code 6. */
#define REPORT_STOP_FILE "stop_request.json"
int report_stop_request(const char *dir, const char *reason);
/* 1 and the reason in buf when DIR/stop_request.json is there, else 0. */
int report_stop_requested(const char *dir, char *buf, size_t len);
/* Removes a stale request (a directory used again): 0, or -1 with errno. */
int report_stop_clear(const char *dir);
/* The follower's mark, DIR/followed: while it is there, a running
 * segment's summary.json is written at every interval (for its first
 * REPORT_FOLLOWED_EVERY intervals; then on report_summary_due's schedule),
 * so the live merge and its verdict lag the segments by one interval, not
 * by an eighth of the run. */
#define REPORT_FOLLOW_FILE "followed"
#define REPORT_FOLLOWED_EVERY 1000
int report_follow_mark(const char *dir);
int report_followed(const char *dir);
void report_thresholds(FILE *out, const scenario *sc, const run_result *r);
/* DIR/junit.xml, one testcase per threshold (nothing when there are none). */
int report_write_junit(const char *dir, const scenario *sc, const run_result *r);
/* The same with the interval's view (its verdicts evaluated once). */
int report_write_junit_view(const char *dir, report_view *v);
/* The top-level criteria of a phased scenario sc over its first n phases'
 * results rs, merged: timers of the same name add up (histograms, errors,
 * spans), checks too.  As above: results, console table, junit.xml, and
 * summary.json's array (a json_t *). */
int report_run_threshold_results(const scenario *sc, const run_result *rs, int n, th_result **out);
void report_run_thresholds(FILE *out, const scenario *sc, const run_result *rs, int n);
int report_write_run_junit(const char *dir, const scenario *sc, const run_result *rs, int n);
struct json_t *report_thresholds_json(const th_result *res, int n);
struct json_t *report_run_thresholds_json(const scenario *sc, const run_result *rs, int n);

/* Phases: the table of a phased scenario's runs (console) and the top
 * directory's summary.json and phases.csv. */
void report_phases(FILE *out, const scenario *sc, const run_result *rs, int n);
int report_write_phases(const char *dir, const scenario *sc, const run_result *rs, int n, int exit_code);

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
void report_fast_failures_console(FILE *out, const scenario *sc, const run_result *r);
struct json_t *report_fast_failures_json(const scenario *sc, const run_result *r);   /* JSON null when none */

/* Custom metrics (metrics.c): rates and gauges are counters of their own
 * kinds (CK_RATE_TRUE, CK_RATE_FALSE, CK_GAUGE); plain counters (CK_PLAIN)
 * are the bindings' and custom counters. */
typedef struct report_rate {
    const char *name;         /* points into the agg's counter names */
    int64_t trues, falses;
    const agg_counter *t, *f; /* their counters (per-interval rows), or NULL */
} report_rate;
int report_rates(const agg *a, report_rate **out);   /* caller frees *out */
struct json_t;
/* summary.json "rates" and "gauges"; lz (report/lazy_json.h, or NULL: the
 * rows built whole) writes their per-interval rows one at a time */
struct lazy_json;
struct json_t *report_rates_json(const agg *a, struct lazy_json *lz);
struct json_t *report_gauges_json(const agg *a, struct lazy_json *lz);
/* The console's Rates and Gauges tables. */
void report_metrics(FILE *out, const run_result *r);


#endif
