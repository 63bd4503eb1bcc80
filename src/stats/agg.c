/* agg.c - lockstep merge of worker ticks into intervals and run totals; see
 * agg.h.  Runs in the main thread only; never sees a socket or Lua. */
#include "stats/agg.h"

#include <stdlib.h>
#include <string.h>

void agg_init(agg *a, int nworkers, int64_t interval_ns, int64_t tick_ns) {
    memset(a, 0, sizeof *a);
    a->nworkers = nworkers;
    a->interval_ns = interval_ns;
    a->tick_ns = tick_ns;
    a->ticks_per_interval = interval_ns / tick_ns;
    a->head = calloc((size_t)nworkers, sizeof *a->head);
    a->tail = calloc((size_t)nworkers, sizeof *a->tail);
    a->finished = calloc((size_t)nworkers, sizeof *a->finished);
    tally_init(&a->errors, 1000);
    tally_init(&a->req_errors, 1000);
}

agg_timer *agg_find(const agg *a, const char *name) {
    for (int i = 0; i < a->n; i++)
        if (strcmp(a->timers[i]->name, name) == 0) return a->timers[i];
    return NULL;
}

static agg_timer *agg_timer_get(agg *a, const char *name, timer_kind kind) {
    for (int i = 0; i < a->n; i++)
        if (a->timers[i]->kind == kind && strcmp(a->timers[i]->name, name) == 0) return a->timers[i];
    agg_timer *t;
    t = calloc(1, sizeof *t);
    t->name = strdup(name);
    t->kind = kind;
    hist_init(&t->total);
    hist_init(&t->interval);
    hist_init(&t->recent);
    t->nrows = a->nintervals;               /* earlier intervals were empty */
    t->rows = calloc((size_t)(t->nrows + 1), sizeof *t->rows);
    for (int i = 0; i < t->nrows; i++)
        t->rows[i].period_s = (double)a->interval_ns / 1e9;
    if (a->n == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 16;
        a->timers = realloc(a->timers, (size_t)a->cap * sizeof *a->timers);
    }
    a->timers[a->n++] = t;
    return t;
}

agg_timer *agg_all(const agg *a) {
    for (int i = 0; i < a->n; i++)
        if (a->timers[i]->kind == TK_ALL) return a->timers[i];
    return NULL;
}

agg_counter *agg_find_counter(const agg *a, const char *name) {
    for (int i = 0; i < a->ncounters; i++)
        if (strcmp(a->counters[i]->name, name) == 0) return a->counters[i];
    return NULL;
}

static agg_counter *agg_counter_get(agg *a, const char *name) {
    agg_counter *c = agg_find_counter(a, name);
    if (c) return c;
    c = calloc(1, sizeof *c);
    c->name = strdup(name);
    c->nrows = a->nintervals;               /* zero in earlier intervals */
    c->rows = calloc((size_t)(c->nrows + 1), sizeof *c->rows);
    if (a->ncounters == a->cap_counters) {
        a->cap_counters = a->cap_counters ? a->cap_counters * 2 : 16;
        a->counters = realloc(a->counters, (size_t)a->cap_counters * sizeof *a->counters);
    }
    a->counters[a->ncounters++] = c;
    return c;
}

void agg_row_fill(agg_row *r, const hist *h, int64_t errors, double period_s) {
    memset(r, 0, sizeof *r);
    r->count = h->total + errors;
    r->errors = errors;
    r->period_s = period_s;
    r->rate = period_s > 0 ? (double)r->count / period_s : 0;
    r->min_us = hist_min_us(h);
    r->max_us = hist_max_us(h);
    r->p50_us = hist_percentile_us(h, 50);
    r->p80_us = hist_percentile_us(h, 80);
    r->p90_us = hist_percentile_us(h, 90);
    r->p95_us = hist_percentile_us(h, 95);
    r->p99_us = hist_percentile_us(h, 99);
    r->p999_us = hist_percentile_us(h, 99.9);
    r->avg_us = hist_mean_us(h);
    r->stdev_us = hist_stdev_us(h);
}

static void agg_close_interval(agg *a, double period_s) {
    for (int i = 0; i < a->n; i++) {
        agg_timer *t = a->timers[i];
        if (a->on_hist)
            a->on_hist(a->on_hist_ctx, t, a->nintervals, (double)a->nintervals * (double)a->interval_ns / 1e9,
                       period_s, &t->interval);
        t->rows = realloc(t->rows, (size_t)(t->nrows + 1) * sizeof *t->rows);
        agg_row_fill(&t->rows[t->nrows++], &t->interval, t->interval_errors, period_s);
        hist_reset(&t->interval);
        t->interval_errors = 0;
    }
    for (int i = 0; i < a->ncounters; i++) {
        agg_counter *c = a->counters[i];
        c->rows = realloc(c->rows, (size_t)(c->nrows + 1) * sizeof *c->rows);
        c->rows[c->nrows++] = c->interval;
        c->interval = 0;
    }
    a->nintervals++;
}

static void agg_merge_msg(agg *a, const tick_msg *m) {
    for (int i = 0; i < m->n; i++) {
        const tick_timer *tt = &m->timers[i];
        agg_timer *t = agg_timer_get(a, tt->name, tt->kind);
        if (tt->h) {
            hist_merge(&t->total, tt->h);
            hist_merge(&t->interval, tt->h);
            hist_merge(&t->recent, tt->h);
        }
        t->total_errors += tt->errors;
        t->interval_errors += tt->errors;
        t->recent_errors += tt->errors;
    }
    for (int i = 0; i < m->ncounters; i++) {
        agg_counter *c = agg_counter_get(a, m->counters[i].name);
        c->total += m->counters[i].value;
        c->interval += m->counters[i].value;
    }
    tally_merge(&a->errors, &m->errors);
    tally_merge(&a->req_errors, &m->req_errors);
}

/* 1 when every worker has tick `tick` queued or has finished. */
static int agg_tick_ready(const agg *a, int64_t tick) {
    int any = 0;
    for (int w = 0; w < a->nworkers; w++) {
        if (a->head[w] && a->head[w]->tick == tick) { any = 1; continue; }
        if (!(a->finished[w] && !a->head[w])) return 0;
    }
    return any;
}

static int agg_all_finished(const agg *a) {
    for (int w = 0; w < a->nworkers; w++)
        if (!a->finished[w]) return 0;
    return 1;
}

static int agg_merge_ready(agg *a) {
    int closed = 0;
    while (agg_tick_ready(a, a->next_tick)) {
        for (int i = 0; i < a->n; i++) {
            hist_reset(&a->timers[i]->recent);
            a->timers[i]->recent_errors = 0;
        }
        a->active_vus = a->started_vus = 0;
        for (int w = 0; w < a->nworkers; w++) {
            tick_msg *m = a->head[w];
            if (!m || m->tick != a->next_tick) continue;
            agg_merge_msg(a, m);
            a->active_vus += m->active_vus;
            a->started_vus += m->started_vus;
            if (m->final) a->finished[w] = 1;
            a->head[w] = m->next;
            if (!a->head[w]) a->tail[w] = NULL;
            tick_msg_free(m);
        }
        a->next_tick++;
        /* When every worker has finished, agg_finish closes the last
         * interval with its true length. */
        if (a->next_tick % a->ticks_per_interval == 0 && !agg_all_finished(a)) {
            agg_close_interval(a, (double)a->interval_ns / 1e9);
            closed++;
        }
    }
    return closed;
}

int agg_push(agg *a, tick_msg *m) {
    int w = m->worker;
    m->next = NULL;
    if (a->tail[w]) a->tail[w]->next = m;
    else a->head[w] = m;
    a->tail[w] = m;
    return agg_merge_ready(a);
}

static int agg_open_has_data(const agg *a) {
    for (int i = 0; i < a->n; i++)
        if (a->timers[i]->interval.total || a->timers[i]->interval_errors) return 1;
    for (int i = 0; i < a->ncounters; i++)
        if (a->counters[i]->interval) return 1;
    return 0;
}

int64_t agg_finish_span(agg *a, int64_t run_ns, int64_t span_ns) {
    for (int w = 0; w < a->nworkers; w++) a->finished[w] = 1;
    agg_merge_ready(a);
    /* Anything still queued (a worker that never finished) is merged now. */
    for (int w = 0; w < a->nworkers; w++)
        while (a->head[w]) {
            tick_msg *m = a->head[w];
            a->head[w] = m->next;
            agg_merge_msg(a, m);
            tick_msg_free(m);
        }
    int64_t closed_ns = (int64_t)a->nintervals * a->interval_ns;
    int has_data = agg_open_has_data(a);
    if (span_ns < run_ns) span_ns = run_ns;
    /* A stop that lands on an interval boundary leaves the samples of the
     * drain in one more interval, from the stop to the end of the drain (or,
     * without a known drain, as long as the ticks they came in). */
    if (run_ns <= closed_ns && has_data && span_ns <= closed_ns) span_ns = a->next_tick * a->tick_ns;
    if (run_ns > closed_ns || (has_data && span_ns > closed_ns) || a->nintervals == 0) {
        agg_close_interval(a, (double)(span_ns - closed_ns) / 1e9);
        return span_ns;
    }
    return closed_ns;
}

void agg_finish(agg *a, int64_t run_ns) { agg_finish_span(a, run_ns, run_ns); }

void agg_free(agg *a) {
    for (int w = 0; w < a->nworkers; w++)
        while (a->head[w]) {
            tick_msg *m = a->head[w];
            a->head[w] = m->next;
            tick_msg_free(m);
        }
    for (int i = 0; i < a->n; i++) {
        free(a->timers[i]->name);
        free(a->timers[i]->rows);
        free(a->timers[i]);
    }
    free(a->timers);
    for (int i = 0; i < a->ncounters; i++) {
        free(a->counters[i]->name);
        free(a->counters[i]->rows);
        free(a->counters[i]);
    }
    free(a->counters);
    free(a->head);
    free(a->tail);
    free(a->finished);
    tally_free(&a->errors);
    tally_free(&a->req_errors);
    memset(a, 0, sizeof *a);
}
