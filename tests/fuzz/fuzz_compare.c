/* fuzz_compare.c - fuzz harness for compare's arguments and arithmetic.
 * The input is NUL-separated words.  Each word goes through cmp_limit_parse
 * (an accepted limit's normalised text must parse again to the same limit)
 * and cmp_amount_parse; the words also form a whole `luamech compare` command
 * line (output to /dev/null, opened once per process); and the bytes, read
 * as doubles, feed the median and the Mann-Whitney test, exact or
 * approximated (p must be NAN or within [0, 1]).
 * Properties: those, plus no crash, leak or undefined behaviour. */
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/compare.h"

static void fz_cmp_limit(const char *w) {
    cmp_limit l, again;
    char err[256];
    if (cmp_limit_parse(w, &l, err, sizeof err) != 0) {
        if (!err[0]) abort();
        return;
    }
    if (cmp_limit_parse(l.text, &again, err, sizeof err) != 0) abort();
    if (again.fig != l.fig || again.op != l.op || again.or_equal != l.or_equal ||
        again.absolute != l.absolute || again.has_floor != l.has_floor)
        abort();
    cmp_limit_exceeded(&l, 1.0, 2.0);
    cmp_limit_exceeded(&l, 0.0, 0.0);
    cmp_limit_exceeded(&l, 5.0, 0.5);
    cmp_unit u;
    double v;
    cmp_amount_parse(w, &u, &v, err, sizeof err);
}

/* Up to 10 values take the exact test's path (at most C(10, 5) = 252
 * splits); 22 to 32 its normal approximation (C(22, 11) > 200,000 splits);
 * sizes in between would only make the exact path slower. */
static void fz_cmp_stats(const uint8_t *data, size_t size) {
    double a[16], b[16];
    size_t n = size / sizeof(double) > 32 ? 32 : size / sizeof(double);
    if (n > 10 && n < 22) n = 10;
    size_t na = n / 2, nb = n - na;
    memcpy(a, data, na * sizeof(double));
    memcpy(b, data + na * sizeof(double), nb * sizeof(double));
    for (size_t i = 0; i < na; i++) if (!isfinite(a[i])) a[i] = 0;
    for (size_t i = 0; i < nb; i++) if (!isfinite(b[i])) b[i] = 0;
    double p = cmp_mwu_p(a, na, b, nb, data[0] & 1);
    if (!isnan(p) && (p < 0 || p > 1 + 1e-9)) abort();
    cmp_median(a, na);
}

/* /dev/null and the real stdout and stderr, opened and duplicated once:
 * fds[0] /dev/null, fds[1] stdout, fds[2] stderr. */
static const int *fz_cmp_fds(void) {
    static int fds[3] = {-1, -1, -1};
    if (fds[0] < 0) {
        fds[0] = open("/dev/null", O_WRONLY);
        fds[1] = dup(1);
        fds[2] = dup(2);
        if (fds[0] < 0 || fds[1] < 0 || fds[2] < 0) abort();
    }
    return fds;
}

static void fz_cmp_cmdline(char **argv, int argc) {
    const int *fds = fz_cmp_fds();
    fflush(stdout);
    if (dup2(fds[0], 1) < 0 || dup2(fds[0], 2) < 0) abort();
    compare_cmd_main(argc, argv);
    fflush(stdout);
    if (dup2(fds[1], 1) < 0 || dup2(fds[2], 2) < 0) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 4096) return 0;
    char *copy = malloc(size + 1);
    char *argv[66];
    int argc = 1;
    if (!copy) abort();
    memcpy(copy, data, size);
    copy[size] = 0;
    argv[0] = "compare";
    for (char *w = copy; w < copy + size + 1 && argc < 65; w += strlen(w) + 1) {
        fz_cmp_limit(w);
        argv[argc++] = w;
    }
    argv[argc] = NULL;
    fz_cmp_cmdline(argv, argc);
    fz_cmp_stats(data, size);
    free(copy);
    return 0;
}
