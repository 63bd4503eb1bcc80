/* compare_sets.c - `luamech compare A1 A2 ... -- B1 B2 ...`: two sets of
 * repeated runs of the same test.
 *
 * Per timer view (the rows of compare.c: (family, view), --view) present in
 * every run of both sides, and per figure: each run's
 * value, the median of each side, the change of B's median against A's, and
 * p, a one-sided Mann-Whitney U test (compare_stats.c) that B's runs are
 * worse than A's beyond the runs' own spread; significant when p <= alpha
 * (--alpha, 0.05 by default).  A --fail-if limit fails only when the medians
 * are past it AND the difference is significant; past but not significant is
 * reported as within the noise.  When the sets are too small for the test
 * ever to reach alpha (3 runs a side at least for 0.05), that is said, and
 * --fail-if on them is a usage error (a gate that cannot fail).
 *
 * Like compare.c, the comparison is built as a JSON document, printed as is
 * with --json or rendered as text.  Sets are of single runs (a phased run's
 * top directory is refused: compare a phase directory of each run).  Not
 * here: the arithmetic and the limits (compare.c, compare_args.c,
 * compare_stats.c). */
#include "cmd/compare_priv.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/exit_codes.h"

/* The runs of both sides and what the comparison collects. */
typedef struct cmp_sets {
    cmp_opts *o;
    cmp_run *a, *b;          /* o->na and o->nb runs */
    double *va, *vb;         /* one figure of every run (scratch) */
    double min_p;            /* the smallest p the test can give */
    int tested;              /* min_p <= alpha */
    json_t *regressions;     /* past a limit, significantly */
    json_t *noise;           /* past a limit, not significantly */
    char err[9000];
} cmp_sets;

/* ---- loading ---- */

/* 1 when runs x and y are one run: the same file (after resolving links,
 * "." and ".."), or copies of one (the same start to the ns, scenario
 * hash, seed and segment). */
static int cmp_sets_same_run(const cmp_run *x, const cmp_run *y, const char *real_x, const char *real_y) {
    if (real_x && real_y && strcmp(real_x, real_y) == 0) return 1;
    json_t *nx = cmp_get(x->root, "start_unix_ns"), *ny = cmp_get(y->root, "start_unix_ns");
    if (!json_is_integer(nx) || !json_equal(nx, ny)) return 0;
    static const char *const same[] = {"scenario_hash", "scenario", "seed"};
    for (size_t k = 0; k < sizeof same / sizeof same[0]; k++) {
        json_t *a = cmp_get(x->root, same[k]), *b = cmp_get(y->root, same[k]);
        if ((a || b) && !json_equal(a, b)) return 0;
    }
    json_t *sx = cmp_get(cmp_get(x->root, "segment"), "index"), *sy = cmp_get(cmp_get(y->root, "segment"), "index");
    return (!sx && !sy) || json_equal(sx, sy);
}

/* No run twice in a side: its one result would count as two runs (two
 * identical values make a spread of none and a p the data cannot give).
 * 0, or -1 with a message. */
static int cmp_sets_check_distinct(cmp_sets *s, const cmp_run *runs, int n, char side) {
    if (n < 2) return 0;
    char **real = calloc((size_t)n, sizeof *real);
    int rc = 0;
    if (!real) return text_errf(s->err, sizeof s->err, "out of memory");
    for (int i = 0; i < n; i++) real[i] = realpath(runs[i].path, NULL);
    for (int i = 0; rc == 0 && i < n; i++)
        for (int j = i + 1; rc == 0 && j < n; j++) {
            if (!cmp_sets_same_run(&runs[i], &runs[j], real[i], real[j])) continue;
            int file = real[i] && real[j] && strcmp(real[i], real[j]) == 0;
            rc = text_errf(s->err, sizeof s->err, "set %c names one run twice: %c%d (%s) and %c%d (%s) are %s; give "
                           "each run of a set once", side, side, i + 1, runs[i].path, side, j + 1, runs[j].path,
                           file ? "the same file" : "copies of one run (the same start_unix_ns, scenario and seed)");
        }
    for (int i = 0; i < n; i++) free(real[i]);
    free(real);
    return rc;
}

static int cmp_sets_load_side(cmp_sets *s, cmp_run *runs, const char **args, int n, char side) {
    for (int i = 0; i < n; i++) {
        if (cmp_load(&runs[i], args[i], s->err, sizeof s->err) != 0) return -1;
        if (!json_is_array(cmp_get(runs[i].root, "timers"))) {
            text_errf(s->err, sizeof s->err, "%s is a phased run's top summary: sets compare single runs; give a "
                     "phase directory of each run (e.g. DIR/1-NAME)", runs[i].path);
            return -1;
        }
    }
    return cmp_sets_check_distinct(s, runs, n, side);
}

static int cmp_sets_load(cmp_sets *s) {
    cmp_opts *o = s->o;
    s->a = calloc((size_t)o->na, sizeof *s->a);
    s->b = calloc((size_t)o->nb, sizeof *s->b);
    s->va = calloc((size_t)o->na, sizeof *s->va);
    s->vb = calloc((size_t)o->nb, sizeof *s->vb);
    if (!s->a || !s->b || !s->va || !s->vb) {
        text_errf(s->err, sizeof s->err, "out of memory");
        return -1;
    }
    if (cmp_sets_load_side(s, s->a, o->runs_a, o->na, 'A') != 0) return -1;
    return cmp_sets_load_side(s, s->b, o->runs_b, o->nb, 'B');
}

static void cmp_sets_free(cmp_sets *s) {
    for (int i = 0; s->a && i < s->o->na; i++) json_decref(s->a[i].root);
    for (int i = 0; s->b && i < s->o->nb; i++) json_decref(s->b[i].root);
    free(s->a);
    free(s->b);
    free(s->va);
    free(s->vb);
}

/* ---- building the comparison ---- */

/* The first timer of run r named name, or NULL. */
static json_t *cmp_sets_timer(const cmp_run *r, const char *name) {
    size_t i;
    json_t *t;
    json_array_foreach(cmp_get(r->root, "timers"), i, t) {
        const char *n = cmp_str(t, "name");
        if (n && strcmp(n, name) == 0) return t;
    }
    return NULL;
}

/* View v of the timer name in run r (as compared: cmp_side_view), or NULL. */
static json_t *cmp_sets_view(const cmp_run *r, const char *name, int v) {
    json_t *t = cmp_sets_timer(r, name);
    return t ? cmp_side_view(t, v) : NULL;
}

/* In how many of the n runs view v of the timer name is. */
static int cmp_sets_count(const cmp_run *runs, int n, const char *name, int v) {
    int k = 0;
    for (int i = 0; i < n; i++) k += cmp_sets_view(&runs[i], name, v) != NULL;
    return k;
}

/* One row: the family's name, the view, the row's label. */
typedef struct cmp_sets_row {
    const char *name;
    int view;
    const char *label;
} cmp_sets_row;

/* Figure f of row r in every run of a side into v.  0, 1 when a run has
 * no data for it (a null latency), or -1 with a message. */
static int cmp_sets_values(cmp_sets *s, const cmp_run *runs, int n, const cmp_sets_row *r, cmp_fig f, double *v) {
    int none = 0;
    for (int i = 0; i < n; i++) {
        json_t *view = cmp_sets_view(&runs[i], r->name, r->view);
        int rc = cmp_value(&runs[i], r->label, view, f, &v[i], s->err, sizeof s->err);
        if (rc < 0) return -1;
        none |= rc;
    }
    return none;
}

/* A value: an integer for whole counts, else a real. */
static json_t *cmp_sets_num(cmp_fig f, double v) {
    if (cmp_fig_unit(f) == CMP_UNIT_COUNT && v != floor(v)) return json_real(v);
    return cmp_num(f, v);
}

static json_t *cmp_sets_array(cmp_fig f, const double *v, int n) {
    json_t *a = json_array();
    for (int i = 0; i < n; i++) json_array_append_new(a, cmp_sets_num(f, v[i]));
    return a;
}

/* An entry of regressions or noise. */
static json_t *cmp_sets_reg(const cmp_sets_row *r, cmp_fig f, double ma, double mb, double p, const cmp_limit *l) {
    return json_pack("{s:s,s:s,s:s,s:s,s:o,s:o,s:o,s:o,s:s}", "timer", r->label, "family", r->name, "view",
                     summary_view_name(r->view), "figure", cmp_fig_name(f), "a", cmp_sets_num(f, ma), "b",
                     cmp_sets_num(f, mb), "change_pct", cmp_change(ma, mb), "p", isnan(p) ? json_null() : json_real(p),
                     "limit", l->text);
}

/* The limits on figure f that the medians ma, mb are past: into past (and
 * regressions) when significant, else into within (and noise). */
static void cmp_sets_limits(cmp_sets *s, const cmp_sets_row *r, cmp_fig f, double ma, double mb, double p, int sig,
                            json_t *past, json_t *within) {
    const cmp_opts *o = s->o;
    for (int l = 0; l < o->nlimits; l++) {
        const cmp_limit *lim = &o->limits[l];
        if (lim->fig != f || !cmp_limit_exceeded(lim, ma, mb)) continue;
        json_array_append_new(sig ? past : within, json_string(lim->text));
        json_array_append_new(sig ? s->regressions : s->noise, cmp_sets_reg(r, f, ma, mb, p, lim));
    }
}

/* Figure f of row r: the runs' values (s->va, s->vb), medians, change, p
 * and the limits. */
static json_t *cmp_sets_figure(cmp_sets *s, const cmp_sets_row *r, cmp_fig f) {
    int na = s->o->na, nb = s->o->nb;
    json_t *fj = json_object(), *past = json_array(), *within = json_array();
    json_object_set_new(fj, "a_runs", cmp_sets_array(f, s->va, na));
    json_object_set_new(fj, "b_runs", cmp_sets_array(f, s->vb, nb));
    double p = s->tested ? cmp_mwu_p(s->va, (size_t)na, s->vb, (size_t)nb, cmp_fig_higher_is_worse(f)) : NAN;
    double ma = cmp_median(s->va, (size_t)na), mb = cmp_median(s->vb, (size_t)nb);   /* sorts */
    int sig = !isnan(p) && p <= s->o->alpha;
    json_object_set_new(fj, "a", cmp_sets_num(f, ma));
    json_object_set_new(fj, "b", cmp_sets_num(f, mb));
    json_object_set_new(fj, "change_pct", cmp_change(ma, mb));
    json_object_set_new(fj, "worse", json_boolean(cmp_is_worse(f, ma, mb)));
    json_object_set_new(fj, "a_min", cmp_sets_num(f, s->va[0]));
    json_object_set_new(fj, "a_max", cmp_sets_num(f, s->va[na - 1]));
    json_object_set_new(fj, "b_min", cmp_sets_num(f, s->vb[0]));
    json_object_set_new(fj, "b_max", cmp_sets_num(f, s->vb[nb - 1]));
    json_object_set_new(fj, "p", isnan(p) ? json_null() : json_real(p));
    json_object_set_new(fj, "significant", json_boolean(sig));
    cmp_sets_limits(s, r, f, ma, mb, p, sig, past, within);
    json_object_set_new(fj, "past_limits", past);
    json_object_set_new(fj, "past_limits_not_significant", within);
    return fj;
}

/* The shown figures of row r (in every run) into figs.  0, or -1. */
static int cmp_sets_figures(cmp_sets *s, const cmp_sets_row *r, json_t *figs) {
    for (int k = 0; k < CMP_NFIGS; k++) {
        cmp_fig f = (cmp_fig)k;
        if (!cmp_fig_comparable(f)) continue;
        if (!s->o->shown[f]) continue;
        int ra = cmp_sets_values(s, s->a, s->o->na, r, f, s->va);
        int rb = ra < 0 ? 0 : cmp_sets_values(s, s->b, s->o->nb, r, f, s->vb);
        if (ra < 0 || rb < 0) return -1;
        if (ra || rb) continue;             /* a run without data: not compared */
        json_object_set_new(figs, cmp_fig_name(f), cmp_sets_figure(s, r, f));
    }
    return 0;
}

/* View v of family t, first seen: compared when in every run of both
 * sides, else listed (into partial) with the runs it is in. */
static int cmp_sets_timer_entry(cmp_sets *s, json_t *t, int v, json_t *out, json_t *partial) {
    cmp_opts *o = s->o;
    const char *name = cmp_str(t, "name"), *kind = cmp_str(t, "kind"), *vn = summary_view_name(v);
    int ka = cmp_sets_count(s->a, o->na, name, v), kb = cmp_sets_count(s->b, o->nb, name, v);
    if (!kind) kind = "";
    cmp_mark_seen(o, name, v);
    if (ka < o->na || kb < o->nb) {
        const char *in = ka == o->na && kb == 0 ? "a" : kb == o->nb && ka == 0 ? "b" : "some";
        json_array_append_new(partial, json_pack("{s:s,s:s,s:s,s:s,s:i,s:i}", "name", name, "view", vn, "kind",
                                                 kind, "in", in, "runs_a", ka, "runs_b", kb));
        return 0;
    }
    json_t *label = cmp_label(name, v), *figs = json_object();
    cmp_sets_row r = {name, v, json_string_value(label)};
    int rc = r.label ? cmp_sets_figures(s, &r, figs) : text_errf(s->err, sizeof s->err, "out of memory");
    json_decref(label);
    json_array_append_new(out, json_pack("{s:s,s:s,s:s,s:s,s:o}", "name", name, "view", vn, "kind", kind, "in",
                                         "both", "figures", figs));
    return rc;
}

/* 1 when view v of the family name has a row: cmp_view_row over every run. */
static int cmp_sets_view_row(const cmp_sets *s, unsigned views, int v, const char *name) {
    for (int r = 0; r < s->o->na + s->o->nb; r++) {
        json_t *t = cmp_sets_timer(r < s->o->na ? &s->a[r] : &s->b[r - s->o->na], name);
        if (t && cmp_view_row(views, v, t, NULL)) return 1;
    }
    return 0;
}

/* Every selected view of every timer of every run, in the order first seen
 * (A's runs, then B's): those in every run, then the others.  0, or -1. */
static int cmp_sets_timers(cmp_sets *s, json_t *out) {
    json_t *seen = json_object(), *partial = json_array(), *t;
    int rc = 0, n = s->o->na + s->o->nb;
    for (int r = 0; r < n; r++) {
        const cmp_run *run = r < s->o->na ? &s->a[r] : &s->b[r - s->o->na];
        cmp_resolve_timers(s->o, cmp_get(run->root, "timers"), r == 0);
    }
    for (int r = 0; r < n && rc == 0; r++) {
        const cmp_run *run = r < s->o->na ? &s->a[r] : &s->b[r - s->o->na];
        size_t i;
        json_array_foreach(cmp_get(run->root, "timers"), i, t) {
            const char *name = cmp_str(t, "name");
            unsigned views = name && !json_object_get(seen, name) ? cmp_selected(s->o, t) : 0;
            if (!views) continue;
            json_object_set_new(seen, name, json_true());
            for (int v = 0; v < SUMMARY_VIEWS && rc == 0; v++)
                if (cmp_sets_view_row(s, views, v, name)) rc = cmp_sets_timer_entry(s, t, v, out, partial);
            if (rc != 0) break;
        }
    }
    json_array_extend(out, partial);
    json_decref(partial);
    json_decref(seen);
    return rc;
}

static json_t *cmp_sets_side(const cmp_run *runs, int n) {
    json_t *a = json_array();
    for (int i = 0; i < n; i++) json_array_append_new(a, cmp_run_json(&runs[i]));
    return json_pack("{s:i,s:o}", "n", n, "runs", a);
}

/* The whole comparison, or NULL with a message. */
static json_t *cmp_sets_build(cmp_sets *s) {
    cmp_opts *o = s->o;
    json_t *doc = json_object(), *limits = json_array(), *timers = json_array();
    s->regressions = json_array();
    s->noise = json_array();
    json_object_set_new(doc, "sets", json_true());
    json_object_set_new(doc, "a", cmp_sets_side(s->a, o->na));
    json_object_set_new(doc, "b", cmp_sets_side(s->b, o->nb));
    json_object_set_new(doc, "test", json_string("one-sided Mann-Whitney U, B worse than A"));
    json_object_set_new(doc, "alpha", json_real(o->alpha));
    json_object_set_new(doc, "min_p", json_real(s->min_p));
    json_object_set_new(doc, "tested", json_boolean(s->tested));
    json_object_set_new(doc, "views", cmp_views_json(o));
    for (int l = 0; l < o->nlimits; l++) json_array_append_new(limits, json_string(o->limits[l].text));
    json_object_set_new(doc, "limits", limits);
    json_object_set_new(doc, "timers", timers);
    int rc = cmp_sets_timers(s, timers);
    json_object_set_new(doc, "regressions", s->regressions);
    json_object_set_new(doc, "not_significant", s->noise);
    json_object_set_new(doc, "regressed", json_boolean(json_array_size(s->regressions) > 0));
    if (rc != 0) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}

/* ---- text ---- */

static void cmp_sets_fmt(char *buf, size_t len, cmp_fig f, json_t *v) {
    if (cmp_fig_unit(f) == CMP_UNIT_COUNT && json_is_real(v)) snprintf(buf, len, "%.1f", json_real_value(v));
    else cmp_fmt_val(buf, len, f, v);
}

static void cmp_sets_fmt_p(char *buf, size_t len, json_t *p, int sig) {
    if (!json_is_number(p)) snprintf(buf, len, "-");
    else if (json_number_value(p) < 0.0001) snprintf(buf, len, "<0.0001%s", sig ? "*" : "");
    else snprintf(buf, len, "%.4f%s", json_number_value(p), sig ? "*" : "");
}

/* One row: figure, medians, change, p, each side's range, limits. */
static void cmp_sets_print_figure(FILE *out, cmp_fig f, json_t *fj) {
    char ma[64], mb[64], ch[64], pv[32], lo[64], hi[64], ra[140], rb[140], label[32];
    cmp_sets_fmt(ma, sizeof ma, f, cmp_get(fj, "a"));
    cmp_sets_fmt(mb, sizeof mb, f, cmp_get(fj, "b"));
    cmp_fmt_change(ch, sizeof ch, cmp_get(fj, "change_pct"), 1);
    cmp_sets_fmt_p(pv, sizeof pv, cmp_get(fj, "p"), json_is_true(cmp_get(fj, "significant")));
    cmp_sets_fmt(lo, sizeof lo, f, cmp_get(fj, "a_min"));
    cmp_sets_fmt(hi, sizeof hi, f, cmp_get(fj, "a_max"));
    snprintf(ra, sizeof ra, "%s..%s", lo, hi);
    cmp_sets_fmt(lo, sizeof lo, f, cmp_get(fj, "b_min"));
    cmp_sets_fmt(hi, sizeof hi, f, cmp_get(fj, "b_max"));
    snprintf(rb, sizeof rb, "%s..%s", lo, hi);
    snprintf(label, sizeof label, "%s%s", cmp_fig_name(f), cmp_fig_unit(f) == CMP_UNIT_RATE ? "/s" : "");
    fprintf(out, "  %-8s %14s %14s %10s %8s %22s %22s", label, ma, mb, ch, pv, ra, rb);
    json_t *l;
    size_t n;
    json_array_foreach(cmp_get(fj, "past_limits"), n, l) fprintf(out, "%s%s", n ? ", " : "   <- past ",
                                                                  json_string_value(l));
    json_array_foreach(cmp_get(fj, "past_limits_not_significant"), n, l)
        fprintf(out, "%s%s", n ? ", " : "   <- past (not significant) ", json_string_value(l));
    fputs("\n", out);
}

static void cmp_sets_print_timer(FILE *out, json_t *t) {
    fputs("\n", out);
    cmp_print_heading(out, t);
    fputs("\n", out);
    fprintf(out, "  %-8s %14s %14s %10s %8s %22s %22s\n", "figure", "A median", "B median", "B vs A", "p",
            "A min..max", "B min..max");
    json_t *figs = cmp_get(t, "figures");
    for (int k = 0; k < CMP_NFIGS; k++) {
        json_t *fj = cmp_fig_comparable(k) ? cmp_get(figs, cmp_fig_name((cmp_fig)k)) : NULL;
        if (fj) cmp_sets_print_figure(out, (cmp_fig)k, fj);
    }
}

static void cmp_sets_print_timers(FILE *out, json_t *timers, const cmp_opts *o) {
    size_t i;
    json_t *t;
    int printed = 0, first = 1;
    json_array_foreach(timers, i, t) {
        if (strcmp(cmp_str(t, "in"), "both") != 0) continue;
        cmp_sets_print_timer(out, t);
        printed++;
    }
    if (!printed) fputs("\nno timer in every run\n", out);
    cmp_print_timers_only(out, timers, "");
    json_array_foreach(timers, i, t) {
        if (strcmp(cmp_str(t, "in"), "some") != 0) continue;
        if (first) fputs("\nnot in every run (not compared):\n", out);
        first = 0;
        fputs("  ", out);
        cmp_print_heading(out, t);
        fprintf(out, ": in %d of %d A runs, %d of %d B runs\n", (int)json_integer_value(cmp_get(t, "runs_a")), o->na, (int)json_integer_value(cmp_get(t, "runs_b")),
                o->nb);
    }
}

static void cmp_sets_print_side(FILE *out, const char *side, json_t *j) {
    json_t *runs = cmp_get(j, "runs"), *r;
    size_t i;
    fprintf(out, "%s: %zu run%s\n", side, json_array_size(runs), json_array_size(runs) == 1 ? "" : "s");
    json_array_foreach(runs, i, r) {
        char label[32];
        snprintf(label, sizeof label, "  %s%zu", side, i + 1);
        cmp_print_run(out, label, r);
    }
}

static void cmp_sets_print_reg(FILE *out, json_t *r) {
    char va[64], vb[64], ch[64], pv[32];
    const char *fig = cmp_str(r, "figure");
    cmp_fig f = (cmp_fig)cmp_fig_parse(fig, strlen(fig));
    cmp_sets_fmt(va, sizeof va, f, cmp_get(r, "a"));
    cmp_sets_fmt(vb, sizeof vb, f, cmp_get(r, "b"));
    cmp_fmt_change(ch, sizeof ch, cmp_get(r, "change_pct"), 2);
    cmp_sets_fmt_p(pv, sizeof pv, cmp_get(r, "p"), 0);
    const char *unit = cmp_fig_unit(f) == CMP_UNIT_RATE ? "/s" : cmp_fig_unit(f) == CMP_UNIT_COUNT ? "" : " ms";
    fprintf(out, "  timer \"%s\": %s %s (A median %s%s, B median %s%s, p %s), past the limit %s\n",
            cmp_str(r, "timer"), fig, ch, va, unit, vb, unit, pv, cmp_str(r, "limit"));
}

/* The smallest number of runs a side for which the test can reach alpha. */
static int cmp_sets_runs_needed(double alpha) {
    int k = 1;
    while (k < 1000 && cmp_mwu_min_p((size_t)k, (size_t)k) > alpha) k++;
    return k;
}

static void cmp_sets_print_verdict(FILE *out, json_t *doc, const cmp_opts *o) {
    json_t *limits = cmp_get(doc, "limits"), *regs = cmp_get(doc, "regressions");
    json_t *noise = cmp_get(doc, "not_significant"), *x;
    size_t i;
    if (!json_is_true(cmp_get(doc, "tested")))
        fprintf(out, "\nno significance test: with %d and %d runs the smallest possible p is %.4f, above alpha %g; "
                "give at least %d runs a side\n", o->na, o->nb, json_real_value(cmp_get(doc, "min_p")), o->alpha,
                cmp_sets_runs_needed(o->alpha));
    if (json_array_size(limits) == 0) return;
    if (json_array_size(regs) == 0) {
        fputs("\nok: no figure significantly past the limits (", out);
        json_array_foreach(limits, i, x) fprintf(out, "%s%s", i ? ", " : "", json_string_value(x));
        fputs(")\n", out);
    } else {
        fprintf(out, "\nREGRESSION: %zu figure%s significantly past the limits:\n", json_array_size(regs),
                json_array_size(regs) == 1 ? "" : "s");
        json_array_foreach(regs, i, x) cmp_sets_print_reg(out, x);
    }
    if (json_array_size(noise) == 0) return;
    fprintf(out, "\npast the limits but within the runs' spread (p > %g), not failed:\n", o->alpha);
    json_array_foreach(noise, i, x) cmp_sets_print_reg(out, x);
}

static void cmp_sets_print(FILE *out, json_t *doc, const cmp_opts *o) {
    cmp_sets_print_side(out, "A", cmp_get(doc, "a"));
    cmp_sets_print_side(out, "B", cmp_get(doc, "b"));
    fputs("Whole-run figures", out);
    cmp_print_views(out, doc);
    fprintf(out, ": the median of each side's runs; times in ms; B vs A = (B - A) / A of the "
            "medians, n/a when A is 0;\np: one-sided Mann-Whitney U test that B's runs are worse than A's, "
            "* significant (p <= %g).\n", o->alpha);
    cmp_sets_print_timers(out, cmp_get(doc, "timers"), o);
    cmp_sets_print_verdict(out, doc, o);
}

/* ---- the command ---- */

/* With limits: the timers not in every run are not checked (stderr). */
static void cmp_sets_warn_unchecked(const cmp_opts *o, json_t *timers) {
    size_t i;
    json_t *t;
    if (o->nlimits == 0) return;
    json_array_foreach(timers, i, t) {
        if (strcmp(cmp_str(t, "in"), "both") == 0) continue;
        json_t *label = cmp_label(cmp_str(t, "name"), summary_view_index(cmp_str(t, "view")));
        fprintf(stderr, "luamech: compare: timer \"%s\" is in %d of %d A runs and %d of %d B runs: not checked by "
                "--fail-if\n", label ? json_string_value(label) : "?", (int)json_integer_value(cmp_get(t, "runs_a")),
                o->na, (int)json_integer_value(cmp_get(t, "runs_b")), o->nb);
        json_decref(label);
    }
}

/* Limits on sets the test can never find significant: exit 2. */
static int cmp_sets_check_testable(const cmp_sets *s) {
    if (s->tested || s->o->nlimits == 0) return 0;
    fprintf(stderr, "luamech: compare: --fail-if on sets of %d and %d runs: the test can never be significant at "
            "alpha %g (the smallest possible p is %.4f); give at least %d runs a side\n", s->o->na, s->o->nb,
            s->o->alpha, s->min_p, cmp_sets_runs_needed(s->o->alpha));
    return EXIT_USAGE;
}

static void cmp_sets_output(const cmp_opts *o, json_t *doc) {
    json_t *regs = cmp_get(doc, "regressions"), *x;
    size_t i;
    if (!o->json) {
        cmp_sets_print(stdout, doc, o);
        return;
    }
    json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    fputs("\n", stdout);
    if (json_array_size(regs) == 0) return;
    fprintf(stderr, "luamech: compare: REGRESSION: %zu figure%s significantly past the limits:\n",
            json_array_size(regs), json_array_size(regs) == 1 ? "" : "s");
    json_array_foreach(regs, i, x) cmp_sets_print_reg(stderr, x);
}

int cmp_sets_main(cmp_opts *o) {
    cmp_sets s = {.o = o};
    s.min_p = cmp_mwu_min_p((size_t)o->na, (size_t)o->nb);
    s.tested = s.min_p <= o->alpha;
    int rc = cmp_sets_check_testable(&s);
    if (rc != 0) return rc;
    json_t *doc = NULL;
    if (cmp_sets_load(&s) != 0 || !(doc = cmp_sets_build(&s))) {
        fprintf(stderr, "luamech: compare: %s\n", s.err);
        cmp_sets_free(&s);
        return EXIT_SCENARIO;
    }
    rc = cmp_check_timers_seen(o, s.a[0].path, s.b[0].path);
    cmp_sets_free(&s);
    if (rc == 0) {
        cmp_sets_warn_unchecked(o, cmp_get(doc, "timers"));
        cmp_sets_output(o, doc);
        fflush(stdout);
        rc = json_array_size(cmp_get(doc, "regressions")) > 0 ? EXIT_RUNTIME : EXIT_OK;
    }
    json_decref(doc);
    return rc;
}
