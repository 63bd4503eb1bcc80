/* output_priv.h - what the output sinks share: the sink interface that
 * output.c drives, the bounded hand-over queue (outq.c), the JSON lines
 * (output_json.c) and the sinks' constructors. */
#ifndef LUAMECH_OUTPUT_PRIV_H
#define LUAMECH_OUTPUT_PRIV_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "output/output.h"

/* The run as the sinks see it: merged data only. */
typedef struct output_run {
    const scenario *sc;
    const run_result *r;     /* NULL at the start event */
    const char *run_id;
    const char *phase;       /* NULL unless the scenario has phases */
    const char *segments;    /* a merge's segments (a JSON array, output_segments), or NULL */
    report_view *view;       /* the closed interval's verdicts and health (NULL at the start event) */
} output_run;

typedef enum output_ev { OUTPUT_EV_START, OUTPUT_EV_INTERVAL, OUTPUT_EV_END } output_ev;

/* A sink; every call comes from the main thread and must not block.
 * lines: the event as JSON lines (each ending in '\n'), built once for all
 * sinks; interval: the closed interval's index (OUTPUT_EV_INTERVAL). */
typedef struct output_sink {
    const char *name;        /* "json", "prometheus", "dashboard" (messages) */
    void *self;
    void (*on_event)(void *self, const output_run *run, output_ev ev, int interval,
                     const char *lines, size_t len);
    /* Flush within a bounded time, say on stderr what was dropped, free self. */
    void (*close)(void *self);
} output_sink;

int output_json_open(output_sink *s, const output_stream_cfg *c, char *err, size_t err_len);
int output_prom_open(output_sink *s, const output_stream_cfg *c, char *err, size_t err_len);
int output_dash_open(output_sink *s, const output_cfg *c, char *err, size_t err_len);
/* Syntax of a remote-write URL (sink_prom.c): 0 or -1 and a message. */
int output_prom_check_url(const char *url, char *err, size_t err_len);
/* 1 when a --dashboard value binds a loopback address (sink_dash.c). */
int output_dash_is_loopback(const char *spec);

/* ---- outq.c: a bounded queue of byte buffers between two threads ---- */
typedef struct outq_item {
    struct outq_item *next;
    size_t len;
    int64_t weight;          /* what dropping it loses (lines, samples) */
    char data[];
} outq_item;

typedef struct outq {
    uv_mutex_t mu;
    uv_cond_t cv;
    outq_item *head, *tail;
    size_t bytes, max_bytes;
    int closing;             /* no more items: the consumer ends when empty */
    int busy;                /* the consumer holds an item */
    uint64_t progress;       /* items the consumer finished */
    int64_t dropped;         /* weight of the items refused or abandoned */
} outq;

int outq_init(outq *q, size_t max_bytes);
/* Copies data in; a full queue refuses it (its weight is counted as dropped).
 * 0 or -1. */
int outq_push(outq *q, const void *data, size_t len, int64_t weight);
/* The next item (the caller frees it and calls outq_done), waiting for one;
 * NULL once closing and empty. */
outq_item *outq_pop(outq *q);
void outq_done(outq *q);
/* Closing: waits up to wait_ms for the consumer to empty the queue (less
 * when it is stuck: no item done for half a second).  Returns
 * 1 when it did; otherwise the rest is counted as dropped and 0 returned.
 * keep_last: the queued items but the newest are dropped (counted) first,
 * and no stall rule (the consumer's own I/O waits are bounded). */
int outq_close_wait(outq *q, int64_t wait_ms, int keep_last);
int64_t outq_dropped(outq *q);
/* Frees what is left (after the consumer ended). */
void outq_destroy(outq *q);

/* ---- output_json.c: the JSON lines of docs/outputs.md ---- */
/* Appends the event's lines to *buf (realloc'd; *len grows).  0 or -1. */
int output_json_start(char **buf, size_t *len, const output_run *run);
int output_json_interval(char **buf, size_t *len, const output_run *run, int k);
int output_json_end(char **buf, size_t *len, const output_run *run, const char *status, int exit_code);

/* Wall-clock seconds since the epoch of a time in the run (s since t0). */
double output_wall_s(const run_result *r, double t_s);

#endif
