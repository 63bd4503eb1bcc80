/* test_lazy_json.c - report/lazy_json.c writes a tree whose long arrays are
 * placeholders exactly as jansson writes the whole tree: the same bytes
 * for arrays of objects, of numbers, of arrays, nested at several depths,
 * an empty one, a running sum (carry), and a string that looks like a
 * placeholder of another writer (copied as it is); and the tree it holds
 * while writing has no element of a placeholder's array in it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <jansson.h>

#include "report/lazy_json.h"

#define FLAGS (JSON_INDENT(2) | JSON_REAL_PRECISION(10))

static int live_calls;

static json_t *row(const void *data, int k, int64_t *carry) {
    (void)carry;
    live_calls++;
    const int *base = data;
    return json_pack("{s:i,s:f,s:[i,i],s:{s:s,s:[]}}", "k", *base + k, "x", (*base + k) / 3.0, "pair", k, -k,
                     "sub", "name", "a\"b\n", "none");
}

static json_t *num(const void *data, int k, int64_t *carry) {
    (void)data;
    return json_integer(*carry += k);
}

static json_t *pair(const void *data, int k, int64_t *carry) {
    (void)data; (void)carry;
    return json_pack("[I,I]", (json_int_t)k, (json_int_t)(2 * k));
}

/* The same tree, with lazy arrays when lz is not NULL. */
static json_t *tree(lazy_json *lz, const int *base) {
    json_t *inner = json_array();
    for (int g = 0; g < 3; g++)
        json_array_append_new(inner, json_pack("{s:i,s:o,s:o}", "g", g, "rows", lazy_json_array(lz, row, base, 4 + g),
                                               "sums", lazy_json_array(lz, num, NULL, 7)));
    return json_pack("{s:s,s:o,s:o,s:o,s:o,s:{s:o},s:f}", "fake", "\001lm0000000000000000:0",
                     "rows", lazy_json_array(lz, row, base, 25), "empty", lazy_json_array(lz, row, base, 0),
                     "groups", inner, "pairs", lazy_json_array(lz, pair, NULL, 5),
                     "deep", "ints", lazy_json_array(lz, num, NULL, 3), "last", 1.5);
}

static void test_same_bytes(void **state) {
    (void)state;
    int base = 10;
    json_t *whole = tree(NULL, &base);
    char *want = json_dumps(whole, FLAGS);
    assert_non_null(want);
    lazy_json *lz = lazy_json_new();
    assert_non_null(lz);
    live_calls = 0;
    json_t *lazy = tree(lz, &base);
    assert_int_equal(live_calls, 0);                     /* nothing built yet */
    char *skeleton = json_dumps(lazy, FLAGS);
    assert_null(strstr(skeleton, "\"pair\""));           /* no row in the tree */
    char *got = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&got, &len);
    assert_int_equal(lazy_json_dumpf(lz, lazy, f, FLAGS), 0);
    fclose(f);
    assert_int_equal(live_calls, 25 + 4 + 5 + 6);        /* each row once */
    assert_string_equal(got, want);
    assert_non_null(strstr(got, "\\u0001lm0000000000000000:0"));   /* the look-alike kept */
    free(got); free(skeleton); free(want);
    json_decref(whole); json_decref(lazy);
    lazy_json_free(lz);
}

/* Owned memory is freed with the writer (ASan checks it); no lazy array:
 * the plain dump. */
static void test_owned_and_plain(void **state) {
    (void)state;
    lazy_json *lz = lazy_json_new();
    int *base = malloc(sizeof *base);
    *base = 3;
    assert_int_equal(lazy_json_own(lz, base), 0);
    json_t *t = json_pack("{s:o}", "rows", lazy_json_array(lz, row, base, 2));
    json_t *plain = json_pack("{s:o}", "rows", lazy_json_array(NULL, row, base, 2));
    char *want = json_dumps(plain, FLAGS), *got = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&got, &len);
    assert_int_equal(lazy_json_dumpf(lz, t, f, FLAGS), 0);
    fclose(f);
    assert_string_equal(got, want);
    free(got); free(want);
    json_decref(t); json_decref(plain);
    lazy_json_free(lz);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_bytes),
        cmocka_unit_test(test_owned_and_plain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
