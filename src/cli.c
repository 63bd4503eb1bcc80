/* cli.c - parses the command line (getopt_long), loads the scenario (or
 * suite) with the flags' overrides and hands it to the runner
 * (run/runner.c), which runs it and writes the results; dispatches the other
 * sub-commands (report, compare, merge, new).  `--io` is resolved here
 * once (the kernel probed) and handed on as a value (runner_opts.io), never
 * through the environment.  No run lifecycle, load generation or
 * statistics here. */
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

#include "cmd/compare.h"
#include "cmd/merge.h"
#include "cmd/new.h"
#include "cmd/report_cmd.h"
#include "common/params.h"
#include "common/text.h"
#include "common/units.h"
#include "common/when.h"
#include "net/uring.h"
#include "output/output.h"
#include "report/results.h"
#include "run/runner.h"
#include "scenario/plan.h"
#include "scenario/scenario.h"
#include "scenario/script.h"
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
"       luamech merge SEGMENT_DIR... --out DIR [--allow-partial] [--verbose] [--follow [--dashboard [ADDR:]PORT]]\n"
"                                    (one result from a run's --segment parts; docs/distributed.md)\n"
"       luamech new NAME [--template %s]   (writes a scenario folder NAME/)\n"
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
"  -v, --verbose            the full end report: every timer (engine, per primitive,\n"
"                           uncorrected views), the interval details, counters; default:\n"
"                           a compact one (verdict, thresholds, your timers, top errors)\n"
"      --mm-results         also write multi-mechanize's results.csv (a line per transaction)\n"
"      --segment i/N|auto   run segment i of N of the run (docs/distributed.md); auto: from\n"
"                           LUAMECH_SEGMENT=i/N, JOB_COMPLETION_INDEX + LUAMECH_SEGMENTS,\n"
"                           or SLURM_PROCID + SLURM_NTASKS\n"
"      --start-at TIME      after the preflight, start the load at TIME (RFC 3339 with a\n"
"                           zone, e.g. 2026-12-02T10:00:00Z, or +30s from now; at most\n"
"                           7 days ahead)\n"
"      --stream json=FILE|-  JSON lines, one object per interval per timer, as the run goes\n"
"      --stream prometheus=URL[,interval=DUR][,label=NAME=VALUE][,histograms=classic|native]\n"
"                           [,bearer_token_file=PATH]\n"
"                           Prometheus remote write (docs/outputs.md)\n"
"      --io auto|uring|epoll  socket I/O: io_uring (batched, one system call per loop turn)\n"
"                           or libuv's epoll; auto (default, or LUAMECH_IO): io_uring where\n"
"                           the kernel allows it, else epoll with a notice\n"
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

static const char cli_suite_usage[] =
"usage: luamech suite SUITE [options]\n"
"\n"
"Runs the runs of SUITE one after another and prints one table of all of them\n"
"(seed 001's sweep of concurrency levels).  SUITE is a Lua file returning either a\n"
"sweep of one setting or parameter over a scenario,\n"
"  { scenario = \"http_kv_get.lua\", requests = 100000, sweep = { vus = { 1, 2, 10, 50, 100 } } }\n"
"or an explicit list of runs,\n"
"  { runs = { { name = \"small\", scenario = \"a.lua\", vus = 2 }, { scenario = \"b.lua\" } } }\n"
"with name, params = { NAME = value } and the settings vus, workers, requests, seed,\n"
"duration, rampup and interval at the top or per run (a run's own value wins).\n"
"Precedence, highest first: these options, the suite entry, the scenario file; an\n"
"option for the setting the suite sweeps is refused (exit 2).  Each run goes into\n"
"its own subdirectory of the results directory (<i>-<run name>); the top has the\n"
"table (summary.json, phases.csv, report.html).  Examples: scenarios/suites/.\n"
"\n"
"options: those of 'luamech run' (luamech run --help), applied to every run.\n"
"\n"
"exit codes: those of 'luamech run'.  A run that fails other than by its thresholds,\n"
"or is interrupted, ends the suite with its code; otherwise 6 when a threshold of\n"
"any run failed (the later runs still ran), else 0.  3 also for a suite file with\n"
"an error (the message names the suite entry).\n";

/* The usage text, with the defaults from the plan's one table. */
static void cli_print_usage(FILE *f) {
    char iv[32], gs[32], templates[256];
    fprintf(f, cli_usage, new_template_list(templates, sizeof templates, "|", NULL),
            units_format_duration(PLAN_DEFAULT_INTERVAL_NS, iv, sizeof iv),
            units_format_duration(PLAN_DEFAULT_GRACEFUL_STOP_NS, gs, sizeof gs));
}

typedef struct cli_run {
    const char *scenario_path;
    const char *out_dir;
    int quiet;
    int verbose;             /* --verbose: the full end report */
    int mm_results;
    const char *segment_arg, *start_at_arg;   /* --segment, --start-at (cli_dist_resolve) */
    output_cfg outputs;      /* --stream, --dashboard */
    scenario_overrides ov;
    params params;
    const char *io;          /* the backend every worker loop uses, "uring" or "epoll" (cli_io_resolve) */
} cli_run;

static int cli_bad(const char *fmt, const char *arg) {
    return text_usage_error("luamech", fmt, arg, "Try 'luamech --help'.");
}

/* Syntax only: the ranges are plan_check_flags' (the plan's one table).
 * parse is units_parse_duration_ns or units_parse_count; example says what
 * such a value looks like.  0, or -1 after a message. */
static int cli_number(const char *field, const char *arg, int64_t *out,
                      int (*parse)(const char *, int64_t *), const char *example) {
    char range[128];
    const plan_limit *l = plan_limit_of(field);
    if (parse(arg, out) == 0) return 0;
    fprintf(stderr, "luamech: %s: expected %s %s; got '%s'\n", l->flag,
            plan_range_text(l, range, sizeof range), example, arg);
    return -1;
}

static int cli_duration(const char *field, const char *arg, int64_t *out) {
    return cli_number(field, arg, out, units_parse_duration_ns, "such as 30s, 5m, 250ms");
}

static int cli_count(const char *field, const char *arg, int64_t *out) {
    return cli_number(field, arg, out, units_parse_count, "(10k, 1M accepted)");
}

/* ---- distributed runs: --segment and --start-at (docs/distributed.md) ---- */
enum { CLI_OPT_SEGMENT = 1000, CLI_OPT_START_AT, CLI_OPT_IO };

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

/* ---- --io auto|uring|epoll (src/net/uring.h) ----
 * The plan checked the name (flag, else LUAMECH_IO, read once here); the
 * kernel is probed once and c->io set to what every worker loop uses, a
 * value the runner hands to the bindings (runner_opts.io, lm_share_set_io,
 * net_io_use on each loop): `auto` falls back to epoll with a one-line
 * notice, `uring` without io_uring is exit 1 (before any worker starts). */
static int cli_io_resolve(cli_run *c) {
    net_io_mode m;
    int uring;
    char msg[512];
    if (net_io_parse(c->ov.io, &m) != 0) m = NET_IO_AUTO;   /* checked by the plan */
    if (net_io_resolve(m, &uring, msg, sizeof msg) != 0) {
        fprintf(stderr, "luamech: %s\n", msg);
        return EXIT_RUNTIME;
    }
    if (msg[0]) fprintf(stderr, "luamech: %s\n", msg);
    c->io = net_io_name(uring ? NET_IO_URING : NET_IO_EPOLL);
    return EXIT_OK;
}

/* The argument getopt refused: for a short option (optopt) the cluster
 * holding it ("-q=1": '=' is refused, and getopt has not moved past it
 * unless it was the cluster's last character), else the previous one
 * ("--bogus", "-d" without its value). */
static const char *cli_bad_arg(int argc, char **argv) {
    const char *cur = optind < argc ? argv[optind] : NULL;
    if (optopt > 0 && optopt < 256 && cur && cur[0] == '-' && cur[1] && cur[1] != '-' &&
        strchr(cur + 1, optopt) != NULL)
        return cur;
    return argv[optind - 1];
}

/* LUAMECH_LOAD_TIMEOUT: the time limit of the scenario file's evaluation
 * (scenario/script.h); 0, or -1 after a message. */
static int cli_load_limit(cli_run *c) {
    const char *v = getenv(SCRIPT_LIMIT_ENV);
    if (!v) return 0;
    if (units_parse_duration_ns(v, &c->ov.load_limit_ns) == 0 && c->ov.load_limit_ns >= 1000000 &&
        c->ov.load_limit_ns <= 3600LL * 1000000000LL)
        return 0;
    fprintf(stderr, "luamech: %s: expected a duration from 1ms to 1h such as 60s or 500ms; got '%s'\n",
            SCRIPT_LIMIT_ENV, v);
    return -1;
}

static int cli_parse_run(int argc, char **argv, cli_run *c) {
    static const struct option opts[] = {
        {"duration", required_argument, 0, 'd'}, {"rampup", required_argument, 0, 'r'},
        {"interval", required_argument, 0, 'i'}, {"requests", required_argument, 0, 'n'},
        {"vus", required_argument, 0, 'u'}, {"workers", required_argument, 0, 'w'},
        {"seed", required_argument, 0, 's'}, {"graceful-stop", required_argument, 0, 'g'},
        {"out", required_argument, 0, 'o'}, {"env", required_argument, 0, 'e'},
        {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'}, {"verbose", no_argument, 0, 'v'},
        {"cpus", required_argument, 0, 'c'}, {"mm-results", no_argument, 0, 'M'},
        {"segment", required_argument, 0, CLI_OPT_SEGMENT}, {"start-at", required_argument, 0, CLI_OPT_START_AT},
        {"io", required_argument, 0, CLI_OPT_IO},
        /* live outputs (src/output) */
        {"stream", required_argument, 0, 'S'}, {"dashboard", required_argument, 0, 'D'},
        {"dashboard-linger", no_argument, 0, 'L'}, {"dashboard-public", no_argument, 0, 'P'}, {0, 0, 0, 0}};
    int ch, bad = 0;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, "d:r:i:n:u:w:s:g:o:e:qvhc:", opts, NULL)) != -1) {
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
            int cpus[256], n = scenario_parse_cpus(optarg, cpus, 256);
            char why[512];
            if (n < 0) return cli_bad("--cpus: expected CPU numbers such as 1 or 0,2-3, got '%s'", optarg);
            if (scenario_check_cpus(cpus, n, why, sizeof why) != 0) return cli_bad("--cpus: %s", why);
            c->ov.cpus = optarg;
            break;
        }
        case 'q': c->quiet = 1; break;
        case 'v': c->verbose = 1; break;
        case 'M': c->mm_results = 1; break;
        case CLI_OPT_SEGMENT: c->segment_arg = optarg; break;
        case CLI_OPT_START_AT: c->start_at_arg = optarg; break;
        case CLI_OPT_IO: c->ov.io = optarg; break;
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
        case 'h':
            if (argc > 0 && strcmp(argv[0], "suite") == 0) fputs(cli_suite_usage, stdout);
            else cli_print_usage(stdout);
            exit(EXIT_OK);
        default:
            return cli_bad("unknown or incomplete option '%s'", cli_bad_arg(argc, argv));
        }
    }
    if (cli_load_limit(c) != 0) bad = 1;
    if (bad) return EXIT_USAGE;
    char err[512];
    if (cli_dist_resolve(c, err, sizeof err) != 0) return cli_bad("%s", err);
    if (c->ov.io == NULL && (c->ov.io = getenv(NET_IO_ENV)) != NULL) c->ov.io_env = 1;
    if (plan_check_flags(&c->ov, err, sizeof err) != PLAN_OK) return cli_bad("%s", err);
    if (output_check(&c->outputs, err, sizeof err) != 0) return cli_bad("%s", err);
    if (c->out_dir && report_check_out(c->out_dir, err, sizeof err) != 0)
        return cli_bad("--out: %s", err);
    if (optind >= argc) return cli_bad("run: missing the SCENARIO file%s", "");
    c->scenario_path = argv[optind++];
    if (optind < argc) return cli_bad("run: unexpected argument '%s'", argv[optind]);
    return cli_io_resolve(c);
}

/* scenario_load / suite_load's -1 (bad scenario) or -2 (bad flag). */
static int cli_load_failed(int rc, const char *err) {
    if (rc == -2) return cli_bad("%s", err);
    fprintf(stderr, "luamech: %s\n", err);
    return EXIT_SCENARIO;
}

/* `luamech run`: load the scenario (its checks, the flags' overrides), then
 * hand it to the runner (src/run/runner.c). */
static int cli_run_scenario(cli_run *c) {
    scenario sc;
    char err[2048];
    int code = scenario_load(&sc, c->scenario_path, &c->params, &c->ov, err, sizeof err);
    if (code != 0) {
        scenario_free(&sc);
        return cli_load_failed(code, err);
    }
    if (sc.nphases > 0 && sc.start_at_ns > 0) {
        scenario_free(&sc);
        return cli_bad("--start-at: %s has phases; a start time is for a single run", c->scenario_path);
    }
    runner_opts o = {c->out_dir, c->quiet, c->mm_results, &c->params, 0, &c->outputs, c->io, c->verbose};
    code = runner_run(&o, &sc);
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
    char err[2048];
    memset(&suite, 0, sizeof suite);
    int rc = code == EXIT_OK ? suite_load(&suite, c.scenario_path, &c.params, &c.ov, err, sizeof err) : 0;
    if (rc != 0) code = cli_load_failed(rc, err);
    if (code == EXIT_OK) {
        runner_opts o = {c.out_dir, c.quiet, c.mm_results, &c.params, 1, &c.outputs, c.io, c.verbose};
        code = runner_run(&o, &suite);
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
    if (strcmp(argv[1], "new") == 0) return new_cmd_main(argc - 1, argv + 1, argv[0]);
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
