/* test_figures.c - the figures table (src/stats/figures.c) walked row by
 * row: ids in order, keys and names unique and found back, each figure
 * read from an interval row filled from a known histogram equal to that
 * histogram's own function (a row field and the table agree), no data
 * for a latency without a sample, merge rules and directions that make
 * sense, every Prometheus figure a quantile, and the table's JSON (what
 * the pages' JavaScript reads) naming each figure's outputs as the table
 * does.  And the writers: report_row_json (summary.json, the stream) and
 * intervals.csv's header carry exactly the figures flagged for them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <jansson.h>

#include "report/results.h"
#include "stats/figures.h"

static void fill(hist *h) {
    hist_init(h);
    for (int i = 1; i <= 1000; i++) hist_record_us(h, i * 10);     /* 10 us .. 10 ms */
}

static void test_rows(void **state) {
    (void)state;
    const figure *t = figures_table();
    for (int i = 0; i < FIG_N; i++) {
        assert_int_equal(t[i].id, i);
        assert_ptr_equal(figure_get((fig_id)i), &t[i]);
        assert_ptr_equal(figure_find(t[i].key, strlen(t[i].key), 0), &t[i]);
        assert_ptr_equal(figure_find(t[i].name, strlen(t[i].name), 0), &t[i]);
        for (int j = 0; j < i; j++) {
            assert_string_not_equal(t[i].key, t[j].key);
            assert_string_not_equal(t[i].name, t[j].name);
        }
        assert_true(t[i].outputs & FIG_OUT_SUMMARY);        /* summary.json has every figure */
        if (t[i].outputs & FIG_OUT_PROM) {
            assert_non_null(t[i].prom_q);
            assert_true(t[i].q > 0 && t[i].q < 100);
            assert_true(atof(t[i].prom_q) * 100 == t[i].q);
        }
        if (t[i].unit == FIG_UNIT_MS) {
            assert_int_equal(t[i].worse, 1);                 /* a higher latency is worse */
            assert_true(t[i].merge != FIG_MERGE_SUM);        /* latencies never add */
            assert_true(t[i].q != FIG_Q_NONE);
        } else {
            assert_true(t[i].q == FIG_Q_NONE);
        }
        if (t[i].flags & (FIG_THRESHOLD | FIG_COMPARE)) assert_int_not_equal(t[i].worse, 0);
        if (t[i].flags & FIG_COMPARE_DEFAULT) assert_true(t[i].flags & FIG_COMPARE);
    }
    assert_ptr_equal(figure_find("p99_9", 5, 0), &t[FIG_P999]);
    assert_null(figure_find("p42", 3, 0));
    assert_null(figure_find("cancelled", 9, FIG_THRESHOLD));
    assert_string_equal(FIG_KEY(P95), "p95_ms");
}

/* Each figure of a row filled from h is h's own figure (the table says where
 * the row keeps it and how it is computed: they must agree). */
static void test_values(void **state) {
    (void)state;
    hist h;
    fill(&h);
    agg_row x;
    agg_row_fill(&x, &h, 7, 2.0);
    const figure *t = figures_table();
    for (int i = 0; i < FIG_N; i++) {
        int has;
        double v = figure_value(&t[i], &x, &has);
        assert_true(has);
        if (t[i].unit == FIG_UNIT_MS) assert_true(v * 1000 == figure_of_hist_us(&t[i], &h) ||
                                                  (v * 1000 - figure_of_hist_us(&t[i], &h)) < 1e-6);
    }
    int has;
    assert_true(figure_value(&t[FIG_P50], &x, &has) == (double)hist_percentile_us(&h, 50) / 1000);
    assert_true(figure_value(&t[FIG_P80], &x, &has) == (double)hist_percentile_us(&h, 80) / 1000);
    assert_true(figure_value(&t[FIG_MAX], &x, &has) == (double)hist_max_us(&h) / 1000);
    assert_true(figure_value(&t[FIG_AVG], &x, &has) == hist_mean_us(&h) / 1000);
    assert_true(figure_value(&t[FIG_COUNT], &x, &has) == 1007);
    assert_true(figure_value(&t[FIG_ERRORS], &x, &has) == 7);
    assert_true(figure_value(&t[FIG_RATE], &x, &has) == 503.5);
    /* no latency sample: every latency is no data, the counts are data */
    hist empty;
    hist_init(&empty);
    agg_row_fill(&x, &empty, 3, 1.0);
    for (int i = 0; i < FIG_N; i++) {
        figure_value(&t[i], &x, &has);
        assert_int_equal(has, t[i].unit != FIG_UNIT_MS);
    }
    hist_free(&h);
    hist_free(&empty);
}

/* The JSON the pages read says what the table says. */
static void test_json(void **state) {
    (void)state;
    char *s = figures_json();
    assert_non_null(s);
    json_error_t je;
    json_t *arr = json_loads(s, 0, &je);
    free(s);
    assert_non_null(arr);
    assert_int_equal(json_array_size(arr), FIG_N);
    const figure *t = figures_table();
    for (int i = 0; i < FIG_N; i++) {
        json_t *o = json_array_get(arr, (size_t)i);
        assert_string_equal(json_string_value(json_object_get(o, "key")), t[i].key);
        assert_string_equal(json_string_value(json_object_get(o, "name")), t[i].name);
        for (unsigned b = 1; figure_output_name(b); b <<= 1) {
            int listed = 0;
            json_t *e;
            size_t k;
            json_array_foreach(json_object_get(o, "outputs"), k, e)
                listed |= strcmp(json_string_value(e), figure_output_name(b)) == 0;
            assert_int_equal(listed, (t[i].outputs & b) != 0);
        }
    }
    json_decref(arr);
}

/* The writers' rows carry exactly the flagged figures, latencies null
 * without a sample. */
static void test_writers(void **state) {
    (void)state;
    hist h;
    fill(&h);
    agg_row x;
    agg_row_fill(&x, &h, 0, 1.0);
    const unsigned outs[] = {FIG_OUT_SUMMARY, FIG_OUT_STREAM};
    for (int o = 0; o < 2; o++) {
        json_t *j = report_row_json(&x, outs[o]);
        assert_non_null(j);
        for (int i = 0; i < FIG_N; i++)
            assert_int_equal(json_object_get(j, figures_table()[i].key) != NULL,
                             (figures_table()[i].outputs & outs[o]) != 0);
        json_decref(j);
    }
    hist empty;
    hist_init(&empty);
    agg_row_fill(&x, &empty, 2, 1.0);
    json_t *j = report_row_json(&x, FIG_OUT_SUMMARY);
    assert_true(json_is_null(json_object_get(j, FIG_KEY(P95))));
    assert_int_equal(json_integer_value(json_object_get(j, FIG_KEY(ERRORS))), 2);
    json_decref(j);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    report_intervals_header(f);
    fclose(f);
    for (int i = 0; i < FIG_N; i++) {
        char col[64];
        snprintf(col, sizeof col, ",%s,", figures_table()[i].key);
        buf[strlen(buf) - 1] = ',';                          /* the last column too */
        assert_int_equal(strstr(buf, col) != NULL, (figures_table()[i].outputs & FIG_OUT_CSV) != 0);
    }
    free(buf);
    hist_free(&h);
    hist_free(&empty);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_writers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
