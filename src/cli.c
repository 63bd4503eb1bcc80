/* cli.c - parses the command line (getopt_long), loads the scenario, runs it
 * through the engine and hands the result to the writers in report/.  Owns
 * the exit codes.  No load generation or statistics here. */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "cmd/merge.h"
#include "cmd/new.h"
#include "common/params.h"
#include "common/text.h"
#include "common/units.h"
#include "common/when.h"
#include "engine/engine.h"
#include "lua/lm_core.h"
#include "output/output.h"
#include "report/compare.h"
#include "report/hlog.h"
#include "report/report.h"
#include "lua/lm_share.h"
#include "scenario/plan.h"
#include "scenario/scenario.h"
#include "scenario/suite.h"

static const char cli_usage[] =
"usage: luamech run SCENARIO [options]\n"
"       luamech suite SUITE [options]   (runs one after another; a sweep; one table)\n"
"       luamech report RESULTS_DIR   (re-render RESULTS_DIR/report.html from the saved result files)\n"
"       luamech compare A B [--timer NAME ...] [--fail-if 'STAT>PCT%%' ...] [--json] [--all]\n"
"                                    (two runs side by side; exit 1 when a figure regressed past a limit)\n"
"       luamech compare A1 A2 A3 ... -- B1 B2 B3 ... [same options]\n"
"                                    (sets of repeated runs: medians and a significance test;\n"
"                                     see 'luamech compare --help')\n"
"       luamech merge SEGMENT_DIR... --out DIR [--allow-partial] [--follow]\n"
"                                    (one result from a run's --segment parts; docs/distributed.md)\n"
"       luamech new NAME [--template memcached|redis|http|api|rate]   (writes a scenario folder NAME/)\n"
"       luamech --help | --version\n"
"\n"
"Runs SCENARIO (a Lua file returning { run_time=, rampup=, interval=, groups= })\n"
"and reports what the servers did, interval by interval.\n"
"\n"
"options (they override the scenario's values):\n"
"  -d, --duration DUR       run time, e.g. 30s, 5m, 1h (0 with --requests: until done)\n"
"  -r, --rampup DUR         start each group's VUs evenly over DUR\n"
"  -i, --interval DUR       statistics interval (default %s)\n"
"  -n, --requests N         stop after N transactions in all (10k, 1M accepted)\n"
"  -u, --vus N              VUs of every group\n"
"  -w, --workers N          worker threads, 1 to 1024 (default: number of CPUs)\n"
"  -s, --seed N             random seed (printed in every report; default: random)\n"
"  -g, --graceful-stop DUR  time in-flight transactions get to finish (default %s)\n"
"  -o, --out DIR            results directory (default results/<scenario>-<time>)\n"
"  -c, --cpus LIST          pin worker i to the i-th CPU of LIST (e.g. 1 or 0,2-3)\n"
"  -e, --env NAME=VALUE     parameter for scripts: luamech.param(NAME); env is the fallback\n"
"  -q, --quiet              no live progress line\n"
"      --mm-results         also write multi-mechanize's results.csv (a line per transaction)\n"
"      --segment i/N|auto   run segment i of N of the run (docs/distributed.md); auto: from\n"
"                           LUAMECH_SEGMENT=i/N, JOB_COMPLETION_INDEX + LUAMECH_SEGMENTS,\n"
"                           or SLURM_PROCID + SLURM_NTASKS\n"
"      --start-at TIME      after the preflight, start the load at TIME (RFC 3339 with a\n"
"                           zone, e.g. 2026-12-02T10:00:00Z, or +30s from now)\n"
"      --stream json=FILE|-  JSON lines, one object per interval per timer, as the run goes\n"
"      --stream prometheus=URL[,interval=DUR][,label=NAME=VALUE][,bearer_token_file=PATH]\n"
"                           Prometheus remote write (docs/outputs.md)\n"
"      --dashboard [ADDR:]PORT  live web dashboard (loopback unless --dashboard-public;\n"
"                           unauthenticated); --dashboard-linger keeps it up after the run\n"
"\n"
"durations take ms, s, m, h (a bare number is seconds); counts take k and M.\n"
"\n"
"exit codes:\n"
"  0  the run completed\n"
"  1  runtime error (e.g. the results could not be written, too few file descriptors or memory)\n"
"  2  usage error (unknown flag, bad value)\n"
"  3  scenario error (missing file, Lua syntax error, wrong field)\n"
"  4  preflight failed: a script's init failed before any load (e.g. server unreachable)\n"
"  5  interrupted by SIGINT/SIGTERM/SIGHUP; results were written\n"
"  6  a threshold failed (the scenario's pass/fail criteria; see junit.xml)\n"
"  7  a VU did not yield (e.g. an endless loop): the watchdog stopped the run; results were written\n"
"  8  a script called luamech.abort(reason): the run ended at once; results were written\n";

/* The usage text, with the defaults from the plan's one table. */
static void cli_print_usage(FILE *f) {
    char iv[32], gs[32];
    fprintf(f, cli_usage, units_format_duration(PLAN_DEFAULT_INTERVAL_NS, iv, sizeof iv),
            units_format_duration(PLAN_DEFAULT_GRACEFUL_STOP_NS, gs, sizeof gs));
}

typedef struct cli_run {
    const char *scenario_path;
    const char *out_dir;
    int abandoned;           /* a run left stuck worker threads: end the process when written */
    int quiet;
    int mm_results;
    const char *segment_arg, *start_at_arg;   /* --segment, --start-at (cli_dist_resolve) */
    output_cfg outputs;      /* --stream, --dashboard */
    output_set *out;         /* opened before any load */
    FILE *console;           /* the end report: stdout, stderr when a stream uses stdout */
    const char *phase;       /* the phase being run, or NULL */
    scenario_overrides ov;
    params params;
} cli_run;

typedef struct cli_live {
    const scenario *sc;
    const char *dir;
    int quiet;
    const run_result *r;
    hlog *hlog;              /* DIR/histograms.hlog, or NULL */
    output_set *out;         /* live outputs, or NULL */
} cli_live;

static int cli_bad(const char *fmt, const char *arg) {
    fprintf(stderr, "luamech: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'luamech --help'.\n");
    return EXIT_USAGE;
}

/* Syntax only: the ranges are plan_check_flags' (the plan's one table). */
static int cli_duration(const char *field, const char *arg, int64_t *out) {
    char range[128];
    const plan_limit *l = plan_limit_of(field);
    if (units_parse_duration_ns(arg, out) == 0) return 0;
    fprintf(stderr, "luamech: %s: expected %s such as 30s, 5m, 250ms; got '%s'\n", l->flag,
            plan_range_text(l, range, sizeof range), arg);
    return -1;
}

static int cli_count(const char *field, const char *arg, int64_t *out) {
    char range[128];
    const plan_limit *l = plan_limit_of(field);
    if (units_parse_count(arg, out) == 0) return 0;
    fprintf(stderr, "luamech: %s: expected %s (10k, 1M accepted); got '%s'\n", l->flag,
            plan_range_text(l, range, sizeof range), arg);
    return -1;
}

/* ---- distributed runs: --segment and --start-at (docs/distributed.md) ---- */
enum { CLI_OPT_SEGMENT = 1000, CLI_OPT_START_AT };

/* --segment auto: the first of LUAMECH_SEGMENT=i/N, JOB_COMPLETION_INDEX
 * (0-based, Kubernetes Indexed Jobs) with LUAMECH_SEGMENTS=N, SLURM_PROCID
 * (0-based) with SLURM_NTASKS.  Says which it used. */
static int cli_segment_auto(char *buf, size_t len, char *err, size_t err_len) {
    const char *v = getenv("LUAMECH_SEGMENT"), *idx = getenv("JOB_COMPLETION_INDEX");
    const char *from = "LUAMECH_SEGMENT", *idx_name = "JOB_COMPLETION_INDEX", *n = getenv("LUAMECH_SEGMENTS");
    const char *n_name = "LUAMECH_SEGMENTS";
    if (!v && !idx && getenv("SLURM_PROCID"))
        idx = getenv("SLURM_PROCID"), idx_name = "SLURM_PROCID", n = getenv("SLURM_NTASKS"), n_name = "SLURM_NTASKS";
    if (v) snprintf(buf, len, "%s", v);
    else if (idx && n) {
        char *end;
        long i = strtol(idx, &end, 10);
        if (end == idx || *end || i < 0 || i >= 100000) {
            snprintf(err, err_len, "--segment auto: %s=%s is not an index from 0", idx_name, idx);
            return -1;
        }
        snprintf(buf, len, "%ld/%s", i + 1, n);
        from = idx_name;
    } else {
        snprintf(err, err_len, "--segment auto: found no segment in the environment: set LUAMECH_SEGMENT=i/N, "
                 "JOB_COMPLETION_INDEX and LUAMECH_SEGMENTS (Kubernetes), or run under srun (SLURM_PROCID, "
                 "SLURM_NTASKS)%s%s", idx ? "; " : "", idx ? "LUAMECH_SEGMENTS is not set" : "");
        return -1;
    }
    if (v) fprintf(stderr, "luamech: --segment auto: %s from LUAMECH_SEGMENT\n", buf);
    else fprintf(stderr, "luamech: --segment auto: %s from %s=%s, %s=%s\n", buf, from, idx, n_name, n);
    return 0;
}

static int cli_dist_resolve(cli_run *c, char *err, size_t err_len) {
    char buf[64], why[256];
    const char *arg = c->segment_arg;
    if (arg && strcmp(arg, "auto") == 0) {
        if (cli_segment_auto(buf, sizeof buf, err, err_len) != 0) return -1;
        arg = buf;
    }
    if (arg && plan_segment_parse(arg, &c->ov.seg_index, &c->ov.seg_count, why, sizeof why) != 0) {
        snprintf(err, err_len, "--segment: %s", why);
        return -1;
    }
    if (!c->start_at_arg) return 0;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    int64_t now_ns = (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec;
    if (when_parse_ns(c->start_at_arg, now_ns, &c->ov.start_at_ns, why, sizeof why) != 0) {
        snprintf(err, err_len, "--start-at: %s", why);
        return -1;
    }
    if (c->ov.start_at_ns <= now_ns) {
        char when[64];
        snprintf(err, err_len, "--start-at: %s is %.3f s in the past (now %s): give a later time",
                 c->start_at_arg, (double)(now_ns - c->ov.start_at_ns) / 1e9, when_format(now_ns, when, sizeof when));
        return -1;
    }
    return 0;
}

static int cli_parse_run(int argc, char **argv, cli_run *c) {
    static const struct option opts[] = {
        {"duration", required_argument, 0, 'd'}, {"rampup", required_argument, 0, 'r'},
        {"interval", required_argument, 0, 'i'}, {"requests", required_argument, 0, 'n'},
        {"vus", required_argument, 0, 'u'}, {"workers", required_argument, 0, 'w'},
        {"seed", required_argument, 0, 's'}, {"graceful-stop", required_argument, 0, 'g'},
        {"out", required_argument, 0, 'o'}, {"env", required_argument, 0, 'e'},
        {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'},
        {"cpus", required_argument, 0, 'c'}, {"mm-results", no_argument, 0, 'M'},
        {"segment", required_argument, 0, CLI_OPT_SEGMENT}, {"start-at", required_argument, 0, CLI_OPT_START_AT},
        /* live outputs (src/output) */
        {"stream", required_argument, 0, 'S'}, {"dashboard", required_argument, 0, 'D'},
        {"dashboard-linger", no_argument, 0, 'L'}, {"dashboard-public", no_argument, 0, 'P'}, {0, 0, 0, 0}};
    int ch, bad = 0;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, "d:r:i:n:u:w:s:g:o:e:qhc:", opts, NULL)) != -1) {
        switch (ch) {
        case 'd': bad |= cli_duration("run_time", optarg, &c->ov.run_time_ns); break;
        case 'r': bad |= cli_duration("rampup", optarg, &c->ov.rampup_ns); break;
        case 'i': bad |= cli_duration("interval", optarg, &c->ov.interval_ns); break;
        case 'g': bad |= cli_duration("graceful_stop", optarg, &c->ov.graceful_stop_ns); break;
        case 'n': bad |= cli_count("requests", optarg, &c->ov.requests); break;
        case 'u': bad |= cli_count("vus", optarg, &c->ov.vus); break;
        case 'w': bad |= cli_count("workers", optarg, &c->ov.workers); break;
        case 's': bad |= cli_count("seed", optarg, &c->ov.seed); break;
        case 'o': c->out_dir = optarg; break;
        case 'c': {
            int cpus[256];
            if (scenario_parse_cpus(optarg, cpus, 256) < 0)
                return cli_bad("--cpus: expected CPU numbers such as 1 or 0,2-3, got '%s'", optarg);
            c->ov.cpus = optarg;
            break;
        }
        case 'q': c->quiet = 1; break;
        case 'M': c->mm_results = 1; break;
        case CLI_OPT_SEGMENT: c->segment_arg = optarg; break;
        case CLI_OPT_START_AT: c->start_at_arg = optarg; break;
        case 'S': case 'D': case 'L': case 'P': {     /* live outputs */
            char oerr[1200];
            int orc = ch == 'S' ? output_parse_stream(&c->outputs, optarg, oerr, sizeof oerr)
                    : ch == 'D' ? output_parse_dashboard(&c->outputs, optarg, oerr, sizeof oerr) : 0;
            if (ch == 'L') c->outputs.dashboard_linger = 1;
            if (ch == 'P') c->outputs.dashboard_public = 1;
            if (orc != 0) return cli_bad("%s", oerr);
            break;
        }
        case 'e':
            if (params_add(&c->params, optarg) != 0) return cli_bad("-e: expected NAME=VALUE, got '%s'", optarg);
            break;
        case 'h': cli_print_usage(stdout); exit(EXIT_OK);
        default:
            return cli_bad("unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (bad) return EXIT_USAGE;
    char err[512];
    if (cli_dist_resolve(c, err, sizeof err) != 0) return cli_bad("%s", err);
    if (plan_check_flags(&c->ov, err, sizeof err) != PLAN_OK) return cli_bad("%s", err);
    if (output_check(&c->outputs, err, sizeof err) != 0) return cli_bad("%s", err);
    c->console = output_uses_stdout(&c->outputs) ? stderr : stdout;
    if (c->out_dir && report_check_out(c->out_dir, err, sizeof err) != 0)
        return cli_bad("--out: %s", err);
    if (optind >= argc) return cli_bad("run: missing the SCENARIO file%s", "");
    c->scenario_path = argv[optind++];
    if (optind < argc) return cli_bad("run: unexpected argument '%s'", argv[optind]);
    return EXIT_OK;
}

static void cli_on_progress(void *ctx, const run_result *r, double elapsed, double total) {
    cli_live *l = ctx;
    if (!l->quiet) report_progress(stderr, r, elapsed, total);
}

/* The results directory was removed during the run: create it again, with
 * the scenario copy.  Returns 1 when it did. */
static int cli_recreate_dir(const char *dir, const scenario *sc) {
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
static void cli_live_dir(cli_live *l) {
    if (!cli_recreate_dir(l->dir, l->sc) || !l->hlog) return;
    char hpath[4200];
    snprintf(hpath, sizeof hpath, "%s/" HLOG_FILE, l->dir);
    hlog_close(l->hlog);
    l->hlog = hlog_open(hpath, 0);
    if (!l->hlog) fprintf(stderr, "luamech: cannot write %s: %s\n", hpath, strerror(errno));
}

/* Keep the result files current, so even a killed run leaves a valid set;
 * with abort_on_threshold, stop at the first failed criterion (counts are
 * left out: they may still grow). */
static int cli_on_interval(void *ctx, const run_result *r) {
    cli_live *l = ctx;
    output_interval(l->out, l->sc, r);
    cli_live_dir(l);
    report_write_all(l->dir, l->sc, r, "running", -1);
    if (!l->sc->abort_on_threshold) return 0;
    th_result *res;
    report_threshold_results(l->sc, r, &res);
    int stop = 0;
    for (int i = 0; res && i < l->sc->nthresholds && !stop; i++) {
        if (res[i].passed || res[i].state != TH_MEASURED || res[i].t->stat == TH_COUNT) continue;
        fprintf(stderr, "luamech: threshold \"%s\" failed (measured %.3f %s): stopping the run\n",
                res[i].t->text, res[i].measured, threshold_unit(res[i].t));
        stop = 1;
    }
    free(res);
    return stop;
}

/* Every timer's histogram of each closed interval, into DIR/histograms.hlog. */
static void cli_on_hist(void *ctx, const struct agg_timer *t, int interval, double start_s,
                        double len_s, const hist *h) {
    cli_live *l = ctx;
    (void)interval;
    if (!l->hlog || (t->of && l->sc->seg_count == 0)) return;   /* "(all)" twins: for luamech merge */
    hlog_set_start(l->hlog, (double)l->r->start_wall.tv_sec + (double)l->r->start_wall.tv_nsec / 1e9);
    hlog_write(l->hlog, t->name, start_s, len_s, h);
}

static int cli_exit_code(const scenario *sc, const run_result *r) {
    if (r->status == RUN_STUCK) return EXIT_STUCK;
    if (r->script_stop == 2) return EXIT_SCRIPT_ABORT;
    if (r->status == RUN_ABORTED) return r->setup_failed ? EXIT_RUNTIME : EXIT_PREFLIGHT;
    if (r->status == RUN_INTERRUPTED) return EXIT_INTERRUPTED;
    if (r->stopped_by_hook || report_thresholds_failed(sc, r) > 0) return EXIT_THRESHOLDS;
    return EXIT_OK;
}

static uint64_t cli_seed(const scenario *sc) {
    if (sc->seed_set) return sc->seed;
    if (sc->seg_count > 1) return strtoull(sc->hash, NULL, 16) % 1000000000ULL;   /* the same in every segment */
    return (uv_hrtime() ^ ((uint64_t)getpid() << 32)) % 1000000000ULL;
}

static void cli_banner(const scenario *sc, int workers, uint64_t seed, const char *dir) {
    char rt[32], ru[32], iv[32];
    fprintf(stderr, "luamech %s: %s: %d group(s), %d VUs, %d worker(s), run time %s, rampup %s, "
                    "interval %s", LUAMECH_VERSION, sc->name, sc->ngroups, scenario_total_vus(sc), workers,
            sc->run_time_ns ? units_format_duration(sc->run_time_ns, rt, sizeof rt) : "-",
            units_format_duration(sc->rampup_ns, ru, sizeof ru),
            units_format_duration(sc->interval_ns, iv, sizeof iv));
    if (sc->requests > 0) fprintf(stderr, ", %lld transactions", (long long)sc->requests);
    if (sc->seg_count > 1)
        fprintf(stderr, ", segment %d/%d (%lld of the VUs here%s)", sc->seg_index, sc->seg_count,
                (long long)plan_segment_vus(sc), sc->requests > 0 ? ", its share of the transactions" : "");
    fprintf(stderr, ", seed %llu\nluamech: results in %s\n", (unsigned long long)seed, dir);
}

/* setup() (what = 1) or teardown(data) (2) of the scenario file, run by one
 * VU of one worker (with every primitive) in a run of its own: its init
 * loads the scenario file and calls the function (a preflight, so bounded
 * by the 60 s preflight limit; SIGINT stops it).  Returns 0, or -1 after
 * one message. */
static int cli_lifecycle(const cli_run *c, const scenario *sc, const char *dir, int what, lm_share *share,
                         uint64_t seed) {
    const char *name = what == 1 ? "setup" : "teardown";
    char script[4200], *abs = realpath(sc->path, NULL);
    snprintf(script, sizeof script, "%s/.luamech-%s.lua", dir, name);
    FILE *f = abs ? fopen(script, "w") : NULL;
    if (f) {
        fprintf(f, "-- generated by luamech: runs the scenario file's %s()\nlocal sc = dofile([==[%s]==])\n",
                name, abs);
        if (what == 1) fprintf(f, "__luamech_setup_done(sc.setup())\n");
        else fprintf(f, "sc.teardown(luamech.setup_data)\n");
        fprintf(f, "return function() end\n");
    }
    free(abs);
    scenario ls;
    if (!f || fclose(f) != 0 || scenario_lifecycle(&ls, sc, what, script) != 0) {
        fprintf(stderr, "luamech: cannot run %s(): cannot write %s: %s\n", name, script, strerror(errno));
        remove(script);
        return -1;
    }
    run_hooks hooks = {0};
    hooks.open_lua = lm_open_all;
    hooks.script_ctx = share;
    run_result lr;
    engine_run(&ls, sc->params ? sc->params : &c->params, 1, seed, &hooks, &lr);
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
    remove(script);
    return rc;
}

/* One run (a scenario, or one phase of it) into dir: live progress, report,
 * result files.  Returns the exit code; *r is kept for the phases table. */
static int cli_run_one(cli_run *c, const scenario *sc, const char *dir, int workers,
                       uint64_t seed, run_result *r) {
    char err[2048];
    if (report_prepare_dir(dir, sc, err, sizeof err) != 0) {
        fprintf(stderr, "luamech: %s\n", err);
        memset(r, 0, sizeof *r);
        return EXIT_RUNTIME;
    }
    cli_banner(sc, workers, seed, dir);
    char hpath[4200];
    snprintf(hpath, sizeof hpath, "%s/" HLOG_FILE, dir);
    cli_live live = {sc, dir, c->quiet, r, hlog_open(hpath, 0), c->out};
    output_run_start(c->out, sc, c->phase);
    if (!live.hlog) fprintf(stderr, "luamech: cannot write %s: %s\n", hpath, strerror(errno));
    lm_share *share = lm_share_new(sc->dir);   /* relative paths, read files, data sets */
    if (!share) {
        fprintf(stderr, "luamech: cannot resolve the scenario's folder %s: %s\n", sc->dir, strerror(errno));
        memset(r, 0, sizeof *r);
        return EXIT_RUNTIME;
    }
    for (int i = 0; i < sc->nread_files; i++) lm_share_record(share, sc->read_files[i]);
    run_hooks hooks = {&live, cli_on_progress, cli_on_interval, cli_on_hist, c->mm_results ? dir : NULL,
                       lm_open_all, share};
    if (sc->has_setup && cli_lifecycle(c, sc, dir, 1, share, seed) != 0) {
        if (live.hlog) hlog_close(live.hlog);
        lm_share_free(share);
        memset(r, 0, sizeof *r);
        return EXIT_PREFLIGHT;
    }
    engine_run(sc, sc->params ? sc->params : &c->params, workers, seed, &hooks, r);
    cli_live_dir(&live);
    if (live.hlog && hlog_close(live.hlog) != 0) fprintf(stderr, "luamech: cannot write %s\n", hpath);
    int code = cli_exit_code(sc, r);
    output_run_end(c->out, sc, r, report_status_name(r->status), code);
    c->abandoned |= r->abandoned;
    if (r->status == RUN_ABORTED) {           /* the error may carry a server's text: escaped */
        char buf[4 * sizeof r->error];
        fprintf(stderr, "luamech: %s, no load was generated: %s\n",
                r->setup_failed ? "the run could not be set up" : "preflight failed",
                text_clean(r->error, buf, sizeof buf));
    }
    else report_console(c->console, sc, r, dir);
    if (r->status == RUN_STUCK) {
        char buf[4 * sizeof r->error];
        fprintf(stderr, "luamech: stopped by the watchdog: %s\n", text_clean(r->error, buf, sizeof buf));
    }
    const char *status = r->script_stop == 2 && r->status != RUN_STUCK ? "script_aborted"
                       : r->script_stop == 1 && r->status == RUN_COMPLETED ? "stopped" : report_status_name(r->status);
    if (report_write_all(dir, sc, r, status, code) != 0) {
        fprintf(stderr, "luamech: cannot write the results into %s\n", dir);
        code = EXIT_RUNTIME;
    }
    if (!r->abandoned && report_copy_read(dir, share->root, (const char *const *)share->files, share->nfiles) != 0)
        fprintf(stderr, "luamech: cannot copy the files the scripts read into %s/scenario\n", dir);
    if (sc->has_teardown && !r->abandoned) cli_lifecycle(c, sc, dir, 2, share, seed);
    if (!r->abandoned) lm_share_free(share);   /* else a stuck worker may still read it */
    if (report_write_html(dir) != 0) fprintf(stderr, "luamech: cannot write %s/report.html\n", dir);
    return code;
}

/* Phases run one after another, each into its own subdirectory; the top
 * directory gets the phases table and the verdict of the scenario's own
 * (top-level) thresholds over all phases' data.  A failed or interrupted
 * phase ends the sequence. */
static int cli_run_phases(cli_run *c, const scenario *sc, const char *dir, int workers, uint64_t seed) {
    run_result *rs = calloc((size_t)sc->nphases, sizeof *rs);
    int code = EXIT_OK, ran = 0, th_failed = 0;
    for (int i = 0; i < sc->nphases && code == EXIT_OK; i++, ran++) {
        char sub[4200], name[128];
        report_phase_subdir(name, sizeof name, i, sc->phases[i].name);
        snprintf(sub, sizeof sub, "%s/%s", dir, name);
        fprintf(stderr, "luamech: phase %d/%d: %s\n", i + 1, sc->nphases, sc->phases[i].name);
        const scenario *ph = &sc->phases[i];
        c->phase = ph->name;
        code = cli_run_one(c, ph, sub, ph->workers > 0 ? ph->workers : workers,
                           ph->seed_set ? ph->seed : seed, &rs[i]);
        if (code == EXIT_THRESHOLDS) th_failed = 1, code = EXIT_OK;   /* later phases still run */
    }
    if (code == EXIT_OK && sc->nthresholds > 0) {
        th_result *res;
        th_failed |= report_run_threshold_results(sc, rs, ran, &res) > 0;
        free(res);
    }
    if (code == EXIT_OK && th_failed) code = EXIT_THRESHOLDS;
    report_phases(c->console, sc, rs, ran);
    report_run_thresholds(c->console, sc, rs, ran);
    cli_recreate_dir(dir, sc);
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
static int cli_out_dir(const cli_run *c, const scenario *sc, char *dir, size_t len) {
    char err[4400];
    if (c->out_dir) snprintf(dir, len, "%s", c->out_dir);
    else report_default_dir(dir, len, sc);
    if (report_make_out(dir, err, sizeof err) == 0) return EXIT_OK;
    if (c->out_dir) return cli_bad("--out: %s", err);
    fprintf(stderr, "luamech: results directory: %s (give one with --out)\n", err);
    return EXIT_RUNTIME;
}

/* scenario_load / suite_load's -1 (bad scenario) or -2 (bad flag). */
static int cli_load_failed(int rc, const char *err) {
    if (rc == -2) return cli_bad("%s", err);
    fprintf(stderr, "luamech: %s\n", err);
    return EXIT_SCENARIO;
}

/* The engine's limits, for the run and each phase, before any load. */
static int cli_check_plan(const scenario *sc, int workers) {
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
static int cli_default_workers(void) {
    unsigned n = uv_available_parallelism();
    return n > ENGINE_MAX_WORKERS ? ENGINE_MAX_WORKERS : (int)n;
}

/* The live outputs (--stream, --dashboard), opened before any load; the
 * run's id is its results directory's name.  A port in use or a file that
 * cannot be created is a usage error. */
static int cli_open_outputs(cli_run *c, const char *dir) {
    if (!c->outputs.nstreams && !c->outputs.dashboard[0]) return EXIT_OK;
    char err[1400];
    const char *slash = strrchr(dir, '/');
    c->out = output_open(&c->outputs, slash && slash[1] ? slash + 1 : dir, err, sizeof err);
    return c->out ? EXIT_OK : cli_bad("%s", err);
}

static void cli_close_outputs(cli_run *c) {
    fflush(NULL);
    output_close(c->out);
    c->out = NULL;
}

/* After a run that left stuck threads: everything is written; end now. */
static int cli_end(const cli_run *c, int code) {
    if (!c->abandoned) return code;
    fflush(NULL);
    _exit(code);
}

static int cli_run_scenario(cli_run *c) {
    scenario sc;
    char err[2048], dir[4096];
    int code = scenario_load(&sc, c->scenario_path, &c->params, &c->ov, err, sizeof err);
    if (code != 0) {
        scenario_free(&sc);
        return cli_load_failed(code, err);
    }
    int workers = sc.workers > 0 ? sc.workers : cli_default_workers();
    uint64_t seed = cli_seed(&sc);
    if (sc.nphases > 0 && sc.start_at_ns > 0) {
        scenario_free(&sc);
        return cli_bad("--start-at: %s has phases; a start time is for a single run", c->scenario_path);
    }
    if ((code = cli_check_plan(&sc, workers)) != EXIT_OK || (code = cli_out_dir(c, &sc, dir, sizeof dir)) != EXIT_OK) {
        scenario_free(&sc);
        return code;
    }
    if ((code = cli_open_outputs(c, dir)) != EXIT_OK) {
        scenario_free(&sc);
        return code;
    }
    if (sc.nphases > 0) code = cli_run_phases(c, &sc, dir, workers, seed);
    else {
        run_result r;
        code = cli_run_one(c, &sc, dir, workers, seed, &r);
        run_result_free(&r);
    }
    cli_close_outputs(c);
    cli_end(c, code);
    scenario_free(&sc);
    return code;
}

/* `luamech suite FILE`: the suite's runs are loaded as the phases of one
 * synthetic scenario (suite.c) and run like phases, each into its own
 * subdirectory, with one table of all runs. */
static int cli_suite(int argc, char **argv) {
    cli_run c;
    memset(&c, 0, sizeof c);
    scenario_overrides_init(&c.ov);
    params_init(&c.params);
    int code = cli_parse_run(argc, argv, &c);
    if (code == EXIT_OK && c.start_at_arg) code = cli_bad("--start-at: %s", "a suite's runs cannot share a start time");
    scenario suite;
    char err[2048], dir[4096];
    memset(&suite, 0, sizeof suite);
    int rc = code == EXIT_OK ? suite_load(&suite, c.scenario_path, &c.params, &c.ov, err, sizeof err) : 0;
    if (rc != 0) code = cli_load_failed(rc, err);
    if (code == EXIT_OK) {
        int workers = suite.workers > 0 ? suite.workers : cli_default_workers();
        code = cli_check_plan(&suite, workers);
        if (code == EXIT_OK) code = cli_out_dir(&c, &suite, dir, sizeof dir);
        if (code == EXIT_OK) code = cli_open_outputs(&c, dir);
        if (code == EXIT_OK) code = cli_run_phases(&c, &suite, dir, workers, cli_seed(&suite));
        cli_close_outputs(&c);
        cli_end(&c, code);
    }
    suite_free(&suite);
    params_free(&c.params);
    return code;
}

int cli_main(int argc, char **argv) {
    signal(SIGPIPE, SIG_IGN);    /* a peer closing mid-write is an error, not a death */
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        cli_print_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
        printf("luamech %s (%s, libuv %s)\n", LUAMECH_VERSION, "LuaJIT", uv_version_string());
        return EXIT_OK;
    }
    if (strcmp(argv[1], "report") == 0) return report_cmd_main(argc - 1, argv + 1);
    if (strcmp(argv[1], "suite") == 0) return cli_suite(argc - 1, argv + 1);
    if (strcmp(argv[1], "compare") == 0) return compare_cmd_main(argc - 1, argv + 1);
    if (strcmp(argv[1], "new") == 0) return new_cmd_main(argc - 1, argv + 1);
    if (strcmp(argv[1], "merge") == 0) return merge_cmd_main(argc - 1, argv + 1);
    if (strcmp(argv[1], "run") != 0) return cli_bad("unknown command '%s'", argv[1]);
    cli_run c;
    memset(&c, 0, sizeof c);
    scenario_overrides_init(&c.ov);
    params_init(&c.params);
    int code = cli_parse_run(argc - 1, argv + 1, &c);
    if (code == EXIT_OK) code = cli_run_scenario(&c);
    params_free(&c.params);
    return code;
}
