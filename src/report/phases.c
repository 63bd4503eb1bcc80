/* phases.c - the "together" view of a phased scenario (seed 003's write
 * phase then read phase): one row per phase with its transactions, time
 * taken, rate and latency, on the console, in summary.json and phases.csv of
 * the top results directory, with the verdict of the scenario's top-level
 * thresholds (summary.json's "thresholds", junit.xml); on the console
 * also a table of the runs' custom timers, per timer and run.  Each phase's full results are in its own
 * subdirectory, written by the usual writers. */
#include "report/console.h"
#include "report/derived.h"
#include "report/results.h"
#include "report/schema.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/text.h"

/* The latency figures of a phase's line (console, phases.csv, summary.json). */
#define PHASE_NFIGS 4
static const fig_id phase_figs[PHASE_NFIGS] = {FIG_P50, FIG_P95, FIG_P99, FIG_MAX};

typedef struct phase_row {
    const char *name, *status;
    int64_t tx, errors;
    double secs, rate, ms[PHASE_NFIGS];   /* the figures phase_figs, of All Transactions */
    int has_latency;          /* a successful transaction: else the latencies are no data */
} phase_row;

static void phases_row(phase_row *p, const scenario *ph, const run_result *r) {
    const agg_timer *all = agg_all(&r->agg);
    memset(p, 0, sizeof *p);
    p->name = ph->name;
    p->status = report_status_name(r->status);
    p->secs = (double)r->run_ns / 1e9;
    if (!all) return;
    p->tx = all->total.total + all->total_errors;
    p->errors = all->total_errors;
    p->rate = report_span_s(r) > 0 ? (double)p->tx / report_span_s(r) : 0;   /* drain included */
    p->has_latency = all->total.total > 0;
    for (int k = 0; k < PHASE_NFIGS; k++)
        p->ms[k] = report_ms(figure_of_hist_us(figure_get(phase_figs[k]), &all->total));
}

/* Is t a custom timer of its own (not a twin), named as `name` when given? */
static int phases_is_custom(const agg_timer *t, const char *name) {
    return t->kind == TK_CUSTOM && !t->twin_of && !t->of && (!name || strcmp(t->name, name) == 0);
}

/* Was this custom timer name listed by an earlier run (or earlier in run i)? */
static int phases_custom_seen(const run_result *rs, int i, int k) {
    const char *name = rs[i].agg.timers[k]->name;
    for (int j = 0; j <= i; j++)
        for (int m = 0; m < (j == i ? k : rs[j].agg.n); m++)
            if (phases_is_custom(rs[j].agg.timers[m], name)) return 1;
    return 0;
}

/* The custom timers of the runs, one row per timer and run (a run without
 * it has none): count, errors, rate and p50/p95/p99 over the run. */
static void phases_custom(FILE *out, const scenario *sc, const run_result *rs, int n) {
    int shown = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < rs[i].agg.n; k++) {
            const agg_timer *t = rs[i].agg.timers[k];
            if (!phases_is_custom(t, NULL) || phases_custom_seen(rs, i, k)) continue;
            if (!shown++)
                fprintf(out, "\nCustom timers of the %ss (ms)\n\n%-24s %-20s %12s %8s %12s %9s %9s %9s\n",
                        sc->is_suite ? "run" : "phase", "timer", sc->is_suite ? "run" : "phase", "count", "errors",
                        "per second", "p50", "p95", "p99");
            for (int j = 0; j < n; j++)
                for (int m = 0; m < rs[j].agg.n; m++) {
                    if (!phases_is_custom(rs[j].agg.timers[m], t->name)) continue;
                    agg_row x;
                    char nb[1024], c[3][32];
                    agg_timer_total_row(&x, rs[j].agg.timers[m], report_span_s(&rs[j]));
                    int has = x.sampled > 0;
                    fprintf(out, "%-24s %-20s %12lld %8lld %12.2f %s %s %s\n", text_clean(t->name, nb, sizeof nb),
                            sc->phases[j].name, (long long)x.count, (long long)x.errors, x.rate,
                            report_ms_cell(c[0], 32, 9, (double)x.p50_us, has),
                            report_ms_cell(c[1], 32, 9, (double)x.p95_us, has),
                            report_ms_cell(c[2], 32, 9, (double)x.p99_us, has));
                }
        }
}

void report_phases(FILE *out, const scenario *sc, const run_result *rs, int n) {
    int64_t tx = 0, errors = 0;
    double secs = 0;
    const char *what = sc->is_suite ? "run" : "phase";
    fprintf(out, "\n%s of %s (each %s's report is above; times in ms)\n\n", sc->is_suite ? "Runs" : "Phases",
            sc->name, what);
    fprintf(out, "%-20s %-12s %12s %8s %10s %12s", what, "status", "transactions", "errors", "time (s)", "per second");
    for (int k = 0; k < PHASE_NFIGS; k++) fprintf(out, " %9s", figure_get(phase_figs[k])->name);
    fputc('\n', out);
    for (int i = 0; i < n; i++) {
        phase_row p;
        phases_row(&p, &sc->phases[i], &rs[i]);
        char c[PHASE_NFIGS][32];
        for (int k = 0; k < PHASE_NFIGS; k++) report_ms_cell(c[k], sizeof c[k], 9, p.ms[k] * 1000, p.has_latency);
        fprintf(out, "%-20s %-12s %12lld %8lld %10.3f %12.2f %s %s %s %s\n", p.name, p.status,
                (long long)p.tx, (long long)p.errors, p.secs, p.rate, c[0], c[1], c[2], c[3]);
        tx += p.tx;
        errors += p.errors;
        secs += p.secs;
    }
    fprintf(out, "%-20s %-12s %12lld %8lld %10.3f %12.2f\n", sc->is_suite ? "all runs" : "all phases", "", (long long)tx,
            (long long)errors, secs, secs > 0 ? (double)tx / secs : 0);
    if (n < sc->nphases) fprintf(out, "(%d of %d %ss ran)\n", n, sc->nphases, what);
    phases_custom(out, sc, rs, n);
    fflush(out);
}

/* A quoted CSV field: '"' doubled (names may hold any printable text). */
static void phases_csv_name(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static int phases_write_csv(const char *dir, const scenario *sc, const run_result *rs, int n) {
    char path[4200];
    snprintf(path, sizeof path, "%s/phases.csv", dir);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "phase,name,status,transactions,errors,time_s,rate");
    for (int k = 0; k < PHASE_NFIGS; k++) fprintf(f, ",%s", figure_get(phase_figs[k])->key);
    fputc('\n', f);
    for (int i = 0; i < n; i++) {
        phase_row p;
        phases_row(&p, &sc->phases[i], &rs[i]);
        fprintf(f, "%d,", i + 1);
        phases_csv_name(f, p.name);
        fprintf(f, ",%s,%lld,%lld,%.3f,%.3f", p.status, (long long)p.tx, (long long)p.errors, p.secs, p.rate);
        for (int k = 0; k < PHASE_NFIGS; k++) {
            if (p.has_latency) fprintf(f, ",%.3f", p.ms[k]);
            else fputc(',', f);             /* no latency: empty, not 0 */
        }
        fputc('\n', f);
    }
    return fclose(f);
}

int report_write_phases(const char *dir, const scenario *sc, const run_result *rs, int n, int exit_code) {
    json_t *arr = json_array();
    const char *status = "completed";
    for (int i = 0; i < n; i++) {
        phase_row p;
        phases_row(&p, &sc->phases[i], &rs[i]);
        char sub[512];
        report_phase_subdir(sub, sizeof sub, i, p.name);
        if (rs[i].status != RUN_COMPLETED) status = p.status;
        json_t *o = json_pack("{s:s,s:s,s:s,s:I,s:I,s:f,s:f}", "name", p.name, "dir", sub, "status", p.status,
            "transactions", (json_int_t)p.tx, "errors", (json_int_t)p.errors, "run_time_s", p.secs, "rate", p.rate);
        for (int k = 0; o && k < PHASE_NFIGS; k++)
            json_object_set_new(o, figure_get(phase_figs[k])->key, p.has_latency ? json_real(p.ms[k]) : json_null());
        json_array_append_new(arr, o);
    }
    json_t *root = json_pack("{s:i,s:s,s:s,s:s,s:s,s:s,s:i,s:i,s:i,s:o}", "schema_version",
        RESULTS_SCHEMA_VERSION, "tool", "luamech", "version", LUAMECH_VERSION, "scenario", sc->name,
        "scenario_file", sc->path, "status", status, "exit_code", exit_code, "phases_planned", sc->nphases,
        "phases_run", n, "phases", arr);
    if (root && sc->nthresholds > 0) json_object_set_new(root, "thresholds", report_run_thresholds_json(sc, rs, n));
    if (root && sc->seg_count > 0) {           /* a segment's (luamech merge checks them) */
        json_object_set_new(root, "segment", json_pack("{s:i,s:i}", "index", sc->seg_index, "count", sc->seg_count));
        json_object_set_new(root, "scenario_hash", json_string(sc->hash));
    }
    char path[4200], tmp[4200];
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/summary.json", dir);
    snprintf(tmp, sizeof tmp, "%s/.summary.json.tmp", dir);
    int rc = json_dump_file(root, tmp, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    json_decref(root);
    if (rc == 0) rc = rename(tmp, path);
    return rc | phases_write_csv(dir, sc, rs, n) | report_write_run_junit(dir, sc, rs, n);
}
