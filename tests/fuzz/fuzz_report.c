/* fuzz_report.c - fuzz harness for `luamech report` on a crafted results
 * directory.  The input is up to three parts separated by NUL bytes:
 * summary.json, a phase's summary.json (in the sub-folder "p1", which the
 * first may name as a phase "dir") and histograms.hlog.  The harness writes
 * them into a private folder and renders report.html (html.c) and both
 * latency distributions (dist.c).  Properties: no crash, no leak, no
 * undefined behaviour, and a refusal always says why.  stderr of dist.c
 * goes to /dev/null while it runs.  Per input the harness writes only the
 * parts that differ from the previous input's (the files already hold the
 * rest) and keeps /dev/null open: what is rendered is the same. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/dist.h"
#include "html/html.h"

static char fz_report_dirbuf[64];

static void fz_report_cleanup(void) {
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf %s", fz_report_dirbuf);
    if (system(cmd) != 0) fprintf(stderr, "fuzz: could not remove %s\n", fz_report_dirbuf);
}

/* In /dev/shm when it can be written (no disk writeback per input), else
 * /tmp; removed at exit. */
static const char *fz_report_dir(void) {
    char *dir = fz_report_dirbuf;
    if (dir[0]) return dir;
    snprintf(dir, sizeof fz_report_dirbuf, "%s/luamech-fuzz-report-%d",
             access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", (int)getpid());
    char cmd[160];
    snprintf(cmd, sizeof cmd, "mkdir -p %s/p1", dir);
    if (system(cmd) != 0) abort();
    atexit(fz_report_cleanup);
    return dir;
}

/* The last bytes written to each part's file: a part the input did not
 * change is not written again (the file already holds exactly it; the
 * code under test only reads these files). */
typedef struct fz_report_file {
    uint8_t *data;
    size_t size;
    int written;
} fz_report_file;

static void fz_report_put(fz_report_file *last, const char *name, const uint8_t *data, size_t size) {
    if (last->written && last->size == size && (size == 0 || memcmp(last->data, data, size) == 0)) return;
    char path[160];
    snprintf(path, sizeof path, "%s/%s", fz_report_dir(), name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) abort();
    if (size && write(fd, data, size) != (ssize_t)size) abort();
    if (close(fd) != 0) abort();
    uint8_t *copy = realloc(last->data, size ? size : 1);
    if (!copy) abort();
    if (size) memcpy(copy, data, size);
    last->data = copy, last->size = size, last->written = 1;
}

/* stderr (dist.c's messages) and the distributions go to /dev/null, opened
 * once; *saved is the real stderr, duplicated once. */
static FILE *fz_report_null(int *saved) {
    static FILE *null;
    static int saved_fd = -1;
    if (!null) {
        null = fopen("/dev/null", "w");
        saved_fd = dup(2);
        if (!null || saved_fd < 0) abort();
    }
    *saved = saved_fd;
    return null;
}

/* Part k (0-based) of the input, NUL-separated: *size bytes at the return. */
static const uint8_t *fz_report_part(const uint8_t *data, size_t size, int k, size_t *len) {
    const uint8_t *p = data, *end = data + size;
    for (int i = 0; i < k; i++) {
        const uint8_t *z = memchr(p, 0, (size_t)(end - p));
        if (!z) { *len = 0; return end; }
        p = z + 1;
    }
    const uint8_t *z = memchr(p, 0, (size_t)(end - p));
    *len = (size_t)((z ? z : end) - p);
    return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char *const names[] = {"summary.json", "p1/summary.json", "histograms.hlog"};
    static fz_report_file last[3];
    for (int k = 0; k < 3; k++) {
        size_t len;
        const uint8_t *p = fz_report_part(data, size, k, &len);
        fz_report_put(&last[k], names[k], p, len);
    }
    char err[2048];
    err[0] = 0;
    int rc = report_write_html_err(fz_report_dir(), err, sizeof err);
    if (rc != 0 && !err[0]) abort();
    int saved;
    FILE *null = fz_report_null(&saved);
    if (dup2(fileno(null), 2) < 0) abort();
    dist_cmd_print(fz_report_dir(), "All Transactions", "redis", null);
    dist_cmd_print(fz_report_dir(), "All Transactions", "ab", null);
    if (dup2(saved, 2) < 0) abort();
    return 0;
}
