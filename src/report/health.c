/* health.c - generator health per interval: CPU use of the workers, event
 * loop lag, schedule lag of paced and rate starts, late and skipped starts;
 * and whether the generator itself may have been the bottleneck (then the
 * results are marked suspect). */
#include "report/report.h"

#include <stdlib.h>
#include <string.h>

#define HEALTH_CPU_SUSPECT 90.0      /* percent of the workers' CPUs */
#define HEALTH_LAG_SUSPECT_MS 20.0   /* event loop lag, p99 */

static const agg_timer *health_timer(const agg *a, const char *name) {
    for (int i = 0; i < a->n; i++)
        if (a->timers[i]->kind == TK_ENGINE && strcmp(a->timers[i]->name, name) == 0) return a->timers[i];
    return NULL;
}

static int64_t health_counter(const agg *a, const char *name, int k) {
    const agg_counter *c = agg_find_counter(a, name);
    return c && k < c->nrows ? c->rows[k] : 0;
}

int report_health(const run_result *r, health_row **out, int *suspect, char *why, size_t why_len) {
    const agg *a = &r->agg;
    const agg_timer *lag = health_timer(a, "engine.loop_lag"), *sched = health_timer(a, "engine.schedule_lag");
    const agg_timer *all = agg_all(a);
    int n = all ? all->nrows : (lag ? lag->nrows : 0);
    *out = calloc((size_t)n + 1, sizeof **out);
    *suspect = 0;
    why[0] = 0;
    for (int k = 0; k < n; k++) {
        health_row *h = &(*out)[k];
        double period = all ? all->rows[k].period_s : (double)a->interval_ns / 1e9;
        h->cpu_pct = period > 0 ? 100.0 * (double)health_counter(a, "engine.cpu_us", k) / (period * 1e6 * r->nworkers) : 0;
        if (lag && k < lag->nrows) {
            h->lag_p99_ms = report_ms((double)lag->rows[k].p99_us);
            h->lag_max_ms = report_ms((double)lag->rows[k].max_us);
        }
        if (sched && k < sched->nrows) h->sched_p99_ms = report_ms((double)sched->rows[k].p99_us);
        h->late = health_counter(a, "engine.late_starts", k);
        h->skipped = health_counter(a, "engine.skipped_starts", k);
        const char *reason = h->cpu_pct > HEALTH_CPU_SUSPECT ? "generator CPU above 90%"
                           : h->lag_p99_ms > HEALTH_LAG_SUSPECT_MS ? "event loop lag p99 above 20 ms" : NULL;
        if (reason) {
            size_t used = strlen(why);
            snprintf(why + used, why_len - used, "%sinterval %d: %s", used ? "; " : "", k + 1, reason);
            *suspect = 1;
        }
    }
    return n;
}

void report_health_table(FILE *out, const run_result *r) {
    health_row *h;
    int suspect;
    char why[1024];
    int n = report_health(r, &h, &suspect, why, sizeof why);
    fprintf(out, "\nGenerator health (per interval)\n\n%-10s %8s %14s %14s %16s %8s %8s\n", "interval", "cpu %",
            "loop lag p99", "loop lag max", "sched lag p99", "late", "skipped");
    for (int k = 0; k < n; k++)
        fprintf(out, "%-10d %8.1f %11.3f ms %11.3f ms %13.3f ms %8lld %8lld\n", k + 1, h[k].cpu_pct,
                h[k].lag_p99_ms, h[k].lag_max_ms, h[k].sched_p99_ms, (long long)h[k].late, (long long)h[k].skipped);
    if (suspect)
        fprintf(out, "\nWARNING: the generator may have been the bottleneck (%s); the results are marked "
                     "suspect: use more --workers, fewer VUs, or another machine.\n", why);
    free(h);
}
