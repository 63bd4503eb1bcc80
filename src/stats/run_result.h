/* run_result.h - what a finished (or running) run leaves: its status, the
 * merged statistics (agg), its times and why it ended.  The engine fills it;
 * reports and the runner read it.  Here, in stats/, so that the reports
 * read data and never include the engine. */
#ifndef LUAMECH_RUN_RESULT_H
#define LUAMECH_RUN_RESULT_H

#include <stdint.h>
#include <time.h>

#include "stats/agg.h"

typedef enum run_status {
    RUN_COMPLETED = 0,   /* reached its run time or transaction budget */
    RUN_INTERRUPTED,     /* SIGINT / SIGTERM: stopped early, results kept */
    RUN_ABORTED,         /* preflight failed (or the run could not be set up): no load */
    RUN_STUCK            /* a VU did not yield and was interrupted or abandoned */
} run_status;

typedef struct run_result {
    run_status status;
    agg agg;
    int64_t run_ns;          /* from t0 to the end of the measured run */
    int64_t span_ns;         /* from t0 to the end of sampling: run_ns plus the drain of
                              * the graceful stop; the period of the summary rates */
    struct timespec start_wall, end_wall;
    int nworkers;
    char io[8];              /* the socket I/O backend the workers used: "uring", "epoll" ("" unknown; a merge of both: "mixed") */
    int *workers_at;         /* optional, malloc'ed: the workers running in interval k
                              * (luamech merge: of the segments that had started and not
                              * ended), for CPU %; NULL: nworkers in every interval */
    int nworkers_at;         /* its length */
    uint64_t seed;
    int signal;              /* the signal that interrupted the run, or 0 */
    int stopped_by_hook;     /* on_interval asked to stop (a failed threshold) */
    char stopped_by[512];    /* then why: the criterion and where it was judged ("" otherwise) */
    int setup_failed;        /* RUN_ABORTED because the run could not be set up */
    int abandoned;           /* workers left running (RUN_STUCK): exit the process after writing */
    int script_stop;         /* a script ended the run: 1 luamech.stop, 2 luamech.abort */
    char stop_reason[256];   /* the script's reason */
    char error[1024];        /* RUN_ABORTED, RUN_STUCK: why */
    int64_t start_offset_ns; /* --start-at: t0 minus the requested instant (> 0: late) */
} run_result;

void run_result_free(run_result *r);

#endif
