/* vu.h - a virtual user: one Lua coroutine running lua/vu.lua's body (init the
 * group's script once, then loop over the transaction).  vu_resume is the one
 * place where coroutines are resumed. */
#ifndef LUAMECH_VU_H
#define LUAMECH_VU_H

#include <lua.h>
#include <stdint.h>
#include <uv.h>

struct worker;

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
    int sleeping;
    uint64_t start_offset_ns;  /* ramp-up: start at t0 + offset */
    uv_timer_t timer;          /* start delay, sleep */
    uint64_t due_ns;           /* when the timer must fire (hrtime), never earlier */
    uint64_t resumes;          /* resumes so far (to spot iterations that never yield) */
    uint64_t iter_resumes;     /* resumes at the start of this iteration */
    uint64_t iterations;
    uint64_t tx_start_ns;
    uint64_t sleep_start_ns;
    uint64_t slept_ns;         /* total engine sleep, so timers can leave it out */
    uint64_t tx_slept_ns;      /* slept_ns at the start of this transaction */
    uint64_t rng[4];
    struct vu *next_ready;
    int ready_nargs;           /* values waiting on the stack for a deferred resume */
} vu;

void vu_init(vu *v, struct worker *w, int id, int group, int index, uint64_t seed);
/* Start the VU (or, for a preflight VU, its first transaction) at at_ns. */
void vu_schedule(vu *v, uint64_t at_ns);
/* Create the coroutine and run it until its first yield. */
void vu_start(vu *v);
/* Resume with nargs values already pushed on v->L; ignored once the VU is
 * done.  Never re-entrant: called while another VU runs (a completion fired
 * inside that VU's call), it queues the VU and resumes it from the loop. */
void vu_resume(vu *v, int nargs);
/* 1 when a completion should push results and resume this VU. */
int vu_wants_resume(const vu *v);
/* The engine stops: a sleeping VU wakes now; a pending one never starts. */
void vu_stop(vu *v);
/* Hard stop: the VU is done whatever it was doing. */
void vu_kill(vu *v);
void vu_close(vu *v);      /* release the timer handle (teardown) */

/* Engine primitives used by lua/vu.lua and lm_core.c */
int vu_lua_begin(lua_State *L);
int vu_lua_finish(lua_State *L);
int vu_lua_init_failed(lua_State *L);
/* sleep primitive: yields; returns lua_yield's value or 0 when not sleeping. */
int vu_sleep(vu *v, lua_State *L, double seconds);

uint64_t vu_random_u64(vu *v);

#endif
