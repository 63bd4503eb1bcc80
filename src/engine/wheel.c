/* wheel.c - the per-worker timer wheel of VU sleeps (see wheel.h).  It
 * knows VUs only as list nodes (wnext, wprev, wslot) and calls the wake
 * function it was given; it does not resume anything itself.  No
 * allocation: the slots live in the worker. */
#include "engine/wheel.h"

#include "common/clock.h"
#include "engine/vu.h"

#define WHEEL_MASK (WHEEL_SLOTS - 1)
#define WHEEL_WAKING WHEEL_SLOTS

static void wheel_on_timer(uv_timer_t *t);

void wheel_init(vu_wheel *wh, uv_loop_t *loop, void (*wake)(struct vu_wheel *wh, struct vu *v)) {
    for (int i = 0; i <= WHEEL_SLOTS; i++) wh->slot[i] = NULL;
    wh->cur_ms = wh->armed_ms = 0;
    wh->count = 0;
    wh->wake = wake;
    uv_timer_init(loop, &wh->timer);          /* only links the handle: cannot fail */
    wh->timer.data = wh;
}

static void wheel_link(vu_wheel *wh, vu *v, int slot) {
    vu *head = wh->slot[slot];
    v->wslot = slot + 1;
    if (head == NULL) {
        wh->slot[slot] = v->wnext = v->wprev = v;
        return;
    }
    vu *tail = head->wprev;                   /* append: FIFO within a millisecond */
    tail->wnext = v;
    v->wprev = tail;
    v->wnext = head;
    head->wprev = v;
}

static void wheel_unlink(vu_wheel *wh, vu *v) {
    int slot = v->wslot - 1;
    if (v->wnext == v) wh->slot[slot] = NULL;
    else {
        v->wprev->wnext = v->wnext;
        v->wnext->wprev = v->wprev;
        if (wh->slot[slot] == v) wh->slot[slot] = v->wnext;
    }
    v->wnext = v->wprev = NULL;
    v->wslot = 0;
}

/* Arm the timer for millisecond ms (hrtime / 1e6). */
static void wheel_arm(vu_wheel *wh, uint64_t ms, uint64_t now_ns) {
    uv_update_time(wh->timer.loop);
    uv_timer_start(&wh->timer, wheel_on_timer, clock_ms_until(ms * 1000000, now_ns), 0);
    wh->armed_ms = ms;
}

int wheel_add(vu_wheel *wh, vu *v, uint64_t due_ns, uint64_t now_ns) {
    uint64_t due_ms = (due_ns + 999999) / 1000000;    /* its slot is never before it */
    if (wh->count == 0) wh->cur_ms = now_ns / 1000000;
    if (due_ms <= wh->cur_ms) due_ms = wh->cur_ms + 1;
    if (due_ms - wh->cur_ms > WHEEL_SLOTS) return 0;
    wheel_link(wh, v, (int)(due_ms & WHEEL_MASK));
    wh->count++;
    if (wh->armed_ms == 0 || due_ms < wh->armed_ms) wheel_arm(wh, due_ms, now_ns);
    return 1;
}

void wheel_remove(vu_wheel *wh, vu *v) {
    if (v->wslot == 0) return;
    wheel_unlink(wh, v);
    if (--wh->count == 0 && wh->armed_ms) {
        uv_timer_stop(&wh->timer);
        wh->armed_ms = 0;
    }
}

/* Move the VUs of the slots whose millisecond has come (up to now_ms) to
 * the waking list.  Every VU is within WHEEL_SLOTS ms of cur_ms, so after a
 * long stall one turn of the wheel takes them all. */
static void wheel_advance(vu_wheel *wh, uint64_t now_ms) {
    uint64_t end = now_ms - wh->cur_ms > WHEEL_SLOTS ? wh->cur_ms + WHEEL_SLOTS : now_ms;
    while (wh->cur_ms < end) {
        vu *v;
        int s = (int)(++wh->cur_ms & WHEEL_MASK);
        while ((v = wh->slot[s]) != NULL) {
            wheel_unlink(wh, v);
            wheel_link(wh, v, WHEEL_WAKING);
        }
    }
    if (wh->cur_ms < now_ms) wh->cur_ms = now_ms;
}

/* Arm the timer for the earliest non-empty slot, if it is not already. */
static void wheel_rearm(vu_wheel *wh, uint64_t now_ns) {
    if (wh->count == 0) {
        if (wh->armed_ms) uv_timer_stop(&wh->timer);
        wh->armed_ms = 0;
        return;
    }
    for (uint64_t ms = wh->cur_ms + 1; ms <= wh->cur_ms + WHEEL_SLOTS; ms++) {
        if (wh->slot[ms & WHEEL_MASK] == NULL) continue;
        if (ms != wh->armed_ms) wheel_arm(wh, ms, now_ns);
        return;
    }
}

static void wheel_on_timer(uv_timer_t *t) {
    vu_wheel *wh = t->data;
    uint64_t now = uv_hrtime();
    vu *v;
    wh->armed_ms = 0;
    wheel_advance(wh, now / 1000000);
    while ((v = wh->slot[WHEEL_WAKING]) != NULL) {
        wheel_unlink(wh, v);
        wh->count--;
        wh->wake(wh, v);                      /* it may sleep again: wheel_add */
    }
    wheel_rearm(wh, uv_hrtime());
}
