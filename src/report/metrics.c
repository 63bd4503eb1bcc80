/* metrics.c - custom metrics in the reports: gauges and rates are counters
 * of their own kinds (stats/local.h: CK_GAUGE, CK_RATE_TRUE, CK_RATE_FALSE,
 * the metric's own name in agg_counter.base); here they are gathered back into one row per metric
 * for the console (report_metrics) and summary.json ("gauges", "rates").
 * A gauge's value at the end of each interval is the running sum of its
 * changes.  Plain counters stay with the other counters.  No I/O besides
 * the console table; reads the agg only. */
#include "report/console.h"
#include "report/derived.h"
#include "report/results.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "report/lazy_json.h"

int report_rates(const agg *a, report_rate **out) {
    int n = 0;
    *out = calloc((size_t)a->ncounters + 1, sizeof **out);
    for (int i = 0; *out && i < a->ncounters; i++) {
        const agg_counter *c = a->counters[i];
        const char *base = c->base;
        int t = c->kind == CK_RATE_TRUE;
        if (!t && c->kind != CK_RATE_FALSE) continue;
        int k = 0;
        while (k < n && strcmp((*out)[k].name, base) != 0) k++;
        if (k == n) (*out)[n++].name = base;
        if (t) (*out)[k].trues += c->total, (*out)[k].t = c;
        else (*out)[k].falses += c->total, (*out)[k].f = c;
    }
    return *out ? n : 0;
}

/* Row k of a rate: [true, false]. */
static json_t *metrics_rate_elem(const void *data, int k, int64_t *carry) {
    (void)carry;
    const report_rate *x = data;
    json_int_t t = x->t && k < x->t->nrows ? x->t->rows[k] : 0;
    json_int_t f = x->f && k < x->f->nrows ? x->f->rows[k] : 0;
    return json_pack("[I,I]", t, f);
}

/* The rows of a rate: [[true, false], ...] per interval. */
static json_t *metrics_rate_rows(const report_rate *x, lazy_json *lz) {
    int n = x->t ? x->t->nrows : 0;
    if (x->f && x->f->nrows > n) n = x->f->nrows;
    return lazy_json_array(lz, metrics_rate_elem, x, n);
}

json_t *report_rates_json(const agg *a, lazy_json *lz) {
    json_t *arr = json_array();
    report_rate *rt;
    int n = report_rates(a, &rt);
    if (lz && rt && lazy_json_own(lz, rt) != 0) lz = NULL;   /* the rows point into rt */
    for (int i = 0; i < n; i++) {
        int64_t all = rt[i].trues + rt[i].falses;
        char *name = text_escape_dup(rt[i].name);
        json_array_append_new(arr, json_pack("{s:s,s:I,s:I,s:f,s:o}", "name", name ? name : "?",
            "true", (json_int_t)rt[i].trues, "false", (json_int_t)rt[i].falses,
            "rate_percent", all ? 100.0 * (double)rt[i].trues / (double)all : 0.0,
            "intervals", metrics_rate_rows(&rt[i], lz)));
        free(name);
    }
    if (!lz) free(rt);
    return arr;
}

/* A gauge's level at the end of interval k: the running sum of its changes. */
static json_t *metrics_gauge_elem(const void *data, int k, int64_t *level) {
    const agg_counter *c = data;
    return json_integer(*level += c->rows[k]);
}

json_t *report_gauges_json(const agg *a, lazy_json *lz) {
    json_t *arr = json_array();
    for (int i = 0; i < a->ncounters; i++) {
        const agg_counter *c = a->counters[i];
        const char *base = c->base;
        if (c->kind != CK_GAUGE) continue;
        json_t *rows = lazy_json_array(lz, metrics_gauge_elem, c, c->nrows);
        char *name = text_escape_dup(base);
        json_array_append_new(arr, json_pack("{s:s,s:I,s:o}", "name", name ? name : "?",
                                             "value", (json_int_t)c->total, "intervals", rows));
        free(name);
    }
    return arr;
}

void report_metrics(FILE *out, const run_result *r) {
    report_rate *rt;
    int n = report_rates(&r->agg, &rt);
    char buf[1024];
    if (n > 0) fprintf(out, "\nRates\n\n%-40s %12s %12s %10s\n", "name", "true", "false", "rate");
    for (int i = 0; i < n; i++) {
        int64_t all = rt[i].trues + rt[i].falses;
        fprintf(out, "%-40s %12lld %12lld %9.2f%%\n", text_clean(rt[i].name, buf, sizeof buf),
                (long long)rt[i].trues, (long long)rt[i].falses,
                all ? 100.0 * (double)rt[i].trues / (double)all : 0);
    }
    free(rt);
    int shown = 0;
    for (int i = 0; i < r->agg.ncounters; i++) {
        const agg_counter *c = r->agg.counters[i];
        const char *base = c->base;
        if (c->kind != CK_GAUGE) continue;
        int64_t level = 0, lo = 0, hi = 0;
        for (int k = 0; k < c->nrows; k++) {
            level += c->rows[k];
            if (k == 0 || level < lo) lo = level;
            if (k == 0 || level > hi) hi = level;
        }
        if (!shown++) fprintf(out, "\nGauges (value at the end; lowest and highest at interval ends)\n\n%-40s %14s %14s %14s\n",
                              "name", "value", "lowest", "highest");
        fprintf(out, "%-40s %14lld %14lld %14lld\n", text_clean(base, buf, sizeof buf), (long long)c->total,
                (long long)lo, (long long)hi);
    }
}
