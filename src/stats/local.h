/* local.h - a worker's own statistics for the current tick: one histogram and
 * error count per timer, plus an error tally.  Recording is lock-free and
 * allocation-free; at each tick boundary the worker hands the whole tick to
 * the main thread as a tick_msg (stats_local_flush) and starts afresh. */
#ifndef LUAMECH_STATS_LOCAL_H
#define LUAMECH_STATS_LOCAL_H

#include <stdint.h>
#include "stats/hist.h"
#include "stats/tally.h"

typedef enum timer_kind {
    TK_ALL = 0,        /* "All Transactions" */
    TK_GROUP,          /* transactions of one user group */
    TK_CUSTOM,         /* named by the script: luamech.timer("GET") */
    TK_PRIMITIVE,      /* timed automatically: "memcached.get", ... */
    TK_ENGINE,         /* generator health: "engine.loop_lag", ... */
    TK_STAGE           /* transactions of one stage of a group: "stage 2 readers" */
} timer_kind;

const char *timer_kind_name(timer_kind k);   /* "all", "group", "custom", "primitive", "engine", "stage" */

typedef struct stat_timer {
    char *name;
    timer_kind kind;
    int twin;          /* id of the "(uncorrected)" twin, or -1 */
    hist *h;           /* successful samples of this tick (NULL until first use) */
    int64_t errors;    /* failed samples of this tick */
} stat_timer;

typedef struct tick_timer {
    char *name;        /* owned by the message */
    timer_kind kind;
    hist *h;           /* owned by the message; NULL when there were no successes */
    int64_t errors;
} tick_timer;

/* A named count (bytes sent, check passes, ...), summed over a tick. */
typedef struct stat_counter {
    char *name;
    int64_t value;
} stat_counter;

/* One worker's statistics for one tick, handed to the main thread. */
typedef struct tick_msg {
    struct tick_msg *next;
    int worker;
    int64_t tick;      /* tick index since the run's start */
    int final;         /* the worker has finished; no more ticks follow */
    int64_t active_vus;
    int64_t started_vus;
    int n;
    tick_timer *timers;
    int ncounters;
    stat_counter *counters;   /* names owned by the message; only non-zero ones */
    tally errors;             /* failed transactions, by message */
    tally req_errors;         /* failed requests of primitives, by message */
} tick_msg;

typedef struct stats_local {
    int n, cap;
    stat_timer *timers;
    int ncounters, cap_counters;
    stat_counter *counters;
    tally errors;
    tally req_errors;
} stats_local;

void stats_local_init(stats_local *s);
/* Id of the timer called name, created on first use. */
int stats_timer_id(stats_local *s, const char *name, timer_kind kind);
/* One sample: duration in ns; ok == 0 counts a failure (not in the histogram). */
void stats_record(stats_local *s, int id, int64_t dur_ns, int ok);
/* A failed transaction's message / a failed request's message. */
void stats_error(stats_local *s, const char *msg, size_t len);
void stats_req_error(stats_local *s, const char *msg, size_t len);
/* Id of the counter called name, created on first use. */
int stats_counter_id(stats_local *s, const char *name);
static inline void stats_count(stats_local *s, int id, int64_t n) { s->counters[id].value += n; }
/* Move this tick's data into a new message (timers with no samples are left
 * out) and reset the tick. */
tick_msg *stats_local_flush(stats_local *s, int worker, int64_t tick);
void stats_local_free(stats_local *s);
void tick_msg_free(tick_msg *m);

#endif
