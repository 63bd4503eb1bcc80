/* worker.h - one worker thread: a libuv loop, a lua_State, its share of the
 * virtual users, and worker-local statistics.  The engine (engine.c) starts
 * workers and talks to them only through run_shared and worker_command;
 * bindings (src/lua) see none of this: they use engine/vu_api.h. */
#ifndef LUAMECH_WORKER_H
#define LUAMECH_WORKER_H

#include <lua.h>
#include <stdatomic.h>
#include <stdint.h>
#include <uv.h>

#include "common/params.h"
#include "engine/budget.h"
#include "engine/health.h"
#include "engine/pace.h"
#include "engine/wheel.h"
#include "engine/vu_api.h"
#include "scenario/schedule.h"
#include "scenario/scenario.h"
#include "stats/local.h"
#include "stats/rawlog.h"

struct vu;

/* Commands from the main thread; several may be pending at once (bit set). */
enum { WCMD_GO = 1, WCMD_STOP = 2, WCMD_HARD = 4 };

/* State shared by the main thread and all workers.  Configuration fields are
 * read-only once workers start; the queues are guarded by mu. */
typedef struct run_shared {
    const scenario *sc;
    const params *params;
    uint64_t seed;
    int nworkers;
    int64_t tick_ns;
    _Atomic uint64_t t0_ns;        /* set by the main thread before GO */
    uv_mutex_t mu;
    uv_async_t *notify;            /* wakes the main loop */
    tick_msg *q_head, *q_tail;     /* worker -> main statistics */
    tick_msg **back;               /* main -> worker: merged messages handed back for
                                    * reuse, a list per worker (stats_local_take_back) */
    int ready, failed;             /* preflight results (under mu) */
    const char *rawlog_dir;        /* --mm-results: per-transaction log into this dir */
    void (*open_lua)(lua_State *L, struct worker *w);   /* the bindings (run_hooks.open_lua) */
    void *script_ctx;              /* the bindings' shared context (run_hooks.script_ctx) */
    int script_stop;               /* a script asked: 1 stop, 2 abort (under mu) */
    char stop_reason[256];         /* its reason (under mu) */
    char fail_msg[1024];
} run_shared;

/* The parts of a worker, each a small struct of its own. */

/* Its tick clock: statistics rotate at tick boundaries (worker_rotate). */
typedef struct worker_ticks {
    int64_t index, cap;            /* current tick index; last tick allowed */
    uint64_t next_ns;              /* absolute hrtime of the next tick boundary */
    uv_timer_t timer;              /* rotates ticks when no sample does */
} worker_ticks;

/* Where the run stands on this worker. */
typedef struct worker_run {
    int going;                     /* GO came: t0 is set, ticks run */
    int stopping;                  /* no more starts; draining (graceful stop) */
    int hard;                      /* the graceful stop is over: VUs killed */
    int finished;                  /* final tick sent; the loop stops */
    uint64_t end_ns;               /* when it finished */
} worker_run;

/* The compiled scripts every VU's coroutine is made from. */
typedef struct worker_script {
    int body_ref;                  /* lua/vu.lua: the body of every VU */
    int *chunk_ref;                /* per group: the compiled script factory */
    int env_mt_ref;                /* metatable of VU environments */
} worker_script;

/* VUs that yielded only to let the loop run, resumed from the idle handle. */
typedef struct worker_ready {
    struct vu *head, *tail;
    uv_idle_t idle;
} worker_ready;

/* For the main thread's watchdog (engine.c): the VU whose coroutine runs
 * now (NULL between resumes) and a count of resumes; a VU running with an
 * unchanged count is not yielding.  Stored by vu_resume only. */
typedef struct worker_watch {
    _Atomic(struct vu *) running;
    _Atomic uint64_t resume_seq;
    char stuck_where[256];         /* file:line where the watchdog's hook stopped a VU */
} worker_watch;

/* Hooks run at teardown, before lua_close (worker_on_close). */
typedef struct worker_hooks {
    int n, cap;
    worker_close_fn *fn;
    void **data;
} worker_hooks;

typedef struct worker {
    int id;
    run_shared *shared;
    uv_thread_t thread;
    uv_loop_t loop;
    uv_async_t wake;
    _Atomic int cmd;               /* WCMD_* bits */
    int alive;                     /* wake handle usable (under shared->mu) */
    uv_timer_t grace_timer;
    lua_State *L;
    worker_script script;

    struct vu *vus;
    struct vu_rawtx *rawtx;        /* --mm-results: the VUs' custom timers (vu.h); else NULL */
    int nvus, started, active, done;
    int preflight_pending;
    struct vu *current;            /* the VU whose coroutine is running */
    worker_ready ready;

    stats_local stats;
    int tid_all;
    int *tid_group;
    pace_worker pace;              /* the load models' state (engine/pace.c) */
    rawlog raw;                    /* --mm-results, else raw.f == NULL */
    vu_wheel wheel;                /* sleeping VUs (engine/wheel.c) */
    health health;                 /* loop lag, dispatch delay, wake lag, CPU (engine/health.c) */
    worker_ticks tick;
    budget budget;                 /* its share of --requests (engine/budget.h) */
    worker_run run;
    worker_watch watch;
    worker_hooks closing;
} worker;

/* Create the worker and start its thread; it compiles scripts and runs the
 * preflight VUs, then waits for WCMD_GO.  Returns 0, or -1 with the reason
 * in err (nothing is left to clean up then). */
int worker_start(worker *w, int id, run_shared *shared, int64_t quota, char *err, size_t err_len);
void worker_command(worker *w, int cmd);
/* Waits for the thread, then frees what the main thread may still read
 * (the VUs, for the watchdog). */
void worker_join(worker *w);
/* Watchdog, from the main thread: sets a Lua count hook on the worker's
 * state that stops whatever Lua code runs (LuaJIT's lua_sethook may be
 * called asynchronously; compiled traces do not see it).  Returns 0 when
 * the hook was set (the worker is alive). */
int worker_interrupt(worker *w);

/* vu_resume around lua_resume: what the watchdog reads. */
static inline void worker_enter(worker *w, struct vu *v) {
    uint64_t seq = atomic_load_explicit(&w->watch.resume_seq, memory_order_relaxed);
    atomic_store_explicit(&w->watch.resume_seq, seq + 1, memory_order_relaxed);
    atomic_store_explicit(&w->watch.running, v, memory_order_release);
}
static inline void worker_leave(worker *w) {
    atomic_store_explicit(&w->watch.running, NULL, memory_order_relaxed);
}

/* A failed transaction (engine): tallied by message. */
void worker_tx_error(worker *w, const char *msg, size_t len);
/* n arrivals of timer id that never started; each had waited wait_ns. */
void worker_skipped(worker *w, int id, int64_t wait_ns, int64_t n);

/* worker_record of one sample under each of n distinct timers. */
void worker_record_n(worker *w, const int *ids, int n, int64_t dur_ns, uint64_t now_ns, int ok);
/* worker_record of count identical samples under timer id, in one call. */
void worker_record_count(worker *w, int id, int64_t dur_ns, uint64_t now_ns, int ok, int64_t count);

/* Id of the "(uncorrected)" twin of a timer (created on first use). */
int worker_twin(worker *w, int tid);

/* For the engine's VU code. */
void worker_rotate(worker *w, uint64_t now_ns);
void worker_vu_done(worker *w, struct vu *v);
void worker_make_ready(worker *w, struct vu *v);
/* The budget's last transaction started (budget_take said so), on the
 * worker's thread: VUs not yet started never start; the others end after
 * their current transaction (think time included). */
void worker_budget_spent(worker *w);
void worker_preflight_result(worker *w, const char *errmsg);

#endif
