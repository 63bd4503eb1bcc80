/* metrics.c - custom metrics in the reports: gauges and rates are counters
 * of their own kinds (stats/local.h: CK_GAUGE, CK_RATE_TRUE, CK_RATE_FALSE,
 * the metric's own name in agg_counter.base); here they are gathered back into one row per metric
 * for the console (report_metrics) and summary.json ("gauges", "rates").
 * A gauge's value at the end of each interval is the running sum of its
 * changes.  Plain counters stay with the other counters.  No I/O besides
 * the console table; reads the agg only. */
#include "report/report.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"

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

/* The rows of a rate: [[true, false], ...] per interval. */
static json_t *metrics_rate_rows(const report_rate *x) {
    json_t *rows = json_array();
    int n = x->t ? x->t->nrows : 0;
    if (x->f && x->f->nrows > n) n = x->f->nrows;
    for (int k = 0; k < n; k++) {
        json_int_t t = x->t && k < x->t->nrows ? x->t->rows[k] : 0;
        json_int_t f = x->f && k < x->f->nrows ? x->f->rows[k] : 0;
        json_array_append_new(rows, json_pack("[I,I]", t, f));
    }
    return rows;
}

json_t *report_rates_json(const agg *a) {
    json_t *arr = json_array();
    report_rate *rt;
    int n = report_rates(a, &rt);
    for (int i = 0; i < n; i++) {
        int64_t all = rt[i].trues + rt[i].falses;
        char *name = text_escape_dup(rt[i].name);
        json_array_append_new(arr, json_pack("{s:s,s:I,s:I,s:f,s:o}", "name", name ? name : "?",
            "true", (json_int_t)rt[i].trues, "false", (json_int_t)rt[i].falses,
            "rate_percent", all ? 100.0 * (double)rt[i].trues / (double)all : 0.0,
            "intervals", metrics_rate_rows(&rt[i])));
        free(name);
    }
    free(rt);
    return arr;
}

json_t *report_gauges_json(const agg *a) {
    json_t *arr = json_array();
    for (int i = 0; i < a->ncounters; i++) {
        const agg_counter *c = a->counters[i];
        const char *base = c->base;
        if (c->kind != CK_GAUGE) continue;
        json_t *rows = json_array();
        int64_t level = 0;
        for (int k = 0; k < c->nrows; k++) json_array_append_new(rows, json_integer(level += c->rows[k]));
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
