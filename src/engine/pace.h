/* pace.h - when a VU may begin its next transaction, by load model:
 *  closed: VU i runs while the group's target VU count is above i;
 *  paced:  the same, and one iteration every `pacing`, on a fixed schedule;
 *  rate:   arrivals on a fixed schedule, handed to a pool of VUs that grows
 *          up to max_vus; a start that finds no free VU waits for one.
 * Paced and rate starts record how late they are against the schedule, so
 * latency can be counted from the intended start (coordinated omission). */
#ifndef LUAMECH_PACE_H
#define LUAMECH_PACE_H

#include "engine/vu.h"
#include "engine/worker.h"

typedef enum { BEGIN_NOW, BEGIN_STOP, BEGIN_WAIT } begin_result;

/* Set up the worker's per-group state (after its VUs are placed): 0, or
 * -1 with a message in err: out of memory (w->groups stays NULL), or a
 * rate group without the timerfd that times its arrivals (every group's
 * handles are set up: pace_close and pace_free undo it). */
int pace_init(worker *w, char *err, size_t err_len);
/* Before t0 (after the VUs are placed): create the coroutines of the VUs
 * of closed and paced groups that will start, then collect garbage. */
void pace_prepare(worker *w);
/* At t0: schedule the first start of every VU and the arrival timers. */
void pace_go(worker *w, uint64_t t0_ns);
/* Decide for v (running, or called from a timer); on BEGIN_WAIT something
 * is armed that calls vu_begin_resume later. */
begin_result pace_try_begin(vu *v);
/* Stopping: waiting VUs are told to stop; due arrivals never started are
 * counted as skipped. */
void pace_stop(worker *w);
/* The last VU ended on its own: count the arrivals it left if time is up. */
void pace_finish(worker *w, uint64_t now_ns);
/* The transaction budget is spent: VUs waiting for an arrival end. */
void pace_release_idle(worker *w);
/* Timer of the stage the VU's transaction started in (staged groups; stage
 * n + 1 is the hold after the last one), or -1. */
int pace_stage_tid(vu *v);
/* v no longer waits for its start (stopped or killed while parked). */
void pace_unwait(vu *v);
void pace_close(worker *w);   /* close handles (teardown) */
void pace_free(worker *w);    /* after the loop has closed them */

#endif
