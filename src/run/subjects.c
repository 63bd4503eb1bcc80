/* subjects.c - threshold subjects checked before any load: a criterion
 * whose subject names a timer or counter of a family luamech makes by
 * itself (All Transactions, "group <name>", "stage <k> <group>",
 * "engine.*", "http", "http.*", "memcached.*", "ws.*", "grpc", "grpc.*":
 * lua/modules.c's lm_builtin_timers and lm_builtin_counters) that this run
 * can never make is refused with the nearest name that exists (exit 3),
 * instead of failing as "no data" after the whole run; so is a statistic
 * that does not apply to such a subject (a counter's p95, a timer's value)
 * and a plain subject with a wildcard in those families ("grpc *": only a
 * tag selector has wildcards).  A subject it knows is recorded in the
 * criterion (threshold.subject_kind: a known counter that never moved is
 * 0 at the end, a known timer without samples gets no did-you-mean).
 * Names made at run time (custom timers and metrics, named and tagged HTTP
 * calls, gRPC methods "grpc <method>", "redis.<command>") are not known
 * yet: they pass here, and a criterion on one that got no data fails at
 * the end with the nearest name seen (report/thresholds.c).  A subject's
 * view suffix (stats/threshold.h) is looked through: its family is
 * checked, unless the plan has a timer named the whole subject (a group
 * called "a (uncorrected)").  The rule is in docs/load-models.md
 * (Thresholds).  It reads the plan, and writes only each criterion's
 * subject_kind. */
#include "run/runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/exit_codes.h"
#include "common/text.h"
#include "lua/lm_core.h"

/* What a subject is checked against: the groups of the scenario (or of
 * every phase, for a phased scenario's top-level criteria). */
typedef struct subj_ctx {
    const scenario *const *scs;
    int n;
    const char *want;
    int found;
} subj_ctx;

static void subj_eq(void *ctx, const char *name) {
    subj_ctx *c = ctx;
    if (strcmp(c->want, name) == 0) c->found = 1;
}

/* fn(ctx, name) for every timer name the plan knows before the run. */
static void subj_each(const subj_ctx *c, lm_name_fn fn, void *ctx) {
    static const char *const engine[] = STATS_ENGINE_TIMERS;
    char name[300];
    fn(ctx, "All Transactions");
    for (int i = 0; engine[i]; i++) fn(ctx, engine[i]);
    lm_builtin_timers(fn, ctx);
    for (int s = 0; s < c->n; s++)
        for (int g = 0; g < c->scs[s]->ngroups; g++) {
            const group_cfg *gr = &c->scs[s]->groups[g];
            snprintf(name, sizeof name, "group %s", gr->name);
            fn(ctx, name);
            for (int k = 1; gr->staged && k <= gr->sched.n + 1; k++) {
                snprintf(name, sizeof name, "stage %d %s", k, gr->name);
                fn(ctx, name);
            }
        }
}

/* fn(ctx, name) for every counter name the plan knows before the run. */
static void subj_each_counter(lm_name_fn fn, void *ctx) {
    static const char *const engine[] = STATS_ENGINE_COUNTERS;
    for (int i = 0; engine[i]; i++) fn(ctx, engine[i]);
    lm_builtin_counters(fn, ctx);
}

/* 1 when name is in a family whose every member the plan knows. */
static int subj_closed(const char *name) {
    return strcmp(name, "All Transactions") == 0 || strncmp(name, "group ", 6) == 0 ||
           strncmp(name, "stage ", 6) == 0 || strncmp(name, "engine.", 7) == 0 || lm_builtin_closed(name);
}

/* 1 when name is in a family of timers only (no counter of the plan is there). */
static int subj_timers_only(const char *name) {
    return strcmp(name, "All Transactions") == 0 || strncmp(name, "group ", 6) == 0 || strncmp(name, "stage ", 6) == 0;
}

/* The subject of t as a timer family's name: the tag selector's base, or
 * the family (without its view suffix: threshold.h); "" when there is
 * nothing to check (checks, an empty or wildcard base). */
static void subj_name(const threshold *t, char *out, size_t len) {
    out[0] = 0;
    if (t->stat == TH_CHECKS_RATE) return;
    const char *s = t->ntags ? t->base : t->family;
    if (strpbrk(s, "*?")) return;
    snprintf(out, len, "%s", s);
}

/* 1 when the plan knows a timer named name. */
static int subj_known(const scenario *const *scs, int n, const char *name) {
    subj_ctx c = {scs, n, name, 0};
    subj_each(&c, subj_eq, &c);
    return c.found;
}

/* 1 when the plan knows a counter named name. */
static int subj_known_counter(const char *name) {
    subj_ctx c = {NULL, 0, name, 0};
    subj_each_counter(subj_eq, &c);
    return c.found;
}

static int subj_refuse(const scenario *const *scs, int n, const char *where, int i, const threshold *t,
                       const char *name) {
    subj_ctx c = {scs, n, name, 0};
    text_near near;
    text_near_init(&near, name);
    subj_each(&c, text_near_try, &near);
    if (!subj_timers_only(name)) subj_each_counter(text_near_try, &near);
    char b1[512], b2[512], b3[600];
    fprintf(stderr, "luamech: %sthresholds[%d] \"%s\": no timer%s \"%s\" can exist in this run%s%s%s "
            "(docs/load-models.md, Thresholds)\n", where, i + 1, text_clean(t->text, b1, sizeof b1),
            subj_timers_only(name) ? "" : " or counter", text_clean(name, b2, sizeof b2),
            near.best[0] ? " (did you mean \"" : "", near.best[0] ? text_clean(near.best, b3, sizeof b3) : "",
            near.best[0] ? "\"?)" : "");
    return EXIT_SCENARIO;
}

/* A subject the plan knows whose stat does not apply to it ("http.status_5xx
 * p95", "http.get value"): EXIT_SCENARIO with the message, else EXIT_OK. */
static int subj_stat(const char *where, int i, const threshold *t) {
    int counter = t->subject_kind == TH_SUBJ_COUNTER;
    if (counter ? threshold_counter_stat(t) : t->stat != TH_VALUE && t->stat != TH_FRACTION) return EXIT_OK;
    char b1[512], b2[512];
    fprintf(stderr, "luamech: %sthresholds[%d] \"%s\": \"%s\" is %s (docs/load-models.md, Thresholds)\n", where,
            i + 1, text_clean(t->text, b1, sizeof b1), text_clean(t->family, b2, sizeof b2), threshold_applies(t, NULL));
    return EXIT_SCENARIO;
}

/* A plain subject (no tag selector) with a wildcard in a family luamech
 * makes ("grpc *", "http.*"): wildcards select only in a tag selector;
 * the family's timer of every call ("grpc", "http") is suggested. */
static int subj_wild(const scenario *const *scs, int n, const char *where, int i, const threshold *t) {
    char fam[64];
    if (t->ntags || t->stat == TH_CHECKS_RATE || !strpbrk(t->family, "*?")) return EXIT_OK;
    snprintf(fam, sizeof fam, "%.*s", (int)strcspn(t->family, " .*?"), t->family);
    if (!subj_closed(fam)) return EXIT_OK;
    int all = subj_known(scs, n, fam);
    char b1[512], b2[512];
    fprintf(stderr, "luamech: %sthresholds[%d] \"%s\": no timer \"%s\" can exist in this run: * and ? are "
            "wildcards only in a tag selector (\"http.*{k=v}\")%s%s%s (docs/load-models.md, Thresholds)\n", where,
            i + 1, text_clean(t->text, b1, sizeof b1), text_clean(t->family, b2, sizeof b2),
            all ? "; every call: \"" : "", all ? fam : "", all ? "\"" : "");
    return EXIT_SCENARIO;
}

/* EXIT_OK, or EXIT_SCENARIO with the message on stderr.  Records in each
 * criterion of the plan (the scenario's thresholds array) what its subject
 * is when the plan knows it: a timer or a counter this run may make. */
static int subj_check(const scenario *const *scs, int n, const scenario *owner, const char *where) {
    for (int i = 0; i < owner->nthresholds; i++) {
        threshold *t = &owner->thresholds[i];
        char name[256];
        if (subj_wild(scs, n, where, i, t) != EXIT_OK) return EXIT_SCENARIO;
        subj_name(t, name, sizeof name);
        if (!name[0] || !subj_closed(name)) continue;
        /* a timer named the whole subject wins (a group called "a (uncorrected)") */
        if (subj_known(scs, n, name) || (strcmp(t->timer, t->family) != 0 && subj_known(scs, n, t->timer))) {
            if (t->ntags) continue;
            t->subject_kind = TH_SUBJ_TIMER;
        } else if (!t->ntags && strcmp(t->timer, t->family) == 0 && subj_known_counter(name)) {
            t->subject_kind = TH_SUBJ_COUNTER;
        } else {
            return subj_refuse(scs, n, where, i, t, name);
        }
        if (subj_stat(where, i, t) != EXIT_OK) return EXIT_SCENARIO;
    }
    return EXIT_OK;
}

int runner_check_subjects(const scenario *sc) {
    if (sc->nphases == 0) {
        const scenario *one = sc;
        return subj_check(&one, 1, sc, "");
    }
    const scenario **all = calloc((size_t)sc->nphases, sizeof *all);
    if (!all) return EXIT_RUNTIME;
    for (int i = 0; i < sc->nphases; i++) all[i] = &sc->phases[i];
    int rc = subj_check(all, sc->nphases, sc, "");
    for (int i = 0; rc == EXIT_OK && i < sc->nphases; i++) {
        char where[300];
        snprintf(where, sizeof where, "%s %s: ", sc->is_suite ? "run" : "phase", sc->phases[i].name);
        rc = subj_check(&all[i], 1, &sc->phases[i], where);
    }
    free(all);
    return rc;
}
