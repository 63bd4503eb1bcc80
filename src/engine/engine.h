/* engine.h - runs a scenario: starts the workers, checks that every group's
 * script initialises (preflight) before the clock starts, stops the run at
 * its deadline, its transaction budget or a signal, and merges the workers'
 * statistics into an agg.  Reporting is done by the caller through hooks. */
#ifndef LUAMECH_ENGINE_H
#define LUAMECH_ENGINE_H

#include <stdint.h>
#include <lua.h>
#include <time.h>

#include "common/params.h"
#include "scenario/scenario.h"
#include "stats/agg.h"
#include "stats/run_result.h"

struct worker;

/* A run bounded only by --requests stops after this long all the same. */
#define ENGINE_BUDGET_LIMIT_NS (3600LL * 1000000000LL)

/* Limits of a plan the engine accepts (engine_check_plan; README "Limits"). */
#define ENGINE_MAX_WORKERS 1024
#define ENGINE_VU_BYTES 1024          /* measured memory of a VU with a trivial script */
#define ENGINE_WORKER_FDS 4           /* a worker's loop: epoll, eventfd, wake, timer */
#define ENGINE_BASE_FDS 16            /* stdio, the main loop, signals, result files */

/* The watchdog (engine.c).  A worker must finish within ENGINE_HARD_NS of
 * the end of the graceful stop (or of a hard stop) if a VU of it runs
 * without yielding, within ENGINE_LATE_NS more otherwise; a VU that runs
 * ENGINE_STALL_NS without yielding during the run stops the run.  Either
 * way the stuck VU is interrupted (a Lua hook); a worker still running
 * ENGINE_ABANDON_NS later (compiled code ignores hooks) is abandoned. */
#define ENGINE_HARD_NS (1000000000LL)
#define ENGINE_STALL_NS (10LL * 1000000000LL)
#define ENGINE_ABANDON_NS (1000000000LL)
#define ENGINE_LATE_NS (4000000000ULL)   /* a late worker not running Lua: stopped anyway */

typedef enum engine_plan {
    ENGINE_PLAN_OK = 0,
    ENGINE_PLAN_BAD,          /* the scenario cannot run as given (no VUs, too many workers) */
    ENGINE_PLAN_RESOURCES     /* the machine or its limits cannot hold it (memory, file descriptors) */
} engine_plan;


typedef struct run_hooks {
    void *ctx;
    /* about once a second while the run goes on */
    void (*on_progress)(void *ctx, const run_result *r, double elapsed_s, double total_s);
    /* each time a statistics interval closes; non-zero stops the run */
    int (*on_interval)(void *ctx, const run_result *r);
    /* optional: every timer's histogram of each closed interval */
    agg_hist_fn on_hist;
    /* optional: write multi-mechanize's results.csv into this directory */
    const char *rawlog_dir;
    /* required: opens the bindings (luamech.*, the protocol modules) in a
     * worker's Lua state; lua/lm_core.h's lm_open_all.  The engine sits
     * below the bindings and never includes them. */
    void (*open_lua)(lua_State *L, struct worker *w);
    /* optional: handed to the bindings (run_shared.script_ctx), opaque here */
    void *script_ctx;
} run_hooks;

/* 0 when the engine can run sc on nworkers; else an engine_plan value
 * and the reason in err.  engine_run checks it too (and refuses). */
engine_plan engine_check_plan(const scenario *sc, int nworkers, char *err, size_t err_len);

/* Runs the whole scenario; fills *r.  Returns 0 unless the run was aborted.
 * With r->abandoned set, worker threads are still running: the caller
 * writes the results and ends the process (it must not return to a state
 * where those threads could touch freed memory). */
int engine_run(const scenario *sc, const params *p, int nworkers, uint64_t seed,
               const run_hooks *hooks, run_result *r);
/* The tick: the largest multiple of 100 ms up to 1 s that divides the
 * interval (a whole number of 100 ms), so an interval is whole ticks. */
int64_t engine_tick_ns(int64_t interval_ns);

#endif
