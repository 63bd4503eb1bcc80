/* thresholds.c - evaluates a scenario's pass/fail criteria on a finished
 * (or running) run and writes them: a console table, summary.json's
 * "thresholds" and DIR/junit.xml for CI systems. */
#include "report/report.h"

#include <stdlib.h>
#include <string.h>

int report_threshold_results(const scenario *sc, const run_result *r, th_result **out) {
    *out = calloc((size_t)sc->nthresholds + 1, sizeof **out);
    int failed = 0;
    for (int i = 0; i < sc->nthresholds; i++) {
        th_result *x = &(*out)[i];
        x->t = &sc->thresholds[i];
        x->measured = threshold_measure(x->t, &r->agg, (double)r->run_ns / 1e9, &x->found);
        x->passed = x->found && threshold_passes(x->t, x->measured);
        failed += !x->passed;
    }
    return failed;
}

int report_thresholds_failed(const scenario *sc, const run_result *r) {
    th_result *res;
    int failed = report_threshold_results(sc, r, &res);
    free(res);
    return failed;
}

void report_thresholds(FILE *out, const scenario *sc, const run_result *r) {
    if (sc->nthresholds == 0) return;
    th_result *res;
    int failed = report_threshold_results(sc, r, &res);
    fprintf(out, "\nThresholds (%d of %d passed)\n\n%-44s %16s  %s\n", sc->nthresholds - failed,
            sc->nthresholds, "criterion", "measured", "result");
    for (int i = 0; i < sc->nthresholds; i++) {
        char m[64];
        if (res[i].found) snprintf(m, sizeof m, "%.3f %s", res[i].measured, threshold_unit(res[i].t));
        else snprintf(m, sizeof m, "(no data)");
        fprintf(out, "%-44s %16s  %s\n", res[i].t->text, m, res[i].passed ? "pass" : "FAIL");
    }
    free(res);
}

static void thresholds_xml_escape(FILE *f, const char *s) {
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

int report_write_junit(const char *dir, const scenario *sc, const run_result *r) {
    if (sc->nthresholds == 0) return 0;
    char path[4200];
    snprintf(path, sizeof path, "%s/junit.xml", dir);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    th_result *res;
    int failed = report_threshold_results(sc, r, &res);
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"luamech.");
    thresholds_xml_escape(f, sc->name);
    fprintf(f, "\" tests=\"%d\" failures=\"%d\" time=\"%.3f\">\n", sc->nthresholds, failed, (double)r->run_ns / 1e9);
    for (int i = 0; i < sc->nthresholds; i++) {
        fprintf(f, "  <testcase classname=\"luamech.thresholds\" name=\"");
        thresholds_xml_escape(f, res[i].t->text);
        fprintf(f, "\">");
        if (!res[i].passed) {
            fprintf(f, "<failure message=\"");
            if (res[i].found) fprintf(f, "measured %.3f %s", res[i].measured, threshold_unit(res[i].t));
            else fprintf(f, "no data for %s", res[i].t->timer);
            fprintf(f, "\"/>");
        }
        fprintf(f, "</testcase>\n");
    }
    fprintf(f, "</testsuite>\n");
    free(res);
    return fclose(f);
}
