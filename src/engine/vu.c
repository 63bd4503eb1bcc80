/* vu.c - virtual users: coroutine creation, the single resume function, the
 * transaction boundaries (the start pace.c decides on, the finish), think
 * time (sleep), a closed group's pause after a failed transaction
 * (on_error.pause) and per-VU random streams.  It does not know any
 * protocol; bindings resume VUs only through vu_resume.  It calls worker.c
 * (statistics, the ready queue, a VU's end), never pace.c: it only reads
 * the pace_vu figures of a transaction (lateness, stage timer). */
#include "common/clock.h"
#include "engine/vu.h"

#include <assert.h>
#include <lauxlib.h>
#include <string.h>
#include <time.h>

#include "engine/worker.h"

static uint64_t vu_splitmix(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

void vu_init(vu *v, worker *w, int id, int group, int index, uint64_t seed) {
    memset(v, 0, sizeof *v);
    v->w = w;
    v->id = id;
    v->group = group;
    v->index = index;
    v->thread_ref = v->timers_ref = LUA_NOREF;
    uint64_t x = seed ^ ((uint64_t)id * 0xD1B54A32D192ED03ULL);
    for (int i = 0; i < 4; i++) v->rng[i] = vu_splitmix(&x);
    uv_timer_init(&w->loop, &v->timer);              /* only links the handle: cannot fail */
    v->timer.data = v;
}

/* xoshiro256** */
uint64_t vu_random_u64(vu *v) {
    uint64_t *s = v->rng;
    uint64_t r = s[1] * 5;
    r = ((r << 7) | (r >> 57)) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
    s[2] ^= t;
    s[3] = (s[3] << 45) | (s[3] >> 19);
    return r;
}

int vu_wants_resume(const vu *v) { return v->state != VU_DONE; }

/* libuv timers count whole milliseconds on a coarse clock and can fire up to
 * a clock tick early; VU timers must never fire early (a ramp-up start, a
 * sleep), so they are armed for an hrtime and re-armed when early. */
void vu_timer_at(vu *v, uint64_t at_ns, uv_timer_cb cb) {
    v->due_ns = at_ns;
    uv_update_time(&v->w->loop);
    uint64_t now = worker_now_ns();
    uv_timer_start(&v->timer, cb, clock_ms_until(at_ns, now), 0);   /* fails only without cb or when closing */
}

/* In a VU timer callback: 1 when it fired early (and was re-armed). */
int vu_timer_early(vu *v, uv_timer_cb cb) {
    if (worker_now_ns() >= v->due_ns) return 0;
    vu_timer_at(v, v->due_ns, cb);
    return 1;
}

static void vu_release(vu *v);

static void vu_finished(vu *v) {
    worker *w = v->w;
    vu_set_state(v, VU_DONE);
    uv_timer_stop(&v->timer);
    wheel_remove(&w->wheel, v);
    vu_release(v);
    worker_vu_done(w, v);
}

static void vu_resume_run(vu *v, int nargs);

void vu_resume(vu *v, int nargs) {
    /* a completion resumes it: how long it waited for the loop (health.h) */
    if (v->state == VU_WAITING && !v->w->current) health_dispatch_record(&v->w->health);
    vu_resume_run(v, nargs);
}

/* The one place a coroutine is resumed. */
static void vu_resume_run(vu *v, int nargs) {
    worker *w = v->w;
    if (v->state == VU_DONE) return;
    assert(v->started);                 /* resumed only once vu_start ran */
    health_dispatch_mark(&w->health);        /* the loop's wake-up */
    if (w->current) {            /* a completion fired inside another VU's call */
        v->ready_nargs = nargs;  /* (e.g. a shared client closed): resume it later */
        worker_make_ready(w, v);
        return;
    }
    assert(v->state != VU_RUNNING);     /* a coroutine is resumed only from outside itself */
    w->current = v;
    vu_set_state(v, VU_RUNNING);
    v->resumes++;
    worker_enter(w, v);
    int st = lua_resume(v->L, nargs);
    worker_leave(w);
    w->current = NULL;
    if (st == LUA_YIELD) {
        lua_settop(v->L, 0);                /* primitives yield no values */
        /* A plain coroutine.yield() in a script: let the others run. */
        if (v->state == VU_RUNNING) worker_make_ready(w, v);
        return;
    }
    if (st != 0) {   /* only an engine bug or an out-of-memory gets here */
        size_t len;
        const char *msg = lua_tolstring(v->L, -1, &len);
        worker_tx_error(w, msg ? msg : "VU failed", msg ? len : 9);
        if (v->preflight && !w->run.going) worker_preflight_result(w, msg ? msg : "VU failed");  /* no 60 s wait */
    }
    vu_finished(v);
}

/* The coroutine, ready to run: the body and a fresh closure of the script
 * with its own globals, none of the script's code run yet. */
void vu_prepare(vu *v) {
    worker *w = v->w;
    lua_State *L = w->L;
    if (v->L) return;
    v->L = lua_newthread(L);
    v->thread_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_rawgeti(L, LUA_REGISTRYINDEX, w->script.body_ref);
    lua_rawgeti(L, LUA_REGISTRYINDEX, w->script.chunk_ref[v->group]);
    lua_call(L, 0, 1);                     /* a fresh closure of the script */
    lua_newtable(L);                       /* its own globals */
    lua_rawgeti(L, LUA_REGISTRYINDEX, w->script.env_mt_ref);
    lua_setmetatable(L, -2);
    lua_setfenv(L, -2);
    lua_xmove(L, v->L, 2);                 /* body, script */
}

/* Let go of the coroutine (a VU done, or stopped before it started). */
static void vu_release(vu *v) {
    worker *w = v->w;
    if (v->thread_ref != LUA_NOREF) luaL_unref(w->L, LUA_REGISTRYINDEX, v->thread_ref);
    if (v->timers_ref != LUA_NOREF) luaL_unref(w->L, LUA_REGISTRYINDEX, v->timers_ref);
    v->thread_ref = v->timers_ref = LUA_NOREF;
}

void vu_start(vu *v) {
    worker *w = v->w;
    assert(v->state == VU_PENDING && !v->started);   /* a VU starts once */
    vu_prepare(v);
    v->started = 1;
    w->started++;
    w->active++;
    vu_resume_run(v, 1);
}

/* A transaction starts now; it was meant to start at intended_ns. */
void vu_begin_tx(vu *v, uint64_t now, uint64_t intended_ns) {
    worker *w = v->w;
    v->pace.intended_ns = intended_ns;
    v->pace.lateness_ns = now > intended_ns ? (int64_t)(now - intended_ns) : 0;
    if (v->pace.scheduled) {
        worker_record(w, w->pace.tid_sched_lag, v->pace.lateness_ns, now, 1);
        if (v->pace.lateness_ns > PACE_LATE_NS) worker_count(w, w->pace.cid_late, 1);
    }
    v->tx_start_ns = now;
    v->in_tx = 1;
    v->tx_slept_ns = v->slept_ns;
    v->ntx_timers = 0;
    v->iter_resumes = v->resumes;
    if (budget_take(&w->budget)) worker_budget_spent(w);   /* the last one: no more starts */
}

void vu_begin_resume(vu *v, int go) {
    if (!vu_wants_resume(v)) return;
    assert(v->state == VU_WAITING);          /* it waits in begin() */
    lua_pushboolean(v->L, go);
    vu_resume_run(v, 1);
}

/* dur_ns + late_ns under tid, dur_ns under its twin (when twins are kept). */
static void vu_record_late(vu *v, int tid, int64_t dur_ns, int64_t late_ns, uint64_t now, int ok) {
    worker *w = v->w;
    if (!ok && v->state == VU_DONE) ok = SAMPLE_CANCELLED;   /* its VU was stopped under it */
    if (v->rawtx && v->ntx_timers < RAWLOG_MAX_TIMERS && w->stats.timers[tid].kind == TK_CUSTOM) {
        v->rawtx->timer_id[v->ntx_timers] = tid;
        v->rawtx->seconds[v->ntx_timers++] = (double)(dur_ns + late_ns) / 1e9;
    }
    worker_record(w, tid, dur_ns + late_ns, now, ok);
    if (v->pace.scheduled || w->pace.any_scheduled) worker_record(w, worker_twin(w, tid), dur_ns, now, ok);
}

void vu_record(vu *v, int tid, int64_t dur_ns, uint64_t now, int ok) {
    /* closed: intended start == actual start */
    vu_record_late(v, tid, dur_ns, v->pace.scheduled ? v->pace.lateness_ns : 0, now, ok);
}

void vu_record_count(vu *v, int tid, int64_t dur_ns, uint64_t now, int ok, int64_t count) {
    worker *w = v->w;
    if (w->stats.timers[tid].kind == TK_CUSTOM && v->rawtx) {   /* one raw line entry each */
        for (int64_t i = 0; i < count; i++) vu_record(v, tid, dur_ns, now, ok);
        return;
    }
    int64_t late = v->pace.scheduled ? v->pace.lateness_ns : 0;
    if (!ok && v->state == VU_DONE) ok = SAMPLE_CANCELLED;   /* as vu_record_late */
    worker_record_count(w, tid, dur_ns + late, now, ok, count);
    if (v->pace.scheduled || w->pace.any_scheduled) worker_record_count(w, worker_twin(w, tid), dur_ns, now, ok, count);
}

void vu_record_given(vu *v, int tid, int64_t dur_ns, uint64_t now, int ok) {
    vu_record_late(v, tid, dur_ns, 0, now, ok);
}

void vu_record_phase(vu *v, int tid, int64_t dur_ns, uint64_t now, int ok) {
    if (!ok && v->state == VU_DONE) ok = SAMPLE_CANCELLED;   /* as vu_record_late */
    worker_record(v->w, tid, dur_ns, now, ok);
}

int vu_preflight_begin(vu *v, lua_State *L) {
    v->fin_now_ns = 0;
    worker_preflight_result(v->w, NULL);  /* init worked: the server is there */
    vu_set_state(v, VU_WAITING);
    return lua_yield(L, 0);               /* resumed by pace's timer at its start */
}

static void vu_on_start(uv_timer_t *t) {
    vu *v = t->data;
    if (vu_timer_early(v, vu_on_start)) return;
    vu_start(v);
}

void vu_schedule(vu *v, uint64_t at_ns) { vu_timer_at(v, at_ns, vu_on_start); }

/* --mm-results: one line per transaction, multi-mechanize style. */
static void vu_rawlog(vu *v, int64_t dur_ns, const char *error) {
    worker *w = v->w;
    rawlog_timer t[RAWLOG_MAX_TIMERS];
    for (int i = 0; v->rawtx && i < v->ntx_timers; i++) {
        t[i].name = w->stats.timers[v->rawtx->timer_id[i]].name;
        t[i].seconds = v->rawtx->seconds[i];
    }
    double start_s = (double)(int64_t)(v->tx_start_ns - atomic_load(&w->shared->t0_ns)) / 1e9;
    rawlog_tx(&w->raw, start_s, (int64_t)time(NULL), w->shared->sc->groups[v->group].name,
              (double)(dur_ns + v->pace.lateness_ns) / 1e9, error, t, v->ntx_timers);
}

/* The transaction ends now (ok: SAMPLE_OK, SAMPLE_FAILED or
 * SAMPLE_CANCELLED): record it on its timers (All Transactions, its group,
 * its stage: engine timers, never in --mm-results' custom ones).  Without
 * twins (no paced or rate group: no lateness) one histogram index serves
 * all three (vu_record_late's rules, in one call); returns its duration. */
static int64_t vu_record_tx(vu *v, uint64_t now, int ok) {
    worker *w = v->w;
    uint64_t slept = v->slept_ns - v->tx_slept_ns;
    int64_t dur = (int64_t)(now - v->tx_start_ns - slept);
    v->in_tx = 0;
    int ids[3] = {w->tid_all, w->tid_group[v->group], v->pace.stage_tid};
    int n = ids[2] >= 0 ? 3 : 2;
    if (v->pace.scheduled || w->pace.any_scheduled) {  /* with twins: each timer, then its twin */
        for (int i = 0; i < n; i++) vu_record(v, ids[i], dur, now, ok);
        return dur;
    }
    if (!ok && v->state == VU_DONE) ok = SAMPLE_CANCELLED;   /* its VU was stopped under it */
    worker_record_n(w, ids, n, dur, now, ok);                /* closed: no lateness */
    return dur;
}

/* Iterations that never yield run back to back for up to VU_SPIN_NS before
 * the VU lets the loop run (ready queue): a yield and a loop turn per empty
 * iteration would cost more than the iteration, and the loop still turns
 * every VU_SPIN_NS (plus one iteration) for the others, stops and ticks. */
#define VU_SPIN_NS 50000

static int vu_spun_out(vu *v, uint64_t now) {
    if (v->spin_start_ns == 0) v->spin_start_ns = v->tx_start_ns;
    if (now - v->spin_start_ns < VU_SPIN_NS) return 0;
    v->spin_start_ns = 0;
    return 1;
}

int vu_lua_finish(lua_State *L) {
    worker *w = lua_touserdata(L, lua_upvalueindex(1));
    vu *v = w->current;
    uint64_t now = worker_now_ns();
    int ok = lua_toboolean(L, 1);
    int64_t dur = vu_record_tx(v, now, ok);
    const char *msg = NULL;
    if (!ok) {
        size_t len;
        msg = lua_tolstring(L, 2, &len);
        if (!msg) msg = "error (not a string)", len = strlen(msg);
        worker_tx_error(w, msg, len);
    }
    if (w->raw.f) vu_rawlog(v, dur, msg);
    v->iterations++;
    int64_t pause = ok ? 0 : w->shared->sc->groups[v->group].error_pause_ns;
    if (pause > 0 && !w->run.stopping) {   /* on_error.pause: after the sample, so not in its time */
        v->spin_start_ns = 0;
        return vu_sleep(v, L, (double)pause / 1e9);
    }
    if (v->resumes != v->iter_resumes) v->spin_start_ns = 0;
    else if (vu_spun_out(v, now)) {        /* never yielded for a while: let the loop run */
        worker_make_ready(w, v);
        return lua_yield(L, 0);
    }
    v->fin_now_ns = now;                   /* begin() follows at once: the same instant */
    return 0;
}

static void vu_on_retry(uv_timer_t *t) {
    vu *v = t->data;
    lua_pushboolean(v->L, !v->w->run.stopping && !budget_spent(&v->w->budget));
    vu_resume_run(v, 1);
}

int vu_lua_init_failed(lua_State *L) {
    worker *w = lua_touserdata(L, lua_upvalueindex(1));
    vu *v = w->current;
    size_t len;
    const char *msg = luaL_checklstring(L, 1, &len);
    if (v->preflight) {
        worker_preflight_result(w, msg);
        lua_pushboolean(L, 0);
        return 1;
    }
    char buf[TALLY_MSG_MAX];
    int n = snprintf(buf, sizeof buf, "init: %.*s", (int)len, msg);
    worker_tx_error(w, buf, (size_t)(n < (int)sizeof buf ? n : (int)sizeof buf - 1));
    if (w->run.stopping) {
        lua_pushboolean(L, 0);
        return 1;
    }
    vu_set_state(v, VU_WAITING);
    uv_timer_start(&v->timer, vu_on_retry, 1000, 0);   /* retry init in 1 s */
    return lua_yield(L, 0);
}

static void vu_wake(vu *v, uint64_t now) {
    v->sleeping = 0;
    v->slept_ns += now - v->sleep_start_ns;
    vu_resume_run(v, 0);
}

static void vu_on_wake(uv_timer_t *t) {
    vu *v = t->data;
    if (!v->w->run.stopping && vu_timer_early(v, vu_on_wake)) return;
    vu_wake(v, worker_now_ns());
}

/* The sleep wheel's wake-up (never early): its lateness goes to
 * engine.wake_lag, created at the first one. */
void vu_wheel_wake(vu_wheel *wh, vu *v) {
    worker *w = v->w;
    (void)wh;
    uint64_t now = worker_now_ns();
    health_wake_lag(&w->health, (int64_t)(now - v->due_ns), now);
    vu_wake(v, now);
}

int vu_sleep(vu *v, lua_State *L, double seconds) {
    assert(v->w->current == v && v->L == L);  /* the running VU sleeps */
    if (v->w->run.stopping) return 0;          /* draining: think time is over */
    if (!(seconds > 0)) {
        worker_make_ready(v->w, v);
        return lua_yield(L, 0);
    }
    v->sleeping = 1;
    vu_set_state(v, VU_WAITING);
    uint64_t now = worker_now_ns();
    v->sleep_start_ns = now;
    v->due_ns = now + (uint64_t)(seconds * 1e9);
    if (!wheel_add(&v->w->wheel, v, v->due_ns, now)) vu_timer_at(v, v->due_ns, vu_on_wake);
    return lua_yield(L, 0);
}

void vu_stop(vu *v) {
    if (v->state == VU_PENDING) {
        vu_set_state(v, VU_DONE);
        uv_timer_stop(&v->timer);
        vu_release(v);                     /* a prepared coroutine that never ran */
        worker_vu_done(v->w, v);
    } else if (v->sleeping) {
        uv_timer_stop(&v->timer);
        wheel_remove(&v->w->wheel, v);
        vu_wake(v, worker_now_ns());
    } else if (v->preflight && !v->w->run.going && v->state == VU_WAITING) {
        vu_kill(v);
    }
}

void vu_kill(vu *v) {
    if (v->state == VU_DONE) return;
    if (v->state == VU_PENDING) {
        vu_stop(v);
        return;
    }
    /* A transaction cut short: counted as cancelled (its requests in flight
     * are counted as they are cancelled). */
    if (v->in_tx) vu_record_tx(v, worker_now_ns(), SAMPLE_CANCELLED);
    vu_finished(v);
}

void vu_close(vu *v) { uv_close((uv_handle_t *)&v->timer, NULL); }
