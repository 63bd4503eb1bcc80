/* subjects.c - threshold subjects checked before any load: a criterion
 * whose subject names a timer of a family luamech makes by itself
 * (All Transactions, "group <name>", "stage <k> <group>", "engine.*",
 * "http", "http.*", "memcached.*") that this run can never make is refused
 * with the nearest name that exists (exit 3), instead of failing as "no
 * data" after the whole run.  Names made at run time (custom timers and
 * metrics, named and tagged HTTP calls, "redis.<command>") are not known
 * yet: they pass here, and a criterion on one that got no data fails at the
 * end with the nearest name seen (report/thresholds.c).  A subject's view
 * suffix (stats/threshold.h) is looked through: its family is checked,
 * unless the plan has a timer named the whole subject (a group called
 * "a (uncorrected)").  The rule is in docs/load-models.md (Thresholds).
 * It only reads the plan. */
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

/* 1 when name is in a family whose every member the plan knows. */
static int subj_closed(const char *name) {
    return strcmp(name, "All Transactions") == 0 || strncmp(name, "group ", 6) == 0 ||
           strncmp(name, "stage ", 6) == 0 || strncmp(name, "engine.", 7) == 0 || lm_builtin_closed(name);
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

/* EXIT_OK, or EXIT_SCENARIO with the message on stderr. */
static int subj_check(const scenario *const *scs, int n, const scenario *owner, const char *where) {
    for (int i = 0; i < owner->nthresholds; i++) {
        const threshold *t = &owner->thresholds[i];
        char name[256];
        subj_name(t, name, sizeof name);
        if (!name[0] || !subj_closed(name)) continue;
        /* a timer named the whole subject wins (a group called "a (uncorrected)") */
        if (subj_known(scs, n, name) || (strcmp(t->timer, t->family) != 0 && subj_known(scs, n, t->timer))) continue;
        subj_ctx c = {scs, n, name, 0};
        text_near near;
        text_near_init(&near, name);
        subj_each(&c, text_near_try, &near);
        char b1[512], b2[512], b3[600];
        fprintf(stderr, "luamech: %sthresholds[%d] \"%s\": no timer \"%s\" can exist in this run%s%s%s "
                "(docs/load-models.md, Thresholds)\n", where, i + 1, text_clean(t->text, b1, sizeof b1),
                text_clean(name, b2, sizeof b2), near.best[0] ? " (did you mean \"" : "",
                near.best[0] ? text_clean(near.best, b3, sizeof b3) : "", near.best[0] ? "\"?)" : "");
        return EXIT_SCENARIO;
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
