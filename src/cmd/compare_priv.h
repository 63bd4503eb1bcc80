/* compare_priv.h - what the files of `luamech compare` share (compare.c:
 * loading the runs, building and printing the comparison; compare_args.c:
 * the command line and the --fail-if limits).  Private to
 * src/cmd/compare*.c; the public part is compare.h. */
#ifndef LUAMECH_COMPARE_PRIV_H
#define LUAMECH_COMPARE_PRIV_H

#include <jansson.h>
#include <stdio.h>

#include "common/text.h"
#include "cmd/compare.h"
#include "report/summary_read.h"

/* A loaded summary.json. */
typedef struct cmp_run {
    char path[4200];         /* summary.json */
    char dir[4200];          /* its directory */
    json_t *root;
} cmp_run;

/* The views compared (--view): a bit per view index of summary_read.h
 * (0 default, 1 uncorrected, 2 all), and CMP_VIEW_EVERY: every view a run
 * lists. */
#define CMP_VIEW_BIT(v) (1u << (v))
#define CMP_VIEW_EVERY (1u << SUMMARY_VIEWS)

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
    int *timer_view;         /* per --timer: the view its " (VIEW)" suffix names, or -1 */
    size_t *timer_base;      /* ... and the length of the name before that suffix */
    int *timer_exact;        /* ... and a timer of the compared runs is named the whole text:
                              * it means that timer (cmp_resolve_timers) */
    unsigned views;          /* CMP_VIEW_* of --view; default: CMP_VIEW_BIT(0) */
    int views_given;
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
/* Notes, for each --timer with a view suffix, whether a timer of the array
 * timers is named its whole text (then it means that timer, not a view);
 * reset first clears the notes (call it over every run compared). */
void cmp_resolve_timers(cmp_opts *o, json_t *timers, int reset);
/* The views of timer family t that take part (--timer, --view, --all), as
 * CMP_VIEW_* bits; 0 when it does not. */
unsigned cmp_selected(cmp_opts *o, json_t *t);
/* 1 when view v of the family has a row: the default when selected; the
 * uncorrected and every-listed all view when a side (ta, tb; NULL: not in
 * that run) lists it; an explicitly selected all view always (a run that
 * lists none had only successes: its all view is its default), except on
 * an engine timer. */
int cmp_view_row(unsigned views, int v, json_t *ta, json_t *tb);
/* Family t's view v as compared (all: summary_view_eff), or NULL. */
json_t *cmp_side_view(json_t *t, int v);
/* The row's name: the family's, "NAME (uncorrected)", "NAME (all)"; a new
 * JSON string. */
json_t *cmp_label(const char *name, int v);
/* Notes the --timer names that name view v of the family called name. */
void cmp_mark_seen(cmp_opts *o, const char *name, int v);
/* Figure f of a view's summary into *v (label: its row's name, for the
 * message).  0, 1 when it is null (a latency without a sample: no data,
 * not compared), or -1 with a message. */
int cmp_value(const cmp_run *r, const char *label, json_t *view, cmp_fig f, double *v, char *err, size_t err_len);
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
/* --view as a JSON array of names ("default", ..., "every"). */
json_t *cmp_views_json(const cmp_opts *o);
/* " (view: default)", " (views: default, all)": the document's "views". */
void cmp_print_views(FILE *out, json_t *doc);
/* A row's heading: "NAME (KIND)", NAME the label of the entry's name and
 * view. */
void cmp_print_heading(FILE *out, json_t *entry);
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
