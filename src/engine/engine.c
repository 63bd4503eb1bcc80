/* engine.c - the main thread's side of a run: worker start-up, preflight,
 * the run clock (t0, deadline), signals, and lockstep merging of worker
 * ticks into the run's statistics.  No protocol and no Lua here. */
#include "common/clock.h"
#include "engine/engine.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "engine/worker.h"
#include "stats/rawlog.h"

typedef struct engine {
    const scenario *sc;
    const run_hooks *hooks;
    run_result *r;
    run_shared shared;
    worker *workers;
    int nworkers, finals, going, stop_sent;
    uint64_t stop_ns;              /* when the stop was decided (hrtime) */
    uv_loop_t loop;
    uv_async_t notify;
    uv_signal_t sigint, sigterm;
    uv_timer_t deadline, progress, preflight_timeout;
} engine;

int64_t engine_tick_ns(int64_t interval_ns) {
    const int64_t unit = 100000000;         /* intervals are whole 100 ms */
    int64_t k = interval_ns / unit;
    for (int64_t d = 10; d > 1; d--)
        if (k % d == 0) return d * unit;
    return unit;
}

static void engine_broadcast(engine *e, int cmd) {
    for (int i = 0; i < e->nworkers; i++) worker_command(&e->workers[i], cmd);
}

static void engine_stop(engine *e, int hard) {
    if (!e->stop_sent) {
        e->stop_sent = 1;
        e->stop_ns = uv_hrtime();
        uv_timer_stop(&e->deadline);
    }
    engine_broadcast(e, hard ? WCMD_HARD : WCMD_STOP);
}

static void engine_on_deadline(uv_timer_t *t) {
    engine *e = t->data;
    uint64_t t0 = atomic_load(&e->shared.t0_ns), now = uv_hrtime();
    int64_t limit = e->sc->run_time_ns > 0 ? e->sc->run_time_ns : ENGINE_BUDGET_LIMIT_NS;
    if (now < t0 + (uint64_t)limit) {     /* libuv's coarse clock fired it early */
        uv_timer_start(t, engine_on_deadline, clock_ms_until(t0 + (uint64_t)limit, now), 0);
        return;
    }
    engine_stop(e, 0);
    if (e->sc->run_time_ns > 0)
        e->stop_ns = atomic_load(&e->shared.t0_ns) + (uint64_t)e->sc->run_time_ns;
    else
        fprintf(stderr, "luamech: the transaction budget was not spent within %lld s: stopping\n",
                (long long)(ENGINE_BUDGET_LIMIT_NS / 1000000000));
}

static void engine_on_progress(uv_timer_t *t) {
    engine *e = t->data;
    double elapsed = (double)(uv_hrtime() - atomic_load(&e->shared.t0_ns)) / 1e9;
    if (e->hooks && e->hooks->on_progress)
        e->hooks->on_progress(e->hooks->ctx, e->r, elapsed, (double)e->sc->run_time_ns / 1e9);
}

static void engine_on_signal(uv_signal_t *h, int signum) {
    engine *e = h->data;
    if (e->r->status == RUN_ABORTED) return;
    int second = e->r->signal != 0;
    e->r->signal = signum;
    e->r->status = RUN_INTERRUPTED;
    const char *what = !e->going ? "stopping before the load started"
                     : second ? "cancelling in-flight requests now"
                              : "stopping; in-flight transactions finish (again to cancel them)";
    fprintf(stderr, "\nluamech: %s: %s\n", signum == SIGINT ? "SIGINT" : "SIGTERM", what);
    engine_stop(e, second || !e->going);
}

static void engine_go(engine *e) {
    e->going = 1;
    atomic_store(&e->shared.t0_ns, uv_hrtime());
    clock_gettime(CLOCK_REALTIME, &e->r->start_wall);
    uv_timer_stop(&e->preflight_timeout);
    engine_broadcast(e, WCMD_GO);
    /* A run bounded only by its transaction budget still ends: after an hour. */
    int64_t limit_ns = e->sc->run_time_ns > 0 ? e->sc->run_time_ns : ENGINE_BUDGET_LIMIT_NS;
    uv_timer_start(&e->deadline, engine_on_deadline, (uint64_t)(limit_ns / 1000000), 0);
    uv_timer_start(&e->progress, engine_on_progress, 1000, 1000);
}

static void engine_abort(engine *e, const char *why) {
    if (e->r->status == RUN_ABORTED) return;
    e->r->status = RUN_ABORTED;
    snprintf(e->r->error, sizeof e->r->error, "%s", why);
    engine_stop(e, 1);
}

static void engine_on_preflight_timeout(uv_timer_t *t) {
    engine_abort(t->data, "preflight: the scripts' initialisation did not finish within 60 s");
}

static void engine_drain(engine *e) {
    uv_mutex_lock(&e->shared.mu);
    tick_msg *m = e->shared.q_head;
    e->shared.q_head = e->shared.q_tail = NULL;
    uv_mutex_unlock(&e->shared.mu);
    while (m) {
        tick_msg *next = m->next;
        if (m->final) e->finals++;
        int closed = agg_push(&e->r->agg, m);
        if (closed && e->hooks && e->hooks->on_interval) {
            e->r->run_ns = e->r->span_ns = (int64_t)e->r->agg.nintervals * e->r->agg.interval_ns;   /* so far */
            clock_gettime(CLOCK_REALTIME, &e->r->end_wall);
            if (e->hooks->on_interval(e->hooks->ctx, e->r) && !e->stop_sent) {
                e->r->stopped_by_hook = 1;
                engine_stop(e, 0);
            }
        }
        m = next;
    }
}

static void engine_on_notify(uv_async_t *h) {
    engine *e = h->data;
    uv_mutex_lock(&e->shared.mu);
    int failed = e->shared.failed, ready = e->shared.ready;
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", e->shared.fail_msg);
    uv_mutex_unlock(&e->shared.mu);
    if (failed && !e->going) engine_abort(e, msg);
    else if (!e->going && !e->stop_sent && ready == e->nworkers) engine_go(e);
    engine_drain(e);
    if (e->finals == e->nworkers) uv_stop(&e->loop);
}

static void engine_init_loop(engine *e) {
    uv_loop_init(&e->loop);
    uv_async_init(&e->loop, &e->notify, engine_on_notify);
    uv_signal_init(&e->loop, &e->sigint);
    uv_signal_init(&e->loop, &e->sigterm);
    uv_timer_init(&e->loop, &e->deadline);
    uv_timer_init(&e->loop, &e->progress);
    uv_timer_init(&e->loop, &e->preflight_timeout);
    e->notify.data = e->sigint.data = e->sigterm.data = e;
    e->deadline.data = e->progress.data = e->preflight_timeout.data = e;
    uv_signal_start(&e->sigint, engine_on_signal, SIGINT);
    uv_signal_start(&e->sigterm, engine_on_signal, SIGTERM);
    uv_timer_start(&e->preflight_timeout, engine_on_preflight_timeout, 60000, 0);
}

static void engine_close_cb(uv_handle_t *h, void *arg) {
    (void)arg;
    if (!uv_is_closing(h)) uv_close(h, NULL);
}

/* Each worker's share of a transaction budget, proportional to its VUs
 * (VU k of the run lives on worker k % nworkers); -1 when unbounded. */
static void engine_quotas(const scenario *sc, int nworkers, int64_t *quota) {
    int64_t *vus = calloc((size_t)nworkers, sizeof *vus), total = scenario_total_vus(sc), given = 0;
    for (int64_t k = 0; k < total; k++) vus[k % nworkers]++;
    for (int w = 0; w < nworkers; w++) {
        quota[w] = sc->requests > 0 && total ? sc->requests * vus[w] / total : -1;
        if (quota[w] > 0) given += quota[w];
    }
    for (int w = 0; sc->requests > 0 && given < sc->requests; w = (w + 1) % nworkers)
        if (vus[w] > 0) quota[w]++, given++;
    free(vus);
}

int engine_run(const scenario *sc, const params *p, int nworkers, uint64_t seed,
               const run_hooks *hooks, run_result *r) {
    engine e;
    memset(&e, 0, sizeof e);
    memset(r, 0, sizeof *r);
    e.sc = sc;
    e.hooks = hooks;
    e.r = r;
    e.nworkers = r->nworkers = nworkers;
    r->seed = seed;
    clock_gettime(CLOCK_REALTIME, &r->start_wall);   /* replaced at t0 */
    r->end_wall = r->start_wall;
    engine_init_loop(&e);
    int64_t tick_ns = engine_tick_ns(sc->interval_ns);
    agg_init(&r->agg, nworkers, sc->interval_ns, tick_ns);
    if (sc->max_timers > 0) r->agg.max_timers = sc->max_timers;
    if (hooks) {
        r->agg.on_hist = hooks->on_hist;
        r->agg.on_hist_ctx = hooks->ctx;
    }
    e.shared = (run_shared){.sc = sc, .params = p, .seed = seed, .nworkers = nworkers,
                            .tick_ns = tick_ns, .notify = &e.notify};
    uv_mutex_init(&e.shared.mu);
    e.shared.rawlog_dir = hooks ? hooks->rawlog_dir : NULL;
    e.workers = calloc((size_t)nworkers, sizeof *e.workers);
    int64_t *quota = calloc((size_t)nworkers, sizeof *quota);
    engine_quotas(sc, nworkers, quota);
    for (int i = 0; i < nworkers; i++) worker_start(&e.workers[i], i, &e.shared, quota[i]);
    free(quota);
    uv_run(&e.loop, UV_RUN_DEFAULT);
    for (int i = 0; i < nworkers; i++) worker_join(&e.workers[i]);
    engine_drain(&e);
    clock_gettime(CLOCK_REALTIME, &r->end_wall);
    uint64_t t0 = atomic_load(&e.shared.t0_ns), end = e.stop_ns;
    for (int i = 0; i < nworkers && !e.stop_sent; i++)
        if (e.workers[i].end_ns > end) end = e.workers[i].end_ns;
    r->run_ns = e.going && end > t0 ? (int64_t)(end - t0) : 0;
    for (int i = 0; i < nworkers; i++)                 /* the drain: sampling went on */
        if (e.workers[i].end_ns > end) end = e.workers[i].end_ns;
    r->span_ns = e.going && end > t0 ? (int64_t)(end - t0) : 0;
    if (e.going) r->span_ns = agg_finish_span(&r->agg, r->run_ns, r->span_ns);
    if (e.shared.rawlog_dir) rawlog_merge(e.shared.rawlog_dir, nworkers);
    uv_walk(&e.loop, engine_close_cb, NULL);
    uv_run(&e.loop, UV_RUN_DEFAULT);
    uv_loop_close(&e.loop);
    uv_mutex_destroy(&e.shared.mu);
    free(e.workers);
    return r->status == RUN_ABORTED ? -1 : 0;
}

void run_result_free(run_result *r) { agg_free(&r->agg); }
