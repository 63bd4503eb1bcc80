/* test_writers.c - the fixed-format result writers against expected files
 * worked out by hand from the definitions (not produced by the code):
 * intervals.csv, errors.csv, counters.csv and junit.xml of a run whose
 * samples are known, and summary.json's main fields. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>
#include <jansson.h>

#include "report/results.h"
#include "report/schema.h"
#include "stats/agg.h"

/* Interval 1: 10 x 100 us and 5 x 200 us of "T", one failure ("boom"),
 * counter c = 1234; interval 2: 2 x 50 us, counter c = 6. */
static tick_msg *tick(int64_t k, int final) {
    stats_local s;
    stats_local_init(&s);
    int t = stats_timer_id(&s, "T", TK_CUSTOM), c = stats_counter_id(&s, "c");
    if (k == 0) {
        for (int i = 0; i < 10; i++) stats_record(&s, t, 100000, 1);
        for (int i = 0; i < 5; i++) stats_record(&s, t, 200000, 1);
        stats_record(&s, t, 0, 0);
        stats_req_error(&s, "boom, \"quoted\"", 14);
        stats_count(&s, c, 1234);
    } else {
        stats_record(&s, t, 50000, 1);
        stats_record(&s, t, 50000, 1);
        stats_count(&s, c, 6);
    }
    tick_msg *m = stats_local_flush(&s, 0, k);
    m->final = final;
    stats_local_free(&s);
    return m;
}

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

typedef struct fixture { char dir[64]; scenario sc; run_result r; group_cfg g; } fixture;

static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/luamech-writers-XXXXXX");
    if (!mkdtemp(f->dir)) return -1;
    f->sc.name = "w";
    f->sc.path = "w.lua";
    f->sc.interval_ns = 1000000000;
    f->sc.run_time_ns = 2000000000;
    f->g.name = "g";
    f->g.vus = 1;
    f->g.script_name = "g.lua";
    f->sc.groups = &f->g;
    f->sc.ngroups = 1;
    f->sc.nthresholds = 2;
    f->sc.thresholds = calloc(2, sizeof(threshold));
    char err[256];
    assert_int_equal(threshold_parse("T p50 <= 0.1ms", &f->sc.thresholds[0], err, sizeof err), 0);
    assert_int_equal(threshold_parse("T max < 0.15ms", &f->sc.thresholds[1], err, sizeof err), 0);
    agg_init(&f->r.agg, 1, 1000000000, 1000000000);
    agg_push(&f->r.agg, tick(0, 0));
    agg_push(&f->r.agg, tick(1, 1));
    agg_finish(&f->r.agg, 2000000000);
    f->r.run_ns = 2000000000;
    f->r.nworkers = 1;
    f->r.seed = 7;
    f->r.start_wall.tv_sec = 1700000000;
    f->r.end_wall.tv_sec = 1700000002;
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", f->dir);
    if (system(cmd) != 0) return -1;
    agg_free(&f->r.agg);
    free(f->sc.thresholds);
    free(f);
    return 0;
}

static void test_intervals_csv(void **state) {
    fixture *f = *state;
    assert_int_equal(report_write_intervals_csv(f->dir, &f->r), 0);
    char path[128];
    snprintf(path, sizeof path, "%s/intervals.csv", f->dir);
    /* interval 1: 16 samples (15 ok + 1 failure) over 1 s; min 100 us; mean
     * (10*100 + 5*200)/15 = 133.33 us; p50 = 8th of 15 = 100; p80 = 12th = 200;
     * stdev sqrt((10*33.33^2 + 5*66.67^2)/15) = 47.14 us.  interval 2: 2 x 50 us.
     * "T (all)" (written because T had a failure) has the failure too, at
     * its 0 us: min 0, mean (1000 + 1000 + 0)/16 = 125 us, p50 = 8th of 16 =
     * 100, p80 = 13th = 200, stdev sqrt((125^2 + 10*25^2 + 5*75^2)/16) = 55.9 us. */
    assert_string_equal(slurp(path),
        "interval,start_s,end_s,timer,kind,count,errors,cancelled,skipped,rate,min_ms,avg_ms,p50_ms,p80_ms,p90_ms,"
        "p95_ms,p99_ms,p99_9_ms,max_ms,stdev_ms\n"
        "1,0.000,1.000,\"T\",custom,16,1,0,0,16.000,0.100,0.133,0.100,0.200,0.200,0.200,0.200,0.200,0.200,0.047\n"
        "2,1.000,2.000,\"T\",custom,2,0,0,0,2.000,0.050,0.050,0.050,0.050,0.050,0.050,0.050,0.050,0.050,0.000\n"
        "1,0.000,1.000,\"T (all)\",custom,16,1,0,0,16.000,0.000,0.125,0.100,0.200,0.200,0.200,0.200,0.200,0.200,0.056\n"
        "2,1.000,2.000,\"T (all)\",custom,2,0,0,0,2.000,0.050,0.050,0.050,0.050,0.050,0.050,0.050,0.050,0.050,0.000\n");
}

static void test_errors_and_counters_csv(void **state) {
    fixture *f = *state;
    char path[128];
    assert_int_equal(report_write_errors_csv(f->dir, &f->r), 0);
    snprintf(path, sizeof path, "%s/errors.csv", f->dir);
    assert_string_equal(slurp(path), "source,count,message\nrequest,1,\"boom, \"\"quoted\"\"\"\n");
    assert_int_equal(report_write_counters_csv(f->dir, &f->r), 0);
    snprintf(path, sizeof path, "%s/counters.csv", f->dir);
    assert_string_equal(slurp(path), "interval,start_s,end_s,counter,value,rate\n"
                                     "1,0.000,1.000,\"c\",1234,1234.000\n"
                                     "2,1.000,2.000,\"c\",6,6.000\n");
}

static void test_junit(void **state) {
    fixture *f = *state;
    char path[128];
    assert_int_equal(report_write_junit(f->dir, &f->sc, &f->r), 0);
    snprintf(path, sizeof path, "%s/junit.xml", f->dir);
    /* whole run: p50 of {10 x 100, 5 x 200, 2 x 50} = 9th of 17 = 100 us: passes;
     * max 200 us = 0.2 ms: fails */
    assert_string_equal(slurp(path),
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<testsuite name=\"luamech.w\" tests=\"2\" failures=\"1\" time=\"2.000\">\n"
        "  <testcase classname=\"luamech.thresholds\" name=\"T p50 &lt;= 0.1ms\"></testcase>\n"
        "  <testcase classname=\"luamech.thresholds\" name=\"T max &lt; 0.15ms\"><failure message=\"measured 0.200 ms\"/></testcase>\n"
        "</testsuite>\n");
}

static void test_summary_json(void **state) {
    fixture *f = *state;
    assert_int_equal(report_write_json(f->dir, &f->sc, &f->r, "completed", 6), 0);
    char path[128];
    snprintf(path, sizeof path, "%s/summary.json", f->dir);
    json_error_t e;
    json_t *j = json_load_file(path, 0, &e);
    assert_non_null(j);
    assert_int_equal(json_integer_value(json_object_get(j, "schema_version")), RESULTS_SCHEMA_VERSION);
    assert_string_equal(json_string_value(json_object_get(j, "status")), "completed");
    assert_int_equal(json_integer_value(json_object_get(j, "exit_code")), 6);
    assert_string_equal(json_string_value(json_object_get(j, "start")), "2023-11-14T22:13:20Z");
    json_t *t = json_array_get(json_object_get(j, "timers"), 0);
    assert_string_equal(json_string_value(json_object_get(t, "name")), "T");
    json_t *sum = json_object_get(t, "summary");
    assert_int_equal(json_integer_value(json_object_get(sum, "count")), 18);
    assert_int_equal(json_integer_value(json_object_get(sum, "errors")), 1);
    assert_true(json_real_value(json_object_get(sum, "rate")) == 9.0);    /* 18 / 2 s */
    assert_true(json_real_value(json_object_get(sum, "max_ms")) == 0.2);
    assert_int_equal(json_array_size(json_object_get(t, "intervals")), 2);
    json_t *th = json_object_get(j, "thresholds");
    assert_true(json_is_true(json_object_get(json_array_get(th, 0), "passed")));
    assert_true(json_is_false(json_object_get(json_array_get(th, 1), "passed")));
    json_decref(j);
}

/* summary.json, written row by row (report/lazy_json.c), is jansson's
 * canonical dump of its own tree, so the file is what dumping the whole
 * tree gave; the scenario_files list added at the end by streaming the file
 * through (report_copy_read) gives the bytes that loading it, adding the
 * member and dumping it again gave. */
static void test_summary_canonical(void **state) {
    fixture *f = *state;
    assert_int_equal(report_write_json(f->dir, &f->sc, &f->r, "completed", 6), 0);
    char path[128], root[128], data[160];
    snprintf(path, sizeof path, "%s/summary.json", f->dir);
    json_t *j = json_load_file(path, 0, NULL);
    assert_non_null(j);
    char *dump = json_dumps(j, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    size_t len = strlen(dump);
    const char *text = slurp(path);
    assert_int_equal(strlen(text), len + 1);
    assert_memory_equal(text, dump, len);
    assert_int_equal(text[len], '\n');
    free(dump);
    snprintf(root, sizeof root, "%s/src", f->dir);
    assert_int_equal(mkdir(root, 0755), 0);
    snprintf(data, sizeof data, "%s/data.txt", root);
    FILE *d = fopen(data, "w");
    assert_non_null(d);
    fputs("x", d);
    fclose(d);
    json_object_set_new(j, "scenario_files", json_pack("[{s:s,s:I,s:b}]", "path", "data.txt", "bytes", (json_int_t)1,
                                                       "copied", 1));
    char *want = json_dumps(j, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    const char *paths[] = {data};
    assert_int_equal(report_copy_read(f->dir, root, paths, 1), 0);
    assert_string_equal(slurp(path), want);
    free(want);
    json_decref(j);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_summary_canonical, setup, teardown),
        cmocka_unit_test_setup_teardown(test_intervals_csv, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors_and_counters_csv, setup, teardown),
        cmocka_unit_test_setup_teardown(test_junit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_summary_json, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
