/* engine.c - the main thread's side of a run: the plan check, worker
 * start-up, preflight, the run clock (t0, deadline), signals, the watchdog
 * over stuck VUs, and lockstep merging of worker ticks into the run's
 * statistics.  No protocol and no Lua here (the watchdog's Lua hook is
 * worker.c's). */
#include "common/clock.h"
#include "common/when.h"
#include "engine/engine.h"

#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <signal.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <uv.h>

#include "engine/vu.h"
#include "engine/worker.h"
#include "scenario/plan.h"
#include "stats/rawlog.h"

#define ENGINE_WATCHDOG_MS 100

/* What the watchdog knows of one worker. */
typedef struct engine_watch {
    int final;                     /* its last tick arrived */
    int64_t next_tick;             /* the tick after its last one received */
    uint64_t seq;                  /* resume count at the last look */
    uint64_t still_since_ns;       /* the same VU has been running since then */
    uint64_t interrupted_ns;       /* the hook was set (0: not yet) */
    int abandoned;
} engine_watch;

typedef struct engine {
    const scenario *sc;
    const run_hooks *hooks;
    run_result *r;
    run_shared shared;
    worker *workers;
    engine_watch *watch;
    int nworkers, nstarted, finals, nabandoned, going, stop_sent;
    int waiting;                   /* preflight done: waiting for --start-at */
    uint64_t start_mono_ns;        /* --start-at on the monotonic clock */
    uint64_t stop_ns;              /* when the stop was decided (hrtime) */
    uint64_t hard_ns;              /* when a hard stop was decided (0: none) */
    uv_loop_t loop;
    uv_async_t notify;
    uv_signal_t sigint, sigterm, sighup;
    uv_timer_t deadline, progress, preflight_timeout, watchdog, start_at;
} engine;

int64_t engine_tick_ns(int64_t interval_ns) {
    const int64_t unit = 100000000;         /* intervals are whole 100 ms */
    int64_t k = interval_ns / unit;
    for (int64_t d = 10; d > 1; d--)
        if (k % d == 0) return d * unit;
    return unit;
}

static void engine_broadcast(engine *e, int cmd) {
    for (int i = 0; i < e->nstarted; i++) worker_command(&e->workers[i], cmd);
}

static void engine_stop(engine *e, int hard) {
    uint64_t now = uv_hrtime();
    if (!e->stop_sent) {
        e->stop_sent = 1;
        e->stop_ns = now;
        uv_timer_stop(&e->deadline);
        uv_timer_stop(&e->start_at);
    }
    if (hard && !e->hard_ns) e->hard_ns = now;
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
    if (e->sc->run_time_ns > 0 && !e->hard_ns)
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

static const char *engine_signal_name(int signum) {
    return signum == SIGINT ? "SIGINT" : signum == SIGHUP ? "SIGHUP" : "SIGTERM";
}

/* SIGINT, SIGTERM and SIGHUP: stop gracefully; a second one cancels.  Works
 * in every phase (preflight included); a stuck worker is the watchdog's. */
static void engine_on_signal(uv_signal_t *h, int signum) {
    engine *e = h->data;
    int second = e->r->signal != 0;
    if (e->hard_ns) return;         /* cancelling already: more signals change nothing (a flood of them
                                       re-sent the workers' stop until the watchdog took them for stuck) */
    if (e->r->status == RUN_ABORTED || e->r->status == RUN_STUCK) {
        fprintf(stderr, "\nluamech: %s: already stopping\n", engine_signal_name(signum));
        return;
    }
    e->r->signal = signum;
    e->r->status = RUN_INTERRUPTED;
    const char *what = !e->going ? "stopping before the load started"
                     : second ? "cancelling in-flight requests now"
                              : "stopping; in-flight transactions finish (again to cancel them)";
    fprintf(stderr, "\nluamech: %s: %s\n", engine_signal_name(signum), what);
    engine_stop(e, second || !e->going);
}

static void engine_go(engine *e) {
    e->going = 1;
    uint64_t t0 = uv_hrtime();
    atomic_store(&e->shared.t0_ns, t0);
    if (e->sc->start_at_ns > 0) e->r->start_offset_ns = (int64_t)(t0 - e->start_mono_ns);
    clock_gettime(CLOCK_REALTIME, &e->r->start_wall);
    uv_timer_stop(&e->preflight_timeout);
    engine_broadcast(e, WCMD_GO);
    /* A run bounded only by its transaction budget still ends: after an hour. */
    int64_t limit_ns = e->sc->run_time_ns > 0 ? e->sc->run_time_ns : ENGINE_BUDGET_LIMIT_NS;
    /* uv_timer_start fails only without a callback or on a closing handle:
     * the engine's timers are open until engine_free */
    uv_timer_start(&e->deadline, engine_on_deadline, (uint64_t)(limit_ns / 1000000), 0);
    /* each second, 100 ms after the tick's end: its tick messages merged
     * (at 1000 ms the first line read vus 0, tx 0 when ticks are 1 s) */
    uv_timer_start(&e->progress, engine_on_progress, 1100, 1000);
}

/* ---- the start barrier (--start-at) ----
 * CLOCK_REALTIME is read once, when the preflight is done, to place the
 * wall-clock start on the monotonic clock; from then on only the monotonic
 * clock counts.  A libuv timer wakes the loop about 2 ms early, and the
 * main thread sleeps the rest to the nanosecond (clock_nanosleep), so
 * every segment's t0 is the same instant up to the hosts' clock offsets. */

#define ENGINE_LATE_START_NS 100000000LL    /* a start this late is reported */

static void engine_on_start_at(uv_timer_t *t) {
    engine *e = t->data;
    if (e->stop_sent) return;
    struct timespec at = {(time_t)(e->start_mono_ns / 1000000000ULL), (long)(e->start_mono_ns % 1000000000ULL)};
    while (uv_hrtime() < e->start_mono_ns && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR) {}
    engine_go(e);
    if (e->r->start_offset_ns > ENGINE_LATE_START_NS)
        fprintf(stderr, "luamech: --start-at: started %.3f s late (a busy machine)\n", (double)e->r->start_offset_ns / 1e9);
}

static void engine_wait_start(engine *e) {
    struct timespec real;
    uint64_t mono = uv_hrtime();
    clock_gettime(CLOCK_REALTIME, &real);
    int64_t real_ns = (int64_t)real.tv_sec * 1000000000LL + real.tv_nsec, ahead = e->sc->start_at_ns - real_ns;
    char when[64];
    when_format(e->sc->start_at_ns, when, sizeof when);
    e->waiting = 1;
    uv_timer_stop(&e->preflight_timeout);
    e->start_mono_ns = (uint64_t)((int64_t)mono + ahead);
    if (ahead <= 0) {
        fprintf(stderr, "luamech: --start-at %s: the preflight ended %.3f s after it: starting late\n", when,
                (double)-ahead / 1e9);
        engine_go(e);
        return;
    }
    fprintf(stderr, "luamech: preflight done; starting at %s (in %.3f s)\n", when, (double)ahead / 1e9);
    uint64_t ms = ahead > 2000000 ? (uint64_t)(ahead - 2000000) / 1000000 : 0;
    uv_timer_start(&e->start_at, engine_on_start_at, ms, 0);     /* cannot fail: as in engine_go */
}

static void engine_abort(engine *e, const char *why) {
    if (e->r->status == RUN_ABORTED) return;
    e->r->status = RUN_ABORTED;
    snprintf(e->r->error, sizeof e->r->error, "%s", why);
    engine_stop(e, 1);
}

/* The preflight's limit: 60 s, and 60 s more per million VUs (their
 * coroutines are made before the clock starts, pace_prepare: about 4 s of
 * CPU per worker per million on a quiet 2-CPU VM, 36 s of wall time for a
 * million on two workers at a load average of 16). */
static uint64_t engine_preflight_ms(const scenario *sc) {
    return 60000 + (uint64_t)plan_segment_vus(sc) * 60 / 1000;
}

static void engine_on_preflight_timeout(uv_timer_t *t) {
    engine *e = t->data;
    char why[128];
    snprintf(why, sizeof why, "preflight: the scripts' initialisation did not finish within %.0f s",
             (double)engine_preflight_ms(e->sc) / 1000);
    engine_abort(e, why);
}

/* At an interval's close: give the free pages inside malloc's arenas back
 * to the system.  A long run's churn (VUs parked and resumed, connections
 * opened and closed by the workers) leaves free holes between live blocks,
 * mostly in the workers' arenas; glibc returns only the top of a heap, so
 * without this RSS creeps towards the most malloc ever held (a 1-hour soak:
 * +30 %, with bytes in use flat).  Once per interval, in the main thread; a
 * worker that allocates meanwhile waits for its arena's lock. */
static void engine_release_memory(void) {
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

static void engine_drain(engine *e) {
    uv_mutex_lock(&e->shared.mu);
    tick_msg *m = e->shared.q_head;
    e->shared.q_head = e->shared.q_tail = NULL;
    uv_mutex_unlock(&e->shared.mu);
    while (m) {
        tick_msg *next = m->next;
        engine_watch *ws = &e->watch[m->worker];
        if (ws->abandoned) {           /* it woke up after all: too late */
            tick_msg_free(m);
            m = next;
            continue;
        }
        if (m->final) e->finals++, ws->final = 1;
        ws->next_tick = m->tick + 1;
        int closed = agg_push(&e->r->agg, m);
        if (closed && e->hooks && e->hooks->on_interval) {
            e->r->run_ns = e->r->span_ns = (int64_t)e->r->agg.nintervals * e->r->agg.interval_ns;   /* so far */
            clock_gettime(CLOCK_REALTIME, &e->r->end_wall);
            if (e->hooks->on_interval(e->hooks->ctx, e->r) && !e->stop_sent) {
                e->r->stopped_by_hook = 1;
                engine_stop(e, 0);
            }
        }
        if (closed) engine_release_memory();   /* after the hook's writing too */
        m = next;
    }
}

/* luamech.stop: a graceful stop; luamech.abort: a hard one (before the
 * load, either ends the run at once). */
static void engine_script_stop(engine *e, int level, const char *reason) {
    if (level <= e->r->script_stop) return;
    e->r->script_stop = level;
    snprintf(e->r->stop_reason, sizeof e->r->stop_reason, "%s", reason);
    fprintf(stderr, "luamech: %s by the script: %s\n", level == 2 ? "aborted" : "stopping", reason);
    engine_stop(e, level == 2 || !e->going);
}

static void engine_on_notify(uv_async_t *h) {
    engine *e = h->data;
    uv_mutex_lock(&e->shared.mu);
    int failed = e->shared.failed, ready = e->shared.ready, script_stop = e->shared.script_stop;
    char msg[1024], reason[256];
    snprintf(msg, sizeof msg, "%s", e->shared.fail_msg);
    snprintf(reason, sizeof reason, "%s", e->shared.stop_reason);
    uv_mutex_unlock(&e->shared.mu);
    if (script_stop) engine_script_stop(e, script_stop, reason);
    if (failed && !e->going) engine_abort(e, msg);
    else if (!e->going && !e->waiting && !e->stop_sent && ready == e->nworkers) {
        if (e->sc->start_at_ns > 0) engine_wait_start(e);
        else engine_go(e);
    }
    engine_drain(e);
    if (e->finals + e->nabandoned == e->nstarted) uv_stop(&e->loop);
}

/* ---- the watchdog ---- */

/* "VU 3 (group 'spin', worker 1) ... in transaction 12 (spin_vu.lua)". */
static void engine_describe_vu(const engine *e, int wi, const vu *v, double still_s, char *buf, size_t len) {
    const group_cfg *g = &e->sc->groups[v->group];
    char doing[64];
    if (v->tx_start_ns == 0) snprintf(doing, sizeof doing, "its init");
    else snprintf(doing, sizeof doing, "transaction %llu", (unsigned long long)v->iterations + 1);
    snprintf(buf, len, "VU %d (group '%s', worker %d) ran %.1f s without yielding, in %s (%s)",
             v->id, g->name, wi + 1, still_s, doing, g->script_name ? g->script_name : g->script_path);
}

/* When every worker must have finished: the graceful stop (or a hard stop)
 * plus ENGINE_HARD_NS; 0 before any stop. */
static uint64_t engine_finish_due(const engine *e) {
    if (!e->stop_sent) return 0;
    uint64_t end = e->stop_ns + (uint64_t)(e->sc->graceful_stop_ns > 0 ? e->sc->graceful_stop_ns : 0);
    if (e->hard_ns && e->hard_ns < end) end = e->hard_ns;
    return end + (uint64_t)ENGINE_HARD_NS;
}

static void engine_set_stuck(engine *e, const char *what) {
    if (e->r->status != RUN_STUCK) {
        const char *before = e->r->status == RUN_ABORTED ? e->r->error : "";
        char prev[sizeof e->r->error];
        snprintf(prev, sizeof prev, "%s", before);
        snprintf(e->r->error, sizeof e->r->error, "%.500s%s%.500s", what, prev[0] ? "; " : "", prev);
    }
    e->r->status = RUN_STUCK;
}

static void engine_interrupt(engine *e, int wi, const vu *v, uint64_t now) {
    engine_watch *ws = &e->watch[wi];
    char what[512];
    if (v) engine_describe_vu(e, wi, v, (double)(now - ws->still_since_ns) / 1e9, what, sizeof what);
    else snprintf(what, sizeof what, "worker %d did not finish its stop", wi + 1);
    ws->interrupted_ns = now;
    fprintf(stderr, "luamech: watchdog: %s: interrupting it\n", what);
    engine_set_stuck(e, what);
    if (!e->stop_sent) engine_stop(e, 0);        /* the others stop gracefully */
    worker_command(&e->workers[wi], WCMD_HARD);
    worker_interrupt(&e->workers[wi]);
}

/* The hook did not stop it (compiled code, or a script that caught the
 * error): leave the thread running, keep what it sent, and end the run
 * without it.  Its missing ticks count as finished for the merge. */
static void engine_abandon(engine *e, int wi) {
    engine_watch *ws = &e->watch[wi];
    engine_drain(e);
    if (ws->final) return;
    ws->abandoned = 1;
    e->nabandoned++;
    e->r->abandoned = 1;
    char kept[96] = "no load had started";
    if (e->going)
        snprintf(kept, sizeof kept, "its results up to t = %.1f s are kept",
                 (double)ws->next_tick * (double)e->shared.tick_ns / 1e9);
    fprintf(stderr, "luamech: watchdog: worker %d did not stop within %.0f s of the interrupt (compiled Lua "
                    "code and C code do not see the hook): abandoned; %s\n",
            wi + 1, (double)ENGINE_ABANDON_NS / 1e9, kept);
    size_t n = strlen(e->r->error);
    snprintf(e->r->error + n, sizeof e->r->error - n, "; worker %d abandoned (%s)", wi + 1, kept);
    if (e->going) {
        tick_msg *m = calloc(1, sizeof *m);
        if (m) {
            m->worker = wi;
            m->tick = ws->next_tick;
            m->final = 1;
            agg_push(&e->r->agg, m);
        }
    }
}

static void engine_watch_worker(engine *e, int wi, uint64_t now) {
    engine_watch *ws = &e->watch[wi];
    worker *w = &e->workers[wi];
    const vu *v = atomic_load_explicit(&w->watch.running, memory_order_acquire);
    uint64_t seq = atomic_load_explicit(&w->watch.resume_seq, memory_order_relaxed);
    if (!v || seq != ws->seq) ws->still_since_ns = now;
    ws->seq = seq;
    if (ws->interrupted_ns) {
        if (now - ws->interrupted_ns >= (uint64_t)ENGINE_ABANDON_NS) engine_abandon(e, wi);
        return;
    }
    /* Past the due time a VU that has not yielded for ENGINE_HARD_NS is
     * stuck; a worker busy elsewhere (C code, a slow stop) gets ENGINE_LATE_NS
     * more before it is stopped all the same. */
    uint64_t due = engine_finish_due(e), still = now - ws->still_since_ns;
    int stalled = v && e->going && !e->stop_sent && still >= (uint64_t)ENGINE_STALL_NS;
    int overdue = due && now >= due && ((v && still >= (uint64_t)ENGINE_HARD_NS) || now >= due + ENGINE_LATE_NS);
    if (stalled || overdue) engine_interrupt(e, wi, v, now);
}

static void engine_on_watchdog(uv_timer_t *t) {
    engine *e = t->data;
    uint64_t now = uv_hrtime();
    for (int i = 0; i < e->nstarted; i++)
        if (!e->watch[i].final && !e->watch[i].abandoned) engine_watch_worker(e, i, now);
    if (e->finals + e->nabandoned == e->nstarted) uv_stop(&e->loop);
}

/* After the run: say how an interrupted VU ended (its worker was joined). */
static void engine_report_interrupted(engine *e) {
    for (int i = 0; i < e->nstarted; i++) {
        const engine_watch *ws = &e->watch[i];
        if (!ws->interrupted_ns || ws->abandoned) continue;
        const char *at = e->workers[i].watch.stuck_where;
        size_t n = strlen(e->r->error);
        if (at[0]) snprintf(e->r->error + n, sizeof e->r->error - n, "; stopped at %s", at);
        fprintf(stderr, "luamech: watchdog: worker %d stopped%s%s\n", i + 1, at[0] ? "; the VU was at " : "", at);
    }
}

/* ---- set-up ---- */

static int engine_init_loop(engine *e, char *err, size_t err_len) {
    int rc = uv_loop_init(&e->loop);
    if (rc != 0) {
        snprintf(err, err_len, "cannot create the main event loop: %s", uv_strerror(rc));
        return -1;
    }
    if ((rc = uv_async_init(&e->loop, &e->notify, engine_on_notify)) != 0 ||
        (rc = uv_signal_init(&e->loop, &e->sigint)) != 0 || (rc = uv_signal_init(&e->loop, &e->sigterm)) != 0 ||
        (rc = uv_signal_init(&e->loop, &e->sighup)) != 0) {
        snprintf(err, err_len, "cannot set up the main event loop: %s", uv_strerror(rc));
        return -1;
    }
    uv_timer_init(&e->loop, &e->deadline);      /* timers only link the handle: they cannot fail */
    uv_timer_init(&e->loop, &e->progress);
    uv_timer_init(&e->loop, &e->preflight_timeout);
    uv_timer_init(&e->loop, &e->watchdog);
    uv_timer_init(&e->loop, &e->start_at);
    e->start_at.data = e;
    e->notify.data = e->sigint.data = e->sigterm.data = e->sighup.data = e;
    e->deadline.data = e->progress.data = e->preflight_timeout.data = e->watchdog.data = e;
    if ((rc = uv_signal_start(&e->sigint, engine_on_signal, SIGINT)) != 0 ||
        (rc = uv_signal_start(&e->sigterm, engine_on_signal, SIGTERM)) != 0 ||
        (rc = uv_signal_start(&e->sighup, engine_on_signal, SIGHUP)) != 0) {
        snprintf(err, err_len, "cannot handle signals: %s", uv_strerror(rc));
        return -1;
    }
    uv_timer_start(&e->preflight_timeout, engine_on_preflight_timeout, engine_preflight_ms(e->sc), 0);  /* cannot fail: as in engine_go */
    uv_timer_start(&e->watchdog, engine_on_watchdog, ENGINE_WATCHDOG_MS, ENGINE_WATCHDOG_MS);
    return 0;
}

static void engine_close_cb(uv_handle_t *h, void *arg) {
    (void)arg;
    if (!uv_is_closing(h)) uv_close(h, NULL);
}

/* Each worker's share of a transaction budget (the segment's share when
 * segmented), proportional to its VUs (the segment's k-th VU lives on
 * worker k % nworkers); -1 when unbounded.
 * Needs at least one VU (engine_check_plan). */
static int engine_quotas(const scenario *sc, int nworkers, int64_t *quota) {
    int64_t *vus = calloc((size_t)nworkers, sizeof *vus), total = plan_segment_vus(sc), given = 0;
    if (!vus) return -1;
    for (int64_t k = 0; k < total; k++) vus[k % nworkers]++;   /* the segment's k-th VU: worker k % n */
    for (int w = 0; w < nworkers; w++) {
        quota[w] = sc->requests > 0 && total ? sc->requests * vus[w] / total : -1;
        if (quota[w] > 0) given += quota[w];
    }
    for (int w = 0; sc->requests > 0 && total > 0 && given < sc->requests; w = (w + 1) % nworkers)
        if (vus[w] > 0) quota[w]++, given++;
    free(vus);
    return 0;
}

/* The memory the process may use: the smaller of RLIMIT_AS and RAM. */
static uint64_t engine_memory_limit(void) {
    uint64_t lim = UINT64_MAX;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) lim = (uint64_t)pages * (uint64_t)page;
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && (uint64_t)rl.rlim_cur < lim)
        lim = (uint64_t)rl.rlim_cur;
    return lim;
}

engine_plan engine_check_plan(const scenario *sc, int nworkers, char *err, size_t err_len) {
    if (nworkers < 1 || nworkers > ENGINE_MAX_WORKERS) {
        snprintf(err, err_len, "%d workers: the engine runs 1 to %d", nworkers, ENGINE_MAX_WORKERS);
        return ENGINE_PLAN_BAD;
    }
    int64_t vus = plan_segment_vus(sc);
    if (vus <= 0) {
        snprintf(err, err_len, "%s: the run has no VUs (every group has vus = 0): nothing to run",
                 sc->name ? sc->name : "scenario");
        return ENGINE_PLAN_BAD;
    }
    uint64_t need = (uint64_t)vus * ENGINE_VU_BYTES, lim = engine_memory_limit();
    if (need > lim) {
        snprintf(err, err_len, "%lld VUs need at least %.1f GB (%d bytes each, before the script's own data); "
                 "this process may use %.1f GB (RAM or ulimit -v): use fewer VUs",
                 (long long)vus, (double)need / 1e9, ENGINE_VU_BYTES, (double)lim / 1e9);
        return ENGINE_PLAN_RESOURCES;
    }
    struct rlimit rl;
    int64_t fds = (int64_t)nworkers * ENGINE_WORKER_FDS + ENGINE_BASE_FDS;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && (uint64_t)fds > rl.rlim_cur) {
        snprintf(err, err_len, "%d workers need at least %lld file descriptors (before connections); the limit "
                 "is %llu (ulimit -n): use fewer workers (-w) or raise the limit",
                 nworkers, (long long)fds, (unsigned long long)rl.rlim_cur);
        return ENGINE_PLAN_RESOURCES;
    }
    return ENGINE_PLAN_OK;
}

/* The run cannot be set up: say why; no load was generated. */
static void engine_setup_failed(engine *e, const char *why) {
    e->r->setup_failed = 1;
    engine_abort(e, why);
}

/* Start the workers; a failure stops the ones already started. */
static void engine_start_workers(engine *e) {
    int64_t *quota = calloc((size_t)e->nworkers, sizeof *quota);
    if (!quota || engine_quotas(e->sc, e->nworkers, quota) != 0) {
        free(quota);
        engine_setup_failed(e, "out of memory starting the workers");
        return;
    }
    char err[512];
    for (int i = 0; i < e->nworkers; i++) {
        if (worker_start(&e->workers[i], i, &e->shared, quota[i], err, sizeof err) != 0) {
            engine_setup_failed(e, err);
            break;
        }
        e->nstarted++;
    }
    free(quota);
}

/* The results of the workers that ended (joined) and the run's length. */
static void engine_collect(engine *e) {
    run_result *r = e->r;
    for (int i = 0; i < e->nstarted; i++)
        if (!e->watch[i].abandoned) worker_join(&e->workers[i]);
    engine_drain(e);
    engine_report_interrupted(e);
    clock_gettime(CLOCK_REALTIME, &r->end_wall);
    uint64_t t0 = atomic_load(&e->shared.t0_ns), end = e->stop_ns;
    for (int i = 0; i < e->nstarted && !e->stop_sent; i++)
        if (e->workers[i].run.end_ns > end) end = e->workers[i].run.end_ns;
    r->run_ns = e->going && end > t0 ? (int64_t)(end - t0) : 0;
    for (int i = 0; i < e->nstarted; i++)            /* the drain: sampling went on */
        if (!e->watch[i].abandoned && e->workers[i].run.end_ns > end) end = e->workers[i].run.end_ns;
    r->span_ns = e->going && end > t0 ? (int64_t)(end - t0) : 0;
    if (e->going) r->span_ns = agg_finish_span(&r->agg, r->run_ns, r->span_ns);
    /* Stopped in the preflight: what its inits recorded (connections, sets)
     * is interval 1, as it would have been, so the rows add up to the totals. */
    else if (agg_open_has_data(&r->agg)) r->span_ns = agg_finish_span(&r->agg, 0, 0);
    if (e->shared.rawlog_dir && !e->nabandoned) rawlog_merge(e->shared.rawlog_dir, e->nworkers);
}

/* agg's give_back: a merged message goes back to the worker that made it
 * (taken at its next tick), so that its buffers are reused and freed by
 * that worker's thread.  A final one is freed here: its worker is done. */
static void engine_give_back(void *ctx, tick_msg *m) {
    engine *e = ctx;
    if (m->final || m->worker < 0 || m->worker >= e->nworkers) {
        tick_msg_free(m);
        return;
    }
    uv_mutex_lock(&e->shared.mu);
    m->next = e->shared.back[m->worker];
    e->shared.back[m->worker] = m;
    uv_mutex_unlock(&e->shared.mu);
}

static void engine_free(engine *e) {
    for (int w = 0; e->shared.back && w < e->nworkers; w++)
        while (e->shared.back[w]) {
            tick_msg *m = e->shared.back[w];
            e->shared.back[w] = m->next;
            tick_msg_free(m);
        }
    free(e->shared.back);
    uv_walk(&e->loop, engine_close_cb, NULL);
    uv_run(&e->loop, UV_RUN_DEFAULT);
    uv_loop_close(&e->loop);        /* every handle was closed by the walk and the run: cannot be busy */
    uv_mutex_destroy(&e->shared.mu);
    free(e->workers);
    free(e->watch);
    free(e);
}

int engine_run(const scenario *sc, const params *p, int nworkers, uint64_t seed,
               const run_hooks *hooks, run_result *r) {
    memset(r, 0, sizeof *r);
    r->nworkers = nworkers;
    r->seed = seed;
    clock_gettime(CLOCK_REALTIME, &r->start_wall);   /* replaced at t0 */
    r->end_wall = r->start_wall;
    char err[512];
    int64_t tick_ns = engine_tick_ns(sc->interval_ns);
    agg_init(&r->agg, nworkers > 0 ? nworkers : 1, sc->interval_ns, tick_ns);
    if (sc->max_timers > 0) r->agg.max_timers = sc->max_timers;
    engine *e = calloc(1, sizeof *e);
    engine_plan plan = engine_check_plan(sc, nworkers, err, sizeof err);
    if (plan == ENGINE_PLAN_OK && (!hooks || !hooks->open_lua)) {
        snprintf(err, sizeof err, "no Lua bindings given (run_hooks.open_lua)");
        plan = ENGINE_PLAN_BAD;
    }
    if (plan != ENGINE_PLAN_OK || !e) {
        r->status = RUN_ABORTED;
        r->setup_failed = 1;
        snprintf(r->error, sizeof r->error, "%s", e ? err : "out of memory");
        free(e);
        return -1;
    }
    e->sc = sc;
    e->hooks = hooks;
    e->r = r;
    e->nworkers = nworkers;
    if (hooks) {
        r->agg.on_hist = hooks->on_hist;
        r->agg.on_hist_ctx = hooks->ctx;
    }
    e->shared = (run_shared){.sc = sc, .params = p, .seed = seed, .nworkers = nworkers,
                             .tick_ns = tick_ns, .notify = &e->notify};
    e->shared.rawlog_dir = hooks ? hooks->rawlog_dir : NULL;
    e->shared.open_lua = hooks ? hooks->open_lua : NULL;
    e->shared.script_ctx = hooks ? hooks->script_ctx : NULL;
    if (uv_mutex_init(&e->shared.mu) != 0 || engine_init_loop(e, err, sizeof err) != 0) {
        /* nothing started: what was set up is released with the process */
        r->status = RUN_ABORTED;
        r->setup_failed = 1;
        snprintf(r->error, sizeof r->error, "%s", err);
        return -1;
    }
    e->workers = calloc((size_t)nworkers, sizeof *e->workers);
    e->watch = calloc((size_t)nworkers, sizeof *e->watch);
    e->shared.back = calloc((size_t)nworkers, sizeof *e->shared.back);
    if (!e->workers || !e->watch || !e->shared.back) engine_setup_failed(e, "out of memory for the workers");
    else {
        r->agg.give_back = engine_give_back;
        r->agg.give_back_ctx = e;
        engine_start_workers(e);
    }
    if (e->nstarted > 0) uv_run(&e->loop, UV_RUN_DEFAULT);
    engine_collect(e);
    r->agg.give_back = NULL;             /* the agg outlives the engine */
    int rc = r->status == RUN_ABORTED ? -1 : 0;
    if (!e->nabandoned) engine_free(e);   /* else abandoned threads may still use it: the process ends soon */
    return rc;
}

