/* runner.h - a run's lifecycle: plan (already loaded and checked) -> engine
 * -> interval writers -> result files (runner.c).  cli.c parses the command
 * line and loads; the runner does the rest. */
#ifndef LUAMECH_RUNNER_H
#define LUAMECH_RUNNER_H

#include "common/params.h"
#include "output/output.h"
#include "scenario/scenario.h"

typedef struct runner_opts {
    const char *out_dir;     /* --out, or NULL: results/<name>-<time> */
    int quiet;               /* no progress line */
    int mm_results;          /* --mm-results: multi-mechanize's results.csv too */
    const params *params;    /* -e parameters, for a scenario without its own */
    int as_phases;           /* run sc's phases even if it has none (a suite) */
    const output_cfg *outputs; /* --stream, --dashboard (checked), or NULL */
    const char *io;          /* the resolved --io backend ("uring", "epoll"): every worker loop's
                                (lm_share_set_io), recorded in the results; NULL: auto, not recorded */
    int verbose;             /* --verbose: the full end report (else the compact one) */
} runner_opts;

/* Runs sc (its phases one after another, when it has them) into the
 * results directory and returns the exit code (common/exit_codes.h).  When
 * a run left stuck worker threads, the process ends here once everything
 * is written (it must not return to a state those threads could touch). */
int runner_run(const runner_opts *o, const scenario *sc);
/* The threshold subjects of sc (and of its phases) that name a timer of a
 * family luamech makes by itself (All Transactions, groups, stages,
 * engine.*, http, http.*, memcached.*) but that this run cannot make: the
 * first one refused on stderr with a did-you-mean, EXIT_SCENARIO; else
 * EXIT_OK (subjects.c).  Before any load. */
int runner_check_subjects(const scenario *sc);

#endif
