/* test_append.c - the result files of a running run (report/append.c):
 * over 300 closed intervals, intervals.csv and counters.csv keep their
 * inode (appended, never replaced), every state is a prefix of the next and
 * ends with a whole line, the bytes written per interval do not grow with
 * the run (the old writer rewrote every row at every interval: its total
 * was quadratic), and the final files hold exactly the rows of the one-shot
 * writer (report_write_intervals_csv / _counters_csv).  A file removed
 * during the run is written again whole, then appended to.  summary.json
 * (every interval's rows) is replaced on report_summary_due's schedule:
 * over the 300 intervals its snapshots together write at most 12 times the
 * final file (rewritten at every interval, as before, they wrote about 150
 * times it), each snapshot valid and at most an eighth of the intervals
 * behind, a removed one written again at the next interval, and the final
 * one always written, with every row. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>

#include "report/results.h"
#include "stats/agg.h"

#define NIV 300

/* Tick k: timer "A" every interval, "B" from interval 100 on (its first
 * rows come late), counter "c" = k. */
static tick_msg *tick(int64_t k, int final) {
    stats_local s;
    stats_local_init(&s);
    int a = stats_timer_id(&s, "A", TK_CUSTOM), c = stats_counter_id(&s, "c");
    stats_record(&s, a, 1000 + k, 1);
    if (k >= 100) stats_record(&s, stats_timer_id(&s, "B", TK_CUSTOM), 2000, 1);
    stats_count(&s, c, k);
    tick_msg *m = stats_local_flush(&s, 0, k);
    m->final = final;
    stats_local_free(&s);
    return m;
}

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = NULL;
    size_t cap = 0, n = 0, r;
    do {
        if (n + 65536 > cap) buf = realloc(buf, cap = cap * 2 + 65536);
        r = fread(buf + n, 1, cap - n - 1, f);
        n += r;
    } while (r > 0);
    fclose(f);
    buf[n] = 0;
    *len = n;
    return buf;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The lines of text, sorted (the row set, whatever the order). */
static char **sorted_lines(char *text, int *n) {
    int cap = 16;
    char **v = malloc(cap * sizeof *v);
    *n = 0;
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (*n == cap) v = realloc(v, (cap *= 2) * sizeof *v);
        v[(*n)++] = l;
    }
    qsort(v, *n, sizeof *v, cmp_str);
    return v;
}

static void same_rows(const char *appended_path, const char *whole_path) {
    size_t la, lw;
    char *a = slurp(appended_path, &la), *w = slurp(whole_path, &lw);
    assert_int_equal(la, lw);
    assert_memory_equal(a, w, strlen("interval,start_s"));   /* the header first */
    int na, nw;
    char **va = sorted_lines(a, &na), **vw = sorted_lines(w, &nw);
    assert_int_equal(na, nw);
    for (int i = 0; i < na; i++) assert_string_equal(va[i], vw[i]);
    free(va); free(vw); free(a); free(w);
}

typedef struct state_file { const char *name; ino_t ino; char *prev; size_t prev_len; int64_t written; } state_file;

/* After a call: same inode as before, the old content a prefix of the new,
 * a whole last line; counts the bytes the call added. */
static void check_grew(const char *dir, state_file *s) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, s->name);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    if (s->prev) assert_int_equal(st.st_ino, s->ino);
    s->ino = st.st_ino;
    size_t len;
    char *now = slurp(path, &len);
    assert_true(len >= s->prev_len);
    if (s->prev) assert_memory_equal(now, s->prev, s->prev_len);
    assert_true(len > 0 && now[len - 1] == '\n');
    s->written += (int64_t)(len - s->prev_len);
    free(s->prev);
    s->prev = now;
    s->prev_len = len;
}

/* A one-group scenario of NIV 1 s intervals and its empty run result. */
static void append_fixture(scenario *sc, group_cfg *g, run_result *r) {
    memset(sc, 0, sizeof *sc);
    memset(g, 0, sizeof *g);
    memset(r, 0, sizeof *r);
    sc->name = "a"; sc->path = "a.lua"; sc->interval_ns = 1000000000; sc->run_time_ns = (int64_t)NIV * 1000000000;
    g->name = "g"; g->vus = 1; g->script_name = "g.lua";
    sc->groups = g; sc->ngroups = 1;
    r->nworkers = 1;
    agg_init(&r->agg, 1, 1000000000, 1000000000);
}

static void test_appends(void **state) {
    (void)state;
    char dir[64] = "/tmp/luamech-append-XXXXXX", whole[80];
    assert_non_null(mkdtemp(dir));
    snprintf(whole, sizeof whole, "%s/whole", dir);
    assert_int_equal(mkdir(whole, 0755), 0);
    scenario sc;
    group_cfg g;
    run_result r;
    append_fixture(&sc, &g, &r);
    report_appender *app = report_appender_new(dir);
    assert_non_null(app);
    state_file iv = {"intervals.csv", 0, NULL, 0, 0}, ct = {"counters.csv", 0, NULL, 0, 0};
    int64_t first_call = 0, last_call = 0;
    for (int k = 0; k < NIV; k++) {
        if (agg_push(&r.agg, tick(k, k == NIV - 1)) == 0) continue;
        assert_int_equal(report_append_all(app, &sc, &r, "running", -1, 0), 0);
        int64_t before = iv.written;
        check_grew(dir, &iv);
        check_grew(dir, &ct);
        if (k == 1) first_call = iv.written - before;
        if (k == NIV - 2) last_call = iv.written - before;
    }
    agg_finish(&r.agg, (int64_t)NIV * 1000000000);
    r.run_ns = (int64_t)NIV * 1000000000;
    assert_int_equal(report_append_all(app, &sc, &r, "completed", 0, 1), 0);
    check_grew(dir, &iv);
    check_grew(dir, &ct);
    /* per-interval work is constant: the 299th call wrote about what the
     * 2nd did (B's 100 late rows came in between), not 299 times more */
    print_message("intervals.csv: %lld bytes written in all, 2nd call %lld, 299th %lld\n",
                  (long long)iv.written, (long long)first_call, (long long)last_call);
    assert_true(last_call < 4 * first_call);
    assert_int_equal(iv.written, (int64_t)iv.prev_len);   /* every byte written once */
    /* the same rows as the one-shot writer */
    assert_int_equal(report_write_intervals_csv(whole, &r), 0);
    assert_int_equal(report_write_counters_csv(whole, &r), 0);
    char a[128], w[128];
    snprintf(a, sizeof a, "%s/intervals.csv", dir); snprintf(w, sizeof w, "%s/intervals.csv", whole);
    same_rows(a, w);
    snprintf(a, sizeof a, "%s/counters.csv", dir); snprintf(w, sizeof w, "%s/counters.csv", whole);
    same_rows(a, w);

    /* removed during the run: written again whole (a new file), then appended */
    assert_int_equal(unlink(a), 0);
    assert_int_equal(report_append_all(app, &sc, &r, "completed", 0, 1), 0);
    same_rows(a, w);
    report_appender_free(app);
    free(iv.prev); free(ct.prev);
    agg_free(&r.agg);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* The rows of timer A in dir/summary.json, and its status; -1 if invalid. */
static int summary_rows(const char *dir, char *status, size_t len) {
    char path[256];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    json_t *j = json_load_file(path, 0, NULL);
    int n = -1;
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(j, "timers"), i, t)
        if (strcmp(json_string_value(json_object_get(t, "name")), "A") == 0)
            n = (int)json_array_size(json_object_get(t, "intervals"));
    snprintf(status, len, "%s", j ? json_string_value(json_object_get(j, "status")) : "?");
    json_decref(j);
    return n;
}

static void test_summary_linear(void **state) {
    (void)state;
    char dir[64] = "/tmp/luamech-append-XXXXXX", path[128], status[32];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/summary.json", dir);
    scenario sc;
    group_cfg g;
    run_result r;
    append_fixture(&sc, &g, &r);
    report_appender *app = report_appender_new(dir);
    assert_non_null(app);
    ino_t ino = 0;
    int64_t written = 0;
    int snapshots = 0;
    for (int k = 0; k < NIV; k++) {
        if (agg_push(&r.agg, tick(k, k == NIV - 1)) == 0) continue;
        if (k == 200) assert_int_equal(unlink(path), 0);
        assert_int_equal(report_append_all(app, &sc, &r, "running", -1, 0), 0);
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        if (st.st_ino != ino) snapshots++, written += st.st_size;
        ino = st.st_ino;
        int closed = r.agg.nintervals, rows = summary_rows(dir, status, sizeof status);
        assert_string_equal(status, "running");
        assert_true(rows >= 0 && rows <= closed);
        assert_true(closed - rows <= (closed / 8 > 1 ? closed / 8 : 0));
        if (k == 200) assert_int_equal(rows, closed);     /* removed: written again */
    }
    agg_finish(&r.agg, (int64_t)NIV * 1000000000);
    r.run_ns = (int64_t)NIV * 1000000000;
    assert_int_equal(report_append_all(app, &sc, &r, "completed", 0, 1), 0);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(summary_rows(dir, status, sizeof status), NIV);
    assert_string_equal(status, "completed");
    print_message("summary.json: %d snapshots over %d intervals, %lld bytes written, final file %lld bytes\n",
                  snapshots, NIV, (long long)written, (long long)st.st_size);
    assert_true(snapshots < NIV / 4);
    assert_true(written <= (int64_t)(REPORT_SUMMARY_GROWTH + 4) * st.st_size);
    report_appender_free(app);
    agg_free(&r.agg);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* The schedule itself: every interval while the count is small, then gaps
 * of an eighth of the count. */
static void test_summary_due(void **state) {
    (void)state;
    assert_true(report_summary_due(0, -1));
    assert_true(report_summary_due(1, -1));
    assert_false(report_summary_due(5, 5));
    assert_true(report_summary_due(6, 5));
    assert_true(report_summary_due(16, 15));
    assert_false(report_summary_due(17, 16));      /* 16 / 8 = 2 */
    assert_true(report_summary_due(18, 16));
    assert_false(report_summary_due(899, 800));
    assert_true(report_summary_due(900, 800));
    int n = 0;
    for (int c = 1, last = -1; c <= 86400; c++)    /* a day at 1 s intervals */
        if (report_summary_due(c, last)) last = c, n++;
    assert_true(n < 120);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_appends), cmocka_unit_test(test_summary_linear),
                                       cmocka_unit_test(test_summary_due)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
