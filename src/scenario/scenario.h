/* scenario.h - a run's configuration: the scenario file, checked and
 * normalised, with command-line overrides applied. Read-only once loaded. */
#ifndef LUAMECH_SCENARIO_H
#define LUAMECH_SCENARIO_H

#include <lua.h>
#include <stdint.h>
#include "common/params.h"
#include "scenario/schedule.h"
#include "stats/threshold.h"

typedef enum load_model { MODEL_CLOSED = 0, MODEL_PACED, MODEL_RATE } load_model;

typedef struct group_cfg {
    char *name;
    int vus;              /* VUs allocated: closed/paced: the most that run; rate: max_vus */
    char *script_path;    /* as opened: the scenario's directory + script */
    char *script_name;    /* as written in the scenario */
    load_model model;
    int64_t pacing_ns;    /* paced: one iteration per VU every pacing_ns */
    int64_t error_pause_ns;   /* closed: on_error.pause, a VU's wait after a failed transaction; 0 = none */
    int prealloc;         /* rate: VUs started at t0 (the pool grows to vus) */
    int staged;           /* stages were given (else built from rampup) */
    schedule sched;       /* closed/paced: target VUs; rate: target transactions/s */
} group_cfg;

typedef struct scenario {
    char *path;           /* the scenario file as given */
    char *dir;            /* its directory */
    char *name;
    char *notes;          /* may be NULL */
    int64_t run_time_ns;  /* 0 = bounded by requests only */
    int64_t rampup_ns;
    int64_t interval_ns;
    int64_t graceful_stop_ns;
    int64_t requests;     /* 0 = unbounded */
    int max_timers;       /* cap on distinct custom + primitive timer names (default 1000) */
    int workers;          /* 0 = number of CPUs */
    uint64_t seed;
    int seed_set;
    int ncpus;            /* --cpus: worker i runs on cpus[i % ncpus]; 0 = no pinning */
    int cpus[256];
    int ngroups;
    group_cfg *groups;
    int nthresholds;      /* pass/fail criteria; a failure makes exit code 6 */
    threshold *thresholds;
    int abort_on_threshold;   /* stop the run at the first interval a criterion fails */
    int console_full;     /* console = "full": the full end report by default (as --verbose) */
    const params *params; /* a suite run's own -e parameters; NULL = the command line's */
    int is_suite;         /* the phases are a suite's runs (wording of reports) */
    char **read_files;    /* files the scenario file read (require, io.open: real paths) */
    int nread_files;
    int has_setup;        /* the scenario file has setup() / teardown(data) */
    int has_teardown;
    int lifecycle;        /* a run of setup (1) or teardown (2) only (scenario_lifecycle) */
    int nphases;          /* > 0: run these one after another instead */
    struct scenario *phases;
    /* --segment i/N (docs/distributed.md): this process runs segment
     * seg_index (1..seg_count) of the run; 0/0 = the whole run.  The split
     * is plan.c's (plan_segment_*); requests is then this segment's share
     * of requests_whole. */
    int seg_index, seg_count;
    int64_t requests_whole;
    char hash[17];        /* scenario_hash: 16 hex digits */
    int64_t start_at_ns;  /* --start-at: t0 at this CLOCK_REALTIME instant (ns); 0 = after the preflight */
} scenario;

/* Values that override the scenario's (a suite entry's, then the command
 * line's on top); negative = not given. */
typedef struct scenario_overrides {
    int64_t run_time_ns, rampup_ns, interval_ns, graceful_stop_ns, requests;
    int64_t vus, workers, seed;
    const char *cpus;     /* NULL = not given */
    const char *name;     /* a suite run's name; NULL = the scenario's */
    const char *origin;   /* messages: "suite.lua: runs[2]" when a suite set the
                           * values the command line did not; NULL = all flags */
    int seg_index, seg_count;   /* --segment i/N; 0/0 = not given */
    int64_t start_at_ns;        /* --start-at (CLOCK_REALTIME ns); 0 = not given */
    const char *io;             /* --io (or LUAMECH_IO when io_env): auto|uring|epoll; NULL = auto */
    int io_env;
    int64_t load_limit_ns;      /* LUAMECH_LOAD_TIMEOUT: a scenario file's time limit; 0 = 60 s */
} scenario_overrides;

/* "0,2-3" -> {0, 2, 3}; returns the count, or -1 on bad syntax. */
int scenario_parse_cpus(const char *s, int *cpus, int max);
/* 0 when every CPU of cpus[0..n) is one this process may run on (its
 * affinity mask); else -1 with "no CPU 999 on this machine ... (CPUs 0-1)"
 * in why (--cpus: a usage error, before anything is written). */
int scenario_check_cpus(const int *cpus, int n, char *why, size_t len);

void scenario_overrides_init(scenario_overrides *o);

/* Load, check and normalise `path`, apply the overrides, then check the
 * final plan (plan_check).  Returns 0, or with a message naming the file (or
 * flag) and field in err: -1 for a bad scenario (or suite entry), -2 for a
 * bad command-line value. */
int scenario_load(scenario *s, const char *path, const params *p,
                  const scenario_overrides *o, char *err, size_t err_len);
/* The same for scenario text in memory (src, len), named path (messages,
 * and the folder its scripts are looked for in), in L: a state from
 * script_state_open that the caller reuses for many loads (tests, fuzzing:
 * no state to create, no file to write).  The text runs in a fresh global
 * environment (script_push_env: luamech.param reads p) and the checker is
 * compiled once per state, so one load leaves nothing behind for the next,
 * as long as the text does not change the tables it reaches through the
 * shared globals (string, table, ...).  Unlike scenario_load, require, io
 * and dofile are not redirected to the scenario's folder and files read
 * are not recorded.  L's stack is as it was on return. */
int scenario_load_state(scenario *s, lua_State *L, const char *path, const char *src, size_t len,
                        const params *p, const scenario_overrides *o, char *err, size_t err_len);
/* Pushes the embedded checker lua/NAME.lua ("scenario", "suite") compiled,
 * once per state; -1 after a message in err. */
int scenario_push_checker(lua_State *L, const char *name, char *err, size_t err_len);
void scenario_free(scenario *s);
/* Zero s and set its path and folder (scenario files and suites alike); 0,
 * or -1 with a message in err when out of memory. */
int scenario_set_path(scenario *s, const char *path, char *err, size_t err_len);
/* Lua helpers for the checkers in lua/: parse_duration(s) -> ns or nil,
 * parse_count(s) -> n or nil. */
int scenario_lua_duration(lua_State *L);
int scenario_lua_count(lua_State *L);
int scenario_total_vus(const scenario *s);
/* FNV-1a (64 bits) over the scenario file's and every group script's bytes
 * and the final plan's run time, budget, VUs and models, as 16 hex digits
 * in s->hash: segments of one run carry the same (luamech merge checks). */
void scenario_hash(scenario *s);
/* The same over src (scenario text from memory) instead of the file. */
void scenario_hash_text(scenario *s, const char *src, size_t len);
/* The run of sc's setup (what = 1) or teardown (2): one worker, one VU of
 * a group "setup" / "teardown" whose script is the scenario file itself;
 * the engine's lifecycle mode (lifecycle != 0, lua/vu.lua) calls the file's
 * function in that VU's init, then one empty transaction.  Free with
 * scenario_lifecycle_free.  0, or -1 when out of memory. */
int scenario_lifecycle(scenario *out, const scenario *sc, int what);
void scenario_lifecycle_free(scenario *s);

#endif
