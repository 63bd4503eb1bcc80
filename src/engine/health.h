/* health.h - the load generator's own health figures, sampled on one
 * worker's loop: event-loop lag (engine.loop_lag), the delay of completions
 * waiting for the loop (engine.dispatch_delay), the lateness of the sleep
 * wheel's wake-ups (engine.wake_lag) and the worker thread's CPU time and
 * CPU wait (engine.cpu_us, engine.cpu_wait_us).  The worker owns one
 * (worker.health); the figures go to its statistics through vu_api.h's
 * worker_record / worker_count. */
#ifndef LUAMECH_HEALTH_H
#define LUAMECH_HEALTH_H

#include <stdint.h>
#include <uv.h>

#include "engine/vu_api.h"

typedef struct health {
    worker *w;                     /* its worker (statistics) */
    int tid_loop_lag;              /* engine.loop_lag */
    uv_timer_t lag_timer;          /* every 100 ms: how late it fires */
    uint64_t lag_expected_ns;      /* when it should fire; 0 = not yet armed */
    int tid_dispatch;              /* engine.dispatch_delay, or -1 */
    uv_prepare_t disp_prepare;     /* clears disp_ref_ns before each poll */
    uint64_t disp_ref_ns;          /* the first resume after the last poll, or 0 */
    int tid_wake_lag1;             /* 1 + engine.wake_lag's id; 0 = not yet, -1 = none */
    int cid_cpu, cid_runq;         /* engine.cpu_us, engine.cpu_wait_us */
    uint64_t cpu_last_us, runq_last_us;   /* CPU time and CPU wait so far (us) */
} health;

/* Set up on the worker's loop (before its thread runs): links the lag
 * timer (cannot fail) and creates engine.loop_lag in st; then
 * health_counters creates the CPU counters (the worker keeps the order of
 * its figures' ids: the load models' come between). */
void health_init(health *h, worker *w, uv_loop_t *loop, stats_local *st);
void health_counters(health *h, stats_local *st);
/* Measure the dispatch delay of every completion; before the loop runs.
 * 0, or a libuv error (then it is not measured; the run goes on). */
int health_dispatch_init(health *h, uv_loop_t *loop, stats_local *st);
/* At t0: CPU figures count from now; the loop-lag timer starts. */
void health_go(health *h);
void health_stop(health *h);      /* the lag timer stops (stopping) */
/* At each tick's flush: the CPU time and CPU wait since the last one. */
void health_flush(health *h);
/* A sleeping VU woken by the wheel, now_ns - due_ns late. */
void health_wake_lag(health *h, int64_t late_ns, uint64_t now_ns);

/* Dispatch delay: how long a completion that resumes a VU has waited for
 * the loop.  Its reference is the loop's wake-up: the first resume after the
 * loop's last poll returned (the prepare handle clears it before each poll;
 * the first resume of the turn, a completion or the engine's own, stamps it
 * with health_dispatch_mark).  A lower bound: a completion that was ready
 * while the worker was busy before the poll, or off its CPU, waited longer. */
static inline void health_dispatch_mark(health *h) {
    if (!h->disp_ref_ns) h->disp_ref_ns = worker_now_ns();
}
static inline void health_dispatch_record(health *h) {
    if (h->tid_dispatch < 0) return;
    uint64_t now = worker_now_ns();
    if (!h->disp_ref_ns) h->disp_ref_ns = now;
    worker_record(h->w, h->tid_dispatch, (int64_t)(now - h->disp_ref_ns), now, 1);
}

#endif
