/* compare.c - `luamech compare A B`: the figures of two runs side by side.
 *
 * A and B are results directories (or their summary.json, of either schema,
 * read through summary_load as schema 2: one entry per timer family, its
 * views nested).  A row is a (family, view): by default the default view
 * alone, --view for the others (compare_args.c); an "all" view one run does
 * not list is its default (summary_view_eff), an "uncorrected" view one run
 * lacks is listed as in one run only.  Per row present
 * in both runs, the main figures of the whole-run summary (those the figures
 * table, stats/figures.h, flags FIG_COMPARE_DEFAULT: count, errors, rate, avg,
 * p50, p95, p99, max) are printed for A and for B with the change
 * of B against A in percent, like seed 000's bare-metal-vs-VM "tax" table.
 * A phased run's top directory is compared phase by phase, the phases matched
 * by name.  --fail-if limits turn the comparison into a CI gate (exit 1).
 *
 * The comparison is first built as a JSON document (printed as is with
 * --json), then rendered as text from that document, so both outputs always
 * say the same thing.  Exit codes follow common/exit_codes.h.
 *
 * This file: the figures' arithmetic (pure; tests/unit/test_compare.c),
 * loading the runs, building the comparison document, printing it, and the
 * command's entry point.  Not here: the command line and the --fail-if
 * limits' syntax (compare_args.c), sets of repeated runs (compare_sets.c)
 * and their statistics (compare_stats.c). */
#include "cmd/compare_priv.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/exit_codes.h"

/* ---- arithmetic (pure; tests/unit/test_compare.c) ---- */

/* The figures are the table's (stats/figures.h); compare reads those
 * flagged FIG_COMPARE, in the table's order. */
int cmp_fig_comparable(int f) { return f >= 0 && f < FIG_N && (figure_get((fig_id)f)->flags & FIG_COMPARE); }
const char *cmp_fig_name(cmp_fig f) { return cmp_fig_comparable(f) ? figure_get(f)->name : "?"; }
const char *cmp_fig_field(cmp_fig f) { return cmp_fig_comparable(f) ? figure_get(f)->key : "?"; }
int cmp_fig_higher_is_worse(cmp_fig f) { return cmp_fig_comparable(f) ? figure_get(f)->worse > 0 : 1; }

int cmp_fig_parse(const char *s, size_t len) {
    const figure *f = figure_find(s, len, FIG_COMPARE);
    /* by name only ("p95", not "p95_ms"; "p99_9" and "p999" name p99.9) */
    if (!f || (strlen(f->key) == len && strncmp(s, f->key, len) == 0 && strcmp(f->key, f->name) != 0)) return -1;
    return (int)f->id;
}

int cmp_pct_change(double a, double b, double *pct) {
    if (a == 0 || !isfinite(a) || !isfinite(b)) return -1;
    double p = (b - a) / a * 100.0;
    if (!isfinite(p)) return -1;
    if (fabs(p) < 1e12) p = round(p * 1e6) / 1e6;   /* 1.1 vs 1.0: 10 %, not 10.000000000000009 % */
    if (p == 0) p = 0;                              /* no "-0" */
    *pct = p;
    return 0;
}

void cmp_fmt_pct(char *buf, size_t len, double a, double b, int decimals) {
    double p;
    if (cmp_pct_change(a, b, &p) != 0) snprintf(buf, len, "n/a");
    else if (p == 0) snprintf(buf, len, "%.*f%%", decimals, 0.0);
    else snprintf(buf, len, "%+.*f%%", decimals, p);
}

cmp_unit cmp_fig_unit(cmp_fig f) {
    fig_unit u = figure_get(f) ? figure_get(f)->unit : FIG_UNIT_MS;
    return u == FIG_UNIT_RATE ? CMP_UNIT_RATE : u == FIG_UNIT_COUNT ? CMP_UNIT_COUNT : CMP_UNIT_MS;
}

int cmp_is_worse(cmp_fig f, double a, double b) { return cmp_fig_higher_is_worse(f) ? b > a : b < a; }

/* ---- loading the runs ---- */

json_t *cmp_get(json_t *o, const char *k) { return json_is_object(o) ? json_object_get(o, k) : NULL; }
const char *cmp_str(json_t *o, const char *k) { return json_string_value(cmp_get(o, k)); }

/* Loads path (a summary.json, any schema: summary_load) into r.  0, or -1
 * with a message naming it. */
static int cmp_load_file(cmp_run *r, const char *path, char *err, size_t err_len) {
    snprintf(r->path, sizeof r->path, "%s", path);
    snprintf(r->dir, sizeof r->dir, "%s", path);
    char *slash = strrchr(r->dir, '/');
    if (slash == r->dir) slash[1] = 0;
    else if (slash) *slash = 0;
    else snprintf(r->dir, sizeof r->dir, ".");
    struct stat st;
    if (stat(path, &st) != 0) {
        text_errf(err, err_len, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        text_errf(err, err_len, "%s: not a regular file", path);
        return -1;
    }
    r->root = summary_load(path, err, err_len);     /* schema 1 or 2, read as 2 */
    if (!r->root) return -1;
    if (!json_is_object(r->root) ||
        (!json_is_array(cmp_get(r->root, "timers")) && !json_is_array(cmp_get(r->root, "phases")))) {
        text_errf(err, err_len, "%s: not a luamech summary (no \"timers\" or \"phases\" array)", path);
        json_decref(r->root);
        r->root = NULL;
        return -1;
    }
    return 0;
}

/* arg: a results directory or a summary.json. */
int cmp_load(cmp_run *r, const char *arg, char *err, size_t err_len) {
    struct stat st;
    if (stat(arg, &st) != 0) {
        text_errf(err, err_len, "%s: %s", arg, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) return cmp_load_file(r, arg, err, err_len);
    size_t len = strlen(arg);
    while (len > 1 && arg[len - 1] == '/') len--;
    char path[4200];
    snprintf(path, sizeof path, "%.*s/summary.json", (int)len, arg);
    return cmp_load_file(r, path, err, err_len);
}

/* A phase directory from the file: relative, without "..". */
static int cmp_safe_dir(const char *d) {
    if (!d || !*d || d[0] == '/' || strlen(d) > 1024) return 0;
    for (const char *p = d; *p; p++)
        if (*p == '.' && p[1] == '.' && (p == d || p[-1] == '/') && (p[2] == 0 || p[2] == '/')) return 0;
    return 1;
}

static int cmp_load_phase(cmp_run *ph, const cmp_run *top, json_t *p, size_t idx, char *err, size_t err_len) {
    const char *d = cmp_str(p, "dir"), *name = cmp_str(p, "name");
    char sub[1200], path[8500];
    if (cmp_safe_dir(d)) snprintf(sub, sizeof sub, "%s", d);
    else snprintf(sub, sizeof sub, "%zu-%s", idx + 1, name ? name : "");
    snprintf(path, sizeof path, "%s/%s/summary.json", top->dir, sub);
    if (cmp_load_file(ph, path, err, err_len) != 0) return -1;
    if (!json_is_array(cmp_get(ph->root, "timers"))) {
        text_errf(err, err_len, "%s: not a phase's summary (no \"timers\" array)", path);
        json_decref(ph->root);
        ph->root = NULL;
        return -1;
    }
    return 0;
}

/* ---- building the comparison ---- */

/* ---- which timers and views ---- */

/* --timer k names view v of the family called name. */
static int cmp_timer_names(const cmp_opts *o, int k, const char *name, int v) {
    const char *text = o->timers[k];
    if (strcmp(text, name) == 0) return (o->views & (CMP_VIEW_BIT(v) | CMP_VIEW_EVERY)) != 0;
    return o->timer_view[k] == v && !o->timer_exact[k] && strlen(name) == o->timer_base[k] &&
           strncmp(text, name, o->timer_base[k]) == 0;
}

void cmp_resolve_timers(cmp_opts *o, json_t *timers, int reset) {
    size_t i;
    json_t *t;
    for (int k = 0; k < o->ntimers; k++) {
        if (reset) o->timer_exact[k] = 0;
        if (o->timer_view[k] < 0 || o->timer_exact[k]) continue;
        json_array_foreach(timers, i, t) {
            const char *n = cmp_str(t, "name");
            if (n && strcmp(n, o->timers[k]) == 0) o->timer_exact[k] = 1;
        }
    }
}

unsigned cmp_selected(cmp_opts *o, json_t *t) {
    const char *name = cmp_str(t, "name"), *kind = cmp_str(t, "kind");
    unsigned views = 0;
    if (!name) return 0;
    if (o->ntimers == 0) return kind && strcmp(kind, "engine") == 0 && !o->all ? 0 : o->views;
    for (int k = 0; k < o->ntimers; k++) {
        if (strcmp(o->timers[k], name) == 0) views |= o->views, o->timer_seen[k] = 1;   /* named: it exists */
        for (int v = 0; v < SUMMARY_VIEWS; v++)
            if (o->timer_view[k] == v && cmp_timer_names(o, k, name, v)) views |= CMP_VIEW_BIT(v);
    }
    return views;
}

/* Notes the --timer names that name this view (each must name one). */
void cmp_mark_seen(cmp_opts *o, const char *name, int v) {
    for (int k = 0; k < o->ntimers; k++)
        if (cmp_timer_names(o, k, name, v)) o->timer_seen[k] = 1;
}

int cmp_view_row(unsigned views, int v, json_t *ta, json_t *tb) {
    const char *vn = summary_view_name(v), *kind = cmp_str(ta ? ta : tb, "kind");
    if (v == 0) return (views & (CMP_VIEW_BIT(0) | CMP_VIEW_EVERY)) != 0;
    if (summary_view(ta, vn) || summary_view(tb, vn)) return (views & (CMP_VIEW_BIT(v) | CMP_VIEW_EVERY)) != 0;
    return strcmp(vn, "all") == 0 && (views & CMP_VIEW_BIT(v)) && !(kind && strcmp(kind, "engine") == 0);
}

json_t *cmp_side_view(json_t *t, int v) {
    const char *vn = summary_view_name(v);
    return strcmp(vn, "all") == 0 ? summary_view_eff(t, vn) : summary_view(t, vn);
}

json_t *cmp_label(const char *name, int v) {
    return v == 0 ? json_string(name) : json_sprintf("%s (%s)", name, summary_view_name(v));
}

static json_t *cmp_find_timer(json_t *timers, const char *name, char *used) {
    size_t i;
    json_t *t;
    json_array_foreach(timers, i, t) {
        const char *n = cmp_str(t, "name");
        if (!used[i] && n && strcmp(n, name) == 0) {
            used[i] = 1;
            return t;
        }
    }
    return NULL;
}

/* The figure of a view's summary into *v.  0, or -1 with a message. */
int cmp_value(const cmp_run *r, const char *label, json_t *view, cmp_fig f, double *v, char *err, size_t err_len) {
    json_t *s = cmp_get(view, "summary"), *x = cmp_get(s, cmp_fig_field(f));
    if (!json_is_object(s)) {
        text_errf(err, err_len, "%s: timer \"%s\" has no \"summary\" object", r->path, label);
        return -1;
    }
    if (json_is_null(x)) return 1;          /* no latency sample: no data */
    if (!json_is_number(x)) {
        text_errf(err, err_len, "%s: timer \"%s\": summary.%s is missing or not a number", r->path, label,
                 cmp_fig_field(f));
        return -1;
    }
    *v = json_number_value(x);
    return 0;
}

/* What comparing the timers of two runs needs: the options, the runs, the
 * phase (NULL for single runs), where regressions go and the message buffer. */
typedef struct cmp_ctx {
    cmp_opts *o;
    const cmp_run *a, *b;
    const char *phase;
    json_t *regressions;
    char *err;
    size_t err_len;
} cmp_ctx;

json_t *cmp_num(cmp_fig f, double v) {
    if (cmp_fig_unit(f) == CMP_UNIT_COUNT && fabs(v) < 9e15) return json_integer((json_int_t)llround(v));
    return json_real(v);
}

/* A row of one run only: the family's name, its view, kind and side. */
static json_t *cmp_only(json_t *t, int v, const char *side) {
    const char *kind = cmp_str(t, "kind");
    return json_pack("{s:s,s:s,s:s,s:s}", "name", cmp_str(t, "name"), "view", summary_view_name(v), "kind",
                     kind ? kind : "", "in", side);
}

/* The change of vb against va in percent; null when n/a. */
json_t *cmp_change(double va, double vb) {
    double pct;
    return cmp_pct_change(va, vb, &pct) == 0 ? json_real(pct) : json_null();
}

/* One compared row: the family's name, the view and the row's label. */
typedef struct cmp_row {
    const char *name;
    int view;
    const char *label;
} cmp_row;

/* The entry of "regressions" for figure f of row r, past limit l. */
static json_t *cmp_regression(const cmp_ctx *c, const cmp_row *r, cmp_fig f, double va, double vb,
                              const cmp_limit *l) {
    json_t *reg = json_object();
    if (c->phase) json_object_set_new(reg, "phase", json_string(c->phase));
    json_object_set_new(reg, "timer", json_string(r->label));
    json_object_set_new(reg, "family", json_string(r->name));
    json_object_set_new(reg, "view", json_string(summary_view_name(r->view)));
    json_object_set_new(reg, "figure", json_string(cmp_fig_name(f)));
    json_object_set_new(reg, "a", cmp_num(f, va));
    json_object_set_new(reg, "b", cmp_num(f, vb));
    json_object_set_new(reg, "change_pct", cmp_change(va, vb));
    json_object_set_new(reg, "limit", json_string(l->text));
    return reg;
}

/* Figure f of row r: A's va, B's vb, the change and the limits it is past
 * (each also a regression). */
static json_t *cmp_figure(const cmp_ctx *c, const cmp_row *r, cmp_fig f, double va, double vb) {
    const cmp_opts *o = c->o;
    json_t *fj = json_object(), *past = json_array();
    json_object_set_new(fj, "a", cmp_num(f, va));
    json_object_set_new(fj, "b", cmp_num(f, vb));
    json_object_set_new(fj, "change_pct", cmp_change(va, vb));
    json_object_set_new(fj, "worse", json_boolean(cmp_is_worse(f, va, vb)));
    for (int l = 0; l < o->nlimits; l++) {
        if (o->limits[l].fig != f || !cmp_limit_exceeded(&o->limits[l], va, vb)) continue;
        json_array_append_new(past, json_string(o->limits[l].text));
        json_array_append_new(c->regressions, cmp_regression(c, r, f, va, vb, &o->limits[l]));
    }
    json_object_set_new(fj, "past_limits", past);
    return fj;
}

/* The shown figures of row r, view x of A against view y of B, into figs.
 * 0, or -1 with a message (a figure missing from a summary). */
static int cmp_figures(const cmp_ctx *c, const cmp_row *r, json_t *x, json_t *y, json_t *figs) {
    for (int k = 0; k < CMP_NFIGS; k++) {
        cmp_fig f = (cmp_fig)k;
        if (!cmp_fig_comparable(f) || !c->o->shown[f]) continue;
        double va, vb;
        int ra = cmp_value(c->a, r->label, x, f, &va, c->err, c->err_len);
        int rb = ra < 0 ? 0 : cmp_value(c->b, r->label, y, f, &vb, c->err, c->err_len);
        if (ra < 0 || rb < 0) return -1;
        if (ra || rb) continue;             /* no data on a side: not compared (not a 0) */
        json_object_set_new(figs, cmp_fig_name(f), cmp_figure(c, r, f, va, vb));
    }
    return 0;
}

/* View v of family t of A against family u of B (either NULL: not in that
 * run): an entry of out when both have the view, else of only_a / only_b.
 * 0, or -1 with a message. */
static int cmp_view_rows(const cmp_ctx *c, json_t *t, json_t *u, int v, json_t *out, json_t *only_a,
                         json_t *only_b) {
    json_t *x = t ? cmp_side_view(t, v) : NULL, *y = u ? cmp_side_view(u, v) : NULL, *side = t ? t : u;
    const char *name = cmp_str(side, "name"), *kind = cmp_str(side, "kind");
    cmp_mark_seen(c->o, name, v);
    if (!x || !y) {
        if (x || y) json_array_append_new(x ? only_a : only_b, cmp_only(side, v, x ? "a" : "b"));
        return 0;
    }
    json_t *label = cmp_label(name, v), *figs = json_object();
    cmp_row r = {name, v, json_string_value(label)};
    int rc = r.label ? cmp_figures(c, &r, x, y, figs) : text_errf(c->err, c->err_len, "out of memory");
    json_decref(label);
    json_array_append_new(out, json_pack("{s:s,s:s,s:s,s:s,s:o}", "name", name, "view", summary_view_name(v),
                                         "kind", kind ? kind : "", "in", "both", "figures", figs));
    return rc;
}

/* The selected families of B not matched in A (used), as "only in B". */
static void cmp_only_in_b(const cmp_ctx *c, json_t *tb, const char *used, json_t *out) {
    size_t i;
    json_t *t;
    json_array_foreach(tb, i, t) {
        unsigned views = used[i] ? 0 : cmp_selected(c->o, t);
        for (int v = 0; v < SUMMARY_VIEWS; v++)
            if (views && cmp_view_row(views, v, NULL, t)) cmp_view_rows(c, NULL, t, v, NULL, NULL, out);
    }
}

/* Compares the timers of two runs into the array out, a row per (family,
 * view): first those in both, then those only in A, then only in B.  0, or
 * -1 with a message. */
static int cmp_timers(const cmp_ctx *c, json_t *out) {
    json_t *ta = cmp_get(c->a->root, "timers"), *tb = cmp_get(c->b->root, "timers"), *t;
    size_t nb = json_array_size(tb), i;
    char *used = calloc(nb + 1, 1);
    json_t *only_a = json_array(), *only_b = json_array();
    int rc = used && only_a && only_b ? 0 : text_errf(c->err, c->err_len, "out of memory");
    cmp_resolve_timers(c->o, ta, 1);
    cmp_resolve_timers(c->o, tb, 0);
    json_array_foreach(ta, i, t) {
        unsigned views = rc == 0 ? cmp_selected(c->o, t) : 0;
        if (!views) continue;
        json_t *u = cmp_find_timer(tb, cmp_str(t, "name"), used);
        for (int v = 0; v < SUMMARY_VIEWS && rc == 0; v++)
            if (cmp_view_row(views, v, t, u)) rc = cmp_view_rows(c, t, u, v, out, only_a, only_b);
    }
    json_array_extend(out, only_a);
    if (rc == 0) {
        json_array_extend(out, only_b);
        cmp_only_in_b(c, tb, used, out);
    }
    json_decref(only_a);
    json_decref(only_b);
    free(used);
    return rc;
}

json_t *cmp_run_json(const cmp_run *r) {
    json_t *j = json_pack("{s:s}", "path", r->path);
    const char *s;
    if ((s = cmp_str(r->root, "scenario"))) json_object_set_new(j, "scenario", json_string(s));
    if ((s = cmp_str(r->root, "status"))) json_object_set_new(j, "status", json_string(s));
    json_t *rt = cmp_get(r->root, "run_time_s");
    if (json_is_number(rt)) json_object_set_new(j, "run_time_s", json_real(json_number_value(rt)));
    return j;
}

/* The first phase of pb named name and not matched yet (marked now), its
 * index in *idx; NULL when none. */
static json_t *cmp_match_phase(json_t *pb, const char *name, char *used, size_t *idx) {
    size_t j;
    json_t *q;
    json_array_foreach(pb, j, q) {
        const char *qn = cmp_str(q, "name");
        if (!used[j] && strcmp(qn ? qn : "", name) == 0) {
            used[j] = 1;
            *idx = j;
            return q;
        }
    }
    return NULL;
}

/* Phase p (index i in A) against q (index j in B), both loaded from their
 * directories: an entry of phases.  0, or -1 with a message. */
static int cmp_phase(const cmp_ctx *top, json_t *p, size_t i, json_t *q, size_t j, const char *name,
                     json_t *phases) {
    cmp_run ra = {0}, rb = {0};
    if (cmp_load_phase(&ra, top->a, p, i, top->err, top->err_len) != 0 ||
        cmp_load_phase(&rb, top->b, q, j, top->err, top->err_len) != 0) {
        json_decref(ra.root);
        return -1;
    }
    cmp_ctx c = {top->o, &ra, &rb, name, top->regressions, top->err, top->err_len};
    json_t *timers = json_array();
    json_array_append_new(phases, json_pack("{s:s,s:s,s:o,s:o,s:o}", "name", name, "in", "both",
                                            "a", cmp_run_json(&ra), "b", cmp_run_json(&rb), "timers", timers));
    int rc = cmp_timers(&c, timers);
    json_decref(ra.root);
    json_decref(rb.root);
    return rc;
}

/* Two phased runs, phase by phase (matched by name) into phases: those in
 * both and those only in A in A's order, then those only in B.  0, or -1
 * with a message. */
static int cmp_phases(const cmp_ctx *top, json_t *pa, json_t *pb, json_t *phases) {
    size_t nb = json_array_size(pb), i, j;
    char *used = calloc(nb + 1, 1);
    json_t *p, *q;
    int rc = 0;
    json_array_foreach(pa, i, p) {
        const char *name = cmp_str(p, "name");
        if (!name) name = "";
        if (!(q = cmp_match_phase(pb, name, used, &j))) {
            json_array_append_new(phases, json_pack("{s:s,s:s}", "name", name, "in", "a"));
            continue;
        }
        if ((rc = cmp_phase(top, p, i, q, j, name, phases)) != 0) break;
    }
    json_array_foreach(pb, i, p) {
        if (rc != 0 || i >= nb || used[i]) continue;
        const char *name = cmp_str(p, "name");
        json_array_append_new(phases, json_pack("{s:s,s:s}", "name", name ? name : "", "in", "b"));
    }
    free(used);
    return rc;
}

/* Builds the whole comparison.  Returns the document, or NULL with a message
 * (exit 3). */
static json_t *cmp_build(cmp_opts *o, const cmp_run *a, const cmp_run *b, char *err, size_t err_len) {
    json_t *doc = json_object(), *regs = json_array(), *limits = json_array();
    cmp_ctx top = {o, a, b, NULL, regs, err, err_len};
    json_object_set_new(doc, "a", cmp_run_json(a));
    json_object_set_new(doc, "b", cmp_run_json(b));
    json_object_set_new(doc, "views", cmp_views_json(o));
    for (int l = 0; l < o->nlimits; l++) json_array_append_new(limits, json_string(o->limits[l].text));
    json_object_set_new(doc, "limits", limits);
    json_t *pa = cmp_get(a->root, "phases"), *pb = cmp_get(b->root, "phases");
    int rc;
    if (json_is_array(pa) != json_is_array(pb)) {
        const cmp_run *ph = json_is_array(pa) ? a : b, *single = json_is_array(pa) ? b : a;
        text_errf(err, err_len, "%s is a phased run's top summary but %s is a single run's: compare a phase "
                 "directory of the phased run (e.g. DIR/1-NAME) with the single run", ph->path, single->path);
        rc = -1;
    } else if (!json_is_array(pa)) {
        json_t *timers = json_array();
        json_object_set_new(doc, "timers", timers);
        rc = cmp_timers(&top, timers);
    } else {
        json_t *phases = json_array();
        json_object_set_new(doc, "phases", phases);
        rc = cmp_phases(&top, pa, pb, phases);
    }
    json_object_set_new(doc, "regressions", regs);
    json_object_set_new(doc, "regressed", json_boolean(json_array_size(regs) > 0));
    if (rc != 0) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}

/* The views compared: --view's, or with --timer, each one's (its view
 * suffix, else --view's). */
json_t *cmp_views_json(const cmp_opts *o) {
    json_t *a = json_array();
    unsigned bits = o->ntimers ? 0 : o->views;
    for (int k = 0; k < o->ntimers; k++)
        bits |= o->timer_view[k] >= 0 && !o->timer_exact[k] ? CMP_VIEW_BIT(o->timer_view[k]) : o->views;
    for (int v = 0; v < SUMMARY_VIEWS; v++)
        if (bits & CMP_VIEW_BIT(v)) json_array_append_new(a, json_string(summary_view_name(v)));
    if (bits & CMP_VIEW_EVERY) json_array_append_new(a, json_string("every"));
    return a;
}

/* ---- text rendering ---- */

void cmp_print_views(FILE *out, json_t *doc) {
    json_t *views = cmp_get(doc, "views"), *v;
    size_t i;
    fprintf(out, " (view%s: ", json_array_size(views) == 1 ? "" : "s");
    json_array_foreach(views, i, v) fprintf(out, "%s%s", i ? ", " : "", json_string_value(v));
    fputs(")", out);
}

void cmp_fmt_val(char *buf, size_t len, cmp_fig f, json_t *v) {
    if (json_is_integer(v)) snprintf(buf, len, "%lld", (long long)json_integer_value(v));
    else if (cmp_fig_unit(f) == CMP_UNIT_RATE) snprintf(buf, len, "%.2f", json_number_value(v));
    else if (cmp_fig_unit(f) == CMP_UNIT_COUNT) snprintf(buf, len, "%.0f", json_number_value(v));
    else snprintf(buf, len, "%.3f", json_number_value(v));
}

void cmp_fmt_change(char *buf, size_t len, json_t *c, int decimals) {
    if (!json_is_number(c)) snprintf(buf, len, "n/a");
    else if (json_number_value(c) == 0) snprintf(buf, len, "%.*f%%", decimals, 0.0);
    else snprintf(buf, len, "%+.*f%%", decimals, json_number_value(c));
}

void cmp_print_run(FILE *out, const char *label, json_t *r) {
    fprintf(out, "%s: %s", label, cmp_str(r, "path"));
    const char *sc = cmp_str(r, "scenario"), *st = cmp_str(r, "status");
    json_t *rt = cmp_get(r, "run_time_s");
    if (sc || st || rt) {
        fputs(" (", out);
        const char *sep = "";
        if (sc) fprintf(out, "%sscenario %s", sep, sc), sep = ", ";
        if (st) fprintf(out, "%s%s", sep, st), sep = ", ";
        if (json_is_number(rt)) fprintf(out, "%s%.3f s", sep, json_number_value(rt));
        fputs(")", out);
    }
    fputs("\n", out);
}

/* One row: the figure, A, B, the change and the limits it is past. */
static void cmp_print_figure(FILE *out, cmp_fig f, json_t *fj, const char *indent) {
    char va[64], vb[64], ch[64], label[32];
    cmp_fmt_val(va, sizeof va, f, cmp_get(fj, "a"));
    cmp_fmt_val(vb, sizeof vb, f, cmp_get(fj, "b"));
    cmp_fmt_change(ch, sizeof ch, cmp_get(fj, "change_pct"), 1);
    snprintf(label, sizeof label, "%s%s", cmp_fig_name(f), cmp_fig_unit(f) == CMP_UNIT_RATE ? "/s" : "");
    fprintf(out, "%s  %-8s %14s %14s %10s", indent, label, va, vb, ch);
    json_t *past = cmp_get(fj, "past_limits"), *l;
    size_t n;
    json_array_foreach(past, n, l) fprintf(out, "%s%s", n ? ", " : "   <- past ", json_string_value(l));
    fputs("\n", out);
}

/* The row's label: the family's name, with " (VIEW)" for a view other
 * than the default. */
static void cmp_print_label(FILE *out, json_t *entry) {
    const char *view = cmp_str(entry, "view");
    fputs(cmp_str(entry, "name"), out);
    if (view && strcmp(view, "default") != 0) fprintf(out, " (%s)", view);
}

void cmp_print_heading(FILE *out, json_t *entry) {
    cmp_print_label(out, entry);
    fprintf(out, " (%s)", cmp_str(entry, "kind"));
}

/* A row in both runs: its table of figures. */
static void cmp_print_timer(FILE *out, json_t *t, const char *indent) {
    fprintf(out, "\n%s", indent);
    cmp_print_heading(out, t);
    fputs("\n", out);
    fprintf(out, "%s  %-8s %14s %14s %10s\n", indent, "figure", "A", "B", "B vs A");
    json_t *figs = cmp_get(t, "figures");
    for (int k = 0; k < CMP_NFIGS; k++) {
        cmp_fig f = (cmp_fig)k;
        json_t *fj = cmp_fig_comparable(f) ? cmp_get(figs, cmp_fig_name(f)) : NULL;
        if (fj) cmp_print_figure(out, f, fj, indent);
    }
}

/* The timers in one run only: A's, then B's. */
void cmp_print_timers_only(FILE *out, json_t *timers, const char *indent) {
    size_t i;
    json_t *t;
    for (int side = 0; side < 2; side++) {
        const char *want = side ? "b" : "a";
        int first = 1;
        json_array_foreach(timers, i, t) {
            if (strcmp(cmp_str(t, "in"), want) != 0) continue;
            if (first) fprintf(out, "\n%sonly in %s:\n", indent, side ? "B" : "A");
            first = 0;
            fprintf(out, "%s  ", indent);
            cmp_print_heading(out, t);
            fputs("\n", out);
        }
    }
}

static void cmp_print_timers(FILE *out, json_t *timers, const char *indent) {
    size_t i;
    json_t *t;
    int printed = 0;
    json_array_foreach(timers, i, t) {
        if (strcmp(cmp_str(t, "in"), "both") != 0) continue;
        cmp_print_timer(out, t, indent);
        printed++;
    }
    if (!printed) fprintf(out, "\n%sno timer in both runs\n", indent);
    cmp_print_timers_only(out, timers, indent);
}

/* The phases in both runs, each with its timers; then those in one run only. */
static void cmp_print_phases(FILE *out, json_t *phases) {
    size_t i;
    json_t *p;
    json_array_foreach(phases, i, p) {
        const char *in = cmp_str(p, "in");
        if (strcmp(in, "both") != 0) continue;
        fprintf(out, "\n== phase %s ==\n", cmp_str(p, "name"));
        cmp_print_timers(out, cmp_get(p, "timers"), "  ");
    }
    for (int side = 0; side < 2; side++) {
        int first = 1;
        json_array_foreach(phases, i, p) {
            if (strcmp(cmp_str(p, "in"), side ? "b" : "a") != 0) continue;
            if (first) fprintf(out, "\nphases only in %s:\n", side ? "B" : "A");
            first = 0;
            fprintf(out, "  %s\n", cmp_str(p, "name"));
        }
    }
}

static void cmp_print_regression(FILE *out, json_t *r, const char *indent) {
    char va[64], vb[64], ch[64];
    const char *fig = cmp_str(r, "figure");
    cmp_fig f = (cmp_fig)cmp_fig_parse(fig, strlen(fig));
    cmp_fmt_val(va, sizeof va, f, cmp_get(r, "a"));
    cmp_fmt_val(vb, sizeof vb, f, cmp_get(r, "b"));
    cmp_fmt_change(ch, sizeof ch, cmp_get(r, "change_pct"), 2);
    const char *unit = cmp_fig_unit(f) == CMP_UNIT_RATE ? "/s" : cmp_fig_unit(f) == CMP_UNIT_COUNT ? "" : " ms";
    fprintf(out, "%s", indent);
    if (cmp_str(r, "phase")) fprintf(out, "phase %s: ", cmp_str(r, "phase"));
    fprintf(out, "timer \"%s\": %s %s (A %s%s, B %s%s), past the limit %s\n", cmp_str(r, "timer"), fig, ch, va,
            unit, vb, unit, cmp_str(r, "limit"));
}

/* With limits: ok, or the regressions. */
static void cmp_print_verdict(FILE *out, json_t *doc) {
    json_t *limits = cmp_get(doc, "limits"), *regs = cmp_get(doc, "regressions"), *x;
    size_t i;
    if (json_array_size(limits) == 0) return;
    if (json_array_size(regs) == 0) {
        fputs("\nok: no figure past the limits (", out);
        json_array_foreach(limits, i, x) fprintf(out, "%s%s", i ? ", " : "", json_string_value(x));
        fputs(")\n", out);
        return;
    }
    fprintf(out, "\nREGRESSION: %zu figure%s past the limits:\n", json_array_size(regs),
            json_array_size(regs) == 1 ? "" : "s");
    json_array_foreach(regs, i, x) cmp_print_regression(out, x, "  ");
}

static void cmp_print_text(FILE *out, json_t *doc) {
    cmp_print_run(out, "A", cmp_get(doc, "a"));
    cmp_print_run(out, "B", cmp_get(doc, "b"));
    fputs("Whole-run figures", out);
    cmp_print_views(out, doc);
    fputs("; times in ms; B vs A = (B - A) / A, n/a when A is 0.\n", out);
    json_t *phases = cmp_get(doc, "phases");
    if (json_is_array(phases)) cmp_print_phases(out, phases);
    else cmp_print_timers(out, cmp_get(doc, "timers"), "");
    cmp_print_verdict(out, doc);
}

/* ---- the command ---- */

/* Timers compared in one run only, while limits are set: they are not checked. */
static void cmp_warn_unchecked(json_t *timers, const char *phase) {
    size_t i;
    json_t *t;
    json_array_foreach(timers, i, t) {
        const char *in = cmp_str(t, "in");
        if (strcmp(in, "both") == 0) continue;
        fprintf(stderr, "luamech: compare: %s%s%stimer \"", phase ? "phase " : "", phase ? phase : "",
                phase ? ": " : "");
        cmp_print_label(stderr, t);
        fprintf(stderr, "\" is only in %s: not checked by --fail-if\n", strcmp(in, "a") == 0 ? "A" : "B");
    }
}

/* With limits: says which phases and timers are in one run only, so no
 * limit checks them. */
static void cmp_warn_unchecked_all(const cmp_opts *o, json_t *doc) {
    if (o->nlimits == 0) return;
    json_t *phases = cmp_get(doc, "phases"), *p;
    size_t i;
    if (!json_is_array(phases)) {
        cmp_warn_unchecked(cmp_get(doc, "timers"), NULL);
        return;
    }
    json_array_foreach(phases, i, p) {
        if (strcmp(cmp_str(p, "in"), "both") == 0) cmp_warn_unchecked(cmp_get(p, "timers"), cmp_str(p, "name"));
        else fprintf(stderr, "luamech: compare: phase %s is only in %s: not checked by --fail-if\n",
                     cmp_str(p, "name"), strcmp(cmp_str(p, "in"), "a") == 0 ? "A" : "B");
    }
}

/* Loads A and B and builds their comparison: the document, or NULL after
 * printing why (exit 3).  ra and rb keep their paths; their roots are
 * released. */
static json_t *cmp_load_and_build(cmp_opts *o, cmp_run *ra, cmp_run *rb) {
    char err[9000];
    if (cmp_load(ra, o->a, err, sizeof err) != 0 || cmp_load(rb, o->b, err, sizeof err) != 0) {
        fprintf(stderr, "luamech: compare: %s\n", err);
        json_decref(ra->root);
        return NULL;
    }
    json_t *doc = cmp_build(o, ra, rb, err, sizeof err);
    json_decref(ra->root);
    json_decref(rb->root);
    if (!doc) fprintf(stderr, "luamech: compare: %s\n", err);
    return doc;
}

/* Every --timer must name a timer of A or B: 0, or exit 2 naming the first
 * that does not. */
int cmp_check_timers_seen(const cmp_opts *o, const char *a, const char *b) {
    for (int k = 0; k < o->ntimers; k++) {
        if (o->timer_seen[k]) continue;
        fprintf(stderr, "luamech: compare: --timer %s: no timer of that name%s in %s or %s\n", o->timers[k],
                o->timer_view[k] >= 0 ? ", nor that view of a timer," : "", a, b);
        return EXIT_USAGE;
    }
    return 0;
}

/* --json: the document on stdout, the regressions also on stderr; else the
 * text. */
static void cmp_output(const cmp_opts *o, json_t *doc) {
    json_t *regs = cmp_get(doc, "regressions"), *x;
    size_t i;
    if (!o->json) {
        cmp_print_text(stdout, doc);
        return;
    }
    json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    fputs("\n", stdout);
    if (json_array_size(regs) == 0) return;
    fprintf(stderr, "luamech: compare: REGRESSION: %zu figure%s past the limits:\n", json_array_size(regs),
            json_array_size(regs) == 1 ? "" : "s");
    json_array_foreach(regs, i, x) cmp_print_regression(stderr, x, "  ");
}

static int cmp_main(int argc, char **argv, cmp_opts *o) {
    int rc = cmp_parse_args(argc, argv, o);
    if (rc != CMP_GO_ON) return rc;
    if (o->sets) return cmp_sets_main(o);
    cmp_run ra = {0}, rb = {0};
    json_t *doc = cmp_load_and_build(o, &ra, &rb);
    if (!doc) return EXIT_SCENARIO;
    if ((rc = cmp_check_timers_seen(o, ra.path, rb.path)) != 0) {
        json_decref(doc);
        return rc;
    }
    cmp_warn_unchecked_all(o, doc);
    int regressed = json_array_size(cmp_get(doc, "regressions")) > 0;
    cmp_output(o, doc);
    fflush(stdout);
    json_decref(doc);
    return regressed ? EXIT_RUNTIME : EXIT_OK;
}

int compare_cmd_main(int argc, char **argv) {
    cmp_opts o;
    int rc;
    if (cmp_opts_init(&o, argc) != 0) {
        fprintf(stderr, "luamech: compare: out of memory\n");
        rc = EXIT_RUNTIME;
    } else {
        rc = cmp_main(argc, argv, &o);
    }
    cmp_opts_free(&o);
    return rc;
}
