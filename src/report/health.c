/* health.c - generator health per interval: CPU use of the workers, event
 * loop lag, dispatch delay (how long completions waited for their VU to be
 * resumed), schedule lag of paced and rate starts, late and skipped starts;
 * and whether the generator itself may have been the bottleneck (then the
 * results are marked suspect, with by how much its own delays may have
 * inflated the latencies).  Also the run's own health: transactions still
 * in flight at the end (a server that never answered) and runs that
 * completed none, and the list of the end report's warnings for
 * summary.json.  It reads the run's timers and counters only, and judges
 * nothing: no exit code changes. */
#include "report/console.h"
#include "report/derived.h"
#include "report/results.h"
#include "report/view.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"

#define HEALTH_CPU_SUSPECT 90.0      /* percent of the workers' CPUs */
#define HEALTH_LAG_SUSPECT_MS 20.0   /* event loop lag, p99 */
#define HEALTH_INFLATION_SUSPECT_PCT 10.0   /* dispatch delay per transaction, % of its mean latency */
#define HEALTH_INFLATION_FLOOR_MS 0.05      /* ... and at least this much */
#define HEALTH_CPU_WAIT_SUSPECT 10.0        /* workers waiting for a CPU, % of the interval */

static const agg_timer *health_timer(const agg *a, const char *name) {
    for (int i = 0; i < a->n; i++)
        if (a->timers[i]->kind == TK_ENGINE && strcmp(a->timers[i]->name, name) == 0) return a->timers[i];
    return NULL;
}

static int64_t health_counter(const agg *a, const char *name, int k) {
    const agg_counter *c = agg_find_counter(a, name);
    return c && k < c->nrows ? c->rows[k] : 0;
}

/* The transactions' latency as measured from their actual start. */
static const agg_timer *health_tx_timer(const agg *a) {
    const agg_timer *all = agg_all(a);
    return all && all->uncorrected ? all->uncorrected : all;
}

/* Dispatch delay summed over n transactions of mean latency avg_us. */
static void health_share(const agg_row *disp, const agg_row *tx, double *ms, double *pct) {
    *ms = *pct = 0;
    if (!disp || !tx || tx->count <= 0) return;
    double sum_us = disp->avg_us * (double)(disp->count - disp->errors);
    *ms = report_ms(sum_us / (double)tx->count);
    *pct = tx->avg_us > 0 ? 100.0 * sum_us / (double)tx->count / tx->avg_us : 0;
}

void report_health_inflation(const run_result *r, double *ms, double *pct) {
    const agg_timer *disp = health_timer(&r->agg, "engine.dispatch_delay"), *tx = health_tx_timer(&r->agg);
    agg_row d, t;
    *ms = *pct = 0;
    if (!disp || !tx) return;
    agg_row_fill(&d, &disp->total, disp->total_errors, 0);
    agg_row_fill(&t, &tx->total, tx->total_errors, 0);
    health_share(&d, &t, ms, pct);
}

static void health_dispatch(const agg *a, int k, health_row *h) {
    const agg_timer *disp = health_timer(a, "engine.dispatch_delay"), *tx = health_tx_timer(a);
    if (!disp || k >= disp->nrows) return;
    const agg_row *d = &disp->rows[k];
    h->dispatch_count = d->count;
    h->dispatch_p50_ms = report_ms((double)d->p50_us);
    h->dispatch_p99_ms = report_ms((double)d->p99_us);
    h->dispatch_max_ms = report_ms((double)d->max_us);
    health_share(d, tx && k < tx->nrows ? &tx->rows[k] : NULL, &h->inflation_ms, &h->inflation_pct);
}

/* Why interval k makes the run suspect ("; "-separated), written into buf;
 * 0 when it does not. */
static int health_reason(const health_row *h, char *buf, size_t len) {
    int n = 0;
    buf[0] = 0;
    if (h->cpu_pct > HEALTH_CPU_SUSPECT) n += snprintf(buf, len, "generator CPU above 90%%");
    if (h->lag_p99_ms > HEALTH_LAG_SUSPECT_MS && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, "%sevent loop lag p99 above 20 ms", n ? ", " : "");
    if (h->cpu_wait_pct >= HEALTH_CPU_WAIT_SUSPECT && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, "%sworkers waited for a CPU %.0f%% of the time", n ? ", " : "",
                      h->cpu_wait_pct);
    if (h->inflation_pct >= HEALTH_INFLATION_SUSPECT_PCT && h->inflation_ms >= HEALTH_INFLATION_FLOOR_MS &&
        (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, "%sdispatch delay %.3f ms per transaction, %.0f%% of its mean latency",
                      n ? ", " : "", h->inflation_ms, h->inflation_pct);
    return n > 0;
}

int report_health(const run_result *r, health_row **out, int *suspect, char *why, size_t why_len) {
    report_trace_eval(r, "health");
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
        int workers = r->workers_at && k < r->nworkers_at ? r->workers_at[k] : r->nworkers;
        double worker_us = period * 1e6 * workers;
        h->cpu_pct = worker_us > 0 ? 100.0 * (double)health_counter(a, "engine.cpu_us", k) / worker_us : 0;
        h->cpu_wait_pct = worker_us > 0 ? 100.0 * (double)health_counter(a, "engine.cpu_wait_us", k) / worker_us : 0;
        if (lag && k < lag->nrows) {
            h->lag_p99_ms = report_ms((double)lag->rows[k].p99_us);
            h->lag_max_ms = report_ms((double)lag->rows[k].max_us);
        }
        if (sched && k < sched->nrows) h->sched_p99_ms = report_ms((double)sched->rows[k].p99_us);
        h->late = health_counter(a, "engine.late_starts", k);
        h->skipped = health_counter(a, "engine.skipped_starts", k);
        health_dispatch(a, k, h);
        char reason[256];
        if (health_reason(h, reason, sizeof reason)) {
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
    fprintf(out, "\nGenerator health (per interval)\n\n%-10s %8s %10s %14s %14s %14s %14s %16s %8s %8s\n",
            "interval", "cpu %", "cpu wait %", "loop lag p99", "loop lag max", "dispatch p99", "inflation/tx",
            "sched lag p99", "late", "skipped");
    for (int k = 0; k < n; k++)
        fprintf(out, "%-10d %8.1f %10.1f %11.3f ms %11.3f ms %11.3f ms %8.3f ms %3.0f%% %13.3f ms %8lld %8lld\n",
                k + 1, h[k].cpu_pct, h[k].cpu_wait_pct, h[k].lag_p99_ms, h[k].lag_max_ms, h[k].dispatch_p99_ms,
                h[k].inflation_ms,
                h[k].inflation_pct, h[k].sched_p99_ms, (long long)h[k].late, (long long)h[k].skipped);
    double ms, pct;
    report_health_inflation(r, &ms, &pct);
    fprintf(out, "\ndispatch delay: completions waited %.3f ms per transaction for the generator's loop (%.1f%% of "
                 "the mean transaction latency): the latencies may be inflated by about that much.\n", ms, pct);
    if (suspect)
        fprintf(out, "\nWARNING: the generator may have been the bottleneck (%s); the results are marked "
                     "suspect: use more --workers, fewer VUs, or another machine.\n", why);
    free(h);
}

int report_unfinished(const run_result *r, int64_t *in_flight, int *none, char *buf, size_t len) {
    const agg_timer *all = agg_all(&r->agg);
    *in_flight = all ? all->total_cancelled : 0;
    *none = (all ? all->total.total + all->total_errors : 0) == 0;
    buf[0] = 0;
    if (r->status == RUN_ABORTED || (!*in_flight && !*none)) return 0;
    if (*in_flight)
        snprintf(buf, len, "%lld transaction(s) were still in flight when the run ended: cut short, not in "
                 "transactions, their latency unknown (a server that never answered? a timeout longer than "
                 "run time + graceful_stop?)%s", (long long)*in_flight, *none ? "; no transaction completed" : "");
    else snprintf(buf, len, "no transaction completed in this run: its rates and latencies describe nothing");
    return 1;
}

void report_unfinished_console(FILE *out, const run_result *r, int pad) {
    int64_t n;
    int none;
    char buf[512];
    if (report_unfinished(r, &n, &none, buf, sizeof buf)) fprintf(out, "WARNING:%*s%s\n", pad, "", buf);
}

/* One warning of summary.json's list. */
static void health_warning(json_t *arr, const char *kind, const char *text) {
    char buf[1024];
    json_t *o = json_pack("{s:s,s:s}", "kind", kind, "text", text_clean(text, buf, sizeof buf));
    if (o) json_array_append_new(arr, o);
}

struct json_t *report_warnings_json(const scenario *sc, const run_result *r, int final, int suspect,
                                    const char *why) {
    json_t *arr = json_array();
    if (!arr) return NULL;
    int64_t n;
    int none;
    char buf[1024];
    if (final && report_unfinished(r, &n, &none, buf, sizeof buf)) {
        health_warning(arr, n ? "in_flight" : "no_transactions", buf);
        json_t *last = json_array_get(arr, json_array_size(arr) - 1);
        json_object_set_new(last, "in_flight", json_integer(n));
        const agg_timer *all = agg_all(&r->agg);
        json_object_set_new(last, "transactions", json_integer(all ? all->total.total + all->total_errors : 0));
    }
    report_fastfail ff;
    if (report_fast_failures(sc, r, &ff)) health_warning(arr, "fast_failures", ff.text);
    if (suspect) {
        char text[1200];
        snprintf(text, sizeof text, "the generator may have been the bottleneck (%s)", why ? why : "");
        health_warning(arr, "generator", text);
    }
    if (r->agg.overflow_name) {
        char text[1200];
        snprintf(text, sizeof text, "more than max_timers = %d distinct timer names: \"%s\" and every later new "
                 "name were counted under \"%s\"", r->agg.max_timers, r->agg.overflow_name,
                 r->agg.overflow_kind == TK_PRIMITIVE ? STATS_OTHER_PRIMITIVE : STATS_OTHER_CUSTOM);
        health_warning(arr, "timer_overflow", text);
    }
    return arr;
}
