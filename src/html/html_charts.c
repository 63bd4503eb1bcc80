/* html_charts.c - the charts of report.html: writes the JavaScript that draws
 * them as SVG line charts in the browser (src/html/report.js, embedded at
 * build time, written inline after LM_FIGURES, the figures table as JSON),
 * the embedded copy of summary.json it reads, and the empty <div
 * class="chart" data-kind=...> placeholders (in their <figure>s) that it
 * fills.  The C side draws no chart itself and writes no figure: the tables,
 * which hold every number, are written by html.c and html_tables.c. */
#include "html/html_priv.h"

#include <stdlib.h>
#include <string.h>

/* report.js draws every <div class="chart" data-kind=...> from the embedded
 * JSON.  Each drawn series is a <path class="series" data-kind data-series
 * data-points>; a timer's views other than the first are hidden behind its
 * switch (.view-switch, shown by the script) and their charts drawn when
 * first shown; when all visible charts are drawn, <div id="render-ok" data-charts=N
 * data-viewport=W data-page-width=W data-verdict-colour=C> is appended (the page is narrower than
 * the window: only tables scroll sideways); any script error is written into
 * <div id="render-errors">.  (The file has no comment of its own: the page
 * carries it byte for byte.) */

/* A chart's data attributes: timer idx, its view when not the default. */
static void html_chart_of(FILE *f, const char *kind, size_t idx, const char *view) {
    fprintf(f, "<div class=\"chart\" data-kind=\"%s\" data-timer=\"%zu\"", kind, idx);
    if (view) fprintf(f, " data-timer-view=\"%s\"", view);
}

/* With twin, the rt chart draws the p99 of the uncorrected view too. */
void html_timer_charts(FILE *f, size_t idx, const char *view, int twin) {
    fputs("<div class=\"charts\">\n", f);
    fprintf(f, "<figure class=\"chart-box\"><figcaption>Response time per interval (ms%s)</figcaption>",
            twin ? "; p99 from the intended and from the actual start" : "");
    html_chart_of(f, "rt", idx, view);
    fputs(twin ? " data-twin-view=\"uncorrected\"></div></figure>\n" : "></div></figure>\n", f);
    fputs("<figure class=\"chart-box\"><figcaption>Throughput and errors per interval (per second)</figcaption>", f);
    html_chart_of(f, "tput", idx, view);
    fputs("></div></figure>\n<figure class=\"chart-box\"><figcaption>Latency distribution, whole run (ms)"
          "</figcaption>", f);
    html_chart_of(f, "dist", idx, view);
    fputs("></div></figure>\n</div>\n", f);
}

/* Two parts with their own titles: CPU, then the loops' lag. */
void html_health_charts(FILE *f) {
    fputs("<h3 id=\"generator-cpu\">Generator CPU</h3>\n<div class=\"charts\">\n<figure class=\"chart-box\">"
          "<figcaption>Generator CPU per interval (% of the workers' CPUs, and time waiting for one)</figcaption>"
          "<div class=\"chart\" data-kind=\"health-cpu\"></div></figure>\n</div>\n"
          "<h3 id=\"loop-lag\">Event loop lag</h3>\n<p class=\"sub\">How late the workers' event loops ran (loop "
          "lag), how late paced and rate starts were (schedule lag), how long completions waited for their VU "
          "(dispatch delay).</p>\n<div class=\"charts\">\n<figure class=\"chart-box\"><figcaption>Event loop lag, "
          "schedule lag and dispatch delay per interval (ms)</figcaption><div class=\"chart\" data-kind=\"health-lag\">"
          "</div></figure>\n</div>\n", f);
}

/* Active VUs and their targets; with rate groups, target and achieved rate. */
void html_load_charts(FILE *f, int has_rate) {
    fputs("<div class=\"charts\">\n<figure class=\"chart-box\"><figcaption>Active VUs per interval (and each "
          "group's target VUs, dashed)</figcaption><div class=\"chart\" data-kind=\"load-vus\"></div></figure>\n", f);
    if (has_rate)
        fputs("<figure class=\"chart-box\"><figcaption>Rate groups: target and achieved transactions per second"
              "</figcaption><div class=\"chart\" data-kind=\"load-rate\"></div></figure>\n", f);
    fputs("</div>\n", f);
}

/* The first screen's three charts (data-view="overview": their series are
 * tagged overview-<kind>): All Transactions' throughput and errors and its
 * latency percentiles over time (idx; with twin, its uncorrected view's
 * p99 too), active VUs and
 * their targets. */
void html_overview_charts(FILE *f, size_t idx, int twin, int has_load) {
    fprintf(f, "<div class=\"charts overview\">\n<figure class=\"chart-box\"><figcaption>Throughput and errors "
               "(per second)</figcaption><div class=\"chart\" data-view=\"overview\" data-kind=\"tput\" "
               "data-timer=\"%zu\"></div></figure>\n", idx);
    fprintf(f, "<figure class=\"chart-box\"><figcaption>Latency percentiles over time (ms%s)</figcaption>"
               "<div class=\"chart\" data-view=\"overview\" data-kind=\"rt\" data-timer=\"%zu\"", 
            twin ? "; p99 from the intended and from the actual start" : "", idx);
    if (twin) fputs(" data-twin-view=\"uncorrected\"", f);
    fputs("></div></figure>\n", f);
    if (has_load)
        fputs("<figure class=\"chart-box\"><figcaption>Active VUs and target</figcaption>"
              "<div class=\"chart\" data-view=\"overview\" data-kind=\"load-vus\"></div></figure>\n", f);
    fputs("</div>\n", f);
}

void html_phase_charts(FILE *f) {
    fputs("<div class=\"charts\">\n<figure class=\"chart-box\"><figcaption>Throughput per phase (transactions "
          "per second)</figcaption><div class=\"chart\" data-kind=\"phases-rate\"></div></figure>\n"
          "<figure class=\"chart-box\"><figcaption>p95 per phase (ms)</figcaption>"
          "<div class=\"chart\" data-kind=\"phases-p95\"></div></figure>\n</div>\n", f);
}

/* The JSON copy inside <script type="application/json">: '<', '>' and '&'
 * can only occur inside JSON strings, where \u escapes mean the same. */
static void html_json(FILE *f, json_t *root) {
    char *s = json_dumps(root, JSON_COMPACT | JSON_REAL_PRECISION(10));
    for (const char *p = s ? s : "{}"; *p; p++) {
        if (*p == '<') fputs("\\u003c", f);
        else if (*p == '>') fputs("\\u003e", f);
        else if (*p == '&') fputs("\\u0026", f);
        else fputc(*p, f);
    }
    free(s);
}

/* The script; with merged rows a chart point names the intervals it holds. */
static void html_js_write(FILE *f, size_t merged) {
    static const char ivname[] = "function ivname(i) { return 'interval ' + (i + 1); }\n";
    const char *html_js = html_asset(HTML_JS_FILE);
    if (!html_js) return;                      /* html_render checked it is there */
    const char *at = merged > 1 ? strstr(html_js, ivname) : NULL;
    if (!at) {
        fputs(html_js, f);
        return;
    }
    fwrite(html_js, 1, (size_t)(at - html_js), f);
    fprintf(f, "function ivname(i) { return 'intervals ' + (i * %zu + 1) + '-' + (i + 1) * %zu + ' (merged)'; }\n",
            merged, merged);
    fputs(at + sizeof ivname - 1, f);
}

void html_charts_script(FILE *f, json_t *root, size_t merged) {
    fputs("<noscript><p class=\"warn\">The charts need JavaScript; the tables have every number.</p></noscript>\n", f);
    fputs("<script type=\"application/json\" id=\"summary-data\">", f);
    html_json(f, root);
    fputs("</script>\n<script>\n", f);
    char *figs = figures_json();              /* the figures table, as JavaScript's data */
    fprintf(f, "var LM_FIGURES = %s;\n", figs ? figs : "[]");
    free(figs);
    html_js_write(f, merged);
    fputs("</script>\n", f);
}
