/* test_intervals.c - interval cutting with a fake clock: a worker's samples
 * go to the tick of the time they are recorded at (worker_record's now_ns,
 * given here, never read from a clock), a sample exactly on a tick boundary
 * belongs to the tick that starts there, a gap rotates through empty ticks
 * (their intervals kept, with zero rows), and after the stop (cap_tick) late
 * samples stay in the last tick instead of opening new intervals.  The
 * worker's ticks are merged by the main thread's agg as in a run. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engine/worker.h"
#include "stats/agg.h"

#define MS 1000000LL
#define T0 (1000 * MS)

typedef struct fake {
    uv_loop_t loop;
    uv_async_t notify;
    run_shared sh;
    worker w;
    agg a;
    int tid;
} fake;

/* One worker of tick_ns, its clock started at T0, and the main thread's agg. */
static fake *fake_new(int64_t tick_ns, int64_t interval_ns) {
    fake *f = calloc(1, sizeof *f);
    assert_non_null(f);
    assert_int_equal(uv_loop_init(&f->loop), 0);
    assert_int_equal(uv_async_init(&f->loop, &f->notify, NULL), 0);
    assert_int_equal(uv_mutex_init(&f->sh.mu), 0);
    f->sh.tick_ns = tick_ns;
    f->sh.nworkers = 1;
    f->sh.notify = &f->notify;
    f->w.shared = &f->sh;
    assert_int_equal(stats_local_init(&f->w.stats), 0);
    f->w.health.w = &f->w;
    f->w.health.cid_cpu = stats_counter_id(&f->w.stats, "engine.cpu_us");
    f->w.health.cid_runq = stats_counter_id(&f->w.stats, "engine.cpu_wait_us");
    f->w.run.going = 1;
    f->w.tick.next_ns = T0 + (uint64_t)tick_ns;
    f->w.tick.cap = INT64_MAX;
    f->tid = stats_timer_id(&f->w.stats, "T", TK_CUSTOM);
    agg_init(&f->a, 1, interval_ns, tick_ns);
    return f;
}

/* A 1 ms sample at T0 + at_ns. */
static void fake_sample(fake *f, int64_t at_ns) { worker_record(&f->w, f->tid, MS, (uint64_t)(T0 + at_ns), 1); }

/* The worker's messages so far, merged as the main thread does. */
static void fake_merge(fake *f) {
    tick_msg *m = f->sh.q_head;
    f->sh.q_head = f->sh.q_tail = NULL;
    while (m) {
        tick_msg *next = m->next;
        m->next = NULL;
        agg_push(&f->a, m);
        m = next;
    }
}

/* The final tick (what worker_flush(w, 1) sends at the stop), then the end. */
static const agg_timer *fake_finish(fake *f, int64_t run_ns) {
    fake_merge(f);
    tick_msg *m = stats_local_flush(&f->w.stats, 0, f->w.tick.index);
    assert_non_null(m);
    m->final = 1;
    agg_push(&f->a, m);
    agg_finish(&f->a, run_ns);
    return agg_find(&f->a, "T");
}

static void fake_free(fake *f) {
    agg_free(&f->a);
    stats_local_free(&f->w.stats);
    uv_close((uv_handle_t *)&f->notify, NULL);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&f->loop), 0);
    uv_mutex_destroy(&f->sh.mu);
    free(f);
}

/* One cut: samples at at_ns[i] (the stop, cap_tick = the current tick,
 * before sample stop_at; -1: none), the worker's tick after each (-1: not
 * checked), then the intervals' rows. */
typedef struct cut_case {
    const char *what;
    int64_t tick_ns, interval_ns, run_ns;
    int nsamples, stop_at;
    int64_t at_ns[4], tick_after[4];
    int nrows;
    int64_t rows[4];
} cut_case;

static const cut_case cut_cases[] = {
    /* 0 and 199.999999 ms are interval 1, 200 ms exactly is interval 2 */
    {"tick boundary", 100 * MS, 200 * MS, 300 * MS, 3, -1,
     {0, 200 * MS - 1, 200 * MS}, {-1, 1, 2}, 2, {2, 1}},
    /* a gap of five ticks: the empty interval between is kept (zero row);
     * after the stop a sample 10 s later stays in the last tick, so no
     * interval opens past the run */
    {"gap and late samples", 100 * MS, 200 * MS, 600 * MS, 3, 2,
     {50 * MS, 550 * MS, 10000 * MS}, {-1, 5, 5}, 3, {1, 0, 2}},
};

static void test_cuts(void **state) {
    (void)state;
    for (size_t c = 0; c < sizeof cut_cases / sizeof cut_cases[0]; c++) {
        const cut_case *k = &cut_cases[c];
        fake *f = fake_new(k->tick_ns, k->interval_ns);
        for (int i = 0; i < k->nsamples; i++) {
            if (i == k->stop_at) f->w.tick.cap = f->w.tick.index;
            fake_sample(f, k->at_ns[i]);
            if (k->tick_after[i] >= 0) assert_int_equal(f->w.tick.index, k->tick_after[i]);
        }
        const agg_timer *t = fake_finish(f, k->run_ns);
        assert_non_null(t);
        assert_int_equal(t->nrows, k->nrows);
        assert_int_equal(f->a.nintervals, k->nrows);
        for (int r = 0; r < k->nrows; r++) assert_int_equal(t->rows[r].count, k->rows[r]);
        assert_int_equal(t->total.total, k->nsamples);
        fake_free(f);
    }
}

/* A stopped worker (going == 0) rotates nothing: its samples stay put. */
static void test_no_rotation_when_stopped(void **state) {
    (void)state;
    fake *f = fake_new(100 * MS, 100 * MS);
    f->w.run.going = 0;
    fake_sample(f, 350 * MS);
    assert_int_equal(f->w.tick.index, 0);
    assert_null(f->sh.q_head);
    f->w.run.going = 1;
    const agg_timer *t = fake_finish(f, 100 * MS);
    assert_int_equal(t->nrows, 1);
    assert_int_equal(t->rows[0].count, 1);
    fake_free(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cuts),
        cmocka_unit_test(test_no_rotation_when_stopped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
