/* output.h - live outputs of a run: streams (--stream json=FILE|-, --stream
 * prometheus=URL) and the live dashboard (--dashboard [ADDR:]PORT).  They
 * read the run's merged data (a run_result, at each closed interval and at
 * the end), never the engine or the workers.  Every sink runs on a thread
 * of its own behind a bounded queue: the main thread only builds a batch
 * and hands it over; a slow or stuck reader makes batches drop (counted and
 * reported), never the load slow down.  Formats: docs/outputs.md. */
#ifndef LUAMECH_OUTPUT_H
#define LUAMECH_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

#include "stats/run_result.h"
#include "scenario/scenario.h"
#include "report/view.h"

#define OUTPUT_SCHEMA_VERSION 2      /* the JSON lines' "v" (2: a timer's views nested) */
#define OUTPUT_MAX_STREAMS 8
#define OUTPUT_MAX_LABELS 16

typedef enum output_kind { OUTPUT_JSON = 0, OUTPUT_PROMETHEUS } output_kind;

/* One --stream. */
typedef struct output_stream_cfg {
    output_kind kind;
    char target[1024];                /* json: a path or "-"; prometheus: the URL */
    int64_t push_ns;                  /* prometheus: at most one push per push_ns (0: every interval) */
    int nlabels;
    char labels[OUTPUT_MAX_LABELS][2][128];   /* extra name=value labels */
    char bearer_file[1024];           /* a file holding a bearer token, or "" */
    int native_hist;                  /* prometheus: histograms=native (else classic buckets) */
} output_stream_cfg;

typedef struct output_cfg {
    int nstreams;
    output_stream_cfg streams[OUTPUT_MAX_STREAMS];
    char dashboard[300];              /* "[ADDR:]PORT", or "" */
    int dashboard_linger;             /* stay up after the run until SIGINT/SIGTERM */
    int dashboard_public;             /* a non-loopback address is allowed */
} output_cfg;

/* Syntax of one --stream value / --dashboard value; 0 or -1 and a message
 * (checked before any load: exit 2). */
int output_parse_stream(output_cfg *c, const char *arg, char *err, size_t err_len);
int output_parse_dashboard(output_cfg *c, const char *arg, char *err, size_t err_len);
/* What needs all the flags (a public dashboard address needs
 * --dashboard-public).  0 or -1 and a message. */
int output_check(const output_cfg *c, char *err, size_t err_len);
/* 1 when a stream writes to standard output (the console report then goes
 * to standard error). */
int output_uses_stdout(const output_cfg *c);

typedef struct output_set output_set;

/* Opens every output (files, the dashboard's listening socket) and starts
 * their threads, before any load.  run_id names the run in every output.
 * NULL with a message (a port in use, a file that cannot be created). */
output_set *output_open(const output_cfg *c, const char *run_id, char *err, size_t err_len);
/* One run (a scenario, or one phase of it; phase is its name or NULL). */
void output_run_start(output_set *s, const scenario *sc, const char *phase);
/* An interval closed (the engine's on_interval hook): every interval not
 * yet sent goes out.  v: the closed interval's view (its threshold verdicts
 * and health, evaluated once for every output: report/view.c), or NULL. */
void output_interval(output_set *s, const scenario *sc, const run_result *r, report_view *v);
/* A merge's segments as a JSON array ([{ "index", "state", "vus",
 * "transactions", "errors", "host" }, ...]; luamech merge --follow), carried
 * by the interval events from now on ("segments"); NULL: none. */
void output_segments(output_set *s, const char *json);
/* The run ended (its last interval is closed): the rest and an end event. */
void output_run_end(output_set *s, const scenario *sc, const run_result *r, const char *status, int exit_code);
/* Flushes within a bounded time, reports what was dropped, keeps the
 * dashboard up with --dashboard-linger until SIGINT/SIGTERM, frees s. */
void output_close(output_set *s);

#endif
