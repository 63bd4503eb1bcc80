/* console.h - the console: the live progress line and the end report (the
 * compact default, the full one, a segment's three lines), and the text
 * tables of its parts (thresholds, phases, health, fast failures, custom
 * metrics).  They read a run_result; they never touch the engine, Lua or
 * sockets. */
#ifndef LUAMECH_REPORT_CONSOLE_H
#define LUAMECH_REPORT_CONSOLE_H

#include <stddef.h>
#include <stdio.h>

#include "scenario/scenario.h"
#include "stats/run_result.h"

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

/* "1.234" ms from microseconds. */
double report_ms(double us);
/* A latency cell of a text table, width w: us in ms to 3 decimals, or "–"
 * (right-aligned) when has is 0.  Returns buf. */
const char *report_ms_cell(char *buf, size_t len, int w, double us, int has);

/* The generator health table (health.c). */
void report_health_table(FILE *out, const run_result *r);
/* The thresholds table: a run's own criteria, and a phased scenario's
 * top-level ones over its first n phases merged (view.h). */
void report_thresholds(FILE *out, const scenario *sc, const run_result *r);
void report_run_thresholds(FILE *out, const scenario *sc, const run_result *rs, int n);
/* The table of a phased scenario's runs. */
void report_phases(FILE *out, const scenario *sc, const run_result *rs, int n);
/* The line on a run of mostly fast failures (derived.h), when it is one. */
void report_fast_failures_console(FILE *out, const scenario *sc, const run_result *r);
/* Transactions still in flight when the run ended (cut short: "cancelled")
 * and runs that completed none (health.c): 1 with the warning's text in
 * buf, its in-flight count in *in_flight and whether none completed in
 * *none; 0 when neither (or when the run never started: aborted). */
int report_unfinished(const run_result *r, int64_t *in_flight, int *none, char *buf, size_t len);
/* Its "WARNING:" line, when there is one; pad: spaces after "WARNING:". */
void report_unfinished_console(FILE *out, const run_result *r, int pad);
/* The console's Rates and Gauges tables. */
void report_metrics(FILE *out, const run_result *r);

#endif
