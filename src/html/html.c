/* html.c - report.html: one self-contained page rendered FROM THE FILES of a
 * results directory (summary.json, read with jansson), never from the run's
 * memory, so `luamech report DIR` re-renders any saved run.  No network: the
 * CSS (src/html/report.css) and a small JavaScript that draws SVG line
 * charts (src/html/report.js), both embedded in the binary at build time,
 * are written inline, the data
 * is an embedded copy of summary.json, and a Content-Security-Policy forbids
 * every fetch.  The tables are static HTML (all numbers are readable without
 * JavaScript); the script draws the charts and switches a timer's views.  Every string taken from the
 * files is HTML-escaped; the embedded JSON has <, > and & as \u escapes, so
 * no data can close the <script> element.
 *
 * Page order: a warning banner when the generator is suspect (one
 * sentence, its reasons folded), the thresholds (pass/FAIL, exit code),
 * three charts of the run (throughput and errors, latency percentiles over
 * time, active VUs and target), the contents (each timer once), the
 * summary, All Transactions, groups,
 * stages (one table of the "stage" timers), custom timers, primitives, the
 * generator health (its per-interval table and charts, and the "engine"
 * timers), checks, counters (without the check.pass/check.fail counters),
 * custom rates and gauges, and the error tallies.  The file is read in
 * summary.json schema 2's shape (summary_normalise: a schema-1 file's
 * "(uncorrected)" and "(all)" twins folded into their timer's "views").
 * Each timer has one section; its views are in it, behind a switch
 * (corrected / uncorrected / all) that the
 * script shows and that changes the section's tables and charts in place;
 * without JavaScript every view is shown.  The corrected view's response
 * time chart draws both p99 lines (intended and actual start).
 *
 * This file: the page around the sections (head and CSS, title and
 * warnings, contents, summary and workload, the phases index, footer), the
 * JSON access and escaping the other parts use, and the entry points, which
 * read summary.json and replace report.html atomically.  Not here: the
 * sections' tables (html_tables.c) and the charts (html_charts.c). */
#include "html/html.h"
#include "html/html_priv.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/embedded_files.h"
#include "report/schema.h"

/* The newest summary.json schema this page reads: what results.c writes,
 * and schema 2 (summary_normalise reads it whatever the writer's version). */
#define HTML_SCHEMA_KNOWN (RESULTS_SCHEMA_VERSION > 2 ? RESULTS_SCHEMA_VERSION : 2)

/* ---- JSON access: missing or mistyped fields read as 0 / NULL ---- */

json_t *html_get(json_t *o, const char *k) { return json_is_object(o) ? json_object_get(o, k) : NULL; }

double html_num(json_t *o, const char *k) {
    json_t *v = html_get(o, k);
    return json_is_number(v) ? json_number_value(v) : 0;
}

const char *html_ms(json_t *o, const char *k, char *buf, size_t len) {
    json_t *v = html_get(o, k);
    if (json_is_number(v)) snprintf(buf, len, "%.3f", json_number_value(v));
    else snprintf(buf, len, "&ndash;");
    return buf;
}

long long html_int(json_t *o, const char *k) {
    json_t *v = html_get(o, k);
    if (json_is_integer(v)) return (long long)json_integer_value(v);
    if (json_is_real(v)) {                  /* beyond +-9.2e18 (a crafted file): mistyped, 0 */
        double d = json_real_value(v);
        return d > -9.2e18 && d < 9.2e18 ? (long long)d : 0;
    }
    return 0;
}

const char *html_str(json_t *o, const char *k) {
    json_t *v = html_get(o, k);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* ---- output helpers ---- */

/* Text and attribute values. */
void html_esc(FILE *f, const char *s) {
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*s, f);
        }
    }
}

/* A relative link: percent-encoded path, safe inside an attribute. */
static void html_href(FILE *f, const char *s) {
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("-._~/", *p))
            fputc(*p, f);
        else
            fprintf(f, "%%%02X", *p);
    }
}

static void html_errf(char *err, size_t len, const char *fmt, ...) {
    if (!err || !len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
}

/* ---- the page's CSS and JavaScript: src/html/report.css, report.js ---- */

const char *html_asset(const char *path) {
    size_t len;
    return embedded_file_find(path, &len);
}

/* ---- page pieces ---- */

static void html_head(FILE *f, const char *title) {
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
          "<meta name=\"generator\" content=\"luamech " LUAMECH_VERSION "\">\n<title>", f);
    html_esc(f, title);
    fputs("</title>\n<style>\n", f);
    const char *css = html_asset(HTML_CSS_FILE);
    fputs(css ? css : "", f);
    fputs("</style>\n</head>\n<body>\n<main>\n", f);
}

static void html_tail(FILE *f, json_t *root, size_t merged) {
    fprintf(f, "<footer>Rendered by luamech %s from summary.json (schema %lld): ", LUAMECH_VERSION,
            html_int(root, "schema_version"));
    fputs("<a href=\"summary.json\">summary.json</a>", f);
    if (!html_get(root, "phases"))
        fputs(", <a href=\"intervals.csv\">intervals.csv</a>, <a href=\"counters.csv\">counters.csv</a>, "
              "<a href=\"errors.csv\">errors.csv</a>, <a href=\"scenario/\">scenario/</a>", f);
    else
        fputs(", <a href=\"phases.csv\">phases.csv</a>", f);
    fputs(". Times in milliseconds; rates per second.</footer>\n</main>\n", f);
    html_charts_script(f, root, merged);
    fputs("</body>\n</html>\n", f);
}

static void html_kv(FILE *f, const char *key, const char *fmt, ...) {
    va_list ap;
    fprintf(f, "<tr><td>%s</td><td>", key);
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputs("</td></tr>\n", f);
}

static void html_kv_text(FILE *f, const char *key, const char *text) {
    fprintf(f, "<tr><td>%s</td><td>", key);
    html_esc(f, text);
    fputs("</td></tr>\n", f);
}

static void html_badge(FILE *f, const char *status) {
    fputs("<span class=\"badge ", f);
    html_esc(f, status);
    fputs("\">", f);
    html_esc(f, status);
    fputs("</span>", f);
}

/* The head, the <h1> title, the verdict and the start of the line under
 * it: the status badge. */
static void html_page_top(FILE *f, const char *title, json_t *root) {
    const char *status = html_str(root, "status");
    html_head(f, title);
    fputs("<h1>", f);
    html_esc(f, title);
    fputs("</h1>\n", f);
    if (json_is_array(html_get(root, "phases"))) html_phases_verdict(f, root);
    else html_verdict(f, root);
    fputs("<p class=\"sub\">", f);
    html_badge(f, status ? status : "unknown");
}

static const char *const html_sections[] = {NULL, "Groups", "Custom timers", "Primitives"};

static void html_toc(FILE *f, json_t *root) {
    json_t *timers = html_get(root, "timers");
    size_t n = json_array_size(timers), *ord = calloc(n ? n : 1, sizeof *ord);
    fputs("<nav class=\"toc\"><a href=\"#summary\">Summary</a>", f);
    if (json_array_size(html_get(root, "thresholds"))) fputs("<a href=\"#thresholds\">Thresholds</a>", f);
    for (int k = 0; ord && k <= HK_PRIMITIVE; k++) {
        size_t m = html_order(timers, k, ord);
        if (k > 0 && m) fprintf(f, "<span>%s:</span>", html_sections[k]);
        for (size_t j = 0; j < m; j++) {
            fprintf(f, "<a href=\"#t%zu\">", ord[j]);
            html_esc(f, html_timer_label(json_array_get(timers, ord[j])));
            fputs("</a>", f);
        }
        if (k == HK_GROUP && html_order(timers, HK_STAGE, ord)) fputs("<a href=\"#stages\">Stages</a>", f);
    }
    free(ord);
    if (html_has_generator(root)) fputs("<a href=\"#generator\">Generator health</a>", f);
    if (json_array_size(html_get(root, "checks"))) fputs("<a href=\"#checks\">Checks</a>", f);
    if (html_counters_shown(root)) fputs("<a href=\"#counters\">Counters</a>", f);
    if (html_metrics_shown(root)) fputs("<a href=\"#metrics\">Custom metrics</a>", f);
    fputs("<a href=\"#errors\">Errors</a><a href=\"#request-errors\">Request errors</a></nav>\n", f);
}

/* ---- a run's page ---- */

/* The end report's warnings that no other part of the page shows: the
 * transactions cut short in flight, or none completed (summary.json's
 * warnings[] of kind in_flight and no_transactions; absent in older
 * results). */
static void html_end_warnings(FILE *f, json_t *root) {
    size_t i;
    json_t *w;
    json_array_foreach(html_get(root, "warnings"), i, w) {
        const char *kind = html_str(w, "kind"), *text = html_str(w, "text");
        if (!kind || !text || (strcmp(kind, "in_flight") != 0 && strcmp(kind, "no_transactions") != 0)) continue;
        fputs("<p class=\"warn\">", f);
        html_esc(f, text);
        fputs("</p>\n", f);
    }
}

/* Under the title: status, start, run time, scenario file; then the warnings. */
static void html_run_status(FILE *f, json_t *root) {
    const char *status = html_str(root, "status");
    fputs(" &middot; ", f);
    html_esc(f, html_str(root, "start"));
    fprintf(f, " &middot; %.3f s &middot; ", html_num(root, "run_time_s"));
    html_esc(f, html_str(root, "scenario_file"));
    fputs("</p>\n", f);
    html_suspect_banner(f, root);
    html_end_warnings(f, root);
    if (status && strcmp(status, "running") == 0)
        fputs("<p class=\"warn\">A snapshot written while the run was going on: the last interval is not closed "
              "yet and the summary's rates are 0.</p>\n", f);
    if (html_str(root, "error")) {
        fputs("<p class=\"warn\">Aborted: ", f);
        html_esc(f, html_str(root, "error"));
        fputs("</p>\n", f);
    }
    if (html_int(root, "schema_version") > HTML_SCHEMA_KNOWN)
        fprintf(f, "<p class=\"warn\">summary.json has schema version %lld; this luamech knows %d: some fields "
                   "may be missing from this report.</p>\n", html_int(root, "schema_version"), HTML_SCHEMA_KNOWN);
}

static json_t *html_timer_of_kind(json_t *root, const char *kind) {
    size_t i;
    json_t *t;
    json_array_foreach(html_get(root, "timers"), i, t) {
        const char *k = html_str(t, "kind");
        if (k && strcmp(k, kind) == 0) return t;
    }
    return NULL;
}

/* The summary's left table: the scenario, its outcome and the All
 * Transactions figures. */
static void html_summary_run(FILE *f, json_t *root) {
    const char *status = html_str(root, "status");
    json_t *sum = html_get(html_timer_of_kind(root, "all"), "summary");
    fputs("<tr><td>scenario</td><td>", f);
    html_esc(f, html_str(root, "scenario"));
    fputs(" (", f);
    html_esc(f, html_str(root, "scenario_file"));
    fputs(")</td></tr>\n<tr><td>status</td><td>", f);
    html_badge(f, status ? status : "unknown");
    fputs(" (", f);
    html_exit_code(f, root);
    fputs(")</td></tr>\n", f);
    html_kv(f, "transactions", "%lld", html_int(sum, "count"));
    html_kv(f, "errors", "%lld", html_int(sum, "errors"));
    html_kv(f, "throughput", "%.2f transactions/s over %.3f s (the graceful stop's drain included)",
            html_num(sum, "rate"), html_num(sum, "period_s"));
    char m[3][32];
    html_kv(f, "p50 / p95 / p99", "%s / %s / %s ms", html_ms(sum, figure_get(FIG_P50)->key, m[0], 32),
            html_ms(sum, figure_get(FIG_P95)->key, m[1], 32), html_ms(sum, figure_get(FIG_P99)->key, m[2], 32));
    html_kv(f, "run time", "%.3f s", html_num(root, "run_time_s"));
    html_kv_text(f, "test start", html_str(root, "start"));
    html_kv_text(f, "test finish", html_str(root, "finish"));
}

/* The summary's right table: the settings the run was started with. */
static void html_summary_settings(FILE *f, json_t *root) {
    json_t *set = html_get(root, "settings");
    if (html_num(set, "run_time_s") > 0) html_kv(f, "run time (set)", "%g s", html_num(set, "run_time_s"));
    else html_kv(f, "run time (set)", "no time limit");
    html_kv(f, "rampup", "%g s", html_num(set, "rampup_s"));
    html_kv(f, "time-series interval", "%g s", html_num(set, "interval_s"));
    html_kv(f, "graceful stop", "%g s", html_num(set, "graceful_stop_s"));
    if (html_int(set, "requests") > 0) html_kv(f, "transaction budget", "%lld", html_int(set, "requests"));
    html_kv(f, "workers", "%lld", html_int(set, "workers"));
    const char *io = html_str(set, "io");          /* NULL in results older than the field */
    if (io && io[0]) html_kv_text(f, "socket I/O", io);
    html_kv(f, "seed", "%lld", html_int(root, "seed"));
    html_kv_text(f, "luamech version", html_str(root, "version"));
}

/* The groups (name, VUs, script) and the scenario's notes. */
static void html_workload(FILE *f, json_t *root) {
    json_t *g;
    size_t i;
    fputs("<h3>Workload configuration</h3>\n<div class=\"scroll\"><table class=\"workload\"><thead><tr>"
          "<th class=\"l\">group name</th><th>vus</th><th class=\"l\">script name</th></tr></thead><tbody>\n", f);
    json_array_foreach(html_get(root, "groups"), i, g) {
        fputs("<tr><td class=\"l\">", f);
        html_esc(f, html_str(g, "name"));
        fprintf(f, "</td><td>%lld</td><td class=\"l\">", html_int(g, "vus"));
        html_esc(f, html_str(g, "script"));
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
    if (html_str(root, "notes")) {
        fputs("<h3>Notes</h3>\n<pre class=\"notes\">", f);
        html_esc(f, html_str(root, "notes"));
        fputs("</pre>\n", f);
    }
}

static void html_summary(FILE *f, json_t *root) {
    fputs("<section id=\"summary\"><h2>Summary</h2>\n<div class=\"cols\"><div class=\"scroll\">"
          "<table class=\"kv\"><tbody>\n", f);
    html_summary_run(f, root);
    fputs("</tbody></table></div><div class=\"scroll\"><table class=\"kv\"><tbody>\n", f);
    html_summary_settings(f, root);
    fputs("</tbody></table></div></div>\n", f);
    html_workload(f, root);
    fputs("</section>\n", f);
}

/* All Transactions, groups, stages, custom timers, primitives; each
 * timer's views in its section. */
static void html_all_timers(FILE *f, json_t *root) {
    json_t *timers = html_get(root, "timers");
    size_t nt = json_array_size(timers), *ord = calloc(nt ? nt : 1, sizeof *ord);
    if (html_order(timers, HK_ALL, ord) == 0)
        fputs("<section id=\"t-none\"><h2>All Transactions</h2><p>No transactions.</p></section>\n", f);
    for (int k = 0; ord && k <= HK_PRIMITIVE; k++) {
        if (k > 0 && html_order(timers, k, ord)) fprintf(f, "<h2>%s</h2>\n", html_sections[k]);
        if (k == HK_ALL) html_closed_caveat(f, root);
        html_timers(f, timers, k, k == 0 ? "h2" : "h3", k == 0);
        if (k == HK_GROUP) html_stages(f, root, timers);
    }
    free(ord);
}

/* The first screen, under the verdict and the thresholds: three charts of
 * the run (html_overview_charts), All Transactions' from the intended
 * start, with its uncorrected view's p99 beside when it has one. */
static void html_overview(FILE *f, json_t *root) {
    json_t *timers = html_get(root, "timers"), *vus = html_get(html_get(root, "load"), "active_vus");
    size_t nt = json_array_size(timers), *ord = calloc(nt ? nt : 1, sizeof *ord);
    size_t m = ord ? html_order(timers, HK_ALL, ord) : 0;
    if (m > 0) {
        int twin = html_view_of(json_array_get(timers, ord[0]), HV_UNCORRECTED) != NULL;
        fputs("<section id=\"overview\"><h2>The run at a glance</h2>\n", f);
        html_overview_charts(f, ord[0], twin, json_is_array(vus) && json_array_size(vus) > 0);
        fputs("</section>\n", f);
    }
    free(ord);
}

/* depth > 0: a phase's page, which links back to the phases index. */
/* When html_load_summary merged the per-interval rows: says so. */
static void html_merged_note(FILE *f, size_t merged) {
    if (merged <= 1) return;
    fprintf(f, "<p class=\"warn\" id=\"merged-note\">A long run: the per-interval tables and charts show every %zu "
               "consecutive intervals merged into one row (at most %d rows): counts, errors and periods summed, "
               "the rate recomputed, min the lowest, avg weighted by count, every other figure (percentiles, max, "
               "lags, CPU) the highest of the %zu. <a href=\"intervals.csv\">intervals.csv</a> has every "
               "interval.</p>\n", merged, HTML_MAX_POINTS, merged);
}

static void html_run(FILE *f, json_t *root, int depth, size_t merged) {
    const char *scen = html_str(root, "scenario");
    char title[512];
    snprintf(title, sizeof title, "luamech report: %s", scen ? scen : "(unnamed)");
    html_page_top(f, title, root);
    html_run_status(f, root);
    html_merged_note(f, merged);
    if (depth > 0) fputs("<p><a href=\"../report.html\">&larr; all phases</a></p>\n", f);
    html_thresholds(f, root);
    html_overview(f, root);
    html_toc(f, root);
    html_summary(f, root);
    html_all_timers(f, root);
    html_load(f, root);
    html_generator(f, root);
    html_segments(f, root);
    html_checks(f, html_get(root, "checks"));
    html_counters(f, root);
    html_metrics(f, root);
    html_tally(f, html_get(root, "errors"), "errors", "Top errors (failed transactions)", "errors");
    html_tally(f, html_get(root, "request_errors"), "request-errors",
               "Request errors (failed requests, whether or not the script raised them)", "request errors");
    html_tail(f, root, merged);
}

/* ---- a phased run's index page ---- */

/* A phase directory from the file: relative, without "..". */
static int html_safe_dir(const char *d) {
    if (!d || !*d || d[0] == '/' || strlen(d) > 1024) return 0;
    for (const char *p = d; *p; p++) {
        if (*p == '.' && p[1] == '.' && (p == d || p[-1] == '/') && (p[2] == 0 || p[2] == '/')) return 0;
        if (*p == '\\') return 0;
    }
    return 1;
}

static int html_render(const char *dir, int depth, char *err, size_t err_len);

/* Renders phase p's own report (from the top page only); 1 when it was
 * written, so the row links to it.  The first report.html that cannot be
 * written makes *rc -2, with its message in err. */
static int html_phase_render(const char *dir, json_t *p, int depth, int *rc, char *err, size_t err_len) {
    const char *pd = html_str(p, "dir");
    if (!html_safe_dir(pd)) return 0;
    char sub[4200];
    snprintf(sub, sizeof sub, "%s/%s", dir, pd);
    char perr[1024] = "";
    int prc = depth == 0 ? html_render(sub, depth + 1, perr, sizeof perr) : -1;
    if (prc == 0) return 1;
    if (prc == -2 && *rc == 0) {
        *rc = -2;
        html_errf(err, err_len, "%s", perr);
    }
    return 0;
}

/* The page top and the phases table's head. */
static void html_phases_top(FILE *f, json_t *root) {
    const char *scen = html_str(root, "scenario");
    char title[512];
    snprintf(title, sizeof title, "luamech report: %s (phases)", scen ? scen : "(unnamed)");
    html_page_top(f, title, root);
    fprintf(f, " &middot; %lld of %lld phases ran &middot; ", html_int(root, "phases_run"),
            html_int(root, "phases_planned"));
    html_esc(f, html_str(root, "scenario_file"));
    fputs("</p>\n", f);
    html_thresholds(f, root);                 /* the whole run's, all phases merged */
    fputs("<section id=\"summary\"><h2>Phases</h2>\n<p class=\"sub\">The phases ran one after another; each "
          "has its own full report. Times in ms.</p>\n", f);
    fputs("<div class=\"scroll\"><table class=\"phases\"><thead><tr><th>#</th><th class=\"l\">phase</th>"
          "<th class=\"l\">status</th><th>transactions</th><th>errors</th><th>time (s)</th><th>per second</th>"
          "<th>p50</th><th>p95</th><th>p99</th><th>max</th></tr></thead><tbody>\n", f);
}

/* Row i: phase p, its name a link to its report when linked. */
static void html_phase_row(FILE *f, json_t *p, size_t i, int linked) {
    fprintf(f, "<tr><td>%zu</td><td class=\"l\">", i + 1);
    if (linked) {
        fputs("<a href=\"", f);
        html_href(f, html_str(p, "dir"));
        fputs("/report.html\">", f);
    }
    html_esc(f, html_str(p, "name"));
    fputs(linked ? "</a>" : " (no report: summary.json missing or invalid)", f);
    fputs("</td><td class=\"l\">", f);
    html_badge(f, html_str(p, "status") ? html_str(p, "status") : "unknown");
    long long e = html_int(p, "errors");
    char m[4][32];
    fprintf(f, "</td><td>%lld</td><td%s>%lld</td><td>%.3f</td><td>%.2f</td><td>%s</td><td>%s</td>"
               "<td>%s</td><td>%s</td></tr>\n", html_int(p, "transactions"), e > 0 ? " class=\"err\"" : "", e,
            html_num(p, "run_time_s"), html_num(p, "rate"), html_ms(p, figure_get(FIG_P50)->key, m[0], 32),
            html_ms(p, figure_get(FIG_P95)->key, m[1], 32), html_ms(p, figure_get(FIG_P99)->key, m[2], 32),
            html_ms(p, figure_get(FIG_MAX)->key, m[3], 32));
}

static void html_phases_total(FILE *f, long long tx, long long errors, double secs) {
    fprintf(f, "<tr class=\"total\"><td></td><td class=\"l\">all phases</td><td></td><td>%lld</td><td>%lld</td>"
               "<td>%.3f</td><td>%.2f</td><td></td><td></td><td></td><td></td></tr>\n", tx, errors, secs,
            secs > 0 ? (double)tx / secs : 0.0);
    fputs("</tbody></table></div>\n", f);
}

/* The index of a phased run: one row per phase, each phase's report
 * rendered too (see html_phase_render for *rc and err). */
static void html_phases(FILE *f, const char *dir, json_t *root, int depth, int *rc, char *err, size_t err_len) {
    json_t *phases = html_get(root, "phases"), *p;
    size_t i;
    long long tx = 0, errors = 0;
    double secs = 0;
    html_phases_top(f, root);
    json_array_foreach(phases, i, p) {
        html_phase_row(f, p, i, html_phase_render(dir, p, depth, rc, err, err_len));
        tx += html_int(p, "transactions");
        errors += html_int(p, "errors");
        secs += html_num(p, "run_time_s");
    }
    html_phases_total(f, tx, errors, secs);
    if (json_array_size(phases) > 0) html_phase_charts(f);
    fputs("</section>\n", f);
    html_tail(f, root, 1);
}

/* ---- entry points ---- */

/* 0; -1 summary.json missing or invalid; -2 report.html not written. */
static int html_render(const char *dir, int depth, char *err, size_t err_len) {
    char path[4200], tmp[4200], out[4200];
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        html_errf(err, err_len, "%s: %s", dir, stat(dir, &st) != 0 ? strerror(errno) : "not a directory");
        return -1;
    }
    snprintf(path, sizeof path, "%s/summary.json", dir);
    json_error_t je;
    size_t merged = 1;
    json_t *root = html_load_summary(path, &je, &merged);
    if (!root) {
        if (access(path, F_OK) != 0) html_errf(err, err_len, "%s: %s", path, strerror(errno));
        else if (je.line <= 0) html_errf(err, err_len, "%s: %s", path, je.text);   /* html_load_summary's own */
        else html_errf(err, err_len, "%s: invalid JSON: %s (line %d, column %d)", path, je.text, je.line, je.column);
        return -1;
    }
    int phased = json_is_array(html_get(root, "phases"));
    if (!json_is_object(root) || (!phased && !json_is_array(html_get(root, "timers")))) {
        html_errf(err, err_len, "%s: not a luamech summary (no \"timers\" or \"phases\" array)", path);
        json_decref(root);
        return -1;
    }
    char msg[256];
    if (summary_normalise(root, msg, sizeof msg) != 0) {      /* schema 1's twins into their timers' views */
        html_errf(err, err_len, "%s: %s", path, msg);
        json_decref(root);
        return -1;
    }
    if (!html_asset(HTML_CSS_FILE) || !html_asset(HTML_JS_FILE)) {
        html_errf(err, err_len, "cannot write %s/report.html: this build has no %s or %s", dir, HTML_CSS_FILE,
                  HTML_JS_FILE);
        json_decref(root);
        return -2;
    }
    snprintf(tmp, sizeof tmp, "%s/.report.html.tmp", dir);
    snprintf(out, sizeof out, "%s/report.html", dir);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        html_errf(err, err_len, "cannot write %s: %s", tmp, strerror(errno));
        json_decref(root);
        return -2;
    }
    int rc = 0;
    if (phased) html_phases(f, dir, root, depth, &rc, err, err_len);
    else html_run(f, root, depth, merged);
    json_decref(root);
    int bad = ferror(f);
    if (fclose(f) != 0) bad = 1;
    if (bad || rename(tmp, out) != 0) {
        html_errf(err, err_len, "cannot write %s: %s", out, strerror(errno));
        unlink(tmp);
        return -2;
    }
    return rc;
}

int report_write_html_err(const char *dir, char *err, size_t err_len) {
    if (err && err_len) err[0] = 0;
    return html_render(dir, 0, err, err_len);
}

int report_write_html(const char *dir) { return report_write_html_err(dir, NULL, 0); }
