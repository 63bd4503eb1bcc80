/* test_summary_read.c - summary.json schema 1 read as schema 2
 * (report/summary_read.c): twins folded into their family's "views" by
 * their uncorrected_of / all_of fields and kind, never by name (a group
 * called "a (uncorrected)" stays a timer, a kind mismatch or an orphan
 * stays a timer of its own, a file older than the fields is left alone);
 * normalising twice changes nothing; schema 2 passes through; hostile input
 * (views not an object, a twin with views, duplicate twins, non-string
 * names and fields) gives a message or a sane shape, never a crash; the
 * view lookups; summary_load's messages. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>

#include "report/summary_read.h"

/* JSON written with ' for " (readable fixtures). */
static json_t *J(const char *text) {
    char *s = strdup(text);
    assert_non_null(s);
    for (char *p = s; *p; p++)
        if (*p == '\'') *p = '"';
    json_error_t je;
    json_t *j = json_loads(s, JSON_ALLOW_NUL, &je);
    if (!j) fail_msg("bad fixture: %s: %s", je.text, s);
    free(s);
    return j;
}

static json_t *timers(json_t *root) { return json_object_get(root, "timers"); }
static json_t *timer_at(json_t *root, size_t i) { return json_array_get(timers(root), i); }
static const char *name_at(json_t *root, size_t i) { return json_string_value(json_object_get(timer_at(root, i), "name")); }
static long long count_of(json_t *view) {
    return json_integer_value(json_object_get(json_object_get(view, "summary"), "count"));
}

static void normalise_ok(json_t *root) {
    char err[256] = "";
    if (summary_normalise(root, err, sizeof err) != 0) fail_msg("summary_normalise: %s", err);
}

/* No entry has an uncorrected_of or all_of field. */
static void assert_no_of_fields(json_t *root) {
    size_t i;
    json_t *t;
    json_array_foreach(timers(root), i, t) {
        assert_null(json_object_get(t, "uncorrected_of"));
        assert_null(json_object_get(t, "all_of"));
    }
}

#define PAIRED_S1                                                                                                 \
    "{'schema_version': 1, 'timers': ["                                                                           \
    "{'name': 'X', 'kind': 'primitive', 'latency_from': 'intended start', 'latency_over': 'successes',"          \
    " 'start_s': 0, 'end_s': 3, 'tagged_of': 'http.get', 'tags': {'flow': 'shop'},"                               \
    " 'summary': {'count': 10}, 'intervals': [{'count': 4}, {'count': 6}]},"                                      \
    "{'name': 'Y', 'kind': 'custom', 'summary': {'count': 5}},"                                                    \
    "{'name': 'whatever', 'kind': 'primitive', 'uncorrected_of': 'X', 'latency_from': 'actual start',"           \
    " 'latency_over': 'successes', 'start_s': 0, 'end_s': 3, 'summary': {'count': 11}, 'intervals': [{'count': 11}]}," \
    "{'name': 'X (all)', 'kind': 'primitive', 'all_of': 'X', 'latency_from': 'intended start',"                  \
    " 'latency_over': 'all samples', 'tagged_of': 'http.get', 'summary': {'count': 12}, 'intervals': []}]}"

/* Paired by the *_of field and the kind (the uncorrected twin's name says
 * nothing); the view holds the four view keys only; the family keeps its
 * own fields, the order of the families is the file's. */
static void test_pairing_by_data(void **state) {
    (void)state;
    json_t *root = J(PAIRED_S1);
    normalise_ok(root);
    assert_int_equal(json_array_size(timers(root)), 2);
    assert_string_equal(name_at(root, 0), "X");
    assert_string_equal(name_at(root, 1), "Y");
    json_t *x = timer_at(root, 0), *u = summary_view(x, "uncorrected"), *a = summary_view(x, "all");
    assert_non_null(u);
    assert_non_null(a);
    assert_int_equal(count_of(x), 10);
    assert_int_equal(count_of(u), 11);
    assert_int_equal(count_of(a), 12);
    assert_string_equal(json_string_value(json_object_get(u, "latency_from")), "actual start");
    assert_string_equal(json_string_value(json_object_get(a, "latency_over")), "all samples");
    assert_int_equal(json_object_size(u), 4);
    assert_int_equal(json_object_size(a), 4);   /* no name, kind, tagged_of: the family's */
    assert_int_equal(json_array_size(json_object_get(u, "intervals")), 1);
    assert_string_equal(json_string_value(json_object_get(x, "tagged_of")), "http.get");
    assert_int_equal(json_integer_value(json_object_get(x, "end_s")), 3);
    assert_null(json_object_get(timer_at(root, 1), "views"));
    assert_no_of_fields(root);
    assert_int_equal(json_integer_value(json_object_get(root, "schema_version")), 1);   /* as read */
    json_decref(root);
}

/* A twin pairs only with a timer of its own kind. */
static void test_kind_mismatch(void **state) {
    (void)state;
    json_t *root = J("{'schema_version': 1, 'timers': ["
                     "{'name': 'X', 'kind': 'group', 'summary': {'count': 1}},"
                     "{'name': 'X (uncorrected)', 'kind': 'primitive', 'uncorrected_of': 'X', 'summary': {'count': 2}},"
                     "{'name': 'X', 'kind': 'custom', 'summary': {'count': 3}},"
                     "{'name': 'X (all)', 'kind': 'custom', 'all_of': 'X', 'summary': {'count': 4}}]}");
    normalise_ok(root);
    assert_int_equal(json_array_size(timers(root)), 3);
    assert_string_equal(name_at(root, 0), "X");
    assert_null(json_object_get(timer_at(root, 0), "views"));            /* the group: no twin of its kind */
    assert_string_equal(name_at(root, 1), "X (uncorrected)");            /* stays a timer of its own */
    assert_int_equal(count_of(timer_at(root, 1)), 2);
    assert_int_equal(count_of(summary_view(timer_at(root, 2), "all")), 4);   /* the custom one pairs */
    assert_no_of_fields(root);
    json_decref(root);
}

/* An entry listed twice (a timer of one kind and name, a counter, a
 * group ...) is refused: readers add entries by name, it would count twice;
 * so is a figure out of range.  The same name in two kinds is two timers. */
static void test_refused(void **state) {
    (void)state;
    static const char *const bad[][2] = {
        {"{'schema_version': 2, 'timers': [{'name': 'A', 'kind': 'all'}, {'name': 'B', 'kind': 'all'},"
         " {'name': 'A', 'kind': 'all'}]}", "timers[0] and timers[2] are both called \"A\" of the same kind"},
        {"{'schema_version': 1, 'timers': [{'name': 'A', 'kind': 'all'}, {'name': 'A (all)', 'kind': 'all', 'all_of': 'A'},"
         " {'name': 'A', 'kind': 'all'}]}", "are both called \"A\""},
        {"{'timers': [], 'groups': [{'name': 'g'}, {'name': 'g'}]}", "groups[0] and groups[1] are both called \"g\""},
        {"{'timers': [], 'counters': [{'name': 'c', 'kind': 'plain'}, {'name': 'c', 'kind': 'plain'}]}", "counters[0]"},
        {"{'timers': [], 'checks': [{'name': 'k'}, {'name': 'k'}]}", "checks[0] and checks[1]"},
        {"{'timers': [], 'errors': [{'message': 'e', 'count': 1}, {'message': 'e', 'count': 1}]}", "errors[0]"},
        {"{'timers': [{'name': 'A', 'summary': {'count': -1}}]}", "timers[0].summary.count = -1: expected a whole number"},
        {"{'timers': [{'name': 'A', 'summary': {'count': 1e300}}]}", "timers[0].summary.count = 1e+300"},
        {"{'timers': [{'name': 'A', 'summary': {'p95_ms': 1.7e308}}]}", "timers[0].summary.p95_ms = 1.7e+308"},
        {"{'timers': [{'name': 'A', 'intervals': [{'count': 1}, {'max_ms': -1}]}]}", "timers[0].intervals[1].max_ms = -1"},
        {"{'schema_version': 2, 'timers': [{'name': 'A', 'views': {'all': {'summary': {'rate': 'x'}}}}]}",
         "timers[0].views.all.summary.rate = \"x\""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *root = J(bad[i][0]);
        char err[512] = "";
        assert_int_equal(summary_normalise(root, err, sizeof err), -1);
        if (!strstr(err, bad[i][1])) fail_msg("case %zu: '%s' lacks '%s'", i, err, bad[i][1]);
        json_decref(root);
    }
    json_t *root = J("{'schema_version': 2, 'timers': [{'name': 'X', 'kind': 'group', 'summary': {'count': 0, "
                     "'p95_ms': null}}, {'name': 'X', 'kind': 'custom'}], 'counters': [{'name': 'c', 'kind': 'plain'},"
                     " {'name': 'c', 'kind': 'engine'}]}");
    normalise_ok(root);
    json_decref(root);
}

/* A twin whose timer is not in the file stays a timer of its own. */
static void test_orphan_twin(void **state) {
    (void)state;
    json_t *root = J("{'schema_version': 1, 'timers': ["
                     "{'name': 'A', 'kind': 'primitive', 'summary': {'count': 1}},"
                     "{'name': 'B (all)', 'kind': 'primitive', 'all_of': 'B', 'summary': {'count': 2}}]}");
    normalise_ok(root);
    assert_int_equal(json_array_size(timers(root)), 2);
    assert_string_equal(name_at(root, 1), "B (all)");
    assert_int_equal(count_of(timer_at(root, 1)), 2);
    assert_null(json_object_get(timer_at(root, 0), "views"));
    assert_no_of_fields(root);
    json_decref(root);
}

/* Names are never parsed: a group called "a (uncorrected)" beside a group
 * "a" is a timer, and so are the twins of a file written before the *_of
 * fields: such a file comes back as it was. */
static void test_names_not_parsed(void **state) {
    (void)state;
    json_t *root = J("{'schema_version': 1, 'timers': ["
                     "{'name': 'group a', 'kind': 'group', 'group': 'a', 'summary': {'count': 1}},"
                     "{'name': 'group a (uncorrected)', 'kind': 'group', 'group': 'a (uncorrected)', 'summary': {'count': 2}}]}");
    normalise_ok(root);
    assert_int_equal(json_array_size(timers(root)), 2);
    assert_null(json_object_get(timer_at(root, 0), "views"));
    json_decref(root);

    const char *old = "{'timers': ["
                      "{'name': 'X', 'kind': 'primitive', 'summary': {'count': 1}},"
                      "{'name': 'X (uncorrected)', 'kind': 'primitive', 'summary': {'count': 2}},"
                      "{'name': 'X (all)', 'kind': 'primitive', 'summary': {'count': 3}}]}";
    json_t *before = J(old), *after = J(old);
    normalise_ok(after);
    assert_true(json_equal(before, after));
    json_decref(before);
    json_decref(after);
}

/* Normalising a normalised file changes nothing. */
static void test_idempotent(void **state) {
    (void)state;
    json_t *once = J(PAIRED_S1), *twice;
    normalise_ok(once);
    twice = json_deep_copy(once);
    normalise_ok(twice);
    assert_true(json_equal(once, twice));
    json_decref(once);
    json_decref(twice);
}

/* Schema 2 is taken as it is: its views stay, and even entries with *_of
 * fields are not folded (schema 2 has no twins). */
static void test_schema2_passthrough(void **state) {
    (void)state;
    const char *s2 = "{'schema_version': 2, 'timers': ["
                     "{'name': 'X', 'kind': 'primitive', 'summary': {'count': 1},"
                     " 'views': {'uncorrected': {'summary': {'count': 2}}, 'all': {'summary': {'count': 3}}}},"
                     "{'name': 'X (all)', 'kind': 'primitive', 'all_of': 'X', 'summary': {'count': 4}}]}";
    json_t *before = J(s2), *after = J(s2);
    normalise_ok(after);
    assert_true(json_equal(before, after));
    assert_int_equal(count_of(summary_view(timer_at(after, 0), "all")), 3);
    json_decref(before);
    json_decref(after);
}

static void assert_refused(const char *text, const char *want) {
    json_t *root = J(text);
    char err[256] = "";
    assert_int_equal(summary_normalise(root, err, sizeof err), -1);
    if (!strstr(err, want)) fail_msg("message \"%s\" lacks \"%s\"", err, want);
    json_decref(root);
}

/* Hostile files: refused with a message naming the entry, or read into a
 * sane shape. */
static void test_hostile(void **state) {
    (void)state;
    assert_refused("{'schema_version': 2, 'timers': [{'name': 'X', 'views': [1, 2]}]}", "timers[0]: \"views\" is not");
    assert_refused("{'timers': [{'name': 'A'}, {'name': 'X', 'views': 'all'}]}", "timers[1]");
    assert_refused("{'schema_version': 2, 'timers': [{'name': 'X', 'views': {'all': 3}}]}", "views.all is not an object");

    /* a twin carrying views of its own: only its four view keys move */
    json_t *root = J("{'schema_version': 1, 'timers': ["
                     "{'name': 'X', 'kind': 'primitive', 'summary': {'count': 1}},"
                     "{'name': 'X (uncorrected)', 'kind': 'primitive', 'uncorrected_of': 'X', 'summary': {'count': 2},"
                     " 'views': {'all': {'summary': {'count': 99}}}}]}");
    normalise_ok(root);
    assert_int_equal(json_array_size(timers(root)), 1);
    json_t *u = summary_view(timer_at(root, 0), "uncorrected");
    assert_int_equal(count_of(u), 2);
    assert_null(json_object_get(u, "views"));
    assert_null(summary_view(timer_at(root, 0), "all"));
    json_decref(root);

    /* duplicate twins: the first pairs, the second stays a timer; a family
     * whose file already holds that view takes no twin; unknown views go */
    root = J("{'schema_version': 1, 'timers': ["
             "{'name': 'X', 'kind': 'primitive', 'summary': {'count': 1}},"
             "{'name': 'X (all)', 'kind': 'primitive', 'all_of': 'X', 'summary': {'count': 2}},"
             "{'name': 'X (all)', 'kind': 'primitive', 'all_of': 'X', 'summary': {'count': 3}},"
             "{'name': 'Y', 'kind': 'primitive', 'views': {'uncorrected': {'summary': {'count': 7}}, 'p99': {}, 'default': {}}},"
             "{'name': 'Y (uncorrected)', 'kind': 'primitive', 'uncorrected_of': 'Y', 'summary': {'count': 8}}]}");
    normalise_ok(root);
    assert_int_equal(json_array_size(timers(root)), 4);
    assert_int_equal(count_of(summary_view(timer_at(root, 0), "all")), 2);
    assert_string_equal(name_at(root, 1), "X (all)");
    assert_int_equal(count_of(timer_at(root, 1)), 3);
    json_t *yv = json_object_get(timer_at(root, 2), "views");
    assert_int_equal(json_object_size(yv), 1);
    assert_int_equal(count_of(summary_view(timer_at(root, 2), "uncorrected")), 7);
    assert_string_equal(name_at(root, 3), "Y (uncorrected)");
    assert_no_of_fields(root);
    json_decref(root);

    /* non-string names and fields, a twin of a twin, entries that are no
     * objects: nothing pairs, nothing crashes */
    root = J("{'timers': ["
             "{'name': 5, 'kind': 'custom', 'summary': {'count': 1}},"
             "{'name': 'a', 'kind': 'custom', 'uncorrected_of': 5, 'summary': {'count': 2}},"
             "{'name': 'b', 'kind': 'custom', 'all_of': null},"
             "{'name': 'c', 'kind': 'custom', 'uncorrected_of': 'b'},"
             "{'name': 'd', 'kind': 'custom', 'all_of': 'c'},"
             "3, null, 'x', [1],"
             "{'name': 'n\\u0000ul', 'kind': 7},"
             "{'name': 'e', 'kind': 7, 'all_of': 'n\\u0000ul', 'summary': {'count': 9}}]}");
    normalise_ok(root);
    assert_int_equal(json_array_size(timers(root)), 9);   /* c paired with b; kind 7 is no kind, as absent */
    assert_non_null(summary_view(timer_at(root, 2), "uncorrected"));
    assert_int_equal(json_object_size(summary_view(timer_at(root, 2), "uncorrected")), 0);
    assert_string_equal(name_at(root, 3), "d");           /* a twin of a twin: its own */
    assert_int_equal(count_of(summary_view(timer_at(root, 8), "all")), 9);
    assert_no_of_fields(root);
    json_decref(root);

    /* no timers array, no object: nothing to do (the caller's to refuse) */
    char err[64];
    root = J("{'phases': []}");
    assert_int_equal(summary_normalise(root, err, sizeof err), 0);
    json_decref(root);
    root = J("[1, 2]");
    assert_int_equal(summary_normalise(root, err, sizeof err), 0);
    json_decref(root);
    root = J("{'timers': {'name': 'X'}}");
    assert_int_equal(summary_normalise(root, err, sizeof err), 0);
    json_decref(root);
}

static void test_view_lookup(void **state) {
    (void)state;
    json_t *root = J("{'schema_version': 2, 'timers': ["
                     "{'name': 'X', 'summary': {'count': 1}, 'views': {'uncorrected': {'summary': {'count': 2}}}},"
                     "{'name': 'Y', 'summary': {'count': 3}}]}");
    normalise_ok(root);
    json_t *x = timer_at(root, 0), *y = timer_at(root, 1);
    assert_ptr_equal(summary_view(x, NULL), x);
    assert_ptr_equal(summary_view(x, "default"), x);
    assert_int_equal(count_of(summary_view(x, "uncorrected")), 2);
    assert_null(summary_view(x, "all"));
    assert_ptr_equal(summary_view_eff(x, "all"), x);          /* a missing all is the default */
    assert_null(summary_view(y, "uncorrected"));
    assert_null(summary_view_eff(y, "uncorrected"));          /* a missing uncorrected is missing */
    assert_null(summary_view(x, "p99"));
    assert_null(summary_view(NULL, NULL));
    assert_string_equal(summary_view_name(0), "default");
    assert_string_equal(summary_view_name(1), "uncorrected");
    assert_string_equal(summary_view_name(2), "all");
    assert_null(summary_view_name(SUMMARY_VIEWS));
    assert_int_equal(summary_view_index("all"), 2);
    assert_int_equal(summary_view_index("every"), -1);
    assert_int_equal(summary_view_index(NULL), -1);
    json_decref(root);
}

static void test_load(void **state) {
    (void)state;
    char path[] = "/tmp/luamech-test-summary-read.XXXXXX", err[512];
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_null(summary_load("/nonexistent/summary.json", err, sizeof err));
    assert_non_null(strstr(err, "/nonexistent/summary.json"));

    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"timers\": [", f);
    fclose(f);
    assert_null(summary_load(path, err, sizeof err));
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "invalid JSON"));

    f = fopen(path, "w");
    fputs("{\"timers\": [{\"name\": \"X\", \"views\": 1}]}", f);
    fclose(f);
    assert_null(summary_load(path, err, sizeof err));
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "\"views\" is not an object"));

    json_t *want = J(PAIRED_S1);
    f = fopen(path, "w");
    json_dumpf(want, f, 0);
    fclose(f);
    json_t *root = summary_load(path, err, sizeof err);
    assert_non_null(root);
    normalise_ok(want);
    assert_true(json_equal(root, want));
    json_decref(root);
    json_decref(want);
    unlink(path);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pairing_by_data),  cmocka_unit_test(test_kind_mismatch),
        cmocka_unit_test(test_orphan_twin),      cmocka_unit_test(test_names_not_parsed),
        cmocka_unit_test(test_idempotent),       cmocka_unit_test(test_schema2_passthrough),
        cmocka_unit_test(test_hostile),          cmocka_unit_test(test_view_lookup),
        cmocka_unit_test(test_load),             cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
