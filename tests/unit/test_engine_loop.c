/* test_engine_loop.c - white-box tests of the engine's middle (src/engine:
 * worker.c, vu.c, pace.c, health.c, wheel.c) on a real libuv loop: the test
 * is the main thread (engine.c's part: preflight, t0, GO, the tick
 * messages, a safety stop) for one real worker thread, and a fake binding in
 * the worker's Lua state (the table T) lets the VU scripts mark what they do,
 * wait on an operation of the bindings' pattern (src/lua/lm_op.c, completed
 * from a loop timer), sleep, and ask for a stop.  The executable builds its
 * own copy of the engine (tests/CMakeLists.txt) with asserts on (-UNDEBUG,
 * also in the RelWithDebInfo build) and with VU_STATE_HOOK naming
 * test_vu_state, which logs every VU state move (engine/vu.h).  The fake
 * binding: T.mark(tag [, vu]) logs the running VU (and another's state),
 * T.op(ms) waits on an op, T.sleep(s), T.stop(hard), T.id().
 *
 * The clock is the real one: libuv's timers and pace's timerfds run on the
 * kernel's monotonic clock, which a fake engine clock would not move.  So the
 * tests assert only what the code decides, never how fast the machine is:
 * orders, counts, the schedule's intended times, and that nothing starts
 * before its time.  Checked: a closed group's coroutines made before t0 and
 * its ramp-up (starts in index order, none early); a paced group's slots set
 * by the schedule, not by the responses, and every late start counted
 * (PACE_LATE_NS exactly: vu_begin_tx on a bare worker); a rate group's
 * arrivals over a span (each started once, in order, never early, the rest
 * counted skipped); the --requests budget spent exactly across VUs, its
 * last start ending a VU waiting in begin() for an hour; one VU's state
 * moves through an op, a yield, a sleep and a stop request; a hard stop with
 * an op in flight: the VU ends, its transaction counted cancelled, the op
 * given back at teardown without resuming anybody, no op outstanding. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <lauxlib.h>

#include "engine/pace.h"
#include "engine/vu.h"
#include "engine/worker.h"
#include "lua/lm_op.h"

#define MS 1000000LL
#define MAXEV 20000

enum { EV_STATE, EV_MARK };

typedef struct ev {
    int kind, vu;            /* vu: its id (1-based) */
    int from, to;            /* EV_STATE */
    int tag;                 /* EV_MARK: the script's number */
    int other_state;         /* EV_MARK: the state of VU `other` (T.mark's 2nd argument), or -1 */
    uint64_t ns, intended_ns;
} ev;

/* One run: the scenario, the shared part, the worker, the main loop and
 * what was seen.  One at a time (the state hook has no context pointer). */
typedef struct harness {
    scenario sc;
    group_cfg g;
    char dir[64], script[96];
    run_shared sh;
    worker w;
    uv_loop_t loop;
    uv_async_t notify;
    uv_timer_t safety, deadline;
    int going, final, safety_hit;
    uint64_t t0;
    int pre_state[16], pre_has_coroutine[16];   /* at the preflight's end, before GO */
    int64_t late, skipped, cancelled, started_vus;
    ev log[MAXEV];
    int nlog;
    /* the fake binding */
    lm_op_pool pool;
    struct fake_timer *inflight;
    int ops, op_resumes, ops_cancelled_at_teardown;
    size_t out_at_teardown;
} harness;

static harness *H;            /* the run under way (test-local, read by the hook) */

static void log_ev(ev e) {
    if (H->nlog < MAXEV) H->log[H->nlog++] = e;
}

/* VU_STATE_HOOK of this test's engine build. */
void test_vu_state(const vu *v, vu_state from, vu_state to);
void test_vu_state(const vu *v, vu_state from, vu_state to) {
    log_ev((ev){.kind = EV_STATE, .vu = v->id, .from = (int)from, .to = (int)to, .ns = uv_hrtime()});
}

/* ---- the fake binding: T.mark, T.op, T.sleep, T.stop ---- */

typedef struct fake_timer {
    uv_timer_t t;
    lm_op *op;
    struct fake_timer *next;
} fake_timer;

static int fake_push(lm_op *op, lua_State *L) {
    (void)op;
    lua_pushboolean(L, 1);
    return 1;
}

static void fake_unlink(fake_timer *ft) {
    for (fake_timer **p = &H->inflight; *p; p = &(*p)->next)
        if (*p == ft) {
            *p = ft->next;
            return;
        }
}

static void fake_timer_closed(uv_handle_t *h) { free(h->data); }

static void fake_on_timer(uv_timer_t *t) {
    fake_timer *ft = t->data;
    fake_unlink(ft);
    if (ft->op->v && vu_wants_resume(ft->op->v)) H->op_resumes++;
    lm_op_request_done(ft->op);
    uv_close((uv_handle_t *)t, fake_timer_closed);
}

/* T.op(ms): an operation completed from the loop ms later (lm_op's pattern). */
static int t_op(lua_State *L) {
    worker *w = lua_touserdata(L, lua_upvalueindex(1));
    vu *v = vu_current(w);
    lm_op *op = lm_op_get(&H->pool);
    fake_timer *ft = calloc(1, sizeof *ft);
    if (!op || !ft) return luaL_error(L, "out of memory");
    ft->op = op;
    ft->t.data = ft;
    uv_timer_init(worker_loop(w), &ft->t);
    lm_op_start(op, v, L, 1);
    uv_timer_start(&ft->t, fake_on_timer, (uint64_t)luaL_checkinteger(L, 1), 0);
    ft->next = H->inflight;
    H->inflight = ft;
    H->ops++;
    return lm_op_finish_call(op, L);
}

/* T.mark(tag [, other_vu_id]): what the running VU does, and where it was meant to start. */
static int t_mark(lua_State *L) {
    worker *w = lua_touserdata(L, lua_upvalueindex(1));
    vu *v = vu_current(w);
    int other = (int)luaL_optinteger(L, 2, 0), ost = -1;
    for (int i = 0; other && i < w->nvus; i++)
        if (w->vus[i].id == other) ost = (int)w->vus[i].state;
    log_ev((ev){.kind = EV_MARK, .vu = v->id, .tag = (int)luaL_checkinteger(L, 1), .other_state = ost,
                .ns = uv_hrtime(), .intended_ns = v->pace.intended_ns});
    return 0;
}

static int t_id(lua_State *L) {
    worker *w = lua_touserdata(L, lua_upvalueindex(1));
    lua_pushinteger(L, vu_id(vu_current(w)));
    return 1;
}

static int t_sleep(lua_State *L) {
    worker *w = lua_touserdata(L, lua_upvalueindex(1));
    return vu_sleep(vu_current(w), L, luaL_checknumber(L, 1));
}

/* T.stop(hard): the main thread's stop arrives now (a later loop turn). */
static int t_stop(lua_State *L) {
    worker *w = lua_touserdata(L, lua_upvalueindex(1));
    worker_command(w, lua_toboolean(L, 1) ? WCMD_HARD : WCMD_STOP);
    return 0;
}

/* The worker's teardown (worker_on_close), as a binding's: the ops still in
 * flight complete as cancelled (nobody is resumed: their VUs are done),
 * then the pool goes (lm_op_pool_free asserts none is out). */
static void fake_close(void *data) {
    (void)data;
    while (H->inflight) {
        fake_timer *ft = H->inflight;
        H->inflight = ft->next;
        uv_timer_stop(&ft->t);
        if (ft->op->v && vu_wants_resume(ft->op->v)) H->op_resumes++;
        lm_op_request_done(ft->op);
        uv_close((uv_handle_t *)&ft->t, fake_timer_closed);
        H->ops_cancelled_at_teardown++;
    }
    H->out_at_teardown = H->pool.out;
    lm_op_pool_free(&H->pool);
}

static void fake_open_lua(lua_State *L, worker *w) {
    static const luaL_Reg fns[] = {{"op", t_op}, {"mark", t_mark}, {"sleep", t_sleep}, {"stop", t_stop}, {"id", t_id},
                                   {NULL, NULL}};
    lua_newtable(L);
    for (const luaL_Reg *f = fns; f->name; f++) {
        lua_pushlightuserdata(L, w);
        lua_pushcclosure(L, f->func, 1);
        lua_setfield(L, -2, f->name);
    }
    lua_setglobal(L, "T");
    lm_op_pool_init(&H->pool, sizeof(lm_op), fake_push, NULL);
    worker_on_close(w, fake_close, NULL);
}

/* ---- the main thread's part ---- */

static void h_take(harness *h) {
    uv_mutex_lock(&h->sh.mu);
    tick_msg *m = h->sh.q_head;
    h->sh.q_head = h->sh.q_tail = NULL;
    uv_mutex_unlock(&h->sh.mu);
    while (m) {
        tick_msg *next = m->next;
        for (int i = 0; i < m->ncounters; i++) {
            if (!strcmp(m->counters[i].name, "engine.late_starts")) h->late += m->counters[i].value;
            if (!strcmp(m->counters[i].name, "engine.skipped_starts")) h->skipped += m->counters[i].value;
        }
        for (int i = 0; i < m->n; i++)
            if (!strcmp(m->timers[i].name, "All Transactions")) h->cancelled += m->timers[i].cancelled;
        if (m->final) {
            h->final = 1;
            h->started_vus = m->started_vus;
        }
        tick_msg_free(m);
        m = next;
    }
}

static void h_on_safety(uv_timer_t *t) {
    harness *h = t->data;
    h->safety_hit = 1;
    worker_command(&h->w, WCMD_HARD);
}

/* The run's end, as engine.c's deadline: a stop at t0 + run time. */
static void h_on_deadline(uv_timer_t *t) {
    harness *h = t->data;
    uint64_t end = h->t0 + (uint64_t)h->sc.run_time_ns, now = uv_hrtime();
    if (now < end) {
        uv_timer_start(t, h_on_deadline, (end - now) / 1000000 + 1, 0);
        return;
    }
    worker_command(&h->w, WCMD_STOP);
}

static void h_on_notify(uv_async_t *a) {
    harness *h = a->data;
    h_take(h);
    uv_mutex_lock(&h->sh.mu);
    int ready = h->sh.ready, failed = h->sh.failed;
    uv_mutex_unlock(&h->sh.mu);
    if (failed) fail_msg("worker failed: %s", h->sh.fail_msg);
    if (ready && !h->going) {        /* the preflight is done: what pace_prepare left, then t0 */
        h->going = 1;
        for (int i = 0; i < h->w.nvus && i < 16; i++) {   /* the preflight VU's state is racy: not kept */
            h->pre_state[i] = h->w.vus[i].preflight ? -1 : (int)h->w.vus[i].state;
            h->pre_has_coroutine[i] = h->w.vus[i].L != NULL;
        }
        h->t0 = uv_hrtime();
        atomic_store(&h->sh.t0_ns, h->t0);
        worker_command(&h->w, WCMD_GO);
        if (h->sc.run_time_ns > 0) uv_timer_start(&h->deadline, h_on_deadline, (uint64_t)(h->sc.run_time_ns / MS), 0);
    }
    if (h->final) uv_stop(&h->loop);
}

static void write_script(harness *h, const char *text) {
    snprintf(h->dir, sizeof h->dir, "/tmp/lm-engine-XXXXXX");
    assert_non_null(mkdtemp(h->dir));
    snprintf(h->script, sizeof h->script, "%s/vu.lua", h->dir);
    FILE *f = fopen(h->script, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* A scenario of one group running `script` (a VU's init, then `return
 * function() ... end`, its transaction). */
static harness *h_new(load_model model, int vus, const char *script) {
    harness *h = calloc(1, sizeof *h);
    assert_non_null(h);
    write_script(h, script);
    h->sc.path = "engine_loop.lua";
    h->sc.dir = h->dir;
    h->sc.name = "engine_loop";
    h->sc.interval_ns = 1000 * MS;
    h->sc.graceful_stop_ns = 1000 * MS;
    h->sc.workers = 1;
    h->sc.seed = 1;
    h->sc.ngroups = 1;
    h->sc.groups = &h->g;
    h->g.name = "g";
    h->g.vus = vus;
    h->g.script_path = h->script;
    h->g.script_name = "vu.lua";
    h->g.model = model;
    sched_constant(&h->g.sched, vus);
    return h;
}

/* A ramp-up of every VU over rampup_ns (scenario.c's: VU i at i * rampup / n). */
static void h_rampup(harness *h, int64_t rampup_ns) {
    sched_constant(&h->g.sched, 0);
    h->g.sched.n = 1;
    h->g.sched.st[0] = (sched_stage){rampup_ns, h->g.vus};
    h->sc.rampup_ns = rampup_ns;
}

/* Run it to its end (the worker finishes on its own; a safety stop after
 * 10 s makes a test that would hang fail instead). */
static void h_run(harness *h) {
    char err[512];
    H = h;
    h->sh.sc = &h->sc;
    h->sh.seed = 1;
    h->sh.nworkers = 1;
    h->sh.tick_ns = 100 * MS;
    h->sh.open_lua = fake_open_lua;
    assert_int_equal(uv_mutex_init(&h->sh.mu), 0);
    assert_int_equal(uv_loop_init(&h->loop), 0);
    assert_int_equal(uv_async_init(&h->loop, &h->notify, h_on_notify), 0);
    h->notify.data = h;
    h->sh.notify = &h->notify;
    uv_timer_init(&h->loop, &h->safety);
    uv_timer_init(&h->loop, &h->deadline);
    h->safety.data = h->deadline.data = h;
    uv_timer_start(&h->safety, h_on_safety, 10000, 0);
    int64_t quota = h->sc.requests > 0 ? h->sc.requests : -1;
    if (worker_start(&h->w, 0, &h->sh, quota, err, sizeof err) != 0) fail_msg("%s", err);
    uv_run(&h->loop, UV_RUN_DEFAULT);
    uv_thread_join(&h->w.thread);    /* worker_join without freeing the VUs: they are read below */
    h_take(h);                       /* samples of the teardown (worker_flush_late) */
    uv_close((uv_handle_t *)&h->notify, NULL);
    uv_close((uv_handle_t *)&h->safety, NULL);
    uv_close((uv_handle_t *)&h->deadline, NULL);
    uv_run(&h->loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&h->loop), 0);
    uv_mutex_destroy(&h->sh.mu);
    assert_true(h->final);
}

static void h_free(harness *h) {
    free(h->w.vus);
    unlink(h->script);
    rmdir(h->dir);
    free(h);
    H = NULL;
}

/* The marks of tag in log order; returns how many (at most max). */
static int marks(const harness *h, int tag, ev *out, int max) {
    int n = 0;
    for (int i = 0; i < h->nlog; i++)
        if (h->log[i].kind == EV_MARK && h->log[i].tag == tag && n < max) out[n++] = h->log[i];
    return n;
}

/* Every VU ended once, and the worker with no op outstanding. */
static void check_clean_end(const harness *h) {
    for (int i = 0; i < h->w.nvus; i++) {
        int ends = 0;
        for (int k = 0; k < h->nlog; k++)
            if (h->log[k].kind == EV_STATE && h->log[k].vu == h->w.vus[i].id && h->log[k].to == VU_DONE) ends++;
        assert_int_equal(ends, 1);
        assert_int_equal(h->w.vus[i].state, VU_DONE);
    }
    assert_int_equal(h->w.done, h->w.nvus);
    assert_int_equal(h->w.active, 0);
    assert_null(h->inflight);
    assert_int_equal(h->out_at_teardown, 0);
    assert_false(h->safety_hit);
}

/* ---- closed: the ramp-up ---- */

static void test_closed_rampup(void **state) {
    (void)state;
    const int n = 5;
    const int64_t rampup = 50 * MS;
    /* the last VU to start stops the run after its first transaction: no
     * run time that a busy machine could end before every VU started */
    harness *h = h_new(MODEL_CLOSED, n, "local me = T.id()\nT.mark(1)\n"
                                        "return function() T.mark(2) T.op(5) if me == 5 then T.stop() end end\n");
    h_rampup(h, rampup);
    h_run(h);
    /* before t0: every coroutine made (a start is a resume), the VUs but
     * the preflight one not started (its state is not read: it says
     * "ready" from inside its begin(), before it yields) */
    for (int i = 0; i < n; i++) {
        assert_true(h->pre_has_coroutine[i]);
        if (i > 0) assert_int_equal(h->pre_state[i], VU_PENDING);
    }
    ev init[8], tx[4096];
    assert_int_equal(marks(h, 1, init, 8), n);
    for (int i = 0; i < n; i++) {
        assert_int_equal(init[i].vu, i + 1);                  /* in index order */
        if (i == 0) assert_true(init[i].ns < h->t0);          /* the preflight VU's init */
        else assert_true(init[i].ns >= h->t0 + (uint64_t)(i * rampup / n));   /* never early */
    }
    int ntx = marks(h, 2, tx, 4096), first[8] = {0};
    for (int k = 0; k < ntx; k++) {
        int i = tx[k].vu - 1;
        assert_true(tx[k].ns >= h->t0 + (uint64_t)(i * rampup / n));
        if (!first[i]) {            /* first transactions in index order too (the preflight VU, on a
                                     * timer of its own at t0, may come after a late GO's starts) */
            for (int j = i + 1; j < n && i > 0; j++) assert_int_equal(first[j], 0);
            first[i] = 1;
        }
    }
    for (int i = 0; i < n; i++) assert_true(first[i]);
    assert_int_equal(h->started_vus, n);
    check_clean_end(h);
    h_free(h);
}

/* ---- paced: the schedule sets the slots; late starts are counted ---- */

static void test_paced_late_starts(void **state) {
    (void)state;
    /* each transaction takes 8 ms or more, the slots are 1 ms apart: every
     * start after a VU's first is 7 ms late at least (a budget, not a run
     * time, bounds the run: the count does not depend on the machine) */
    harness *h = h_new(MODEL_PACED, 2, "return function() T.mark(2) T.op(8) end\n");
    h->g.pacing_ns = 1 * MS;
    h->sc.requests = 12;
    h_run(h);
    ev tx[64];
    int ntx = marks(h, 2, tx, 64);
    assert_int_equal(ntx, 12);
    for (int id = 1; id <= 2; id++) {
        uint64_t prev = 0;
        for (int k = 0; k < ntx; k++) {
            if (tx[k].vu != id) continue;
            assert_true(tx[k].ns >= tx[k].intended_ns);        /* never before its slot */
            if (prev) assert_int_equal(tx[k].intended_ns - prev, 1 * MS);   /* the next slot: the schedule's */
            prev = tx[k].intended_ns;
        }
    }
    assert_int_equal(h->late, ntx - 2);
    check_clean_end(h);
    h_free(h);
}

/* PACE_LATE_NS exactly: a start that late is not late, one nanosecond more is. */
static void test_late_threshold(void **state) {
    (void)state;
    static worker w;
    vu v;
    memset(&w, 0, sizeof w);
    assert_int_equal(stats_local_init(&w.stats), 0);
    w.tick.next_ns = UINT64_MAX;               /* no tick rotates */
    pace_ids(&w);
    budget_init(&w.budget, -1);
    memset(&v, 0, sizeof v);
    v.w = &w;
    v.pace.scheduled = 1;
    vu_begin_tx(&v, 1000 + PACE_LATE_NS, 1000);
    assert_int_equal(v.pace.lateness_ns, PACE_LATE_NS);
    assert_int_equal(w.stats.counters[w.pace.cid_late].value, 0);
    vu_begin_tx(&v, 1001 + PACE_LATE_NS, 1000);
    assert_int_equal(w.stats.counters[w.pace.cid_late].value, 1);
    v.pace.scheduled = 0;                      /* closed: never late */
    vu_begin_tx(&v, 1000 + 10 * PACE_LATE_NS, 1000);
    assert_int_equal(w.stats.counters[w.pace.cid_late].value, 1);
    stats_local_free(&w.stats);
}

/* ---- rate: the arrivals of a span ---- */

static void test_rate_arrivals(void **state) {
    (void)state;
    harness *h = h_new(MODEL_RATE, 3, "return function() T.mark(2) T.op(0) end\n");
    sched_constant(&h->g.sched, 2000);        /* 2000/s for 50 ms */
    h->g.prealloc = 1;
    h->sc.run_time_ns = 50 * MS;
    h_run(h);
    int64_t expected = 0;
    while (sched_arrival_ns(&h->g.sched, (double)expected) < h->sc.run_time_ns) expected++;
    assert_int_equal(expected, 100);
    ev tx[4096];
    int ntx = marks(h, 2, tx, 4096);
    for (int k = 0; k < ntx; k++) {          /* arrival k, once each, in order, never early */
        assert_int_equal(tx[k].intended_ns, h->t0 + (uint64_t)sched_arrival_ns(&h->g.sched, k));
        assert_true(tx[k].ns >= tx[k].intended_ns);
    }
    assert_int_equal(ntx + h->skipped, expected);   /* the rest never started: skipped */
    assert_true(h->started_vus <= 3);
    check_clean_end(h);
    h_free(h);
}

/* ---- the --requests budget ---- */

static void test_budget_exact(void **state) {
    (void)state;
    harness *h = h_new(MODEL_CLOSED, 4, "return function() T.mark(2) T.op(1) end\n");
    h->sc.requests = 10;                      /* no run time: the budget ends the run */
    h_run(h);
    ev tx[64];
    assert_int_equal(marks(h, 2, tx, 64), 10);
    int per[4] = {0};
    for (int k = 0; k < 10; k++) per[tx[k].vu - 1]++;
    for (int i = 0; i < 4; i++) assert_true(per[i] >= 1);   /* shared by the VUs */
    assert_int_equal(h->w.budget.left, 0);
    check_clean_end(h);
    h_free(h);
}

/* VU 1 waits in begin() for its next slot, an hour away; VU 2 starts 20 ms
 * after t0 and takes the budget's last transaction: VU 1 ends then.  (On a
 * busy machine whose worker takes GO late, VU 2 may start first: then the
 * roles swap, the check is the same.) */
static void test_budget_last_start_ends_waiting(void **state) {
    (void)state;
    harness *h = h_new(MODEL_PACED, 2, "local other = 3 - T.id()\nreturn function() T.mark(2) T.op(2) T.mark(3, other) end\n");
    h->g.pacing_ns = 3600000 * MS;
    h_rampup(h, 40 * MS);
    h->sc.requests = 2;
    h_run(h);
    ev tx[8], after[8];
    assert_int_equal(marks(h, 2, tx, 8), 2);
    assert_int_not_equal(tx[0].vu, tx[1].vu);
    assert_int_equal(marks(h, 3, after, 8), 2);
    assert_int_equal(after[1].vu, tx[1].vu);
    assert_int_equal(after[1].other_state, VU_DONE);   /* the other ended by the last start, not by a stop */
    check_clean_end(h);
    h_free(h);
}

/* ---- one VU's state moves, a stop request included ---- */

static void test_vu_states_and_stop(void **state) {
    (void)state;
    harness *h = h_new(MODEL_CLOSED, 1,
                       "return function()\n"
                       "  T.mark(2) T.op(1)\n"
                       "  coroutine.yield()\n"
                       "  T.stop() T.sleep(30)\n"   /* woken by the stop */
                       "  T.mark(3)\n"
                       "end\n");
    h_run(h);
    static const int want[][2] = {
        {VU_PENDING, VU_RUNNING},   /* the preflight start: init */
        {VU_RUNNING, VU_WAITING},   /* begin() before t0 */
        {VU_WAITING, VU_RUNNING},   /* t0 */
        {VU_RUNNING, VU_WAITING},   /* T.op */
        {VU_WAITING, VU_RUNNING},   /* its completion */
        {VU_RUNNING, VU_READY},     /* coroutine.yield() */
        {VU_READY, VU_RUNNING},     /* the ready queue */
        {VU_RUNNING, VU_WAITING},   /* T.sleep */
        {VU_WAITING, VU_RUNNING},   /* the stop wakes it */
        {VU_RUNNING, VU_DONE},      /* begin() says no: the VU ends */
    };
    int n = 0;
    for (int k = 0; k < h->nlog; k++) {
        if (h->log[k].kind != EV_STATE) continue;
        assert_true(n < (int)(sizeof want / sizeof want[0]));
        assert_int_equal(h->log[k].from, want[n][0]);
        assert_int_equal(h->log[k].to, want[n][1]);
        n++;
    }
    assert_int_equal(n, (int)(sizeof want / sizeof want[0]));
    ev m[8];
    assert_int_equal(marks(h, 2, m, 8), 1);
    assert_int_equal(marks(h, 3, m, 8), 1);
    assert_true(h->w.run.stopping);
    check_clean_end(h);
    h_free(h);
}

/* ---- a hard stop with an op in flight: teardown gives it back ---- */

static void test_hard_stop_op_in_flight(void **state) {
    (void)state;
    harness *h = h_new(MODEL_CLOSED, 1, "return function() T.mark(2) T.stop(true) T.op(600000) T.mark(3) end\n");
    h_run(h);
    ev m[8];
    assert_int_equal(marks(h, 2, m, 8), 1);
    assert_int_equal(marks(h, 3, m, 8), 0);          /* never resumed */
    assert_int_equal(h->ops, 1);
    assert_int_equal(h->ops_cancelled_at_teardown, 1);
    assert_int_equal(h->op_resumes, 0);              /* the op's end resumed nobody */
    assert_int_equal(h->cancelled, 1);               /* the transaction cut short */
    assert_true(h->w.run.hard);
    check_clean_end(h);
    h_free(h);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_closed_rampup),
        cmocka_unit_test(test_paced_late_starts),
        cmocka_unit_test(test_late_threshold),
        cmocka_unit_test(test_rate_arrivals),
        cmocka_unit_test(test_budget_exact),
        cmocka_unit_test(test_budget_last_start_ends_waiting),
        cmocka_unit_test(test_vu_states_and_stop),
        cmocka_unit_test(test_hard_stop_op_in_flight),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
