/* test_wheel.c - unit tests for the sleep wheel (src/engine/wheel.c) on a
 * real libuv loop: VUs wake never before their due time and in due order
 * (FIFO within a millisecond), a removed VU never wakes, a VU woken may
 * sleep again from its wake-up, sleeps past the horizon are refused, and a
 * stalled loop wakes everything that came due at once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "engine/vu.h"
#include "engine/wheel.h"

#define N 64

typedef struct woke {
    vu *v;
    uint64_t at_ns;
} woke;

typedef struct ctx {
    vu_wheel wh;
    vu v[N];
    woke log[4 * N];
    int n;
    int again;          /* VU index that sleeps again (5 ms) at its first wake-up, or -1 */
} ctx;

static void on_wake(vu_wheel *wh, vu *v) {
    ctx *c = (ctx *)wh;                  /* the wheel is its first member */
    uint64_t now = uv_hrtime();
    c->log[c->n].v = v;
    c->log[c->n++].at_ns = now;
    if (c->again >= 0 && v == &c->v[c->again]) {
        c->again = -1;
        v->due_ns = now + 5000000;
        assert_int_equal(wheel_add(&c->wh, v, v->due_ns, now), 1);
    }
}

static void setup_ctx(ctx *c, uv_loop_t *loop) {
    memset(c, 0, sizeof *c);
    c->again = -1;
    assert_int_equal(uv_loop_init(loop), 0);
    wheel_init(&c->wh, loop, on_wake);
}

static void close_loop(uv_loop_t *loop, ctx *c) {
    uv_close((uv_handle_t *)&c->wh.timer, NULL);
    assert_int_equal(uv_run(loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(uv_loop_close(loop), 0);
}

static void test_order_and_never_early(void **state) {
    (void)state;
    uv_loop_t loop;
    static ctx c;
    setup_ctx(&c, &loop);
    uint64_t now = uv_hrtime();
    for (int i = 0; i < N; i++) {
        /* due in 1..40 ms, in an order unlike the insertion order */
        c.v[i].due_ns = now + 1000000 + (uint64_t)((i * 37) % 40) * 1000000 + (uint64_t)(i % 3) * 1000;
        assert_int_equal(wheel_add(&c.wh, &c.v[i], c.v[i].due_ns, now), 1);
    }
    wheel_remove(&c.wh, &c.v[7]);                   /* never wakes */
    wheel_remove(&c.wh, &c.v[7]);                   /* twice: nothing */
    c.again = 3;
    uv_run(&loop, UV_RUN_DEFAULT);                  /* ends when the wheel is empty */
    assert_int_equal(c.n, N - 1 + 1);
    assert_int_equal(c.wh.count, 0);
    int woke3 = 0;
    for (int k = 0; k < c.n; k++) {
        vu *v = c.log[k].v;
        assert_true(v != &c.v[7]);
        if (v == &c.v[3] && woke3++ == 0) continue;  /* its due time moved */
        if (c.log[k].at_ns < v->due_ns) fail_msg("VU %d woke %lld ns early", (int)(v - c.v),
                                                 (long long)(v->due_ns - c.log[k].at_ns));
        /* wake-ups follow their slots (the millisecond after the due time) */
        const vu *p = k > 0 ? c.log[k - 1].v : NULL;
        if (p && p != &c.v[3] && (p->due_ns + 999999) / 1000000 > (v->due_ns + 999999) / 1000000)
            fail_msg("VU %d (due later) woke before VU %d", (int)(p - c.v), (int)(v - c.v));
    }
    assert_int_equal(woke3, 2);
    for (int i = 0; i < N; i++) assert_int_equal(c.v[i].wslot, 0);
    close_loop(&loop, &c);
}

/* Same millisecond: first in, first out. */
static void test_fifo_within_a_slot(void **state) {
    (void)state;
    uv_loop_t loop;
    static ctx c;
    setup_ctx(&c, &loop);
    uint64_t now = uv_hrtime();
    uint64_t due = (now / 1000000 + 3) * 1000000;    /* one millisecond for all */
    for (int i = 0; i < 8; i++) {
        c.v[i].due_ns = due;
        assert_int_equal(wheel_add(&c.wh, &c.v[i], due, now), 1);
    }
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(c.n, 8);
    for (int i = 0; i < 8; i++) assert_ptr_equal(c.log[i].v, &c.v[i]);
    close_loop(&loop, &c);
}

static void test_horizon_and_stall(void **state) {
    (void)state;
    uv_loop_t loop;
    static ctx c;
    setup_ctx(&c, &loop);
    uint64_t now = uv_hrtime();
    assert_int_equal(wheel_add(&c.wh, &c.v[0], now + (uint64_t)(WHEEL_SLOTS + 2) * 1000000, now), 0);
    assert_int_equal(c.v[0].wslot, 0);
    assert_int_equal(c.wh.count, 0);
    /* due within 1..4 ms; the loop only runs 30 ms later: all wake in one turn */
    for (int i = 0; i < 4; i++) {
        c.v[i].due_ns = now + (uint64_t)(i + 1) * 1000000;
        assert_int_equal(wheel_add(&c.wh, &c.v[i], c.v[i].due_ns, now), 1);
    }
    while (uv_hrtime() < now + 30000000) { /* a busy loop: the stall */ }
    assert_int_equal(uv_run(&loop, UV_RUN_ONCE), 0);
    assert_int_equal(c.n, 4);
    for (int i = 0; i < 4; i++) assert_ptr_equal(c.log[i].v, &c.v[i]);
    close_loop(&loop, &c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_and_never_early),
        cmocka_unit_test(test_fifo_within_a_slot),
        cmocka_unit_test(test_horizon_and_stall),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
