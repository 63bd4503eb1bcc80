/* stages.c - per-stage figures of staged groups (closed or paced VU
 * targets, arrival-rate targets), from the engine's stage timers (found by
 * their group and stage, data of the timer, never by their names),
 * and the span (start, end) each timer's figures are over: a stage timer's
 * is its stage's time in the run, every other timer's the whole run.  Rates
 * are counts over these spans.  Used by the console, summary.json and the
 * thresholds.  Reads the scenario's schedules and the run's data only; it
 * does not look at the engine or write anything. */
#include "report/derived.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Stage k (from 1) of group g: the timer itself, not a twin. */
static const agg_timer *stages_timer(const run_result *r, int g, int k) {
    for (int i = 0; i < r->agg.n; i++) {
        const agg_timer *t = r->agg.timers[i];
        if (t->kind == TK_STAGE && t->group == g && t->stage == k && !t->twin_of && !t->of) return t;
    }
    return NULL;
}

/* Stage k (0-based; k == n is the hold after the last stage) of gc, in
 * seconds since t = 0, clipped to the run's length run_s. */
static void stages_span(const group_cfg *gc, int k, double run_s, double *start_s, double *end_s) {
    double s = 0;
    for (int i = 0; i < k && i < gc->sched.n; i++) s += (double)gc->sched.st[i].dur_ns / 1e9;
    double e = k < gc->sched.n ? s + (double)gc->sched.st[k].dur_ns / 1e9 : run_s;
    *start_s = s < run_s ? s : run_s;
    *end_s = e < run_s ? e : run_s;
    if (*end_s < *start_s) *end_s = *start_s;
}

double report_timer_span(const scenario *sc, const run_result *r, const agg_timer *t, double *start_s,
                         double *end_s) {
    double run_s = (double)r->run_ns / 1e9, span_s = report_span_s(r);
    *start_s = 0;
    *end_s = span_s;                 /* a whole-run timer: its samples were taken until the drain's end */
    if (t->kind != TK_STAGE) return span_s;
    *end_s = run_s;
    /* the stage is data of the timer (and of its twins) */
    if (t->group < 0 || t->group >= sc->ngroups || t->stage < 1) return run_s;
    const group_cfg *gc = &sc->groups[t->group];
    if (!gc->staged || t->stage > gc->sched.n + 1) return run_s;
    stages_span(gc, t->stage - 1, run_s, start_s, end_s);
    return *end_s - *start_s;
}

int report_stage_rows(const scenario *sc, const run_result *r, stage_row **rows) {
    int n = 0, cap = 0;
    double run_s = (double)r->run_ns / 1e9;
    *rows = NULL;
    for (int g = 0; g < sc->ngroups; g++) {
        const group_cfg *gc = &sc->groups[g];
        if (!gc->staged) continue;
        double from = gc->sched.start;
        for (int k = 0; k <= gc->sched.n; k++) {
            const agg_timer *t = stages_timer(r, g, k + 1);
            double start_s, end_s;
            stages_span(gc, k, run_s, &start_s, &end_s);
            if (k == gc->sched.n && (!t || end_s <= start_s)) break;      /* no hold after the last stage */
            if (n == cap) {
                stage_row *grown = realloc(*rows, (size_t)(cap = cap ? cap * 2 : 8) * sizeof **rows);
                if (!grown) return n;
                *rows = grown;
            }
            stage_row *x = &(*rows)[n++];
            x->group = gc;
            x->stage = k + 1;
            x->from = from;
            x->to = k < gc->sched.n ? gc->sched.st[k].target : from;
            x->start_s = start_s;
            x->end_s = end_s;
            hist empty;
            if (!t) hist_init(&empty);
            agg_row_fill(&x->row, t ? &t->total : &empty, t ? t->total_errors : 0, end_s - start_s);
            from = x->to;
        }
    }
    return n;
}
