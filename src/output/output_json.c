/* output_json.c - the JSON lines every stream shares (docs/outputs.md,
 * schema OUTPUT_SCHEMA_VERSION): a "start" event, per closed interval one
 * "timer" object per timer family (its other views nested under "views")
 * and one "interval" object (VUs and
 * targets, counters and their kinds, generator health, thresholds so far),
 * and an "end" event with the totals; a latency without a sample is null,
 * never 0.  Built from the merged run data (jansson); no I/O. */
#include "output/output_priv.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "report/derived.h"
#include "report/results.h"
#include "report/view.h"

double output_wall_s(const run_result *r, double t_s) {
    return (double)r->start_wall.tv_sec + (double)r->start_wall.tv_nsec / 1e9 + t_s;
}

/* Names come from scripts and servers: escaped as the result files do. */
static json_t *ojson_str(const char *s) {
    if (text_is_clean(s, strlen(s))) return json_string(s);
    char *copy = text_escape_dup(s);
    json_t *j = copy ? json_string(copy) : NULL;
    free(copy);
    return j;
}

static json_t *ojson_head(const output_run *run, const char *type) {
    json_t *o = json_pack("{s:i,s:s,s:o}", "v", OUTPUT_SCHEMA_VERSION, "type", type, "run_id", ojson_str(run->run_id));
    if (o && run->phase) json_object_set_new(o, "phase", ojson_str(run->phase));
    return o;
}

/* Appends o as one line and releases it. */
static int ojson_append(char **buf, size_t *len, json_t *o) {
    char *s = o ? json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(15)) : NULL;
    json_decref(o);
    if (!s) return -1;
    size_t n = strlen(s);
    char *grown = realloc(*buf, *len + n + 2);
    if (!grown) {
        free(s);
        return -1;
    }
    memcpy(grown + *len, s, n);
    grown[*len + n] = '\n';
    grown[*len + n + 1] = 0;
    *buf = grown;
    *len += n + 1;
    free(s);
    return 0;
}

/* The figures the stream carries (FIG_OUT_STREAM), by key. */
static void ojson_row(json_t *o, const agg_row *x) {
    json_t *f = report_row_json(x, FIG_OUT_STREAM);
    if (f) json_object_update(o, f);
    json_decref(f);
}

int output_json_start(char **buf, size_t *len, const output_run *run) {
    const scenario *sc = run->sc;
    json_t *o = ojson_head(run, "start"), *groups = json_array();
    for (int g = 0; g < sc->ngroups; g++) {
        const group_cfg *gc = &sc->groups[g];
        json_array_append_new(groups, json_pack("{s:o,s:s,s:i}", "name", ojson_str(gc->name),
            "target", gc->model == MODEL_RATE ? "rate" : "vus", "vus", gc->vus));
    }
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    json_object_set_new(o, "scenario", ojson_str(sc->name));
    json_object_set_new(o, "time", json_real((double)now.tv_sec + (double)now.tv_nsec / 1e9));
    json_object_set_new(o, "interval_s", json_real((double)sc->interval_ns / 1e9));
    json_object_set_new(o, "run_time_s", json_real((double)sc->run_time_ns / 1e9));
    json_object_set_new(o, "groups", groups);
    /* the figures table (stats/figures.h): which figures each output carries,
     * their units and directions; the dashboard's page reads it from here */
    char *figs = figures_json();
    json_t *fj = figs ? json_loads(figs, 0, NULL) : NULL;
    free(figs);
    if (fj) json_object_set_new(o, "figures", fj);
    return ojson_append(buf, len, o);
}

/* Each group's target (VUs, or transactions/s for a rate group) at t. */
static json_t *ojson_targets(const scenario *sc, double t_s) {
    json_t *o = json_object();
    for (int g = 0; g < sc->ngroups; g++)
        json_object_set_new(o, sc->groups[g].name, json_real(sched_target(&sc->groups[g].sched, (int64_t)(t_s * 1e9))));
    return o;
}

static json_t *ojson_health(report_view *v, int k) {
    int n;
    const health_row *h = report_view_health(v, &n, NULL, NULL);
    json_t *o = h && k < n ? json_pack("{s:f,s:f,s:f,s:f,s:I,s:I,s:f}", "cpu_percent", h[k].cpu_pct,
        "cpu_wait_percent", h[k].cpu_wait_pct, "loop_lag_p99_ms", h[k].lag_p99_ms,
        "loop_lag_max_ms", h[k].lag_max_ms, "late_starts", (json_int_t)h[k].late,
        "skipped_starts", (json_int_t)h[k].skipped, "dispatch_delay_p99_ms", h[k].dispatch_p99_ms) : json_object();
    return o;
}

static json_t *ojson_thresholds(const scenario *sc, report_view *v) {
    const th_result *res = report_view_thresholds(v, NULL);
    json_t *arr = json_array();
    for (int i = 0; res && i < sc->nthresholds; i++) {
        char text[256];
        json_array_append_new(arr, json_pack("{s:o,s:b,s:s}", "threshold", ojson_str(res[i].t->text),
            "passed", res[i].passed, "measured", report_threshold_text(&res[i], text, sizeof text)));
    }
    return arr;
}

static json_t *ojson_counters(const run_result *r, int k) {
    json_t *o = json_object();
    for (int i = 0; i < r->agg.ncounters; i++) {
        const agg_counter *c = r->agg.counters[i];
        json_object_set_new(o, c->name, json_integer(k < c->nrows ? c->rows[k] : 0));
    }
    return o;
}

/* Each counter's kind, by the name "counters" uses: the kind it was made as
 * (summary.json's counter "kind", counter_kind_name), never read from the
 * name.  A sibling object, so that "counters" keeps its shape in schema 1. */
static json_t *ojson_counter_kinds(const run_result *r) {
    json_t *o = json_object();
    for (int i = 0; i < r->agg.ncounters; i++) {
        const agg_counter *c = r->agg.counters[i];
        json_object_set_new(o, c->name, json_string(counter_kind_name(c->kind)));
    }
    return o;
}

/* A merge's segments (output_segments), when there are some. */
static void ojson_segments(json_t *o, const output_run *run) {
    json_t *segs = run->segments ? json_loads(run->segments, 0, NULL) : NULL;
    if (json_is_array(segs)) json_object_set_new(o, "segments", segs);
    else json_decref(segs);
}

/* A family's other views (docs/outputs.md): its "(uncorrected)" twin and its
 * "(all)" twin when reported, by view name; NULL when it has neither. */
static json_t *ojson_views(const agg_timer *t, json_t *(*row_of)(const agg_timer *, void *), void *ctx) {
    json_t *o = NULL;
    for (timer_view v = TV_DEFAULT + 1; v < TV_N; v++) {
        const agg_timer *x = agg_view(t, v);
        json_t *row = x && agg_timer_reported(x) ? row_of(x, ctx) : NULL;
        if (!row) continue;
        if (!o) o = json_object();
        json_object_set_new(o, timer_view_name(v), row);
    }
    return o;
}

static int ojson_is_head(const agg_timer *t) { return agg_head(t) == t; }

static json_t *ojson_interval_row(const agg_timer *t, void *ctx) {
    int k = *(const int *)ctx;
    if (k >= t->nrows) return NULL;
    json_t *o = json_object();
    ojson_row(o, &t->rows[k]);
    return o;
}

int output_json_interval(char **buf, size_t *len, const output_run *run, int k) {
    const run_result *r = run->r;
    double t_s, end_s;                      /* the interval's bounds: the rule of every output */
    agg_interval_bounds(&r->agg, k, &t_s, &end_s);
    int rc = 0;
    for (int i = 0; i < r->agg.n && rc == 0; i++) {
        const agg_timer *t = r->agg.timers[i];
        if (!ojson_is_head(t) || k >= t->nrows) continue;
        json_t *o = ojson_head(run, "timer");
        json_object_set_new(o, "interval", json_integer(k));
        json_object_set_new(o, "t_s", json_real(t_s));
        json_object_set_new(o, "time", json_real(output_wall_s(r, end_s)));
        json_object_set_new(o, "timer", ojson_str(t->name));
        json_object_set_new(o, "kind", json_string(timer_kind_name(t->kind)));
        ojson_row(o, &t->rows[k]);
        json_t *views = ojson_views(t, ojson_interval_row, &k);
        if (views) json_object_set_new(o, "views", views);
        rc = ojson_append(buf, len, o);
    }
    json_t *o = ojson_head(run, "interval");
    json_object_set_new(o, "interval", json_integer(k));
    json_object_set_new(o, "t_s", json_real(t_s));
    json_object_set_new(o, "end_s", json_real(end_s));
    json_object_set_new(o, "time", json_real(output_wall_s(r, end_s)));
    json_object_set_new(o, "active_vus", json_integer(k < r->agg.nrows_vus ? r->agg.vus_rows[k] : r->agg.active_vus));
    json_object_set_new(o, "targets", ojson_targets(run->sc, t_s + (double)r->agg.interval_ns / 1e9));
    json_object_set_new(o, "counters", ojson_counters(r, k));
    json_object_set_new(o, "counter_kinds", ojson_counter_kinds(r));
    json_object_set_new(o, "health", ojson_health(run->view, k));
    json_object_set_new(o, "thresholds", ojson_thresholds(run->sc, run->view));
    ojson_segments(o, run);
    return rc == 0 ? ojson_append(buf, len, o) : (json_decref(o), -1);
}

/* A timer's whole-run figures, over its family's span. */
static json_t *ojson_total_row(const agg_timer *t, void *ctx) {
    const output_run *run = ctx;
    agg_row row;
    double s0, s1, span = report_timer_span(run->sc, run->r, t->of ? t->of : t, &s0, &s1);
    agg_timer_total_row(&row, t, span);
    json_t *o = json_object();
    ojson_row(o, &row);
    return o;
}

int output_json_end(char **buf, size_t *len, const output_run *run, const char *status, int exit_code) {
    const run_result *r = run->r;
    json_t *o = ojson_head(run, "end"), *totals = json_array();
    for (int i = 0; i < r->agg.n; i++) {
        const agg_timer *t = r->agg.timers[i];
        if (!ojson_is_head(t)) continue;
        json_t *x = json_pack("{s:o,s:s}", "timer", ojson_str(t->name), "kind", timer_kind_name(t->kind));
        json_t *row = ojson_total_row(t, (void *)run);
        if (row) json_object_update(x, row);
        json_decref(row);
        json_t *views = ojson_views(t, ojson_total_row, (void *)run);
        if (views) json_object_set_new(x, "views", views);
        json_array_append_new(totals, x);
    }
    json_object_set_new(o, "status", json_string(status));
    json_object_set_new(o, "exit_code", json_integer(exit_code));
    json_object_set_new(o, "time", json_real(output_wall_s(r, (double)r->span_ns / 1e9)));
    json_object_set_new(o, "run_s", json_real((double)r->run_ns / 1e9));
    json_object_set_new(o, "intervals", json_integer(r->agg.nintervals));
    json_object_set_new(o, "totals", totals);
    json_object_set_new(o, "thresholds", ojson_thresholds(run->sc, run->view));
    ojson_segments(o, run);
    return ojson_append(buf, len, o);
}
