/* wheel.h - a worker's timer wheel for VU sleeps: one slot per millisecond
 * over WHEEL_SLOTS ms ahead, each an intrusive FIFO of VUs, and a single
 * libuv timer armed for the earliest non-empty slot.  Adding and removing
 * a sleeping VU is O(1) (a libuv timer per VU costs O(log n) heap work per
 * sleep, which a million sleeping VUs feel).  A VU is woken in the first
 * loop turn at or after the millisecond that follows its due time: never
 * early.  Sleeps beyond the horizon are the caller's (a per-VU timer). */
#ifndef LUAMECH_WHEEL_H
#define LUAMECH_WHEEL_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#define WHEEL_SLOTS 4096            /* 1 ms each: a 4 s horizon; a power of two */

struct vu;
struct vu_wheel;

typedef struct vu_wheel {
    struct vu *slot[WHEEL_SLOTS + 1];   /* heads of circular lists; [WHEEL_SLOTS]: being woken */
    uint64_t cur_ms;                    /* slots up to this millisecond are taken out */
    uint64_t armed_ms;                  /* the timer's millisecond; 0 = not armed */
    size_t count;                       /* VUs in the wheel (the waking list included) */
    uv_timer_t timer;
    void (*wake)(struct vu_wheel *wh, struct vu *v);   /* for each VU whose time came */
} vu_wheel;

/* Initialise on loop (the timer handle is closed with the loop's others). */
void wheel_init(vu_wheel *wh, uv_loop_t *loop, void (*wake)(struct vu_wheel *wh, struct vu *v));
/* Put v to sleep until due_ns (> now_ns): 1, or 0 when due_ns is beyond the
 * horizon (nothing done). */
int wheel_add(vu_wheel *wh, struct vu *v, uint64_t due_ns, uint64_t now_ns);
/* Take v out (no wake-up); nothing when it is not in the wheel. */
void wheel_remove(vu_wheel *wh, struct vu *v);

#endif
