/* rawlog.h - an optional per-transaction log in multi-mechanize's
 * results.csv line format, for tools that read it.  Each worker appends to
 * its own buffered file (no lock, no syscall per transaction); at the end
 * rawlog_merge sorts all workers' lines by start time and numbers them. */
#ifndef LUAMECH_RAWLOG_H
#define LUAMECH_RAWLOG_H

#include <stdint.h>
#include <stdio.h>

#define RAWLOG_MAX_TIMERS 16

typedef struct rawlog {
    FILE *f;
    char *buf;
} rawlog;

typedef struct rawlog_timer {
    const char *name;
    double seconds;
} rawlog_timer;

/* dir/.mm-<worker>.part; returns 0 or -1. */
int rawlog_open(rawlog *r, const char *dir, int worker);
/* One transaction: start (seconds since t0), wall-clock epoch, group,
 * transaction time (s), error message (NULL when it succeeded), custom timers. */
void rawlog_tx(rawlog *r, double start_s, int64_t epoch, const char *group, double tx_s,
               const char *error, const rawlog_timer *timers, int ntimers);
void rawlog_close(rawlog *r);
/* Merge dir/.mm-*.part into dir/results.csv (sorted by start, numbered from
 * 1) and remove the parts.  Returns the number of lines, or -1. */
long rawlog_merge(const char *dir, int nworkers);

#endif
