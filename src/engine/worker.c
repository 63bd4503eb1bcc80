/* worker.c - a worker thread: owns one uv loop and one lua_State, starts its
 * VUs on the ramp-up schedule, rotates worker-local statistics at tick
 * boundaries and hands them to the main thread, and stops (gracefully, then
 * hard) on command.  It knows no protocol: bindings are opened through
 * lm_open_all and clean up through close hooks. */
#include "engine/worker.h"

#include <assert.h>
#include <lauxlib.h>
#include <pthread.h>
#include <sched.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/embedded.h"
#include "engine/pace.h"
#include "engine/vu.h"
#include "scenario/script.h"
#include "scenario/plan.h"

uint64_t worker_now_ns(void) { return uv_hrtime(); }

double worker_run_time_s(const worker *w) {
    uint64_t t0 = atomic_load(&w->shared->t0_ns);
    if (!w->run.going) return -0.0;
    return (double)(int64_t)(worker_now_ns() - t0) / 1e9;
}

/* Queue a tick for the main thread and, under the same lock, take the
 * messages it has merged and handed back (reused by the next ticks). */
static void worker_send(worker *w, tick_msg *m) {
    run_shared *s = w->shared;
    uv_mutex_lock(&s->mu);
    if (s->q_tail) s->q_tail->next = m;
    else s->q_head = m;
    s->q_tail = m;
    tick_msg *back = s->back ? s->back[w->id] : NULL;
    if (s->back) s->back[w->id] = NULL;
    uv_mutex_unlock(&s->mu);
    uv_async_send(s->notify);
    stats_local_take_back(&w->stats, back);
}

static void worker_flush(worker *w, int final) {
    assert(w->tick.index <= w->tick.cap);   /* ticks go out in order, none past the cap */
    assert(final || !w->run.finished);      /* none after the final one */
    health_flush(&w->health);
    tick_msg *m = stats_local_flush(&w->stats, w->id, w->tick.index);
    if (!m) {            /* out of memory: the tick's data stays for the next one */
        if (!final) return;
        m = calloc(1, sizeof *m);   /* the final mark must arrive */
        if (!m) return;
        m->worker = w->id;
        m->tick = w->tick.index;
    }
    m->final = final;
    m->active_vus = w->active;
    m->started_vus = w->started;
    worker_send(w, m);
}

/* After the final tick: samples recorded while the worker closed its
 * clients (requests cancelled by a hard stop) go to the main thread in one
 * more message of the last tick, which it merges into the last interval. */
static void worker_flush_late(worker *w) {
    int any = 0;
    for (int i = 0; i < w->stats.n && !any; i++) {
        const stat_timer *t = &w->stats.timers[i];
        any = t->h || t->nok || t->errors || t->cancelled || t->skipped;
    }
    if (!any || !w->run.going) return;
    tick_msg *m = stats_local_flush(&w->stats, w->id, w->tick.index);
    if (m) worker_send(w, m);
}

void worker_rotate(worker *w, uint64_t now_ns) {
    while (w->run.going && now_ns >= w->tick.next_ns && w->tick.index < w->tick.cap) {
        worker_flush(w, 0);
        w->tick.index++;
        w->tick.next_ns += (uint64_t)w->shared->tick_ns;
    }
}

void worker_record(worker *w, int id, int64_t dur_ns, uint64_t now_ns, int ok) {
    if (now_ns >= w->tick.next_ns) worker_rotate(w, now_ns);
    stats_record(&w->stats, id, dur_ns < 0 ? 0 : dur_ns, ok);
}

void worker_error(worker *w, const char *msg, size_t len) { stats_req_error(&w->stats, msg, len); }

void worker_tx_error(worker *w, const char *msg, size_t len) { stats_error(&w->stats, msg, len); }

int worker_counter_id(worker *w, const char *name) { return stats_counter_id(&w->stats, name); }

void worker_record_n(worker *w, const int *ids, int n, int64_t dur_ns, uint64_t now_ns, int ok) {
    if (now_ns >= w->tick.next_ns) worker_rotate(w, now_ns);
    stats_record_n(&w->stats, ids, n, dur_ns < 0 ? 0 : dur_ns, ok);
}

void worker_record_count(worker *w, int id, int64_t dur_ns, uint64_t now_ns, int ok, int64_t count) {
    if (now_ns >= w->tick.next_ns) worker_rotate(w, now_ns);
    stats_record_count(&w->stats, id, dur_ns < 0 ? 0 : dur_ns, ok, count);
}

int worker_twin(worker *w, int tid) { return stats_twin_id(&w->stats, tid); }

/* Counters go to the current tick without reading the clock (the tick timer
 * rotates ticks; a count at a boundary may land in the neighbouring tick). */
void worker_count(worker *w, int id, int64_t n) { stats_count(&w->stats, id, n); }

void worker_skipped(worker *w, int id, int64_t wait_ns, int64_t n) { stats_skipped(&w->stats, id, wait_ns, n); }

void worker_on_close(worker *w, worker_close_fn fn, void *data) {
    if (w->closing.n == w->closing.cap) {
        int cap = w->closing.cap ? w->closing.cap * 2 : 8;
        worker_close_fn *fns = realloc(w->closing.fn, (size_t)cap * sizeof *fns);
        if (fns) w->closing.fn = fns;
        void **datas = fns ? realloc(w->closing.data, (size_t)cap * sizeof *datas) : NULL;
        if (!datas) {        /* a client could not be closed at teardown: give up now */
            fprintf(stderr, "luamech: worker %d: out of memory\n", w->id + 1);
            abort();
        }
        w->closing.data = datas;
        w->closing.cap = cap;
    }
    w->closing.fn[w->closing.n] = fn;
    w->closing.data[w->closing.n++] = data;
}

void worker_preflight_result(worker *w, const char *errmsg) {
    run_shared *s = w->shared;
    uv_mutex_lock(&s->mu);
    if (errmsg && !s->failed) {
        s->failed = 1;
        snprintf(s->fail_msg, sizeof s->fail_msg, "%s", errmsg);
    }
    if (!errmsg && w->preflight_pending > 0 && --w->preflight_pending == 0) s->ready++;
    uv_mutex_unlock(&s->mu);
    uv_async_send(s->notify);
}

void worker_script_stop(worker *w, int abort, const char *reason) {
    run_shared *s = w->shared;
    uv_mutex_lock(&s->mu);
    if (s->script_stop < 1 + abort) {
        s->script_stop = 1 + abort;
        snprintf(s->stop_reason, sizeof s->stop_reason, "%s", reason);
    }
    uv_mutex_unlock(&s->mu);
    uv_async_send(s->notify);
}

/* ---- ready queue: VUs that yielded only to let the loop run ---- */

static void worker_on_idle(uv_idle_t *h);

void worker_make_ready(worker *w, vu *v) {
    assert(v->state != VU_READY && v->state != VU_DONE);   /* in the queue at most once, never after its end */
    vu_set_state(v, VU_READY);
    v->next_ready = NULL;
    if (w->ready.tail) w->ready.tail->next_ready = v;
    else w->ready.head = v;
    w->ready.tail = v;
    uv_idle_start(&w->ready.idle, worker_on_idle);
}

static void worker_on_idle(uv_idle_t *h) {
    worker *w = h->data;
    vu *v = w->ready.head;
    w->ready.head = w->ready.tail = NULL;
    uv_idle_stop(h);
    while (v) {
        vu *next = v->next_ready;
        int nargs = v->ready_nargs;
        v->ready_nargs = 0;
        if (v->state == VU_READY) vu_resume(v, nargs);
        v = next;
    }
}

/* ---- stopping ---- */

static void worker_finish(worker *w);

void worker_vu_done(worker *w, vu *v) {
    pace_unwait(v);                 /* ended while parked for its start */
    assert(w->done < w->nvus && (!v->started || w->active > 0));   /* each VU ends once */
    if (v->started) w->active--;
    w->done++;
    if (w->done == w->nvus && w->run.going) worker_finish(w);
}

static void worker_stop_all(worker *w, int hard) {
    for (int i = 0; i < w->nvus; i++) {
        if (hard) vu_kill(&w->vus[i]);
        else vu_stop(&w->vus[i]);
    }
}

static void worker_on_grace(uv_timer_t *t) {
    worker *w = t->data;
    w->run.hard = 1;
    worker_stop_all(w, 1);
}

static void worker_begin_stop(worker *w) {
    if (w->run.stopping) return;
    w->run.stopping = 1;
    worker_rotate(w, worker_now_ns());
    w->tick.cap = w->tick.index;   /* late samples land in the last tick */
    int64_t grace_ms = w->shared->sc->graceful_stop_ns / 1000000;
    uv_timer_start(&w->grace_timer, worker_on_grace, (uint64_t)grace_ms, 0);
    health_stop(&w->health);
    if (w->pace.groups) pace_stop(w);
    worker_stop_all(w, 0);
}

/* Called directly by the start that took the budget's last transaction,
 * also from inside a VU's begin(): the VUs it resumes wait in the ready
 * queue until that VU yields (vu_resume). */
void worker_budget_spent(worker *w) {
    for (int i = 0; i < w->nvus; i++)
        if (w->vus[i].state == VU_PENDING) vu_stop(&w->vus[i]);
    pace_release_idle(w);
}

static void worker_close_walk(uv_handle_t *h, void *arg) {
    (void)arg;
    if (!uv_is_closing(h)) uv_close(h, NULL);
}

static void worker_finish(worker *w) {
    if (w->run.finished) return;
    w->run.finished = 1;
    w->run.end_ns = worker_now_ns();
    if (!w->run.stopping) pace_finish(w, w->run.end_ns);
    worker_rotate(w, w->run.end_ns);
    w->tick.cap = w->tick.index;   /* later samples stay in this tick (worker_flush_late) */
    worker_flush(w, 1);
    uv_stop(&w->loop);
}

static void worker_teardown(worker *w) {
    uv_mutex_lock(&w->shared->mu);
    w->alive = 0;
    lua_sethook(w->L, NULL, 0, 0);   /* a watchdog hook that never fired must not fire in __gc */
    uv_mutex_unlock(&w->shared->mu);
    for (int i = 0; i < w->closing.n; i++) w->closing.fn[i](w->closing.data[i]);
    lua_close(w->L);
    worker_flush_late(w);
    w->L = NULL;
    uv_walk(&w->loop, worker_close_walk, NULL);
    uv_run(&w->loop, UV_RUN_DEFAULT);
    int busy = uv_loop_close(&w->loop);     /* UV_EBUSY: a handle or request outlived its client */
    assert(busy == 0);
    (void)busy;
    stats_local_free(&w->stats);
    free(w->closing.fn);
    free(w->closing.data);
}

/* ---- start ---- */

static void worker_go(worker *w) {
    uint64_t t0 = atomic_load(&w->shared->t0_ns);
    const scenario *sc = w->shared->sc;
    w->run.going = 1;
    w->tick.index = 0;
    w->tick.next_ns = t0 + (uint64_t)w->shared->tick_ns;
    w->tick.cap = sc->run_time_ns > 0
        ? (sc->run_time_ns + w->shared->tick_ns - 1) / w->shared->tick_ns - 1 : INT64_MAX;
    health_go(&w->health);
    pace_go(w, t0);
    if (budget_spent(&w->budget)) worker_budget_spent(w);   /* a share of none */
    if (w->done == w->nvus) worker_finish(w);
}

static void worker_on_tick(uv_timer_t *t) {
    worker *w = t->data;
    uint64_t now = worker_now_ns();
    worker_rotate(w, now);
    uint64_t due = w->tick.next_ns > now ? (w->tick.next_ns - now) / 1000000 + 1 : 1;
    uv_timer_start(t, worker_on_tick, due, 0);
}

static void worker_on_wake(uv_async_t *h) {
    worker *w = h->data;
    int cmd = atomic_exchange(&w->cmd, 0);
    if ((cmd & WCMD_GO) && !w->run.going) {
        worker_go(w);
        worker_on_tick(&w->tick.timer);
    }
    if (cmd & (WCMD_STOP | WCMD_HARD)) worker_begin_stop(w);
    if (cmd & WCMD_HARD) worker_on_grace(&w->grace_timer);
    if (!w->run.going && (cmd & (WCMD_STOP | WCMD_HARD))) worker_finish(w);
}

/* Safe from any thread, also after the worker has finished: `alive` is
 * cleared under the lock before the wake handle is closed. */
void worker_command(worker *w, int cmd) {
    uv_mutex_lock(&w->shared->mu);
    if (w->alive) {
        atomic_fetch_or(&w->cmd, cmd);
        uv_async_send(&w->wake);
    }
    uv_mutex_unlock(&w->shared->mu);
}

static int worker_load_scripts(worker *w, char *err, size_t err_len) {
    const scenario *sc = w->shared->sc;
    w->script.chunk_ref = calloc((size_t)sc->ngroups + 1, sizeof *w->script.chunk_ref);
    w->tid_group = calloc((size_t)sc->ngroups + 1, sizeof *w->tid_group);
    if (!w->script.chunk_ref || !w->tid_group) {
        snprintf(err, err_len, "worker %d: out of memory", w->id + 1);
        return -1;
    }
    for (int g = 0; g < sc->ngroups; g++) {
        if (script_load(w->L, sc->groups[g].script_path, err, err_len) != 0) return -1;
        w->script.chunk_ref[g] = luaL_ref(w->L, LUA_REGISTRYINDEX);
        char name[256];
        snprintf(name, sizeof name, "group %s", sc->groups[g].name);
        w->tid_group[g] = stats_group_timer_id(&w->stats, name, TK_GROUP, g, 0);
    }
    return 0;
}

static int worker_load_body(worker *w, char *err, size_t err_len) {
    size_t len;
    const char *src = embedded_lua_find("vu", &len);
    if (!src || luaL_loadbuffer(w->L, src, len, "=vu.lua") != 0) {
        snprintf(err, err_len, "internal error: cannot load vu.lua");
        return -1;
    }
    lua_CFunction fns[] = {pace_lua_begin, vu_lua_finish, vu_lua_init_failed};
    for (int i = 0; i < 3; i++) {
        lua_pushlightuserdata(w->L, w);
        lua_pushcclosure(w->L, fns[i], 1);
    }
    int mode = w->shared->sc->lifecycle;        /* the lifecycle mode: the script is the scenario file */
    if (mode) lua_pushstring(w->L, mode == 1 ? "setup" : "teardown");
    else lua_pushnil(w->L);
    lua_call(w->L, 4, 1);
    w->script.body_ref = luaL_ref(w->L, LUA_REGISTRYINDEX);
    lua_newtable(w->L);                         /* VU env metatable: reads fall back to _G */
    lua_pushvalue(w->L, LUA_GLOBALSINDEX);
    lua_setfield(w->L, -2, "__index");
    w->script.env_mt_ref = luaL_ref(w->L, LUA_REGISTRYINDEX);
    return 0;
}

/* This worker's VUs: of the VUs in this process's segment (all of them
 * unsegmented; plan_segment_has_vu), taken in run order, the p-th runs on
 * worker p % nworkers.  Group g's VU i keeps its run-wide id (offset_g + i
 * + 1, its random stream) and index i (it starts at i * rampup / vus); the
 * segment's first VU of each group is its preflight VU. */
static int worker_place_vus(worker *w, char *err, size_t err_len) {
    const scenario *sc = w->shared->sc;
    int nw = w->shared->nworkers;
    int64_t p = 0, id = 0;
    for (int g = 0; g < sc->ngroups; g++)
        for (int i = 0; i < sc->groups[g].vus; i++, id++)
            if (plan_segment_has_vu(sc, id) && p++ % nw == w->id) w->nvus++;
    w->vus = calloc((size_t)(w->nvus ? w->nvus : 1), sizeof *w->vus);
    if (!w->vus) {
        snprintf(err, err_len, "worker %d: out of memory for its %d VUs (%zu bytes each at least)",
                 w->id + 1, w->nvus, sizeof *w->vus);
        w->nvus = 0;
        return -1;
    }
    if (w->raw.f && !(w->rawtx = calloc((size_t)(w->nvus ? w->nvus : 1), sizeof *w->rawtx))) {
        snprintf(err, err_len, "worker %d: out of memory for the --mm-results timers of its %d VUs",
                 w->id + 1, w->nvus);
        w->nvus = 0;                   /* none initialised: none to close */
        return -1;
    }
    int k = 0;
    p = id = 0;
    for (int g = 0; g < sc->ngroups; g++) {
        int first = 1;
        for (int i = 0; i < sc->groups[g].vus; i++, id++) {
            if (!plan_segment_has_vu(sc, id)) continue;
            int mine = p++ % nw == w->id, preflight = first;
            first = 0;
            if (!mine) continue;
            vu *v = &w->vus[k++];
            vu_init(v, w, (int)id + 1, g, i, w->shared->seed);
            v->preflight = preflight;
            if (w->rawtx) v->rawtx = &w->rawtx[k - 1];
        }
    }
    return 0;
}

static void worker_preflight(worker *w) {
    for (int i = 0; i < w->nvus; i++) if (w->vus[i].preflight) w->preflight_pending++;
    if (w->preflight_pending == 0) {       /* nothing to check here: ready */
        w->preflight_pending = 1;
        worker_preflight_result(w, NULL);
        return;
    }
    for (int i = 0; i < w->nvus; i++) if (w->vus[i].preflight) vu_start(&w->vus[i]);
}

/* --cpus: this worker runs on one CPU, so a pinned server can have the other. */
static void worker_pin(worker *w) {
    const scenario *sc = w->shared->sc;
    if (sc->ncpus <= 0) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(sc->cpus[w->id % sc->ncpus], &set);
    int rc = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    if (rc != 0) {
        char msg[128];
        snprintf(msg, sizeof msg, "cannot pin worker %d to CPU %d: %s", w->id, sc->cpus[w->id % sc->ncpus],
                 strerror(rc));
        worker_preflight_result(w, msg);
    }
}

static void worker_main(void *arg) {
    worker *w = arg;
    char err[1024], name[16];
    snprintf(name, sizeof name, "lm-worker-%u", (unsigned)(w->id + 1) % 100000u);
    pthread_setname_np(pthread_self(), name);    /* top -H, perf: best effort */
    worker_pin(w);
    if (w->shared->rawlog_dir) rawlog_open(&w->raw, w->shared->rawlog_dir, w->id);
    int placed = worker_load_body(w, err, sizeof err) == 0 && worker_load_scripts(w, err, sizeof err) == 0 &&
                 worker_place_vus(w, err, sizeof err) == 0;
    if (placed && pace_init(w, err, sizeof err) != 0) placed = 0;
    if (!placed) {
        worker_preflight_result(w, err);
        w->run.going = 0;
    } else {
        pace_prepare(w);
        health_dispatch_init(&w->health, &w->loop, &w->stats);   /* on failure not measured; the run goes on */
        worker_preflight(w);
    }
    uv_run(&w->loop, UV_RUN_DEFAULT);
    if (!w->run.finished) worker_finish(w);
    for (int i = 0; i < w->nvus; i++) vu_close(&w->vus[i]);
    pace_close(w);
    worker_teardown(w);
    pace_free(w);
    rawlog_close(&w->raw);
    free(w->rawtx);
    w->rawtx = NULL;
    free(w->script.chunk_ref);
    free(w->tid_group);
}

/* ---- the watchdog's hook (runs on the worker's thread) ---- */

#define WORKER_REG_KEY "luamech.worker"

/* Fired by a count hook the main thread set (worker_interrupt): note where
 * the code was, stop the worker's run, and raise an error in the running
 * code.  One shot: a script that catches the error and spins on is
 * abandoned by the engine. */
static void worker_on_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    lua_sethook(L, NULL, 0, 0);
    lua_getfield(L, LUA_REGISTRYINDEX, WORKER_REG_KEY);
    worker *w = lua_touserdata(L, -1);
    lua_pop(L, 1);
    if (!w) return;
    lua_Debug d;
    if (lua_getstack(L, 0, &d) && lua_getinfo(L, "Sl", &d) && d.currentline > 0)
        snprintf(w->watch.stuck_where, sizeof w->watch.stuck_where, "%s:%d", d.short_src, d.currentline);
    worker_begin_stop(w);
    lua_pushfstring(L, "stopped by the watchdog: the VU ran too long without yielding%s%s",
                    w->watch.stuck_where[0] ? " at " : "", w->watch.stuck_where);
    lua_error(L);
}

int worker_interrupt(worker *w) {
    int rc = -1;
    uv_mutex_lock(&w->shared->mu);
    if (w->alive && w->L) {          /* teardown clears alive under mu before lua_close */
        lua_sethook(w->L, worker_on_hook, LUA_MASKCOUNT, 1);
        rc = 0;
    }
    uv_mutex_unlock(&w->shared->mu);
    return rc;
}

/* The worker's Lua state: libraries, bindings, and the registry entry the
 * watchdog's hook finds the worker by.  Run protected (allocations). */
static int worker_open_lua(lua_State *L) {
    worker *w = lua_touserdata(L, 1);
    luaL_openlibs(L);
    assert(w->shared->open_lua);           /* engine_run refuses a run without it */
    w->shared->open_lua(L, w);
    lua_pushlightuserdata(L, w);
    lua_setfield(L, LUA_REGISTRYINDEX, WORKER_REG_KEY);
    return 0;
}

/* Undo worker_start's loop after a failure (no thread yet). */
static void worker_start_undo(worker *w, int nhandles) {
    if (w->L) lua_close(w->L);
    w->L = NULL;
    if (nhandles > 0) {
        uv_walk(&w->loop, worker_close_walk, NULL);
        uv_run(&w->loop, UV_RUN_DEFAULT);
    }
    uv_loop_close(&w->loop);
    stats_local_free(&w->stats);
}

static int worker_start_fail(worker *w, int nhandles, int rc, const char *what, char *err, size_t err_len) {
    snprintf(err, err_len, "cannot start worker %d: %s: %s", w->id + 1, what,
             rc ? uv_strerror(rc) : "out of memory");
    worker_start_undo(w, nhandles);
    return -1;
}

int worker_start(worker *w, int id, run_shared *shared, int64_t quota, char *err, size_t err_len) {
    memset(w, 0, sizeof *w);
    w->id = id;
    w->shared = shared;
    budget_init(&w->budget, quota);
    int rc = uv_loop_init(&w->loop);
    if (rc != 0) {
        snprintf(err, err_len, "cannot start worker %d: its event loop: %s", id + 1, uv_strerror(rc));
        return -1;
    }
    stats_local_init(&w->stats);
    w->stats.max_timers = w->shared->sc->max_timers > 0 ? w->shared->sc->max_timers : STATS_MAX_TIMERS;
    if ((rc = uv_async_init(&w->loop, &w->wake, worker_on_wake)) != 0)
        return worker_start_fail(w, 0, rc, "its wake-up handle", err, err_len);
    uv_timer_init(&w->loop, &w->tick.timer);      /* these only link the handle: they cannot fail */
    uv_timer_init(&w->loop, &w->grace_timer);
    uv_idle_init(&w->loop, &w->ready.idle);
    wheel_init(&w->wheel, &w->loop, vu_wheel_wake);
    w->wake.data = w->tick.timer.data = w->grace_timer.data = w->ready.idle.data = w;
    w->tid_all = stats_timer_id(&w->stats, "All Transactions", TK_ALL);
    health_init(&w->health, w, &w->loop, &w->stats);    /* the figures' ids in their order of old */
    pace_ids(w);
    health_counters(&w->health, &w->stats);
    w->L = luaL_newstate();
    if (!w->L) return worker_start_fail(w, 1, 0, "its Lua state", err, err_len);
    if (lua_cpcall(w->L, worker_open_lua, w) != 0) {
        char why[256];
        snprintf(why, sizeof why, "its Lua libraries (%s)", lua_tostring(w->L, -1));
        return worker_start_fail(w, 1, 0, why, err, err_len);
    }
    w->alive = 1;
    if ((rc = uv_thread_create(&w->thread, worker_main, w)) != 0) {
        w->alive = 0;
        for (int i = 0; i < w->closing.n; i++) w->closing.fn[i](w->closing.data[i]);
        free(w->closing.fn);
        free(w->closing.data);
        return worker_start_fail(w, 1, rc, "its thread", err, err_len);
    }
    return 0;
}

void worker_join(worker *w) {
    uv_thread_join(&w->thread);
    free(w->vus);
    w->vus = NULL;
}
