/* results.c - the results directory: summary.json (jansson), intervals.csv,
 * errors.csv and a copy of the scenario and its scripts.  Every file is
 * written to a temporary name and renamed, so an interrupted writer never
 * leaves a half file behind.  Also where directory names come from: the
 * --out check (before any load) and the rule that makes a name one safe path
 * component.  Formats are documented in docs/results.md. */
#include "report/derived.h"
#include "report/results.h"
#include "report/schema.h"
#include "report/view.h"

#include <errno.h>
#include <jansson.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/text.h"
#include "common/when.h"
#include "report/lazy_json.h"

static int results_mkdirs(const char *dir) {
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", dir);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    return mkdir(tmp, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

void report_path_name(char *buf, size_t len, const char *name) {
    size_t n = 0;
    for (const char *p = name; *p && n + 1 < len && n < 64; p++, n++) {
        char c = *p;
        int keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                   (c && strchr("._-+=,@", c) != NULL);
        buf[n] = keep && !(n == 0 && c == '.') ? c : '_';
    }
    if (len > 0) buf[n] = 0;
}

void report_phase_subdir(char *buf, size_t len, int i, const char *name) {
    char safe[80];
    report_path_name(safe, sizeof safe, name);
    snprintf(buf, len, "%d-%s", i + 1, safe);
}

void report_default_dir(char *buf, size_t len, const scenario *sc) {
    char stamp[32], safe[80];
    time_t now = time(NULL);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime(&now));
    report_path_name(safe, sizeof safe, sc->name);
    snprintf(buf, len, "results/%s-%s", safe, stamp);
}

/* The nearest existing ancestor of dir (dir itself if it exists) into buf. */
static int results_existing_ancestor(const char *dir, char *buf, size_t len, struct stat *st) {
    snprintf(buf, len, "%s", dir);
    for (;;) {
        if (stat(buf, st) == 0) return 0;
        if (errno != ENOENT) return -1;
        char *slash = strrchr(buf, '/');
        while (slash && slash > buf && slash[1] == 0) {      /* "a/b/" */
            *slash = 0;
            slash = strrchr(buf, '/');
        }
        if (!slash) snprintf(buf, len, ".");
        else if (slash == buf) buf[1] = 0;                   /* "/" */
        else *slash = 0;
    }
}

int report_check_out(const char *dir, char *err, size_t err_len) {
    char anc[4096];
    struct stat st;
    if (!*dir) {
        snprintf(err, err_len, "expected a directory, got an empty path");
        return -1;
    }
    if (strlen(dir) > 3000) {
        snprintf(err, err_len, "the path is longer than 3000 bytes");
        return -1;
    }
    if (results_existing_ancestor(dir, anc, sizeof anc, &st) != 0) {
        snprintf(err, err_len, "cannot use %s: %s", dir, strerror(errno));
        return -1;
    }
    int self = strcmp(anc, dir) == 0;
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, err_len, self ? "%s exists and is not a directory" : "cannot create %s: %s is not a directory",
                 dir, anc);
        return -1;
    }
    if (access(anc, W_OK | X_OK) != 0) {
        snprintf(err, err_len, "cannot %s %s: %s: %s", self ? "write into" : "create", dir, anc, strerror(errno));
        return -1;
    }
    return 0;
}

int report_make_out(const char *dir, char *err, size_t err_len) {
    char probe[4200];
    if (report_check_out(dir, err, err_len) != 0) return -1;
    if (results_mkdirs(dir) != 0) {
        snprintf(err, err_len, "cannot create %s: %s", dir, strerror(errno));
        return -1;
    }
    snprintf(probe, sizeof probe, "%s/.luamech-probe", dir);
    FILE *f = fopen(probe, "w");
    if (!f || fclose(f) != 0 || remove(probe) != 0) {
        snprintf(err, err_len, "cannot write into %s: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}

int report_prepare_dir(const char *dir, const scenario *sc, char *err, size_t err_len) {
    char sub[3072];
    snprintf(sub, sizeof sub, "%s/scenario", dir);
    if (results_mkdirs(sub) != 0) {
        snprintf(err, err_len, "cannot create the results directory %s: %s", sub, strerror(errno));
        return -1;
    }
    int rc = report_copy_scenario(sub, sc);
    if (rc != 0) snprintf(err, err_len, "cannot copy the scenario into %s: %s", sub, strerror(errno));
    return rc;
}

/* Open dir/name.tmp; results_commit renames it to dir/name. */
static FILE *results_open(const char *dir, const char *name, char *tmp, size_t len) {
    snprintf(tmp, len, "%s/.%s.tmp", dir, name);
    return fopen(tmp, "w");
}

static int results_commit(FILE *f, const char *dir, const char *name, const char *tmp) {
    char path[4096];
    int rc = ferror(f) ? -1 : 0;
    if (fclose(f) != 0) rc = -1;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (rc == 0 && rename(tmp, path) != 0) rc = -1;
    return rc;
}

/* A string that a script or a server may have made (names, messages):
 * jansson wants valid UTF-8, readers want no control bytes, so it is
 * escaped (common/text.h; clean text is unchanged). */
static json_t *results_str(const char *s) {
    if (text_is_clean(s, strlen(s))) return json_string(s);
    char *copy = text_escape_dup(s);
    json_t *j = copy ? json_string(copy) : NULL;
    free(copy);
    return j;
}

json_t *report_row_json(const agg_row *x, unsigned output) {
    json_t *o = json_object();
    const figure *fig = figures_table();
    for (int i = 0; o && i < FIG_N; i++) {
        const figure *f = &fig[i];
        if (!(f->outputs & output)) continue;
        int has;
        double v = figure_value(f, x, &has);
        json_t *j = !has ? json_null() : f->unit == FIG_UNIT_COUNT ? json_integer((json_int_t)v) : json_real(v);
        if (json_object_set_new(o, f->key, j) != 0) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

static json_t *results_row_json(const agg_row *x) { return report_row_json(x, FIG_OUT_SUMMARY); }

/* What a timer family is besides its name, as data (docs/results.md):
 * its group and stage, and its tags. */
static void results_timer_tags(json_t *o, const scenario *sc, const agg_timer *t) {
    if (t->group >= 0 && t->group < sc->ngroups)
        json_object_set_new(o, "group", results_str(sc->groups[t->group].name));
    if (t->stage > 0) json_object_set_new(o, "stage", json_integer(t->stage));
    json_t *fields = t->tags ? json_loads(t->tags, 0, NULL) : NULL;   /* tagged_of, tags */
    if (json_is_object(fields)) json_object_update(o, fields);
    json_decref(fields);
}

/* Interval row k of a timer (lazy_json: written one at a time). */
static json_t *results_row_elem(const void *data, int k, int64_t *carry) {
    (void)carry;
    const agg_timer *t = data;
    return results_row_json(&t->rows[k]);
}

/* View v of the family of head, as summary.json has it (schema 2): where
 * its latency is from and over, its summary over the family's span, its
 * interval rows.  NULL when the family has no such view reported. */
static json_t *results_view_json(const scenario *sc, const run_result *r, lazy_json *lz, const agg_timer *head,
                                 timer_view v) {
    const agg_timer *t = agg_view(head, v);
    if (!t || !agg_timer_reported(t)) return NULL;
    agg_row total;
    double s0, s1, span = report_timer_span(sc, r, head, &s0, &s1);
    agg_timer_total_row(&total, t, span);
    const char *from = v == TV_UNCORRECTED || !head->uncorrected ? "actual start" : "intended start";
    return json_pack("{s:s,s:s,s:o,s:o}", "latency_from", from, "latency_over",
                     v == TV_ALL ? "all samples" : "successes", "summary", results_row_json(&total),
                     "intervals", lazy_json_array(lz, results_row_elem, t, t->nrows));
}

/* Each timer family (schema 2): its default view at the top level, with
 * its span's bounds, group, stage and tags; its other views under "views"
 * (absent when it has none: engine timers, a closed-loop timer without
 * failures). */
static json_t *results_timers_json(const scenario *sc, const run_result *r, lazy_json *lz) {
    json_t *arr = json_array();
    for (int i = 0; i < r->agg.n; i++) {
        const agg_timer *t = r->agg.timers[i];
        if (agg_head(t) != t) continue;
        json_t *o = results_view_json(sc, r, lz, t, TV_DEFAULT);
        if (!o) continue;
        json_t *named = json_pack("{s:o,s:s}", "name", results_str(t->name), "kind", timer_kind_name(t->kind));
        if (named) json_object_update(named, o);
        json_decref(o);
        o = named;
        if (!o) continue;
        double s0, s1;
        report_timer_span(sc, r, t, &s0, &s1);
        json_object_set_new(o, "start_s", json_real(s0));
        json_object_set_new(o, "end_s", json_real(s1));
        results_timer_tags(o, sc, t);
        json_t *views = NULL;
        for (timer_view v = TV_DEFAULT + 1; v < TV_N; v++) {
            json_t *x = results_view_json(sc, r, lz, t, v);
            if (!x) continue;
            if (!views) views = json_object();
            json_object_set_new(views, timer_view_name(v), x);
        }
        if (views) json_object_set_new(o, "views", views);
        json_array_append_new(arr, o);
    }
    return arr;
}

static json_t *results_tally_json(const tally *t) {
    json_t *arr = json_array();
    size_t *order, n = tally_sorted(t, &order);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(arr, json_pack("{s:o,s:I}", "message", results_str(t->msgs[order[i]]),
                                             "count", (json_int_t)t->counts[order[i]]));
    if (t->other)
        json_array_append_new(arr, json_pack("{s:s,s:I}", "message", "(other)", "count", (json_int_t)t->other));
    free(order);
    return arr;
}

/* Interval row k of a counter. */
static json_t *results_counter_elem(const void *data, int k, int64_t *carry) {
    (void)carry;
    const agg_counter *c = data;
    return json_integer(c->rows[k]);
}

static json_t *results_counters_json(const run_result *r, lazy_json *lz) {
    json_t *arr = json_array();
    for (int i = 0; i < r->agg.ncounters; i++) {
        const agg_counter *c = r->agg.counters[i];
        if (c->kind != CK_PLAIN && c->kind != CK_ENGINE) continue;   /* "checks", "rates", "gauges" */
        json_t *rows = lazy_json_array(lz, results_counter_elem, c, c->nrows);
        json_array_append_new(arr, json_pack("{s:o,s:I,s:f,s:o,s:s}", "name", results_str(c->name),
            "total", (json_int_t)c->total,
            "rate", report_span_s(r) > 0 ? (double)c->total / report_span_s(r) : 0.0, "intervals", rows,
            "kind", counter_kind_name(c->kind)));
    }
    return arr;
}

static json_t *results_checks_json(const run_result *r) {
    json_t *arr = json_array();
    report_check *ck;
    int n = report_checks(&r->agg, &ck);
    for (int i = 0; i < n; i++)
        json_array_append_new(arr, json_pack("{s:o,s:I,s:I}", "name", results_str(ck[i].name),
            "passes", (json_int_t)ck[i].passes, "fails", (json_int_t)ck[i].fails));
    free(ck);
    return arr;
}

static json_t *results_thresholds_json(report_view *v) {
    return report_thresholds_json(report_view_thresholds(v, NULL), v->sc->nthresholds);
}

/* The generator's health in interval k. */
static json_t *results_health_elem(const void *data, int k, int64_t *carry) {
    (void)carry;
    const health_row *h = data;
    return json_pack("{s:f,s:f,s:f,s:f,s:f,s:I,s:I,s:I,s:f,s:f,s:f,s:f,s:f}",
        "cpu_percent", h[k].cpu_pct, "cpu_wait_percent", h[k].cpu_wait_pct, "loop_lag_p99_ms", h[k].lag_p99_ms, "loop_lag_max_ms", h[k].lag_max_ms,
        "schedule_lag_p99_ms", h[k].sched_p99_ms, "late_starts", (json_int_t)h[k].late,
        "skipped_starts", (json_int_t)h[k].skipped, "dispatch_count", (json_int_t)h[k].dispatch_count,
        "dispatch_delay_p50_ms", h[k].dispatch_p50_ms, "dispatch_delay_p99_ms", h[k].dispatch_p99_ms,
        "dispatch_delay_max_ms", h[k].dispatch_max_ms, "inflation_ms", h[k].inflation_ms,
        "inflation_percent", h[k].inflation_pct);
}

static json_t *results_health_json(report_view *v, lazy_json *lz) {
    const run_result *r = v->r;
    int n, suspect;
    const char *why;
    const health_row *vh = report_view_health(v, &n, &suspect, &why);
    health_row *h = vh ? malloc(((size_t)n + 1) * sizeof *h) : NULL;   /* the lazy writer keeps its own */
    if (h) memcpy(h, vh, (size_t)n * sizeof *h);
    if (lz && h && lazy_json_own(lz, h) != 0) lz = NULL;   /* out of memory: built whole */
    json_t *rows = lazy_json_array(lz, results_health_elem, h, h ? n : 0);
    if (!lz) free(h);
    double ms, pct;
    report_health_inflation(r, &ms, &pct);
    return json_pack("{s:b,s:s,s:f,s:f,s:o}", "suspect", suspect, "reasons", why, "inflation_ms", ms,
                     "inflation_percent", pct, "intervals", rows);
}

/* The load the run applied: active VUs at each interval's end, and each
 * group's target then (VUs; transactions/s for a rate group): the report's
 * load charts, and the live outputs'. */
static json_t *results_vus_elem(const void *data, int k, int64_t *carry) {
    (void)carry;
    const agg *a = data;
    return json_integer(a->vus_rows[k]);
}

/* A group's target at the end of interval k. */
typedef struct results_target { const group_cfg *g; int64_t interval_ns, run_ns; } results_target;

static json_t *results_target_elem(const void *data, int k, int64_t *carry) {
    (void)carry;
    const results_target *x = data;
    int64_t t_ns = (int64_t)(k + 1) * x->interval_ns;
    if (x->run_ns > 0 && t_ns > x->run_ns) t_ns = x->run_ns;
    return json_real(sched_target(&x->g->sched, t_ns));
}

/* The targets of group g, element by element when lz can keep their
 * bounds; else whole. */
static json_t *results_targets_json(const scenario *sc, const run_result *r, int g, lazy_json *lz) {
    results_target *x = malloc(sizeof *x);
    if (!x) return NULL;
    *x = (results_target){&sc->groups[g], r->agg.interval_ns, r->run_ns};
    if (lz && lazy_json_own(lz, x) != 0) lz = NULL;
    json_t *tg = lazy_json_array(lz, results_target_elem, x, r->agg.nintervals);
    if (!lz) free(x);
    return tg;
}

static json_t *results_load_json(const scenario *sc, const run_result *r, lazy_json *lz) {
    json_t *vus = lazy_json_array(lz, results_vus_elem, &r->agg, r->agg.nrows_vus), *groups = json_array();
    for (int g = 0; g < sc->ngroups; g++) {
        json_t *tg = results_targets_json(sc, r, g, lz);
        json_array_append_new(groups, json_pack("{s:o,s:s,s:o}", "name", results_str(sc->groups[g].name),
            "target", sc->groups[g].model == MODEL_RATE ? "rate" : "vus", "targets", tg));
    }
    return json_pack("{s:o,s:o}", "active_vus", vus, "groups", groups);
}

static json_t *results_stages_json(const scenario *sc, const run_result *r) {
    json_t *arr = json_array();
    stage_row *rows;
    int n = report_stage_rows(sc, r, &rows);
    for (int i = 0; i < n; i++) {
        json_t *o = results_row_json(&rows[i].row);
        json_object_set_new(o, "group", results_str(rows[i].group->name));
        json_object_set_new(o, "stage", json_integer(rows[i].stage));
        json_object_set_new(o, "from", json_real(rows[i].from));
        json_object_set_new(o, "to", json_real(rows[i].to));
        json_object_set_new(o, "start_s", json_real(rows[i].start_s));
        json_object_set_new(o, "end_s", json_real(rows[i].end_s));
        json_object_set_new(o, "target", json_string(rows[i].group->model == MODEL_RATE ? "rate" : "vus"));
        json_array_append_new(arr, o);
    }
    free(rows);
    return arr;
}

static const char *results_model_name(load_model m) {
    return m == MODEL_RATE ? "rate" : m == MODEL_PACED ? "paced" : "closed";
}

/* Distinct custom + primitive timer names past max_timers: null when none. */
static json_t *results_overflow_json(const run_result *r) {
    const agg *a = &r->agg;
    if (!a->overflow_name) return json_null();
    return json_pack("{s:i,s:o,s:s,s:s}", "max_timers", a->max_timers, "first_name",
                     results_str(a->overflow_name), "kind", timer_kind_name(a->overflow_kind), "counted_as",
                     a->overflow_kind == TK_PRIMITIVE ? STATS_OTHER_PRIMITIVE : STATS_OTHER_CUSTOM);
}

/* A group's load schedule as data (luamech merge rebuilds stage rows and
 * load targets from it): the target at t = 0 and each stage's length and
 * target (VUs; transactions/s for a rate group). */
static json_t *results_schedule_json(const group_cfg *gc) {
    json_t *st = json_array();
    for (int k = 0; k < gc->sched.n; k++)
        json_array_append_new(st, json_pack("{s:I,s:f}", "duration_ns", (json_int_t)gc->sched.st[k].dur_ns,
                                            "target", gc->sched.st[k].target));
    return json_pack("{s:b,s:f,s:o}", "staged", gc->staged, "start", gc->sched.start, "stages", st);
}

static json_t *results_groups_json(const scenario *sc) {
    json_t *arr = json_array();
    for (int g = 0; g < sc->ngroups; g++)
        json_array_append_new(arr, json_pack("{s:o,s:i,s:o,s:s,s:o}", "name", results_str(sc->groups[g].name),
                                             "vus", sc->groups[g].vus, "script", results_str(sc->groups[g].script_name),
                                             "model", results_model_name(sc->groups[g].model),
                                             "schedule", results_schedule_json(&sc->groups[g])));
    return arr;
}

static void results_time(char *buf, size_t len, const struct timespec *ts) {
    struct tm tm;
    gmtime_r(&ts->tv_sec, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* A segment's identity (luamech merge checks it) and the start barrier's
 * outcome (docs/distributed.md). */
static void results_dist_json(json_t *root, const scenario *sc, const run_result *r) {
    json_object_set_new(root, "scenario_hash", json_string(sc->hash[0] ? sc->hash : ""));
    json_object_set_new(root, "start_unix_ns", json_integer((json_int_t)r->start_wall.tv_sec * 1000000000 +
                                                            (json_int_t)r->start_wall.tv_nsec));
    if (sc->seg_count > 0) {
        char host[256] = "";
        if (gethostname(host, sizeof host - 1) != 0) host[0] = 0;
        json_object_set_new(root, "segment", json_pack("{s:i,s:i,s:I,s:o}", "index", sc->seg_index, "count",
                            sc->seg_count, "requests_whole", (json_int_t)sc->requests_whole, "host", results_str(host)));
    }
    if (sc->start_at_ns > 0) {
        char when[64];
        when_format(sc->start_at_ns, when, sizeof when);
        json_object_set_new(root, "start_at", json_pack("{s:s,s:f,s:b}", "requested", when, "offset_ms",
                            (double)r->start_offset_ns / 1e6, "late", r->start_offset_ns > 1000000));
    }
}

int report_write_json(const char *dir, const scenario *sc, const run_result *r,
                      const char *status, int exit_code) {
    report_view v;
    report_view_init(&v, sc, r);
    int rc = report_write_json_view(dir, status, exit_code, &v);
    report_view_free(&v);
    return rc;
}

int report_write_json_view(const char *dir, const char *status, int exit_code, report_view *v) {
    const scenario *sc = v->sc;
    const run_result *r = v->r;
    char t0[32], t1[32], tmp[4096];
    lazy_json *lz = lazy_json_new();       /* NULL (out of memory): the arrays built whole */
    results_time(t0, sizeof t0, &r->start_wall);
    results_time(t1, sizeof t1, &r->end_wall);
    json_t *settings = json_pack("{s:f,s:f,s:f,s:f,s:I,s:i}",
        "run_time_s", (double)sc->run_time_ns / 1e9, "rampup_s", (double)sc->rampup_ns / 1e9,
        "interval_s", (double)sc->interval_ns / 1e9, "graceful_stop_s", (double)sc->graceful_stop_ns / 1e9,
        "requests", (json_int_t)sc->requests, "workers", r->nworkers);
    json_object_set_new(settings, "max_timers", json_integer(r->agg.max_timers));
    json_object_set_new(settings, "abort_on_threshold", json_boolean(sc->abort_on_threshold));
    json_object_set_new(settings, "io", r->io[0] ? json_string(r->io) : json_null());
    json_t *root = json_pack("{s:i,s:s,s:s,s:o,s:o,s:i,s:s,s:s,s:f,s:I,s:o,s:o,s:o,s:o}",
        "schema_version", RESULTS_SCHEMA_VERSION, "tool", "luamech", "version", LUAMECH_VERSION,
        "scenario", results_str(sc->name), "scenario_file", results_str(sc->path), "exit_code", exit_code, "status", status,
        "start", t0, "run_time_s", (double)r->run_ns / 1e9, "seed", (json_int_t)r->seed,
        "settings", settings, "groups", results_groups_json(sc), "timers", results_timers_json(sc, r, lz),
        "errors", results_tally_json(&r->agg.errors));
    if (!root) {
        lazy_json_free(lz);
        return -1;
    }
    json_object_set_new(root, "finish", json_string(t1));
    json_object_set_new(root, "span_s", json_real(report_span_s(r)));
    json_object_set_new(root, "thresholds", results_thresholds_json(v));
    json_object_set_new(root, "generator", results_health_json(v, lz));
    json_object_set_new(root, "fast_failures", report_fast_failures_json(sc, r));
    int nh, suspect;
    const char *why = NULL;
    report_view_health(v, &nh, &suspect, &why);       /* evaluated once per view: shared, not again */
    json_object_set_new(root, "warnings", report_warnings_json(sc, r, strcmp(status, "running") != 0, suspect, why));
    json_object_set_new(root, "load", results_load_json(sc, r, lz));
    json_object_set_new(root, "stages", results_stages_json(sc, r));
    json_object_set_new(root, "request_errors", results_tally_json(&r->agg.req_errors));
    json_object_set_new(root, "counters", results_counters_json(r, lz));
    json_object_set_new(root, "checks", results_checks_json(r));
    results_dist_json(root, sc, r);
    json_object_set_new(root, "rates", report_rates_json(&r->agg, lz));
    json_object_set_new(root, "gauges", report_gauges_json(&r->agg, lz));
    json_object_set_new(root, "timer_overflow", results_overflow_json(r));
    if (sc->notes) {                 /* the scenario's own text: line breaks kept when valid */
        json_t *notes = json_string(sc->notes);
        json_object_set_new(root, "notes", notes ? notes : results_str(sc->notes));
    }
    if (r->status == RUN_ABORTED || r->status == RUN_STUCK) json_object_set_new(root, "error", results_str(r->error));
    if (r->script_stop) json_object_set_new(root, "stop_reason", results_str(r->stop_reason));
    if (r->stopped_by[0]) json_object_set_new(root, "stopped_by", results_str(r->stopped_by));
    FILE *f = results_open(dir, "summary.json", tmp, sizeof tmp);
    int rc = f ? lazy_json_dumpf(lz, root, f, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) : -1;
    json_decref(root);
    lazy_json_free(lz);
    if (!f) return -1;
    fputc('\n', f);
    return results_commit(f, dir, "summary.json", tmp) | rc;
}

/* A quoted CSV field; the text escaped (no line breaks, control bytes or
 * invalid UTF-8 can get through). */
void report_csv_string(FILE *f, const char *s) {
    char buf[1024];
    const char *c = text_clean(s, buf, sizeof buf);
    fputc('"', f);
    for (; *c; c++) {
        if (*c == '"') fputc('"', f);
        fputc(*c, f);
    }
    fputc('"', f);
}

void report_intervals_header(FILE *f) {
    fputs("interval,start_s,end_s,timer,kind", f);
    for (int i = 0; i < FIG_N; i++)
        if (figures_table()[i].outputs & FIG_OUT_CSV) fprintf(f, ",%s", figures_table()[i].key);
    fputc('\n', f);
}

void report_interval_row(FILE *f, const agg *a, const agg_timer *t, int k) {
    const agg_row *x = &t->rows[k];
    double s0, s1;
    agg_interval_bounds(a, k, &s0, &s1);
    fprintf(f, "%d,%.3f,%.3f,", k + 1, s0, s1);
    report_csv_string(f, t->name);
    fprintf(f, ",%s", timer_kind_name(t->kind));
    for (int i = 0; i < FIG_N; i++) {
        const figure *fg = &figures_table()[i];
        if (!(fg->outputs & FIG_OUT_CSV)) continue;
        int has;
        double v = figure_value(fg, x, &has);
        if (!has) fputc(',', f);             /* no latency sample: an empty field, not 0 */
        else if (fg->unit == FIG_UNIT_COUNT) fprintf(f, ",%lld", (long long)v);
        else fprintf(f, ",%.3f", v);
    }
    fputc('\n', f);
}

int report_write_intervals_csv(const char *dir, const run_result *r) {
    char tmp[4096];
    FILE *f = results_open(dir, "intervals.csv", tmp, sizeof tmp);
    if (!f) return -1;
    report_intervals_header(f);
    for (int i = 0; i < r->agg.n; i++) {
        const agg_timer *t = r->agg.timers[i];
        if (!agg_timer_reported(t)) continue;
        for (int k = 0; k < t->nrows; k++) report_interval_row(f, &r->agg, t, k);
    }
    return results_commit(f, dir, "intervals.csv", tmp);
}


static void results_tally_csv(FILE *f, const tally *t, const char *source) {
    size_t *order, n = tally_sorted(t, &order);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%s,%lld,", source, (long long)t->counts[order[i]]);
        report_csv_string(f, t->msgs[order[i]]);
        fputc('\n', f);
    }
    if (t->other) fprintf(f, "%s,%lld,\"(other)\"\n", source, (long long)t->other);
    free(order);
}

int report_write_errors_csv(const char *dir, const run_result *r) {
    char tmp[4096];
    FILE *f = results_open(dir, "errors.csv", tmp, sizeof tmp);
    if (!f) return -1;
    fprintf(f, "source,count,message\n");
    results_tally_csv(f, &r->agg.errors, "transaction");
    results_tally_csv(f, &r->agg.req_errors, "request");
    return results_commit(f, dir, "errors.csv", tmp);
}

int report_write_counters_csv(const char *dir, const run_result *r) {
    char tmp[4096];
    FILE *f = results_open(dir, "counters.csv", tmp, sizeof tmp);
    if (!f) return -1;
    fputs(REPORT_COUNTERS_HEADER, f);
    for (int i = 0; i < r->agg.ncounters; i++) {
        const agg_counter *c = r->agg.counters[i];
        for (int k = 0; k < c->nrows; k++) report_counter_row(f, r, c, k, 1);
    }
    return results_commit(f, dir, "counters.csv", tmp);
}

void report_counter_row(FILE *f, const run_result *r, const agg_counter *c, int k, int final) {
    double iv = (double)r->agg.interval_ns / 1e9;
    double len = (final && k == c->nrows - 1 && report_span_s(r) > 0) ? report_span_s(r) - k * iv : iv;
    if (len <= 0) len = iv;
    fprintf(f, "%d,%.3f,%.3f,", k + 1, k * iv, k * iv + len);
    report_csv_string(f, c->name);
    fprintf(f, ",%lld,%.3f\n", (long long)c->rows[k], (double)c->rows[k] / len);
}

int report_write_all(const char *dir, const scenario *sc, const run_result *r,
                     const char *status, int exit_code) {
    report_view v;
    report_view_init(&v, sc, r);
    int rc = report_write_all_view(dir, status, exit_code, &v);
    report_view_free(&v);
    return rc;
}

int report_write_all_view(const char *dir, const char *status, int exit_code, report_view *v) {
    const run_result *r = v->r;
    int rc = report_write_intervals_csv(dir, r);
    rc |= report_write_errors_csv(dir, r);
    rc |= report_write_counters_csv(dir, r);
    if (r->status != RUN_ABORTED) rc |= report_write_junit_view(dir, v);
    rc |= report_write_json_view(dir, status, exit_code, v);
    return rc;
}
