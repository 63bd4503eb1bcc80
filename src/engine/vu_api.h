/* vu_api.h - the engine as the bindings (src/lua) see it, and the only engine
 * header they may include (scripts/check-layers.sh refuses any other, and
 * the build gives src/lua this header alone: CMakeLists.txt, API of
 * luamech_layer).  struct worker and struct vu stay opaque here: their
 * fields are the engine's (engine/worker.h, engine/vu.h).
 *
 * The operation contract: a binding finds the running VU (vu_current),
 * starts its request and, when it did not complete inside the call,
 * suspends the VU with `return vu_wait(v, L);`.  The completion checks
 * vu_wants_resume (a VU stopped meanwhile takes no results), pushes its
 * results on vu_lua(v) and wakes the VU with vu_resume(v, n): the one place
 * a coroutine is resumed; it never resumes re-entrantly (a completion fired
 * inside another VU's call is queued and resumed from the loop).  No binding
 * sets a VU's state or calls lua_yield itself. */
#ifndef LUAMECH_VU_API_H
#define LUAMECH_VU_API_H

#include <lua.h>
#include <stdint.h>
#include <uv.h>

#include "common/params.h"
#include "scenario/scenario.h"
#include "stats/local.h"

typedef struct worker worker;
typedef struct vu vu;

/* ---- the running VU ---- */

/* The VU whose coroutine runs on this worker now, or NULL (the scenario
 * file, setup, a coroutine the script made itself runs). */
vu *vu_current(worker *w);
lua_State *vu_lua(const vu *v);     /* its coroutine: where results are pushed */
worker *vu_worker(const vu *v);
int vu_id(const vu *v);             /* 1-based, unique in the run */
int vu_group(const vu *v);          /* index in the scenario's groups */
int vu_index(const vu *v);          /* 0-based index in its group */
uint64_t vu_iterations(const vu *v);
uint64_t vu_slept_ns(const vu *v);  /* engine sleep so far (timers leave it out) */
uint64_t vu_random_u64(vu *v);
/* A registry reference the bindings own per VU (luamech.timer's cache):
 * LUA_NOREF until set; the engine unreferences it when the VU ends. */
int *vu_binding_ref(vu *v);

/* ---- operations ---- */

/* Suspend the running VU v (its coroutine is L) until a completion calls
 * vu_resume; a C function returns this value: `return vu_wait(v, L);`. */
int vu_wait(vu *v, lua_State *L);
/* 1 when a completion should push results on vu_lua(v) and resume it; 0
 * once the VU is done (stopped): the results are dropped. */
int vu_wants_resume(const vu *v);
/* Resume with nargs values already pushed on vu_lua(v); ignored once the VU
 * is done.  Never re-entrant: called while another VU runs (a completion
 * fired inside that VU's call), it queues the VU and resumes it from the
 * loop. */
void vu_resume(vu *v, int nargs);
/* luamech.sleep: yields; returns lua_yield's value or 0 when not sleeping
 * (the run is draining). */
int vu_sleep(vu *v, lua_State *L, double seconds);

/* ---- time and samples ---- */

uint64_t worker_now_ns(void);   /* uv_hrtime(): the clock of every timing */
/* Record a sample taken by this VU: with a paced or rate model the timer
 * gets the latency from the intended start and its "(uncorrected)" twin the
 * latency from the actual start.  ok is SAMPLE_OK, SAMPLE_FAILED or
 * SAMPLE_CANCELLED (stats/local.h); a failure of a VU already stopped (a
 * request cancelled by a hard stop) is recorded as cancelled. */
void vu_record(vu *v, int tid, int64_t dur_ns, uint64_t now_ns, int ok);
/* Record a value the script measured itself (luamech.record): as given, in
 * the timer and in its twin; the transaction's start lateness is not added. */
void vu_record_given(vu *v, int tid, int64_t dur_ns, uint64_t now_ns, int ok);
/* Record a phase of one operation (a connect, a handshake, the wait for the
 * first byte): as measured, never from the intended start, and without an
 * "(uncorrected)" twin (there is nothing to correct: the phase began when
 * the operation reached it, however late its transaction started). */
void vu_record_phase(vu *v, int tid, int64_t dur_ns, uint64_t now_ns, int ok);
/* count samples of the same duration, time and outcome: exactly count
 * calls of vu_record, in one (the replies of a pipeline read together). */
void vu_record_count(vu *v, int tid, int64_t dur_ns, uint64_t now_ns, int ok, int64_t count);
/* Record a sample of dur_ns for timer `id`, taken at now_ns (which picks the
 * tick), outside any VU; ok == 0 counts a failure. */
void worker_record(worker *w, int id, int64_t dur_ns, uint64_t now_ns, int ok);
/* A failed request of a primitive (bindings): tallied by message. */
void worker_error(worker *w, const char *msg, size_t len);
/* Named counters (bytes sent, checks, ...): id once, then add. */
int worker_counter_id(worker *w, const char *name);
void worker_count(worker *w, int id, int64_t n);
/* The worker-local statistics (stats/local.h): timer ids by name and kind. */
stats_local *worker_stats(worker *w);

/* ---- the worker ---- */

uv_loop_t *worker_loop(worker *w);   /* the loop clients run on */
lua_State *worker_lua(worker *w);    /* the worker's main state (registry) */
int worker_id(const worker *w);      /* 0-based */
const scenario *worker_scenario(const worker *w);
const params *worker_params(const worker *w);
void *worker_script_ctx(const worker *w);   /* run_hooks.script_ctx */
/* Seconds since the run's start (negative before it starts). */
double worker_run_time_s(const worker *w);
/* A script ends the run (luamech.stop / luamech.abort, a data set used
 * up): the main thread stops it gracefully (abort = 0) or at once
 * (abort = 1).  The first reason of the strongest request is kept. */
void worker_script_stop(worker *w, int abort, const char *reason);
/* Run fn(data) at the worker's teardown, before its Lua state closes. */
typedef void (*worker_close_fn)(void *data);
void worker_on_close(worker *w, worker_close_fn fn, void *data);

#endif
