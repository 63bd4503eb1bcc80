/* test_stats_alloc.c - a counter whose name cannot be copied (out of memory)
 * gets no id (-1) from stats_counter_kind_id (src/stats/local.c), and
 * counting on that id changes nothing: before the fix the name was stored as
 * NULL (a crash at the next lookup) and a failed realloc returned id 0,
 * another counter's.  strdup is wrapped (tests/CMakeLists.txt links this
 * test with -Wl,--wrap=strdup): it fails for one chosen string. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "stats/local.h"

char *__real_strdup(const char *s);
static const char *fail_on;        /* the string whose copy fails (test-local, one thread) */

char *__wrap_strdup(const char *s) {
    if (fail_on && strcmp(s, fail_on) == 0) return NULL;
    return __real_strdup(s);
}

static void test_counter_name_copy_fails(void **state) {
    (void)state;
    stats_local s;
    assert_int_equal(stats_local_init(&s), 0);
    int a = stats_counter_id(&s, "first");
    assert_true(a >= 0);
    stats_count(&s, a, 5);

    fail_on = "second";
    int b = stats_counter_id(&s, "second");
    fail_on = NULL;
    assert_int_equal(b, -1);
    stats_count(&s, b, 7);                  /* must not land on "first" nor crash */
    stats_counter_announce(&s, b);

    /* the table is intact: "first" keeps its id and its count, lookups still work */
    assert_int_equal(stats_counter_id(&s, "first"), a);
    assert_int_equal(s.counters[a].value, 5);
    int c = stats_counter_id(&s, "second");     /* memory is back: the counter is made now */
    assert_true(c >= 0 && c != a);
    stats_count(&s, c, 2);
    assert_int_equal(s.counters[c].value, 2);
    assert_int_equal(s.counters[a].value, 5);
    stats_local_free(&s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counter_name_copy_fails),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
