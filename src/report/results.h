/* results.h - the results directory: its path and creation, the copy of
 * the scenario and of the files its scripts read, and the files written in
 * it (summary.json, intervals.csv, counters.csv, errors.csv, junit.xml, a
 * phased run's phases.csv), whole or appended while the run goes on, and the
 * JSON and CSV rows they are made of.  Each file is written to a temporary
 * file and renamed, so a reader never sees a half-written one. */
#ifndef LUAMECH_REPORT_RESULTS_H
#define LUAMECH_REPORT_RESULTS_H

#include <stddef.h>
#include <stdio.h>

#include "report/schema.h"
#include "report/view.h"
#include "scenario/scenario.h"
#include "stats/figures.h"
#include "stats/run_result.h"

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

struct json_t;
/* An interval or summary row as a JSON object: the figures carrying the
 * bit `output` (FIG_OUT_SUMMARY, FIG_OUT_STREAM; stats/figures.h) by key.
 * A row without a latency sample (agg_row.sampled 0: every sample failed,
 * or none) has no latency: its latency figures are null ("" in CSV, "–" in
 * text; docs/results.md).  NULL when out of memory. */
struct json_t *report_row_json(const agg_row *x, unsigned output);

/* report_write_json and report_append_all with the interval's view. */
int report_write_json_view(const char *dir, const char *status, int exit_code, report_view *v);
int report_write_all_view(const char *dir, const char *status, int exit_code, report_view *v);
struct report_appender;
int report_append_view(struct report_appender *a, const char *status, int exit_code, int final, report_view *v);

/* DIR/junit.xml, one testcase per threshold (nothing when there are none). */
int report_write_junit(const char *dir, const scenario *sc, const run_result *r);
/* The same with the interval's view (its verdicts evaluated once). */
int report_write_junit_view(const char *dir, report_view *v);
/* The same for a phased scenario's top-level criteria over its first n
 * phases merged (report_run_threshold_results, view.h), and summary.json's
 * "thresholds" array of verdicts. */
int report_write_run_junit(const char *dir, const scenario *sc, const run_result *rs, int n);
struct json_t *report_thresholds_json(const th_result *res, int n);
struct json_t *report_run_thresholds_json(const scenario *sc, const run_result *rs, int n);

/* A phased run's top directory: summary.json and phases.csv. */
int report_write_phases(const char *dir, const scenario *sc, const run_result *rs, int n, int exit_code);
/* summary.json's "fast_failures" (derived.h). */
struct json_t *report_fast_failures_json(const scenario *sc, const run_result *r);   /* JSON null when none */
/* summary.json's "warnings": the end report's warnings, one object each
 * (kind, text, and the kind's figures), [] when none (health.c); before
 * the end (final 0: a running snapshot) not the in-flight one nor "no
 * transaction completed", which only the end can say.  suspect and why:
 * the view's generator health (report_view_health), not evaluated again. */
struct json_t *report_warnings_json(const scenario *sc, const run_result *r, int final, int suspect,
                                    const char *why);
/* summary.json "rates" and "gauges"; lz (report/lazy_json.h, or NULL: the
 * rows built whole) writes their per-interval rows one at a time */
struct lazy_json;
struct json_t *report_rates_json(const agg *a, struct lazy_json *lz);
struct json_t *report_gauges_json(const agg *a, struct lazy_json *lz);

#endif
