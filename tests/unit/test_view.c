/* test_view.c - the interval bus (report/view.c): every sink added gets
 * each published view once, the same view, in the order added; a full bus
 * and a sink without a callback are refused; an empty bus publishes to no
 * one.  (That the thresholds and health are then evaluated once per
 * interval for all the sinks: tests/scenarios/test_eval_once.sh.) */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "report/view.h"

typedef struct calls {
    int n;
    char order[64];               /* the sinks' letters, in call order */
    report_view *seen[64];
} calls;

typedef struct probe {
    calls *c;
    char letter;
} probe;

static void probe_on_interval(void *self, report_view *v) {
    probe *p = self;
    if (p->c->n < 63) {
        p->c->seen[p->c->n] = v;
        p->c->order[p->c->n++] = p->letter;
    }
}

static void test_bus_order_and_view(void **state) {
    (void)state;
    calls c = {0};
    probe a = {&c, 'a'}, b = {&c, 'b'}, f = {&c, 'f'};
    report_bus bus = {0};
    assert_int_equal(report_bus_add(&bus, "outputs", &a, probe_on_interval), 0);
    assert_int_equal(report_bus_add(&bus, "files", &f, probe_on_interval), 0);
    assert_int_equal(report_bus_add(&bus, "other", &b, probe_on_interval), 0);
    report_view v1, v2;
    report_view_init(&v1, NULL, NULL);
    report_view_init(&v2, NULL, NULL);
    report_bus_publish(&bus, &v1);
    report_bus_publish(&bus, &v2);
    assert_string_equal(c.order, "afbafb");
    for (int i = 0; i < 3; i++) {
        assert_ptr_equal(c.seen[i], &v1);
        assert_ptr_equal(c.seen[3 + i], &v2);
    }
}

static void test_bus_limits(void **state) {
    (void)state;
    calls c = {0};
    probe p = {&c, 'p'};
    report_bus bus = {0};
    report_view v;
    report_view_init(&v, NULL, NULL);
    report_bus_publish(&bus, &v);                     /* no sink: nothing called */
    assert_int_equal(c.n, 0);
    assert_int_equal(report_bus_add(&bus, "none", &p, NULL), -1);
    for (int i = 0; i < REPORT_BUS_MAX; i++) assert_int_equal(report_bus_add(&bus, "p", &p, probe_on_interval), 0);
    assert_int_equal(report_bus_add(&bus, "one too many", &p, probe_on_interval), -1);
    report_bus_publish(&bus, &v);
    assert_int_equal(c.n, REPORT_BUS_MAX);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bus_order_and_view),
        cmocka_unit_test(test_bus_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
