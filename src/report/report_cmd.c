/* report_cmd.c - `luamech report RESULTS_DIR`: re-renders report.html from
 * the result files saved in RESULTS_DIR (see html.c) and prints its path.
 * Exit codes follow cli.h: 0 written; 2 usage error; 3 the directory or its
 * summary.json is missing or invalid; 1 report.html could not be written. */
#include "report/report.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char report_usage[] =
"usage: luamech report RESULTS_DIR\n"
"\n"
"Renders RESULTS_DIR/report.html again from the result files of a run\n"
"(RESULTS_DIR/summary.json) and prints its path.  For a phased run's top\n"
"directory it also renders each phase's report.\n"
"\n"
"exit codes:\n"
"  0  report.html was written\n"
"  1  report.html could not be written\n"
"  2  usage error\n"
"  3  RESULTS_DIR or RESULTS_DIR/summary.json is missing or invalid\n";

static int report_cmd_bad(const char *what, const char *arg) {
    fprintf(stderr, "luamech: report: %s%s%s\nTry 'luamech report --help'.\n", what, arg ? " " : "",
            arg ? arg : "");
    return EXIT_USAGE;
}

int report_cmd_main(int argc, char **argv) {
    const char *dir = NULL;
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
        if (opts && a[0] == '-' && a[1] != 0) return report_cmd_bad("unknown option", a);
        if (dir) return report_cmd_bad("unexpected argument", a);
        dir = a;
    }
    if (!dir || !*dir) return report_cmd_bad("missing the RESULTS_DIR argument", NULL);

    char path[4200], err[4400];
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/') len--;     /* "dir/" -> "dir" */
    snprintf(path, sizeof path, "%.*s", (int)len, dir);
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
