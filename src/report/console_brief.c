/* console_brief.c - the compact end report, the console's default: the
 * verdict and the thresholds first, one table of the user's timers (All
 * Transactions, groups, custom timers, named requests) with count, rate,
 * errors and p50/p95/p99, the checks in one line (failing ones named), the
 * top errors and one line on generator health.  Everything else (engine
 * and per-primitive timers, the uncorrected views, interval details,
 * counters, metrics) is the full report's (console.c, --verbose or the
 * scenario's console = "full") and in the result files.  Names made at run
 * time are printed escaped (common/text.h).  Writes to a FILE only. */
#include "report/console.h"
#include "report/derived.h"
#include "report/view.h"

#include <stdlib.h>
#include <string.h>

#include "common/text.h"

#define BRIEF_ERRORS 5        /* messages shown per error table */
#define BRIEF_NAME_MIN 24     /* width of the timer name column */
#define BRIEF_NAME_MAX 48

/* Columns of a UTF-8 string (code points; an escaped name has no control byte). */
static int brief_width(const char *s) {
    int n = 0;
    for (; *s; s++) n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

const char *report_user_timer_name(const scenario *sc, const agg_timer *t, char *buf, size_t len) {
    if (t->twin_of || t->of || t->tags || t->role == TR_TWIN) return NULL;
    if (t->kind == TK_GROUP && t->group >= 0 && t->group < sc->ngroups) {
        char g[512];
        snprintf(buf, len, "group %s", text_clean(sc->groups[t->group].name, g, sizeof g));
        return buf;
    }
    int named_call = t->kind == TK_PRIMITIVE && strchr(t->name, ' ') != NULL && t->role == TR_NAMED;
    if (t->kind != TK_ALL && t->kind != TK_CUSTOM && !named_call) return NULL;
    return text_clean(t->name, buf, len);
}

/* Line 1: what ran and the verdict; line 2: how much, how fast, on what. */
static void brief_head(FILE *out, const scenario *sc, const run_result *r, int nth, int failed) {
    const agg_timer *all = agg_all(&r->agg);
    int64_t tx = all ? all->total.total + all->total_errors : 0, err = all ? all->total_errors : 0;
    double span = report_span_s(r);
    int vus = 0;
    char buf[512];
    for (int g = 0; g < sc->ngroups; g++) vus += sc->groups[g].vus;
    fprintf(out, "\nluamech %s - %s: %s", LUAMECH_VERSION, text_clean(sc->name, buf, sizeof buf),
            report_status_name(r->status));
    int64_t in_flight;
    int none;
    if (report_unfinished(r, &in_flight, &none, buf, sizeof buf) && none && in_flight)
        fprintf(out, ", 0 transactions completed (%lld in flight at the end)", (long long)in_flight);
    else if (none && r->status != RUN_ABORTED) fprintf(out, ", 0 transactions completed");
    if (nth > 0) fprintf(out, ", %s (%d of %d thresholds passed)", failed ? "FAIL" : "PASS", nth - failed, nth);
    else fprintf(out, ", no thresholds");
    fprintf(out, "\n%lld transactions, %lld errors (%.2f%%) in %.3f s: %.2f/s; %d VUs in %d group(s), %d worker(s)",
            (long long)tx, (long long)err, tx > 0 ? 100.0 * (double)err / (double)tx : 0.0, span,
            span > 0 ? (double)tx / span : 0.0, vus, sc->ngroups, r->nworkers);
    if (r->io[0]) fprintf(out, ", %s", r->io);
    fprintf(out, ", seed %llu\n", (unsigned long long)r->seed);
    if (r->stopped_by[0]) {
        char sb[4 * sizeof r->stopped_by];
        fprintf(out, "stopped by: %s\n", text_clean(r->stopped_by, sb, sizeof sb));
    }
    if (all && all->total_cancelled)
        fprintf(out, "cancelled: %lld (cut short by a hard stop; not in transactions)\n", (long long)all->total_cancelled);
    if (all && all->total_skipped)
        fprintf(out, "skipped arrivals: %lld (never started before the stop; not in transactions)\n",
                (long long)all->total_skipped);
    report_unfinished_console(out, r, 1);
    report_fast_failures_console(out, sc, r);
    if (r->agg.overflow_name)
        fprintf(out, "WARNING: more than max_timers = %d distinct timer names: \"%s\" and every later new name "
                "were counted under \"%s\"\n", r->agg.max_timers, text_clean(r->agg.overflow_name, buf, sizeof buf),
                r->agg.overflow_kind == TK_PRIMITIVE ? STATS_OTHER_PRIMITIVE : STATS_OTHER_CUSTOM);
}

static int brief_name_width(const scenario *sc, const run_result *r) {
    int w = BRIEF_NAME_MIN;
    for (int i = 0; i < r->agg.n; i++) {
        char buf[1024];
        const char *name = report_user_timer_name(sc, r->agg.timers[i], buf, sizeof buf);
        int n = name ? brief_width(name) : 0;
        if (n > w) w = n;
    }
    return w > BRIEF_NAME_MAX ? BRIEF_NAME_MAX : w;
}

/* The user's timers in the agg's order of kinds: All Transactions,
 * groups, custom timers, named requests; the default view only (from
 * the intended start where there is one). */
static void brief_timers(FILE *out, const scenario *sc, const run_result *r) {
    static const timer_kind kinds[] = {TK_ALL, TK_GROUP, TK_CUSTOM, TK_PRIMITIVE};
    int w = brief_name_width(sc, r), corrected = 0;
    for (int i = 0; i < r->agg.n; i++) corrected |= r->agg.timers[i]->uncorrected != NULL;
    fprintf(out, "\nTimers (ms; think time excluded%s)\n\n%-*s %10s %10s %8s %9s %9s %9s\n",
            corrected ? "; latency from the intended start" : "", w, "name", "count", "rate/s", "errors", "p50",
            "p95", "p99");
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        for (int i = 0; i < r->agg.n; i++) {
            const agg_timer *t = r->agg.timers[i];
            char buf[1024], c[3][32];
            const char *name = t->kind == kinds[k] ? report_user_timer_name(sc, t, buf, sizeof buf) : NULL;
            if (!name) continue;
            agg_row x;
            agg_timer_total_row(&x, t, report_span_s(r));
            int has = x.sampled > 0;
            fprintf(out, "%-*s %10lld %10.2f %8lld %s %s %s\n", w + (int)strlen(name) - brief_width(name), name,
                    (long long)x.count, x.rate, (long long)x.errors,
                    report_ms_cell(c[0], 32, 9, (double)x.p50_us, has), report_ms_cell(c[1], 32, 9, (double)x.p95_us, has),
                    report_ms_cell(c[2], 32, 9, (double)x.p99_us, has));
        }
}

/* One line: how many checks, passes and failures; the failing ones named. */
static void brief_checks(FILE *out, const run_result *r) {
    report_check *ck;
    int n = report_checks(&r->agg, &ck);
    int64_t passes = 0, fails = 0;
    int failing = 0;
    for (int i = 0; i < n; i++) passes += ck[i].passes, fails += ck[i].fails, failing += ck[i].fails > 0;
    if (n > 0)
        fprintf(out, "\nChecks: %d, %lld passes, %lld failures (%.2f%% passed)%s\n", n, (long long)passes,
                (long long)fails, passes + fails > 0 ? 100.0 * (double)passes / (double)(passes + fails) : 0.0,
                failing ? "; failing:" : "");
    for (int i = 0, shown = 0; i < n && shown < BRIEF_ERRORS; i++) {
        if (ck[i].fails == 0) continue;
        char buf[1024];
        fprintf(out, "  %-40s %10lld of %lld failed\n", text_clean(ck[i].name, buf, sizeof buf),
                (long long)ck[i].fails, (long long)(ck[i].fails + ck[i].passes));
        shown++;
    }
    free(ck);
}

static void brief_tally(FILE *out, const tally *t, const char *title) {
    if (tally_total(t) == 0) return;
    size_t *order, n = tally_sorted(t, &order);
    fprintf(out, "\n%s\n\n%10s  %s\n", title, "count", "message");
    for (size_t i = 0; i < n && i < BRIEF_ERRORS; i++)
        fprintf(out, "%10lld  %s\n", (long long)t->counts[order[i]], t->msgs[order[i]]);
    if (n > BRIEF_ERRORS || t->other)
        fprintf(out, "%10s  (%zu more message(s): errors.csv)\n", "...",
                n > BRIEF_ERRORS ? n - BRIEF_ERRORS : 0);
    free(order);
}

/* One line: the worst interval's CPU, CPU wait and loop lag, the dispatch
 * delay per transaction, and whether the run is suspect (its first reason). */
static void brief_health(FILE *out, const run_result *r) {
    health_row *h;
    int suspect;
    char why[1024];
    int n = report_health(r, &h, &suspect, why, sizeof why);
    double cpu = 0, wait = 0, lag = 0, ms, pct;
    for (int k = 0; k < n; k++) {
        if (h[k].cpu_pct > cpu) cpu = h[k].cpu_pct;
        if (h[k].cpu_wait_pct > wait) wait = h[k].cpu_wait_pct;
        if (h[k].lag_p99_ms > lag) lag = h[k].lag_p99_ms;
    }
    free(h);
    report_health_inflation(r, &ms, &pct);
    fprintf(out, "\nGenerator: %s (worst interval: cpu %.1f%%, cpu wait %.1f%%, loop lag p99 %.3f ms); latencies "
            "may be inflated by about %.3f ms (dispatch delay per transaction, %.1f%%)\n",
            suspect ? "SUSPECT" : "ok", cpu, wait, lag, ms, pct);
    if (!suspect) return;
    char *more = strstr(why, "; ");
    int extra = 0;
    for (char *p = more; p; p = strstr(p + 2, "; ")) extra++;
    if (more) *more = 0;
    fprintf(out, "WARNING: the generator may have been the bottleneck (%s%s): use more --workers, fewer VUs, or "
                 "another machine\n", why, extra ? "; and more intervals" : "");
}

/* One line for closed-loop groups: their latency cannot show stalls. */
static void brief_closed_note(FILE *out, const scenario *sc) {
    int n = 0;
    for (int g = 0; g < sc->ngroups; g++) {
        if (sc->groups[g].model != MODEL_CLOSED) continue;
        char buf[512];
        fprintf(out, "%s%s", n++ ? ", " : "\nNote: closed-loop group(s) ", text_clean(sc->groups[g].name, buf, sizeof buf));
    }
    if (n) fprintf(out, ": each VU waits for its response, so their latency cannot show server stalls "
                        "(docs/load-models.md).\n");
}

void report_console_brief(FILE *out, const scenario *sc, const run_result *r, const char *dir) {
    th_result *res = NULL;
    int failed = sc->nthresholds > 0 ? report_threshold_results(sc, r, &res) : 0;
    brief_head(out, sc, r, res ? sc->nthresholds : 0, failed);
    free(res);
    report_thresholds(out, sc, r);
    if (agg_all(&r->agg)) brief_timers(out, sc, r);
    else fprintf(out, "\n(no transactions)\n");
    brief_checks(out, r);
    brief_tally(out, &r->agg.errors, "Top errors (failed transactions)");
    brief_tally(out, &r->agg.req_errors, "Request errors (failed requests, whether or not the script raised them)");
    brief_health(out, r);
    brief_closed_note(out, sc);
    fprintf(out, "\n%s%s%sthe full report (engine and per-request timers, uncorrected views, intervals, "
                 "counters): --verbose\n\n", dir ? "results: " : "", dir ? dir : "", dir ? " (report.html); " : "");
    fflush(out);
}
