/* compare.h - `luamech compare A B`: two runs' summary.json side by side, per
 * timer and view (--view; the default view alone by default), with the change of B against A in percent, and --fail-if limits on
 * those changes for CI (exit 1 when a figure regresses past a limit).
 * `luamech compare A1 A2 ... -- B1 B2 ...` compares two sets of repeated runs:
 * the median of each figure per side and a one-sided Mann-Whitney U test of
 * whether B's runs are worse than A's beyond their own spread.
 *
 * The arithmetic is here as pure functions (unit-tested in
 * tests/unit/test_compare.c); the command reads the files and prints. */
#ifndef LUAMECH_COMPARE_H
#define LUAMECH_COMPARE_H

#include <stddef.h>

#include "stats/figures.h"

/* The figures of a summary row that can be compared: those of the figures
 * table (stats/figures.h) flagged FIG_COMPARE; a cmp_fig is a fig_id. */
typedef fig_id cmp_fig;
#define CMP_RATE FIG_RATE       /* samples/s: lower is worse */
#define CMP_COUNT FIG_COUNT     /* samples: lower is worse */
#define CMP_ERRORS FIG_ERRORS   /* failed samples: higher is worse */
#define CMP_MIN FIG_MIN         /* latencies (ms): higher is worse */
#define CMP_AVG FIG_AVG
#define CMP_P50 FIG_P50
#define CMP_P80 FIG_P80
#define CMP_P90 FIG_P90
#define CMP_P95 FIG_P95
#define CMP_P99 FIG_P99
#define CMP_P999 FIG_P999
#define CMP_MAX FIG_MAX
#define CMP_STDEV FIG_STDEV
#define CMP_NFIGS FIG_N         /* loops over every id test cmp_fig_comparable */

/* 1 when f is a figure compare reads (FIG_COMPARE). */
int cmp_fig_comparable(int f);
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

/* The unit of a figure's absolute values: ms (latencies), /s (rate), or
 * samples (count, errors). */
typedef enum cmp_unit { CMP_UNIT_MS = 0, CMP_UNIT_RATE, CMP_UNIT_COUNT, CMP_NUNITS } cmp_unit;
cmp_unit cmp_fig_unit(cmp_fig f);

/* A --fail-if limit on the change of B against A:
 *   'STAT>PCT%'    in percent: 'p95>10%', 'rate<-5%' (PCT may be signed);
 *   'STAT>+AMOUNT' absolute, in the figure's unit, with its sign: 'p95>+2ms'
 *                  (also us, s), 'rate<-500/s', 'errors>+10', 'count<-1000';
 * '>' for higher-is-worse figures, '<' for lower-is-worse ones, also >= <=;
 * then optionally ',floor=AMOUNT' (unsigned, the figure's unit): changes for
 * the worse smaller than AMOUNT are ignored ('p50>10%,floor=1ms'). */
typedef struct cmp_limit {
    cmp_fig fig;
    char op;            /* '>' or '<' */
    int or_equal;       /* >= or <= */
    int absolute;       /* 1: amount is B - A in the figure's unit; 0: pct */
    double pct;
    double amount;      /* ms, /s or samples */
    double floor;       /* the smallest change for the worse that counts; 0: none */
    int has_floor;      /* floor given (by ,floor= or --floor) */
    char text[96];      /* normalized: "p95>10%", "p95>+2ms", "p50>10%,floor=1ms" */
} cmp_limit;

/* The largest amount (absolute limit or floor) in its unit's base (ms, /s,
 * samples): 1e12, so that the normalised text has at most 15 digits, as the
 * parser requires (25000000000000s is 2.5e16 ms: refused). */
#define CMP_AMOUNT_MAX 1e12

/* Parses s into *l.  Returns 0, or -1 with a message in err: unknown figure,
 * missing or bad operator or number, missing unit ('%', ms, /s), an absolute
 * amount without its sign or above CMP_AMOUNT_MAX, a bad floor, or an
 * operator that points the wrong way for the figure ('p95<10%', 'rate>-5%').
 * l->text, the normalised limit, parses again to the same limit. */
int cmp_limit_parse(const char *s, cmp_limit *l, char *err, size_t err_len);
/* An unsigned amount with a unit: "1ms", "250us", "0.5s" (into ms), "50/s",
 * or a bare number (samples), e.g. --floor's value.  0 with *unit and *v
 * (above 0, at most CMP_AMOUNT_MAX), or -1 with a message. */
int cmp_amount_parse(const char *s, cmp_unit *unit, double *v, char *err, size_t err_len);
/* Sets l's floor (ms, /s or samples) unless it has its own, and its text. */
void cmp_limit_default_floor(cmp_limit *l, double floor);
/* 1 when b against a goes past the limit.  A floor is checked first: a
 * change for the worse smaller than it (or a change for the better) never
 * goes past.  With a zero base (change n/a) a percent limit counts b == a as
 * no change (0 %), b above a as +infinity, below as -infinity (errors 0 -> 3
 * fails 'errors>50%'; rate 0 -> 100 never fails 'rate<-5%'). */
int cmp_limit_exceeded(const cmp_limit *l, double a, double b);

/* ---- sets of runs (compare_stats.c) ---- */

/* The median of v[0..n) (sorted in place); NAN when n is 0. */
double cmp_median(double *v, size_t n);
/* One-sided Mann-Whitney U test that b[0..nb) is worse than a[0..na):
 * the probability, if every split of the pooled values into sides of na and
 * nb were as likely, of a U at least as large as observed (U counts the
 * pairs in which b's value is worse, ties as 1/2; worse is higher when
 * higher_is_worse).  Exact (every split enumerated, ties included) up to
 * 200,000 splits, else the normal approximation with tie and continuity
 * corrections.  NAN when a side is empty. */
double cmp_mwu_p(const double *a, size_t na, const double *b, size_t nb, int higher_is_worse);
/* The smallest p the test can give with sides of na and nb runs:
 * 1 / C(na + nb, na). */
double cmp_mwu_min_p(size_t na, size_t nb);

/* `luamech compare A B [--timer NAME ...] [--view VIEW ...] [--fail-if LIMIT
 * ...] [--floor AMOUNT ...] [--alpha P] [--all] [--json]`, or `A1 A2 ... -- B1 B2 ...`
 * (argv[0] is "compare").  Exit 0 no limit exceeded; 1 a figure regressed
 * past a --fail-if limit (for sets: and significantly); 2 usage error (also:
 * limits on sets too small to ever be significant); 3 a directory or
 * summary.json missing or invalid (the message names the file). */
int compare_cmd_main(int argc, char **argv);

#endif
