/* merge.c - `luamech merge SEGMENT_DIR... --out DIR`: the results of the
 * N segments of one run (--segment i/N) as one result, as if one machine had
 * run it.  Each segment's summary.json (read as schema 2, summary_load: a
 * timer family per entry, its uncorrected and all views nested; interval
 * rows: counts, errors, cancelled, skipped; counters; error tallies;
 * checks) and histograms.hlog (every timer's histogram of every interval,
 * tagged "NAME", "NAME (uncorrected)", "NAME (all)": the "(all)" views
 * included in a segmented run) become one statistics message per segment and interval,
 * merged by the same lockstep merge that joins a local run's workers
 * (stats/agg.c: a segment is a worker, an interval a tick), so counts add
 * and percentiles come from the added histograms; min and max are the
 * rows' exact ones; intervals align on wall-clock time (start_unix_ns);
 * stage rows come from the groups' schedules; generator health figures
 * each merge by their own rule (merge_health_rows).  A phased run's
 * segments merge phase by phase, then the phases table.  The writers of report/
 * then write summary.json (with a per-segment table), intervals.csv,
 * histograms.hlog, junit.xml and report.html; thresholds are evaluated on
 * the merged data.  It refuses mixed runs unless --allow-partial.  With
 * --follow it merges again every second while the segments run (from the
 * files they rewrite at each interval).  It does not run load or Lua.
 * Segment files are input from elsewhere: every number read is checked
 * before it is converted or sized (merge_check_seg), a histograms.hlog must
 * match its summary.json count for count, segments must agree on their
 * interval, --out may not be a segment or inside one, and phase directories
 * are named from the phase names as a run names them; anything else is
 * refused with one message naming the file (exit 2).  Segments are merged
 * interval by interval (each segment's log is kept as its lines' text and
 * decoded when its interval is merged), so memory is the trees of the
 * summary.json files (their rows cut to the fields read once checked) plus
 * one interval's histograms. */
#include "cmd/merge.h"

#include <errno.h>
#include <getopt.h>
#include <glob.h>
#include <limits.h>
#include <jansson.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/exit_codes.h"
#include "common/text.h"
#include "html/html.h"
#include "output/output.h"
#include "report/hlog.h"
#include "report/console.h"
#include "report/results.h"
#include "report/stop.h"
#include "report/view.h"
#include "report/summary_read.h"
#include "stats/threshold.h"
#include "stats/agg.h"
#include "stats/local.h"

#define MERGE_MAX_SEGMENTS 100000
/* Limits on what a segment's files say (docs/distributed.md, "merge"). */
#define MERGE_MAX_INTERVALS 1000000      /* merged intervals, from the earliest start to the latest end */
#define MERGE_MAX_COUNT 1e12             /* a count of one interval row (transactions, errors, a counter) */
#define MERGE_MAX_SUM 9e13               /* a column's sum over a segment: 100,000 segments stay below 2^63 */
#define MERGE_MAX_MS 1e9                 /* a latency figure, in ms */
#define MERGE_MAX_S 1e8                  /* a duration, in s (over 3 years) */
#define MERGE_MAX_GAP_S 3600             /* a segment's start after the earliest, beyond the run's length */

/* One histogram line of the segment's log: a timer's, one interval, kept as
 * written (its base64 text) and decoded when its interval is merged. */
typedef struct merge_hist {
    char *tag;                 /* unescaped timer name; the base64 text follows it in the same block */
    const char *b64;
    size_t b64_len;
    int64_t interval;
    int64_t total;             /* its samples */
    int64_t max_us;            /* Interval_Max as the decoder takes it, or -1 */
    int matched;               /* merge_check_log found its row in summary.json */
} merge_hist;

typedef struct merge_seg {
    const char *dir;
    json_t *root;              /* its summary.json */
    int index, count;
    int64_t nintervals;
    double interval_s;
    merge_hist *hists;         /* sorted by tag, then interval (merge_find_hist) */
    size_t nhists, cap;
    int running;               /* its status is "running": its log may be ahead of its summary.json */
    char *err;                 /* where merge_on_line says why it stops */
    size_t err_len;
    int64_t t0_ns;             /* its t0, wall clock (start_unix_ns) */
    int64_t delay_ns;          /* t0_ns after the earliest segment's */
    int64_t shift;             /* its interval k is the merged interval k + shift */
    int64_t misaligned_ns;     /* its intervals' starts minus the merged ones' */
    const char *state;         /* --follow: "running", "done" or "lost" (silent while running); NULL otherwise */
} merge_seg;

typedef struct merge_opts {
    const char *out;
    int allow_partial;
    int verbose;               /* --verbose: the full end report, as `run --verbose` */
    int follow;                /* --follow: merge again every second until every segment ended */
    int live;                  /* this round is a live one: status "running", a progress line */
    const char **all;          /* --follow: every segment directory given (stop requests go to each) */
    int nall;
    char stop_reason[600];     /* --follow: the central verdict that stopped the segments, once given */
    int tty;                   /* --follow: stderr is a terminal (a progress line every round, else per interval) */
    int nwaiting;              /* --follow: segments given whose results are not there yet (preflight, barrier) */
    int progress_at;           /* --follow: merged intervals at the last progress line */
    output_cfg outcfg;         /* --follow --dashboard: the live page of the merged run */
    output_set *outs;          /* opened by merge_follow, or NULL */
    int outs_started;          /* its start event was sent */
    int phase;                 /* merging phase phase - 1 of a phased run; 0: an unphased run */
    int interrupted;           /* --follow stopped by a signal: the final merge is "interrupted", exit 5 */
    int nsegs;
    merge_seg *segs;
} merge_opts;

/* A refused input (a segment's file, the set, --out): one message, no
 * usage line (the command line was right), exit 2 as a usage error's. */
static int merge_refuse(const char *fmt, const char *arg) {
    fputs("luamech merge: ", stderr);
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    return EXIT_USAGE;
}

static int merge_usage(const char *fmt, const char *arg) {
    return text_usage_error("luamech merge", fmt, arg,
                            "usage: luamech merge SEGMENT_DIR... --out DIR [--allow-partial] [--verbose] [--follow [--dashboard [ADDR:]PORT]]");
}

static json_t *merge_get(json_t *o, const char *k) { return json_is_object(o) ? json_object_get(o, k) : NULL; }
static double merge_num(json_t *o, const char *k) { return json_number_value(merge_get(o, k)); }
static const char *merge_str(json_t *o, const char *k) {
    const char *s = json_string_value(merge_get(o, k));
    return s ? s : "";
}

/* An RFC 3339 time of summary.json ("start", "finish") in s since the
 * epoch; 0 when it is not one from 2001 to 2099. */
static int64_t merge_parse_time(const char *s) {
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    if (!strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm) || tm.tm_year < 101 || tm.tm_year > 199) return 0;
    return (int64_t)timegm(&tm);
}

/* The name of view `view` of the family called name as the log and the
 * merged statistics know it: name itself for the default view (NULL),
 * "NAME (uncorrected)", "NAME (all)".  malloc'd; NULL when out of memory. */
static char *merge_label(const char *name, const char *view) {
    size_t len = strlen(name) + (view ? strlen(view) + 4 : 0) + 1;
    char *l = malloc(len);
    if (l && view) snprintf(l, len, "%s (%s)", name, view);
    else if (l) snprintf(l, len, "%s", name);
    return l;
}

/* ---- reading a segment ---- */

/* A number of a segment's summary.json, checked before anything converts
 * it: absent or null is 0; else a finite number within [lo, hi], a whole
 * one when whole is set.  0, or -1 with a message naming the file and the
 * field (where: its path in the file, e.g. "timers[2].intervals[7]"). */
static int merge_chk_val(json_t *v, double lo, double hi, int whole, const char *file, const char *where,
                         const char *k, char *err, size_t len) {
    if (!v || json_is_null(v)) return 0;
    double x = json_number_value(v);
    if (json_is_number(v) && isfinite(x) && x >= lo && x <= hi && (!whole || x == floor(x))) return 0;
    char num[64], *text = json_is_number(v) ? NULL : json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    snprintf(num, sizeof num, "%.10g", x);
    snprintf(err, len, "%s: %s%s%s = %.40s: expected a %s from %.15g to %.15g", file, where, *where && k ? "." : "",
             k ? k : "", text ? text : num, whole ? "whole number" : "number", lo, hi);
    free(text);
    return -1;
}

static int merge_chk(json_t *o, const char *k, double lo, double hi, int whole, const char *file, const char *where,
                     char *err, size_t len) {
    return merge_chk_val(merge_get(o, k), lo, hi, whole, file, where, k, err, len);
}

/* An interval row's figures (timers[].intervals[k]): those of the figures
 * table that summary.json carries; counts are whole and summed (sums[fig]),
 * latencies within MERGE_MAX_MS (null: no data). */
static int merge_chk_row(json_t *row, double sums[FIG_N], const char *file, const char *where, char *err, size_t len) {
    if (row && !json_is_object(row)) return snprintf(err, len, "%s: %s: not an object", file, where), -1;
    for (int i = 0; i < FIG_N; i++) {
        const figure *f = figure_get((fig_id)i);
        if (!(f->outputs & FIG_OUT_SUMMARY) || (f->unit != FIG_UNIT_COUNT && f->unit != FIG_UNIT_MS)) continue;
        int count = f->unit == FIG_UNIT_COUNT;
        if (merge_chk(row, f->key, 0, count ? MERGE_MAX_COUNT : MERGE_MAX_MS, count, file, where, err, len) != 0)
            return -1;
        if (count) sums[i] += merge_num(row, f->key);
    }
    return 0;
}

/* The rows of an "intervals" array: per-row checks, and the column sums
 * within MERGE_MAX_SUM.  kind 0: timer rows; 1: counter or gauge values;
 * 2: rate rows [true, false]. */
static int merge_chk_rows(json_t *arr, int kind, const char *file, const char *what, char *err, size_t len) {
    double sums[FIG_N] = {0};
    char where[400];
    json_t *row;
    size_t k;
    json_array_foreach(arr, k, row) {
        snprintf(where, sizeof where, "%s.intervals[%zu]", what, k);
        if (kind == 0 && merge_chk_row(row, sums, file, where, err, len) != 0) return -1;
        for (int c = 0; kind > 0 && c < (kind == 2 ? 2 : 1); c++) {
            json_t *v = kind == 2 ? json_array_get(row, (size_t)c) : row;
            if (kind == 2) snprintf(where, sizeof where, "%s.intervals[%zu][%d]", what, k, c);
            if (merge_chk_val(v, kind == 2 ? 0 : -MERGE_MAX_COUNT, MERGE_MAX_COUNT, 1, file, where, NULL, err, len))
                return -1;
            sums[c] += fabs(json_number_value(v));
        }
    }
    for (int i = 0; i < FIG_N; i++)
        if (sums[i] > MERGE_MAX_SUM)
            return snprintf(err, len, "%s: %s: the intervals add up to %.3g, more than %.0e", file, what, sums[i],
                            MERGE_MAX_SUM), -1;
    return 0;
}

/* Every figure of an array's elements (name: the array, fields: their
 * whole-number fields, within [0, hi]). */
static int merge_chk_list(json_t *root, const char *name, const char *const *fields, int nf, double hi, int rows,
                          const char *file, char *err, size_t len) {
    json_t *e;
    size_t i;
    char where[300];
    json_t *arr = merge_get(root, name);
    if (arr && !json_is_array(arr)) return snprintf(err, len, "%s: %s: not an array", file, name), -1;
    json_array_foreach(arr, i, e) {
        snprintf(where, sizeof where, "%s[%zu]", name, i);
        if (!json_is_object(e)) return snprintf(err, len, "%s: %s: not an object", file, where), -1;
        for (int f = 0; f < nf; f++)
            if (merge_chk(e, fields[f], 0, hi, 1, file, where, err, len) != 0) return -1;
        if (rows >= 0 && merge_chk_rows(merge_get(e, "intervals"), rows, file, where, err, len) != 0) return -1;
    }
    return 0;
}

/* The exit codes a run that wrote its results ends with (-1: still
 * running), as docs/results.md lists them. */
static int merge_exit_valid(json_t *v) {
    if (!json_is_integer(v)) return 0;
    json_int_t c = json_integer_value(v);
    return c == -1 || c == EXIT_OK || (c >= EXIT_PREFLIGHT && c <= EXIT_SCRIPT_ABORT);
}

/* Every number of summary.json the merge converts, and the settings it
 * needs, before anything is sized or converted from them. */
static int merge_check_seg(merge_seg *s, const char *file, char *err, size_t len) {
    json_t *root = s->root, *set = merge_get(root, "settings"), *seg = merge_get(root, "segment"), *g, *st;
    size_t i, k;
    static const char *const set_s[] = {"run_time_s", "rampup_s", "graceful_stop_s"};
    static const char *const tally_f[] = {"count"}, *const check_f[] = {"passes", "fails"};
    static const char *const statuses[] = {"completed", "interrupted", "aborted", "stuck", "running"};
    const char *status = merge_str(root, "status");
    int known = 0;
    for (int j = 0; j < 5; j++) known |= strcmp(status, statuses[j]) == 0;
    if (!known) return snprintf(err, len, "%s: status \"%.40s\" is not a run's status", file, status), -1;
    s->running = strcmp(status, "running") == 0;
    if (!merge_exit_valid(merge_get(root, "exit_code"))) {
        char *text = json_dumps(merge_get(root, "exit_code"), JSON_ENCODE_ANY);
        snprintf(err, len, "%s: exit_code %.40s is not an exit code a run writes (-1, 0, 4 to 8)", file,
                 text ? text : "(none)");
        free(text);
        return -1;
    }
    if (merge_chk(seg, "requests_whole", 0, 1e15, 1, file, "segment", err, len) != 0) return -1;
    if (!json_is_number(merge_get(set, "interval_s")) || merge_num(set, "interval_s") <= 0)
        return snprintf(err, len, "%s: settings.interval_s: expected the statistics interval in seconds", file), -1;
    if (merge_chk(set, "interval_s", 0.001, 86400, 0, file, "settings", err, len) != 0) return -1;
    s->interval_s = merge_num(set, "interval_s");
    for (int j = 0; j < 3; j++)
        if (merge_chk(set, set_s[j], 0, MERGE_MAX_S, 0, file, "settings", err, len) != 0) return -1;
    if (merge_chk(set, "max_timers", 0, 1e7, 1, file, "settings", err, len) != 0 ||
        merge_chk(set, "workers", 0, 10000, 1, file, "settings", err, len) != 0 ||
        merge_chk(root, "run_time_s", 0, MERGE_MAX_S, 0, file, "", err, len) != 0 ||
        merge_chk(root, "span_s", 0, MERGE_MAX_S, 0, file, "", err, len) != 0 ||
        merge_chk(root, "seed", 0, 1.8e19, 1, file, "", err, len) != 0)
        return -1;
    json_t *ns = merge_get(root, "start_unix_ns");
    if (ns && !(json_is_integer(ns) && json_integer_value(ns) >= 1000000000000000000LL &&
                json_integer_value(ns) < 4102444800000000000LL))
        return snprintf(err, len, "%s: start_unix_ns: expected the start in ns since the epoch, from 2001 to 2099", file),
               -1;
    s->t0_ns = ns ? (int64_t)json_integer_value(ns) : 0;
    json_array_foreach(merge_get(root, "groups"), i, g) {
        char where[300];
        snprintf(where, sizeof where, "groups[%zu]", i);
        if (merge_chk(g, "vus", 0, 1e9, 1, file, where, err, len) != 0) return -1;
        snprintf(where, sizeof where, "groups[%zu].schedule", i);
        if (merge_chk(merge_get(g, "schedule"), "start", -1e12, 1e12, 0, file, where, err, len) != 0) return -1;
        json_array_foreach(merge_get(merge_get(g, "schedule"), "stages"), k, st) {
            snprintf(where, sizeof where, "groups[%zu].schedule.stages[%zu]", i, k);
            if (merge_chk(st, "duration_ns", 0, 1e18, 1, file, where, err, len) != 0 ||
                merge_chk(st, "target", 0, 1e12, 0, file, where, err, len) != 0)
                return -1;
        }
    }
    json_t *t;
    json_array_foreach(merge_get(root, "timers"), i, t) {          /* its totals: the segments table */
        for (int v = 0; v < SUMMARY_VIEWS; v++) {
            json_t *view = summary_view(t, v ? summary_view_name(v) : NULL);
            char where[300];
            if (!view) continue;
            if (v) snprintf(where, sizeof where, "timers[%zu].views.%s", i, summary_view_name(v));
            else snprintf(where, sizeof where, "timers[%zu]", i);
            if (v && merge_chk_rows(merge_get(view, "intervals"), 0, file, where, err, len) != 0) return -1;
            snprintf(where + strlen(where), sizeof where - strlen(where), ".summary");
            if (merge_chk(merge_get(view, "summary"), "count", 0, 1e18, 1, file, where, err, len) != 0 ||
                merge_chk(merge_get(view, "summary"), "errors", 0, 1e18, 1, file, where, err, len) != 0)
                return -1;
        }
    }
    static const char *const timer_f[] = {"stage"};
    if (merge_chk_list(root, "timers", timer_f, 1, 1000, 0, file, err, len) != 0 ||
        merge_chk_list(root, "counters", NULL, 0, 0, 1, file, err, len) != 0 ||
        merge_chk_list(root, "gauges", NULL, 0, 0, 1, file, err, len) != 0 ||
        merge_chk_list(root, "rates", NULL, 0, 0, 2, file, err, len) != 0 ||
        merge_chk_list(root, "checks", check_f, 2, MERGE_MAX_SUM, -1, file, err, len) != 0 ||
        merge_chk_list(root, "errors", tally_f, 1, MERGE_MAX_SUM, -1, file, err, len) != 0 ||
        merge_chk_list(root, "request_errors", tally_f, 1, MERGE_MAX_SUM, -1, file, err, len) != 0)
        return -1;
    return 0;
}

/* Interval_Max as hlog_read_stream gives it to the decoder. */
static int64_t merge_line_max(double max) { return max >= 0 && max < 9e15 && max == floor(max) ? (int64_t)max : -1; }

static int merge_on_line(void *ctx, const char *tag, double start_s, double len_s, double max_us, const hist *h,
                         const char *b64, size_t b64_len) {
    merge_seg *s = ctx;
    (void)len_s;
    double k = start_s / s->interval_s;             /* interval_s is checked: within [0.001, 86400] */
    if (!isfinite(k) || k < -0.5 || k >= (double)MERGE_MAX_INTERVALS)
        return snprintf(s->err, s->err_len, "%s/" HLOG_FILE ": a line starts at %.6g s: not an interval of the run",
                        s->dir, start_s), -1;
    int64_t interval = llround(k);
    if (interval >= s->nintervals) {
        if (s->running) return 0;                   /* ahead of the summary.json of a running segment */
        return snprintf(s->err, s->err_len, "%s/" HLOG_FILE " does not match %s/summary.json: a line of interval "
                        "%lld, which has %lld (a log from another run?)", s->dir, s->dir, (long long)interval + 1,
                        (long long)s->nintervals), -1;
    }
    if (s->nhists == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        merge_hist *m = realloc(s->hists, cap * sizeof *m);
        if (!m) return snprintf(s->err, s->err_len, "out of memory"), -1;
        s->hists = m;
        s->cap = cap;
    }
    merge_hist *m = &s->hists[s->nhists];
    size_t tl = strlen(tag);
    m->tag = malloc(tl + 1 + b64_len + 1);
    if (!m->tag) return snprintf(s->err, s->err_len, "out of memory"), -1;
    memcpy(m->tag, tag, tl + 1);
    hlog_tag_unescape(m->tag);
    memcpy(m->tag + tl + 1, b64, b64_len);
    m->tag[tl + 1 + b64_len] = 0;
    m->b64 = m->tag + tl + 1;
    m->b64_len = b64_len;
    m->interval = interval;
    m->total = h->total;
    m->max_us = merge_line_max(max_us);
    m->matched = 0;
    s->nhists++;
    return 0;
}

static int merge_hist_cmp(const void *a, const void *b) {
    const merge_hist *x = a, *y = b;
    int c = strcmp(x->tag, y->tag);
    return c ? c : (x->interval > y->interval) - (x->interval < y->interval);
}

static const merge_hist *merge_find_line(const merge_seg *s, const char *name, int64_t k) {
    merge_hist key = {.tag = (char *)name, .interval = k};
    return s->nhists ? bsearch(&key, s->hists, s->nhists, sizeof key, merge_hist_cmp) : NULL;
}

/* The histogram of timer name in interval k, decoded from its log line (a
 * new one, the caller frees it with hist_free and free), or NULL when the
 * log has none (or out of memory: the merge then fails). */
static hist *merge_find_hist(const merge_seg *s, const char *name, int64_t k, int *oom) {
    const merge_hist *m = merge_find_line(s, name, k);
    if (!m) return NULL;
    hist *h = malloc(sizeof *h);
    char derr[256];
    if (h) hist_init(h);
    if (!h || hlog_decode_base64(m->b64, m->b64_len, m->max_us, h, derr, sizeof derr) != 0) {
        if (h) hist_free(h);                        /* decoded once already: only memory can fail */
        free(h);
        *oom = 1;
        return NULL;
    }
    return h;
}

/* A log line without a row in summary.json: empty, or the "(all)" view a
 * run leaves out of summary.json because it is its timer's default (no
 * failed, cancelled or skipped sample), with as many samples as the
 * default's row.  Its timer is found by data: the family without an "all"
 * view whose "NAME (all)" is the line's tag. */
static int merge_check_twin_line(const merge_seg *s, json_t *no_all, const merge_hist *m, char *err, size_t len) {
    if (m->total == 0) return 0;
    size_t tl = strlen(m->tag), sl = strlen(" (all)");
    json_t *t = tl > sl && strcmp(m->tag + tl - sl, " (all)") == 0 ? json_object_getn(no_all, m->tag, tl - sl) : NULL;
    if (t) {
        json_t *row = json_array_get(merge_get(t, "intervals"), (size_t)m->interval);
        int64_t want = (int64_t)(merge_num(row, FIG_KEY(COUNT)) + merge_num(row, FIG_KEY(CANCELLED)) +
                                 merge_num(row, FIG_KEY(SKIPPED)));
        if (row && m->total == want) return 0;
    }
    return snprintf(err, len, "%s/" HLOG_FILE " does not match %s/summary.json: timer \"%.200s\", interval %lld: "
                    "%lld sample(s) in the log, none in summary.json (a log from another run?)", s->dir, s->dir, m->tag,
                    (long long)m->interval + 1, (long long)m->total), -1;
}

/* One view's rows against the log lines tagged label: as many samples in
 * the log as the row says (successes; all samples for a view over all
 * samples).  0, -1 with a message, or -2 when out of memory. */
static int merge_check_view_log(merge_seg *s, json_t *view, const char *label, char *err, size_t len) {
    json_t *row;
    size_t k;
    int all = strcmp(merge_str(view, "latency_over"), "all samples") == 0;
    json_array_foreach(merge_get(view, "intervals"), k, row) {
        merge_hist *m = (merge_hist *)merge_find_line(s, label, (int64_t)k);
        int64_t want = (int64_t)merge_num(row, FIG_KEY(COUNT)) - (all ? 0 : (int64_t)merge_num(row, FIG_KEY(ERRORS)));
        int64_t got = m ? m->total : 0;
        if (m) m->matched = 1;
        if (got != want)
            return snprintf(err, len, "%s/" HLOG_FILE " does not match %s/summary.json: timer \"%.200s\", "
                            "interval %zu: %lld sample(s) in the log, %lld in summary.json (a log from another "
                            "run?)", s->dir, s->dir, label, k + 1, (long long)got, (long long)want), -1;
    }
    return 0;
}

/* The log against summary.json: each line once, and for every timer, view
 * and interval as many samples in the log as the row says.  A log from
 * another run, or cut short, is refused: its percentiles would not be
 * those of the counts. */
static int merge_check_log(merge_seg *s, char *err, size_t len) {
    if (s->nhists > 1) qsort(s->hists, s->nhists, sizeof *s->hists, merge_hist_cmp);
    for (size_t i = 1; i < s->nhists; i++)
        if (merge_hist_cmp(&s->hists[i - 1], &s->hists[i]) == 0)
            return snprintf(err, len, "%s/" HLOG_FILE ": timer \"%.200s\" has two lines for interval %lld", s->dir,
                            s->hists[i].tag, (long long)s->hists[i].interval + 1), -1;
    json_t *t;
    size_t i;
    json_array_foreach(merge_get(s->root, "timers"), i, t) {
        for (int v = 0; v < SUMMARY_VIEWS; v++) {
            const char *vn = v ? summary_view_name(v) : NULL;
            json_t *view = summary_view(t, vn);
            char *label = view ? merge_label(merge_str(t, "name"), vn) : NULL;
            if (view && !label) return snprintf(err, len, "out of memory"), -1;
            int rc = view ? merge_check_view_log(s, view, label, err, len) : 0;
            free(label);
            if (rc != 0) return -1;
        }
    }
    json_t *no_all = json_object();              /* the families without an "all" view, by name */
    if (!no_all) return snprintf(err, len, "out of memory"), -1;
    json_array_foreach(merge_get(s->root, "timers"), i, t) {
        const char *name = merge_str(t, "name");
        if (!summary_view(t, "all") && strcmp(merge_str(t, "latency_over"), "all samples") != 0 &&
            !json_object_get(no_all, name) && json_object_set(no_all, name, t) != 0) {
            json_decref(no_all);
            return snprintf(err, len, "out of memory"), -1;
        }
    }
    int rc = 0;
    for (size_t j = 0; j < s->nhists && rc == 0; j++)
        if (!s->hists[j].matched && merge_check_twin_line(s, no_all, &s->hists[j], err, len) != 0) rc = -1;
    json_decref(no_all);
    return rc;
}

/* Once checked, each interval row of a timer (and of its views) keeps only
 * what the merge reads from it (merge_timer_into): a row of summary.json
 * has 16 fields, and the rows are most of the tree, so the next segment's
 * tree is loaded beside a third of this one's.  An engine timer keeps its
 * rows whole (merge_health_rows reads their percentiles).  0, or -1. */
static int merge_shrink_rows(json_t *rows) {
    static const fig_id keep[] = {FIG_ERRORS, FIG_CANCELLED, FIG_SKIPPED, FIG_MIN, FIG_MAX};
    json_t *row;
    size_t k;
    json_array_foreach(rows, k, row) {
        json_t *small = json_object();
        if (!small) return -1;
        for (int f = 0; f < 5; f++) {
            const char *key = figure_get(keep[f])->key;
            if (merge_get(row, key) && json_object_set(small, key, merge_get(row, key)) != 0) {
                json_decref(small);
                return -1;
            }
        }
        if (json_array_set_new(rows, k, small) != 0) return -1;
    }
    return 0;
}

/* Every timer's and view's rows shrunk (merge_shrink_rows).  0, or -1. */
static int merge_shrink(merge_seg *s) {
    json_t *t;
    size_t i;
    json_array_foreach(merge_get(s->root, "timers"), i, t) {
        if (strcmp(merge_str(t, "kind"), "engine") == 0) continue;
        for (int v = 0; v < SUMMARY_VIEWS; v++) {      /* every view's rows */
            json_t *view = summary_view(t, v ? summary_view_name(v) : NULL);
            if (view && merge_shrink_rows(merge_get(view, "intervals")) != 0) return -1;
        }
    }
    return 0;
}

static int merge_read_seg(merge_seg *s, char *err, size_t len) {
    char path[4200], nerr[512];
    snprintf(path, sizeof path, "%s/summary.json", s->dir);
    if (!s->root) {                                 /* merge_once may have read it */
        s->root = summary_load(path, err, len);     /* schema 1 or 2, read as 2 */
        if (!s->root) return -1;
    } else if (summary_normalise(s->root, nerr, sizeof nerr) != 0) {
        return snprintf(err, len, "%s: %s", path, nerr), -1;
    }
    if (merge_get(s->root, "phases_run")) {
        snprintf(err, len, "%s: a phased run's directory among another run's (give every segment's top directory)",
                 path);
        return -1;
    }
    json_t *seg = merge_get(s->root, "segment");
    if (!json_is_object(seg))
        return snprintf(err, len, "%s: not the result of a segment (no \"segment\" in summary.json: run with "
                        "--segment)", path), -1;
    if (merge_chk(seg, "index", 1, MERGE_MAX_SEGMENTS, 1, path, "segment", err, len) != 0 ||
        merge_chk(seg, "count", 1, MERGE_MAX_SEGMENTS, 1, path, "segment", err, len) != 0)
        return -1;
    if (merge_num(seg, "index") < 1 || merge_num(seg, "index") > merge_num(seg, "count"))
        return snprintf(err, len, "%s: not the result of a segment (segment %g of %g)", path, merge_num(seg, "index"),
                        merge_num(seg, "count")), -1;
    s->index = (int)merge_num(seg, "index");
    s->count = (int)merge_num(seg, "count");
    if (merge_check_seg(s, path, err, len) != 0) return -1;
    if (!s->t0_ns) s->t0_ns = merge_parse_time(merge_str(s->root, "start")) * 1000000000;
    if (!s->t0_ns) return snprintf(err, len, "%s: no start time (start_unix_ns or start)", path), -1;
    json_t *t;
    size_t i;
    json_array_foreach(merge_get(s->root, "timers"), i, t) {
        for (int v = 0; v < SUMMARY_VIEWS; v++) {
            int64_t n = (int64_t)json_array_size(merge_get(summary_view(t, v ? summary_view_name(v) : NULL),
                                                           "intervals"));
            if (n > s->nintervals) s->nintervals = n;
        }
    }
    if (s->nintervals > MERGE_MAX_INTERVALS)
        return snprintf(err, len, "%s: %lld intervals, more than a merge takes (%d)", path, (long long)s->nintervals,
                        MERGE_MAX_INTERVALS), -1;
    snprintf(path, sizeof path, "%s/" HLOG_FILE, s->dir);
    char herr[512];
    herr[0] = 0;
    s->err = err;
    s->err_len = len;
    err[0] = 0;
    if (hlog_read_raw(path, merge_on_line, s, herr, sizeof herr) != 0) {
        if (!err[0]) snprintf(err, len, "%s", herr);
        return -1;
    }
    if (merge_check_log(s, err, len) != 0) return -1;
    return merge_shrink(s) == 0 ? 0 : (snprintf(err, len, "out of memory"), -1);
}

/* The segments' starts against each other: a segment that started later
 * than the run's length plus MERGE_MAX_GAP_S after the earliest one is not
 * a part of the same run (its clock, or its start_unix_ns, is wrong), and
 * the merged intervals stay within MERGE_MAX_INTERVALS. */
static int merge_check_span(const merge_opts *o, char *err, size_t len) {
    const merge_seg *first = &o->segs[0];
    double run_s = 0;
    for (int i = 0; i < o->nsegs; i++) {
        const merge_seg *s = &o->segs[i];
        json_t *set = merge_get(s->root, "settings");
        double planned = merge_num(set, "run_time_s") + merge_num(set, "rampup_s") + merge_num(set, "graceful_stop_s");
        run_s = fmax(run_s, fmax(planned, merge_num(s->root, "span_s")));
        if (s->t0_ns < first->t0_ns) first = s;
    }
    for (int i = 0; i < o->nsegs; i++) {
        const merge_seg *s = &o->segs[i];
        double late_s = (double)(s->t0_ns - first->t0_ns) / 1e9;
        double span = late_s / s->interval_s + (double)s->nintervals;
        if (late_s > run_s + MERGE_MAX_GAP_S || span > MERGE_MAX_INTERVALS)
            return snprintf(err, len, "%s/summary.json: segment %d started %.0f s after segment %d (%s): more than "
                            "the run's length (%.0f s) plus %d s, or more than %d merged intervals: not a part of the "
                            "same run (check start_unix_ns and the clocks)", s->dir, s->index, late_s, first->index,
                            first->dir, run_s, MERGE_MAX_GAP_S, MERGE_MAX_INTERVALS), -1;
    }
    return 0;
}

/* Same scenario, seed, segment count and interval; each segment once; all there
 * unless allow_partial (then *missing lists the absent ones). */
static int merge_check_set(const merge_opts *o, json_t *missing, char *err, size_t len) {
    const merge_seg *a = &o->segs[0];
    int N = a->count;
    char *seen = calloc((size_t)N + 1, 1);
    if (!seen) return snprintf(err, len, "out of memory"), -1;
    for (int i = 0; i < o->nsegs; i++) {
        const merge_seg *s = &o->segs[i];
        const char *why = s->count != N ? "segment count" : strcmp(merge_str(s->root, "scenario_hash"),
                          merge_str(a->root, "scenario_hash")) ? "scenario (scenario_hash)"
                          : merge_num(s->root, "seed") != merge_num(a->root, "seed") ? "seed"
                          : merge_num(s->root, "schema_version") != merge_num(a->root, "schema_version") ? "schema"
                          : s->interval_s != a->interval_s ? "statistics interval (settings.interval_s)"
                          : NULL;
        if (why) {
            snprintf(err, len, "%s/summary.json and %s/summary.json are not parts of one run: different %s (segment "
                     "%d/%d vs %d/%d)",
                     a->dir, s->dir, why, a->index, a->count, s->index, s->count);
            free(seen);
            return -1;
        }
        if (seen[s->index]) {
            snprintf(err, len, "segment %d/%d given twice (%s)", s->index, N, s->dir);
            free(seen);
            return -1;
        }
        seen[s->index] = 1;
    }
    if (merge_check_span(o, err, len) != 0) {
        free(seen);
        return -1;
    }
    char list[512] = "";
    int nmissing = 0;
    for (int k = 1; k <= N; k++) {
        if (seen[k]) continue;
        json_array_append_new(missing, json_integer(k));
        if (nmissing++ < 20) snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d", nmissing > 1 ? ", " : "", k);
    }
    free(seen);
    if (nmissing && !o->allow_partial) {
        snprintf(err, len, "segment(s) %s%s of %d missing (give every segment's directory, or --allow-partial)", list,
                 nmissing > 20 ? ", ..." : "", N);
        return -1;
    }
    if (nmissing && !o->live) fprintf(stderr, "luamech merge: --allow-partial: segment(s) %s of %d missing\n", list, N);
    return 0;
}

/* ---- a segment as statistics messages: one per interval ---- */

static timer_kind merge_kind(const char *name) {
    for (int k = TK_ALL; k <= TK_STAGE; k++)
        if (strcmp(timer_kind_name((timer_kind)k), name) == 0) return (timer_kind)k;
    return TK_CUSTOM;
}

/* A series' role: an uncorrected view is a twin (from the data: the view
 * it is), the "(other ...)" buckets are the cap's. */
static timer_role merge_role(const char *name, int twin) {
    if (twin) return TR_TWIN;
    if (strcmp(name, STATS_OTHER_CUSTOM) == 0 || strcmp(name, STATS_OTHER_PRIMITIVE) == 0) return TR_OTHER;
    return TR_NAMED;
}

/* The failed, cancelled and skipped samples of an interval: the "(all)"
 * twin's histogram less the successes' (bucket by bucket), with its total,
 * range and bounds (to the bucket; merge_exact_minmax makes them exact). */
static hist *merge_nok(const hist *all, const hist *ok, int64_t failed) {
    if (!all || all->total <= (ok ? ok->total : 0)) return NULL;
    hist *n = malloc(sizeof *n);
    if (!n) return NULL;
    hist_init(n);
    for (int32_t i = all->lo_idx; i <= all->hi_idx; i++) {
        int64_t c = hist_count_at(all, i) - (ok ? hist_count_at(ok, i) : 0);
        if (c <= 0) continue;
        if (hist_add_at_index(n, i, c) != 0) {
            hist_free(n);
            free(n);
            return NULL;
        }
        n->total += c;
        if (i < n->lo_idx) n->lo_idx = i, n->min_us = hist_value_at_index(i);
        if (i > n->hi_idx) n->hi_idx = i, n->max_us = hist_highest_equivalent(hist_value_at_index(i));
    }
    n->not_ok = failed;
    return n;
}

/* A tagged timer's data fields ({"tagged_of": ..., "tags": {...}}, as
 * stats_tagged_timer_id takes them) from its summary.json entry; NULL when
 * untagged (or out of memory: merged untagged, as a local run would). */
static char *merge_tag_fields(json_t *t) {
    json_t *of = merge_get(t, "tagged_of"), *tags = merge_get(t, "tags");
    if (!json_is_string(of) || !json_is_object(tags)) return NULL;
    json_t *o = json_pack("{sOsO}", "tagged_of", of, "tags", tags);
    char *text = o ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(o);
    return text;
}

/* What the segment's summary.json says family t is (docs/results.md): its
 * group (an index into the segment's groups, the same in every segment),
 * stage and tags, the same for each of its views; twin_of: for its
 * uncorrected view, the index in the message of the family's default. */
static void merge_timer_tags(tick_timer *o, const merge_seg *s, json_t *t, int twin_of) {
    const char *group = merge_str(t, "group");
    json_t *g;
    size_t i;
    o->group = -1;
    o->stage = 0;
    o->twin_of = twin_of;
    o->tags = merge_tag_fields(t);
    json_array_foreach(merge_get(s->root, "groups"), i, g) {
        const char *gn = merge_str(g, "name");
        if (group && gn && strcmp(gn, group) == 0) {
            o->group = (int)i;
            o->stage = (int)merge_num(t, "stage");
            break;
        }
    }
}

/* The exact min and max of an interval (its summary.json row, in ms to the
 * microsecond) into its histogram decoded from the log, whose lowest value
 * is only its bucket's (3 significant digits). */
static void merge_exact_minmax(hist *h, json_t *row) {
    const char *kmin = figure_get(FIG_MIN)->key, *kmax = figure_get(FIG_MAX)->key;
    if (!h || h->total == 0 || !merge_get(row, kmin) || !merge_get(row, kmax)) return;
    int64_t lo = llround(merge_num(row, kmin) * 1000), hi = llround(merge_num(row, kmax) * 1000);
    if (lo <= hi && hist_index_of(lo) == h->lo_idx) h->min_us = lo;       /* the row's figure is this histogram's */
    if (lo <= hi && hist_index_of(hi) == h->hi_idx) h->max_us = hi;
}

static void merge_hist_drop(hist *h) {
    if (h) hist_free(h);
    free(h);
}

/* Interval k of family t's view vn (NULL: the default, t itself) into m
 * as the series the log tags "NAME" or "NAME (VIEW)"; twin_of: for the
 * uncorrected view, its family's index in m.  The default view also takes
 * the failed, cancelled and skipped samples: the log's "NAME (all)" line
 * less the successes, bounded by views.all's row.  0, or -1 when out of
 * memory. */
static int merge_timer_into(tick_msg *m, const merge_seg *s, json_t *t, const char *vn, int twin_of, int64_t k) {
    json_t *view = summary_view(t, vn), *row = json_array_get(merge_get(view, "intervals"), (size_t)k);
    char *name = merge_label(merge_str(t, "name"), vn), *all = vn ? NULL : merge_label(merge_str(t, "name"), "all");
    int oom = !name || (!vn && !all);
    hist *h = oom ? NULL : merge_find_hist(s, name, k, &oom);
    int64_t errors = (int64_t)merge_num(row, FIG_KEY(ERRORS));
    if (!oom && (!row || (!h && errors == 0 && merge_num(row, FIG_KEY(CANCELLED)) == 0 &&
                          merge_num(row, FIG_KEY(SKIPPED)) == 0))) {
        merge_hist_drop(h);                         /* a line without its row (a shorter "intervals") */
        free(name), free(all);
        return 0;
    }
    hist *every = oom || !all ? NULL : merge_find_hist(s, all, k, &oom);
    free(all);
    tick_timer *o = &m->timers[m->n];
    if (oom) {
        merge_hist_drop(h), merge_hist_drop(every), free(name);
        return -1;
    }
    o->name = name;                                 /* the message owns it */
    o->kind = merge_kind(merge_str(t, "kind"));
    o->role = merge_role(name, vn != NULL);       /* the uncorrected view: a twin */
    o->h = h && h->total ? h : NULL;               /* the message owns it */
    merge_exact_minmax(o->h, row);
    o->nok = merge_nok(every, h, errors);
    if (!vn)                                        /* bounds of all samples: within the failed ones' */
        merge_exact_minmax(o->nok, json_array_get(merge_get(summary_view(t, "all"), "intervals"), (size_t)k));
    if (!o->h) merge_hist_drop(h);
    merge_hist_drop(every);
    o->errors = errors;
    o->cancelled = (int64_t)merge_num(row, FIG_KEY(CANCELLED));
    o->skipped = (int64_t)merge_num(row, FIG_KEY(SKIPPED));
    merge_timer_tags(o, s, t, twin_of);
    m->n++;
    return 0;
}

static void merge_tally(tally *t, json_t *arr) {
    json_t *e;
    size_t i;
    tally_init(t, 1000);
    json_array_foreach(arr, i, e) {
        const char *msg = merge_str(e, "message");
        tally_add(t, msg, strlen(msg), (int64_t)merge_num(e, "count"));
    }
}

/* 0, or -1 when out of memory (the merge then fails: a counter is never
 * dropped silently). */
static int merge_counter(tick_msg *m, counter_kind kind, const char *name, int64_t v) {
    if (!v) return 0;
    const char *prefix = counter_kind_prefix(kind);
    size_t len = strlen(prefix) + strlen(name) + 1;
    char *n = malloc(len);
    if (!n) return -1;
    snprintf(n, len, "%s%s", prefix, name);
    m->counters[m->ncounters].name = n;
    m->counters[m->ncounters].kind = kind;
    m->counters[m->ncounters++].value = v;
    return 0;
}

/* The kind of a counter of summary.json's "counters": its "kind" field
 * (plain or engine there; checks, gauges and rates have arrays of their
 * own).  A segment written before the field has plain counters only. */
static counter_kind merge_counter_kind(json_t *c) {
    int k = counter_kind_parse(merge_str(c, "kind"));
    return k == CK_ENGINE ? CK_ENGINE : CK_PLAIN;
}

static int64_t merge_row(json_t *o, int64_t k) {
    return (int64_t)json_number_value(json_array_get(merge_get(o, "intervals"), (size_t)k));
}

/* Interval k of the segment's gauges (a gauge's rows are its levels: the
 * change since the interval before is what is summed, as the workers' are
 * in one run) and rates (rows [true, false]). */
static int merge_metrics_into(tick_msg *m, const merge_seg *s, int64_t k) {
    json_t *g, *r;
    size_t i;
    int rc = 0;
    json_array_foreach(merge_get(s->root, "gauges"), i, g)
        rc |= merge_counter(m, CK_GAUGE, merge_str(g, "name"), merge_row(g, k) - (k > 0 ? merge_row(g, k - 1) : 0));
    json_array_foreach(merge_get(s->root, "rates"), i, r) {
        json_t *row = json_array_get(merge_get(r, "intervals"), (size_t)k);
        rc |= merge_counter(m, CK_RATE_TRUE, merge_str(r, "name"), (int64_t)json_number_value(json_array_get(row, 0)));
        rc |= merge_counter(m, CK_RATE_FALSE, merge_str(r, "name"), (int64_t)json_number_value(json_array_get(row, 1)));
    }
    return rc;
}

/* Counters, gauges and rates per interval; at the last interval the run's
 * checks and tallies (summary.json keeps those as totals). */
static int merge_counters_into(tick_msg *m, const merge_seg *s, int64_t k) {
    json_t *c, *ck;
    size_t i;
    int rc = 0;
    json_array_foreach(merge_get(s->root, "counters"), i, c)
        rc |= merge_counter(m, merge_counter_kind(c), merge_str(c, "name"), merge_row(c, k));
    rc |= merge_metrics_into(m, s, k);
    if (!m->final) return rc;
    json_array_foreach(merge_get(s->root, "checks"), i, ck) {
        rc |= merge_counter(m, CK_CHECK_PASS, merge_str(ck, "name"), (int64_t)merge_num(ck, "passes"));
        rc |= merge_counter(m, CK_CHECK_FAIL, merge_str(ck, "name"), (int64_t)merge_num(ck, "fails"));
    }
    return rc;
}

static tick_msg *merge_msg(const merge_seg *s, int worker, int64_t k) {
    tick_msg *m = calloc(1, sizeof *m);
    json_t *timers = merge_get(s->root, "timers");
    size_t nc = json_array_size(merge_get(s->root, "counters")) + 2 * json_array_size(merge_get(s->root, "checks")) +
                json_array_size(merge_get(s->root, "gauges")) + 2 * json_array_size(merge_get(s->root, "rates"));
    if (!m) return NULL;
    m->worker = worker;
    m->tick = k + s->shift;
    m->final = k == s->nintervals - 1;
    json_t *vus = json_array_get(merge_get(merge_get(s->root, "load"), "active_vus"), (size_t)k);
    m->active_vus = json_is_integer(vus) && json_integer_value(vus) > 0 ? (int64_t)json_integer_value(vus) : 0;
    m->timers = calloc(2 * json_array_size(timers) + 1, sizeof *m->timers);   /* a family and its uncorrected view */
    m->counters = calloc(nc + 1, sizeof *m->counters);
    tally_init(&m->errors, 1000);
    tally_init(&m->req_errors, 1000);
    if (!m->timers || !m->counters) {
        tick_msg_free(m);
        return NULL;
    }
    json_t *t;
    size_t i;
    int rc = 0;
    json_array_foreach(timers, i, t) {
        if (strcmp(merge_str(t, "latency_over"), "all samples") == 0) continue;   /* a twin without its timer */
        int head = m->n;
        rc |= merge_timer_into(m, s, t, NULL, -1, k);
        if (rc == 0 && summary_view(t, "uncorrected"))
            rc |= merge_timer_into(m, s, t, "uncorrected", m->n > head ? head : -1, k);
    }
    if (rc != 0 || merge_counters_into(m, s, k) != 0) {
        tick_msg_free(m);
        return NULL;
    }
    if (m->final) {
        tally_free(&m->errors);
        tally_free(&m->req_errors);
        merge_tally(&m->errors, merge_get(s->root, "errors"));
        merge_tally(&m->req_errors, merge_get(s->root, "request_errors"));
    }
    return m;
}

/* ---- the merged run ---- */


static const char *const merge_status_rank[] = {"completed", "interrupted", "aborted", "stuck"};

/* A segment still "running" (it died, or has not finished) counts as
 * interrupted. */
static int merge_rank(const char *status) {
    if (strcmp(status, "running") == 0) return 1;
    for (int i = 3; i > 0; i--)
        if (strcmp(status, merge_status_rank[i]) == 0) return i;
    return 0;
}

/* A group's schedule from summary.json's groups[].schedule: the stage rows
 * and load targets are rebuilt from it, as the run wrote them. */
static void merge_schedule(group_cfg *c, json_t *s) {
    json_t *st;
    size_t k;
    c->staged = json_is_true(merge_get(s, "staged"));
    c->sched.start = merge_num(s, "start");
    c->sched.n = 0;
    json_array_foreach(merge_get(s, "stages"), k, st) {
        if (c->sched.n == SCHED_MAX_STAGES) break;
        c->sched.st[c->sched.n].dur_ns = (int64_t)merge_num(st, "duration_ns");
        c->sched.st[c->sched.n++].target = merge_num(st, "target");
    }
}

/* The scenario as the writers need it: from the segments' summary.json. */
static int merge_scenario(scenario *sc, json_t *root, char *err, size_t len) {
    json_t *set = merge_get(root, "settings"), *g, *th;
    size_t i;
    memset(sc, 0, sizeof *sc);
    sc->name = strdup(merge_str(root, "scenario"));
    sc->path = strdup(merge_str(root, "scenario_file"));
    sc->run_time_ns = (int64_t)(merge_num(set, "run_time_s") * 1e9 + 0.5);
    sc->rampup_ns = (int64_t)(merge_num(set, "rampup_s") * 1e9 + 0.5);
    sc->interval_ns = (int64_t)(merge_num(set, "interval_s") * 1e9 + 0.5);
    sc->graceful_stop_ns = (int64_t)(merge_num(set, "graceful_stop_s") * 1e9 + 0.5);
    sc->requests = sc->requests_whole = (int64_t)merge_num(merge_get(root, "segment"), "requests_whole");
    snprintf(sc->hash, sizeof sc->hash, "%s", merge_str(root, "scenario_hash"));
    sc->abort_on_threshold = json_is_true(merge_get(set, "abort_on_threshold"));
    sc->ngroups = (int)json_array_size(merge_get(root, "groups"));
    sc->groups = calloc((size_t)sc->ngroups + 1, sizeof *sc->groups);
    sc->nthresholds = (int)json_array_size(merge_get(root, "thresholds"));
    sc->thresholds = calloc((size_t)sc->nthresholds + 1, sizeof *sc->thresholds);
    if (!sc->name || !sc->path || !sc->groups || !sc->thresholds) return snprintf(err, len, "out of memory"), -1;
    json_array_foreach(merge_get(root, "groups"), i, g) {
        group_cfg *c = &sc->groups[i];
        c->name = strdup(merge_str(g, "name"));
        c->script_name = strdup(merge_str(g, "script"));
        c->vus = (int)merge_num(g, "vus");
        const char *m = merge_str(g, "model");
        c->model = strcmp(m, "rate") == 0 ? MODEL_RATE : strcmp(m, "paced") == 0 ? MODEL_PACED : MODEL_CLOSED;
        merge_schedule(c, merge_get(g, "schedule"));
    }
    json_array_foreach(merge_get(root, "thresholds"), i, th) {
        if (threshold_parse(merge_str(th, "criterion"), &sc->thresholds[i], err, len) != 0) return -1;
        sc->thresholds[i].subject_kind = threshold_subject_kind_parse(json_string_value(merge_get(th, "subject_kind")));
    }
    return 0;
}

static void merge_scenario_free(scenario *sc) {
    for (int g = 0; sc->groups && g < sc->ngroups; g++) free(sc->groups[g].name), free(sc->groups[g].script_name);
    free(sc->groups);
    free(sc->thresholds);
    free(sc->name);
    free(sc->path);
}

/* The merged log, like a run's: no "(all)" twins. */
static void merge_on_hist(void *ctx, const struct agg_timer *t, int interval, double start_s, double len_s,
                          const hist *h) {
    (void)interval;
    if (!t->of) hlog_write(ctx, t->name, start_s, len_s, h);
}

/* An empty interval: a segment that started after the earliest one had
 * nothing yet in the merged intervals before its own first. */
static tick_msg *merge_empty_msg(int worker, int64_t tick) {
    tick_msg *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->worker = worker;
    m->tick = tick;
    tally_init(&m->errors, 1000);
    tally_init(&m->req_errors, 1000);
    return m;
}

/* Intervals align on wall-clock time: the merged t0 is the earliest
 * segment's t0 (start_unix_ns), and segment s's interval k goes into the
 * merged interval whose start is nearest its own (k + shift).  With
 * --start-at the shifts are 0.  A segment whose intervals' starts are more
 * than MERGE_ALIGN_TOLERANCE of an interval off the merged ones' (its clock
 * or its start differs) is named on stderr and in the segments table; in a
 * phased run only in the table: each segment starts a phase when it ended
 * the one before, so its phases never start together (and --start-at is
 * for unphased runs). */
#define MERGE_ALIGN_TOLERANCE 20     /* 1/20 of the interval: 50 ms at 1 s */
static int64_t merge_align(merge_opts *o, int64_t interval_ns) {
    int64_t t0 = INT64_MAX;
    for (int i = 0; i < o->nsegs; i++)                  /* t0_ns: read and checked by merge_read_seg */
        if (o->segs[i].t0_ns < t0) t0 = o->segs[i].t0_ns;
    for (int i = 0; i < o->nsegs && interval_ns > 0; i++) {
        merge_seg *s = &o->segs[i];
        int64_t d = s->delay_ns = s->t0_ns - t0;
        s->shift = (d + interval_ns / 2) / interval_ns;
        s->misaligned_ns = d - s->shift * interval_ns;
        if (llabs(s->misaligned_ns) > interval_ns / MERGE_ALIGN_TOLERANCE && !o->live && !o->phase)
            fprintf(stderr, "luamech merge: segment %d (%s) started %.3f s after the earliest: its intervals go %lld "
                    "interval(s) later, %.0f ms off the merged intervals (more than the tolerance, %.0f ms: its clock "
                    "or its start differ; start the segments with --start-at)\n", s->index, s->dir, (double)d / 1e9,
                    (long long)s->shift, (double)s->misaligned_ns / 1e6, (double)interval_ns / MERGE_ALIGN_TOLERANCE / 1e6);
    }
    return t0;
}

/* Generator health after a merge (docs/distributed.md): counts (late and
 * skipped starts, dispatches) and CPU time add, so CPU % is the mean over
 * every segment's workers; an engine timer's interval percentiles (loop
 * lag, schedule lag, dispatch delay) become the largest of the segments'
 * (the worst generator's, not the percentile of their pooled samples, which
 * one slow generator among many would not move); max stays the max. */
/* A percentile of the table (merged from histograms, FIG_MERGE_HIST with a
 * percentile): the highest of the segments' rows. */
static void merge_health_max(agg_row *x, const figure *f, json_t *row) {
    if (f->merge != FIG_MERGE_HIST || !(f->q > 0) || f->is_double) return;
    int64_t v = llround(merge_num(row, f->key) * 1000), cur;
    memcpy(&cur, (char *)x + f->off, sizeof cur);
    if (v > cur) memcpy((char *)x + f->off, &v, sizeof v);
}

static void merge_health_rows(const merge_opts *o, agg *a) {
    for (int i = 0; i < a->n; i++) {
        agg_timer *t = a->timers[i];
        if (t->kind != TK_ENGINE) continue;
        for (int g = 0; g < o->nsegs; g++) {
            const merge_seg *s = &o->segs[g];
            json_t *st, *row;
            size_t j;
            json_array_foreach(merge_get(s->root, "timers"), j, st) {
                if (strcmp(merge_str(st, "name"), t->name) != 0 || strcmp(merge_str(st, "kind"), "engine") != 0) continue;
                for (int k = 0; k < t->nrows; k++) {
                    if (k < s->shift || !(row = json_array_get(merge_get(st, "intervals"), (size_t)(k - s->shift))))
                        continue;
                    for (int q = 0; q < FIG_N; q++)
                        merge_health_max(&t->rows[k], figure_get((fig_id)q), row);
                }
            }
        }
    }
}

/* Once its intervals are merged, a segment's interval rows (its timers'
 * and their views') are dropped from its tree (they are most of it) before the merged files are written;
 * the engine timers' stay (merge_health_rows). */
static void merge_prune(merge_seg *s) {
    static const char *const arrays[] = {"timers", "counters", "gauges", "rates"};
    for (int a = 0; a < 4; a++) {
        json_t *e;
        size_t i;
        json_array_foreach(merge_get(s->root, arrays[a]), i, e) {
            if (a == 0 && strcmp(merge_str(e, "kind"), "engine") == 0) continue;
            json_object_del(e, "intervals");
            for (int v = 1; a == 0 && v < SUMMARY_VIEWS; v++)        /* and its views' */
                json_object_del(summary_view(e, summary_view_name(v)), "intervals");
        }
    }
}

/* Per merged interval, the workers of the segments that ran in it (had
 * started and not ended): CPU % is over those, not over every segment's
 * workers (a segment that started later or ended earlier is not idle in
 * the intervals it was not running).  0, or -1 when out of memory. */
static int merge_workers_at(const merge_opts *o, run_result *r, int64_t ticks) {
    r->workers_at = calloc((size_t)ticks + 1, sizeof *r->workers_at);
    if (!r->workers_at) return -1;
    r->nworkers_at = (int)ticks;
    for (int i = 0; i < o->nsegs; i++) {
        const merge_seg *s = &o->segs[i];
        int w = (int)merge_num(merge_get(s->root, "settings"), "workers");
        for (int64_t k = s->shift; s->nintervals > 0 && k < s->shift + s->nintervals && k < ticks; k++)
            r->workers_at[k] += w;
    }
    return 0;
}

/* Push every segment's intervals into one lockstep merge (a segment is a
 * worker, an interval a tick), aligned on wall-clock time, and close it at
 * the latest segment's end. */
static int merge_run(merge_opts *o, run_result *r, const scenario *sc, hlog *log) {
    memset(r, 0, sizeof *r);
    agg_init(&r->agg, o->nsegs, sc->interval_ns, sc->interval_ns);
    double run_s = 0, span_s = 0;
    int64_t end = 0, start_ns = merge_align(o, sc->interval_ns), ticks = 0;
    int worst = 0;
    if (log) {
        hlog_set_start(log, (double)start_ns / 1e9);
        r->agg.on_hist = merge_on_hist;
        r->agg.on_hist_ctx = log;
    }
    for (int i = 0; i < o->nsegs; i++) {
        const merge_seg *s = &o->segs[i];
        json_t *set = merge_get(s->root, "settings");
        if (merge_num(set, "max_timers") > r->agg.max_timers) r->agg.max_timers = (int)merge_num(set, "max_timers");
        r->nworkers += (int)merge_num(set, "workers");
        const char *io = merge_str(set, "io");        /* the segments' backend, "mixed" when they differ */
        if (i == 0 || strcmp(r->io, io) != 0) snprintf(r->io, sizeof r->io, "%s", i == 0 ? io : "mixed");
        double shift_s = (double)(s->shift * sc->interval_ns) / 1e9;
        run_s = fmax(run_s, shift_s + merge_num(s->root, "run_time_s"));
        span_s = fmax(span_s, shift_s + merge_num(s->root, "span_s"));
        int64_t t1 = merge_parse_time(merge_str(s->root, "finish"));
        if (t1 > end) end = t1;
        if (merge_rank(merge_str(s->root, "status")) > worst) worst = merge_rank(merge_str(s->root, "status"));
        if (!r->stopped_by[0] && merge_str(s->root, "stopped_by")[0]) {   /* the criterion that stopped them */
            snprintf(r->stopped_by, sizeof r->stopped_by, "%s", merge_str(s->root, "stopped_by"));
            r->stopped_by_hook = 1;
        }
        if (s->nintervals == 0) r->agg.finished[i] = 1;     /* nothing measured: finished at once */
        if (s->nintervals > 0 && s->shift + s->nintervals > ticks) ticks = s->shift + s->nintervals;
    }
    if (merge_workers_at(o, r, ticks) != 0) return -1;
    for (int64_t k = 0; k < ticks; k++)                 /* tick by tick: each is merged once all segments sent it */
        for (int i = 0; i < o->nsegs; i++) {
            const merge_seg *s = &o->segs[i];
            if (s->nintervals == 0 || k >= s->shift + s->nintervals) continue;
            tick_msg *m = k < s->shift ? merge_empty_msg(i, k) : merge_msg(s, i, k - s->shift);
            if (!m) return -1;
            agg_push(&r->agg, m);
        }
    for (int i = 0; i < o->nsegs; i++) merge_prune(&o->segs[i]);
    r->seed = (uint64_t)merge_num(o->segs[0].root, "seed");
    r->status = worst == 3 ? RUN_STUCK : worst == 2 ? RUN_ABORTED : worst == 1 ? RUN_INTERRUPTED : RUN_COMPLETED;
    r->start_wall.tv_sec = (time_t)(start_ns / 1000000000);
    r->start_wall.tv_nsec = (long)(start_ns % 1000000000);
    r->end_wall.tv_sec = (time_t)end;
    r->run_ns = (int64_t)(run_s * 1e9 + 0.5);
    r->span_ns = agg_finish_span(&r->agg, r->run_ns, (int64_t)(span_s * 1e9 + 0.5));
    merge_health_rows(o, &r->agg);
    return 0;
}

/* ---- the merged directory ---- */

/* The merged run is suspect when its merged figures are or when any
 * segment's generator was: one saturated generator among many is diluted
 * in the mean CPU %.  Its reasons name the segments; per interval, the
 * busiest segment's CPU % (cpu_percent_max_segment) besides the mean. */
static void merge_health_verdict(json_t *root, const merge_opts *o) {
    json_t *gen = merge_get(root, "generator");
    if (!gen) return;
    char why[2048];
    snprintf(why, sizeof why, "%s", merge_str(gen, "reasons"));
    int suspect = json_is_true(merge_get(gen, "suspect"));
    for (int i = 0; i < o->nsegs; i++) {
        json_t *sg = merge_get(o->segs[i].root, "generator");
        if (!json_is_true(merge_get(sg, "suspect"))) continue;
        size_t used = strlen(why);
        snprintf(why + used, sizeof why - used, "%ssegment %d: %s", used ? "; " : "", o->segs[i].index,
                 merge_str(sg, "reasons"));
        suspect = 1;
    }
    json_object_set_new(gen, "suspect", json_boolean(suspect));
    json_object_set_new(gen, "reasons", json_string(why));
    json_t *iv;
    size_t k;
    json_array_foreach(merge_get(gen, "intervals"), k, iv) {
        double top = 0;
        for (int i = 0; i < o->nsegs; i++) {
            const merge_seg *s = &o->segs[i];
            if ((int64_t)k < s->shift) continue;
            json_t *row = json_array_get(merge_get(merge_get(s->root, "generator"), "intervals"), k - (size_t)s->shift);
            if (row && merge_num(row, "cpu_percent") > top) top = merge_num(row, "cpu_percent");
        }
        json_object_set_new(iv, "cpu_percent_max_segment", json_real(top));
    }
}

/* Per segment: transactions, errors, generator health; the missing ones. */
static int merge_segment_table(const char *dir, const merge_opts *o, json_t *missing) {
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    json_t *root = json_load_file(path, 0, NULL), *arr = json_array();
    if (!root) return -1;
    for (int i = 0; i < o->nsegs; i++) {
        json_t *s = o->segs[i].root, *t, *all = NULL, *gen = merge_get(s, "generator"), *iv;
        size_t k;
        json_array_foreach(merge_get(s, "timers"), k, t)
            if (strcmp(merge_str(t, "name"), "All Transactions") == 0) all = merge_get(t, "summary");
        double cpu = 0;
        size_t n = 0;
        json_array_foreach(merge_get(gen, "intervals"), k, iv) cpu += merge_num(iv, "cpu_percent"), n++;
        json_t *row = json_pack("{s:i,s:s,s:s,s:I,s:I,s:f,s:b,s:s}", "index", o->segs[i].index, "dir",
            o->segs[i].dir, "status", merge_str(s, "status"), "transactions", (json_int_t)merge_num(all, "count"),
            "errors", (json_int_t)merge_num(all, "errors"), "cpu_percent", n ? cpu / (double)n : 0.0,
            "suspect", json_is_true(merge_get(gen, "suspect")), "reasons", merge_str(gen, "reasons"));
        if (merge_get(s, "start_at")) json_object_set(row, "start_at", merge_get(s, "start_at"));
        json_object_set_new(row, "start_delay_s", json_real((double)o->segs[i].delay_ns / 1e9));
        json_object_set_new(row, "interval_shift", json_integer(o->segs[i].shift));
        json_object_set_new(row, "misaligned_ms", json_real((double)o->segs[i].misaligned_ns / 1e6));
        const char *state = o->segs[i].state ? o->segs[i].state               /* live */
                          : strcmp(merge_str(s, "status"), "running") == 0 ? "lost" : "done";
        json_object_set_new(row, "state", json_string(state));
        if (json_is_true(merge_get(gen, "suspect")) && !o->live)
            fprintf(stderr, "luamech merge: segment %d (%s): the generator was suspect: %s\n", o->segs[i].index,
                    o->segs[i].dir, merge_str(gen, "reasons"));
        json_array_append_new(arr, row);
    }
    merge_health_verdict(root, o);
    json_object_set_new(root, "segments", arr);
    json_object_set_new(root, "segment_count", json_integer(o->segs[0].count));
    json_object_set(root, "missing_segments", missing);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int rc = json_dump_file(root, tmp, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    json_decref(root);
    return rc == 0 ? rename(tmp, path) : -1;
}

static int merge_exit_code(report_view *v, const merge_opts *o) {
    const run_result *r = v->r;
    int code = EXIT_OK;
    for (int i = 0; i < o->nsegs; i++) {           /* a segment's own failure (not its thresholds) */
        int c = (int)merge_num(o->segs[i].root, "exit_code");
        if (c < 0) c = EXIT_INTERRUPTED;            /* still "running": it died or goes on */
        if (c != EXIT_OK && c != EXIT_THRESHOLDS && (code == EXIT_OK || c > code)) code = c;
    }
    int failed = 0;
    if (code == EXIT_OK && r->status == RUN_COMPLETED && !r->stopped_by_hook) report_view_thresholds(v, &failed);
    if (code == EXIT_OK && r->status == RUN_COMPLETED && (r->stopped_by_hook || failed > 0)) code = EXIT_THRESHOLDS;
    return code;
}

/* The merged console report's last part: it was a merge, of which segments,
 * each one's host, start and span. */
static void merge_console_segments(const merge_opts *o) {
    printf("Merged from %d of %d segments (luamech merge)\n\n%-8s %-12s %12s %8s %10s %10s  %s\n", o->nsegs,
           o->segs[0].count, "segment", "status", "transactions", "errors", "start", "span", "host");
    for (int i = 0; i < o->nsegs; i++) {
        const merge_seg *s = &o->segs[i];
        json_t *all = NULL, *t;
        size_t k;
        json_array_foreach(merge_get(s->root, "timers"), k, t)
            if (strcmp(merge_str(t, "name"), "All Transactions") == 0) all = merge_get(t, "summary");
        char host[256];
        const char *h = text_clean(merge_str(merge_get(s->root, "segment"), "host"), host, sizeof host);
        printf("%-8d %-12s %12.0f %8.0f %+9.3fs %9.3fs  %s\n", s->index, merge_str(s->root, "status"),
               merge_num(all, "count") + merge_num(all, "errors"), merge_num(all, "errors"), (double)s->delay_ns / 1e9,
               merge_num(s->root, "span_s"), h[0] ? h : "-");
    }
    printf("\n");
    fflush(stdout);
}

/* The segments as the dashboard shows them (output_segments): the ones
 * read, with their state, latest active VUs and counts, then the ones given
 * whose results are not there yet (waiting). */
static char *merge_segments_json(const merge_opts *o) {
    json_t *arr = json_array();
    for (int i = 0; arr && i < o->nsegs; i++) {
        const merge_seg *s = &o->segs[i];
        json_t *all = NULL, *t, *vus = merge_get(merge_get(s->root, "load"), "active_vus");
        size_t k;
        json_array_foreach(merge_get(s->root, "timers"), k, t)
            if (strcmp(merge_str(t, "name"), "All Transactions") == 0) all = merge_get(t, "summary");
        size_t n = json_array_size(vus);
        const char *state = s->state ? s->state : strcmp(merge_str(s->root, "status"), "running") ? "done" : "lost";
        json_array_append_new(arr, json_pack("{s:i,s:s,s:s,s:O,s:f,s:f,s:s}", "index", s->index, "dir", s->dir,
            "state", state, "vus", n ? json_array_get(vus, n - 1) : json_null(), "transactions",
            merge_num(all, "count") + merge_num(all, "errors"), "errors", merge_num(all, "errors"), "host",
            merge_str(merge_get(s->root, "segment"), "host")));
    }
    for (int i = 0; arr && i < o->nall; i++) {
        int seen = 0;
        for (int k = 0; k < o->nsegs && !seen; k++) seen = o->segs[k].dir == o->all[i];
        if (!seen) json_array_append_new(arr, json_pack("{s:n,s:s,s:s,s:n,s:i,s:i,s:s}", "index", "dir", o->all[i],
                                                        "state", "waiting", "vus", "transactions", 0, "errors", 0, "host", ""));
    }
    char *text = arr ? json_dumps(arr, JSON_COMPACT) : NULL;
    json_decref(arr);
    return text;
}

/* --follow --dashboard: the merged run's intervals as they close, each
 * segment's state with them, and at the end (status given) the end event. */
static void merge_outputs(merge_opts *o, const scenario *sc, const run_result *rp, const char *status, int code,
                          report_view *v) {
    if (!o->outs_started) output_run_start(o->outs, sc, NULL), o->outs_started = 1;
    char *segs = merge_segments_json(o);
    output_segments(o->outs, segs);
    free(segs);
    if (status) output_run_end(o->outs, sc, rp, status, code);
    else output_interval(o->outs, sc, rp, v);
}

/* --follow's central verdict: with abort_on_threshold, the scenario's
 * criteria judged on the merged data of every segment at each live round,
 * by the rule a single run uses (report_threshold_stop); the first failure
 * asks every segment to stop (DIR/stop_request.json, written again at each
 * round until they end, for a segment that starts late).  A criterion can
 * fail on the whole while it passes on every segment's share (errors < N). */
static void merge_central_verdict(merge_opts *o, const scenario *sc, const run_result *rp, report_view *v) {
    if (!sc->abort_on_threshold) return;
    if (!o->stop_reason[0]) {
        char why[400];
        if (!report_threshold_stop(v, why, sizeof why)) return;
        snprintf(o->stop_reason, sizeof o->stop_reason, "%s on the merged data of %d segment(s) at %.0f s",
                 why, o->nsegs, (double)rp->run_ns / 1e9);
        fprintf(stderr, "luamech merge: %s: asking every segment to stop\n", o->stop_reason);
    }
    for (int i = 0; i < o->nall; i++)
        if (report_stop_request(o->all[i], o->stop_reason) != 0)
            fprintf(stderr, "luamech merge: cannot write %s/%s: %s\n", o->all[i], REPORT_STOP_FILE, strerror(errno));
}

/* The merged run into o->out; *scp and *rp (the caller frees them with
 * merge_scenario_free and run_result_free) keep the merged scenario and
 * statistics, for a phased merge's phases table. */
/* One round of a merge as the interval bus hands it to its sinks. */
typedef struct merge_round {
    merge_opts *o;
    json_t *missing;
    const char *status;      /* the files' status: "running" while live */
    int code;                /* the merged run's exit code */
    int rc;                  /* 0, or -1 when a file could not be written */
    int err_no;              /* why not (errno), or 0 */
} merge_round;

/* Sink "files": the merged result files and the segments table. */
static void merge_sink_files(void *self, report_view *v) {
    merge_round *m = self;
    if (m->rc == 0 && report_write_all_view(m->o->out, m->status, m->o->live ? -1 : m->code, v) != 0)
        m->rc = -1, m->err_no = errno;
    if (m->rc == 0 && merge_segment_table(m->o->out, m->o, m->missing) != 0) m->rc = -1, m->err_no = errno;
}

/* Sink "progress": live, the merged progress line (a terminal: every round;
 * a log: when an interval was added). */
static void merge_sink_progress(void *self, report_view *v) {
    merge_round *m = self;
    merge_opts *o = m->o;
    const run_result *rp = v->r;
    if (m->rc != 0 || !o->live || (!o->tty && rp->agg.nintervals == o->progress_at)) return;
    int st[3] = {0, 0, 0};
    for (int i = 0; i < o->nsegs; i++)
        st[o->segs[i].state && !strcmp(o->segs[i].state, "done") ? 1
           : o->segs[i].state && !strcmp(o->segs[i].state, "lost") ? 2 : 0]++;
    fprintf(stderr, "%d/%d segments (running %d, done %d, lost %d, waiting %d): ", o->nsegs, o->segs[0].count,
            st[0], st[1], st[2], o->nwaiting);
    report_progress(stderr, rp, (double)rp->run_ns / 1e9, (double)v->sc->run_time_ns / 1e9);
    o->progress_at = rp->agg.nintervals;
}

/* Sink "outputs": the live outputs (--dashboard), on the merged data. */
static void merge_sink_outputs(void *self, report_view *v) {
    merge_round *m = self;
    if (m->rc == 0 && m->o->outs && !m->o->phase)
        merge_outputs(m->o, v->sc, v->r, m->o->live ? NULL : m->status, m->code, v);
}

static int merge_write(merge_opts *o, json_t *missing, scenario *scp, run_result *rp) {
    char err[4400], hpath[4200];
    memset(scp, 0, sizeof *scp);
    memset(rp, 0, sizeof *rp);
    if (report_make_out(o->out, err, sizeof err) != 0) return merge_refuse("--out: %s", err);
    if (merge_scenario(scp, o->segs[0].root, err, sizeof err) != 0) {
        fprintf(stderr, "luamech merge: %s: %s\n", o->segs[0].dir, err);
        return EXIT_RUNTIME;
    }
    const scenario *sc = scp;
    snprintf(hpath, sizeof hpath, "%s/" HLOG_FILE, o->out);
    hlog *log = hlog_open(hpath, 0);
    int rc = merge_run(o, rp, sc, log);
    if (rc == 0 && o->interrupted) rp->status = RUN_INTERRUPTED;   /* the follower was stopped: as a run's Ctrl-C */
    report_view v;                  /* the merged data's verdicts and health, evaluated once for every sink */
    report_view_init(&v, sc, rp);
    int code = rc == 0 ? merge_exit_code(&v, o) : EXIT_RUNTIME;
    if (rc == 0 && o->interrupted && (code == EXIT_OK || code == EXIT_THRESHOLDS)) code = EXIT_INTERRUPTED;
    if (log && hlog_close(log) != 0) rc = -1;
    /* the round on the interval bus, as a run's closed interval: the files,
     * the progress line, the live outputs; then the central verdict */
    merge_round m = {o, missing, o->live ? "running" : report_status_name(rp->status), code, rc, 0};
    report_bus bus = {0};
    report_bus_add(&bus, "files", &m, merge_sink_files);          /* 3 of REPORT_BUS_MAX: cannot fail */
    report_bus_add(&bus, "progress", &m, merge_sink_progress);
    report_bus_add(&bus, "outputs", &m, merge_sink_outputs);
    if (rc == 0) report_bus_publish(&bus, &v);
    rc = m.rc;
    if (rc == 0 && o->live) merge_central_verdict(o, sc, rp, &v);
    report_view_free(&v);
    if (rc == 0 && !o->live) report_console(stdout, sc, rp, o->out, o->verbose), merge_console_segments(o);
    if (rc == 0 && report_write_html(o->out) != 0) fprintf(stderr, "luamech merge: cannot write %s/report.html\n", o->out);
    if (rc != 0) {
        fprintf(stderr, "luamech merge: cannot write the merged results into %s%s%s\n", o->out,
                m.err_no ? ": " : "", m.err_no ? strerror(m.err_no) : "");
        code = EXIT_RUNTIME;
    }
    return code;
}

/* merge_write without keeping the merged run. */
static int merge_write_once(merge_opts *o, json_t *missing) {
    scenario sc;
    run_result r;
    int code = merge_write(o, missing, &sc, &r);
    run_result_free(&r);
    merge_scenario_free(&sc);
    return code;
}

static int merge_parse(int argc, char **argv, merge_opts *o) {
    static const struct option opts[] = {{"out", required_argument, 0, 'o'}, {"allow-partial", no_argument, 0, 'p'},
                                         {"follow", no_argument, 0, 'f'}, {"dashboard", required_argument, 0, 'D'},
                                         {"dashboard-linger", no_argument, 0, 'L'},
                                         {"dashboard-public", no_argument, 0, 'P'},
                                         {"verbose", no_argument, 0, 'v'},
                                         {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    char oerr[512];
    int ch;
    opterr = 0;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "o:vh", opts, NULL)) != -1) {
        if (ch == 'o') o->out = optarg;
        else if (ch == 'v') o->verbose = 1;
        else if (ch == 'p') o->allow_partial = 1;
        else if (ch == 'f') o->follow = 1;
        else if (ch == 'D') {
            if (output_parse_dashboard(&o->outcfg, optarg, oerr, sizeof oerr) != 0) return merge_usage("%s", oerr);
        }
        else if (ch == 'L') o->outcfg.dashboard_linger = 1;
        else if (ch == 'P') o->outcfg.dashboard_public = 1;
        else if (ch == 'h') {
            printf("usage: luamech merge SEGMENT_DIR... --out DIR [--allow-partial] [--verbose] [--follow [--dashboard [ADDR:]PORT]]\n"
                   "One result from the results directories of a run's --segment parts (docs/distributed.md).\n"
                   "  -v, --verbose       the full end report (every timer, the uncorrected views, intervals,\n"
                   "                      counters), as run --verbose; without it, the compact one\n"
                   "  --follow            merge while the segments run, every second, until all have ended; with\n"
                   "                      abort_on_threshold, a criterion failing on the merged data stops every segment;\n"
                   "                      SIGINT/SIGTERM: what there is merged, status interrupted, exit 5\n"
                   "  --dashboard [ADDR:]PORT  with --follow: the live dashboard of the merged run and each segment's state\n"
                   "                      (--dashboard-linger keeps it up after the merge, --dashboard-public allows a\n"
                   "                      non-loopback ADDR)\n");
            exit(EXIT_OK);
        } else return merge_usage("unknown or incomplete option '%s'", argv[optind - 1]);
    }
    if (!o->out) return merge_usage("%s", "--out DIR is required");
    if (o->outcfg.dashboard[0] && !o->follow) return merge_usage("%s", "--dashboard is for --follow (a live merge)");
    if (output_check(&o->outcfg, oerr, sizeof oerr) != 0) return merge_usage("%s", oerr);
    o->nsegs = argc - optind;
    if (o->nsegs < 1) return merge_usage("%s", "no segment directories given");
    if (o->nsegs > MERGE_MAX_SEGMENTS) return merge_usage("%s", "too many directories");
    o->segs = calloc((size_t)o->nsegs, sizeof *o->segs);
    if (!o->segs) return EXIT_RUNTIME;
    for (int i = 0; i < o->nsegs; i++) o->segs[i].dir = argv[optind + i];
    return EXIT_OK;
}

static void merge_reset(merge_opts *o) {
    for (int i = 0; i < o->nsegs; i++) {
        merge_seg *g = &o->segs[i];
        for (size_t k = 0; k < g->nhists; k++) free(g->hists[k].tag);
        free(g->hists);
        json_decref(g->root);
        *g = (merge_seg){.dir = g->dir};
    }
}

/* Read every segment, check the set, write the merged result (kept in *sc
 * and *r, which the caller frees, when they are not NULL). */
static int merge_one(merge_opts *o, scenario *sc, run_result *r) {
    char err[8400];
    json_t *missing = json_array();
    int code = EXIT_OK;
    for (int i = 0; code == EXIT_OK && i < o->nsegs; i++)
        if (merge_read_seg(&o->segs[i], err, sizeof err) != 0) code = merge_refuse("%s", err);
    if (code == EXIT_OK && merge_check_set(o, missing, err, sizeof err) != 0) code = merge_refuse("%s", err);
    if (code == EXIT_OK) code = sc ? merge_write(o, missing, sc, r) : merge_write_once(o, missing);
    json_decref(missing);
    merge_reset(o);
    return code;
}

/* ---- a phased run ---- */

#define MERGE_MAX_PHASES 10000

/* A phased run's top summary.json: its phase counts, and each phase run's
 * directory the one a run gives it (report_phase_subdir: "<i>-<name as a
 * path component>"), so that a crafted name or dir never reaches outside
 * the segment's directory or --out. */
static int merge_check_phased(json_t *top, const char *file, char *err, size_t len) {
    if (merge_chk(top, "phases_planned", 1, MERGE_MAX_PHASES, 1, file, "", err, len) != 0 ||
        merge_chk(top, "phases_run", 0, merge_num(top, "phases_planned"), 1, file, "", err, len) != 0)
        return -1;
    for (int i = 0; i < (int)merge_num(top, "phases_run"); i++) {
        json_t *ph = json_array_get(merge_get(top, "phases"), (size_t)i);
        const char *name = json_string_value(merge_get(ph, "name")), *dir = merge_str(ph, "dir");
        char sub[128];
        if (!name) return snprintf(err, len, "%s: phases[%d] has no name", file, i), -1;
        report_phase_subdir(sub, sizeof sub, i, name);
        if (strcmp(dir, sub) != 0)
            return snprintf(err, len, "%s: phases[%d].dir \"%.100s\" is not the directory of phase \"%.100s\" (%s)",
                            file, i, dir, name, sub), -1;
    }
    return 0;
}

/* The top summary.json of each segment of a phased run (the phases table
 * report_write_phases writes), checked to be parts of one run; NULL and a
 * message in err when they are not, or are not all phased. */
static json_t **merge_phased_tops(const merge_opts *o, char *err, size_t len) {
    json_t **tops = calloc((size_t)o->nsegs, sizeof *tops);
    if (!tops) return snprintf(err, len, "out of memory"), NULL;
    for (int i = 0; i < o->nsegs; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/summary.json", o->segs[i].dir);
        tops[i] = json_load_file(path, 0, NULL);
        json_t *a = tops[0], *b = tops[i];
        const char *why = !merge_get(b, "phases_run") ? "a phased and an unphased run"
            : strcmp(merge_str(a, "scenario_hash"), merge_str(b, "scenario_hash")) ? "scenario (scenario_hash)"
            : merge_num(a, "phases_planned") != merge_num(b, "phases_planned") ? "number of phases"
            : merge_num(merge_get(a, "segment"), "count") != merge_num(merge_get(b, "segment"), "count")
                ? "segment count" : NULL;
        if (why) snprintf(err, len, "%s and %s are not parts of one phased run: %s", o->segs[0].dir, o->segs[i].dir, why);
        if (why || merge_check_phased(b, path, err, len) != 0) {
            for (int k = 0; k <= i; k++) json_decref(tops[k]);
            free(tops);
            return NULL;
        }
    }
    return tops;
}

/* Phase i: every segment's subdirectory of it merged into out/SUBDIR, kept
 * in *sc and *r.  Segments whose run ended before it are missing from it
 * (merged as with --allow-partial; their own exit code says why). */
static int merge_phase(const merge_opts *o, json_t **tops, int i, scenario *sc, run_result *r) {
    merge_opts p = *o;
    char out[4400];
    char sub[128];                                  /* as a run names it (checked: phases[i].dir is the same) */
    int ran = 0;                                    /* the first segment that ran phase i */
    while (ran < o->nsegs - 1 && (int)merge_num(tops[ran], "phases_run") <= i) ran++;
    const char *name = merge_str(json_array_get(merge_get(tops[ran], "phases"), (size_t)i), "name");
    report_phase_subdir(sub, sizeof sub, i, name);
    p.segs = calloc((size_t)o->nsegs, sizeof *p.segs);
    char (*dirs)[4400] = calloc((size_t)o->nsegs, sizeof *dirs);
    if (!p.segs || !dirs) {
        free(p.segs), free(dirs);
        return EXIT_RUNTIME;
    }
    p.nsegs = 0;
    for (int k = 0; k < o->nsegs; k++) {
        if ((int)merge_num(tops[k], "phases_run") <= i) {
            p.allow_partial = 1;
            continue;
        }
        snprintf(dirs[p.nsegs], sizeof *dirs, "%s/%s", o->segs[k].dir, sub);
        p.segs[p.nsegs].dir = dirs[p.nsegs];
        p.nsegs++;
    }
    snprintf(out, sizeof out, "%s/%s", o->out, sub);
    p.out = out;
    p.phase = i + 1;
    fprintf(stderr, "luamech merge: phase %d/%d: %s\n", i + 1, (int)merge_num(tops[0], "phases_planned"), name);
    int code = merge_one(&p, sc, r);
    free(p.segs);
    free(dirs);
    return code;
}

/* The top scenario of a phased merge: its name, file and top-level
 * thresholds from the segments' top summary.json; its phases are the merged
 * phases' scenarios (owned: moved in by the caller). */
static int merge_phased_scenario(scenario *top, json_t *root, int planned, char *err, size_t len) {
    json_t *th;
    size_t i;
    memset(top, 0, sizeof *top);
    top->name = strdup(merge_str(root, "scenario"));
    top->path = strdup(merge_str(root, "scenario_file"));
    top->nphases = planned;
    top->phases = calloc((size_t)planned + 1, sizeof *top->phases);
    top->nthresholds = (int)json_array_size(merge_get(root, "thresholds"));
    top->thresholds = calloc((size_t)top->nthresholds + 1, sizeof *top->thresholds);
    if (!top->name || !top->path || !top->phases || !top->thresholds) return snprintf(err, len, "out of memory"), -1;
    json_array_foreach(merge_get(root, "thresholds"), i, th) {
        if (threshold_parse(merge_str(th, "criterion"), &top->thresholds[i], err, len) != 0) return -1;
        top->thresholds[i].subject_kind = threshold_subject_kind_parse(json_string_value(merge_get(th, "subject_kind")));
    }
    return 0;
}

/* A whole phased run's segments in one command: each phase merged as a run
 * is, into its subdirectory of --out, then the top directory's phases table
 * and the verdict of the top-level thresholds over all merged phases, as a
 * local phased run writes them.  The exit code: the worst of the phases'
 * (a segment's own failure first), else 6 when any threshold failed. */
static int merge_phased(merge_opts *o) {
    char err[8400];
    json_t **tops = merge_phased_tops(o, err, sizeof err);
    if (!tops) return merge_refuse("%s", err);
    int planned = (int)merge_num(tops[0], "phases_planned"), ran = 0, code = EXIT_OK, th_failed = 0;
    for (int k = 0; k < o->nsegs; k++)
        if ((int)merge_num(tops[k], "phases_run") > ran) ran = (int)merge_num(tops[k], "phases_run");
    if (ran > planned) ran = planned;
    if (ran == 0) {                                /* no phase started anywhere: nothing to write */
        for (int k = 0; k < o->nsegs; k++) json_decref(tops[k]);
        free(tops);
        return merge_refuse("%s", "no segment ran a phase (phases_run is 0 in every summary.json): nothing to merge");
    }
    scenario top;
    run_result *rs = calloc((size_t)ran + 1, sizeof *rs);
    int rc = merge_phased_scenario(&top, tops[0], planned, err, sizeof err);
    if (rc != 0 || !rs || report_make_out(o->out, err, sizeof err) != 0) {
        fprintf(stderr, "luamech merge: %s\n", rs ? err : "out of memory");
        code = rc != 0 || !rs ? EXIT_RUNTIME : EXIT_USAGE;      /* --out: said above */
        ran = 0;
    }
    int merged = 0;
    for (; merged < ran; merged++) {
        int c = merge_phase(o, tops, merged, &top.phases[merged], &rs[merged]);
        if (c == EXIT_THRESHOLDS) th_failed = 1;
        else if (c != EXIT_OK && (code == EXIT_OK || c > code)) code = c;
        if (c == EXIT_USAGE || c == EXIT_RUNTIME) {     /* nothing merged for this phase */
            merge_scenario_free(&top.phases[merged]);
            run_result_free(&rs[merged]);
            break;
        }
    }
    if (merged == ran && ran > 0) {
        th_result *res = NULL;
        if (top.nthresholds > 0) th_failed |= report_run_threshold_results(&top, rs, merged, &res) > 0;
        free(res);
        if (code == EXIT_OK && th_failed) code = EXIT_THRESHOLDS;
        report_phases(stdout, &top, rs, merged);
        report_run_thresholds(stdout, &top, rs, merged);
        errno = 0;
        if (report_write_phases(o->out, &top, rs, merged, code) != 0 || report_write_html(o->out) != 0) {
            int e = errno;
            fprintf(stderr, "luamech merge: cannot write the merged results into %s%s%s\n", o->out, e ? ": " : "",
                    e ? strerror(e) : "");
            code = EXIT_RUNTIME;
        }
    }
    for (int i = 0; i < merged; i++) merge_scenario_free(&top.phases[i]), run_result_free(&rs[i]);
    free(top.phases);
    top.phases = NULL;
    merge_scenario_free(&top);
    free(rs);
    for (int k = 0; k < o->nsegs; k++) json_decref(tops[k]);
    free(tops);
    return code;
}

/* A phased run's top directory (its summary.json has a phases table). */
static int merge_is_phased(const char *dir) {
    char path[4200];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    json_t *root = json_load_file(path, 0, NULL);
    int phased = merge_get(root, "phases_run") != NULL;
    json_decref(root);
    return phased;
}

/* The first segment's summary.json is read once: to tell a phased run,
 * then, when it is not one, kept for merge_read_seg (which reads it again
 * only when it could not be parsed here, for its message). */
static int merge_once(merge_opts *o) {
    char path[4200];
    snprintf(path, sizeof path, "%s/summary.json", o->segs[0].dir);
    json_t *first = json_load_file(path, 0, NULL);
    if (merge_get(first, "phases_run")) {
        json_decref(first);
        return merge_phased(o);
    }
    o->segs[0].root = first;
    return merge_one(o, NULL, NULL);
}

/* The newest of the phase directories' summary.json and intervals.csv
 * (DIR/<phase>/), 0 if none: a phased run writes its top summary.json only
 * at its end. */
static time_t merge_phases_mtime(const char *dir) {
    static const char *const names[] = {"summary.json", "intervals.csv"};
    char pattern[4200];
    time_t newest = 0;
    for (int n = 0; n < 2; n++) {
        glob_t g;
        snprintf(pattern, sizeof pattern, "%s/*/%s", dir, names[n]);
        if (glob(pattern, 0, NULL, &g) != 0) continue;
        for (size_t i = 0; i < g.gl_pathc; i++) {
            struct stat st;
            if (stat(g.gl_pathv[i], &st) == 0 && st.st_mtime > newest) newest = st.st_mtime;
        }
        globfree(&g);
    }
    return newest;
}

/* --follow: when each segment's files last changed, as this follower saw it. */
typedef struct merge_seen {
    time_t mtime;              /* the newest mtime of its files */
    struct timespec at;        /* when this follower first saw that mtime (monotonic) */
    int told;                  /* its loss was said */
    int marked;                /* this follower made DIR/followed (removed when it ends) */
} merge_seen;

static void merge_seen_update(merge_seen *v, time_t mtime) {
    if (v->at.tv_sec && mtime <= v->mtime) return;
    v->mtime = mtime;
    clock_gettime(CLOCK_MONOTONIC, &v->at);
}

/* A running segment whose files have not changed for 3 intervals (at least
 * 5 s: mtimes have a 1 s grain) is lost: killed, its machine gone, its
 * filesystem stalled.  Said once; the merged figures lack its share from
 * then on, and the segments table says so. */
#define MERGE_LOST_INTERVALS 3
static int merge_seen_lost(merge_seen *v, const merge_seg *g, double interval_s) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double silent = (double)(now.tv_sec - v->at.tv_sec) + (double)(now.tv_nsec - v->at.tv_nsec) / 1e9;
    double limit = fmax(MERGE_LOST_INTERVALS * interval_s, 5.0);
    if (silent <= limit) return v->told = 0;
    if (!v->told++)
        fprintf(stderr, "luamech merge: segment %d (%s) wrote nothing for %.0f s (%d intervals): lost; the merged "
                        "figures lack its share from then on\n", g->index, g->dir, silent, MERGE_LOST_INTERVALS);
    return 1;
}

/* --follow's signals: SIGINT, SIGTERM and SIGHUP are blocked while it
 * follows and read from a signalfd (no handler, no global), so a signal ends
 * the wait between rounds and never a round or the final merge halfway. */
typedef struct merge_sigs {
    int fd;                    /* the signalfd, -1 when none (signals keep their default action) */
    sigset_t old;              /* the mask before */
    int got;                   /* the first signal read, 0 if none */
} merge_sigs;

static void merge_sigs_set(sigset_t *set) {
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
}

static void merge_sigs_open(merge_sigs *k) {
    sigset_t set;
    merge_sigs_set(&set);
    k->fd = -1;
    k->got = 0;
    if (pthread_sigmask(SIG_BLOCK, &set, &k->old) != 0) return;
    k->fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    if (k->fd < 0) pthread_sigmask(SIG_SETMASK, &k->old, NULL);
}

/* Waits up to ms for a signal (returns at once when one came); the first
 * signal got so far, 0 if none. */
static int merge_sigs_wait(merge_sigs *k, int ms) {
    if (k->fd < 0) {
        struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
        nanosleep(&t, NULL);
        return 0;
    }
    struct pollfd p = {.fd = k->fd, .events = POLLIN};
    struct signalfd_siginfo si;
    if (!k->got && poll(&p, 1, k->got ? 0 : ms) > 0 && read(k->fd, &si, sizeof si) == (ssize_t)sizeof si)
        k->got = (int)si.ssi_signo;
    return k->got;
}

/* The signals that came meanwhile are dropped (a second Ctrl-C during the
 * final merge), the mask restored (--dashboard-linger waits for one). */
static void merge_sigs_close(merge_sigs *k) {
    if (k->fd < 0) return;
    struct signalfd_siginfo si;
    while (read(k->fd, &si, sizeof si) == (ssize_t)sizeof si) {
    }
    close(k->fd);
    pthread_sigmask(SIG_SETMASK, &k->old, NULL);
}

/* DIR/followed into each directory there, noting the ones this follower
 * made (merge_unmark removes those); a failure said once. */
static void merge_mark(const merge_seg *all, int n, merge_seen *seen, int *unmarked) {
    for (int i = 0; i < n; i++) {    /* snapshots at every interval, please (a directory made since too) */
        char path[4200];
        struct stat st;
        snprintf(path, sizeof path, "%s/" REPORT_FOLLOW_FILE, all[i].dir);
        if (seen[i].marked || stat(all[i].dir, &st) != 0) continue;
        int had = access(path, F_OK) == 0;
        if (report_follow_mark(all[i].dir) != 0) {
            if (!(*unmarked)++)
                fprintf(stderr, "luamech merge: cannot write %s (%s): the live merge may lag the segments\n", path,
                        strerror(errno));
        } else if (!had) {
            seen[i].marked = 1;
        }
    }
}

static void merge_unmark(const merge_seg *all, int n, const merge_seen *seen) {
    for (int i = 0; i < n; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/" REPORT_FOLLOW_FILE, all[i].dir);
        if (seen[i].marked && unlink(path) != 0 && errno != ENOENT)
            fprintf(stderr, "luamech merge: cannot remove %s: %s\n", path, strerror(errno));
    }
}

/* While no segment has results: which, on stderr, at the first round and
 * every MERGE_WAIT_SAY_S seconds (else a follower started before its
 * segments prints nothing until they write). */
#define MERGE_WAIT_SAY_S 10
/* --follow before any segment wrote: it waits this long for the first
 * write (a segment's preflight may take up to 60 s, then its start barrier). */
#define MERGE_FIRST_WAIT_S 120.0
static void merge_say_waiting(const merge_seg *all, int n, const merge_seen *seen, double give_up_s, double silent) {
    int waiting = 0;
    for (int i = 0; i < n; i++) waiting += seen[i].mtime == 0;
    fprintf(stderr, "luamech merge: --follow: waiting for %d of %d segment%s to write results (%.0f s; merging what "
            "there is after %.0f s without a write):", waiting, n, n == 1 ? "" : "s", silent, give_up_s);
    for (int i = 0, shown = 0; i < n; i++) {
        if (seen[i].mtime != 0) continue;
        if (shown++ == 8) {
            fprintf(stderr, " ...");
            break;
        }
        char buf[512];
        fprintf(stderr, " %s", text_clean(all[i].dir, buf, sizeof buf));
    }
    fputc('\n', stderr);
}

/* --follow: the segments append to intervals.csv at every interval and
 * replace summary.json (through a rename) on report_summary_due's
 * schedule; merge what there is every second, with a progress line, until
 * every segment given has ended (its status is no longer "running"), then
 * once more as a final merge.  Segments without a summary.json yet are
 * waited for (said every MERGE_WAIT_SAY_S s while none has results).
 * SIGINT, SIGTERM or SIGHUP ends the wait after the round: a final merge of
 * what there is, status "interrupted", exit 5; the DIR/followed marks this
 * follower made are removed when it ends. */
static int merge_follow(merge_opts *o) {
    merge_seg *all = o->segs;
    int n = o->nsegs, code = EXIT_OK, unmarked = 0;
    time_t last_change = 0;
    merge_seg *some = calloc((size_t)n, sizeof *some);
    o->all = calloc((size_t)n, sizeof *o->all);
    merge_seen *seen = calloc((size_t)n, sizeof *seen);
    if (!some || !o->all || !seen) {
        free(some), free(o->all), free(seen);
        return EXIT_RUNTIME;
    }
    for (int i = 0; i < n; i++) o->all[i] = all[i].dir;
    o->nall = n;
    if (o->outcfg.dashboard[0]) {
        char err[1400];
        const char *slash = strrchr(o->out, '/');
        o->outs = output_open(&o->outcfg, slash && slash[1] ? slash + 1 : o->out, err, sizeof err);
        if (!o->outs) {
            free(some), free(o->all), free(seen);
            return merge_refuse("%s", err);
        }
    }
    o->tty = isatty(STDERR_FILENO);
    o->progress_at = -1;
    merge_sigs sigs;
    merge_sigs_open(&sigs);
    time_t said_at = 0;
    for (;;) {
        int k = 0, ended = 0, phased_ended = 0;
        char err[8400];
        merge_mark(all, n, seen, &unmarked);
        time_t newest = 0;
        double interval_s = 10;
        o->nwaiting = 0;
        for (int i = 0; i < n; i++) {
            merge_seg g = {.dir = all[i].dir};
            char path[4200];
            struct stat st;
            time_t mine = 0;
            snprintf(path, sizeof path, "%s/summary.json", g.dir);
            int there = stat(path, &st) == 0;
            if (there) mine = st.st_mtime;
            snprintf(path, sizeof path, "%s/intervals.csv", g.dir);   /* appended at every interval; */
            if (stat(path, &st) == 0 && st.st_mtime > mine)            /* summary.json less often */
                mine = st.st_mtime;
            time_t ph = there ? 0 : merge_phases_mtime(g.dir);  /* a phased run under way: its phases' files */
            if (ph > mine) mine = ph;
            if (mine > newest) newest = mine;
            merge_seen_update(&seen[i], mine);
            o->nwaiting += !there && !ph;
            if (there && merge_is_phased(g.dir)) {              /* a phased run that ended: merged at the end */
                phased_ended++;
                continue;
            }
            if (merge_read_seg(&g, err, sizeof err) != 0) {
                o->segs = &g, o->nsegs = 1, merge_reset(o);
                if (!there) continue;                  /* not started yet: wait */
                merge_sigs_close(&sigs);
                merge_unmark(all, n, seen);
                free(some), free(o->all), free(seen);
                output_close(o->outs);
                o->segs = all, o->nsegs = n;
                return merge_refuse("%s", err);
            }
            if (g.interval_s > 0) interval_s = g.interval_s;
            int running = strcmp(merge_str(g.root, "status"), "running") == 0;
            ended += !running;
            g.state = !running ? "done" : merge_seen_lost(&seen[i], &g, g.interval_s) ? "lost" : "running";
            some[k++] = g;
        }
        if (!last_change || newest > last_change) last_change = newest ? newest : time(NULL);
        double silent = difftime(time(NULL), last_change);
        o->segs = some, o->nsegs = k;
        int done = (k == n && ended == n) || phased_ended == n;
        if (k > 0 && !done) {
            int partial = o->allow_partial;
            o->live = 1, o->allow_partial = 1;
            json_t *missing = json_array();
            if (merge_check_set(o, missing, err, sizeof err) == 0) merge_write_once(o, missing);
            else fprintf(stderr, "luamech merge: %s\n", err);
            json_decref(missing);
            o->live = 0, o->allow_partial = partial;
        }
        merge_reset(o);
        if (done) break;
        double limit = 3 * interval_s + 10;
        if (!newest) limit = fmax(limit, MERGE_FIRST_WAIT_S);   /* nothing written yet: preflight and barrier */
        if (silent > limit) {
            fprintf(stderr, "luamech merge: --follow: no segment wrote anything for %.0f s (%d of %d ended): "
                            "merging what there is\n", silent, ended, n);
            break;
        }
        if (k == 0 && (!said_at || difftime(time(NULL), said_at) >= MERGE_WAIT_SAY_S)) {
            merge_say_waiting(all, n, seen, limit, silent);
            said_at = time(NULL);
        }
        if (merge_sigs_wait(&sigs, 1000)) break;
    }
    o->segs = all, o->nsegs = n;
    if (sigs.got) {                  /* the segments with a summary.json, as --allow-partial */
        int there = 0, in_phase = 0;
        for (int i = 0; i < n; i++) {
            char path[4200];
            snprintf(path, sizeof path, "%s/summary.json", all[i].dir);
            if (access(path, F_OK) == 0) some[there++] = (merge_seg){.dir = all[i].dir};
            else if (merge_phases_mtime(all[i].dir) > 0) in_phase++;
        }
        fprintf(stderr, "luamech merge: --follow stopped by %s: %s\n", sigs.got == SIGINT ? "SIGINT" :
                sigs.got == SIGTERM ? "SIGTERM" : "SIGHUP", there ? "merging what there is (status interrupted)"
                : in_phase ? "nothing merged: the segments are phased runs still in a phase (a phased run's "
                             "results are written when its last phase ends); merge them again when they end"
                : "no segment had written results: nothing merged");
        o->interrupted = 1, o->allow_partial = 1;
        o->segs = some, o->nsegs = there;
        code = there ? merge_once(o) : EXIT_INTERRUPTED;
        o->segs = all, o->nsegs = n;
    } else {
        code = merge_once(o);
    }
    merge_sigs_close(&sigs);
    merge_unmark(all, n, seen);
    output_close(o->outs);           /* --dashboard-linger: stays up until SIGINT/SIGTERM */
    free(some), free(o->all), free(seen);
    return code;
}

/* dir as an absolute path without symbolic links, ".", ".." or repeated
 * slashes, also when its last components do not exist yet (they will be
 * created as directories): the longest prefix that exists through
 * realpath, the rest collapsed as text.  0, or -1. */
static int merge_canon(const char *dir, char *buf, size_t len) {
    char path[PATH_MAX], head[PATH_MAX];
    if (dir[0] == '/') snprintf(path, sizeof path, "%s", dir);
    else {
        if (!getcwd(head, sizeof head)) return -1;
        if ((size_t)snprintf(path, sizeof path, "%s/%s", head, dir) >= sizeof path) return -1;
    }
    size_t cut = strlen(path);
    for (;;) {                                      /* the longest existing prefix, at a '/' */
        char c = path[cut];
        path[cut] = 0;
        int ok = realpath(cut ? path : "/", head) != NULL;
        path[cut] = c;
        if (ok) break;
        while (cut > 0 && path[--cut] != '/') {}
    }
    if (strlen(head) >= len) return -1;
    strcpy(buf, strcmp(head, "/") == 0 ? "" : head);
    for (char *save = NULL, *c = strtok_r(path + cut, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
        if (strcmp(c, ".") == 0) continue;
        if (strcmp(c, "..") == 0) {
            char *slash = strrchr(buf, '/');
            if (slash) *slash = 0;
            continue;
        }
        size_t used = strlen(buf);
        if (used + 1 + strlen(c) >= len) return -1;
        snprintf(buf + used, len - used, "/%s", c);
    }
    if (!buf[0]) snprintf(buf, len, "/");
    return 0;
}

/* --out may not be a segment's directory or inside one: the merged files
 * would replace or mix with the segment's own (exit 2). */
static int merge_check_out(const merge_opts *o) {
    char out[PATH_MAX], seg[PATH_MAX];
    if (merge_canon(o->out, out, sizeof out) != 0) return merge_usage("--out %s: path too long", o->out);
    for (int i = 0; i < o->nsegs; i++) {
        if (!realpath(o->segs[i].dir, seg)) continue;       /* not there (yet): its reading says so */
        size_t n = strlen(seg);
        if (strncmp(out, seg, n) == 0 && (out[n] == 0 || out[n] == '/' || n == 1)) {
            char msg[2 * PATH_MAX + 100];
            snprintf(msg, sizeof msg, "%s is %s segment %s: the merged files would overwrite its results (give "
                     "another directory)", o->out, out[n] ? "inside" : "the directory of", o->segs[i].dir);
            return merge_usage("--out %s", msg);
        }
    }
    return EXIT_OK;
}

int merge_cmd_main(int argc, char **argv) {
    merge_opts o;
    memset(&o, 0, sizeof o);
    int code = merge_parse(argc, argv, &o);
    if (code == EXIT_OK) code = merge_check_out(&o);
    if (code == EXIT_OK) code = o.follow ? merge_follow(&o) : merge_once(&o);
    free(o.segs);
    return code;
}
