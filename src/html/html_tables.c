/* html_tables.c - the static HTML of report.html's sections: one section per
 * timer (heading, summary row, interval details), the stages table, the
 * thresholds, the generator health, checks, counters, custom rates and
 * gauges, and the error tallies;
 * and the timer kinds and views that decide which section a timer goes
 * to, in which order, and which views its switch offers (corrected /
 * uncorrected / all: a family's "views" in schema 2, read through
 * summary_view; a schema-1 file's twins were folded into them by
 * summary_normalise before this file sees the root).  Not here: pairing
 * twins (report/summary_read.c), the page around the
 * sections (head, title, contents, summary, the phases index: html.c) and
 * the charts (html_charts.c), of which this file only places the
 * placeholders through html_timer_charts and html_health_charts. */
#include "html/html_priv.h"

#include <stdlib.h>
#include <string.h>

/* ---- a timer's figures as table cells ---- */

/* count, rate/s and errors lead; then the latencies carrying FIG_OUT_HTML. */
static void html_row_head(FILE *f) {
    fputs("<th>count</th><th>rate/s</th><th>errors</th>", f);
    for (int i = 0; i < FIG_N; i++) {
        const figure *fg = &figures_table()[i];
        if ((fg->outputs & FIG_OUT_HTML) && fg->unit == FIG_UNIT_MS) fprintf(f, "<th>%s</th>", fg->name);
    }
}

/* The errors cell also says how many samples were cancelled or skipped
 * (not in count): "3 (+6 cancelled)". */
static void html_row_cells(FILE *f, json_t *row) {
    long long errors = html_int(row, "errors"), cancelled = html_int(row, "cancelled"),
              skipped = html_int(row, "skipped");
    fprintf(f, "<td>%lld</td><td>%.2f</td><td%s>%lld", html_int(row, "count"), html_num(row, "rate"),
            errors > 0 ? " class=\"err\"" : "", errors);
    if (cancelled > 0) fprintf(f, " (+%lld cancelled)", cancelled);
    if (skipped > 0) fprintf(f, " (+%lld skipped)", skipped);
    fputs("</td>", f);
    for (int i = 0; i < FIG_N; i++) {
        const figure *fg = &figures_table()[i];
        char m[32];
        if ((fg->outputs & FIG_OUT_HTML) && fg->unit == FIG_UNIT_MS)
            fprintf(f, "<td>%s</td>", html_ms(row, fg->key, m, sizeof m));
    }
}

/* ---- timers: kinds and views ("(uncorrected)" and "(all)" twins) ---- */

static const char *const html_kinds[HK_N] = {"all", "group", "custom", "primitive", "stage", "engine"};

/* Which part of the page a timer goes to: primitives also take any kind
 * this version does not know. */
static int html_cat(json_t *t) {
    const char *kind = html_str(t, "kind");
    for (int i = 0; kind && i < HK_N; i++)
        if (strcmp(kind, html_kinds[i]) == 0) return i;
    return HK_PRIMITIVE;
}

static int html_str_eq(const char *a, const char *b) { return a && b ? strcmp(a, b) == 0 : a == b; }

/* The view names of summary_view, by HV_* (HV_MAIN: the default view). */
static const char *const html_view_keys[HV_N] = {NULL, "uncorrected", "all"};

json_t *html_view_of(json_t *t, int view) {
    return view >= 0 && view < HV_N ? summary_view(t, html_view_keys[view]) : NULL;
}

/* The timers of category c in file order (each a family: its views are
 * in it).  out has room for every timer; returns how many were written. */
size_t html_order(json_t *timers, int c, size_t *out) {
    size_t i, n = 0;
    json_t *t;
    json_array_foreach(timers, i, t) {
        if (html_cat(t) == c) out[n++] = i;
    }
    return n;
}

/* What a timer is called in headings and the contents: a group's timer by
 * its group's name (its "group" field). */
const char *html_timer_label(json_t *t) {
    const char *name = html_str(t, "name"), *kind = html_str(t, "kind"), *group = html_str(t, "group");
    if (!name) name = "(unnamed)";
    if (kind && strcmp(kind, "group") == 0 && group) name = group;
    return name;
}

/* ---- one section per timer, its views behind a switch ---- */

static const char html_lf_intended[] = "latency from the intended start";
static const char html_lf_actual[] = "uncorrected: from the actual start";
static const char html_lf_all[] = "all samples: failures, cancelled and skipped ones included";

/* The views' data-view values and switch labels, by HV_*; the main view is
 * "corrected" when it has an "(uncorrected)" twin, else "successes". */
static const char *html_view_name(int view, int corrected) {
    if (view == HV_UNCORRECTED) return "uncorrected";
    if (view == HV_ALL) return "all";
    return corrected ? "corrected" : "successes";
}

static void html_timer_heading(FILE *f, json_t *t, size_t idx, const char *heading_tag, int nviews) {
    fprintf(f, "<section class=\"timer\" id=\"t%zu\" data-views=\"%d\">\n<%s>", idx, nviews, heading_tag);
    html_esc(f, html_timer_label(t));
    fprintf(f, "</%s>\n", heading_tag);
}

/* The switch between the views (hidden until the page's script shows it:
 * without JavaScript every view is shown, one after another). */
static void html_view_switch(FILE *f, json_t *const views[HV_N], int corrected) {
    fputs("<div class=\"view-switch\" role=\"group\" aria-label=\"latency view\" hidden><span>view:</span>", f);
    for (int v = 0; v < HV_N; v++) {
        if (!views[v]) continue;
        const char *name = html_view_name(v, corrected);
        fprintf(f, "<button type=\"button\" data-view=\"%s\" aria-pressed=\"%s\">%s</button>", name,
                v == HV_MAIN ? "true" : "false", name);
    }
    fputs("</div>\n", f);
}

/* What the timer measures: by its kind, engine timers by their name. */
static void html_timer_about(FILE *f, json_t *t) {
    const char *kind = html_str(t, "kind"), *name = html_str(t, "name");
    if (kind && strcmp(kind, "all") == 0)
        fputs("<p class=\"sub\">Every transaction of every group; think time excluded. Latency over successful "
              "samples; count and rate include failures.</p>\n", f);
    else if (kind && strcmp(kind, "group") == 0)
        fputs("<p class=\"sub\">Transactions of this group; think time excluded.</p>\n", f);
    else if (kind && strcmp(kind, "custom") == 0)
        fputs("<p class=\"sub\">Custom timer (luamech.timer / luamech.record).</p>\n", f);
    else if (kind && strcmp(kind, "primitive") == 0)
        fputs("<p class=\"sub\">Client calls, from the call to the last reply.</p>\n", f);
    else if (html_str_eq(name, "engine.loop_lag"))
        fputs("<p class=\"sub\">How late a 100 ms repeating timer fires on each worker's event loop (a firing "
              "that is not late records nothing).</p>\n", f);
    else if (html_str_eq(name, "engine.schedule_lag"))
        fputs("<p class=\"sub\">Lateness of every paced or rate start (0 when on time).</p>\n", f);
}

/* What view v of timer t shows; the view is named by its flat label,
 * "X (uncorrected)" or "X (all)". */
static void html_view_notes(FILE *f, json_t *t, int view, int corrected) {
    if (view == HV_MAIN && corrected)
        fprintf(f, "<p class=\"sub\"><span class=\"lf intended\">%s</span> (the transaction's slot or arrival "
                   "time): a late start counts, so a stall shows in every sample it delayed. The response time chart "
                   "also draws the p99 of the uncorrected view (from the actual start); the gap between the two p99 "
                   "lines is what a closed-loop tool would not see (coordinated omission).</p>\n", html_lf_intended);
    if (view == HV_MAIN && !corrected)
        fputs("<p class=\"sub\"><span class=\"lf successes\">successes</span>: latency over successful samples."
              "</p>\n", f);
    if (view == HV_MAIN) return;
    fprintf(f, "<p class=\"sub\"><span class=\"lf %s\">%s</span>: timer &ldquo;", view == HV_ALL ? "all" : "actual",
            view == HV_ALL ? html_lf_all : html_lf_actual);
    html_esc(f, html_str(t, "name"));
    fprintf(f, " (%s)", html_view_keys[view]);
    fputs(view == HV_ALL ? "&rdquo;, latency over every sample (failures at the time they failed).</p>\n"
                         : "&rdquo;, the same samples measured from the actual start, as closed-loop tools report "
                           "them.</p>\n", f);
}

static void html_timer_summary(FILE *f, json_t *t) {
    fputs("<h4>Response summary (ms)</h4>\n<div class=\"scroll\"><table class=\"summary\"><thead><tr>", f);
    html_row_head(f);
    fputs("</tr></thead><tbody><tr>", f);
    html_row_cells(f, html_get(t, "summary"));
    fputs("</tr></tbody></table></div>\n", f);
}

void html_row_span(json_t *row, size_t k, size_t *first, size_t *last) {
    long long a = html_int(row, "first_interval"), n = html_int(row, "intervals_merged");
    *first = a > 0 ? (size_t)a : k + 1;
    *last = n > 1 ? *first + (size_t)n - 1 : *first;
}

/* The first cell of interval row k: its number, or the merged row's range. */
static void html_row_number(FILE *f, json_t *row, size_t k) {
    size_t a, b;
    html_row_span(row, k, &a, &b);
    if (a == b) fprintf(f, "<td>%zu</td>", a);
    else fprintf(f, "<td>%zu&ndash;%zu</td>", a, b);
}

/* The details' title: "N intervals", or "N intervals in M rows" when merged. */
static void html_intervals_title(FILE *f, json_t *iv, int open_intervals) {
    size_t niv = json_is_array(iv) ? json_array_size(iv) : 0, a = 0, b = 0;
    if (niv) html_row_span(json_array_get(iv, niv - 1), niv - 1, &a, &b);
    if (b == niv)
        fprintf(f, "<details%s><summary>Interval details (%zu interval%s, ms)</summary>\n",
                open_intervals ? " open" : "", niv, niv == 1 ? "" : "s");
    else
        fprintf(f, "<details%s><summary>Interval details (%zu intervals in %zu merged rows, ms)</summary>\n",
                open_intervals ? " open" : "", b, niv);
}

/* One row per interval, in a <details> open when open_intervals. */
static void html_timer_intervals(FILE *f, json_t *t, int open_intervals) {
    json_t *iv = html_get(t, "intervals");
    size_t niv = json_is_array(iv) ? json_array_size(iv) : 0;
    html_intervals_title(f, iv, open_intervals);
    fputs("<div class=\"scroll\"><table class=\"intervals\"><thead><tr><th>interval</th><th>start (s)</th>"
          "<th>end (s)</th>", f);
    html_row_head(f);
    fputs("</tr></thead><tbody>\n", f);
    double start = 0;
    for (size_t k = 0; k < niv; k++) {
        json_t *row = json_array_get(iv, k);
        double end = start + html_num(row, "period_s");
        fputs("<tr class=\"ivrow\">", f);
        html_row_number(f, row, k);
        fprintf(f, "<td>%.3f</td><td>%.3f</td>", start, end);
        html_row_cells(f, row);
        fputs("</tr>\n", f);
        start = end;
    }
    fputs("</tbody></table></div>\n</details>\n", f);
}

/* View v of timer idx (t; views: its views, NULL where absent): notes,
 * summary, charts (the main view's rt chart draws the uncorrected view's
 * p99 too) and interval rows.  Its div and charts name the timer by idx
 * and the view by data-timer-view (the main view has none). */
static void html_view(FILE *f, size_t idx, json_t *t, json_t *const views[HV_N], int v, int open_intervals) {
    int corrected = views[HV_UNCORRECTED] != NULL;
    fprintf(f, "<div class=\"view\" data-view=\"%s\" data-timer=\"%zu\"", html_view_name(v, corrected), idx);
    if (v != HV_MAIN) fprintf(f, " data-timer-view=\"%s\" id=\"t%zu-%s\"", html_view_keys[v], idx, html_view_keys[v]);
    fputs(">\n", f);
    if (views[HV_UNCORRECTED] || views[HV_ALL]) html_view_notes(f, t, v, corrected);   /* views: which */
    html_timer_summary(f, views[v]);
    html_timer_charts(f, idx, html_view_keys[v], v == HV_MAIN && corrected);
    html_timer_intervals(f, views[v], open_intervals);
    fputs("</div>\n", f);
}

/* Timer idx's section: its heading, what it measures, the view switch
 * when it has views, and each view. */
static void html_timer(FILE *f, json_t *timers, size_t idx, const char *heading_tag, int open_intervals) {
    json_t *t = json_array_get(timers, idx), *views[HV_N];
    int nviews = 0;
    for (int v = 0; v < HV_N; v++) nviews += (views[v] = html_view_of(t, v)) != NULL;
    html_timer_heading(f, t, idx, heading_tag, nviews);
    html_timer_about(f, t);
    if (nviews > 1) html_view_switch(f, views, views[HV_UNCORRECTED] != NULL);
    for (int v = 0; v < HV_N; v++)
        if (views[v]) html_view(f, idx, t, views, v, open_intervals);
    fputs("</section>\n", f);
}

/* The timers of category c, one section each, their views in it. */
void html_timers(FILE *f, json_t *timers, int c, const char *heading_tag, int open_intervals) {
    size_t n = json_array_size(timers), *ord = calloc(n ? n : 1, sizeof *ord);
    if (!ord) return;
    size_t m = html_order(timers, c, ord);
    for (size_t k = 0; k < m; k++) html_timer(f, timers, ord[k], heading_tag, open_intervals);
    free(ord);
}

/* ---- stages: the stage timers (group, stage), one table ---- */

/* One row: view `view` (HV_*) of stage timer idx. */
typedef struct html_stage {
    size_t idx;
    long gpos, k;
    const char *group;   /* its "group" field (else its name) */
    size_t glen;
    int view, twin, has_twin;   /* twin: the uncorrected view; has_twin: the main view of a timer with one */
} html_stage;

static int html_stage_cmp(const void *pa, const void *pb) {
    const html_stage *a = pa, *b = pb;
    if (a->gpos != b->gpos) return a->gpos < b->gpos ? -1 : 1;
    size_t l = a->glen < b->glen ? a->glen : b->glen;
    int c = strncmp(a->group, b->group, l);
    if (c) return c;
    if (a->glen != b->glen) return a->glen < b->glen ? -1 : 1;
    if (a->k != b->k) return a->k < b->k ? -1 : 1;
    if (a->twin != b->twin) return a->twin - b->twin;
    if (a->idx != b->idx) return a->idx < b->idx ? -1 : 1;
    return a->view - b->view;
}

/* Where s's group is in the scenario's groups (the first sort key); past
 * the last group when it is none of them. */
static long html_stage_group_pos(json_t *groups, const html_stage *s) {
    size_t gi;
    json_t *g;
    json_array_foreach(groups, gi, g) {
        const char *gn = html_str(g, "name");
        if (gn && strlen(gn) == s->glen && strncmp(gn, s->group, s->glen) == 0) return (long)gi;
    }
    return (long)json_array_size(groups);
}

/* View `view` of stage timer i into *s: its group and stage are the
 * timer's "group" and "stage" fields; without them, the whole name is the
 * group, with stage 0. */
static void html_stage_parse(json_t *timers, json_t *groups, size_t i, int view, html_stage *s) {
    json_t *t = json_array_get(timers, i);
    const char *group = html_str(t, "group");
    if (!group) group = html_str(t, "name");
    if (!group) group = "";
    s->idx = i;
    s->view = view;
    s->twin = view == HV_UNCORRECTED;
    s->has_twin = view == HV_MAIN && html_view_of(t, HV_UNCORRECTED);
    s->k = html_str(t, "group") ? (long)html_int(t, "stage") : 0;
    s->group = group;
    s->glen = strlen(group);
    s->gpos = html_stage_group_pos(groups, s);
}

/* The views of the stage timers into st (room for HV_N rows per timer);
 * returns how many.  *any_twin: 1 when one of them has an uncorrected view. */
static size_t html_stages_collect(json_t *root, json_t *timers, html_stage *st, int *any_twin) {
    size_t i, m = 0;
    json_t *t;
    json_array_foreach(timers, i, t) {
        if (html_cat(t) != HK_STAGE) continue;
        for (int v = 0; v < HV_N; v++) {
            if (!html_view_of(t, v)) continue;
            html_stage *s = &st[m++];
            html_stage_parse(timers, html_get(root, "groups"), i, v, s);
            *any_twin |= s->twin | s->has_twin;
        }
    }
    return m;
}

static void html_stages_head(FILE *f, int any_twin) {
    fputs("<section id=\"stages\"><h2>Stages</h2>\n<p class=\"sub\">Transactions of each staged group by the stage "
          "they started in (the stage after the last one is the hold). Each rate is over its stage's span in "
          "the run (seconds since t = 0, clipped to the run's end); &ldquo;intervals&rdquo; are those with "
          "samples. Times in ms.</p>\n", f);
    fputs("<div class=\"scroll\"><table class=\"stages\"><thead><tr><th class=\"l\">group</th><th>stage</th>", f);
    if (any_twin) fputs("<th class=\"l\">latency</th>", f);
    fputs("<th>span (s)</th><th>count</th><th>errors</th><th>rate/s (stage)</th><th>p50</th><th>p95</th><th>p99</th><th>max</th>"
          "<th>intervals</th></tr></thead><tbody>\n", f);
}

/* The last cell: the first to the last interval with samples, and the row's end. */
static void html_stage_intervals(FILE *f, json_t *iv) {
    size_t first = 0, last = 0, j;
    json_t *r;
    json_array_foreach(iv, j, r) {
        size_t a, b;
        if (html_int(r, "count") <= 0) continue;
        html_row_span(r, j, &a, &b);
        if (!first) first = a;
        last = b;
    }
    if (!first) fputs("<td></td></tr>\n", f);
    else if (first == last) fprintf(f, "<td>%zu</td></tr>\n", first);
    else fprintf(f, "<td>%zu&ndash;%zu</td></tr>\n", first, last);
}

/* A row: the span is the timer's, the figures its view's. */
static void html_stage_row(FILE *f, json_t *timers, const html_stage *s, int any_twin) {
    json_t *tm = json_array_get(timers, s->idx), *vw = html_view_of(tm, s->view), *sum = html_get(vw, "summary");
    fprintf(f, "<tr class=\"stage%s\"><td class=\"l\">", s->twin ? " twin" : "");
    for (size_t c = 0; c < s->glen; c++) {
        char ch[2] = {s->group[c], 0};
        html_esc(f, ch);
    }
    if (s->k > 0) fprintf(f, "</td><td>%ld</td>", s->k);
    else fputs("</td><td></td>", f);
    if (any_twin)
        fprintf(f, "<td class=\"l\">%s</td>", s->twin ? html_lf_actual : s->has_twin ? html_lf_intended : "");
    long long e = html_int(sum, "errors");
    fprintf(f, "<td>%.3f&ndash;%.3f</td>", html_num(tm, "start_s"), html_num(tm, "end_s"));
    char m[4][32];
    fprintf(f, "<td>%lld</td><td%s>%lld</td><td>%.2f</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>",
            html_int(sum, "count"), e > 0 ? " class=\"err\"" : "", e, html_num(sum, "rate"),
            html_ms(sum, figure_get(FIG_P50)->key, m[0], 32), html_ms(sum, figure_get(FIG_P95)->key, m[1], 32),
            html_ms(sum, figure_get(FIG_P99)->key, m[2], 32),
            html_ms(sum, figure_get(FIG_MAX)->key, m[3], 32));
    html_stage_intervals(f, html_get(vw, "intervals"));
}

/* The stage timers' views, one table sorted by group (in the scenario's
 * order), stage, then the timer and its "all" view before its uncorrected
 * view; nothing when there are none. */
void html_stages(FILE *f, json_t *root, json_t *timers) {
    size_t n = json_array_size(timers);
    html_stage *st = calloc(n ? n * HV_N : 1, sizeof *st);
    if (!st) return;
    int any_twin = 0;
    size_t m = html_stages_collect(root, timers, st, &any_twin);
    if (m > 0) {
        qsort(st, m, sizeof *st, html_stage_cmp);
        html_stages_head(f, any_twin);
        for (size_t k = 0; k < m; k++) html_stage_row(f, timers, &st[k], any_twin);
        fputs("</tbody></table></div></section>\n", f);
    }
    free(st);
}

/* ---- error tallies and checks ---- */

void html_tally(FILE *f, json_t *arr, const char *id, const char *title, const char *what) {
    size_t n = json_is_array(arr) ? json_array_size(arr) : 0, shown = n < 100 ? n : 100;
    fprintf(f, "<section id=\"%s\"><h2>%s</h2>\n", id, title);
    if (n == 0) {
        fprintf(f, "<p>No %s.</p></section>\n", what);
        return;
    }
    fputs("<div class=\"scroll\"><table class=\"tally\"><thead><tr><th>count</th><th class=\"l\">message</th>"
          "</tr></thead><tbody>\n", f);
    for (size_t i = 0; i < shown; i++) {
        json_t *e = json_array_get(arr, i);
        fprintf(f, "<tr><td>%lld</td><td class=\"msg\">", html_int(e, "count"));
        html_esc(f, html_str(e, "message"));
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
    if (n > shown) fprintf(f, "<p class=\"sub\">%zu more messages in errors.csv.</p>\n", n - shown);
    fputs("</section>\n", f);
}

/* A merged run (luamech merge): one row per segment, suspect ones marked,
 * and the segments that were missing. */
void html_segments(FILE *f, json_t *root) {
    json_t *arr = html_get(root, "segments"), *missing = html_get(root, "missing_segments");
    if (!json_is_array(arr) || json_array_size(arr) == 0) return;
    fprintf(f, "<section id=\"segments\"><h2>Segments (%lld)</h2>\n", html_int(root, "segment_count"));
    fputs("<div class=\"scroll\"><table><thead><tr><th>segment</th><th class=\"l\">directory</th>"
          "<th class=\"l\">status</th><th>transactions</th><th>errors</th><th>CPU %</th>"
          "<th class=\"l\">generator</th></tr></thead><tbody>\n", f);
    json_t *e;
    size_t i;
    json_array_foreach(arr, i, e) {
        int suspect = json_is_true(html_get(e, "suspect"));
        fprintf(f, "<tr><td>%lld</td><td class=\"l\">", html_int(e, "index"));
        html_esc(f, html_str(e, "dir"));
        fputs("</td><td class=\"l\">", f);
        html_esc(f, html_str(e, "status"));
        fprintf(f, "</td><td>%lld</td><td>%lld</td><td>%.1f</td><td class=\"l\">%s", html_int(e, "transactions"),
                html_int(e, "errors"), html_num(e, "cpu_percent"), suspect ? "suspect: " : "ok");
        if (suspect) html_esc(f, html_str(e, "reasons"));
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
    if (json_array_size(missing) > 0) {
        fputs("<p class=\"sub\">Missing segments (merged with --allow-partial):", f);
        json_array_foreach(missing, i, e) fprintf(f, " %lld", (long long)json_integer_value(e));
        fputs("</p>\n", f);
    }
    fputs("</section>\n", f);
}

void html_checks(FILE *f, json_t *arr) {
    size_t n = json_is_array(arr) ? json_array_size(arr) : 0;
    if (n == 0) return;
    fputs("<section id=\"checks\"><h2>Checks</h2>\n<div class=\"scroll\"><table><thead><tr><th class=\"l\">name"
          "</th><th>passes</th><th>failures</th><th>pass rate</th></tr></thead><tbody>\n", f);
    for (size_t i = 0; i < n; i++) {
        json_t *c = json_array_get(arr, i);
        long long p = html_int(c, "passes"), x = html_int(c, "fails");
        fputs("<tr><td class=\"l\">", f);
        html_esc(f, html_str(c, "name"));
        fprintf(f, "</td><td>%lld</td><td%s>%lld</td><td>%.2f%%</td></tr>\n", p, x > 0 ? " class=\"err\"" : "", x,
                p + x > 0 ? 100.0 * (double)p / (double)(p + x) : 0.0);
    }
    fputs("</tbody></table></div></section>\n", f);
}

/* ---- thresholds ---- */

static const char *html_exit_meaning(long long code) {
    switch (code) {
    case -1: return "still running";
    case 0: return "completed";
    case 3: return "scenario error";
    case 4: return "aborted";
    case 5: return "interrupted";
    case 6: return "a threshold failed";
    case 7: return "a VU got stuck";
    default: return NULL;
    }
}

void html_exit_code(FILE *f, json_t *root) {
    long long code = html_int(root, "exit_code");
    const char *why = html_exit_meaning(code);
    fprintf(f, "exit code %lld", code);
    if (why) fprintf(f, " (%s)", why);
}

static void html_result_badge(FILE *f, int passed) {
    fputs(passed ? "<span class=\"badge pass\">pass</span>" : "<span class=\"badge fail\">FAIL</span>", f);
}

static void html_measured(FILE *f, json_t *th) {
    json_t *v = html_get(th, "measured");
    const char *unit = html_str(th, "unit");
    if (!json_is_number(v)) {
        const char *why = html_str(th, "reason");
        if (why && strncmp(why, "no successful samples", 21) == 0) html_esc(f, why);
        else fputs("no data", f);
        return;
    }
    double x = json_number_value(v);
    if (html_str_eq(unit, "ms")) fprintf(f, "%.3f ms", x);
    else if (html_str_eq(unit, "%")) fprintf(f, "%.3f%%", x);
    else if (html_str_eq(unit, "/s")) fprintf(f, "%.2f/s", x);
    else {
        if (x > -1e15 && x < 1e15 && x == (double)(long long)x) fprintf(f, "%lld", (long long)x);  /* the range first: the cast of a larger value is undefined */
        else fprintf(f, "%.3f", x);
        if (unit && *unit) {
            fputc(' ', f);
            html_esc(f, unit);
        }
    }
}

void html_thresholds(FILE *f, json_t *root) {
    json_t *arr = html_get(root, "thresholds"), *th;
    size_t n = json_is_array(arr) ? json_array_size(arr) : 0, i, passed = 0;
    if (n == 0) return;
    json_array_foreach(arr, i, th) passed += json_is_true(html_get(th, "passed"));
    fputs("<section id=\"thresholds\"><h2>Thresholds</h2>\n<p class=\"th-result\">", f);
    html_result_badge(f, passed == n);
    fprintf(f, " %zu of %zu passed%s &middot; ", passed, n,
            html_str_eq(html_str(root, "status"), "running") ? " so far" : "");
    html_exit_code(f, root);
    fputs("</p>\n<div class=\"scroll\"><table class=\"thresholds\"><thead><tr><th class=\"l\">criterion</th>"
          "<th class=\"l\">subject</th><th>measured</th><th class=\"l\">result</th></tr></thead><tbody>\n", f);
    json_array_foreach(arr, i, th) {
        int ok = json_is_true(html_get(th, "passed"));
        fprintf(f, "<tr class=\"%s\"><td class=\"l\">", ok ? "pass" : "fail");
        html_esc(f, html_str(th, "criterion"));
        fputs("</td><td class=\"l\">", f);
        html_esc(f, html_str(th, "timer"));
        fputs("</td><td>", f);
        html_measured(f, th);
        fputs("</td><td class=\"l\">", f);
        html_result_badge(f, ok);
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody></table></div></section>\n", f);
}

/* ---- generator health ---- */

/* As in health.c: an interval above any makes the results suspect. */
#define HTML_CPU_SUSPECT 90.0
#define HTML_LAG_SUSPECT_MS 20.0
#define HTML_INFLATION_SUSPECT_PCT 10.0
#define HTML_INFLATION_FLOOR_MS 0.05
#define HTML_CPU_WAIT_SUSPECT 10.0

void html_suspect_banner(FILE *f, json_t *root) {
    json_t *gen = html_get(root, "generator");
    if (!json_is_true(html_get(gen, "suspect"))) return;
    const char *why = html_str(gen, "reasons");
    fputs("<div class=\"warn banner\" id=\"suspect-warning\" role=\"alert\"><strong>Suspect results: the load "
          "generator may have been the bottleneck, and its own delays count in the latencies "
          "(<a href=\"#generator\">Generator health</a>).</strong>", f);
    if (why && *why) {
        fputs("<details><summary>why</summary>", f);
        html_esc(f, why);
        fputs(".</details>", f);
    }
    fputs("</div>\n", f);
}

int html_has_generator(json_t *root) {
    size_t i;
    json_t *t;
    if (json_is_object(html_get(root, "generator"))) return 1;
    json_array_foreach(html_get(root, "timers"), i, t) if (html_cat(t) == HK_ENGINE) return 1;
    return 0;
}

static void html_generator_verdict(FILE *f, json_t *gen) {
    if (json_is_true(html_get(gen, "suspect"))) {
        fputs("<span class=\"badge fail\">suspect</span> ", f);
        html_esc(f, html_str(gen, "reasons"));
    } else if (json_is_object(gen)) {
        fputs("<span class=\"badge pass\">not suspect</span>", f);
    } else {
        fputs("No generator health figures in summary.json.", f);
    }
    if (json_is_number(html_get(gen, "inflation_ms")))
        fprintf(f, " Completions waited %.3f ms per transaction for the generator's loop (%.1f%% of the mean "
                   "transaction latency): the latencies may be inflated by about that much.",
                html_num(gen, "inflation_ms"), html_num(gen, "inflation_percent"));
}

/* generator.intervals[]: one row each, the figures past a limit marked. */
static void html_health_table(FILE *f, json_t *iv) {
    size_t k;
    json_t *r;
    fputs("<div class=\"scroll\"><table class=\"health\"><thead><tr><th>interval</th><th>CPU %</th><th>CPU wait %</th>"
          "<th>loop lag p99</th><th>loop lag max</th><th>dispatch delay p99</th><th>inflation per transaction</th>"
          "<th>schedule lag p99</th><th>late starts</th><th>skipped starts</th></tr></thead><tbody>\n", f);
    json_array_foreach(iv, k, r) {
        double cpu = html_num(r, "cpu_percent"), lag = html_num(r, "loop_lag_p99_ms");
        long long late = html_int(r, "late_starts"), skipped = html_int(r, "skipped_starts");
        double infl = html_num(r, "inflation_ms"), pct = html_num(r, "inflation_percent");
        int infl_bad = pct >= HTML_INFLATION_SUSPECT_PCT && infl >= HTML_INFLATION_FLOOR_MS;
        double wait = html_num(r, "cpu_wait_percent");
        fputs("<tr class=\"hrow\">", f);
        html_row_number(f, r, k);
        fprintf(f, "<td%s>%.1f</td><td%s>%.1f</td><td%s>%.3f</td><td>%.3f</td><td>%.3f</td>"
                   "<td%s>%.3f (%.0f%%)</td><td>%.3f</td><td>%lld</td><td%s>%lld</td></tr>\n",
                cpu > HTML_CPU_SUSPECT ? " class=\"err\"" : "", cpu, wait >= HTML_CPU_WAIT_SUSPECT ? " class=\"err\"" : "",
                wait,
                lag > HTML_LAG_SUSPECT_MS ? " class=\"err\"" : "", lag, html_num(r, "loop_lag_max_ms"),
                html_num(r, "dispatch_delay_p99_ms"), infl_bad ? " class=\"err\"" : "", infl, pct,
                html_num(r, "schedule_lag_p99_ms"), late, skipped > 0 ? " class=\"err\"" : "", skipped);
    }
    fputs("</tbody></table></div>\n<p class=\"sub\">Lags and delays in ms. CPU % is the workers' CPU time over the "
          "interval's length times the workers (the first interval includes the preflight); CPU wait % the time they "
          "were ready to run but had no CPU (another process had it), over the same. The dispatch delay is "
          "how long each completion waited for its VU to be resumed; the inflation per transaction is their sum "
          "over the interval's transactions (and its share of their mean latency): the latencies may be inflated "
          "by about that much.</p>\n", f);
}

void html_load(FILE *f, json_t *root) {
    json_t *load = html_get(root, "load"), *vus = html_get(load, "active_vus"), *gs = html_get(load, "groups");
    if (!json_is_array(vus) || json_array_size(vus) == 0) return;
    int has_rate = 0;
    for (size_t i = 0; json_is_array(gs) && i < json_array_size(gs); i++) {
        const char *t = json_string_value(html_get(json_array_get(gs, i), "target"));
        has_rate |= t && strcmp(t, "rate") == 0;
    }
    fputs("<section id=\"load\"><h2>Load</h2>\n<p class=\"sub\">The load the run applied: VUs running at the end "
          "of each interval against the groups' targets (stages, rampup)", f);
    fputs(has_rate ? "; for rate groups, the target arrival rate against the rate achieved.</p>\n" : ".</p>\n", f);
    html_load_charts(f, has_rate);
    fputs("</section>\n", f);
}

/* The verdict, the per-interval charts and table, and the engine timers. */
void html_generator(FILE *f, json_t *root) {
    if (!html_has_generator(root)) return;
    json_t *gen = html_get(root, "generator"), *iv = html_get(gen, "intervals");
    size_t niv = json_is_array(iv) ? json_array_size(iv) : 0;
    fputs("<section id=\"generator\"><h2>Generator health</h2>\n<p class=\"sub\">How the load generator itself "
          "did: its workers' CPU, how late their event loops ran, how late paced and rate starts were. The results "
          "are suspect when in some interval the CPU was above 90%, the workers waited for a CPU 10% of the time or "
          "more, the loop lag p99 was above 20 ms, or the dispatch delay per transaction at least 10% of the mean "
          "latency (and 0.05 ms); schedule lag, "
          "late and skipped starts do not make them suspect but show a generator falling behind its schedule."
          "</p>\n<p>", f);
    html_generator_verdict(f, gen);
    fputs("</p>\n", f);
    if (niv > 0) {
        html_health_charts(f);
        html_health_table(f, iv);
    }
    html_timers(f, html_get(root, "timers"), HK_ENGINE, "h3", 0);
    fputs("</section>\n", f);
}

/* ---- counters ---- */

/* A counter of the Counters table: its kind (summary.json's field) is
 * "plain" or "engine", or absent (a file older than the field); a check's,
 * gauge's or rate's counts have tables of their own.  The name is never
 * read for this: a script's counter called "check.pass x" is a counter. */
static int html_counter_shown(json_t *c) {
    json_t *kind = html_get(c, "kind");
    if (!json_is_string(kind)) return 1;
    return strcmp(json_string_value(kind), "plain") == 0 || strcmp(json_string_value(kind), "engine") == 0;
}

size_t html_counters_shown(json_t *root) {
    size_t i, n = 0;
    json_t *c;
    json_array_foreach(html_get(root, "counters"), i, c) n += html_counter_shown(c);
    return n;
}

void html_counters(FILE *f, json_t *root) {
    json_t *arr = html_get(root, "counters");
    if (html_counters_shown(root) == 0) return;
    fputs("<section id=\"counters\"><h2>Counters</h2>\n<div class=\"scroll\"><table><thead><tr><th class=\"l\">"
          "name</th><th>total</th><th>per second</th></tr></thead><tbody>\n", f);
    size_t i;
    json_t *c;
    json_array_foreach(arr, i, c) {
        if (!html_counter_shown(c)) continue;
        fputs("<tr><td class=\"l\">", f);
        html_esc(f, html_str(c, "name"));
        fprintf(f, "</td><td>%lld</td><td>%.2f</td></tr>\n", html_int(c, "total"), html_num(c, "rate"));
    }
    fputs("</tbody></table></div></section>\n", f);
}

/* ---- custom rates and gauges (summary.json "rates", "gauges") ---- */

static void html_rates(FILE *f, json_t *arr) {
    size_t i;
    json_t *x;
    fputs("<h3>Rates</h3>\n<div class=\"scroll\"><table><thead><tr><th class=\"l\">name</th><th>true</th>"
          "<th>false</th><th>rate</th></tr></thead><tbody>\n", f);
    json_array_foreach(arr, i, x) {
        fputs("<tr><td class=\"l\">", f);
        html_esc(f, html_str(x, "name"));
        fprintf(f, "</td><td>%lld</td><td>%lld</td><td>%.2f%%</td></tr>\n", html_int(x, "true"),
                html_int(x, "false"), html_num(x, "rate_percent"));
    }
    fputs("</tbody></table></div>\n", f);
}

static void html_gauges(FILE *f, json_t *arr) {
    size_t i, k;
    json_t *x, *v;
    fputs("<h3>Gauges</h3>\n<div class=\"scroll\"><table><thead><tr><th class=\"l\">name</th><th>value</th>"
          "<th>lowest</th><th>highest</th></tr></thead><tbody>\n", f);
    json_array_foreach(arr, i, x) {
        json_int_t lo = 0, hi = 0;
        json_array_foreach(json_object_get(x, "intervals"), k, v) {
            json_int_t n = json_integer_value(v);
            if (k == 0 || n < lo) lo = n;
            if (k == 0 || n > hi) hi = n;
        }
        fputs("<tr><td class=\"l\">", f);
        html_esc(f, html_str(x, "name"));
        fprintf(f, "</td><td>%lld</td><td>%lld</td><td>%lld</td></tr>\n", html_int(x, "value"), (long long)lo,
                (long long)hi);
    }
    fputs("</tbody></table></div>\n", f);
}

size_t html_metrics_shown(json_t *root) {
    return json_array_size(html_get(root, "rates")) + json_array_size(html_get(root, "gauges"));
}

void html_metrics(FILE *f, json_t *root) {
    json_t *rates = html_get(root, "rates"), *gauges = html_get(root, "gauges");
    if (html_metrics_shown(root) == 0) return;
    fputs("<section id=\"metrics\"><h2>Custom metrics</h2>\n<p>Rates: the share of true among the values a "
          "script added; gauges: the value at the end and the lowest and highest at interval ends "
          "(custom counters are with the counters).</p>\n", f);
    if (json_array_size(rates)) html_rates(f, rates);
    if (json_array_size(gauges)) html_gauges(f, gauges);
    fputs("</section>\n", f);
}
