/* fastfail.c - "most transactions failed at once": when more than half of a
 * run's transactions failed in under 1 ms (a refused connection, a dead
 * server), its throughput and rates describe the failures, not the server.
 * This finds that case from the run's data alone (All Transactions' "(all)"
 * twin holds every sample, its timer the successes: the difference below
 * 1 ms is the fast failures; its per-interval rows give the stretch where
 * failures were the majority) and words it once, for the console, summary.json
 * ("fast_failures") and, through summary.json, report.html.  The cause it
 * names: a dead server, unless no request failed at all (then the script
 * raised the errors: the most frequent one is quoted).  It does not
 * look at the engine, and judges nothing: no exit code changes. */
#include "report/console.h"
#include "report/derived.h"
#include "report/results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#define FAST_US 1000               /* "in under 1 ms" */

/* Values below limit_us in h. */
static int64_t fastfail_below(const hist *h, int64_t limit_us) {
    int64_t n = 0;
    int32_t end = hist_index_of(limit_us);
    for (int32_t i = 0; i < end; i++) n += hist_count_at(h, i);
    return n;
}

/* The stretch of intervals where failures were the majority: first and last. */
static void fastfail_window(const agg_timer *t, double interval_s, double span_s, report_fastfail *ff) {
    int first = -1, last = -1;
    for (int k = 0; k < t->nrows; k++) {
        if (t->rows[k].count <= 0 || 2 * t->rows[k].errors <= t->rows[k].count) continue;
        if (first < 0) first = k;
        last = k;
    }
    if (first < 0) first = last = 0;
    ff->from_s = first * interval_s;
    ff->to_s = (last + 1) * interval_s;
    if (ff->to_s > span_s && span_s > ff->from_s) ff->to_s = span_s;
    ff->whole = first == 0 && last == t->nrows - 1;
}

/* Do closed groups without on_error.pause run in this scenario? */
static int fastfail_unpaused(const scenario *sc) {
    for (int g = 0; g < sc->ngroups; g++)
        if (sc->groups[g].model == MODEL_CLOSED && sc->groups[g].error_pause_ns == 0) return 1;
    return 0;
}

/* Why they failed, in words: with no failed request at all (the request
 * errors' tally is empty) the script raised the errors itself (error(),
 * assert on a value, a typo): the server is not blamed and the most
 * frequent message is quoted; else the server was probably down. */
static void fastfail_cause(const run_result *r, char *buf, size_t len) {
    size_t *order = NULL;
    const tally *t = &r->agg.errors;
    size_t n = tally_total(&r->agg.req_errors) == 0 ? tally_sorted(t, &order) : 0;
    if (n == 0) snprintf(buf, len, "the server was probably down");
    else snprintf(buf, len, "the script raised an error and no request failed (most often: \"%.120s%s\")",
                  t->msgs[order[0]], strlen(t->msgs[order[0]]) > 120 ? "..." : "");
    free(order);
}

int report_fast_failures(const scenario *sc, const run_result *r, report_fastfail *ff) {
    memset(ff, 0, sizeof *ff);
    const agg_timer *all = agg_all(&r->agg);
    if (!all || !all->all || all->total_errors == 0) return 0;
    ff->transactions = all->total.total + all->total_errors;
    ff->failed = all->total_errors;
    int64_t fast = fastfail_below(&all->all->total, FAST_US) - fastfail_below(&all->total, FAST_US);
    ff->fast = fast < 0 ? 0 : fast > ff->failed ? ff->failed : fast;
    ff->share = (double)ff->fast / (double)ff->transactions;
    if (2 * ff->fast <= ff->transactions) return 0;
    fastfail_window(all, (double)r->agg.interval_ns / 1e9, report_span_s(r), ff);
    char cause[200];
    fastfail_cause(r, cause, sizeof cause);
    int n = snprintf(ff->text, sizeof ff->text, "%.0f%% of transactions failed in under 1 ms: %s %s%.0f s to %.0f s%s",
                     100.0 * ff->share, cause, ff->whole ? "(from " : "from ", ff->from_s, ff->to_s,
                     ff->whole ? ", the whole run)" : "");
    if (n > 0 && (size_t)n < sizeof ff->text)
        n += snprintf(ff->text + n, sizeof ff->text - (size_t)n,
                      "; the throughput counts these failures, and checks ran only in transactions that got "
                      "that far");
    if (n > 0 && (size_t)n < sizeof ff->text && fastfail_unpaused(sc))
        snprintf(ff->text + n, sizeof ff->text - (size_t)n,
                 " (on_error = { pause = \"1s\" } in a closed group slows a failing VU down: docs/load-models.md)");
    return 1;
}

void report_fast_failures_console(FILE *out, const scenario *sc, const run_result *r) {
    report_fastfail ff;
    if (report_fast_failures(sc, r, &ff)) fprintf(out, "WARNING:              %s\n", ff.text);
}

struct json_t *report_fast_failures_json(const scenario *sc, const run_result *r) {
    report_fastfail ff;
    if (!report_fast_failures(sc, r, &ff)) return json_null();
    return json_pack("{s:I,s:I,s:I,s:f,s:i,s:f,s:f,s:s}", "transactions", (json_int_t)ff.transactions,
                     "failed", (json_int_t)ff.failed, "fast", (json_int_t)ff.fast, "share", ff.share,
                     "under_ms", FAST_US / 1000, "from_s", ff.from_s, "to_s", ff.to_s, "text", ff.text);
}
