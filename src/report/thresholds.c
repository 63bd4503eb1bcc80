/* thresholds.c - evaluates pass/fail criteria and writes them: a console
 * table, summary.json's "thresholds" and DIR/junit.xml for CI systems.  A
 * run's own criteria are evaluated on its totals (rates over each subject's
 * span: the run, or a stage); the top-level criteria of a phased scenario on
 * all its phases' data merged.  A latency criterion over a subject without a
 * successful sample fails ("no successful samples").  A tag selector
 * ("http.*{kind=api}") merges the histograms, errors and counts of every
 * tagged timer it selects (by the timers' data fields tagged_of and tags,
 * never their names); none selected, it falls back to a timer of that
 * exact name; a selector by method ("http.*{k:v}") notes the named calls
 * carrying its tags that it leaves out.  A subject's view suffix (" (all)",
 * " (uncorrected)") picks that view of each selected timer family
 * (stats/agg.h), unless a timer is named the whole subject (it wins).  A
 * criterion without data names the nearest timer or metric the run has
 * ("did you mean"), unless the plan knew its subject (run/subjects.c: a
 * timer luamech makes, then it says why there are no samples; a counter
 * luamech makes is 0).  A counter's rate is over the runs' spans.  Parsing and the
 * arithmetic of a criterion are in stats/threshold.c; this file gathers the
 * data and writes, it never touches the engine. */
#include "report/console.h"
#include "report/derived.h"
#include "report/results.h"
#include "report/view.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"

/* The inputs of criterion t gathered over runs: each (scenario, result)
 * pair adds its subject timer's histogram, errors and span, and its checks. */
typedef struct th_acc {
    hist *h;                  /* allocated once the subject is seen */
    th_input in;
    int64_t unselected;       /* tagged timers of BASE's family with the tags, not selected */
    const char *unselected_name;   /* the first of them */
    int exact;                /* a timer named the whole subject, view suffix included, was used */
    int64_t run_tx, run_failed, run_req_errors;   /* the runs' transactions, failed ones, request errors */
} th_acc;

static const char *thresholds_tag(void *ctx, const char *name) {
    return json_string_value(json_object_get(ctx, name));
}

/* 1 when timer tm is a tagged timer's family head (not a twin) selected by t's tags. */
static int thresholds_selects(const threshold *t, const agg_timer *tm) {
    if (!tm->tags || tm->role != TR_NAMED || tm->of || tm->twin_of) return 0;
    json_t *o = json_loads(tm->tags, 0, NULL);
    json_t *tags = json_object_get(o, "tags");
    int hit = json_is_object(tags) &&
              threshold_tags_match(t, json_string_value(json_object_get(o, "tagged_of")), thresholds_tag, tags);
    json_decref(o);
    return hit;
}

/* Timer tm's histogram, errors and (once per run: first) span into acc. */
static int thresholds_timer_add(th_acc *acc, const scenario *sc, const run_result *r, const agg_timer *tm,
                                int first) {
    if (!acc->h) {
        acc->h = malloc(sizeof *acc->h);
        if (!acc->h) return -1;
        hist_init(acc->h);
    }
    hist_merge(acc->h, &tm->total);
    acc->in.h = acc->h;
    acc->in.errors += tm->total_errors;
    double s, e;
    if (first) acc->in.span_s += report_timer_span(sc, r, tm, &s, &e);
    return 0;
}

/* The family selector of t ("http{k:v}" for "http.*{k:v}" or "http.get{k:v}"):
 * 1 when t's BASE is a family member by method ("FAMILY.x", the first
 * word without wildcards), with *f that family's selector. */
static int thresholds_family(const threshold *t, threshold *f) {
    size_t n = strcspn(t->base, ". ");
    if (!t->ntags || n == 0 || t->base[n] != '.' || memchr(t->base, '*', n) || memchr(t->base, '?', n)) return 0;
    *f = *t;
    f->base[n] = 0;
    return 1;
}

/* 1 when tagged timer tm is a named call's of family f ("http login{...}":
 * its tagged_of, a data field, is "FAMILY <name>"). */
static int thresholds_named_of(const threshold *f, const agg_timer *tm) {
    json_t *o = tm->tags ? json_loads(tm->tags, 0, NULL) : NULL;
    const char *of = json_string_value(json_object_get(o, "tagged_of"));
    size_t n = strlen(f->base);
    int named = of && strncmp(of, f->base, n) == 0 && of[n] == ' ';
    json_decref(o);
    return named;
}

static int thresholds_add(th_acc *acc, const threshold *t, const scenario *sc, const run_result *r) {
    const agg_timer *all = agg_all(&r->agg);
    acc->in.run_span_s += report_span_s(r);
    if (all) acc->run_tx += all->total.total + all->total_errors, acc->run_failed += all->total_errors;
    acc->run_req_errors += tally_total(&r->agg.req_errors);
    threshold_checks_add(&r->agg, &acc->in.checks_pass, &acc->in.checks_all);
    threshold_metrics_add(t, &r->agg, &acc->in);
    if (threshold_exact(t, &r->agg)) {           /* a group called "a (uncorrected)" */
        acc->exact = 1;
        return thresholds_timer_add(acc, sc, r, threshold_timer(t, &r->agg), 1);
    }
    threshold fam;
    int hits = 0, has_fam = thresholds_family(t, &fam);
    for (int i = 0; t->ntags && i < r->agg.n; i++) {
        const agg_timer *tm = r->agg.timers[i], *view;
        if (thresholds_selects(t, tm)) {
            if ((view = threshold_view_of(tm, t->view)) && thresholds_timer_add(acc, sc, r, view, hits++ == 0) != 0)
                return -1;
        } else if (has_fam && thresholds_selects(&fam, tm) && thresholds_named_of(&fam, tm)) {   /* "http.*{...}" */
            if (!acc->unselected++) acc->unselected_name = tm->name;
        }
    }
    if (hits) return 0;
    const agg_timer *tm = threshold_timer(t, &r->agg);
    return tm ? thresholds_timer_add(acc, sc, r, tm, 1) : 0;
}

/* No data for x: the nearest name that got some, for "did you mean" (the
 * run's timers, twins aside, and its custom metrics); none for a subject
 * the plan knew this run may make (run/subjects.c): it is no misspelling. */
static void thresholds_hint(th_result *x, const run_result *r) {
    if (x->state != TH_NO_DATA || x->t->stat == TH_CHECKS_RATE || x->t->subject_kind != TH_SUBJ_UNKNOWN) return;
    text_near near;
    text_near_init(&near, x->t->ntags ? x->t->base : x->t->family);
    if (!near.want[0]) return;
    if (x->hint[0]) text_near_try(&near, x->hint);          /* an earlier phase's */
    for (int i = 0; i < r->agg.n; i++)
        if (!r->agg.timers[i]->of && !r->agg.timers[i]->twin_of) text_near_try(&near, r->agg.timers[i]->name);
    for (int i = 0; i < r->agg.ncounters; i++)
        if (r->agg.counters[i]->base && r->agg.counters[i]->kind != CK_ENGINE)
            text_near_try(&near, r->agg.counters[i]->base);
    snprintf(x->hint, sizeof x->hint, "%s", near.best);
}

static void thresholds_set(th_result *x, const threshold *t, th_acc *acc) {
    x->t = t;
    x->state = threshold_eval(t, &acc->in, &x->measured);
    x->found = x->state != TH_NO_DATA;
    x->passed = x->state == TH_MEASURED && threshold_passes(t, x->measured);
    x->failed = acc->in.errors;
    x->applies = x->state == TH_NOT_APPLICABLE ? threshold_applies(t, &acc->in) : NULL;
    x->run_tx += acc->run_tx, x->run_failed += acc->run_failed, x->run_req_errors += acc->run_req_errors;
    x->exact |= acc->exact;
    x->unselected += acc->unselected;
    if (acc->unselected_name && !x->unselected_name[0])
        snprintf(x->unselected_name, sizeof x->unselected_name, "%s", acc->unselected_name);
    if (acc->h) hist_free(acc->h);      /* its chunks, then the struct */
    free(acc->h);
}

int report_threshold_results(const scenario *sc, const run_result *r, th_result **out) {
    report_trace_eval(r, "thresholds");
    *out = calloc((size_t)sc->nthresholds + 1, sizeof **out);
    if (!*out) return sc->nthresholds;
    int failed = 0;
    for (int i = 0; i < sc->nthresholds; i++) {
        th_acc acc;
        memset(&acc, 0, sizeof acc);
        thresholds_add(&acc, &sc->thresholds[i], sc, r);
        thresholds_set(&(*out)[i], &sc->thresholds[i], &acc);
        thresholds_hint(&(*out)[i], r);
        failed += !(*out)[i].passed;
    }
    return failed;
}

int report_run_threshold_results(const scenario *sc, const run_result *rs, int n, th_result **out) {
    *out = calloc((size_t)sc->nthresholds + 1, sizeof **out);
    if (!*out) return sc->nthresholds;
    int failed = 0;
    for (int i = 0; i < sc->nthresholds; i++) {
        th_acc acc;
        memset(&acc, 0, sizeof acc);
        for (int k = 0; k < n && k < sc->nphases; k++) thresholds_add(&acc, &sc->thresholds[i], &sc->phases[k], &rs[k]);
        thresholds_set(&(*out)[i], &sc->thresholds[i], &acc);
        for (int k = 0; k < n && k < sc->nphases; k++) thresholds_hint(&(*out)[i], &rs[k]);
        failed += !(*out)[i].passed;
    }
    return failed;
}

int report_thresholds_failed(const scenario *sc, const run_result *r) {
    th_result *res;
    int failed = report_threshold_results(sc, r, &res);
    free(res);
    return failed;
}

int report_threshold_stop(report_view *v, char *why, size_t len) {
    const th_result *res = report_view_thresholds(v, NULL);
    int stop = 0;
    for (int i = 0; res && i < v->sc->nthresholds && !stop; i++) {
        if (res[i].passed || res[i].state != TH_MEASURED || res[i].t->stat == TH_COUNT) continue;
        snprintf(why, len, "threshold \"%s\" failed (measured %.3f %s)", res[i].t->text, res[i].measured,
                 threshold_unit(res[i].t));
        stop = 1;
    }
    return stop;
}

/* Why a subject the plan knew got no sample: what the runs did. */
static const char *thresholds_why_none(const th_result *x, char *buf, size_t len) {
    if (x->run_tx == 0) snprintf(buf, len, " (no transaction completed)");
    else if (x->run_failed == x->run_tx) snprintf(buf, len, " (all %lld transactions failed)", (long long)x->run_tx);
    else if (x->run_req_errors > 0) snprintf(buf, len, " (%lld request errors)", (long long)x->run_req_errors);
    else buf[0] = 0;
    return buf;
}

const char *report_threshold_text(const th_result *x, char *buf, size_t len) {
    char why[96];
    if (x->state == TH_NO_DATA && x->t->subject_kind != TH_SUBJ_UNKNOWN)
        snprintf(buf, len, "no samples of %s in this run%s", x->t->timer, thresholds_why_none(x, why, sizeof why));
    else if (x->state == TH_NO_DATA)
        snprintf(buf, len, "no data for %s%s%s%s", x->t->stat == TH_CHECKS_RATE ? "checks" : x->t->timer,
                 x->hint[0] ? " (did you mean \"" : "", x->hint, x->hint[0] ? "\"?)" : "");
    else if (x->state == TH_NO_SUCCESS)
        snprintf(buf, len, "no successful samples of %s (%lld failed)", x->t->timer, (long long)x->failed);
    else if (x->state == TH_NOT_APPLICABLE)
        snprintf(buf, len, "%s is %s", x->t->timer, x->applies ? x->applies : "not judged by this statistic");
    else snprintf(buf, len, "measured %.3f %s", x->measured, threshold_unit(x->t));
    return buf;
}

/* The console's measured cell of a criterion without a measured value. */
static const char *thresholds_cell(const th_result *x) {
    if (x->state == TH_NO_SUCCESS) return "(no successful samples)";
    if (x->state == TH_NOT_APPLICABLE) return "(does not apply)";
    return x->t->subject_kind != TH_SUBJ_UNKNOWN ? "(no samples)" : "(no data)";
}

/* The console's note after FAIL: the did-you-mean, which stats apply, or
 * why a known subject got no sample; "" when none. */
static const char *thresholds_fail_note(const th_result *x, char *buf, size_t len) {
    char b[600], why[96];
    buf[0] = 0;
    if (x->hint[0]) snprintf(buf, len, "  (did you mean \"%s\"?)", text_clean(x->hint, b, sizeof b));
    else if (x->state == TH_NOT_APPLICABLE) snprintf(buf, len, "  (%s is %s)", text_clean(x->t->timer, b, sizeof b), x->applies);
    else if (x->state == TH_NO_DATA && x->t->subject_kind != TH_SUBJ_UNKNOWN && thresholds_why_none(x, why, sizeof why)[0])
        snprintf(buf, len, " %s", why);
    return buf;
}

static void thresholds_table(FILE *out, const char *title, const th_result *res, int n, int failed) {
    if (n == 0) return;
    fprintf(out, "\n%s (%d of %d passed)\n\n%-44s %24s  %s\n", title, n - failed, n, "criterion", "measured", "result");
    for (int i = 0; i < n; i++) {
        char m[64];
        if (res[i].state == TH_MEASURED) snprintf(m, sizeof m, "%.3f %s", res[i].measured, threshold_unit(res[i].t));
        else snprintf(m, sizeof m, "%s", thresholds_cell(&res[i]));
        char buf[1024], note[1024];
        fprintf(out, "%-44s %24s  %s%s\n", text_clean(res[i].t->text, buf, sizeof buf), m,
                res[i].passed ? "pass" : "FAIL", thresholds_fail_note(&res[i], note, sizeof note));
        if (res[i].unselected) fprintf(out, "  note: %s\n", report_threshold_note(&res[i], buf, sizeof buf));
    }
}

void report_thresholds(FILE *out, const scenario *sc, const run_result *r) {
    th_result *res;
    int failed = report_threshold_results(sc, r, &res);
    if (res) thresholds_table(out, "Thresholds", res, sc->nthresholds, failed);
    free(res);
}

void report_run_thresholds(FILE *out, const scenario *sc, const run_result *rs, int n) {
    th_result *res;
    int failed = report_run_threshold_results(sc, rs, n, &res);
    if (res) thresholds_table(out, "Thresholds of the whole run (all phases' data merged)", res, sc->nthresholds, failed);
    free(res);
    fflush(out);
}

const char *report_threshold_note(const th_result *x, char *buf, size_t len) {
    char nb[600], fb[256];
    threshold fam;
    if (!x->unselected || !thresholds_family(x->t, &fam)) return "";
    snprintf(buf, len, "not selected: %lld tagged timer(s) with these tags, e.g. \"%s\" (a named call's); "
             "\"%s{...}\" selects every call of the family", (long long)x->unselected,
             text_clean(x->unselected_name, nb, sizeof nb), text_clean(fam.base, fb, sizeof fb));
    return buf;
}

/* XML text: no control bytes (XML 1.0 forbids them even as references) and
 * valid UTF-8 (common/text.h escapes them), then the XML specials. */
static void thresholds_xml_escape(FILE *f, const char *text) {
    char buf[1024];
    for (const char *s = text_clean(text, buf, sizeof buf); *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

static int thresholds_junit(const char *dir, const char *name, const th_result *res, int n, int failed, double secs) {
    char path[4200];
    snprintf(path, sizeof path, "%s/junit.xml", dir);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"luamech.");
    thresholds_xml_escape(f, name);
    fprintf(f, "\" tests=\"%d\" failures=\"%d\" time=\"%.3f\">\n", n, failed, secs);
    for (int i = 0; i < n; i++) {
        char why[512];
        fprintf(f, "  <testcase classname=\"luamech.thresholds\" name=\"");
        thresholds_xml_escape(f, res[i].t->text);
        fprintf(f, "\">");
        if (!res[i].passed) {
            fprintf(f, "<failure message=\"");
            thresholds_xml_escape(f, report_threshold_text(&res[i], why, sizeof why));
            fprintf(f, "\"/>");
        }
        fprintf(f, "</testcase>\n");
    }
    fprintf(f, "</testsuite>\n");
    return fclose(f);
}

int report_write_junit_view(const char *dir, report_view *v) {
    if (v->sc->nthresholds == 0) return 0;
    int failed;
    const th_result *res = report_view_thresholds(v, &failed);
    return res ? thresholds_junit(dir, v->sc->name, res, v->sc->nthresholds, failed, (double)v->r->run_ns / 1e9) : -1;
}

int report_write_junit(const char *dir, const scenario *sc, const run_result *r) {
    report_view v;
    report_view_init(&v, sc, r);
    int rc = report_write_junit_view(dir, &v);
    report_view_free(&v);
    return rc;
}

int report_write_run_junit(const char *dir, const scenario *sc, const run_result *rs, int n) {
    if (sc->nthresholds == 0) return 0;
    th_result *res;
    int failed = report_run_threshold_results(sc, rs, n, &res);
    double secs = 0;
    for (int i = 0; i < n; i++) secs += (double)rs[i].run_ns / 1e9;
    int rc = res ? thresholds_junit(dir, sc->name, res, sc->nthresholds, failed, secs) : -1;
    free(res);
    return rc;
}

/* jansson wants valid UTF-8: other bytes become '?'. */
/* Text escaped for summary.json (common/text.h: valid UTF-8, no control bytes). */
static json_t *thresholds_str(const char *s) {
    char buf[1024];
    return json_string(text_clean(s, buf, sizeof buf));
}

/* summary.json's "thresholds": one object per criterion. */
json_t *report_thresholds_json(const th_result *res, int n) {
    json_t *arr = json_array();
    for (int i = 0; res && i < n; i++) {
        char why[512];
        json_t *o = json_object();
        json_object_set_new(o, "criterion", thresholds_str(res[i].t->text));
        json_object_set_new(o, "timer", thresholds_str(res[i].t->timer));
        /* how the subject was read: a timer family (or tag selector) and its view */
        json_object_set_new(o, "family", thresholds_str(res[i].exact ? res[i].t->timer : res[i].t->family));
        json_object_set_new(o, "view", json_string(timer_view_name(res[i].exact ? TV_DEFAULT : res[i].t->view)));
        const char *kind = threshold_subject_kind_name(res[i].t->subject_kind);
        json_object_set_new(o, "subject_kind", kind ? json_string(kind) : json_null());
        json_object_set_new(o, "passed", json_boolean(res[i].passed));
        json_object_set_new(o, "measured", res[i].state == TH_MEASURED ? json_real(res[i].measured) : json_null());
        json_object_set_new(o, "unit", json_string(threshold_unit(res[i].t)));
        if (res[i].state != TH_MEASURED)
            json_object_set_new(o, "reason", thresholds_str(report_threshold_text(&res[i], why, sizeof why)));
        if (res[i].unselected)
            json_object_set_new(o, "note", thresholds_str(report_threshold_note(&res[i], why, sizeof why)));
        json_array_append_new(arr, o);
    }
    return arr;
}

json_t *report_run_thresholds_json(const scenario *sc, const run_result *rs, int n) {
    th_result *res;
    report_run_threshold_results(sc, rs, n, &res);
    json_t *arr = report_thresholds_json(res, sc->nthresholds);
    free(res);
    return arr;
}
