/* report_cmd.c - `luamech report RESULTS_DIR`: re-renders report.html from
 * the result files saved in RESULTS_DIR (html/html.c) and prints its path.
 * Exit codes follow common/exit_codes.h: 0 written; 2 usage error; 3 the directory or its
 * summary.json is missing or invalid; 1 report.html could not be written.
 * With --distribution TIMER it prints that timer's latency distribution
 * from RESULTS_DIR/histograms.hlog instead (dist.c). */
#include "cmd/report_cmd.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/dist.h"
#include "common/exit_codes.h"
#include "html/html.h"

static const char report_usage[] =
"usage: luamech report RESULTS_DIR\n"
"       luamech report RESULTS_DIR --distribution TIMER [--style redis|ab]\n"
"\n"
"Renders RESULTS_DIR/report.html again from the result files of a run\n"
"(RESULTS_DIR/summary.json) and prints its path.  For a phased run's top\n"
"directory it also renders each phase's report.\n"
"\n"
"With --distribution, prints instead the latency distribution of TIMER (its\n"
"successful samples, all intervals of RESULTS_DIR/histograms.hlog merged):\n"
"  --style redis  (default) as redis-benchmark: \"X.XX% <= N milliseconds\"\n"
"                 for each millisecond that holds samples\n"
"  --style ab     as ab: \"Percentage of the requests served within a certain\n"
"                 time (ms)\", 50% to 100%\n"
"\n"
"exit codes:\n"
"  0  report.html was written (the distribution was printed)\n"
"  1  report.html could not be written\n"
"  2  usage error\n"
"  3  RESULTS_DIR or RESULTS_DIR/summary.json is missing or invalid (with\n"
"     --distribution: histograms.hlog is missing or invalid, or has no TIMER)\n";

static int report_cmd_bad(const char *what, const char *arg) {
    fprintf(stderr, "luamech: report: %s%s%s\nTry 'luamech report --help'.\n", what, arg ? " " : "",
            arg ? arg : "");
    return EXIT_USAGE;
}

int report_cmd_main(int argc, char **argv) {
    const char *dir = NULL, *timer = NULL, *style = NULL;
    int opts = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (opts && (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)) {
            fputs(report_usage, stdout);
            return EXIT_OK;
        }
        if (opts && strcmp(a, "--") == 0) {
            opts = 0;
            continue;
        }
        const char **val = NULL, *name = NULL;
        if (opts && strncmp(a, "--distribution", 14) == 0 && (a[14] == 0 || a[14] == '='))
            val = &timer, name = "--distribution";
        else if (opts && strncmp(a, "--style", 7) == 0 && (a[7] == 0 || a[7] == '='))
            val = &style, name = "--style";
        if (val) {
            const char *eq = strchr(a, '=');
            if (eq) *val = eq + 1;
            else if (i + 1 < argc) *val = argv[++i];
            else return report_cmd_bad("missing the value of", name);
            continue;
        }
        if (opts && a[0] == '-' && a[1] != 0) return report_cmd_bad("unknown option", a);
        if (dir) return report_cmd_bad("unexpected argument", a);
        dir = a;
    }
    if (!dir || !*dir) return report_cmd_bad("missing the RESULTS_DIR argument", NULL);
    if (style && !timer) return report_cmd_bad("--style needs --distribution TIMER", NULL);
    if (timer) return dist_cmd_print(dir, timer, style, stdout);

    char path[4200], err[4400];
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/') len--;     /* "dir/" -> "dir" */
    snprintf(path, sizeof path, "%.*s", (int)len, dir);
    struct stat st;
    snprintf(err, sizeof err, "%s/summary.json", path);
    if (stat(err, &st) == 0 && !S_ISREG(st.st_mode)) {   /* as summary_load says it (compare, merge) */
        fprintf(stderr, "luamech: report: %s: not a regular file\n", err);
        return EXIT_SCENARIO;
    }
    int rc = report_write_html_err(path, err, sizeof err);
    if (rc == -1) {
        fprintf(stderr, "luamech: report: %s\n", err);
        return EXIT_SCENARIO;
    }
    if (rc != 0) {
        fprintf(stderr, "luamech: report: %s\n", err);
        return EXIT_RUNTIME;
    }
    printf("%s/report.html\n", path);
    return EXIT_OK;
}
