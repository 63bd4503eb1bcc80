/* console.c - what a person sees: the live progress line and the full end
 * report (summary, workload, All Transactions, groups, custom timers,
 * primitives, top errors: --verbose or the scenario's console = "full"; the
 * compact default is console_brief.c's), and a segment's three-line end summary (the full report is
 * the merge's).  Times are printed in milliseconds.  Names that scripts make
 * at run time (timers, checks, counters) are printed escaped (common/text.h:
 * no control byte reaches the terminal); error messages are escaped already
 * in the tally.  Writes to a FILE only. */
#include "report/console.h"
#include "report/derived.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/text.h"
#include "common/units.h"

double report_ms(double us) { return us / 1000.0; }

const char *report_ms_cell(char *buf, size_t len, int w, double us, int has) {
    if (has) snprintf(buf, len, "%*.3f", w, report_ms(us));
    else snprintf(buf, len, "%*s\u2013", w > 1 ? w - 1 : 0, "");   /* "–": 1 column, 3 bytes */
    return buf;
}

double report_span_s(const run_result *r) {
    return (double)(r->span_ns > r->run_ns ? r->span_ns : r->run_ns) / 1e9;
}

const char *report_status_name(run_status s) {
    static const char *const names[] = {"completed", "interrupted", "aborted", "stuck"};
    return names[s];
}

/* The progress line's text, given its rate and p95 cell. */
static void report_progress_line(FILE *out, const agg *a, double elapsed_s, double total_s, double rate,
                                 const char *p95) {
    agg_timer *t = agg_all(a);
    int64_t tx = t ? t->total.total + t->total_errors : 0, err = t ? t->total_errors : 0;
    char el[32], tot[32];
    units_format_duration((int64_t)(elapsed_s * 1e9), el, sizeof el);
    if (total_s > 0) units_format_duration((int64_t)(total_s * 1e9), tot, sizeof tot);
    else snprintf(tot, sizeof tot, "-");
    fprintf(out, "[%8s / %-8s] vus %6lld  tx %10lld  %9.1f tx/s  errors %lld  p95 %s ms%s%s%s\n",
            el, tot, (long long)a->active_vus, (long long)tx, rate, (long long)err, p95,
            a->overflow_name ? "  WARNING: too many timer names (max_timers), from \"" : "",
            a->overflow_name ? a->overflow_name : "", a->overflow_name ? "\" on counted as (other)" : "");
    fflush(out);
}

void report_progress(FILE *out, const run_result *r, double elapsed_s, double total_s) {
    const agg *a = &r->agg;
    agg_timer *t = agg_all(a);
    char p95[32];
    report_ms_cell(p95, sizeof p95, 1, t ? (double)hist_percentile_us(&t->recent, 95) : 0, t && t->recent.total > 0);
    double rate = t ? (double)(t->recent.total + t->recent_errors) * 1e9 / (double)a->tick_ns : 0;
    report_progress_line(out, a, elapsed_s, total_s, rate, p95);
}

void report_progress_interval(FILE *out, const run_result *r, double total_s) {
    const agg *a = &r->agg;
    int k = a->nintervals - 1;
    if (k < 0) return;
    agg_timer *t = agg_all(a);
    const agg_row *row = t && k < t->nrows ? &t->rows[k] : NULL;
    double start_s, end_s;
    agg_interval_bounds(a, k, &start_s, &end_s);
    char p95[32];
    report_ms_cell(p95, sizeof p95, 1, row ? (double)row->p95_us : 0, row && row->sampled > 0);
    report_progress_line(out, a, end_s, total_s, row ? row->rate : 0, p95);
}

/* count, rate/s and errors lead; then the figures carrying FIG_OUT_CONSOLE. */
static void report_row_header(FILE *out, const char *first) {
    fprintf(out, "%-10s %10s %10s %7s", first, "count", "rate/s", "errors");
    for (int i = 0; i < FIG_N; i++)
        if (figures_table()[i].outputs & FIG_OUT_CONSOLE) fprintf(out, " %9s", figures_table()[i].name);
    fputc('\n', out);
}

static void report_row(FILE *out, const char *first, const agg_row *x) {
    fprintf(out, "%-10s %10lld %10.2f %7lld", first, (long long)x->count, x->rate, (long long)x->errors);
    for (int i = 0; i < FIG_N; i++) {
        const figure *f = &figures_table()[i];
        if (!(f->outputs & FIG_OUT_CONSOLE)) continue;
        char c[32];
        int has;
        double v = figure_value(f, x, &has);
        fprintf(out, " %s", report_ms_cell(c, sizeof c, 9, v * 1000.0, has));
    }
    fputc('\n', out);
}

/* Cancelled and skipped samples are not in count: said under the row. */
static void report_not_counted(FILE *out, const agg_row *x) {
    if (x->cancelled)
        fprintf(out, "%-10s %10lld cancelled (cut short by a hard stop; not in count)\n", "", (long long)x->cancelled);
    if (x->skipped)
        fprintf(out, "%-10s %10lld skipped (arrivals that never started before the stop; not in count)\n", "",
                (long long)x->skipped);
}

/* The "(all)" twin's totals: latency over every sample. */
static void report_all_samples(FILE *out, const run_result *r, const agg_timer *t) {
    if (!t->all || !agg_timer_reported(t->all)) return;
    agg_row x;
    agg_timer_total_row(&x, t->all, report_span_s(r));
    fprintf(out, "\nover all samples (\"%s\": failures at the time they failed%s%s)\n", t->all->name,
            x.cancelled ? ", cancelled ones when cancelled" : "",
            x.skipped ? ", skipped arrivals at their wait until the stop" : "");
    report_row(out, "all", &x);
}

static void report_timer(FILE *out, const run_result *r, const agg_timer *t, int intervals) {
    agg_row total;
    agg_timer_total_row(&total, t, report_span_s(r));
    report_row_header(out, "");
    report_row(out, "all", &total);
    report_not_counted(out, &total);
    report_all_samples(out, r, t);
    if (!intervals) return;
    fprintf(out, "\nInterval Details (ms)\n\n");
    report_row_header(out, "interval");
    for (int i = 0; i < t->nrows; i++) {
        char n[16];
        snprintf(n, sizeof n, "%d", i + 1);
        report_row(out, n, &t->rows[i]);
    }
}

static void report_summary(FILE *out, const scenario *sc, const run_result *r, const char *dir) {
    char buf[64], s0[32], s1[32];
    agg_timer *all = agg_all(&r->agg);
    strftime(s0, sizeof s0, "%Y-%m-%d %H:%M:%S", localtime(&r->start_wall.tv_sec));
    strftime(s1, sizeof s1, "%Y-%m-%d %H:%M:%S", localtime(&r->end_wall.tv_sec));
    fprintf(out, "\nluamech %s - Performance Results Report\n\nSummary\n\n", LUAMECH_VERSION);
    fprintf(out, "scenario:             %s (%s)\n", sc->name, sc->path);
    fprintf(out, "status:               %s\n", report_status_name(r->status));
    if (r->stopped_by[0]) {
        char buf[4 * sizeof r->stopped_by];
        fprintf(out, "stopped by:           %s\n", text_clean(r->stopped_by, buf, sizeof buf));
    }
    fprintf(out, "transactions:         %lld\n", all ? (long long)(all->total.total + all->total_errors) : 0LL);
    fprintf(out, "errors:               %lld\n", all ? (long long)all->total_errors : 0LL);
    if (all && all->total_cancelled)
        fprintf(out, "cancelled:            %lld (cut short by a hard stop; not in transactions)\n",
                (long long)all->total_cancelled);
    if (all && all->total_skipped)
        fprintf(out, "skipped arrivals:     %lld (never started before the stop; not in transactions)\n",
                (long long)all->total_skipped);
    report_unfinished_console(out, r, 14);
    report_fast_failures_console(out, sc, r);
    if (r->agg.overflow_name)
        fprintf(out, "WARNING:              more than max_timers = %d distinct timer names: \"%s\" and every "
                "later new name were counted under \"%s\"\n", r->agg.max_timers, r->agg.overflow_name,
                r->agg.overflow_kind == TK_PRIMITIVE ? STATS_OTHER_PRIMITIVE : STATS_OTHER_CUSTOM);
    fprintf(out, "run time:             %s\n", units_format_duration(r->run_ns, buf, sizeof buf));
    if (all && report_span_s(r) > 0)
        fprintf(out, "throughput:           %.2f transactions/s (%lld in %.3f s, the graceful stop's drain included)\n",
                (double)(all->total.total + all->total_errors) / report_span_s(r),
                (long long)(all->total.total + all->total_errors), report_span_s(r));
    fprintf(out, "rampup:               %s\n", units_format_duration(sc->rampup_ns, buf, sizeof buf));
    fprintf(out, "test start:           %s\ntest finish:          %s\n", s0, s1);
    fprintf(out, "time-series interval: %s\n", units_format_duration(sc->interval_ns, buf, sizeof buf));
    if (r->io[0]) fprintf(out, "socket I/O:           %s\n", r->io);
    fprintf(out, "workers:              %d\nseed:                 %llu\n", r->nworkers,
            (unsigned long long)r->seed);
    if (dir) fprintf(out, "results:              %s\n", dir);
    fprintf(out, "\nworkload configuration:\n\n%-24s %8s  %s\n", "group name", "vus", "script name");
    for (int g = 0; g < sc->ngroups; g++)
        fprintf(out, "%-24s %8d  %s\n", sc->groups[g].name, sc->groups[g].vus, sc->groups[g].script_name);
    if (sc->notes) fprintf(out, "\nNotes:\n\n%s\n", sc->notes);
}

int report_checks(const agg *a, report_check **out) {
    int n = 0;
    *out = calloc((size_t)a->ncounters + 1, sizeof **out);
    for (int i = 0; i < a->ncounters; i++) {
        const agg_counter *c = a->counters[i];
        int pass = c->kind == CK_CHECK_PASS;
        if (!pass && c->kind != CK_CHECK_FAIL) continue;
        const char *name = c->base;
        int k = 0;
        while (k < n && strcmp((*out)[k].name, name) != 0) k++;
        if (k == n) (*out)[n++].name = name;
        if (pass) (*out)[k].passes += c->total;
        else (*out)[k].fails += c->total;
    }
    return n;
}

static void report_checks_table(FILE *out, const run_result *r) {
    report_check *ck;
    int n = report_checks(&r->agg, &ck);
    if (n > 0) fprintf(out, "\nChecks\n\n%-40s %12s %12s %10s\n", "name", "passes", "failures", "pass rate");
    for (int i = 0; i < n; i++) {
        double all = (double)(ck[i].passes + ck[i].fails);
        char buf[1024];
        fprintf(out, "%-40s %12lld %12lld %9.2f%%\n", text_clean(ck[i].name, buf, sizeof buf),
                (long long)ck[i].passes,
                (long long)ck[i].fails, all > 0 ? 100.0 * (double)ck[i].passes / all : 0);
    }
    free(ck);
}

static void report_counters_table(FILE *out, const run_result *r) {
    int shown = 0;
    for (int i = 0; i < r->agg.ncounters; i++) {
        const agg_counter *c = r->agg.counters[i];
        if (c->kind != CK_PLAIN) continue;      /* checks, metrics and the engine's have tables of their own */
        if (!shown++) fprintf(out, "\nCounters\n\n%-40s %16s %14s\n", "name", "total", "per second");
        char buf[1024];
        fprintf(out, "%-40s %16lld %14.2f\n", text_clean(c->name, buf, sizeof buf), (long long)c->total,
                report_span_s(r) > 0 ? (double)c->total / report_span_s(r) : 0);
    }
}

/* ab's "Percentage of the requests served within a certain time". */
static void report_ladder(FILE *out, const agg_timer *t) {
    static const double pcts[] = {50, 66, 75, 80, 90, 95, 98, 99, 99.9, 100};
    if (!t || t->total.total == 0) return;
    fprintf(out, "\nPercentage of the transactions served within a certain time (ms)\n");
    for (size_t i = 0; i < sizeof pcts / sizeof pcts[0]; i++)
        fprintf(out, "  %5g%%  %10.3f%s\n", pcts[i], report_ms((double)hist_percentile_us(&t->total, pcts[i])),
                pcts[i] == 100 ? " (longest transaction)" : "");
}

static void report_tally(FILE *out, const tally *t, const char *title) {
    if (tally_total(t) == 0) return;
    size_t *order, n = tally_sorted(t, &order);
    fprintf(out, "\n%s\n\n%10s  %s\n", title, "count", "message");
    for (size_t i = 0; i < n && i < 20; i++)
        fprintf(out, "%10lld  %s\n", (long long)t->counts[order[i]], t->msgs[order[i]]);
    if (n > 20) fprintf(out, "%10s  (%zu more messages in errors.csv)\n", "...", n - 20);
    if (t->other) fprintf(out, "%10lld  (other messages, beyond the 1000 kept)\n", (long long)t->other);
    free(order);
}

/* The timers of one kind, each followed by its "(uncorrected)" twin (the
 * twin is known from the data: agg_timer.uncorrected); a group's timer
 * under its group's name. */
static void report_kind(FILE *out, const scenario *sc, const run_result *r, timer_kind kind, const char *title,
                        int intervals) {
    for (int i = 0; i < r->agg.n; i++) {
        const agg_timer *t = r->agg.timers[i];
        if (t->kind != kind || t->twin_of || t->of) continue;
        const agg_timer *twin = t->uncorrected;
        char buf[1024];
        int in_group = kind == TK_GROUP && t->group >= 0 && t->group < sc->ngroups;
        const char *name = text_clean(in_group ? sc->groups[t->group].name : t->name, buf, sizeof buf);
        fprintf(out, "\n%s: %s%s\n\n", title, name, twin ? " (latency from the intended start)" : "");
        report_timer(out, r, t, intervals);
        if (!twin) continue;
        fprintf(out, "\n%s: %s (uncorrected: latency from the actual start)\n\n", title, name);
        report_timer(out, r, twin, intervals);
    }
}

/* Per stage of each staged group: rate over the stage's own length. */
static void report_stages(FILE *out, const scenario *sc, const run_result *r) {
    stage_row *rows;
    int n = report_stage_rows(sc, r, &rows);
    const char *group = NULL;
    for (int i = 0; i < n; i++) {
        const stage_row *x = &rows[i];
        if (!group || strcmp(group, x->group->name) != 0) {
            group = x->group->name;
            fprintf(out, "\nStages of %s (%s)\n\n%-6s %10s %10s %10s %10s %10s %8s %9s %9s %9s\n", group,
                    x->group->model == MODEL_RATE ? "target: transactions/s" : "target: VUs", "stage", "from",
                    "to", "length s", "count", "rate/s", "errors", "p50", "p95", "p99");
        }
        char c[3][32];
        int has = x->row.sampled > 0;
        fprintf(out, "%-6d %10.1f %10.1f %10.3f %10lld %10.2f %8lld %s %s %s\n", x->stage, x->from,
                x->to, x->row.period_s, (long long)x->row.count, x->row.rate, (long long)x->row.errors,
                report_ms_cell(c[0], 32, 9, (double)x->row.p50_us, has), report_ms_cell(c[1], 32, 9, (double)x->row.p95_us, has),
                report_ms_cell(c[2], 32, 9, (double)x->row.p99_us, has));
    }
    free(rows);
}

/* Once, where latency is shown: a closed loop cannot show stalls. */
static void report_closed_caveat(FILE *out, const scenario *sc) {
    int n = 0;
    for (int g = 0; g < sc->ngroups; g++) {
        if (sc->groups[g].model != MODEL_CLOSED) continue;
        fprintf(out, "%s%s", n++ ? ", " : "\nNote: closed-loop group(s) ", sc->groups[g].name);
    }
    if (n == 0) return;
    fprintf(out, ": each VU waits for a response before its next request, so a server stall holds the\n"
                 "requests back instead of showing in their latency (a 1 s freeze shows in a handful of samples):\n"
                 "these latency figures cannot show stalls. Groups with an arrival rate (rate = N) measure from\n"
                 "the intended start and do (docs/load-models.md, \"Latency from the intended start\").\n");
}

/* A segment's end report (--segment i/N): three lines for a job log; the
 * full report is the merge's, made from every segment's results. */
void report_console_segment(FILE *out, const scenario *sc, const run_result *r, const char *dir, int code) {
    agg_timer *t = agg_all(&r->agg);
    int64_t ok = t ? t->total.total : 0, err = t ? t->total_errors : 0;
    double span = report_span_s(r);
    char buf[256];
    const char *name = text_clean(sc->name, buf, sizeof buf);
    fprintf(out, "segment %d/%d of %s: %s (exit %d), %lld transactions, %lld errors, %.3f s, %.2f/s",
            sc->seg_index, sc->seg_count, name, report_status_name(r->status), code, (long long)(ok + err),
            (long long)err, span, span > 0 ? (double)(ok + err) / span : 0.0);
    if (ok > 0) fprintf(out, ", p95 %.3f ms", report_ms((double)hist_percentile_us(&t->total, 95)));
    fprintf(out, "\nresults: %s\nthe full report is the merge's: luamech merge SEGMENT_DIR... --out DIR\n", dir);
    fflush(out);
}

void report_console(FILE *out, const scenario *sc, const run_result *r, const char *dir, int full) {
    if (!full && !sc->console_full) {
        report_console_brief(out, sc, r, dir);
        return;
    }
    report_summary(out, sc, r, dir);
    agg_timer *all = agg_all(&r->agg);
    const agg_timer *twin = all ? all->uncorrected : NULL;
    fprintf(out, "\nAll Transactions\n\nTransaction Response Summary (ms; think time excluded%s)\n\n",
            twin ? "; latency from the intended start" : "");
    if (all) report_timer(out, r, all, 1);
    else fprintf(out, "(no transactions)\n");
    report_ladder(out, all);
    report_closed_caveat(out, sc);
    if (twin) {
        fprintf(out, "\nAll Transactions, uncorrected (latency from the actual start, as closed-loop tools report it)\n\n");
        report_timer(out, r, twin, 1);
    }
    report_kind(out, sc, r, TK_GROUP, "Group", 0);
    report_stages(out, sc, r);
    report_kind(out, sc, r, TK_CUSTOM, "Custom Timer", 1);
    report_kind(out, sc, r, TK_PRIMITIVE, "Primitive", 0);
    report_health_table(out, r);
    report_checks_table(out, r);
    report_thresholds(out, sc, r);
    report_counters_table(out, r);
    report_metrics(out, r);
    report_tally(out, &r->agg.errors, "Top errors (failed transactions)");
    report_tally(out, &r->agg.req_errors, "Request errors (failed requests, whether or not the script raised them)");
    fprintf(out, "\n");
    fflush(out);
}
