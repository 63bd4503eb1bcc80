/* local.c - worker-local per-tick statistics; see local.h.  The record path
 * touches only the worker's own memory: no locks; it allocates only for a
 * timer's first sample of a tick (one histogram, handed over in the tick's
 * message) and when that histogram meets a new sub-range.  Timer names are
 * found through a hash index, and distinct custom and primitive names are
 * capped (past the cap: an "(other ...)" bucket).  No I/O. */
#include "stats/local.h"

#include <stdio.h>
#include <assert.h>
#include <stdlib.h>
#include <string.h>

const char *timer_kind_name(timer_kind k) {
    static const char *const names[] = {"all", "group", "custom", "primitive", "engine", "stage"};
    return (unsigned)k < 6 ? names[k] : "?";
}

static void stats_key(const void *ctx, int id, const char **name, int *kind) {
    const stats_local *s = ctx;
    *name = s->timers[id].name;
    *kind = (int)s->timers[id].kind;
}

/* Append a timer and index it; -1 when out of memory. */
static int stats_add_timer(stats_local *s, const char *name, timer_kind kind, timer_role role) {
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 16;
        stat_timer *t = realloc(s->timers, (size_t)cap * sizeof *t);
        if (!t) return -1;
        s->timers = t;
        s->cap = cap;
    }
    stat_timer *t = &s->timers[s->n];
    memset(t, 0, sizeof *t);
    t->name = strdup(name);
    if (!t->name) return -1;
    t->kind = kind;
    t->role = role;
    t->twin = t->twin_of = t->group = t->msg_idx = -1;
    if (names_add(&s->index, s, s->n) != 0) {
        free(t->name);
        return -1;
    }
    return s->n++;
}

int stats_local_init(stats_local *s) {
    memset(s, 0, sizeof *s);
    names_init(&s->index, stats_key);
    s->max_timers = STATS_MAX_TIMERS;
    tally_init(&s->errors, 256);
    tally_init(&s->req_errors, 256);
    s->other_id[0] = stats_add_timer(s, STATS_OTHER_CUSTOM, TK_CUSTOM, TR_OTHER);
    s->other_id[1] = stats_add_timer(s, STATS_OTHER_PRIMITIVE, TK_PRIMITIVE, TR_OTHER);
    return s->other_id[0] < 0 || s->other_id[1] < 0 ? -1 : 0;
}

static int stats_capped(timer_kind kind) { return kind == TK_CUSTOM || kind == TK_PRIMITIVE; }

/* The bucket for a name that gets no timer of its own. */
static int stats_other(stats_local *s, const char *name, timer_kind kind) {
    if (!s->overflow_name && !s->overflow_sent && stats_capped(kind)) {
        s->overflow_name = strdup(name);
        s->overflow_kind = kind;
    }
    return s->other_id[kind == TK_PRIMITIVE];
}

int stats_timer_id(stats_local *s, const char *name, timer_kind kind) {
    int id = names_find(&s->index, s, name, (int)kind);
    if (id >= 0) return id;
    int capped = stats_capped(kind);
    if (capped && s->ncapped >= s->max_timers) return stats_other(s, name, kind);
    id = stats_add_timer(s, name, kind, TR_NAMED);
    if (id < 0) return s->other_id[kind == TK_PRIMITIVE];   /* out of memory: counted, unnamed */
    s->ncapped += capped;
    return id;
}

int stats_group_timer_id(stats_local *s, const char *name, timer_kind kind, int group, int stage) {
    assert(kind == TK_GROUP || kind == TK_STAGE);
    assert(group >= 0 && (kind == TK_STAGE) == (stage > 0));
    int id = stats_timer_id(s, name, kind);   /* never capped: always its own */
    s->timers[id].group = group;
    s->timers[id].stage = stage;
    return id;
}

int stats_twin_id(stats_local *s, int tid) {
    if (s->timers[tid].twin >= 0) return s->timers[tid].twin;
    size_t len = strlen(s->timers[tid].name) + sizeof " (uncorrected)";
    char *name = malloc(len);
    if (!name) return tid;
    snprintf(name, len, "%s (uncorrected)", s->timers[tid].name);
    timer_kind kind = s->timers[tid].kind;
    int twin = names_find(&s->index, s, name, (int)kind);
    if (twin < 0) twin = stats_add_timer(s, name, kind, TR_TWIN);
    free(name);
    if (twin < 0) return tid;
    s->timers[tid].twin = twin;      /* after the call: it may move the array */
    s->timers[twin].twin_of = tid;
    s->timers[twin].group = s->timers[tid].group;
    s->timers[twin].stage = s->timers[tid].stage;
    return twin;
}

int stats_counter_id(stats_local *s, const char *name) {
    for (int i = 0; i < s->ncounters; i++)
        if (strcmp(s->counters[i].name, name) == 0) return i;
    if (s->ncounters == s->cap_counters) {
        int cap = s->cap_counters ? s->cap_counters * 2 : 16;
        stat_counter *c = realloc(s->counters, (size_t)cap * sizeof *c);
        if (!c) return 0;
        s->counters = c;
        s->cap_counters = cap;
    }
    s->counters[s->ncounters].name = strdup(name);
    s->counters[s->ncounters].value = 0;
    s->counters[s->ncounters].announce = 0;
    return s->ncounters++;
}

static hist *stats_hist_new(void) {
    hist *h = malloc(sizeof *h);
    if (h) hist_init(h);
    return h;
}

void stats_record(stats_local *s, int id, int64_t dur_ns, int ok) {
    stat_timer *t = &s->timers[id];
    int64_t us = (dur_ns + 500) / 1000;
    if (ok == SAMPLE_OK) {
        if (!t->h && !(t->h = stats_hist_new())) return;
        hist_record_us(t->h, us);
        return;
    }
    if (ok == SAMPLE_CANCELLED) t->cancelled++;
    else t->errors++;
    if (!t->nok && !(t->nok = stats_hist_new())) return;
    hist_record_us(t->nok, us);
    t->nok->not_ok += ok != SAMPLE_CANCELLED;
}

void stats_skipped(stats_local *s, int id, int64_t wait_ns, int64_t n) {
    stat_timer *t = &s->timers[id];
    t->skipped += n;
    if (!t->nok && !(t->nok = stats_hist_new())) return;
    hist_record_n_us(t->nok, (wait_ns + 500) / 1000, n);
}

void stats_error(stats_local *s, const char *msg, size_t len) {
    tally_add(&s->errors, msg, len, 1);
}

void stats_req_error(stats_local *s, const char *msg, size_t len) {
    tally_add(&s->req_errors, msg, len, 1);
}

static int stats_has_data(const stat_timer *t) {
    return t->h || t->nok || t->errors || t->cancelled || t->skipped;
}

tick_msg *stats_local_flush(stats_local *s, int worker, int64_t tick) {
    tick_msg *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->worker = worker;
    m->tick = tick;
    m->timers = calloc((size_t)(s->n ? s->n : 1), sizeof *m->timers);
    for (int i = 0; m->timers && i < s->n; i++) {
        stat_timer *t = &s->timers[i];
        t->msg_idx = -1;
        if (!stats_has_data(t)) continue;
        char *name = strdup(t->name);
        if (!name) continue;                 /* out of memory: stays for the next tick */
        /* a twin's timer has a smaller id: already placed, when it has data */
        assert(t->twin_of < i);
        int of = t->twin_of >= 0 ? s->timers[t->twin_of].msg_idx : -1;
        t->msg_idx = m->n;
        tick_timer *o = &m->timers[m->n++];
        *o = (tick_timer){.name = name, .kind = t->kind, .role = t->role, .twin_of = of,
                          .group = t->group, .stage = t->stage, .h = t->h, .nok = t->nok,
                          .errors = t->errors, .cancelled = t->cancelled, .skipped = t->skipped};
        t->h = t->nok = NULL;
        t->errors = t->cancelled = t->skipped = 0;
    }
    m->counters = calloc((size_t)(s->ncounters ? s->ncounters : 1), sizeof *m->counters);
    for (int i = 0; m->counters && i < s->ncounters; i++) {
        if (!s->counters[i].value && !s->counters[i].announce) continue;
        s->counters[i].announce = 0;
        m->counters[m->ncounters].name = strdup(s->counters[i].name);
        m->counters[m->ncounters++].value = s->counters[i].value;
        s->counters[i].value = 0;
    }
    if (s->overflow_name && !s->overflow_sent) {
        m->overflow_name = s->overflow_name;
        m->overflow_kind = s->overflow_kind;
        s->overflow_name = NULL;
        s->overflow_sent = 1;
    }
    m->errors = s->errors;              /* hand over the tables, start new ones */
    tally_init(&s->errors, 256);
    m->req_errors = s->req_errors;
    tally_init(&s->req_errors, 256);
    return m;
}

static void stats_hist_free(hist *h) {
    if (!h) return;
    hist_free(h);
    free(h);
}

void stats_local_free(stats_local *s) {
    for (int i = 0; i < s->n; i++) {
        free(s->timers[i].name);
        stats_hist_free(s->timers[i].h);
        stats_hist_free(s->timers[i].nok);
    }
    free(s->timers);
    names_free(&s->index);
    for (int i = 0; i < s->ncounters; i++) free(s->counters[i].name);
    free(s->counters);
    free(s->overflow_name);
    tally_free(&s->errors);
    tally_free(&s->req_errors);
    memset(s, 0, sizeof *s);
}

void tick_msg_free(tick_msg *m) {
    for (int i = 0; i < m->n; i++) {
        free(m->timers[i].name);
        stats_hist_free(m->timers[i].h);
        stats_hist_free(m->timers[i].nok);
    }
    free(m->timers);
    for (int i = 0; i < m->ncounters; i++) free(m->counters[i].name);
    free(m->counters);
    free(m->overflow_name);
    tally_free(&m->errors);
    tally_free(&m->req_errors);
    free(m);
}
