/* test_agg.c - interval bucketing: worker ticks merged in lockstep into
 * intervals anchored at t = 0, empty intervals kept, late timers backfilled,
 * the last partial interval's rate over its real length, the graceful stop's drain
 * in the last interval (its span); plus the units
 * parser and the error tally. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/units.h"
#include "engine/engine.h"
#include "stats/agg.h"
#include "stats/local.h"

/* A tick message from `worker` for `tick` with `n` samples of `us` on `name`. */
static tick_msg *msg(int worker, int64_t tick, const char *name, int n, int64_t us, int errors) {
    stats_local s;
    stats_local_init(&s);
    int id = stats_timer_id(&s, name, TK_CUSTOM);
    for (int i = 0; i < n; i++) stats_record(&s, id, us * 1000, 1);
    for (int i = 0; i < errors; i++) {
        stats_record(&s, id, 0, 0);
        stats_error(&s, "boom", 4);
    }
    tick_msg *m = stats_local_flush(&s, worker, tick);
    stats_local_free(&s);
    return m;
}

static void test_lockstep_and_intervals(void **state) {
    (void)state;
    agg a;
    agg_init(&a, 2, 2000000000LL, 1000000000LL);   /* 2 s intervals, 1 s ticks */
    /* worker 0 runs ahead: nothing may close until worker 1 catches up */
    assert_int_equal(agg_push(&a, msg(0, 0, "T", 10, 100, 0)), 0);
    assert_int_equal(agg_push(&a, msg(0, 1, "T", 10, 200, 0)), 0);
    assert_int_equal(agg_push(&a, msg(0, 2, "T", 0, 0, 0)), 0);
    assert_int_equal(agg_push(&a, msg(0, 3, "T", 0, 0, 0)), 0);
    assert_int_equal(a.nintervals, 0);
    assert_int_equal(agg_push(&a, msg(1, 0, "T", 5, 300, 1)), 0);
    assert_int_equal(agg_push(&a, msg(1, 1, "T", 5, 400, 0)), 1);   /* interval 1 closes */
    assert_int_equal(a.nintervals, 1);
    agg_timer *t = agg_find(&a, "T");
    assert_non_null(t);
    assert_int_equal(t->rows[0].count, 31);
    assert_int_equal(t->rows[0].errors, 1);
    assert_int_equal(t->rows[0].min_us, 100);
    assert_int_equal(t->rows[0].max_us, 400);
    assert_true(t->rows[0].rate > 15.49 && t->rows[0].rate < 15.51);   /* 31 / 2 s */
    /* an empty interval is reported, not skipped */
    assert_int_equal(agg_push(&a, msg(1, 2, "T", 0, 0, 0)), 0);
    assert_int_equal(agg_push(&a, msg(1, 3, "T", 0, 0, 0)), 1);
    assert_int_equal(t->nrows, 2);
    assert_int_equal(t->rows[1].count, 0);
    /* a timer first seen in interval 3 gets empty rows for 1 and 2 */
    agg_push(&a, msg(0, 4, "late", 3, 50, 0));
    tick_msg *fin = msg(1, 4, "T", 2, 60, 0);
    fin->final = 1;
    agg_push(&a, fin);
    tick_msg *fin0 = msg(0, 5, "late", 1, 70, 0);
    fin0->final = 1;
    agg_push(&a, fin0);
    agg_finish(&a, 5500000000LL);                   /* run ended at 5.5 s */
    agg_timer *late = agg_find(&a, "late");
    assert_int_equal(late->nrows, 3);
    assert_int_equal(late->rows[0].count, 0);
    assert_int_equal(late->rows[1].count, 0);
    assert_int_equal(late->rows[2].count, 4);
    /* the last interval is 1.5 s long: its rate is over 1.5 s */
    assert_true(late->rows[2].period_s > 1.49 && late->rows[2].period_s < 1.51);
    assert_true(late->rows[2].rate > 2.66 && late->rows[2].rate < 2.67);
    assert_int_equal(t->nrows, 3);
    assert_int_equal(t->rows[2].count, 2);
    /* whole-run totals equal the sum of intervals */
    int64_t sum = 0;
    for (int i = 0; i < t->nrows; i++) sum += t->rows[i].count;
    assert_int_equal(sum, t->total.total + t->total_errors);
    assert_int_equal(tally_total(&a.errors), 1);
    agg_free(&a);
}

static void test_run_shorter_than_interval(void **state) {
    (void)state;
    agg a;
    agg_init(&a, 1, 10000000000LL, 1000000000LL);
    tick_msg *m = msg(0, 0, "T", 7, 10, 0);
    m->final = 1;
    agg_push(&a, m);
    agg_finish(&a, 300000000LL);
    agg_timer *t = agg_find(&a, "T");
    assert_int_equal(t->nrows, 1);
    assert_int_equal(t->rows[0].count, 7);
    assert_true(t->rows[0].rate > 23.3 && t->rows[0].rate < 23.4);   /* 7 / 0.3 s */
    agg_free(&a);
}

/* A stop decided just before an interval boundary, with the worker already
 * past it: the samples of that last tick still land in an interval row. */
static void test_stop_on_boundary(void **state) {
    (void)state;
    agg a;
    agg_init(&a, 1, 2000000000LL, 1000000000LL);
    agg_push(&a, msg(0, 0, "T", 1, 10, 0));
    agg_push(&a, msg(0, 1, "T", 1, 10, 0));
    tick_msg *m = msg(0, 2, "T", 3, 10, 0);
    m->final = 1;
    agg_push(&a, m);
    agg_finish(&a, 1999000000LL);
    agg_timer *t = agg_find(&a, "T");
    assert_int_equal(t->nrows, 2);
    assert_int_equal(t->rows[0].count + t->rows[1].count, 5);
    assert_int_equal(t->rows[1].count, 3);
    assert_true(t->rows[1].period_s > 0.99 && t->rows[1].period_s < 1.01);
    agg_free(&a);
}

/* The graceful stop's drain: samples taken after the stop, until span_ns,
 * are in the last interval, whose period (and rate) runs to span_ns. */
static void test_drain_span(void **state) {
    (void)state;
    agg a;
    agg_init(&a, 1, 1000000000LL, 1000000000LL);    /* 1 s intervals and ticks */
    agg_push(&a, msg(0, 0, "T", 40, 100, 0));
    agg_push(&a, msg(0, 1, "T", 40, 100, 0));
    tick_msg *m = msg(0, 2, "T", 6, 100, 0);          /* 2 before the stop at 2.05 s, 4 in the drain */
    m->final = 1;
    agg_push(&a, m);
    assert_int_equal(agg_finish_span(&a, 2050000000LL, 2150000000LL), 2150000000LL);
    agg_timer *t = agg_find(&a, "T");
    assert_int_equal(t->nrows, 3);
    assert_true(t->rows[2].period_s > 0.1499 && t->rows[2].period_s < 0.1501);
    assert_true(t->rows[2].rate > 39.9 && t->rows[2].rate < 40.1);   /* 6 / 0.15 s, not 6 / 0.05 s */
    agg_free(&a);

    /* a stop on a boundary: the drain is one more interval, as long as the drain */
    agg_init(&a, 1, 1000000000LL, 1000000000LL);
    agg_push(&a, msg(0, 0, "T", 40, 100, 0));
    agg_push(&a, msg(0, 1, "T", 40, 100, 0));
    m = msg(0, 2, "T", 4, 100, 0);
    m->final = 1;
    agg_push(&a, m);
    assert_int_equal(agg_finish_span(&a, 2000000000LL, 2100000000LL), 2100000000LL);
    t = agg_find(&a, "T");
    assert_int_equal(t->nrows, 3);
    assert_true(t->rows[2].period_s > 0.0999 && t->rows[2].period_s < 0.1001);
    assert_int_equal(t->rows[2].count, 4);
    agg_free(&a);

    /* ... and nothing after the stop: no empty extra interval */
    agg_init(&a, 1, 1000000000LL, 1000000000LL);
    agg_push(&a, msg(0, 0, "T", 40, 100, 0));
    agg_push(&a, msg(0, 1, "T", 40, 100, 0));
    m = msg(0, 2, "T", 0, 0, 0);
    m->final = 1;
    agg_push(&a, m);
    assert_int_equal(agg_finish_span(&a, 2000000000LL, 2000300000LL), 2000000000LL);
    assert_int_equal(agg_find(&a, "T")->nrows, 2);
    agg_free(&a);
}

static void test_tick_divides_interval(void **state) {
    (void)state;
    int64_t cases[] = {100000000LL, 1000000000LL, 1500000000LL, 10000000000LL, 100000000000LL,
                       2500000000LL, 1700000000LL, 300000000LL};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t tick = engine_tick_ns(cases[i]);
        assert_true(tick <= 1000000000LL && tick >= 100000000LL);
        assert_int_equal(cases[i] % tick, 0);
        assert_int_equal(tick % 100000000LL, 0);
    }
    assert_int_equal(engine_tick_ns(10000000000LL), 1000000000LL);   /* 10 s: 1 s ticks */
    assert_int_equal(engine_tick_ns(1500000000LL), 500000000LL);
}

/* A zero or inverted interval and tick (a crafted segment's interval_s = 0
 * reached agg_init through luamech merge): one tick per interval, no
 * division by zero (SIGFPE) when ticks merge. */
static void test_zero_interval(void **state) {
    (void)state;
    agg a;
    int64_t cases[][2] = {{0, 0}, {0, 1000000000LL}, {1000000000LL, 0}, {500000000LL, 1000000000LL}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        agg_init(&a, 1, cases[i][0], cases[i][1]);
        assert_int_equal(a.ticks_per_interval, 1);
        agg_push(&a, msg(0, 0, "x", 3, 100, 0));
        agg_push(&a, msg(0, 1, "x", 2, 100, 0));
        assert_int_equal(a.nintervals, 2);
        agg_free(&a);
    }
}

static void test_units(void **state) {
    (void)state;
    int64_t v;
    assert_int_equal(units_parse_duration_ns("30s", &v), 0); assert_int_equal(v, 30000000000LL);
    assert_int_equal(units_parse_duration_ns("250ms", &v), 0); assert_int_equal(v, 250000000LL);
    assert_int_equal(units_parse_duration_ns("5m", &v), 0); assert_int_equal(v, 300000000000LL);
    assert_int_equal(units_parse_duration_ns("1h", &v), 0); assert_int_equal(v, 3600000000000LL);
    assert_int_equal(units_parse_duration_ns("1.5", &v), 0); assert_int_equal(v, 1500000000LL);
    assert_int_equal(units_parse_duration_ns("10 s", &v), -1);
    assert_int_equal(units_parse_duration_ns("-1s", &v), -1);
    assert_int_equal(units_parse_duration_ns("", &v), -1);
    assert_int_equal(units_parse_duration_ns("3d", &v), -1);
    assert_int_equal(units_parse_count("10k", &v), 0); assert_int_equal(v, 10000);
    assert_int_equal(units_parse_count("1M", &v), 0); assert_int_equal(v, 1000000);
    assert_int_equal(units_parse_count("2.5k", &v), 0); assert_int_equal(v, 2500);
    assert_int_equal(units_parse_count("1.5", &v), -1);
    assert_int_equal(units_parse_count("x", &v), -1);
}

static void test_tally(void **state) {
    (void)state;
    tally t, u;
    tally_init(&t, 3);
    tally_init(&u, 100);
    const char *msgs[] = {"a", "b", "a", "c", "a", "d", "b"};
    for (int i = 0; i < 7; i++) tally_add(&t, msgs[i], 1, 1);
    assert_int_equal(tally_total(&t), 7);
    assert_int_equal(t.other, 1);                    /* "d": beyond 3 distinct */
    size_t *order, n = tally_sorted(&t, &order);
    assert_int_equal(n, 3);
    assert_string_equal(t.msgs[order[0]], "a");
    assert_int_equal(t.counts[order[0]], 3);
    assert_string_equal(t.msgs[order[1]], "b");
    free(order);
    tally_merge(&u, &t);
    tally_merge(&u, &t);
    assert_int_equal(tally_total(&u), 14);
    char longmsg[1000];
    memset(longmsg, 'x', sizeof longmsg);
    tally_add(&u, longmsg, sizeof longmsg, 1);       /* truncated, not overflowing */
    assert_int_equal(tally_total(&u), 15);
    tally_free(&t);
    tally_free(&u);
}

/* Distinct custom names are capped per worker and run-wide: past the cap
 * a name is counted under "(other custom timers)" (nothing is lost), the
 * first such name is kept, and the uncorrected twins do not count. */
static void test_timer_cap(void **state) {
    (void)state;
    stats_local s;
    assert_int_equal(stats_local_init(&s), 0);
    s.max_timers = 3;
    char name[32];
    int ids[6];
    for (int i = 0; i < 6; i++) {
        snprintf(name, sizeof name, "item %d", i);
        ids[i] = stats_timer_id(&s, name, TK_CUSTOM);
        stats_record(&s, ids[i], 1000000, 1);
    }
    assert_int_equal(ids[3], ids[4]);                   /* items 3.. share the bucket */
    assert_string_equal(s.timers[ids[5]].name, STATS_OTHER_CUSTOM);
    assert_int_equal(stats_timer_id(&s, "item 1", TK_CUSTOM), ids[1]);   /* known names still found */
    int twin = stats_twin_id(&s, ids[0]);               /* not counted against the cap */
    assert_string_equal(s.timers[twin].name, "item 0 (uncorrected)");
    assert_int_equal(stats_timer_id(&s, "All Transactions", TK_ALL) >= 0, 1);
    /* the cap counts custom and primitive names together */
    assert_int_equal(stats_timer_id(&s, "redis.get", TK_PRIMITIVE), s.other_id[1]);
    tick_msg *m = stats_local_flush(&s, 0, 0);
    assert_string_equal(m->overflow_name, "item 3");
    m->final = 1;
    /* run-wide: a second worker that saw other names; the agg caps at 3 too */
    stats_local s2;
    stats_local_init(&s2);
    int id = stats_timer_id(&s2, "item 9", TK_CUSTOM);
    stats_record(&s2, id, 2000000, 1);
    tick_msg *m2 = stats_local_flush(&s2, 1, 0);
    m2->final = 1;
    agg a;
    agg_init(&a, 2, 1000000000LL, 1000000000LL);
    a.max_timers = 3;
    agg_push(&a, m);
    agg_push(&a, m2);
    agg_finish(&a, 1000000000LL);
    agg_timer *other = agg_find(&a, STATS_OTHER_CUSTOM);
    assert_non_null(other);
    assert_int_equal(other->total.total, 4);            /* items 3, 4, 5 and 9 */
    assert_null(agg_find(&a, "item 9"));
    assert_non_null(agg_find(&a, "item 2"));
    assert_string_equal(a.overflow_name, "item 3");
    int64_t sum = 0;
    for (int i = 0; i < a.n; i++)
        if (a.timers[i]->kind == TK_CUSTOM && !a.timers[i]->of && a.timers[i]->role != TR_TWIN)
            sum += a.timers[i]->total.total;
    assert_int_equal(sum, 7);                           /* every sample counted once */
    stats_local_free(&s);
    stats_local_free(&s2);
    agg_free(&a);
}

/* "NAME (all)": every sample in the latency figures (failures at their
 * time, cancelled ones, skipped arrivals at their wait), its failed ones as
 * errors; the timer itself keeps successes only and counts the others. */
static void test_all_samples_twin(void **state) {
    (void)state;
    stats_local s;
    stats_local_init(&s);
    int id = stats_timer_id(&s, "GET", TK_CUSTOM);
    for (int i = 0; i < 76; i++) stats_record(&s, id, 1000000, SAMPLE_OK);        /* 76 x 1 ms */
    for (int i = 0; i < 24; i++) stats_record(&s, id, 2000000000, SAMPLE_FAILED);  /* 24 timeouts at 2 s */
    stats_record(&s, id, 500000000, SAMPLE_CANCELLED);                            /* cut at 0.5 s */
    stats_skipped(&s, id, 3000000000, 2);                                         /* waited 3 s */
    tick_msg *m = stats_local_flush(&s, 0, 0);
    m->final = 1;
    agg a;
    agg_init(&a, 1, 1000000000LL, 1000000000LL);
    agg_push(&a, m);
    agg_finish(&a, 1000000000LL);
    agg_timer *t = agg_find(&a, "GET"), *all = agg_find(&a, "GET (all)");
    assert_non_null(all);
    assert_ptr_equal(t->all, all);
    assert_true(agg_timer_reported(all));
    agg_row r, ra;
    agg_timer_total_row(&r, t, 1.0);
    agg_timer_total_row(&ra, all, 1.0);
    assert_int_equal(r.count, 100);                     /* completed: ok + failed */
    assert_int_equal(r.errors, 24);
    assert_int_equal(r.cancelled, 1);
    assert_int_equal(r.skipped, 2);
    assert_int_equal(r.p99_us, 1000);                   /* successes only: 1 ms */
    assert_int_equal(ra.count, 103);                    /* every sample */
    assert_int_equal(ra.errors, 24);
    assert_int_equal(ra.cancelled, 1);
    assert_int_equal(ra.skipped, 2);
    assert_true(ra.p80_us >= 2000000 && ra.p80_us < 2003000);   /* rank 83 of 103: a timeout */
    assert_int_equal(ra.max_us, 3000000);
    assert_int_equal(all->rows[0].count, 103);          /* the interval row too */
    assert_int_equal(t->rows[0].cancelled, 1);
    /* a timer without failures: its twin exists (thresholds find it) but is not reported */
    agg_free(&a);
    stats_local_free(&s);
    stats_local_init(&s);
    stats_record(&s, stats_timer_id(&s, "OK", TK_CUSTOM), 1000, SAMPLE_OK);
    m = stats_local_flush(&s, 0, 0);
    m->final = 1;
    agg_init(&a, 1, 1000000000LL, 1000000000LL);
    agg_push(&a, m);
    agg_finish(&a, 1000000000LL);
    assert_non_null(agg_find(&a, "OK (all)"));
    assert_false(agg_timer_reported(agg_find(&a, "OK (all)")));
    agg_free(&a);
    stats_local_free(&s);
}

/* A family: the head and its views found from the data (agg_head, agg_view,
 * agg_view_of), their names and flat labels (the twins' names, which the
 * flat outputs print); an engine timer has no other view. */
static void test_views(void **state) {
    (void)state;
    assert_string_equal(timer_view_name(TV_DEFAULT), "default");
    assert_string_equal(timer_view_name(TV_UNCORRECTED), "uncorrected");
    assert_string_equal(timer_view_name(TV_ALL), "all");
    assert_null(timer_view_name(TV_N));
    for (int v = 0; v < TV_N; v++) assert_int_equal(timer_view_parse(timer_view_name((timer_view)v)), v);
    assert_int_equal(timer_view_parse("All"), TV_N);
    assert_int_equal(timer_view_parse("(all)"), TV_N);
    assert_int_equal(timer_view_parse(""), TV_N);
    assert_int_equal(timer_view_parse(NULL), TV_N);
    stats_local s;
    stats_local_init(&s);
    int id = stats_timer_id(&s, "GET", TK_CUSTOM);
    stats_record(&s, id, 1000000, SAMPLE_OK);
    stats_record(&s, stats_twin_id(&s, id), 500000, SAMPLE_OK);
    stats_record(&s, stats_timer_id(&s, "engine.x", TK_ENGINE), 1000, SAMPLE_OK);
    tick_msg *m = stats_local_flush(&s, 0, 0);
    m->final = 1;
    agg a;
    agg_init(&a, 1, 1000000000LL, 1000000000LL);
    agg_push(&a, m);
    agg_finish(&a, 1000000000LL);
    const agg_timer *t = agg_find(&a, "GET"), *u = agg_find(&a, "GET (uncorrected)"), *all = agg_find(&a, "GET (all)");
    assert_non_null(t), assert_non_null(u), assert_non_null(all);
    const agg_timer *view[TV_N] = {t, u, all};
    char buf[64];
    for (int v = 0; v < TV_N; v++) {
        assert_ptr_equal(agg_head(view[v]), t);
        assert_ptr_equal(agg_view(t, (timer_view)v), view[v]);
        assert_int_equal(agg_view_of(view[v]), v);
        assert_int_equal(agg_view_label(t, (timer_view)v, buf, sizeof buf), (int)strlen(view[v]->name));
        assert_string_equal(buf, view[v]->name);
    }
    assert_null(agg_view(t, TV_N));
    const agg_timer *e = agg_find(&a, "engine.x");
    assert_ptr_equal(agg_head(e), e);
    assert_ptr_equal(agg_view(e, TV_DEFAULT), e);
    assert_null(agg_view(e, TV_UNCORRECTED));
    assert_null(agg_view(e, TV_ALL));
    agg_view_label(e, TV_ALL, buf, sizeof buf);         /* a label, whether the view exists or not */
    assert_string_equal(buf, "engine.x (all)");
    agg_view_label(t, TV_UNCORRECTED, buf, 8);          /* cut, terminated */
    assert_string_equal(buf, "GET (un");
    agg_free(&a);
    stats_local_free(&s);
}

/* Samples recorded after a worker's final tick (requests cancelled while it
 * closed its clients) arrive in one more message of the same tick: merged,
 * not lost, and the other workers' ticks are not held up. */
static void test_late_message(void **state) {
    (void)state;
    agg a;
    agg_init(&a, 2, 1000000000LL, 1000000000LL);
    tick_msg *f0 = msg(0, 0, "T", 2, 10, 0);
    f0->final = 1;
    agg_push(&a, f0);
    agg_push(&a, msg(0, 0, "T", 0, 0, 3));            /* late: 3 failures, same tick */
    assert_int_equal(agg_push(&a, msg(1, 0, "T", 1, 10, 0)), 1);   /* tick 0 merges */
    assert_int_equal(agg_push(&a, msg(1, 1, "T", 1, 10, 0)), 1);   /* worker 1 goes on */
    tick_msg *f1 = msg(1, 2, "T", 1, 10, 0);
    f1->final = 1;
    agg_push(&a, f1);
    agg_finish(&a, 3000000000LL);
    agg_timer *t = agg_find(&a, "T");
    assert_int_equal(t->total.total + t->total_errors, 8);
    assert_int_equal(t->total_errors, 3);
    assert_int_equal(t->nrows, 3);
    agg_free(&a);
}

/* A timer idle for a whole interval (an ended stage) gives its interval
 * histogram's chunks back; a busy one keeps them (reset, reused); the run's
 * totals keep everything. */
static void test_idle_interval_released(void **state) {
    (void)state;
    agg a;
    agg_init(&a, 1, 1000000000LL, 1000000000LL);    /* 1 s intervals and ticks */
    agg_push(&a, msg(0, 0, "stage", 5, 100, 0));
    agg_push(&a, msg(0, 0, "busy", 5, 100, 0));
    for (int64_t k = 1; k <= 3; k++) agg_push(&a, msg(0, k, "busy", 5, 100, 0));
    agg_timer *st = agg_find(&a, "stage"), *busy = agg_find(&a, "busy");
    assert_non_null(st);
    assert_non_null(busy);
    assert_true(st->nrows >= 2);                     /* an interval without it has closed */
    assert_null(st->interval.pool);
    assert_int_equal(st->interval.cap_chunks, 0);
    assert_int_equal(st->total.total, 5);            /* the run's figures stay */
    assert_true(busy->interval.cap_chunks > 0);      /* busy: its chunks are reused */
    assert_int_equal(busy->total.total, 20);
    agg_free(&a);
}

/* agg's give_back: collects merged messages, as the engine hands them to
 * their worker. */
static void collect_back(void *ctx, tick_msg *m) {
    tick_msg **list = ctx;
    m->next = *list;
    *list = m;
}

/* A worker's per-tick buffers (messages, histograms, error tables, names)
 * come back from the merge and are reused: after a warm-up no tick
 * allocates one, and what is reused carries nothing over (each interval's
 * row and the totals are exact). */
static void test_tick_buffers_reused(void **state) {
    (void)state;
    stats_local s;
    assert_int_equal(stats_local_init(&s), 0);
    agg a;
    agg_init(&a, 1, 2000000000LL, 1000000000LL);   /* 2 s intervals, 1 s ticks */
    tick_msg *back = NULL;
    a.give_back = collect_back;
    a.give_back_ctx = &back;
    int id = stats_timer_id(&s, "T", TK_CUSTOM), cid = stats_counter_id(&s, "bytes");
    int64_t warm = 0;
    for (int k = 0; k < 200; k++) {
        int64_t us = k % 4 < 2 ? 100 : 5000;        /* alternate per interval */
        for (int i = 0; i < 10; i++) stats_record(&s, id, us * 1000, SAMPLE_OK);
        stats_record(&s, id, 7 * 1000, SAMPLE_FAILED);
        stats_error(&s, "boom", 4);
        stats_count(&s, cid, 3);
        tick_msg *m = stats_local_flush(&s, 0, k);
        assert_non_null(m);
        agg_push(&a, m);
        stats_local_take_back(&s, back);            /* the worker's next send */
        back = NULL;
        if (k == 9) warm = s.allocs;
    }
    assert_true(warm > 0);
    assert_int_equal(s.allocs, warm);               /* fresh buffers per tick: grows */
    agg_finish(&a, 200000000000LL);
    agg_timer *t = agg_find(&a, "T");
    assert_non_null(t);
    assert_int_equal(t->total.total, 2000);
    assert_int_equal(t->total_errors, 200);
    assert_int_equal(t->nrows, 100);
    for (int i = 0; i < t->nrows; i++) {
        int64_t us = i % 2 == 0 ? 100 : 5000;
        assert_int_equal(t->rows[i].count, 22);
        assert_int_equal(t->rows[i].min_us, us);
        assert_int_equal(t->rows[i].max_us, us);
    }
    assert_int_equal(agg_find_counter(&a, "bytes")->total, 600);
    assert_int_equal(tally_total(&a.errors), 200);
    agg_free(&a);
    stats_local_free(&s);
}

/* A timer idle for a whole tick frees the histograms it kept for reuse. */
static void test_idle_timer_spares_freed(void **state) {
    (void)state;
    stats_local s;
    assert_int_equal(stats_local_init(&s), 0);
    int a = stats_timer_id(&s, "A", TK_CUSTOM), b = stats_timer_id(&s, "B", TK_CUSTOM);
    stats_record(&s, a, 1000, SAMPLE_OK);
    stats_record(&s, a, 1000, SAMPLE_FAILED);
    stats_record(&s, b, 1000, SAMPLE_OK);
    stats_local_take_back(&s, stats_local_flush(&s, 0, 0));
    assert_int_equal(s.timers[a].nspare, 2);
    assert_int_equal(s.timers[b].nspare, 1);
    stats_record(&s, b, 1000, SAMPLE_OK);           /* A idle this tick */
    tick_msg *m = stats_local_flush(&s, 0, 1);
    assert_int_equal(s.timers[a].nspare, 0);
    assert_int_equal(s.timers[b].nspare, 0);        /* its spare is in use */
    assert_int_equal(m->n, 1);
    stats_local_take_back(&s, m);
    assert_int_equal(s.timers[b].nspare, 1);
    stats_local_free(&s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lockstep_and_intervals),
        cmocka_unit_test(test_run_shorter_than_interval),
        cmocka_unit_test(test_stop_on_boundary),
        cmocka_unit_test(test_drain_span),
        cmocka_unit_test(test_tick_divides_interval),
        cmocka_unit_test(test_units),
        cmocka_unit_test(test_tally),
        cmocka_unit_test(test_timer_cap),
        cmocka_unit_test(test_all_samples_twin),
        cmocka_unit_test(test_views),
        cmocka_unit_test(test_late_message),
        cmocka_unit_test(test_idle_interval_released),
        cmocka_unit_test(test_tick_buffers_reused),
        cmocka_unit_test(test_idle_timer_spares_freed),
        cmocka_unit_test(test_zero_interval),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
