/* append.c - the result files of a running run (report_append_all):
 * intervals.csv and counters.csv grow by the rows of each newly closed
 * interval, appended with one write(2) of whole lines per file, so the work
 * per interval does not grow with the run (the old writer rewrote every row
 * at every interval: quadratic in the run's length).  A file that is
 * missing, or whose inode or size is not what this writer left (the
 * directory was removed and made again), is rewritten whole through a
 * temporary file and a rename, then appended to again.  errors.csv and
 * junit.xml, whole-run figures of a size that does not grow with the run,
 * are replaced at every call.  summary.json, which holds every interval's
 * rows, is replaced on a schedule whose total cost is linear in the run
 * (report_summary_due: when the intervals closed have grown by an eighth
 * since the last snapshot; at every interval while `luamech merge --follow`
 * marks the directory, for the first REPORT_FOLLOWED_EVERY intervals), and
 * always at the final call: a killed run's
 * summary.json is valid but may be older than intervals.csv.
 * It computes nothing: rows come from report/results.c. */
#include "report/results.h"
#include "report/stop.h"
#include "report/view.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One appended file and how far each timer or counter is in it. */
typedef struct append_file {
    const char *name;
    int *written;        /* rows in the file, per timer or counter index */
    int cap;
    dev_t dev;
    ino_t ino;
    off_t size;          /* bytes this writer left; -1: unknown, rewrite */
} append_file;

struct report_appender {
    char *dir;
    append_file intervals, counters;
    int summary_at;      /* intervals closed at the last summary.json; -1: none yet */
};

report_appender *report_appender_new(const char *dir) {
    report_appender *a = calloc(1, sizeof *a);
    if (a == NULL || (a->dir = strdup(dir)) == NULL) {
        free(a);
        return NULL;
    }
    a->intervals.name = "intervals.csv";
    a->counters.name = "counters.csv";
    a->intervals.size = a->counters.size = -1;
    a->summary_at = -1;
    return a;
}

void report_appender_free(report_appender *a) {
    if (a == NULL) return;
    free(a->intervals.written);
    free(a->counters.written);
    free(a->dir);
    free(a);
}

/* Room for n entries in f->written (new ones at 0); 0 or -1. */
static int append_room(append_file *f, int n) {
    if (n <= f->cap) return 0;
    int cap = n < 64 ? 64 : n * 2;
    int *w = realloc(f->written, (size_t)cap * sizeof *w);
    if (w == NULL) return -1;
    memset(w + f->cap, 0, (size_t)(cap - f->cap) * sizeof *w);
    f->written = w;
    f->cap = cap;
    return 0;
}

/* The rows of r not yet in f (or all of them, after the header, when whole)
 * into out; each entry's count of rows is updated. */
static void append_rows(FILE *out, append_file *f, const run_result *r, int is_intervals, int final) {
    int n = is_intervals ? r->agg.n : r->agg.ncounters;
    for (int i = 0; i < n; i++) {
        if (is_intervals) {
            const agg_timer *t = r->agg.timers[i];
            if (!agg_timer_reported(t)) continue;
            for (int k = f->written[i]; k < t->nrows; k++) report_interval_row(out, &r->agg, t, k);
            f->written[i] = t->nrows;
        } else {
            const agg_counter *c = r->agg.counters[i];
            for (int k = f->written[i]; k < c->nrows; k++) report_counter_row(out, r, c, k, final);
            f->written[i] = c->nrows;
        }
    }
}

/* Is path still the file this writer left? */
static int append_intact(const append_file *f, const char *path) {
    struct stat st;
    return f->size >= 0 && stat(path, &st) == 0 && st.st_dev == f->dev && st.st_ino == f->ino &&
           st.st_size == f->size;
}

/* Write buf whole at the end of path (one write(2): whole lines). */
static int append_write(append_file *f, const char *path, const char *buf, size_t len) {
    if (len == 0) return 0;
    int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n;
    do n = write(fd, buf, len); while (n < 0 && errno == EINTR);
    int rc = close(fd);
    if (n != (ssize_t)len || rc != 0) {
        f->size = -1;                       /* rewritten whole next time */
        return -1;
    }
    f->size += (off_t)len;
    return 0;
}

/* Write buf as the whole file: a temporary file renamed over path. */
static int append_replace(append_file *f, const char *dir, const char *path, const char *buf, size_t len) {
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp", dir, f->name);
    f->size = -1;
    FILE *out = fopen(tmp, "w");
    if (out == NULL) return -1;
    int rc = fwrite(buf, 1, len, out) == len ? 0 : -1;
    if (fclose(out) != 0) rc = -1;
    struct stat st;
    if (rc != 0 || rename(tmp, path) != 0 || stat(path, &st) != 0) {
        unlink(tmp);
        return -1;
    }
    f->dev = st.st_dev;
    f->ino = st.st_ino;
    f->size = st.st_size;
    return 0;
}

static int append_file_update(report_appender *a, append_file *f, const run_result *r,
                              int is_intervals, int final) {
    int n = is_intervals ? r->agg.n : r->agg.ncounters;
    if (append_room(f, n) != 0) return -1;
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", a->dir, f->name);
    int whole = !append_intact(f, path);
    if (whole && f->cap > 0) memset(f->written, 0, (size_t)f->cap * sizeof *f->written);
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    if (out == NULL) return -1;
    if (whole && is_intervals) report_intervals_header(out);
    else if (whole) fputs(REPORT_COUNTERS_HEADER, out);
    append_rows(out, f, r, is_intervals, final);
    int rc = fclose(out) == 0 ? 0 : -1;
    if (rc == 0) rc = whole ? append_replace(f, a->dir, path, buf, len) : append_write(f, path, buf, len);
    if (rc != 0) f->size = -1;
    free(buf);
    return rc;
}

int report_summary_due(int closed, int last) {
    if (last < 0) return 1;
    int gap = last / REPORT_SUMMARY_GROWTH;
    return closed - last >= (gap > 1 ? gap : 1);
}

/* Is a snapshot of summary.json due (or is the file missing)? */
static int append_summary_due(const report_appender *a, const run_result *r) {
    char path[4200];
    struct stat st;
    snprintf(path, sizeof path, "%s/summary.json", a->dir);
    if (r->agg.nintervals <= REPORT_FOLLOWED_EVERY && report_followed(a->dir)) return 1;   /* a live merge reads it */
    return report_summary_due(r->agg.nintervals, a->summary_at) || stat(path, &st) != 0;
}

int report_append_all(report_appender *a, const scenario *sc, const run_result *r,
                      const char *status, int exit_code, int final) {
    report_view v;
    report_view_init(&v, sc, r);
    int rc = report_append_view(a, status, exit_code, final, &v);
    report_view_free(&v);
    return rc;
}

int report_append_view(report_appender *a, const char *status, int exit_code, int final, report_view *v) {
    const run_result *r = v->r;
    int rc = append_file_update(a, &a->intervals, r, 1, final);
    rc |= report_write_errors_csv(a->dir, r);
    rc |= append_file_update(a, &a->counters, r, 0, final);
    if (r->status != RUN_ABORTED) rc |= report_write_junit_view(a->dir, v);
    if (final || append_summary_due(a, r)) {
        int jrc = report_write_json_view(a->dir, status, exit_code, v);
        if (jrc == 0) a->summary_at = r->agg.nintervals;
        rc |= jrc;
    }
    return rc;
}
