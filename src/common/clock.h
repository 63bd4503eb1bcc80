/* clock.h - from uv_hrtime() deadlines to libuv timer timeouts, and the
 * lazily armed deadline timer the protocol clients share. */
#ifndef LUAMECH_CLOCK_H
#define LUAMECH_CLOCK_H

#include <stdint.h>
#include <uv.h>

/* Milliseconds from now_ns until deadline_ns, rounded up (a libuv timer set
 * for it never fires before the deadline's millisecond); 0 when past. */
static inline uint64_t clock_ms_until(uint64_t deadline_ns, uint64_t now_ns) {
    return deadline_ns > now_ns ? (deadline_ns - now_ns + 999999) / 1000000 : 0;
}

/* Arm timer t (armed for *due_ns; 0 = idle) for deadline_ns, unless it is
 * already armed for one no later: then its callback, firing early, re-arms
 * for whatever is due by then, so a connection's timer costs no stop/start
 * per request.  now_ns: the caller's clock read, or 0 to read it here. */
static inline void clock_timer_arm(uv_timer_t *t, uint64_t *due_ns, uv_timer_cb cb,
                                   uint64_t deadline_ns, uint64_t now_ns) {
    if (deadline_ns == 0 || (*due_ns && *due_ns <= deadline_ns)) return;
    uv_timer_start(t, cb, clock_ms_until(deadline_ns, now_ns ? now_ns : uv_hrtime()), 0);
    *due_ns = deadline_ns;
}

static inline void clock_timer_disarm(uv_timer_t *t, uint64_t *due_ns) {
    if (*due_ns) uv_timer_stop(t);
    *due_ns = 0;
}

/* The next reconnect delay after a failure: min_ns first, then doubling,
 * capped at max_ns (cur_ns: the delay used last time; 0 = none yet). */
static inline uint64_t clock_backoff_next(uint64_t cur_ns, uint64_t min_ns, uint64_t max_ns) {
    if (cur_ns == 0) return min_ns < max_ns ? min_ns : max_ns;
    return cur_ns < max_ns / 2 ? cur_ns * 2 : max_ns;
}

#endif
