/* health.c - the load generator's health figures on one worker (health.h):
 * the loop-lag timer, the dispatch delay's prepare handle, the sleep
 * wheel's wake lag, the thread's CPU time and CPU wait per tick.  It
 * records through the worker's statistics and decides nothing: the worker
 * calls it at its start, its ticks and its stop. */
#include "engine/health.h"

#include <stdio.h>
#include <sys/resource.h>

/* This thread's CPU time (user + system), microseconds. */
static uint64_t health_cpu_us(void) {
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 +
           (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

/* Time this thread was ready to run but waited for a CPU, microseconds
 * (the kernel's schedstat); 0 when the kernel does not say. */
static uint64_t health_runq_us(void) {
    FILE *f = fopen("/proc/thread-self/schedstat", "r");
    unsigned long long run = 0, wait = 0;
    if (!f) return 0;
    if (fscanf(f, "%llu %llu", &run, &wait) != 2) wait = 0;
    fclose(f);
    return (uint64_t)wait / 1000;
}

void health_init(health *h, worker *w, uv_loop_t *loop, stats_local *st) {
    h->w = w;
    uv_timer_init(loop, &h->lag_timer);        /* only links the handle: cannot fail */
    h->lag_timer.data = h;
    h->tid_loop_lag = stats_timer_id(st, STATS_ENGINE_LOOP_LAG, TK_ENGINE);
    h->tid_dispatch = -1;
}

void health_counters(health *h, stats_local *st) {
    h->cid_cpu = stats_counter_kind_id(st, "engine.cpu_us", CK_ENGINE);
    h->cid_runq = stats_counter_kind_id(st, "engine.cpu_wait_us", CK_ENGINE);
}

static void health_on_prepare(uv_prepare_t *p) {
    health *h = p->data;
    h->disp_ref_ns = 0;
}

int health_dispatch_init(health *h, uv_loop_t *loop, stats_local *st) {
    int rc = uv_prepare_init(loop, &h->disp_prepare);
    if (rc != 0) return rc;
    h->disp_prepare.data = h;
    uv_unref((uv_handle_t *)&h->disp_prepare);
    h->tid_dispatch = stats_timer_id(st, STATS_ENGINE_DISPATCH_DELAY, TK_ENGINE);
    rc = uv_prepare_start(&h->disp_prepare, health_on_prepare);
    if (rc != 0) h->tid_dispatch = -1;
    return rc;
}

/* Event-loop lag: how late a 100 ms timer fires, against the precise clock
 * (re-armed from a fresh loop time each time: libuv's cached loop time would
 * hide a loop that was busy when the timer was armed). */
static void health_on_lag(uv_timer_t *t) {
    health *h = t->data;
    uint64_t now = worker_now_ns();
    if (h->lag_expected_ns)
        worker_record(h->w, h->tid_loop_lag, now > h->lag_expected_ns ? (int64_t)(now - h->lag_expected_ns) : 0,
                      now, 1);
    uv_update_time(t->loop);
    h->lag_expected_ns = worker_now_ns() + 100000000;
    uv_timer_start(t, health_on_lag, 100, 0);
}

void health_go(health *h) {
    h->cpu_last_us = health_cpu_us();    /* interval 1 counts from t0, not the set-up */
    h->runq_last_us = health_runq_us();
    h->lag_expected_ns = 0;
    health_on_lag(&h->lag_timer);
}

void health_stop(health *h) { uv_timer_stop(&h->lag_timer); }

void health_flush(health *h) {
    uint64_t cpu = health_cpu_us(), runq = health_runq_us();
    worker_count(h->w, h->cid_cpu, (int64_t)(cpu - h->cpu_last_us));
    h->cpu_last_us = cpu;
    if (runq > h->runq_last_us) worker_count(h->w, h->cid_runq, (int64_t)(runq - h->runq_last_us));
    h->runq_last_us = runq;
}

/* engine.wake_lag is created at the first wake-up (runs without sleeps
 * do not show it). */
void health_wake_lag(health *h, int64_t late_ns, uint64_t now_ns) {
    if (h->tid_wake_lag1 == 0) {
        int id = stats_timer_id(worker_stats(h->w), STATS_ENGINE_WAKE_LAG, TK_ENGINE);
        h->tid_wake_lag1 = id >= 0 ? id + 1 : -1;
    }
    if (h->tid_wake_lag1 > 0) worker_record(h->w, h->tid_wake_lag1 - 1, late_ns, now_ns, 1);
}
