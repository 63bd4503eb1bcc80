/* runner.c - owns a run from a loaded, checked scenario to its result
 * files: checks the engine's limits for the run and each phase, makes the
 * results directory, runs the scenario (or its phases, or a suite's runs)
 * through the engine with the bindings (lm_open_all; the resolved I/O
 * backend handed to them as a value in their share), keeps the result files
 * current at each closed interval (so a killed run leaves a valid set),
 * and writes the console report, summary.json and the other files, and
 * report.html at the end.  It does not parse the command line (cli.c) or
 * load scenarios (scenario/). */
#include "run/runner.h"

#include <assert.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>

#include "common/exit_codes.h"
#include "common/text.h"
#include "common/units.h"
#include "engine/engine.h"
#include "html/html.h"
#include "lua/lm_core.h"
#include "lua/lm_share.h"
#include "report/hlog.h"
#include "report/console.h"
#include "report/results.h"
#include "report/stop.h"
#include "report/view.h"
#include "scenario/plan.h"

/* One call of runner_run. */
/* Signals outside the engine's runs.  The engine handles SIGINT, SIGTERM
 * and SIGHUP while it runs, and libuv gives them back their default action
 * (death) when it closes its handles; a late one (a second Ctrl-C, timeout(1)
 * forwarding a signal to its process group too) then killed the process
 * while it wrote the results.  The runner keeps handles of its own on a loop
 * of its own for the whole command, so libuv's handler stays installed: a
 * signal there is only noted (runner_sigs_got), ends a sequence of phases,
 * and the results are written all the same. */
typedef struct runner_sigs {
    uv_loop_t loop;
    uv_signal_t h[3];
    int loop_ok;             /* the loop is open */
    int nh;                  /* handles started (0: none; the engine's own still work) */
    int got;                 /* the last signal seen, 0 if none */
} runner_sigs;

typedef struct runner {
    const runner_opts *o;
    int abandoned;           /* a run left stuck worker threads: end the process when written */
    output_set *out;         /* live outputs, opened before any load, or NULL */
    FILE *console;           /* the end report: stdout, stderr when a stream uses stdout */
    const char *phase;       /* the phase being run, or NULL */
    runner_sigs *sigs;       /* the command's own signal handles */
} runner;

typedef struct runner_live {
    const scenario *sc;
    const char *dir;
    int quiet;
    int progress_per_interval;   /* a segment off a terminal: a line per closed interval (the bus
                                  * sink "progress"), not one per second */
    double total_s;              /* the run's length as the progress line shows it */
    int progress_done;           /* intervals a line was printed for */
    const run_result *r;
    hlog *hlog;              /* DIR/histograms.hlog, or NULL */
    output_set *out;         /* live outputs, or NULL */
    report_appender *app;    /* the result files, appended at each interval */
    report_bus bus;          /* the sinks of each closed interval: live outputs, result files */
    char stopped_by[512];    /* why on_interval stopped the run */
} runner_live;

/* The progress line on a terminal: every second (the engine's tick). */
static void runner_on_progress(void *ctx, const run_result *r, double elapsed, double total) {
    runner_live *l = ctx;
    if (l->quiet || l->progress_per_interval) return;
    report_progress(stderr, r, elapsed, total);
}

/* A segment (of 2 or more) whose stderr is not a terminal (a job log: Slurm, Kubernetes,
 * ssh) prints its progress once per interval; otherwise every second. */
static int runner_progress_per_interval(const scenario *sc) {
    return sc->seg_count > 1 && !isatty(STDERR_FILENO);
}

/* The results directory was removed during the run: create it again, with
 * the scenario copy.  Returns 1 when it did. */
static int runner_recreate_dir(const char *dir, const scenario *sc) {
    struct stat st;
    if (stat(dir, &st) == 0 || errno != ENOENT) return 0;
    char err[2048];
    if (report_prepare_dir(dir, sc, err, sizeof err) != 0) {
        fprintf(stderr, "luamech: %s was removed during the run; %s\n", dir, err);
        return 0;
    }
    fprintf(stderr, "luamech: %s was removed during the run: created again\n", dir);
    return 1;
}

/* Before each write: the directory is there; a histograms.hlog removed
 * with it restarts with the intervals from now on. */
static void runner_live_dir(runner_live *l) {
    if (!runner_recreate_dir(l->dir, l->sc) || !l->hlog) return;
    char hpath[4200];
    snprintf(hpath, sizeof hpath, "%s/" HLOG_FILE, l->dir);
    hlog_close(l->hlog);
    l->hlog = hlog_open(hpath, 0);
    if (!l->hlog) fprintf(stderr, "luamech: cannot write %s: %s\n", hpath, strerror(errno));
}

/* Sink "outputs": the live outputs (--stream, --dashboard). */
static void runner_sink_outputs(void *self, report_view *v) {
    runner_live *l = self;
    output_interval(l->out, l->sc, v->r, v);
}

/* Sink "files": the result files, kept current so even a killed run
 * leaves a valid set (the directory made again if it was removed). */
static void runner_sink_files(void *self, report_view *v) {
    runner_live *l = self;
    runner_live_dir(l);
    if (l->app) report_append_view(l->app, "running", -1, 0, v);
    else report_write_all(l->dir, l->sc, v->r, "running", -1);
}

/* Sink "hlog": the interval's histograms, staged by runner_on_hist while
 * the interval closed, written to DIR/histograms.hlog together. */
static void runner_sink_hlog(void *self, report_view *v) {
    runner_live *l = self;
    (void)v;
    hlog_commit(l->hlog);
}

/* Sink "progress": a job log's line for the interval that closed. */
static void runner_sink_progress(void *self, report_view *v) {
    runner_live *l = self;
    if (l->quiet || !l->progress_per_interval || v->r->agg.nintervals <= l->progress_done) return;
    report_progress_interval(stderr, v->r, l->total_s);
    l->progress_done = v->r->agg.nintervals;
}

/* Each closed interval: its view to every sink of the bus (live outputs,
 * result files), then the stop checks:
 * with abort_on_threshold, stop at the first failed criterion (counts are
 * left out: they may still grow); a segment also stops when the merge that
 * follows it asks (DIR/stop_request.json: a criterion failed on the merged
 * data of all segments). */
static int runner_on_interval(void *ctx, const run_result *r) {
    runner_live *l = ctx;
    /* the closed interval's view: its threshold verdicts and health are
     * evaluated once, for every sink of the bus and the stop checks below
     * (report/view.c) */
    report_view v;
    report_view_init(&v, l->sc, r);
    report_bus_publish(&l->bus, &v);
    char why[sizeof l->stopped_by - 64];
    int stop = 0;
    if (l->sc->seg_count > 1 && report_stop_requested(l->dir, why, sizeof why)) {
        fprintf(stderr, "luamech: the merge following the segments asks them to stop: %s\n", why);
        snprintf(l->stopped_by, sizeof l->stopped_by, "%s", why);
        stop = 1;
    } else if (l->sc->abort_on_threshold && report_threshold_stop(&v, why, sizeof why)) {
        fprintf(stderr, "luamech: %s: stopping the run\n", why);
        snprintf(l->stopped_by, sizeof l->stopped_by, "%s on this run's data", why);
        stop = 1;
    }
    report_view_free(&v);
    return stop;
}

/* Every timer's histogram of each closed interval, staged for
 * DIR/histograms.hlog (the bus sink "hlog" writes them). */
static void runner_on_hist(void *ctx, const struct agg_timer *t, int interval, double start_s,
                           double len_s, const hist *h) {
    runner_live *l = ctx;
    (void)interval;
    if (!l->hlog || (t->of && l->sc->seg_count == 0)) return;   /* "(all)" twins: for luamech merge */
    hlog_set_start(l->hlog, (double)l->r->start_wall.tv_sec + (double)l->r->start_wall.tv_nsec / 1e9);
    hlog_stage(l->hlog, t->name, start_s, len_s, h);
}

static int runner_exit_code(const scenario *sc, const run_result *r) {
    if (r->status == RUN_STUCK) return EXIT_STUCK;
    if (r->script_stop == 2) return EXIT_SCRIPT_ABORT;
    if (r->status == RUN_ABORTED) return r->setup_failed ? EXIT_RUNTIME : EXIT_PREFLIGHT;
    if (r->status == RUN_INTERRUPTED) return EXIT_INTERRUPTED;
    if (r->stopped_by_hook || report_thresholds_failed(sc, r) > 0) return EXIT_THRESHOLDS;
    return EXIT_OK;
}

static uint64_t runner_seed(const scenario *sc) {
    if (sc->seed_set) return sc->seed;
    if (sc->seg_count > 1) return strtoull(sc->hash, NULL, 16) % 1000000000ULL;   /* the same in every segment */
    return (uv_hrtime() ^ ((uint64_t)getpid() << 32)) % 1000000000ULL;
}

/* What a rate group will do: its rate, the VUs started at t0 and the most
 * its pool may grow to ("200 VUs" alone read as 200 running). */
static void runner_banner_rate(const group_cfg *g) {
    fprintf(stderr, "luamech: group %s: ", g->name);
    if (g->staged) fprintf(stderr, "rate from %g/s in %d stage(s), up to %g/s", g->sched.start, g->sched.n,
                           sched_max(&g->sched));
    else fprintf(stderr, "rate %g/s", g->sched.start);
    fprintf(stderr, ", %d VU(s) pre-allocated", g->prealloc);
    if (g->vus > g->prealloc) fprintf(stderr, ", up to %d when the server slows down", g->vus);
    fputc('\n', stderr);
}

static void runner_banner(const scenario *sc, int workers, uint64_t seed, const char *dir) {
    char rt[32], ru[32], iv[32];
    int rate = 0;
    for (int g = 0; g < sc->ngroups; g++) rate += sc->groups[g].model == MODEL_RATE;
    fprintf(stderr, "luamech %s: %s: %d group(s), %s%d VUs, %d worker(s), run time %s, rampup %s, "
                    "interval %s", LUAMECH_VERSION, sc->name, sc->ngroups, rate ? "up to " : "",
                    scenario_total_vus(sc), workers,
            sc->run_time_ns ? units_format_duration(sc->run_time_ns, rt, sizeof rt) : "-",
            units_format_duration(sc->rampup_ns, ru, sizeof ru),
            units_format_duration(sc->interval_ns, iv, sizeof iv));
    if (sc->requests > 0) fprintf(stderr, ", %lld transactions", (long long)sc->requests);
    if (sc->seg_count > 1)
        fprintf(stderr, ", segment %d/%d (%lld of the VUs here%s)", sc->seg_index, sc->seg_count,
                (long long)plan_segment_vus(sc), sc->requests > 0 ? ", its share of the transactions" : "");
    fprintf(stderr, ", seed %llu\n", (unsigned long long)seed);
    for (int g = 0; g < sc->ngroups; g++)
        if (sc->groups[g].model == MODEL_RATE) runner_banner_rate(&sc->groups[g]);
    fprintf(stderr, "luamech: results in %s\n", dir);
}

/* setup() (what = 1) or teardown(data) (2) of the scenario file, run by the
 * engine in its lifecycle mode (scenario_lifecycle): one VU of one worker
 * (with every primitive) loads the scenario file in its init and calls the
 * function (lua/vu.lua), in a run of its own: a preflight, so bounded by the
 * 60 s preflight limit; SIGINT stops it.  Nothing is written anywhere.
 * Returns 0, or -1 after one message. */
static int runner_lifecycle(const runner *c, const scenario *sc, int what, lm_share *share, uint64_t seed) {
    const char *name = what == 1 ? "setup" : "teardown";
    scenario ls;
    if (scenario_lifecycle(&ls, sc, what) != 0) {
        fprintf(stderr, "luamech: cannot run %s(): out of memory\n", name);
        return -1;
    }
    run_hooks hooks = {0};
    hooks.open_lua = lm_open_all;
    hooks.script_ctx = share;
    run_result lr;
    engine_run(&ls, sc->params ? sc->params : c->o->params, 1, seed, &hooks, &lr);
    int rc = lr.status == RUN_COMPLETED ? 0 : -1;
    char buf[4 * sizeof lr.error];
    if (lr.status == RUN_ABORTED)
        fprintf(stderr, "luamech: %s() failed%s: %s\n", name, what == 1 ? ", no load was generated" : "",
                text_clean(lr.error, buf, sizeof buf));
    else if (rc != 0) fprintf(stderr, "luamech: %s() did not complete (%s)\n", name, report_status_name(lr.status));
    if (lr.abandoned) {                    /* its thread may still run: end the process now */
        fflush(NULL);
        _exit(EXIT_STUCK);
    }
    run_result_free(&lr);
    scenario_lifecycle_free(&ls);
    return rc;
}

/* One run (a scenario, or one phase of it) into dir: live progress, report,
 * result files.  Returns the exit code; *r is kept for the phases table. */
static int runner_run_one(runner *c, const scenario *sc, const char *dir, int workers,
                          uint64_t seed, run_result *r) {
    char err[2048];
    if (report_prepare_dir(dir, sc, err, sizeof err) != 0) {
        fprintf(stderr, "luamech: %s\n", err);
        memset(r, 0, sizeof *r);
        return EXIT_RUNTIME;
    }
    runner_banner(sc, workers, seed, dir);
    char hpath[4200];
    snprintf(hpath, sizeof hpath, "%s/" HLOG_FILE, dir);
    runner_live live = {sc, dir, c->o->quiet, runner_progress_per_interval(sc), (double)sc->run_time_ns / 1e9, 0, r,
                        hlog_open(hpath, 0), c->out, NULL, {0}, ""};
    if (sc->seg_count > 1 && report_stop_clear(dir) != 0)   /* a request left from an earlier run here */
        fprintf(stderr, "luamech: cannot remove %s/%s: %s\n", dir, REPORT_STOP_FILE, strerror(errno));
    output_run_start(c->out, sc, c->phase);
    if (!live.hlog) fprintf(stderr, "luamech: cannot write %s: %s\n", hpath, strerror(errno));
    lm_share *share = lm_share_new(sc->dir);   /* relative paths, read files, data sets */
    if (!share) {
        fprintf(stderr, "luamech: cannot resolve the scenario's folder %s: %s\n", sc->dir, strerror(errno));
        if (live.hlog) hlog_close(live.hlog);
        memset(r, 0, sizeof *r);
        return EXIT_RUNTIME;
    }
    for (int i = 0; i < sc->nread_files; i++) lm_share_record(share, sc->read_files[i]);
    lm_share_set_io(share, c->o->io);          /* resolved by the command line; NULL: auto */
    run_hooks hooks = {&live, runner_on_progress, runner_on_interval, runner_on_hist,
                       c->o->mm_results ? dir : NULL, lm_open_all, share};
    if (sc->has_setup && runner_lifecycle(c, sc, 1, share, seed) != 0) {
        if (live.hlog) hlog_close(live.hlog);
        lm_share_free(share);
        memset(r, 0, sizeof *r);
        return EXIT_PREFLIGHT;
    }
    live.app = report_appender_new(dir);   /* NULL (out of memory): files rewritten whole */
    /* hlog first: a segment's log is never behind its summary.json (luamech
     * merge --follow reads them at any moment and refuses a log behind) */
    report_bus_add(&live.bus, "hlog", &live, runner_sink_hlog);         /* 4 of REPORT_BUS_MAX: cannot fail */
    report_bus_add(&live.bus, "outputs", &live, runner_sink_outputs);
    report_bus_add(&live.bus, "files", &live, runner_sink_files);
    report_bus_add(&live.bus, "progress", &live, runner_sink_progress);
    engine_run(sc, sc->params ? sc->params : c->o->params, workers, seed, &hooks, r);
    snprintf(r->io, sizeof r->io, "%s", c->o->io ? c->o->io : "");
    if (r->stopped_by_hook) snprintf(r->stopped_by, sizeof r->stopped_by, "%s", live.stopped_by);
    runner_live_dir(&live);
    report_view last;                          /* the last interval closes with the run, not on the bus */
    report_view_init(&last, sc, r);
    runner_sink_progress(&live, &last);
    report_view_free(&last);
    if (live.hlog && hlog_close(live.hlog) != 0) fprintf(stderr, "luamech: cannot write %s\n", hpath);
    int code = runner_exit_code(sc, r);
    output_run_end(c->out, sc, r, report_status_name(r->status), code);
    c->abandoned |= r->abandoned;
    if (r->status == RUN_ABORTED) {           /* the error may carry a server's text: escaped */
        char buf[4 * sizeof r->error];
        fprintf(stderr, "luamech: %s, no load was generated: %s\n",
                r->setup_failed ? "the run could not be set up" : "preflight failed",
                text_clean(r->error, buf, sizeof buf));
    }
    else if (sc->seg_count > 1) report_console_segment(c->console, sc, r, dir, code);
    else report_console(c->console, sc, r, dir, c->o->verbose);
    if (r->status == RUN_STUCK) {
        char buf[4 * sizeof r->error];
        fprintf(stderr, "luamech: stopped by the watchdog: %s\n", text_clean(r->error, buf, sizeof buf));
    }
    const char *status = r->script_stop == 2 && r->status != RUN_STUCK ? "script_aborted"
                       : r->script_stop == 1 && r->status == RUN_COMPLETED ? "stopped" : report_status_name(r->status);
    int wrc = live.app ? report_append_all(live.app, sc, r, status, code, 1)
                       : report_write_all(dir, sc, r, status, code);
    report_appender_free(live.app);
    if (wrc != 0) {
        fprintf(stderr, "luamech: cannot write the results into %s\n", dir);
        code = EXIT_RUNTIME;
    }
    if (!r->abandoned && report_copy_read(dir, share->root, (const char *const *)share->files, share->nfiles) != 0)
        fprintf(stderr, "luamech: cannot copy the files the scripts read into %s/scenario\n", dir);
    if (sc->has_teardown && !r->abandoned) runner_lifecycle(c, sc, 2, share, seed);
    if (!r->abandoned) lm_share_free(share);   /* else a stuck worker may still read it */
    if (report_write_html(dir) != 0) fprintf(stderr, "luamech: cannot write %s/report.html\n", dir);
    return code;
}

static void runner_sigs_on(uv_signal_t *h, int signum) { ((runner_sigs *)h->data)->got = signum; }

/* Starts the handles; on a failure the command runs without them (as before). */
static void runner_sigs_open(runner_sigs *k) {
    static const int signums[3] = {SIGINT, SIGTERM, SIGHUP};
    memset(k, 0, sizeof *k);
    if (uv_loop_init(&k->loop) != 0) return;
    k->loop_ok = 1;
    for (; k->nh < 3; k->nh++) {
        uv_signal_t *h = &k->h[k->nh];
        h->data = k;
        if (uv_signal_init(&k->loop, h) != 0) break;
        if (uv_signal_start(h, runner_sigs_on, signums[k->nh]) != 0) {
            uv_close((uv_handle_t *)h, NULL);
            break;
        }
    }
}

/* The signal seen since the command started, 0 if none (never blocks). */
static int runner_sigs_got(runner_sigs *k) {
    if (k->nh > 0) uv_run(&k->loop, UV_RUN_NOWAIT);
    return k->got;
}

static void runner_sigs_close(runner_sigs *k) {
    if (!k->loop_ok) return;
    for (int i = 0; i < k->nh; i++) uv_close((uv_handle_t *)&k->h[i], NULL);
    uv_run(&k->loop, UV_RUN_DEFAULT);            /* the close callbacks: returns at once */
    if (uv_loop_close(&k->loop) != 0) fprintf(stderr, "luamech: the signal loop did not close\n");
}

/* Phases run one after another, each into its own subdirectory; the top
 * directory gets the phases table and the verdict of the scenario's own
 * (top-level) thresholds over all phases' data.  A failed or interrupted
 * phase ends the sequence. */
static int runner_run_phases(runner *c, const scenario *sc, const char *dir, int workers, uint64_t seed) {
    assert(sc->nphases >= 0);
    run_result *rs = calloc(sc->nphases > 0 ? (size_t)sc->nphases : 1, sizeof *rs);
    if (!rs) {
        fprintf(stderr, "luamech: out of memory for %d phases\n", sc->nphases);
        return EXIT_RUNTIME;
    }
    int code = EXIT_OK, ran = 0, th_failed = 0;
    for (int i = 0; i < sc->nphases && code == EXIT_OK; i++, ran++) {
        char sub[4096 + 130], name[128];
        report_phase_subdir(name, sizeof name, i, sc->phases[i].name);
        snprintf(sub, sizeof sub, "%s/%s", dir, name);
        fprintf(stderr, "luamech: phase %d/%d: %s\n", i + 1, sc->nphases, sc->phases[i].name);
        const scenario *ph = &sc->phases[i];
        c->phase = ph->name;
        code = runner_run_one(c, ph, sub, ph->workers > 0 ? ph->workers : workers,
                           ph->seed_set ? ph->seed : seed, &rs[i]);
        if (code == EXIT_THRESHOLDS) th_failed = 1, code = EXIT_OK;   /* later phases still run */
        if (code == EXIT_OK && i + 1 < sc->nphases && runner_sigs_got(c->sigs)) {
            fprintf(stderr, "luamech: a signal came after phase %d ended: the later phases do not run\n", i + 1);
            code = EXIT_INTERRUPTED;
        }
    }
    if (code == EXIT_OK && sc->nthresholds > 0) {
        th_result *res;
        th_failed |= report_run_threshold_results(sc, rs, ran, &res) > 0;
        free(res);
    }
    if (code == EXIT_OK && th_failed) code = EXIT_THRESHOLDS;
    report_phases(c->console, sc, rs, ran);
    report_run_thresholds(c->console, sc, rs, ran);
    runner_recreate_dir(dir, sc);
    if (report_write_phases(dir, sc, rs, ran, code) != 0) {
        fprintf(stderr, "luamech: cannot write the results into %s\n", dir);
        code = EXIT_RUNTIME;
    }
    report_write_html(dir);                 /* the index and every phase's report */
    for (int i = 0; i < ran; i++) run_result_free(&rs[i]);
    free(rs);
    return code;
}

/* The results directory (--out, else the default), created and probed
 * before any load: EXIT_OK, or the exit code after one message. */
static int runner_out_dir(const runner *c, const scenario *sc, char *dir, size_t len) {
    char err[4400];
    if (c->o->out_dir) snprintf(dir, len, "%s", c->o->out_dir);
    else report_default_dir(dir, len, sc);
    if (report_make_out(dir, err, sizeof err) == 0) return EXIT_OK;
    if (c->o->out_dir) {
        fprintf(stderr, "luamech: --out: %s\nTry 'luamech --help'.\n", err);
        return EXIT_USAGE;
    }
    fprintf(stderr, "luamech: results directory: %s (give one with --out)\n", err);
    return EXIT_RUNTIME;
}

/* The engine's limits, for the run and each phase, before any load. */
static int runner_check_plan(const scenario *sc, int workers) {
    char err[1024];
    for (int i = -1; i < sc->nphases; i++) {
        const scenario *r = i < 0 ? sc : &sc->phases[i];
        if (i < 0 && sc->nphases > 0) continue;
        engine_plan plan = engine_check_plan(r, r->workers > 0 ? r->workers : workers, err, sizeof err);
        if (plan == ENGINE_PLAN_OK) continue;
        fprintf(stderr, "luamech: %s%s%s\n", i < 0 ? "" : "phase ", i < 0 ? "" : r->name, i < 0 ? err : "");
        if (i >= 0) fprintf(stderr, "luamech: %s\n", err);
        return plan == ENGINE_PLAN_BAD ? EXIT_SCENARIO : EXIT_RUNTIME;
    }
    return EXIT_OK;
}

/* --workers' default: one per CPU, at most the engine's limit. */
static int runner_default_workers(void) {
    unsigned n = uv_available_parallelism();
    return n > ENGINE_MAX_WORKERS ? ENGINE_MAX_WORKERS : (int)n;
}

/* The live outputs (--stream, --dashboard), opened before any load; the
 * run's id is its results directory's name.  A port in use or a file that
 * cannot be created is a usage error. */
static int runner_open_outputs(runner *c, const char *dir) {
    const output_cfg *oc = c->o->outputs;
    if (!oc || (!oc->nstreams && !oc->dashboard[0])) return EXIT_OK;
    char err[1400];
    const char *slash = strrchr(dir, '/');
    c->out = output_open(oc, slash && slash[1] ? slash + 1 : dir, err, sizeof err);
    if (c->out) return EXIT_OK;
    fprintf(stderr, "luamech: %s\nTry 'luamech --help'.\n", err);
    return EXIT_USAGE;
}

static void runner_close_outputs(runner *c) {
    fflush(NULL);
    output_close(c->out);
    c->out = NULL;
}

/* After a run that left stuck threads: everything is written; end now. */
static int runner_end(const runner *c, int code) {
    if (!c->abandoned) return code;
    fflush(NULL);
    _exit(code);
}

int runner_run(const runner_opts *o, const scenario *sc) {
    runner_sigs sigs;
    runner c = {o, 0, NULL, o->outputs && output_uses_stdout(o->outputs) ? stderr : stdout, NULL, &sigs};
    char dir[4096];
    int workers = sc->workers > 0 ? sc->workers : runner_default_workers();
    uint64_t seed = runner_seed(sc);
    int code = runner_check_plan(sc, workers);
    if (code == EXIT_OK) code = runner_check_subjects(sc);
    if (code == EXIT_OK) code = runner_out_dir(&c, sc, dir, sizeof dir);
    if (code == EXIT_OK) code = runner_open_outputs(&c, dir);
    if (code != EXIT_OK) return code;
    runner_sigs_open(&sigs);
    if (sc->nphases > 0 || o->as_phases) code = runner_run_phases(&c, sc, dir, workers, seed);
    else {
        run_result r;
        code = runner_run_one(&c, sc, dir, workers, seed, &r);
        run_result_free(&r);
    }
    runner_close_outputs(&c);
    if (!c.abandoned) runner_sigs_close(&sigs);   /* abandoned: the process ends at once */
    return runner_end(&c, code);
}
