/* pace.c - load models: closed, paced and arrival-rate starts; see pace.h.
 * Schedules are the pure functions of scenario/schedule.c; this file turns
 * them into timers and decisions for the worker's VUs: the ramp-up's start
 * cursor, the coroutines made before t0, paced slots, arrivals, and
 * begin()'s decision (pace_lua_begin).  No protocol here, no resume other
 * than through vu.c, and no call into worker.c (the worker calls pace; its
 * statistics are written through stats/local.h). */
#include "engine/pace.h"

#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include <errno.h>
#include <string.h>

#include "common/clock.h"
#include "common/text.h"
#include "scenario/plan.h"
#include "scenario/scenario.h"
#include "engine/vu.h"
#include "engine/worker.h"

/* The engine's clock (worker_now_ns), read here without calling the worker. */
static inline uint64_t pace_now_ns(void) { return uv_hrtime(); }

static uint64_t pace_t0(const worker *w) { return atomic_load(&w->shared->t0_ns); }

/* Nothing is meant to start at or after the end of the run. */
static uint64_t pace_end(const worker *w) {
    int64_t rt = w->shared->sc->run_time_ns;
    return rt > 0 ? pace_t0(w) + (uint64_t)rt : UINT64_MAX;
}

static begin_result pace_try_begin(vu *v);

static void pace_on_begin_timer(uv_timer_t *t) {
    vu *v = t->data;
    if (vu_timer_early(v, pace_on_begin_timer)) return;
    begin_result r = pace_try_begin(v);
    if (r != BEGIN_WAIT) vu_begin_resume(v, r == BEGIN_NOW);
}

/* ---- precise waits: paced slots and staged starts ----
 * libuv timers count whole milliseconds (a slot would start up to ~1 ms
 * late, and that lateness counts as latency), so a paced or staged group's
 * VUs waiting for their start sit in a min-heap by due time, and one timerfd
 * per group and worker (CLOCK_MONOTONIC, absolute ns) wakes the loop at the
 * earliest. */

static void pace_arm_at(wgroup *wg, uint64_t at) {
    struct itimerspec its = {{0, 0}, {(time_t)(at / 1000000000), (long)(at % 1000000000)}};
    if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0) its.it_value.tv_nsec = 1;
    timerfd_settime(wg->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void pace_heap_set(wgroup *wg, int i, vu *v) {
    wg->wait[i] = v;
    v->pace.wait_pos = i + 1;
}

static void pace_heap_up(wgroup *wg, int i) {
    vu *v = wg->wait[i];
    while (i > 0 && wg->wait[(i - 1) / 2]->due_ns > v->due_ns) {
        pace_heap_set(wg, i, wg->wait[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    pace_heap_set(wg, i, v);
}

static void pace_heap_down(wgroup *wg, int i) {
    vu *v = wg->wait[i];
    for (;;) {
        int c = 2 * i + 1;
        if (c >= wg->nwait) break;
        if (c + 1 < wg->nwait && wg->wait[c + 1]->due_ns < wg->wait[c]->due_ns) c++;
        if (wg->wait[c]->due_ns >= v->due_ns) break;
        pace_heap_set(wg, i, wg->wait[c]);
        i = c;
    }
    pace_heap_set(wg, i, v);
}

/* Take v out of its group's heap (a stop, a kill); nothing if not in it. */
void pace_unwait(vu *v) {
    if (!v->pace.wait_pos) return;
    wgroup *wg = &v->w->pace.groups[v->group];
    int i = v->pace.wait_pos - 1;
    v->pace.wait_pos = 0;
    vu *last = wg->wait[--wg->nwait];
    if (last == v) return;
    pace_heap_set(wg, i, last);
    pace_heap_up(wg, i);
    pace_heap_down(wg, last->pace.wait_pos - 1);
}

static void pace_on_slot(uv_poll_t *p, int status, int events) {
    wgroup *wg = p->data;
    uint64_t expirations;
    (void)status, (void)events;
    if (read(wg->tfd, &expirations, sizeof expirations) < 0) { /* re-armed since: spurious */ }
    uint64_t now = pace_now_ns();
    while (wg->nwait && wg->wait[0]->due_ns <= now) {   /* a VU waits again only for a later slot */
        vu *v = wg->wait[0];
        pace_unwait(v);
        begin_result r = pace_try_begin(v);
        if (r != BEGIN_WAIT) vu_begin_resume(v, r == BEGIN_NOW);
    }
    if (wg->nwait && !wg->w->run.stopping) pace_arm_at(wg, wg->wait[0]->due_ns);
}

/* ---- the start of a transaction ---- */

static int pace_stage_tid(vu *v);

/* v starts a transaction now that was meant to start at intended_ns; a
 * staged group's stage timer is the one of this instant. */
static void pace_begin_tx(vu *v, uint64_t now, uint64_t intended_ns) {
    vu_begin_tx(v, now, intended_ns);
    v->pace.stage_tid = pace_stage_tid(v);
}

/* ---- closed and paced ---- */

static begin_result pace_wait_until(vu *v, uint64_t at_ns) {
    wgroup *wg = &v->w->pace.groups[v->group];
    v->pace.in_begin = 1;
    if (wg->tfd < 0) {                      /* a group without its timerfd */
        vu_timer_at(v, at_ns, pace_on_begin_timer);
        return BEGIN_WAIT;
    }
    v->due_ns = at_ns;
    wg->wait[wg->nwait++] = v;
    pace_heap_up(wg, wg->nwait - 1);
    if (wg->wait[0] == v) pace_arm_at(wg, at_ns);
    return BEGIN_WAIT;
}

static begin_result pace_closed(vu *v, const group_cfg *g, uint64_t now) {
    uint64_t t0 = pace_t0(v->w);
    int64_t t = (int64_t)(now - t0);
    if (!(sched_target(&g->sched, t) > v->index)) {      /* not wanted now: park */
        int64_t at = sched_first_above(&g->sched, v->index, t);
        v->pace.next_intended_ns = 0;
        if (at == SCHED_NEVER) return BEGIN_STOP;
        return pace_wait_until(v, t0 + (uint64_t)at);
    }
    if (g->model != MODEL_PACED) {
        pace_begin_tx(v, now, now);
        return BEGIN_NOW;
    }
    if (v->pace.next_intended_ns == 0) v->pace.next_intended_ns = now;
    if (v->pace.next_intended_ns >= pace_end(v->w)) return BEGIN_STOP;
    if (now < v->pace.next_intended_ns) return pace_wait_until(v, v->pace.next_intended_ns);
    uint64_t intended = v->pace.next_intended_ns;
    v->pace.next_intended_ns += (uint64_t)g->pacing_ns;        /* the schedule, not the response, sets the next slot */
    pace_begin_tx(v, now, intended);
    return BEGIN_NOW;
}

/* ---- arrival rate ---- */

static uint64_t pace_arrival_ns(const wgroup *wg, uint64_t k) {
    int64_t at = sched_arrival_ns(&wg->cfg->sched, (double)k);
    uint64_t t = at == SCHED_NEVER ? UINT64_MAX : pace_t0(wg->w) + (uint64_t)at;
    return t >= pace_end(wg->w) ? UINT64_MAX : t;
}

/* Count the arrivals that are due by now. */
static void pace_refresh(wgroup *wg, uint64_t now) {
    while (pace_arrival_ns(wg, wg->k_due) <= now) wg->k_due += wg->k_step;
}

static begin_result pace_take_arrival(vu *v, wgroup *wg, uint64_t now) {
    uint64_t intended = pace_arrival_ns(wg, wg->k_assign);
    wg->k_assign += wg->k_step;
    pace_begin_tx(v, now, intended);
    return BEGIN_NOW;
}

static void pace_arm(wgroup *wg);

static begin_result pace_rate(vu *v, wgroup *wg, uint64_t now) {
    pace_refresh(wg, now);
    if (wg->k_assign < wg->k_due) return pace_take_arrival(v, wg, now);
    if (pace_arrival_ns(wg, wg->k_due) == UINT64_MAX) return BEGIN_STOP;   /* the rate ended */
    v->pace.in_begin = 1;
    v->pace.next_idle = wg->idle;
    wg->idle = v;
    return BEGIN_WAIT;
}

/* Start one more pool VU, if the pool may grow. */
static void pace_grow(wgroup *wg) {
    while (wg->nstarted < wg->nvus) {
        vu *v = wg->vus[wg->nstarted++];
        if (v->state != VU_PENDING) continue;
        vu_start(v);                           /* it takes an arrival at its first begin() */
        return;
    }
}

static void pace_dispatch(wgroup *wg) {
    uint64_t now = pace_now_ns();
    pace_refresh(wg, now);
    while (wg->k_assign < wg->k_due && wg->idle && !budget_spent(&wg->w->budget)) {
        vu *v = wg->idle;
        wg->idle = v->pace.next_idle;
        v->pace.in_begin = 0;
        pace_take_arrival(v, wg, now);
        vu_begin_resume(v, 1);
    }
    if (wg->k_assign < wg->k_due && !wg->w->run.stopping && !budget_spent(&wg->w->budget)) pace_grow(wg);
    pace_arm(wg);
}

static void pace_on_arrival(uv_poll_t *p, int status, int events) {
    wgroup *wg = p->data;
    uint64_t expirations;
    (void)status, (void)events;
    if (read(wg->tfd, &expirations, sizeof expirations) < 0) { /* not yet due: spurious */ }
    pace_dispatch(wg);
}

/* Arrivals need finer timing than libuv's millisecond timers: a late start
 * would count as latency.  A timerfd on CLOCK_MONOTONIC (uv_hrtime's clock)
 * wakes the loop at the arrival's nanosecond. */
static void pace_arm(wgroup *wg) {
    if (wg->w->run.stopping || wg->tfd < 0 || budget_spent(&wg->w->budget)) return;
    uint64_t at = pace_arrival_ns(wg, wg->k_due);
    if (at == UINT64_MAX) return;
    pace_arm_at(wg, at);
}

static void pace_disarm(wgroup *wg) {
    struct itimerspec its = {{0, 0}, {0, 0}};
    if (wg->tfd >= 0) timerfd_settime(wg->tfd, 0, &its, NULL);
}

/* ---- the ramp-up of closed and paced groups ----
 * VUs start in index order (see wgroup.next_start) from one timer per
 * group.  A loop turn starts due VUs for at most PACE_START_BUDGET_NS, so
 * that a ramp-up running behind does not hold back the wake-ups and
 * completions of the VUs already running; the next turn goes on. */

#define PACE_START_BUDGET_NS 2000000

static void pace_on_start_timer(uv_timer_t *t);
static void pace_on_start_idle(uv_idle_t *h);

/* When group VU v starts (ns after t0), or SCHED_NEVER. */
static int64_t pace_start_at(const wgroup *wg, const vu *v) {
    return sched_first_above(&wg->cfg->sched, v->index, 0);
}

/* The next pending VU at or after the cursor, or NULL. */
static vu *pace_next_pending(wgroup *wg) {
    while (wg->next_start < wg->nvus) {
        vu *v = wg->vus[wg->next_start];
        if (v->state == VU_PENDING && !v->preflight) return v;
        wg->next_start++;
    }
    return NULL;
}

static void pace_start_due(wgroup *wg) {
    worker *w = wg->w;
    uint64_t t0 = pace_t0(w), begin = pace_now_ns(), now = begin;
    vu *v;
    uv_idle_stop(&wg->start_idle);
    while (!w->run.stopping && (v = pace_next_pending(wg)) != NULL) {
        int64_t at = pace_start_at(wg, v);
        if (at == SCHED_NEVER) return;     /* pace_go stopped those already */
        if (t0 + (uint64_t)at > now) {
            uv_update_time(&w->loop);
            /* uv_timer_start and uv_idle_start fail only without a callback or on a closing handle */
            uv_timer_start(&wg->start_timer, pace_on_start_timer, clock_ms_until(t0 + (uint64_t)at, now), 0);
            return;
        }
        if (now - begin >= PACE_START_BUDGET_NS) {
            uv_idle_start(&wg->start_idle, pace_on_start_idle);
            return;
        }
        wg->next_start++;
        vu_start(v);
        now = pace_now_ns();
    }
}

static void pace_on_start_timer(uv_timer_t *t) { pace_start_due(t->data); }

static void pace_on_start_idle(uv_idle_t *h) { pace_start_due(h->data); }

/* At t0: the VUs that never start are done (a suffix of the group, by the
 * order above), the preflight VU goes on at its own time, and the cursor
 * starts the others. */
/* A VU's first start at at_ns; a preflight VU, started before t0 and
 * waiting in begin(), takes its first transaction then. */
static void pace_schedule(vu *v, uint64_t at_ns) {
    if (v->preflight) vu_timer_at(v, at_ns, pace_on_begin_timer);
    else vu_schedule(v, at_ns);
}

static void pace_go_closed(wgroup *wg, uint64_t t0) {
    int n = wg->nvus;
    while (n > 0 && pace_start_at(wg, wg->vus[n - 1]) == SCHED_NEVER) {
        vu *v = wg->vus[--n];
        if (v->state != VU_DONE) vu_stop(v);
    }
    for (int i = 0; i < n; i++) {
        vu *v = wg->vus[i];
        if (v->preflight && v->state != VU_DONE) pace_schedule(v, t0 + (uint64_t)pace_start_at(wg, v));
    }
    wg->next_start = 0;
    pace_start_due(wg);
}

/* Before t0: the coroutines of the VUs that will start, so that a start is
 * a resume (no allocation, page faults or garbage collection during the
 * ramp-up); then a full collection, so that no collector cycle is under way
 * at t0.  Rate groups grow their pools on demand: not theirs. */
void pace_prepare(worker *w) {
    int any = 0;
    for (int g = 0; g < w->shared->sc->ngroups; g++) {
        wgroup *wg = &w->pace.groups[g];
        if (wg->cfg->model == MODEL_RATE) continue;
        for (int i = 0; i < wg->nvus; i++) {
            vu *v = wg->vus[i];
            if (v->preflight || v->state != VU_PENDING) continue;
            if (pace_start_at(wg, v) == SCHED_NEVER) break;   /* nor any after it */
            vu_prepare(v);
            any = 1;
        }
    }
    if (any) lua_gc(w->L, LUA_GCCOLLECT, 0);
}

/* ---- entry points ---- */

/* Decide for v (running, or called from a timer); on BEGIN_WAIT something
 * is armed that calls vu_begin_resume later. */
static begin_result pace_try_begin(vu *v) {
    worker *w = v->w;
    uint64_t fin = v->fin_now_ns;           /* finish's clock read, just before this begin */
    v->fin_now_ns = 0;
    if (w->run.stopping || budget_spent(&w->budget)) return BEGIN_STOP;
    const group_cfg *g = &w->shared->sc->groups[v->group];
    uint64_t now = fin ? fin : pace_now_ns();
    v->pace.in_begin = 0;
    if (now >= pace_end(w)) return BEGIN_STOP;
    if (g->model == MODEL_RATE) return pace_rate(v, &w->pace.groups[v->group], now);
    return pace_closed(v, g, now);
}

int pace_lua_begin(lua_State *L) {
    worker *w = lua_touserdata(L, lua_upvalueindex(1));
    vu *v = w->current;
    if (v->preflight && !w->run.going) return vu_preflight_begin(v, L);
    begin_result r = pace_try_begin(v);
    if (r == BEGIN_WAIT) return vu_wait(v, L);
    lua_pushboolean(L, r == BEGIN_NOW);
    return 1;
}

void pace_ids(worker *w) {
    w->pace.tid_sched_lag = stats_timer_id(&w->stats, STATS_ENGINE_SCHEDULE_LAG, TK_ENGINE);
    w->pace.cid_late = stats_counter_kind_id(&w->stats, "engine.late_starts", CK_ENGINE);
    w->pace.cid_skipped = stats_counter_kind_id(&w->stats, "engine.skipped_starts", CK_ENGINE);
}

/* The group's timerfd, watched by the loop: arrivals (rate) or slots.  0,
 * or a negative errno / libuv status with none (wg->tfd stays -1): a paced or
 * staged group then waits on libuv timers; a rate group cannot run. */
static int pace_timerfd(worker *w, wgroup *wg) {
    int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC), rc;
    if (fd < 0) return -errno;
    if ((rc = uv_poll_init(&w->loop, &wg->poll, fd)) != 0) {
        close(fd);
        return rc;
    }
    wg->poll.data = wg;
    rc = uv_poll_start(&wg->poll, UV_READABLE, wg->cfg->model == MODEL_RATE ? pace_on_arrival : pace_on_slot);
    if (rc != 0) {
        uv_close((uv_handle_t *)&wg->poll, NULL);   /* w->pace.groups outlives the loop's last turn */
        close(fd);
        return rc;
    }
    wg->tfd = fd;
    return 0;
}

/* The per-group arrays: 0, or -1 with nothing left allocated. */
static int pace_alloc(worker *w) {
    const scenario *sc = w->shared->sc;
    int ok = (w->pace.groups = calloc((size_t)sc->ngroups, sizeof *w->pace.groups)) != NULL;
    for (int g = 0; ok && g < sc->ngroups; g++) {
        wgroup *wg = &w->pace.groups[g];
        wg->vus = calloc((size_t)sc->groups[g].vus + 1, sizeof *wg->vus);
        wg->wait = calloc((size_t)sc->groups[g].vus + 1, sizeof *wg->wait);
        ok = wg->vus && wg->wait;
    }
    if (ok) return 0;
    for (int g = 0; w->pace.groups && g < sc->ngroups; g++) {
        free(w->pace.groups[g].vus);
        free(w->pace.groups[g].wait);
    }
    free(w->pace.groups);
    w->pace.groups = NULL;
    return -1;
}

int pace_init(worker *w, char *err, size_t err_len) {
    const scenario *sc = w->shared->sc;
    int nw = w->shared->nworkers;
    if (pace_alloc(w) != 0) return text_errf(err, err_len, "worker %d: out of memory for its groups", w->id + 1);
    for (int g = 0; g < sc->ngroups; g++) {    /* every group's handles first: pace_close closes them all */
        wgroup *wg = &w->pace.groups[g];
        wg->cfg = &sc->groups[g];
        wg->w = w;
        for (int k = 0; k <= SCHED_MAX_STAGES; k++) wg->tid_stage[k] = -1;
        wg->tfd = -1;
        uv_timer_init(&w->loop, &wg->start_timer);   /* these only link the handle: they cannot fail */
        uv_idle_init(&w->loop, &wg->start_idle);
        wg->start_timer.data = wg->start_idle.data = wg;
        plan_worker_arrivals(sc, g, nw, w->id, &wg->k_first, &wg->k_step);
    }
    for (int g = 0; g < sc->ngroups; g++) {
        const group_cfg *gc = &sc->groups[g];
        if (gc->model != MODEL_RATE && gc->model != MODEL_PACED && !gc->staged) continue;
        int rc = pace_timerfd(w, &w->pace.groups[g]);
        if (rc != 0 && gc->model == MODEL_RATE)
            return text_errf(err, err_len, "worker %d: cannot time the arrivals of group '%s' (timerfd: %s)",
                             w->id + 1, gc->name, uv_strerror(rc));
    }
    for (int g = 0; g < sc->ngroups; g++)
        if (sc->groups[g].model != MODEL_CLOSED) w->pace.any_scheduled = 1;
    /* The kernel may defer this thread's timer expiries by its "timer slack"
     * (50 us by default) to batch wake-ups: 1 us keeps starts on time. */
    if (w->pace.any_scheduled && prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0) != 0) { /* the default slack stays */ }
    for (int i = 0; i < w->nvus; i++) {
        wgroup *wg = &w->pace.groups[w->vus[i].group];
        wg->vus[wg->nvus++] = &w->vus[i];
        w->vus[i].pace.scheduled = wg->cfg->model != MODEL_CLOSED;
        w->vus[i].pace.stage_tid = -1;
    }
    return 0;
}

void pace_go(worker *w, uint64_t t0) {
    for (int g = 0; g < w->shared->sc->ngroups; g++) {
        wgroup *wg = &w->pace.groups[g];
        if (wg->cfg->model != MODEL_RATE) {
            pace_go_closed(wg, t0);
            continue;
        }
        for (int i = 0; i < wg->nvus; i++) {
            vu *v = wg->vus[i];
            if (v->state == VU_DONE) continue;
            if (v->index < wg->cfg->prealloc || v->preflight) pace_schedule(v, t0), wg->nstarted++;
        }
        if (wg->nvus > 0) {
            wg->k_due = wg->k_assign = wg->k_first;
            pace_arm(wg);
        }
    }
}

/* No more starts in this group: its VUs waiting in begin() (for an
 * arrival, a slot or their ramp-up start, on the group's timerfd or their
 * own timer) end, begin() returning false. */
static void pace_release(wgroup *wg) {
    pace_disarm(wg);
    wg->idle = NULL;
    for (int i = 0; i < wg->nvus; i++) {
        vu *v = wg->vus[i];
        if (!v->pace.in_begin) continue;
        pace_unwait(v);
        uv_timer_stop(&v->timer);
        v->pace.in_begin = 0;
        vu_begin_resume(v, 0);
    }
}

void pace_release_idle(worker *w) {
    for (int g = 0; w->pace.groups && g < w->shared->sc->ngroups; g++) pace_release(&w->pace.groups[g]);
}

/* Arrivals still waiting for a VU when the run stops never start: each is
 * counted on the All Transactions and group timers (skipped), with the time
 * it had waited, which the "(all)" figures include.  Past a million, every
 * stride-th arrival stands for stride of them (bounded work at the stop). */
static void pace_record_skipped(wgroup *wg, uint64_t now) {
    worker *w = wg->w;
    uint64_t step = wg->k_step, n = (wg->k_due - wg->k_assign) / step;
    uint64_t stride = n > 1000000 ? n / 1000000 : 1;
    for (uint64_t k = wg->k_assign; k < wg->k_due; k += step * stride) {
        uint64_t left = (wg->k_due - k + step - 1) / step, weight = left < stride ? left : stride;
        uint64_t at = pace_arrival_ns(wg, k);
        int64_t wait = at < now ? (int64_t)(now - at) : 0;
        stats_skipped(&w->stats, w->tid_all, wait, (int64_t)weight);
        stats_skipped(&w->stats, w->tid_group[wg->cfg - w->shared->sc->groups], wait, (int64_t)weight);
    }
}

/* Count the arrivals due by now that no VU took, once per run group. */
static void pace_settle_skipped(worker *w, uint64_t now) {
    for (int g = 0; w->pace.groups && g < w->shared->sc->ngroups; g++) {
        wgroup *wg = &w->pace.groups[g];
        if (wg->cfg->model != MODEL_RATE || wg->nvus == 0 || wg->settled) continue;
        wg->settled = 1;
        pace_refresh(wg, now);
        uint64_t skipped = (wg->k_due - wg->k_assign) / wg->k_step;
        if (skipped) stats_count(&w->stats, w->pace.cid_skipped, (int64_t)skipped);
        if (skipped) pace_record_skipped(wg, now);
        wg->k_assign = wg->k_due;
    }
}

/* The last VU ended without a stop: a rate VU that finds the run's time
 * over ends on its own, and the arrivals still queued for it were skipped
 * all the same.  (Ending on the transaction budget skips nothing.) */
void pace_finish(worker *w, uint64_t now) {
    if (now >= pace_end(w)) pace_settle_skipped(w, now);
}

void pace_stop(worker *w) {
    pace_settle_skipped(w, pace_now_ns());
    for (int g = 0; g < w->shared->sc->ngroups; g++) {
        wgroup *wg = &w->pace.groups[g];
        uv_timer_stop(&wg->start_timer);           /* no more starts */
        uv_idle_stop(&wg->start_idle);
        pace_release(wg);
    }
}

/* Timer of the stage the VU's transaction started in (staged groups; stage
 * n + 1 is the hold after the last one), or -1. */
static int pace_stage_tid(vu *v) {
    worker *w = v->w;
    wgroup *wg = &w->pace.groups[v->group];
    const schedule *s = &wg->cfg->sched;
    if (!wg->cfg->staged) return -1;
    int64_t t = (int64_t)(v->tx_start_ns - pace_t0(w)), end = 0;
    int k = 0;
    while (k < s->n && t >= (end += s->st[k].dur_ns)) k++;
    if (wg->tid_stage[k] < 0) {
        char name[300];
        snprintf(name, sizeof name, "stage %d %s", k + 1, wg->cfg->name);
        wg->tid_stage[k] = stats_group_timer_id(&w->stats, name, TK_STAGE, v->group, k + 1);
    }
    return wg->tid_stage[k];
}

void pace_close(worker *w) {
    for (int g = 0; w->pace.groups && g < w->shared->sc->ngroups; g++) {
        if (w->pace.groups[g].tfd >= 0) uv_close((uv_handle_t *)&w->pace.groups[g].poll, NULL);
        uv_close((uv_handle_t *)&w->pace.groups[g].start_timer, NULL);
        uv_close((uv_handle_t *)&w->pace.groups[g].start_idle, NULL);
    }
}

void pace_free(worker *w) {
    for (int g = 0; w->pace.groups && g < w->shared->sc->ngroups; g++) {
        if (w->pace.groups[g].tfd >= 0) close(w->pace.groups[g].tfd);
        free(w->pace.groups[g].vus);
        free(w->pace.groups[g].wait);
    }
    free(w->pace.groups);
    w->pace.groups = NULL;
}
