/* local.c - worker-local per-tick statistics; see local.h.  The record path
 * touches only the worker's own memory: no locks; it allocates only for a
 * timer's first sample of a tick when no histogram handed back is spare
 * (one histogram, handed over in the tick's message) and when that
 * histogram meets a new sub-range.  Messages, histograms, error tables and
 * names come back from the main thread and are reused; what is not reused
 * is freed here, by the thread that allocated it.  Timer names are
 * found through a hash index, and distinct custom and primitive names are
 * capped (past the cap: an "(other ...)" bucket).  Aggregate timers
 * (stats_part_of) are summed from their parts at the flush.  No I/O. */
#include "stats/local.h"

#include "common/check_names.h"

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
    t->twin = t->twin_of = t->group = t->msg_idx = t->part_of = -1;
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

int stats_tagged_timer_id(stats_local *s, const char *name, timer_kind kind, const char *tags) {
    int id = stats_timer_id(s, name, kind);
    stat_timer *t = &s->timers[id];
    if (tags && t->role == TR_NAMED && !t->tags && strcmp(t->name, name) == 0)
        t->tags = strdup(tags);   /* NULL (out of memory): untagged */
    return id;
}

static int stats_is_other(const stats_local *s, int id) { return id == s->other_id[0] || id == s->other_id[1]; }

void stats_part_of(stats_local *s, int tid, int agg_id) {
    if (tid < 0 || agg_id < 0 || tid == agg_id || stats_is_other(s, tid) || stats_is_other(s, agg_id)) return;
    assert(s->timers[agg_id].part_of < 0);
    s->timers[tid].part_of = agg_id;
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
    if (s->timers[tid].tags && !s->timers[twin].tags) s->timers[twin].tags = strdup(s->timers[tid].tags);
    int part = s->timers[tid].part_of;
    if (part >= 0 && s->timers[twin].part_of < 0) {
        int agg_twin = stats_twin_id(s, part);  /* the aggregate's twin sums the parts' twins */
        if (agg_twin != part) s->timers[twin].part_of = agg_twin;
    }
    return twin;
}

const char *counter_kind_prefix(counter_kind k) {
    switch (k) {
    case CK_CHECK_PASS: return LM_CHECK_PASS;
    case CK_CHECK_FAIL: return LM_CHECK_FAIL;
    case CK_GAUGE: return LM_GAUGE;
    case CK_RATE_TRUE: return LM_RATE_TRUE;
    case CK_RATE_FALSE: return LM_RATE_FALSE;
    default: return "";
    }
}

static const char *const counter_kind_names[] = {"plain", "engine", "check_pass", "check_fail",
                                                 "gauge", "rate_true", "rate_false"};

const char *counter_kind_name(counter_kind k) {
    return (unsigned)k < sizeof counter_kind_names / sizeof counter_kind_names[0] ? counter_kind_names[k] : "plain";
}

int counter_kind_parse(const char *name) {
    for (size_t i = 0; name && i < sizeof counter_kind_names / sizeof counter_kind_names[0]; i++)
        if (strcmp(name, counter_kind_names[i]) == 0) return (int)i;
    return -1;
}

int stats_counter_id(stats_local *s, const char *name) { return stats_counter_kind_id(s, name, CK_PLAIN); }

int stats_counter_kind_id(stats_local *s, const char *name, counter_kind kind) {
    for (int i = 0; i < s->ncounters; i++)
        if (strcmp(s->counters[i].name, name) == 0) return i;
    if (s->ncounters == s->cap_counters) {
        int cap = s->cap_counters ? s->cap_counters * 2 : 16;
        stat_counter *c = realloc(s->counters, (size_t)cap * sizeof *c);
        if (!c) return -1;
        s->counters = c;
        s->cap_counters = cap;
    }
    char *copy = strdup(name);
    if (!copy) return -1;                    /* out of memory: not counted (stats_count ignores -1) */
    s->counters[s->ncounters].name = copy;
    s->counters[s->ncounters].kind = kind;
    s->counters[s->ncounters].value = 0;
    s->counters[s->ncounters].announce = 0;
    return s->ncounters++;
}

/* A histogram for timer t's tick: a spare one, else a new one. */
static hist *stats_hist_new(stats_local *s, stat_timer *t) {
    if (t->nspare) return t->spare[--t->nspare];
    hist *h = malloc(sizeof *h);
    if (!h) return NULL;
    hist_init(h);
    s->allocs++;
    return h;
}

static void stats_hist_free(hist *h) {
    if (!h) return;
    hist_free(h);
    free(h);
}

/* A histogram handed back for timer id: emptied and kept, or freed. */
static void stats_hist_keep(stats_local *s, int id, hist *h) {
    if (!h) return;
    if (id < 0 || id >= s->n || s->timers[id].nspare == STATS_SPARE_HISTS) {
        stats_hist_free(h);
        return;
    }
    hist_reset(h);
    s->timers[id].spare[s->timers[id].nspare++] = h;
}

/* A timer idle for a whole tick gives its spares back (a stage that has
 * ended, a name used once). */
static void stats_spares_free(stat_timer *t) {
    while (t->nspare) stats_hist_free(t->spare[--t->nspare]);
}

void stats_record(stats_local *s, int id, int64_t dur_ns, int ok) {
    stat_timer *t = &s->timers[id];
    int64_t us = (dur_ns + 500) / 1000;
    if (ok == SAMPLE_OK) {
        if (!t->h && !(t->h = stats_hist_new(s, t))) return;
        hist_record_us(t->h, us);
        return;
    }
    if (ok == SAMPLE_CANCELLED) t->cancelled++;
    else t->errors++;
    if (!t->nok && !(t->nok = stats_hist_new(s, t))) return;
    hist_record_us(t->nok, us);
    t->nok->not_ok += ok != SAMPLE_CANCELLED;
}

void stats_record_n(stats_local *s, const int *ids, int n, int64_t dur_ns, int ok) {
    int64_t us = (dur_ns + 500) / 1000;
    if (ok != SAMPLE_OK || us < 0 || us > HIST_HIGHEST_US) {
        for (int i = 0; i < n; i++) stats_record(s, ids[i], dur_ns, ok);
        return;
    }
    int32_t idx = hist_index_us(us);
    for (int i = 0; i < n; i++) {
        stat_timer *t = &s->timers[ids[i]];
        if (!t->h && !(t->h = stats_hist_new(s, t))) continue;
        hist_record_at_us(t->h, us, idx);
    }
}

void stats_record_count(stats_local *s, int id, int64_t dur_ns, int ok, int64_t count) {
    stat_timer *t = &s->timers[id];
    int64_t us = (dur_ns + 500) / 1000;
    if (count < 1) return;
    if (ok == SAMPLE_OK) {
        if (!t->h && !(t->h = stats_hist_new(s, t))) return;
        hist_record_n_us(t->h, us, count);
        return;
    }
    if (ok == SAMPLE_CANCELLED) t->cancelled += count;
    else t->errors += count;
    if (!t->nok && !(t->nok = stats_hist_new(s, t))) return;
    hist_record_n_us(t->nok, us, count);
    if (ok != SAMPLE_CANCELLED) t->nok->not_ok += count;
}

void stats_skipped(stats_local *s, int id, int64_t wait_ns, int64_t n) {
    stat_timer *t = &s->timers[id];
    t->skipped += n;
    if (!t->nok && !(t->nok = stats_hist_new(s, t))) return;
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

/* Grow a name cache to n entries (new ones NULL); -1 when out of memory. */
static int stats_names_grow(char ***names, int *len, int n) {
    if (n <= *len) return 0;
    char **p = realloc(*names, (size_t)n * sizeof *p);
    if (!p) return -1;
    memset(p + *len, 0, (size_t)(n - *len) * sizeof *p);
    *names = p;
    *len = n;
    return 0;
}

/* Name `name` of id `id` from a message's cache (copied on first use). */
static char *stats_name(char **names, int id, const char *name) {
    if (!names[id]) names[id] = strdup(name);
    return names[id];
}

/* A message with room for this tick: one handed back, else a new one. */
static tick_msg *stats_msg_get(stats_local *s) {
    tick_msg *m = s->spare_msgs;
    if (m) {
        s->spare_msgs = m->next;
        s->nspare_msgs--;
        m->next = NULL;
    } else {
        if (!(m = calloc(1, sizeof *m))) return NULL;
        s->allocs++;
        tally_init(&m->errors, 256);
        tally_init(&m->req_errors, 256);
    }
    int nt = s->n ? s->n : 1, nc = s->ncounters ? s->ncounters : 1;
    if (m->cap_timers < nt) {
        tick_timer *t = realloc(m->timers, (size_t)nt * sizeof *t);
        if (t) m->timers = t, m->cap_timers = nt;
    }
    if (m->cap_counters < nc) {
        stat_counter *c = realloc(m->counters, (size_t)nc * sizeof *c);
        if (c) m->counters = c, m->cap_counters = nc;
    }
    if (m->cap_timers < nt || m->cap_counters < nc || stats_names_grow(&m->tnames, &m->ntnames, s->n) != 0 ||
        stats_names_grow(&m->cnames, &m->ncnames, s->ncounters) != 0) {
        tick_msg_free(m);
        return NULL;
    }
    return m;
}

/* src's histogram into *dst (taken from timer a's spares, else new); -1
 * when out of memory (dst's tick then lacks src's samples). */
static int stats_hist_add(stats_local *s, stat_timer *a, hist **dst, const hist *src) {
    if (!src) return 0;
    if (!*dst && !(*dst = stats_hist_new(s, a))) return -1;
    hist_merge(*dst, src);
    return 0;
}

/* Each part's tick into its aggregate's (stats_part_of): once per tick per
 * part, never per sample. */
static void stats_flush_parts(stats_local *s) {
    for (int i = 0; i < s->n; i++) {
        stat_timer *t = &s->timers[i];
        if (t->part_of < 0 || !stats_has_data(t)) continue;
        stat_timer *a = &s->timers[t->part_of];
        stats_hist_add(s, a, &a->h, t->h);
        stats_hist_add(s, a, &a->nok, t->nok);
        a->errors += t->errors;
        a->cancelled += t->cancelled;
        a->skipped += t->skipped;
    }
}

static void stats_flush_timers(stats_local *s, tick_msg *m) {
    stats_flush_parts(s);
    for (int i = 0; i < s->n; i++) {
        stat_timer *t = &s->timers[i];
        t->msg_idx = -1;
        if (!stats_has_data(t)) {
            stats_spares_free(t);
            continue;
        }
        char *tags = t->tags ? strdup(t->tags) : NULL;   /* owned by the message */
        if (t->tags && !tags) continue;      /* out of memory: stays for the next tick */
        char *name = stats_name(m->tnames, i, t->name);
        if (!name) {                         /* out of memory: stays for the next tick */
            free(tags);
            continue;
        }
        /* a twin's timer has a smaller id: already placed, when it has data */
        assert(t->twin_of < i);
        int of = t->twin_of >= 0 ? s->timers[t->twin_of].msg_idx : -1;
        t->msg_idx = m->n;
        m->timers[m->n++] = (tick_timer){.name = name, .id = i, .kind = t->kind, .role = t->role, .twin_of = of,
                                         .group = t->group, .stage = t->stage, .tags = tags, .h = t->h, .nok = t->nok,
                                         .errors = t->errors, .cancelled = t->cancelled, .skipped = t->skipped};
        t->h = t->nok = NULL;
        t->errors = t->cancelled = t->skipped = 0;
    }
}

static void stats_flush_counters(stats_local *s, tick_msg *m) {
    for (int i = 0; i < s->ncounters; i++) {
        if (!s->counters[i].value && !s->counters[i].announce) continue;
        char *name = stats_name(m->cnames, i, s->counters[i].name);
        if (!name) continue;                 /* out of memory: stays for the next tick */
        s->counters[i].announce = 0;
        m->counters[m->ncounters].name = name;
        m->counters[m->ncounters].kind = s->counters[i].kind;
        m->counters[m->ncounters++].value = s->counters[i].value;
        s->counters[i].value = 0;
    }
}

tick_msg *stats_local_flush(stats_local *s, int worker, int64_t tick) {
    tick_msg *m = stats_msg_get(s);
    if (!m) return NULL;
    m->worker = worker;
    m->tick = tick;
    stats_flush_timers(s, m);
    stats_flush_counters(s, m);
    if (s->overflow_name && !s->overflow_sent) {
        m->overflow_name = s->overflow_name;
        m->overflow_kind = s->overflow_kind;
        s->overflow_name = NULL;
        s->overflow_sent = 1;
    }
    tally swap = m->errors;             /* hand over the tables, keep emptied ones */
    m->errors = s->errors;
    s->errors = swap;
    swap = m->req_errors;
    m->req_errors = s->req_errors;
    s->req_errors = swap;
    return m;
}

void stats_local_take_back(stats_local *s, tick_msg *list) {
    while (list) {
        tick_msg *m = list;
        list = m->next;
        for (int i = 0; i < m->n; i++) {
            stats_hist_keep(s, m->timers[i].id, m->timers[i].h);
            stats_hist_keep(s, m->timers[i].id, m->timers[i].nok);
            free(m->timers[i].tags);        /* a tagged timer's fields: the message's copy */
            m->timers[i].tags = NULL;
        }
        if (s->nspare_msgs == STATS_SPARE_MSGS) {
            m->n = 0;                       /* its histograms are kept or freed above */
            tick_msg_free(m);
            continue;
        }
        m->n = m->ncounters = 0;
        m->final = 0;
        m->active_vus = m->started_vus = 0;
        free(m->overflow_name);
        m->overflow_name = NULL;
        tally_reset(&m->errors);
        tally_reset(&m->req_errors);
        m->next = s->spare_msgs;
        s->spare_msgs = m;
        s->nspare_msgs++;
    }
}

void stats_local_free(stats_local *s) {
    for (int i = 0; i < s->n; i++) {
        free(s->timers[i].name);
        free(s->timers[i].tags);
        stats_hist_free(s->timers[i].h);
        stats_hist_free(s->timers[i].nok);
        stats_spares_free(&s->timers[i]);
    }
    while (s->spare_msgs) {
        tick_msg *m = s->spare_msgs;
        s->spare_msgs = m->next;
        tick_msg_free(m);
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
        if (!m->tnames) free(m->timers[i].name);   /* else the cache's */
        free(m->timers[i].tags);
        stats_hist_free(m->timers[i].h);
        stats_hist_free(m->timers[i].nok);
    }
    free(m->timers);
    for (int i = 0; i < m->ntnames; i++) free(m->tnames[i]);
    free(m->tnames);
    for (int i = 0; i < m->ncounters; i++)
        if (!m->cnames) free(m->counters[i].name);
    free(m->counters);
    for (int i = 0; i < m->ncnames; i++) free(m->cnames[i]);
    free(m->cnames);
    free(m->overflow_name);
    tally_free(&m->errors);
    tally_free(&m->req_errors);
    free(m);
}
