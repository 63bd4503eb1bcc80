/* view.c - one closed interval as every output sees it (report_view): the
 * run's merged data, and the threshold verdicts and generator health over
 * it, each evaluated at most once however many outputs read them (the JSON
 * stream, Prometheus, the dashboard, summary.json, junit.xml, the stop on a
 * failed threshold).  Also the trace of evaluations (report_trace_eval),
 * and the interval bus that hands the view to every sink of a run (the live
 * outputs, the result files: the runner adds them).  Not here: what any
 * output makes of them. */
#include "report/view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void report_view_init(report_view *v, const scenario *sc, const run_result *r) {
    memset(v, 0, sizeof *v);
    v->sc = sc;
    v->r = r;
}

void report_trace_eval(const run_result *r, const char *what) {
    if (getenv("LUAMECH_TRACE_EVAL"))
        fprintf(stderr, "luamech trace: %s evaluated at %d intervals\n", what, r->agg.nintervals);
}

const th_result *report_view_thresholds(report_view *v, int *failed) {
    if (!v->th_done) {
        v->th_failed = report_threshold_results(v->sc, v->r, &v->th);
        v->th_done = 1;
    }
    if (failed) *failed = v->th_failed;
    return v->th;
}

const health_row *report_view_health(report_view *v, int *n, int *suspect, const char **why) {
    if (!v->health_done) {
        v->nhealth = report_health(v->r, &v->health, &v->suspect, v->why, sizeof v->why);
        if (!v->health) v->nhealth = 0;
        v->health_done = 1;
    }
    if (n) *n = v->nhealth;
    if (suspect) *suspect = v->suspect;
    if (why) *why = v->why;
    return v->health;
}

void report_view_free(report_view *v) {
    free(v->th);
    free(v->health);
    v->th = NULL, v->health = NULL;
    v->th_done = v->health_done = 0;
}

int report_bus_add(report_bus *b, const char *name, void *self, void (*on_interval)(void *self, report_view *v)) {
    if (b->n >= REPORT_BUS_MAX || !on_interval) return -1;
    b->sinks[b->n++] = (report_sink){name, self, on_interval};
    return 0;
}

void report_bus_publish(const report_bus *b, report_view *v) {
    for (int i = 0; i < b->n; i++) b->sinks[i].on_interval(b->sinks[i].self, v);
}
