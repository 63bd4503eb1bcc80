/* figures.c - the table of a timer's per-interval figures (figures.h): the
 * only place where a figure's key, name, unit, merge rule, direction and
 * outputs are written.  Also what reads a figure from an interval row or a
 * histogram, and the table as JSON for the pages' JavaScript.  Not here: any
 * output's format (each writer loops over the table). */
#include "stats/figures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROW(field) offsetof(agg_row, field)
#define ALL_FILES (FIG_OUT_SUMMARY | FIG_OUT_CSV | FIG_OUT_STREAM | FIG_OUT_HTML)
#define CMP (FIG_THRESHOLD | FIG_COMPARE)
#define CMPD (FIG_THRESHOLD | FIG_COMPARE | FIG_COMPARE_DEFAULT)
#define LAT (ALL_FILES | FIG_OUT_CONSOLE)

static const figure figures[FIG_N] = {
    {FIG_COUNT, "count", "count", FIG_UNIT_COUNT, ROW(count), 0, FIG_Q_NONE, NULL, FIG_MERGE_SUM, -1,
     ALL_FILES | FIG_OUT_DASH, CMPD},
    {FIG_ERRORS, "errors", "errors", FIG_UNIT_COUNT, ROW(errors), 0, FIG_Q_NONE, NULL, FIG_MERGE_SUM, 1,
     ALL_FILES | FIG_OUT_DASH, CMPD},
    {FIG_CANCELLED, "cancelled", "cancelled", FIG_UNIT_COUNT, ROW(cancelled), 0, FIG_Q_NONE, NULL, FIG_MERGE_SUM, 1,
     ALL_FILES, 0},
    {FIG_SKIPPED, "skipped", "skipped", FIG_UNIT_COUNT, ROW(skipped), 0, FIG_Q_NONE, NULL, FIG_MERGE_SUM, 1,
     ALL_FILES, 0},
    {FIG_PERIOD, "period_s", "period", FIG_UNIT_S, ROW(period_s), 1, FIG_Q_NONE, NULL, FIG_MERGE_SUM, 0,
     FIG_OUT_SUMMARY | FIG_OUT_STREAM, 0},
    {FIG_RATE, "rate", "rate", FIG_UNIT_RATE, ROW(rate), 1, FIG_Q_NONE, NULL, FIG_MERGE_RATE, -1,
     ALL_FILES | FIG_OUT_DASH, CMPD},
    {FIG_MIN, "min_ms", "min", FIG_UNIT_MS, ROW(min_us), 0, FIG_Q_MIN, NULL, FIG_MERGE_MIN, 1, LAT, CMP},
    {FIG_AVG, "avg_ms", "avg", FIG_UNIT_MS, ROW(avg_us), 1, FIG_Q_AVG, NULL, FIG_MERGE_WEIGHTED, 1,
     LAT | FIG_OUT_HTML_CHART, CMPD},
    {FIG_P50, "p50_ms", "p50", FIG_UNIT_MS, ROW(p50_us), 0, 50, "0.5", FIG_MERGE_HIST, 1,
     LAT | FIG_OUT_PROM | FIG_OUT_DASH | FIG_OUT_HTML_CHART, CMPD},
    {FIG_P80, "p80_ms", "p80", FIG_UNIT_MS, ROW(p80_us), 0, 80, "0.8", FIG_MERGE_HIST, 1,
     LAT | FIG_OUT_PROM | FIG_OUT_DASH, CMP},
    {FIG_P90, "p90_ms", "p90", FIG_UNIT_MS, ROW(p90_us), 0, 90, "0.9", FIG_MERGE_HIST, 1,
     LAT | FIG_OUT_PROM | FIG_OUT_DASH | FIG_OUT_HTML_CHART, CMP},
    {FIG_P95, "p95_ms", "p95", FIG_UNIT_MS, ROW(p95_us), 0, 95, "0.95", FIG_MERGE_HIST, 1,
     LAT | FIG_OUT_PROM | FIG_OUT_DASH, CMPD},
    {FIG_P99, "p99_ms", "p99", FIG_UNIT_MS, ROW(p99_us), 0, 99, "0.99", FIG_MERGE_HIST, 1,
     LAT | FIG_OUT_PROM | FIG_OUT_DASH | FIG_OUT_HTML_CHART, CMPD},
    {FIG_P999, "p99_9_ms", "p99.9", FIG_UNIT_MS, ROW(p999_us), 0, 99.9, NULL, FIG_MERGE_HIST, 1, LAT, CMP},
    {FIG_MAX, "max_ms", "max", FIG_UNIT_MS, ROW(max_us), 0, FIG_Q_MAX, NULL, FIG_MERGE_MAX, 1,
     LAT | FIG_OUT_DASH | FIG_OUT_HTML_CHART, CMPD},
    {FIG_STDEV, "stdev_ms", "stdev", FIG_UNIT_MS, ROW(stdev_us), 1, FIG_Q_STDEV, NULL, FIG_MERGE_HIST, 1, LAT, CMP},
};

const figure *figures_table(void) { return figures; }

const figure *figure_get(fig_id id) { return id >= 0 && id < FIG_N ? &figures[id] : NULL; }

static int fig_eq(const char *s, size_t len, const char *word) { return strlen(word) == len && strncmp(s, word, len) == 0; }

const figure *figure_find(const char *s, size_t len, unsigned flags) {
    if (fig_eq(s, len, "p99_9") || fig_eq(s, len, "p999")) s = figures[FIG_P999].name, len = strlen(s);
    for (int i = 0; i < FIG_N; i++)
        if ((figures[i].flags & flags) == flags && (fig_eq(s, len, figures[i].name) || fig_eq(s, len, figures[i].key)))
            return &figures[i];
    return NULL;
}

static double fig_raw(const figure *f, const agg_row *x) {
    const char *p = (const char *)x + f->off;
    double d;
    int64_t i;
    if (f->is_double) memcpy(&d, p, sizeof d);
    else memcpy(&i, p, sizeof i), d = (double)i;
    return d;
}

double figure_value(const figure *f, const agg_row *x, int *has) {
    double v = fig_raw(f, x);
    *has = f->unit != FIG_UNIT_MS || x->sampled > 0;
    return f->unit == FIG_UNIT_MS ? v / 1000.0 : v;
}

double figure_of_hist_us(const figure *f, const hist *h) {
    if (f->q > 0) return (double)hist_percentile_us(h, f->q);
    if (f->q == FIG_Q_MIN) return (double)hist_min_us(h);
    if (f->q == FIG_Q_MAX) return (double)hist_max_us(h);
    if (f->q == FIG_Q_AVG) return hist_mean_us(h);
    if (f->q == FIG_Q_STDEV) return hist_stdev_us(h);
    return 0;
}

void figures_fill_row(agg_row *x, const hist *h) {
    for (int i = 0; i < FIG_N; i++) {
        const figure *f = &figures[i];
        if (f->unit != FIG_UNIT_MS) continue;
        double us = figure_of_hist_us(f, h);
        char *p = (char *)x + f->off;
        if (f->is_double) memcpy(p, &us, sizeof us);
        else {
            int64_t v = (int64_t)us;
            memcpy(p, &v, sizeof v);
        }
    }
}

const char *figure_unit_name(fig_unit u) {
    static const char *const n[] = {"count", "s", "/s", "ms"};
    return u >= 0 && u <= FIG_UNIT_MS ? n[u] : "?";
}

const char *figure_merge_name(fig_merge m) {
    static const char *const n[] = {"sum", "rate", "min", "max", "count-weighted", "histogram"};
    return m >= 0 && m <= FIG_MERGE_HIST ? n[m] : "?";
}

static const char *const fig_out_names[] = {"summary", "csv", "console", "stream", "prometheus", "dashboard",
                                            "html", "html_chart"};

const char *figure_output_name(unsigned bit) {
    for (unsigned i = 0; i < sizeof fig_out_names / sizeof *fig_out_names; i++)
        if (bit == 1u << i) return fig_out_names[i];
    return NULL;
}

/* Appends to buf at *at (bounded by cap); the caller checks *at < cap. */
static void fig_put(char *buf, size_t cap, size_t *at, const char *fmt, const char *a, const char *b) {
    if (*at >= cap) return;
    int n = snprintf(buf + *at, cap - *at, fmt, a, b);
    *at = n < 0 ? cap : *at + (size_t)n;
}

char *figures_json(void) {
    size_t cap = 8192, at = 0;
    char *buf = malloc(cap), num[64];
    if (!buf) return NULL;
    fig_put(buf, cap, &at, "%s%s", "[", "");
    for (int i = 0; i < FIG_N; i++) {
        const figure *f = &figures[i];
        fig_put(buf, cap, &at, "%s{\"key\":\"%s\"", i ? "," : "", f->key);
        fig_put(buf, cap, &at, ",\"name\":\"%s\",\"unit\":\"%s\"", f->name, figure_unit_name(f->unit));
        snprintf(num, sizeof num, "%.6g", f->q > 0 ? f->q : f->q == FIG_Q_MAX ? 100.0 : f->q == FIG_Q_MIN ? 0.0 : -1);
        fig_put(buf, cap, &at, ",\"q\":%s%s", f->unit == FIG_UNIT_MS && f->q != FIG_Q_AVG && f->q != FIG_Q_STDEV
                ? num : "null", "");
        fig_put(buf, cap, &at, ",\"merge\":\"%s\",\"worse\":%s", figure_merge_name(f->merge),
                f->worse > 0 ? "\"higher\"" : f->worse < 0 ? "\"lower\"" : "null");
        fig_put(buf, cap, &at, ",\"threshold\":%s,\"compare\":%s", f->flags & FIG_THRESHOLD ? "true" : "false",
                f->flags & FIG_COMPARE ? "true" : "false");
        fig_put(buf, cap, &at, ",\"outputs\":[%s%s", "", "");
        int first = 1;
        for (unsigned b = 0; b < sizeof fig_out_names / sizeof *fig_out_names; b++)
            if (f->outputs & (1u << b)) fig_put(buf, cap, &at, "%s\"%s\"", first ? "" : ",", fig_out_names[b]), first = 0;
        fig_put(buf, cap, &at, "]}%s%s", "", "");
    }
    fig_put(buf, cap, &at, "]%s%s", "", "");
    if (at >= cap) {
        free(buf);
        return NULL;
    }
    return buf;
}
