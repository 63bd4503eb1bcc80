/* threshold.h - pass/fail criteria on a run's figures, such as
 * "GET p95 < 5ms", "errors rate < 0.1%", "checks rate > 99.9%",
 * "transactions rate >= 1000/s".  Parsing is pure; evaluation reads an agg. */
#ifndef LUAMECH_THRESHOLD_H
#define LUAMECH_THRESHOLD_H

#include <stddef.h>
#include "stats/agg.h"

typedef enum th_stat {
    TH_MIN, TH_AVG, TH_P50, TH_P80, TH_P90, TH_P95, TH_P99, TH_P999, TH_MAX, TH_STDEV, /* ms */
    TH_COUNT,        /* samples */
    TH_RATE,         /* samples per second */
    TH_ERRORS,       /* failed samples */
    TH_ERROR_RATE,   /* failed / all, percent */
    TH_CHECKS_RATE   /* passed checks / all checks, percent */
} th_stat;

typedef enum th_op { TH_LT, TH_LE, TH_GT, TH_GE, TH_EQ } th_op;

typedef struct threshold {
    char text[256];          /* as written */
    char timer[200];         /* subject timer; "All Transactions" by default */
    th_stat stat;
    th_op op;
    double limit;            /* in the stat's unit: ms, count, per second, percent */
} threshold;

/* Parse one criterion; returns 0, or -1 with the reason in err. */
int threshold_parse(const char *text, threshold *t, char *err, size_t err_len);
/* The measured value over the whole run; *found = 0 when the subject timer
 * does not exist (the threshold then fails). */
double threshold_measure(const threshold *t, const agg *a, double run_s, int *found);
/* 1 when the measured value satisfies the criterion. */
int threshold_passes(const threshold *t, double value);
const char *threshold_unit(const threshold *t);   /* "ms", "/s", "%", "" */

#endif
