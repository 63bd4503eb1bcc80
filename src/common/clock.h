/* clock.h - from uv_hrtime() deadlines to libuv timer timeouts. */
#ifndef LUAMECH_CLOCK_H
#define LUAMECH_CLOCK_H

#include <stdint.h>

/* Milliseconds from now_ns until deadline_ns, rounded up (a libuv timer set
 * for it never fires before the deadline's millisecond); 0 when past. */
static inline uint64_t clock_ms_until(uint64_t deadline_ns, uint64_t now_ns) {
    return deadline_ns > now_ns ? (deadline_ns - now_ns + 999999) / 1000000 : 0;
}

#endif
