/* local.h - a worker's own statistics for the current tick: per timer a
 * histogram of successes, one of the other samples (failed, cancelled,
 * skipped arrivals) and their counts, plus an error tally.  Recording is
 * lock-free; it allocates only when a timer's histogram meets a new
 * sub-range (hist.h).  At each tick boundary the worker hands the whole tick
 * to the main thread as a tick_msg (stats_local_flush) and starts afresh.
 * The main thread hands merged messages back (stats_local_take_back): their
 * histograms, tables and names are reused by the ticks that follow, so in a
 * steady run a worker allocates no per-tick buffers, and nothing a worker
 * allocated is freed by another thread (glibc keeps memory freed across
 * threads in the allocating thread's arena, where it fragments).
 *
 * Distinct custom and primitive timer names are capped (max_timers, default
 * STATS_MAX_TIMERS): past the cap a new name is counted under
 * "(other custom timers)" / "(other primitive timers)", and the first such
 * name is handed to the main thread once (tick_msg.overflow_name). */
#ifndef LUAMECH_STATS_LOCAL_H
#define LUAMECH_STATS_LOCAL_H

#include <stdint.h>
#include "stats/hist.h"
#include "stats/names.h"
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

#define STATS_MAX_TIMERS 1000            /* default cap on distinct custom + primitive names */
#define STATS_SPARE_HISTS 4             /* histograms a timer keeps for reuse */
#define STATS_SPARE_MSGS 8              /* messages a worker keeps for reuse */
/* The engine's own timers (generator health; TK_ENGINE), by name: the
 * engine makes them, thresholds check a subject "engine.x" against them
 * before any load. */
#define STATS_ENGINE_LOOP_LAG "engine.loop_lag"
#define STATS_ENGINE_SCHEDULE_LAG "engine.schedule_lag"
#define STATS_ENGINE_DISPATCH_DELAY "engine.dispatch_delay"
#define STATS_ENGINE_WAKE_LAG "engine.wake_lag"
#define STATS_ENGINE_TIMERS {STATS_ENGINE_LOOP_LAG, STATS_ENGINE_SCHEDULE_LAG, STATS_ENGINE_DISPATCH_DELAY, \
                             STATS_ENGINE_WAKE_LAG, NULL}
/* The engine's own counters (CK_ENGINE; engine/pace.c, engine/health.c),
 * by name, for the same check. */
#define STATS_ENGINE_COUNTERS {"engine.late_starts", "engine.skipped_starts", "engine.cpu_us", \
                               "engine.cpu_wait_us", NULL}
#define STATS_OTHER_CUSTOM "(other custom timers)"
#define STATS_OTHER_PRIMITIVE "(other primitive timers)"

/* The outcome of a sample (stats_record's `ok`; 0 and 1 are booleans). */
enum { SAMPLE_FAILED = 0, SAMPLE_OK = 1, SAMPLE_CANCELLED = 2 };

/* What a timer is to the cap and the "(all)" twins. */
typedef enum timer_role {
    TR_NAMED = 0,      /* a name of its own */
    TR_TWIN,           /* an "(uncorrected)" twin: no cap, no "(all)" twin */
    TR_OTHER           /* an "(other ... timers)" bucket: no cap */
} timer_role;

typedef struct stat_timer {
    char *name;
    timer_kind kind;
    timer_role role;
    int twin;          /* id of the "(uncorrected)" twin, or -1 */
    int twin_of;       /* for an "(uncorrected)" twin: its timer's id; else -1 */
    int group;         /* group and stage timers (and their twins): the group's index; else -1 */
    int stage;         /* stage timers (and their twins): the stage, from 1; else 0 */
    char *tags;        /* a tagged timer's data fields (tagged_of, tags: docs/results.md), a JSON
                        * object's text; else NULL */
    int part_of;       /* the aggregate timer its samples are also counted in (stats_part_of), or -1 */
    int msg_idx;       /* during stats_local_flush: its index in the message, or -1 */
    int nspare;
    struct hist *spare[STATS_SPARE_HISTS];   /* handed back, emptied, for the next ticks */
    hist *h;           /* successful samples of this tick (NULL until first use) */
    hist *nok;         /* failed, cancelled and skipped samples of this tick (NULL
                        * until first use); nok->not_ok counts the failed ones */
    int64_t errors;    /* failed samples of this tick */
    int64_t cancelled; /* samples cut short by a hard stop */
    int64_t skipped;   /* arrivals that never started (rate groups, at the stop) */
} stat_timer;

typedef struct tick_timer {
    char *name;        /* owned by the message (a worker's: by its name cache) */
    int id;            /* a worker's message: the worker's timer id */
    timer_kind kind;
    timer_role role;
    int twin_of;       /* an "(uncorrected)" twin: its timer's index in this message
                        * (always before it), or -1 */
    int group, stage;  /* as stat_timer's */
    char *tags;        /* as stat_timer's; owned by the message */
    hist *h;           /* owned by the message; NULL when there were no successes */
    hist *nok;         /* owned by the message; NULL when every sample succeeded */
    int64_t errors, cancelled, skipped;
} tick_timer;

/* What a counter is, carried as data from where it is made to the reports
 * (which read this field and never parse the name). */
typedef enum counter_kind {
    CK_PLAIN = 0,      /* a binding's or a script's count: the reports' Counters */
    CK_ENGINE,         /* generator health: "engine.late_starts", "engine.cpu_us", ... */
    CK_CHECK_PASS,     /* luamech.check's passes of one check */
    CK_CHECK_FAIL,     /* ... and its failures */
    CK_GAUGE,          /* a custom gauge's changes */
    CK_RATE_TRUE,      /* a custom rate's trues */
    CK_RATE_FALSE      /* ... and its falses */
} counter_kind;
/* The name prefix of kind k's counters (common/check_names.h: "check.pass ",
 * "gauge ", ...; "" for plain and engine ones): a check's, gauge's or rate's
 * counter is that prefix and its own name. */
const char *counter_kind_prefix(counter_kind k);
/* The kind's name in summary.json ("plain", "engine", "check_pass",
 * "check_fail", "gauge", "rate_true", "rate_false"), and back (-1: none). */
const char *counter_kind_name(counter_kind k);
int counter_kind_parse(const char *name);

/* A named count (bytes sent, check passes, ...), summed over a tick. */
typedef struct stat_counter {
    char *name;
    counter_kind kind;
    int64_t value;
    int announce;      /* send it with the next tick even at 0 (a custom metric just made) */
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
    char *overflow_name;      /* the first name past max_timers (once), or NULL */
    timer_kind overflow_kind;
    /* A worker's message (stats_local_flush), kept across reuse: */
    int cap_timers, cap_counters;   /* slots allocated in timers and counters */
    int ntnames, ncnames;
    char **tnames;            /* timer names by timer id; timers[].name point here */
    char **cnames;            /* counter names by counter id; counters[].name point here */
} tick_msg;

typedef struct stats_local {
    int n, cap;
    stat_timer *timers;
    names index;              /* (name, kind) -> timer id */
    int max_timers;           /* cap on distinct custom + primitive names */
    int ncapped;              /* such names so far */
    int other_id[2];          /* the "(other ...)" buckets: custom, primitive */
    char *overflow_name;      /* the first name refused, until handed over */
    timer_kind overflow_kind;
    int overflow_sent;
    int ncounters, cap_counters;
    stat_counter *counters;
    tally errors;
    tally req_errors;
    tick_msg *spare_msgs;     /* handed back, emptied, for the next flushes */
    int nspare_msgs;
    int64_t allocs;           /* per-tick buffers allocated (messages, histograms):
                               * flat in a steady run (a test's probe) */
} stats_local;

/* Cap of STATS_MAX_TIMERS; set max_timers after it to change it.  -1 when
 * out of memory. */
int stats_local_init(stats_local *s);
/* Id of the timer called name, created on first use.  A custom or primitive
 * name past the cap gets its kind's "(other ...)" bucket (as does any name
 * when memory runs out). */
int stats_timer_id(stats_local *s, const char *name, timer_kind kind);
/* The same for a group's timer (TK_GROUP, stage 0) or one of its stages'
 * (TK_STAGE, stage from 1): the group and stage are carried as data, so
 * nothing downstream reads them back from the name. */
int stats_group_timer_id(stats_local *s, const char *name, timer_kind kind, int group, int stage);
/* The same for a tagged timer: its data fields (the text of a JSON object,
 * e.g. {"tagged_of":"http.get","tags":{"env":"staging"}}) are carried next
 * to its name into the results.  A name that gets no timer of its own
 * (max_timers) gets none; tags NULL: none. */
int stats_tagged_timer_id(stats_local *s, const char *name, timer_kind kind, const char *tags);
/* Timer tid's samples are also counted in timer agg_id (an aggregate, e.g.
 * "http" over every http.<method>): not per sample, but at each tick's
 * flush, where tid's histograms (exact HDR merges) and counts are added to
 * agg_id's; their "(uncorrected)" twins likewise.  The parts of one
 * aggregate must be disjoint (a sample in one part only); an aggregate is
 * no part.  Ignored when tid == agg_id or either is an "(other ...)"
 * bucket. */
void stats_part_of(stats_local *s, int tid, int agg_id);
/* Id of the "(uncorrected)" twin of timer tid, created on first use (not
 * counted against the cap). */
int stats_twin_id(stats_local *s, int tid);
/* One sample: duration in ns; ok is SAMPLE_OK, SAMPLE_FAILED or
 * SAMPLE_CANCELLED.  Only successes are in the timer's histogram; the
 * others are counted and kept apart for the "(all)" figures. */
void stats_record(stats_local *s, int id, int64_t dur_ns, int ok);
/* The same sample under each of the n timers ids[] (distinct), the
 * histogram index computed once: a transaction's All Transactions, group
 * and stage timers. */
void stats_record_n(stats_local *s, const int *ids, int n, int64_t dur_ns, int ok);
/* count samples of the same duration and outcome under timer id: the same
 * as count calls of stats_record, in one (a redis pipeline's replies read
 * together). */
void stats_record_count(stats_local *s, int id, int64_t dur_ns, int ok, int64_t count);
/* n arrivals that never started: each had waited wait_ns when the run
 * stopped. */
void stats_skipped(stats_local *s, int id, int64_t wait_ns, int64_t n);
/* A failed transaction's message / a failed request's message. */
void stats_error(stats_local *s, const char *msg, size_t len);
void stats_req_error(stats_local *s, const char *msg, size_t len);
/* Id of the counter called name, created on first use; -1 when out of
 * memory (stats_count and stats_counter_announce then do nothing). */
int stats_counter_id(stats_local *s, const char *name);
/* The same for a counter of another kind than CK_PLAIN, name with its
 * kind's prefix (the kind of its first use stays). */
int stats_counter_kind_id(stats_local *s, const char *name, counter_kind kind);
static inline void stats_count(stats_local *s, int id, int64_t n) {
    if (id >= 0) s->counters[id].value += n;
}
/* The counter reaches the main thread with the next tick even if it stays
 * at 0 (a custom metric exists, so a threshold on it measures 0). */
static inline void stats_counter_announce(stats_local *s, int id) {
    if (id >= 0) s->counters[id].announce = 1;
}
/* Move this tick's data into a message (timers with no samples are left
 * out) and reset the tick.  The message is one handed back, when there is
 * one; NULL when out of memory (the data stays for the next tick). */
tick_msg *stats_local_flush(stats_local *s, int worker, int64_t tick);
/* Messages this worker flushed, merged and handed back by the main thread
 * (a list linked by next; NULL is fine): kept for reuse.  Called by the
 * worker's own thread. */
void stats_local_take_back(stats_local *s, tick_msg *list);
void stats_local_free(stats_local *s);
void tick_msg_free(tick_msg *m);

#endif
