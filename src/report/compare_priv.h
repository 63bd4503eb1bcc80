/* compare_priv.h - what the files of `luamech compare` share (compare.c:
 * loading the runs, building and printing the comparison; compare_args.c:
 * the command line and the --fail-if limits).  Private to
 * src/report/compare*.c; the public part is compare.h. */
#ifndef LUAMECH_COMPARE_PRIV_H
#define LUAMECH_COMPARE_PRIV_H

#include <jansson.h>
#include <stdio.h>

#include "common/text.h"
#include "report/compare.h"

/* A loaded summary.json. */
typedef struct cmp_run {
    char path[4200];         /* summary.json */
    char dir[4200];          /* its directory */
    json_t *root;
} cmp_run;

/* The command line, parsed. */
typedef struct cmp_opts {
    const char *a, *b;       /* the first run of each side */
    const char **runs_a, **runs_b;   /* every run of each side (argv strings) */
    int na, nb;
    int sets;                /* more than one run on a side: compare sets */
    double alpha;            /* significance level of the sets' test */
    double floors[CMP_NUNITS];       /* --floor per unit; 0: none */
    const char **timers;     /* --timer names (argv strings) */
    int ntimers;
    int *timer_seen;
    cmp_limit *limits;
    int nlimits;
    int all, json;
    int shown[CMP_NFIGS];
} cmp_opts;

/* cmp_parse_args: the command line is good, go on with the comparison. */
#define CMP_GO_ON (-1)

/* Empty options with the default figures shown, room for argc --timer and
 * --fail-if.  0, or -1 when out of memory; cmp_opts_free either way. */
int cmp_opts_init(cmp_opts *o, int argc);
void cmp_opts_free(cmp_opts *o);
/* argv (argv[0] is "compare") into o.  CMP_GO_ON, or the exit code when the
 * command ends here: 0 after --help, 2 after a usage error (printed). */
int cmp_parse_args(int argc, char **argv, cmp_opts *o);

/* ---- compare.c, shared with compare_sets.c ---- */

/* o's member k (NULL when o is no object or has none); as a string. */
json_t *cmp_get(json_t *o, const char *k);
const char *cmp_str(json_t *o, const char *k);
/* arg (a results directory or a summary.json) into r.  0, or -1 with a
 * message naming the file. */
int cmp_load(cmp_run *r, const char *arg, char *err, size_t err_len);
/* 1 when timer t takes part (--timer, --all). */
int cmp_selected(cmp_opts *o, json_t *t);
/* Notes the --timer names that name this timer. */
void cmp_mark_seen(cmp_opts *o, const char *name);
/* Figure f of timer t's summary into *v.  0, 1 when it is null (a latency
 * without a sample: no data, not compared), or -1 with a message. */
int cmp_value(const cmp_run *r, json_t *t, cmp_fig f, double *v, char *err, size_t err_len);
/* A figure's value as JSON (an integer for count and errors). */
json_t *cmp_num(cmp_fig f, double v);
/* The change of vb against va in percent; null when n/a. */
json_t *cmp_change(double va, double vb);
/* A run's path, scenario, status and run time, as JSON. */
json_t *cmp_run_json(const cmp_run *r);
/* A value and a change, as printed. */
void cmp_fmt_val(char *buf, size_t len, cmp_fig f, json_t *v);
void cmp_fmt_change(char *buf, size_t len, json_t *c, int decimals);
/* "LABEL: PATH (scenario S, STATUS, T s)" */
void cmp_print_run(FILE *out, const char *label, json_t *r);
/* The timers of one side only: "only in A:", "only in B:". */
void cmp_print_timers_only(FILE *out, json_t *timers, const char *indent);
/* Every --timer must name a timer of a run: 0, or 2 naming the first that
 * does not (in a or b, the paths of the first run of each side). */
int cmp_check_timers_seen(const cmp_opts *o, const char *a, const char *b);

/* ---- compare_sets.c ---- */

/* `compare A1 A2 ... -- B1 B2 ...` (o->sets): loads, compares, prints.
 * The exit code. */
int cmp_sets_main(cmp_opts *o);

#endif
