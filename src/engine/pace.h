/* pace.h - when a VU may begin its next transaction, by load model:
 *  closed: VU i runs while the group's target VU count is above i;
 *  paced:  the same, and one iteration every `pacing`, on a fixed schedule;
 *  rate:   arrivals on a fixed schedule, handed to a pool of VUs that grows
 *          up to max_vus; a start that finds no free VU waits for one.
 * Paced and rate starts record how late they are against the schedule, so
 * latency can be counted from the intended start (coordinated omission).
 * The state of the load models is pace's: a pace_worker in the worker, a
 * pace_vu in each VU.  pace.c calls vu.c (start, resume, timers) and is
 * called by worker.c; vu.c does not call it (it reads pace_vu's figures),
 * nor does pace.c call worker.c. */
#ifndef LUAMECH_PACE_H
#define LUAMECH_PACE_H

#include <lua.h>
#include <stdint.h>
#include <uv.h>

#include "scenario/schedule.h"

/* A scheduled start more than this late counts as late (engine.late_starts). */
#define PACE_LATE_NS 2000000

struct vu;
struct worker;
struct group_cfg;

/* A worker's part of one user group. */
typedef struct wgroup {
    const struct group_cfg *cfg;
    int nvus;                      /* this worker's VUs of the group */
    struct vu **vus;               /* them, by index in the group */
    /* rate model: this worker takes arrivals k = k_first, k_first + k_step, ...
     * (its rank among the group's hosting workers, within its segment's
     * arrivals: plan_segment_arrivals) */
    uint64_t k_first, k_step;
    int tid_stage[SCHED_MAX_STAGES + 1];   /* staged groups: a timer per stage (-1 until used) */
    uint64_t k_due;                /* next arrival not yet due */
    uint64_t k_assign;             /* next arrival to hand to a VU (<= k_due) */
    int settled;                   /* the arrivals left at the end are counted */
    struct vu *idle;               /* VUs waiting for an arrival */
    int nstarted;                  /* pool VUs started so far */
    int tfd;                       /* timerfd: fires at the next arrival or slot, to the microsecond */
    struct vu **wait;              /* paced and staged: VUs waiting for their start, a min-heap by due_ns */
    int nwait;
    uv_poll_t poll;                /* (libuv timers count whole milliseconds) */
    /* closed and paced: the ramp-up.  VU i starts when the target first
     * exceeds i, which never comes earlier for a larger i, so the VUs start
     * in index order: a cursor and one timer, not a timer per VU. */
    int next_start;                /* index in vus of the next VU to start */
    uv_timer_t start_timer;        /* armed for its start */
    uv_idle_t start_idle;          /* more starts are due: go on next loop turn */
    struct worker *w;
} wgroup;

/* The load models' part of a VU. */
typedef struct pace_vu {
    int scheduled;             /* paced or rate: latency also counts from the intended start */
    int in_begin;              /* waiting inside begin() for its next start */
    int wait_pos;              /* 1 + its index in the group's heap of waits; 0 = not in it */
    int stage_tid;             /* staged groups: the timer of the stage this transaction began in; else -1 */
    uint64_t intended_ns;      /* when this transaction should have started */
    uint64_t next_intended_ns; /* paced: the next slot; 0 = from the next begin */
    int64_t lateness_ns;       /* actual start - intended start (>= 0) */
    struct vu *next_idle;      /* rate: the pool's idle list */
} pace_vu;

/* The load models' part of a worker. */
typedef struct pace_worker {
    wgroup *groups;            /* per scenario group; NULL until pace_init */
    int any_scheduled;         /* a paced or rate group exists: twins are kept for all */
    int tid_sched_lag;         /* engine.schedule_lag */
    int cid_late, cid_skipped; /* engine.late_starts, engine.skipped_starts */
} pace_worker;

typedef enum { BEGIN_NOW, BEGIN_STOP, BEGIN_WAIT } begin_result;

/* The figures' ids (at the worker's start, in this order after its other
 * engine figures). */
void pace_ids(struct worker *w);
/* Set up the worker's per-group state (after its VUs are placed): 0, or
 * -1 with a message in err: out of memory (groups stays NULL), or a
 * rate group without the timerfd that times its arrivals (every group's
 * handles are set up: pace_close and pace_free undo it). */
int pace_init(struct worker *w, char *err, size_t err_len);
/* Before t0 (after the VUs are placed): create the coroutines of the VUs
 * of closed and paced groups that will start, then collect garbage. */
void pace_prepare(struct worker *w);
/* At t0: schedule the first start of every VU and the arrival timers. */
void pace_go(struct worker *w, uint64_t t0_ns);
/* begin() of lua/vu.lua, the pacing decision: true to start a transaction
 * now, false to end the VU, or the VU waits (yields) until it may start. */
int pace_lua_begin(lua_State *L);
/* Stopping: VUs waiting in begin() end; due arrivals never started are
 * counted as skipped. */
void pace_stop(struct worker *w);
/* The last VU ended on its own: count the arrivals it left if time is up. */
void pace_finish(struct worker *w, uint64_t now_ns);
/* The transaction budget is spent: VUs waiting in begin() end. */
void pace_release_idle(struct worker *w);
/* v no longer waits for its start (it ended while parked). */
void pace_unwait(struct vu *v);
void pace_close(struct worker *w);   /* close handles (teardown) */
void pace_free(struct worker *w);    /* after the loop has closed them */

#endif
