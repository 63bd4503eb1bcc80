/* vu.h - a virtual user: one Lua coroutine running lua/vu.lua's body (init the
 * group's script once, then loop over the transaction).  vu_resume is the one
 * place where coroutines are resumed. */
#ifndef LUAMECH_VU_H
#define LUAMECH_VU_H

#include <assert.h>
#include <lua.h>
#include <stdint.h>
#include <uv.h>
#include "engine/pace.h"
#include "engine/vu_api.h"
#include "stats/rawlog.h"

struct worker;

/* A VU's states and the only moves between them (vu_set_state):
 *   PENDING -> RUNNING (started) | DONE (stopped before its start)
 *   RUNNING -> WAITING (a primitive yielded) | READY (it yielded to let the
 *              loop run) | DONE (its body returned)
 *   WAITING -> RUNNING (resumed) | READY (a completion inside another VU's
 *              call) | DONE (killed)
 *   READY   -> RUNNING (from the ready queue) | DONE (killed)
 *   DONE    -> nothing: a VU ends once. */
typedef enum vu_state {
    VU_PENDING = 0,  /* not started (ramp-up) */
    VU_RUNNING,      /* its coroutine is executing */
    VU_WAITING,      /* yielded in a primitive (I/O, sleep, go) */
    VU_READY,        /* yielded to let the loop breathe; in the ready queue */
    VU_DONE
} vu_state;

typedef struct vu {
    struct worker *w;
    lua_State *L;              /* the coroutine */
    int thread_ref;            /* registry anchor while it lives */
    int timers_ref;            /* per-VU cache of timer objects */
    int id;                    /* 1-based, unique in the run */
    int group;                 /* index in scenario groups */
    int index;                 /* 0-based index in its group */
    vu_state state;
    int preflight;             /* initialised before t0 to check the script */
    int started;               /* vu_start ran (counted active until done) */
    int sleeping;
    uv_timer_t timer;          /* start delay, a sleep beyond the wheel's horizon */
    struct vu *wnext, *wprev;  /* in a slot of the worker's sleep wheel (engine/wheel.c) */
    int wslot;                 /* 1 + its slot there; 0 = not in the wheel */
    uint64_t due_ns;           /* when the timer must fire (hrtime), never earlier */
    uint64_t resumes;          /* resumes so far (to spot iterations that never yield) */
    uint64_t iter_resumes;     /* resumes at the start of this iteration */
    uint64_t spin_start_ns;    /* start of its run of iterations that never yielded; 0 = none */
    uint64_t fin_now_ns;       /* finish's clock read, for the begin() right after it; 0 = none */
    uint64_t iterations;
    uint64_t tx_start_ns;
    int in_tx;                 /* between the start and the end of a transaction */
    uint64_t sleep_start_ns;
    uint64_t slept_ns;         /* total engine sleep, so timers can leave it out */
    uint64_t tx_slept_ns;      /* slept_ns at the start of this transaction */
    uint64_t rng[4];
    struct vu *next_ready;
    int ready_nargs;           /* values waiting on the stack for a deferred resume */
    int ntx_timers;            /* --mm-results: custom timers of this transaction */
    pace_vu pace;              /* the load models' state (engine/pace.c) */
    struct vu_rawtx *rawtx;    /* --mm-results: their values (the worker's array); else NULL */
} vu;

/* 1 when a VU may move from `from` to `to` (the table above vu_state). */
static inline int vu_state_allowed(vu_state from, vu_state to) {
    static const unsigned char next[] = {
        [VU_PENDING] = 1u << VU_RUNNING | 1u << VU_DONE,
        [VU_RUNNING] = 1u << VU_WAITING | 1u << VU_READY | 1u << VU_DONE,
        [VU_WAITING] = 1u << VU_RUNNING | 1u << VU_READY | 1u << VU_DONE,
        [VU_READY] = 1u << VU_RUNNING | 1u << VU_DONE,
        [VU_DONE] = 0,
    };
    return (next[from] >> to) & 1u;
}

/* The one way a VU's state changes: the move is checked (assert; the
 * sanitizer build and tests/unit/test_engine_loop.c run with asserts).
 * VU_STATE_HOOK, defined by that test's own build of the engine only, names
 * a function that sees every move; the product has no hook and no cost. */
#ifdef VU_STATE_HOOK
void VU_STATE_HOOK(const vu *v, vu_state from, vu_state to);
#endif
static inline void vu_set_state(vu *v, vu_state to) {
    assert(vu_state_allowed(v->state, to));
#ifdef VU_STATE_HOOK
    VU_STATE_HOOK(v, v->state, to);
#endif
    v->state = to;
}

/* --mm-results: a VU's custom timers of its current transaction (kept out
 * of struct vu: a million VUs without --mm-results do not carry them). */
typedef struct vu_rawtx {
    int timer_id[RAWLOG_MAX_TIMERS];
    double seconds[RAWLOG_MAX_TIMERS];
} vu_rawtx;

void vu_init(vu *v, struct worker *w, int id, int group, int index, uint64_t seed);
/* Start the VU at at_ns (a preflight VU, started already, is resumed by
 * pace's own timer). */
void vu_schedule(vu *v, uint64_t at_ns);
/* Create the coroutine (body and script closure; no script code runs):
 * before t0, so that a ramp-up start is only a resume.  Nothing when it
 * exists. */
void vu_prepare(vu *v);
/* Create the coroutine (unless prepared) and run it until its first yield. */
void vu_start(vu *v);
struct vu_wheel;
/* The worker's sleep wheel wakes v (engine/wheel.c). */
void vu_wheel_wake(struct vu_wheel *wh, vu *v);
/* The engine stops: a sleeping VU wakes now; a pending one never starts
 * (one waiting in begin() is pace_stop's). */
void vu_stop(vu *v);
/* Hard stop: the VU is done whatever it was doing. */
void vu_kill(vu *v);
void vu_close(vu *v);      /* release the timer handle (teardown) */

/* The decision of begin() taken outside the Lua call (a timer, the
 * arrival scheduler): push it and resume. */
void vu_begin_resume(vu *v, int go);
/* Arm the VU's timer for an hrtime; it never fires early. */
void vu_timer_at(vu *v, uint64_t at_ns, uv_timer_cb cb);
int vu_timer_early(vu *v, uv_timer_cb cb);
/* Mark the start of a transaction that was meant to start at intended_ns. */
void vu_begin_tx(vu *v, uint64_t now_ns, uint64_t intended_ns);

/* begin() of a preflight VU before t0: its init worked; it waits for
 * its first start (pace's timer resumes it).  Yields. */
int vu_preflight_begin(vu *v, lua_State *L);

/* Engine primitives used by lua/vu.lua (bindings: engine/vu_api.h; begin
 * is pace_lua_begin) */
int vu_lua_finish(lua_State *L);
int vu_lua_init_failed(lua_State *L);

#endif
