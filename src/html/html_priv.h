/* html_priv.h - what the files of report.html share (html.c: the page and
 * the entry points; html_tables.c: the sections' tables; html_charts.c: the
 * charts).  Private to src/html/html*.c; the public entry points are in
 * html.h. */
#ifndef LUAMECH_HTML_PRIV_H
#define LUAMECH_HTML_PRIV_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "report/summary_read.h"
#include "stats/figures.h"

/* ---- the page's CSS and JavaScript (html.c) ---- */

/* src/html/report.css and report.js, embedded in the binary at build time
 * (third_party/embed_files.cmake) and written inline into the page. */
#define HTML_CSS_FILE "src/html/report.css"
#define HTML_JS_FILE "src/html/report.js"
/* The embedded file at path (NUL-terminated), or NULL when the build has
 * none (html_render refuses to write a page without them). */
const char *html_asset(const char *path);

/* ---- JSON access (html.c): missing or mistyped fields read as 0 / NULL ---- */

json_t *html_get(json_t *o, const char *k);
double html_num(json_t *o, const char *k);
/* A latency figure in ms ("%.3f"), or "&ndash;" when o's k is not a number
 * (null: no latency sample, docs/results.md): never a 0 for no data.
 * Returns buf. */
const char *html_ms(json_t *o, const char *k, char *buf, size_t len);
long long html_int(json_t *o, const char *k);
const char *html_str(json_t *o, const char *k);
/* Text and attribute values, HTML-escaped (NULL writes nothing). */
void html_esc(FILE *f, const char *s);

/* ---- reading summary.json (html_load.c) ---- */

/* The most points a per-interval array keeps on the page. */
#define HTML_MAX_POINTS 1000
/* summary.json at path, parsed; when a per-interval array is longer than
 * HTML_MAX_POINTS, every K consecutive elements of each are merged into one
 * (rows get "first_interval" and "intervals_merged"), read as a stream so
 * memory does not grow with the run.  *merged: K (1: the file as it is).
 * NULL on error, with je. */
json_t *html_load_summary(const char *path, json_error_t *je, size_t *merged);
/* Interval row k's first and last interval numbers (1-based; rows merged
 * by html_load_summary cover several). */
void html_row_span(json_t *row, size_t k, size_t *first, size_t *last);

/* ---- timers and sections (html_tables.c) ---- */

/* The part of the page a timer goes to, by its "kind" (HK_PRIMITIVE also
 * takes kinds this version does not know). */
enum { HK_ALL, HK_GROUP, HK_CUSTOM, HK_PRIMITIVE, HK_STAGE, HK_ENGINE, HK_N };

/* The page reads summary.json in schema 2's shape (summary_normalise,
 * report/summary_read.h: a schema-1 file's twins already folded into their
 * family's "views"): each timers[] entry is a family. */
/* The timers of category c in file order.  out has room for every timer;
 * returns how many. */
size_t html_order(json_t *timers, int c, size_t *out);
/* A timer's views: itself (the default view), its "uncorrected" and "all"
 * views. */
enum { HV_MAIN, HV_UNCORRECTED, HV_ALL, HV_N };
/* View `view` of timer t (HV_MAIN: t), NULL when it has none (summary_view). */
json_t *html_view_of(json_t *t, int view);
/* A timer's name in headings and the contents ("group " prefix dropped). */
const char *html_timer_label(json_t *t);
/* One section per timer of category c, with a switch between its views. */
void html_timers(FILE *f, json_t *timers, int c, const char *heading_tag, int open_intervals);
/* The table of the "stage K GROUP" timers (nothing when there are none). */
void html_stages(FILE *f, json_t *root, json_t *timers);
void html_tally(FILE *f, json_t *arr, const char *id, const char *title, const char *what);
void html_checks(FILE *f, json_t *arr);
void html_segments(FILE *f, json_t *root);    /* luamech merge's per-segment table */
/* "exit code N (meaning)" */
void html_exit_code(FILE *f, json_t *root);
void html_thresholds(FILE *f, json_t *root);
void html_suspect_banner(FILE *f, json_t *root);
/* 1 when there are generator health figures or engine timers to show. */
int html_has_generator(json_t *root);
void html_generator(FILE *f, json_t *root);
/* How many counters the counters table lists. */
size_t html_counters_shown(json_t *root);
void html_counters(FILE *f, json_t *root);
/* Custom rates and gauges (summary.json "rates", "gauges"), when any. */
size_t html_metrics_shown(json_t *root);
void html_metrics(FILE *f, json_t *root);

/* ---- the headline (html_verdict.c) ---- */

/* The verdict of a run's page (status, thresholds, errors, suspect) and of
 * a phased run's index, in words and colour (class ok, warn or bad). */
void html_verdict(FILE *f, json_t *root);
void html_phases_verdict(FILE *f, json_t *root);
/* The closed-loop caveat, once, when a group of the run is closed. */
void html_closed_caveat(FILE *f, json_t *root);

/* ---- charts (html_charts.c) ---- */

/* The three charts of view `view` of timer idx (NULL: the default view;
 * else data-timer-view); with twin, its rt chart draws the p99 of the
 * uncorrected view too (data-twin-view). */
void html_timer_charts(FILE *f, size_t idx, const char *view, int twin);
void html_health_charts(FILE *f);
/* The first screen's charts: throughput and errors, latency percentiles over
 * time (of timer idx, with its uncorrected view's p99 when twin), active VUs
 * and target. */
void html_overview_charts(FILE *f, size_t idx, int twin, int has_load);
void html_load_charts(FILE *f, int has_rate);
/* The "Load" section: VUs over time, target vs achieved rate (load in summary.json). */
void html_load(FILE *f, json_t *root);
void html_phase_charts(FILE *f);
/* The <noscript> note, the embedded copy of root and the drawing script. */
void html_charts_script(FILE *f, json_t *root, size_t merged);

#endif
