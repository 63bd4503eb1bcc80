/* test_prom_native.c - unit tests for the native-histogram bucket rule of
 * remote write (src/output/prom_series.c): the schema chosen from
 * luamech's precision, and which exponential bucket holds a value (bucket i
 * of schema s holds (2^(2^-s))^(i-1) < v <= (2^(2^-s))^i). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "output/sink_prom.h"

static void test_schema_from_precision(void **state) {
    (void)state;
    /* 3 significant digits (0.1 %): schema 9 would do; Prometheus stops at 8. */
    assert_int_equal(prom_native_schema(), 8);
}

static void test_index_bounds(void **state) {
    (void)state;
    assert_int_equal(prom_native_index(1.0, 8), 0);          /* 1 is a bound in every schema */
    assert_int_equal(prom_native_index(2.0, 8), 256);        /* a power of two: 2^s buckets per octave */
    assert_int_equal(prom_native_index(2.0 * 1.000001, 8), 257);
    assert_int_equal(prom_native_index(0.5, 0), -1);
    assert_int_equal(prom_native_index(0.75, 0), 0);         /* (0.5, 1] */
    assert_int_equal(prom_native_index(3.0, 0), 2);          /* (2, 4] */
    assert_int_equal(prom_native_index(pow(2.0, 1.0 / 256), 8), 1);   /* an exact bound stays in its bucket */
}

static void test_index_brackets_values(void **state) {
    (void)state;
    double base = pow(2.0, 1.0 / 256);
    for (double v = 1e-6; v < 100; v *= 1.37) {               /* 1 us to 100 s */
        int32_t i = prom_native_index(v, 8);
        assert_true(pow(base, i - 1) < v * (1 + 1e-9));
        assert_true(v <= pow(base, i) * (1 + 1e-9));
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_schema_from_precision),
        cmocka_unit_test(test_index_bounds),
        cmocka_unit_test(test_index_brackets_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
