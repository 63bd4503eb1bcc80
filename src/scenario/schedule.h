/* schedule.h - piecewise-linear load schedules, as pure functions of time
 * since t0 (no clock, no I/O), so they can be tested exactly:
 *  - a VU-count schedule (closed and paced groups with stages): VU i of a
 *    group runs while target(t) > i;
 *  - an arrival-rate schedule (rate groups): arrival k happens when the
 *    integral of the rate from 0 reaches k (arrival 0 at the start). */
#ifndef LUAMECH_SCHEDULE_H
#define LUAMECH_SCHEDULE_H

#include <stdint.h>

#define SCHED_MAX_STAGES 64
#define SCHED_NEVER INT64_MAX

typedef struct sched_stage {
    int64_t dur_ns;
    double target;        /* VUs, or transactions per second */
} sched_stage;

typedef struct schedule {
    double start;         /* target at t = 0 */
    int n;                /* stages; after the last one the target holds */
    sched_stage st[SCHED_MAX_STAGES];
} schedule;

/* A constant schedule. */
void sched_constant(schedule *s, double target);
double sched_target(const schedule *s, int64_t t_ns);
/* The first time t >= from_ns with target(t) > level (the infimum), or
 * SCHED_NEVER. */
int64_t sched_first_above(const schedule *s, double level, int64_t from_ns);
/* Integral of the target from 0 to t (arrivals by time t, for rates). */
double sched_integral(const schedule *s, int64_t t_ns);
/* Time of arrival k (k >= 0): the first t with integral(t) >= k, or
 * SCHED_NEVER when the rate drops to zero for good before. */
int64_t sched_arrival_ns(const schedule *s, double k);
/* Largest target over the schedule. */
double sched_max(const schedule *s);
/* Sum of the stage durations. */
int64_t sched_total_ns(const schedule *s);

#endif
