/* local.c - worker-local per-tick statistics; see local.h.  The record path
 * touches only the worker's own memory: no locks, no allocation except the
 * first sample of a timer in a tick (one histogram, reused by the message). */
#include "stats/local.h"

#include <stdlib.h>
#include <string.h>

const char *timer_kind_name(timer_kind k) {
    static const char *const names[] = {"all", "group", "custom", "primitive", "engine", "stage"};
    return (unsigned)k < 6 ? names[k] : "?";
}

void stats_local_init(stats_local *s) {
    memset(s, 0, sizeof *s);
    tally_init(&s->errors, 256);
    tally_init(&s->req_errors, 256);
}

int stats_timer_id(stats_local *s, const char *name, timer_kind kind) {
    for (int i = 0; i < s->n; i++)
        if (s->timers[i].kind == kind && strcmp(s->timers[i].name, name) == 0) return i;
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 16;
        s->timers = realloc(s->timers, (size_t)s->cap * sizeof *s->timers);
    }
    stat_timer *t = &s->timers[s->n];
    memset(t, 0, sizeof *t);
    t->name = strdup(name);
    t->kind = kind;
    t->twin = -1;
    return s->n++;
}

int stats_counter_id(stats_local *s, const char *name) {
    for (int i = 0; i < s->ncounters; i++)
        if (strcmp(s->counters[i].name, name) == 0) return i;
    if (s->ncounters == s->cap_counters) {
        s->cap_counters = s->cap_counters ? s->cap_counters * 2 : 16;
        s->counters = realloc(s->counters, (size_t)s->cap_counters * sizeof *s->counters);
    }
    s->counters[s->ncounters].name = strdup(name);
    s->counters[s->ncounters].value = 0;
    return s->ncounters++;
}

void stats_record(stats_local *s, int id, int64_t dur_ns, int ok) {
    stat_timer *t = &s->timers[id];
    if (!ok) { t->errors++; return; }
    if (!t->h) {
        t->h = malloc(sizeof *t->h);
        hist_init(t->h);
    }
    hist_record_us(t->h, (dur_ns + 500) / 1000);
}

void stats_error(stats_local *s, const char *msg, size_t len) {
    tally_add(&s->errors, msg, len, 1);
}

void stats_req_error(stats_local *s, const char *msg, size_t len) {
    tally_add(&s->req_errors, msg, len, 1);
}

tick_msg *stats_local_flush(stats_local *s, int worker, int64_t tick) {
    tick_msg *m = calloc(1, sizeof *m);
    m->worker = worker;
    m->tick = tick;
    m->timers = calloc((size_t)(s->n ? s->n : 1), sizeof *m->timers);
    for (int i = 0; i < s->n; i++) {
        stat_timer *t = &s->timers[i];
        if (!t->h && t->errors == 0) continue;
        tick_timer *o = &m->timers[m->n++];
        o->name = strdup(t->name);
        o->kind = t->kind;
        o->h = t->h;
        o->errors = t->errors;
        t->h = NULL;
        t->errors = 0;
    }
    m->counters = calloc((size_t)(s->ncounters ? s->ncounters : 1), sizeof *m->counters);
    for (int i = 0; i < s->ncounters; i++) {
        if (!s->counters[i].value) continue;
        m->counters[m->ncounters].name = strdup(s->counters[i].name);
        m->counters[m->ncounters++].value = s->counters[i].value;
        s->counters[i].value = 0;
    }
    m->errors = s->errors;              /* hand over the tables, start new ones */
    tally_init(&s->errors, 256);
    m->req_errors = s->req_errors;
    tally_init(&s->req_errors, 256);
    return m;
}

void stats_local_free(stats_local *s) {
    for (int i = 0; i < s->n; i++) {
        free(s->timers[i].name);
        free(s->timers[i].h);
    }
    free(s->timers);
    for (int i = 0; i < s->ncounters; i++) free(s->counters[i].name);
    free(s->counters);
    tally_free(&s->errors);
    tally_free(&s->req_errors);
    memset(s, 0, sizeof *s);
}

void tick_msg_free(tick_msg *m) {
    for (int i = 0; i < m->n; i++) {
        free(m->timers[i].name);
        free(m->timers[i].h);
    }
    free(m->timers);
    for (int i = 0; i < m->ncounters; i++) free(m->counters[i].name);
    free(m->counters);
    tally_free(&m->errors);
    tally_free(&m->req_errors);
    free(m);
}
