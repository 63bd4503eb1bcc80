/* agg.c - lockstep merge of worker ticks into intervals and run totals; see
 * agg.h.  Keeps beside each timer its "(all)" twin (every sample, failed,
 * cancelled and skipped ones included) and caps distinct custom and
 * primitive names run-wide (past the cap: an "(other ...)" bucket).  Runs in
 * the main thread only; never sees a socket or Lua. */
#include "stats/agg.h"
#include "stats/figures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void agg_key(const void *ctx, int id, const char **name, int *kind) {
    const agg *a = ctx;
    *name = a->timers[id]->name;
    *kind = (int)a->timers[id]->kind;
}

void agg_init(agg *a, int nworkers, int64_t interval_ns, int64_t tick_ns) {
    memset(a, 0, sizeof *a);
    names_init(&a->index, agg_key);
    a->max_timers = STATS_MAX_TIMERS;
    a->nworkers = nworkers;
    a->interval_ns = interval_ns;
    a->tick_ns = tick_ns;
    /* never a division by 0, whatever a caller (a crafted segment) passes */
    a->ticks_per_interval = tick_ns > 0 && interval_ns >= tick_ns ? interval_ns / tick_ns : 1;
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

static agg_timer *agg_timer_new(agg *a, const char *name, timer_kind kind, timer_role role) {
    if (a->n == a->cap) {
        int cap = a->cap ? a->cap * 2 : 16;
        agg_timer **ts = realloc(a->timers, (size_t)cap * sizeof *ts);
        if (!ts) return NULL;
        a->timers = ts;
        a->cap = cap;
    }
    agg_timer *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->name = strdup(name);
    t->kind = kind;
    t->role = role;
    t->group = -1;
    t->nrows = a->nintervals;               /* earlier intervals were empty */
    t->cap_rows = t->nrows + 16;
    t->rows = calloc((size_t)t->cap_rows, sizeof *t->rows);
    a->timers[a->n] = t;
    if (!t->name || !t->rows || names_add(&a->index, a, a->n) != 0) {
        free(t->name);
        free(t->rows);
        free(t);
        return NULL;
    }
    a->n++;
    hist_init(&t->total);
    hist_init(&t->interval);
    hist_init(&t->recent);
    for (int i = 0; i < t->nrows; i++)
        t->rows[i].period_s = (double)a->interval_ns / 1e9;
    return t;
}

/* Its "(all)" twin, for timers that can fail (not twins, not engine timers). */
static void agg_add_all_twin(agg *a, agg_timer *t) {
    if (t->role == TR_TWIN || t->kind == TK_ENGINE) return;
    size_t len = strlen(t->name) + sizeof " (all)";
    char *name = malloc(len);
    if (!name) return;
    agg_view_label(t, TV_ALL, name, len);
    t->all = agg_timer_new(a, name, t->kind, TR_TWIN);
    if (t->all) t->all->of = t;
    if (t->all) t->all->group = t->group, t->all->stage = t->stage;
    free(name);
}

static agg_timer *agg_timer_get(agg *a, const char *name, timer_kind kind, timer_role role);

/* A name past the cap: its kind's "(other ...)" bucket; the first such name
 * is kept for the report. */
static agg_timer *agg_overflow(agg *a, const char *name, timer_kind kind) {
    if (!a->overflow_name) {
        a->overflow_name = strdup(name);
        a->overflow_kind = kind;
    }
    return agg_timer_get(a, kind == TK_PRIMITIVE ? STATS_OTHER_PRIMITIVE : STATS_OTHER_CUSTOM, kind, TR_OTHER);
}

static agg_timer *agg_timer_get(agg *a, const char *name, timer_kind kind, timer_role role) {
    int id = names_find(&a->index, a, name, (int)kind);
    if (id >= 0) return a->timers[id];
    int capped = role == TR_NAMED && (kind == TK_CUSTOM || kind == TK_PRIMITIVE);
    if (capped && a->ncapped >= a->max_timers) return agg_overflow(a, name, kind);
    agg_timer *t = agg_timer_new(a, name, kind, role);
    if (!t) return capped ? agg_overflow(a, name, kind) : NULL;
    a->ncapped += capped;
    agg_add_all_twin(a, t);
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

/* NULL when out of memory (the counter's counts are lost). */
static agg_counter *agg_counter_get(agg *a, const char *name, counter_kind kind) {
    agg_counter *c = agg_find_counter(a, name);
    if (c) return c;
    if (a->ncounters == a->cap_counters) {
        int cap = a->cap_counters ? a->cap_counters * 2 : 16;
        agg_counter **cs = realloc(a->counters, (size_t)cap * sizeof *cs);
        if (!cs) return NULL;
        a->counters = cs;
        a->cap_counters = cap;
    }
    c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->name = strdup(name);
    c->kind = kind;
    const char *pre = counter_kind_prefix(kind);   /* the maker put it there (never absent) */
    if (c->name) c->base = strncmp(c->name, pre, strlen(pre)) == 0 ? c->name + strlen(pre) : c->name;
    c->nrows = a->nintervals;               /* zero in earlier intervals */
    c->cap_rows = c->nrows + 16;
    c->rows = calloc((size_t)c->cap_rows, sizeof *c->rows);
    if (!c->name || !c->rows) {
        free(c->name);
        free(c->rows);
        free(c);
        return NULL;
    }
    a->counters[a->ncounters++] = c;
    return c;
}

/* Room for one more row in an array of *cap rows of size `size` (doubling,
 * so a long run reallocates log2(intervals) times, not once per interval);
 * 0 when out of memory. */
static int agg_rows_room(void **rows, int n, int *cap, size_t size) {
    if (n < *cap) return 1;
    int ncap = *cap ? *cap * 2 : 16;
    void *p = realloc(*rows, (size_t)ncap * size);
    if (!p) return 0;
    *rows = p;
    *cap = ncap;
    return 1;
}

void agg_row_fill(agg_row *r, const hist *h, int64_t errors, double period_s) {
    memset(r, 0, sizeof *r);
    r->count = h->total + errors;
    r->errors = errors + h->not_ok;
    r->sampled = h->total;
    r->period_s = period_s;
    r->rate = period_s > 0 ? (double)r->count / period_s : 0;
    figures_fill_row(r, h);
}

void agg_interval_bounds(const agg *a, int k, double *start_s, double *end_s) {
    double iv = (double)a->interval_ns / 1e9, len = iv;
    for (int i = 0; i < a->n; i++)          /* every timer's row k has the same period */
        if (k < a->timers[i]->nrows) {
            len = a->timers[i]->rows[k].period_s;
            break;
        }
    *start_s = k * iv;
    *end_s = *start_s + len;
}

int agg_timer_reported(const agg_timer *t) {
    return !t->of || t->of->total_errors || t->of->total_cancelled || t->of->total_skipped;
}

static const char *const agg_view_names[TV_N] = {"default", "uncorrected", "all"};

const char *timer_view_name(timer_view v) { return (unsigned)v < TV_N ? agg_view_names[v] : NULL; }

timer_view timer_view_parse(const char *name) {
    for (int v = 0; name && v < TV_N; v++)
        if (strcmp(name, agg_view_names[v]) == 0) return (timer_view)v;
    return TV_N;
}

const agg_timer *agg_head(const agg_timer *t) { return t->of ? t->of : t->twin_of ? t->twin_of : t; }

const agg_timer *agg_view(const agg_timer *head, timer_view v) {
    switch (v) {
    case TV_DEFAULT: return head;
    case TV_UNCORRECTED: return head->uncorrected;
    case TV_ALL: return head->all;
    default: return NULL;
    }
}

timer_view agg_view_of(const agg_timer *t) { return t->twin_of ? TV_UNCORRECTED : t->of ? TV_ALL : TV_DEFAULT; }

int agg_view_label(const agg_timer *head, timer_view v, char *buf, size_t len) {
    if (v == TV_DEFAULT || (unsigned)v >= TV_N) return snprintf(buf, len, "%s", head->name);
    return snprintf(buf, len, "%s (%s)", head->name, agg_view_names[v]);
}

void agg_timer_total_row(agg_row *r, const agg_timer *t, double run_s) {
    agg_row_fill(r, &t->total, t->total_errors, run_s);
    r->cancelled = t->total_cancelled;
    r->skipped = t->total_skipped;
}

static void agg_close_interval(agg *a, double period_s) {
    for (int i = 0; i < a->n; i++) {
        agg_timer *t = a->timers[i];
        if (a->on_hist)                     /* "(all)" twins too: the caller chooses */
            a->on_hist(a->on_hist_ctx, t, a->nintervals, (double)a->nintervals * (double)a->interval_ns / 1e9,
                       period_s, &t->interval);
        if (agg_rows_room((void **)&t->rows, t->nrows, &t->cap_rows, sizeof *t->rows)) {
            agg_row *r = &t->rows[t->nrows++];
            agg_row_fill(r, &t->interval, t->interval_errors, period_s);
            r->cancelled = t->interval_cancelled;
            r->skipped = t->interval_skipped;
        } else {
            a->rows_lost++;
        }
        /* a timer idle for a whole interval (a stage that has ended, a
         * name used once) gives its interval chunks back; a busy one keeps
         * them for the next interval */
        if (t->interval.total == 0) hist_free(&t->interval);
        else hist_reset(&t->interval);
        t->interval_errors = t->interval_cancelled = t->interval_skipped = 0;
    }
    for (int i = 0; i < a->ncounters; i++) {
        agg_counter *c = a->counters[i];
        if (agg_rows_room((void **)&c->rows, c->nrows, &c->cap_rows, sizeof *c->rows))
            c->rows[c->nrows++] = c->interval;
        else
            a->rows_lost++;
        c->interval = 0;
    }
    /* active VUs at the interval's end (outputs, report) */
    if (agg_rows_room((void **)&a->vus_rows, a->nrows_vus, &a->cap_vus, sizeof *a->vus_rows))
        a->vus_rows[a->nrows_vus++] = a->active_vus;
    else
        a->rows_lost++;
    a->nintervals++;
}

static void agg_merge_hist(agg_timer *t, const hist *h) {
    hist_merge(&t->total, h);
    hist_merge(&t->interval, h);
    if (t->kind == TK_ALL && !t->of) hist_merge(&t->recent, h);   /* the progress line's */
}

static void agg_merge_counts(agg_timer *t, const tick_timer *tt) {
    t->total_errors += tt->errors;
    t->interval_errors += tt->errors;
    t->recent_errors += tt->errors;
    t->total_cancelled += tt->cancelled;
    t->interval_cancelled += tt->cancelled;
    t->total_skipped += tt->skipped;
    t->interval_skipped += tt->skipped;
}

/* What the message says a timer is, beyond its name: its group and stage,
 * and for an "(uncorrected)" twin, which timer it is the twin of. */
static void agg_timer_tag(agg *a, agg_timer *t, const tick_msg *m, const tick_timer *tt) {
    if (t->group < 0 && tt->group >= 0) {
        t->group = tt->group;
        t->stage = tt->stage;
        if (t->all) t->all->group = tt->group, t->all->stage = tt->stage;
    }
    if (tt->tags && !t->tags) {
        t->tags = strdup(tt->tags);           /* NULL (out of memory): untagged */
        if (t->all && t->tags) t->all->tags = strdup(t->tags);
    }
    if (t->twin_of || tt->twin_of < 0) return;
    const tick_timer *bt = &m->timers[tt->twin_of];
    agg_timer *base = agg_timer_get(a, bt->name, bt->kind, bt->role);
    if (!base || base == t) return;
    t->twin_of = base;
    base->uncorrected = t;
}

static void agg_merge_msg(agg *a, const tick_msg *m) {
    if (m->overflow_name && !a->overflow_name) {
        a->overflow_name = strdup(m->overflow_name);
        a->overflow_kind = m->overflow_kind;
    }
    for (int i = 0; i < m->n; i++) {
        const tick_timer *tt = &m->timers[i];
        agg_timer *t = agg_timer_get(a, tt->name, tt->kind, tt->role);
        if (!t) continue;                   /* out of memory */
        agg_timer_tag(a, t, m, tt);
        if (tt->h) agg_merge_hist(t, tt->h);
        agg_merge_counts(t, tt);
        if (!t->all) continue;
        /* the "(all)" twin: every sample is in its histogram; its failed
         * ones are counted there (not_ok), so its errors stay 0 */
        if (tt->h) agg_merge_hist(t->all, tt->h);
        if (tt->nok) agg_merge_hist(t->all, tt->nok);
        t->all->total_cancelled += tt->cancelled;
        t->all->interval_cancelled += tt->cancelled;
        t->all->total_skipped += tt->skipped;
        t->all->interval_skipped += tt->skipped;
    }
    for (int i = 0; i < m->ncounters; i++) {
        agg_counter *c = agg_counter_get(a, m->counters[i].name, m->counters[i].kind);
        if (!c) continue;                   /* out of memory */
        c->total += m->counters[i].value;
        c->interval += m->counters[i].value;
    }
    tally_merge(&a->errors, &m->errors);
    tally_merge(&a->req_errors, &m->req_errors);
}

/* A merged message: handed back to its maker, or freed. */
static void agg_release(agg *a, tick_msg *m) {
    m->next = NULL;
    if (a->give_back) a->give_back(a->give_back_ctx, m);
    else tick_msg_free(m);
}

/* 1 when every worker has tick `tick` queued or has finished. */
static int agg_tick_ready(const agg *a, int64_t tick) {
    int any = 0;
    for (int w = 0; w < a->nworkers; w++) {
        /* (a message older than tick: samples recorded after a worker's
         * final tick, e.g. requests cancelled as it closed its clients) */
        if (a->head[w] && a->head[w]->tick <= tick) { any = 1; continue; }
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
            tick_msg *m;
            while ((m = a->head[w]) && m->tick <= a->next_tick) {
                agg_merge_msg(a, m);
                if (m->tick == a->next_tick) {
                    a->active_vus += m->active_vus;
                    a->started_vus += m->started_vus;
                }
                if (m->final) a->finished[w] = 1;
                a->head[w] = m->next;
                if (!a->head[w]) a->tail[w] = NULL;
                agg_release(a, m);
            }
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

int agg_open_has_data(const agg *a) {
    for (int i = 0; i < a->n; i++)
        if (a->timers[i]->interval.total || a->timers[i]->interval_errors ||
            a->timers[i]->interval_cancelled || a->timers[i]->interval_skipped) return 1;
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
            agg_release(a, m);
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
        free(a->timers[i]->tags);
        free(a->timers[i]->rows);
        hist_free(&a->timers[i]->total);
        hist_free(&a->timers[i]->interval);
        hist_free(&a->timers[i]->recent);
        free(a->timers[i]);
    }
    free(a->timers);
    names_free(&a->index);
    free(a->overflow_name);
    for (int i = 0; i < a->ncounters; i++) {
        free(a->counters[i]->name);
        free(a->counters[i]->rows);
        free(a->counters[i]);
    }
    free(a->counters);
    free(a->vus_rows);
    free(a->head);
    free(a->tail);
    free(a->finished);
    tally_free(&a->errors);
    tally_free(&a->req_errors);
    memset(a, 0, sizeof *a);
}
