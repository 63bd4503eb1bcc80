/* compare.h - `luamech compare A B`: two runs' summary.json side by side, per
 * timer, with the change of B against A in percent, and --fail-if limits on
 * those changes for CI (exit 1 when a figure regresses past a limit).
 *
 * The arithmetic is here as pure functions (unit-tested in
 * tests/unit/test_compare.c); the command reads the files and prints. */
#ifndef LUAMECH_COMPARE_H
#define LUAMECH_COMPARE_H

#include <stddef.h>

/* The figures of a summary row that can be compared. */
typedef enum cmp_fig {
    CMP_RATE = 0,   /* samples/s: lower is worse */
    CMP_COUNT,      /* samples: lower is worse */
    CMP_ERRORS,     /* failed samples: higher is worse */
    CMP_MIN,        /* latencies (ms): higher is worse */
    CMP_AVG,
    CMP_P50,
    CMP_P80,
    CMP_P90,
    CMP_P95,
    CMP_P99,
    CMP_P999,
    CMP_MAX,
    CMP_STDEV,
    CMP_NFIGS
} cmp_fig;

/* "rate", "count", "errors", "min", "avg", "p50", ..., "p99.9", "max", "stdev" */
const char *cmp_fig_name(cmp_fig f);
/* The summary.json field: "rate", "count", "errors", "min_ms", ..., "p99_9_ms" */
const char *cmp_fig_field(cmp_fig f);
/* The figure named by s[0..len) (also "p99_9", "p999"), or -1. */
int cmp_fig_parse(const char *s, size_t len);
/* 1 when a higher value is worse (latencies, errors), 0 when a lower value is
 * worse (rate, count). */
int cmp_fig_higher_is_worse(cmp_fig f);

/* Change of b against a in percent: (b - a) / a * 100, rounded to 1e-6 % so
 * that 1.1 against 1.0 is exactly 10 %.  Returns 0 with *pct set, or -1
 * when a is 0 (the change is "n/a"; never inf or nan). */
int cmp_pct_change(double a, double b, double *pct);
/* "+10.0%", "-5.0%", "0.0%", or "n/a" for a zero base; decimals digits. */
void cmp_fmt_pct(char *buf, size_t len, double a, double b, int decimals);
/* 1 when b is worse than a for that figure (per its direction), else 0. */
int cmp_is_worse(cmp_fig f, double a, double b);

/* A --fail-if limit: 'STAT>PCT%' (higher-is-worse figures) or 'STAT<PCT%'
 * (lower-is-worse figures), also >= and <=; PCT may be signed
 * ('rate<-5%': B's rate more than 5 % below A's). */
typedef struct cmp_limit {
    cmp_fig fig;
    char op;            /* '>' or '<' */
    int or_equal;       /* >= or <= */
    double pct;
    char text[64];      /* normalized: "p95>10%" */
} cmp_limit;

/* Parses s into *l.  Returns 0, or -1 with a message in err: unknown figure,
 * missing or bad operator or number, missing '%', or an operator that points
 * the wrong way for the figure ('p95<10%', 'rate>-5%'). */
int cmp_limit_parse(const char *s, cmp_limit *l, char *err, size_t err_len);
/* 1 when b against a goes past the limit.  With a zero base (change n/a):
 * b == a is no change (0 %), b above a counts as +infinity, below as
 * -infinity (errors 0 -> 3 fails 'errors>50%'; rate 0 -> 100 never fails
 * 'rate<-5%'). */
int cmp_limit_exceeded(const cmp_limit *l, double a, double b);

/* `luamech compare A B [--timer NAME ...] [--fail-if 'STAT>PCT%' ...]
 * [--all] [--json]` (argv[0] is "compare").  Exit 0 no limit exceeded; 1 a
 * figure regressed past a --fail-if limit; 2 usage error; 3 a directory or
 * summary.json missing or invalid (the message names the file). */
int compare_cmd_main(int argc, char **argv);

#endif
