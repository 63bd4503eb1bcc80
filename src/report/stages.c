/* stages.c - per-stage figures of staged groups (closed or paced VU
 * targets, arrival-rate targets), from the engine's "stage N GROUP" timers,
 * with rates over each stage's own length.  Used by the console and by
 * summary.json's "stages". */
#include "report/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const agg_timer *stages_timer(const run_result *r, const char *name) {
    for (int i = 0; i < r->agg.n; i++)
        if (r->agg.timers[i]->kind == TK_STAGE && strcmp(r->agg.timers[i]->name, name) == 0) return r->agg.timers[i];
    return NULL;
}

int report_stage_rows(const scenario *sc, const run_result *r, stage_row **rows) {
    int n = 0, cap = 0;
    *rows = NULL;
    for (int g = 0; g < sc->ngroups; g++) {
        const group_cfg *gc = &sc->groups[g];
        if (!gc->staged) continue;
        double from = gc->sched.start, start_s = 0;
        for (int k = 0; k <= gc->sched.n; k++) {
            char name[300];
            snprintf(name, sizeof name, "stage %d %s", k + 1, gc->name);
            const agg_timer *t = stages_timer(r, name);
            double len = k < gc->sched.n ? (double)gc->sched.st[k].dur_ns / 1e9 : (double)r->run_ns / 1e9 - start_s;
            if (k == gc->sched.n && (!t || len <= 0)) break;      /* no hold after the last stage */
            if (n == cap) *rows = realloc(*rows, (size_t)(cap = cap ? cap * 2 : 8) * sizeof **rows);
            stage_row *x = &(*rows)[n++];
            x->group = gc;
            x->stage = k + 1;
            x->from = from;
            x->to = k < gc->sched.n ? gc->sched.st[k].target : from;
            x->start_s = start_s;
            hist empty;
            if (!t) hist_init(&empty);
            agg_row_fill(&x->row, t ? &t->total : &empty, t ? t->total_errors : 0, len);
            start_s += len;
            from = x->to;
        }
    }
    return n;
}
