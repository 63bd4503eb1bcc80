/* test_threshold_tags.c - thresholds on a tag across timers: a subject
 * "BASE{k=v}" (or k6's "BASE{k:v}") selects the tagged timers by their data
 * fields (tagged_of, tags), never by name, and is evaluated on their
 * histograms merged (not on an average or maximum of their percentiles),
 * their errors and counts added; twins and other tag sets stay out. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "report/report.h"
#include "stats/threshold.h"

static threshold parse_ok(const char *s) {
    threshold t;
    char err[512];
    if (threshold_parse(s, &t, err, sizeof err) != 0) fail_msg("%s: %s", s, err);
    return t;
}

static void test_parse_selector(void **state) {
    (void)state;
    threshold t = parse_ok("http.*{kind:api} p95 < 200ms");
    assert_int_equal(t.ntags, 1);
    assert_string_equal(t.base, "http.*");
    assert_string_equal(t.tag_k[0], "kind");
    assert_string_equal(t.tag_v[0], "api");
    assert_int_equal(t.stat, TH_LATENCY);
    assert_int_equal(t.fig, FIG_P95);
    t = parse_ok("http.get{env=staging,a:b=c d} count > 5");   /* '=' first: the name may hold ':' */
    assert_int_equal(t.ntags, 2);
    assert_string_equal(t.tag_k[1], "a:b");
    assert_string_equal(t.tag_v[1], "c d");
    t = parse_ok("http /users/{id}{kind=a} p95 < 1s");        /* a name with braces, then a selector */
    assert_string_equal(t.base, "http /users/{id}");
    assert_int_equal(t.ntags, 1);
    t = parse_ok("http /users/{id} p95 < 1s");                 /* no pairs: a plain name */
    assert_int_equal(t.ntags, 0);
    assert_string_equal(t.timer, "http /users/{id}");
    t = parse_ok("{kind=api} errors rate < 1%");               /* any tagged timer */
    assert_int_equal(t.ntags, 1);
    assert_string_equal(t.base, "");
    t = parse_ok("x{=v} count > 1");                           /* no tag name: a plain name */
    assert_int_equal(t.ntags, 0);
}

static const char *tag_of(void *ctx, const char *name) {
    const char **kv = ctx;
    for (; kv[0]; kv += 2)
        if (strcmp(kv[0], name) == 0) return kv[1];
    return NULL;
}

static void test_match(void **state) {
    (void)state;
    const char *api1[] = {"kind", "api", "v", "1", NULL}, *web[] = {"kind", "web", NULL};
    threshold t = parse_ok("http.*{kind:api} p95 < 200ms");
    assert_true(threshold_tags_match(&t, "http.get", tag_of, api1));
    assert_true(threshold_tags_match(&t, "http.post", tag_of, api1));
    assert_false(threshold_tags_match(&t, "http hello", tag_of, api1));   /* a named call: "http *" */
    assert_false(threshold_tags_match(&t, "http.get", tag_of, web));
    t = parse_ok("http.get{kind=api,v=2} count > 0");
    assert_false(threshold_tags_match(&t, "http.get", tag_of, api1));
    t = parse_ok("http.get count > 0");
    assert_false(threshold_tags_match(&t, "http.get", tag_of, api1));     /* not a selector */
    /* a family ("http", one word): every call of it, named or not */
    t = parse_ok("http{kind:api} errors rate < 1%");
    assert_true(threshold_tags_match(&t, "http.get", tag_of, api1));
    assert_true(threshold_tags_match(&t, "http hello", tag_of, api1));
    assert_true(threshold_tags_match(&t, "http", tag_of, api1));
    assert_false(threshold_tags_match(&t, "https", tag_of, api1));
    assert_false(threshold_tags_match(&t, "httpx.get", tag_of, api1));
    assert_false(threshold_tags_match(&t, "http hello", tag_of, web));
    /* a name with a space or a dot is no family: "http login" is not "http login2" */
    t = parse_ok("http login{kind:api} count > 0");
    assert_true(threshold_tags_match(&t, "http login", tag_of, api1));
    assert_false(threshold_tags_match(&t, "http login admin", tag_of, api1));
    t = parse_ok("http.get{kind:api} count > 0");
    assert_false(threshold_tags_match(&t, "http.get.x", tag_of, api1));
}

/* A tagged timer (or an "(all)" twin of one, of != NULL) with samples. */
static agg_timer *mk(const char *name, const char *tags, const agg_timer *of) {
    agg_timer *t = calloc(1, sizeof *t);
    t->name = strdup(name);
    t->kind = TK_PRIMITIVE;
    t->role = of ? TR_TWIN : TR_NAMED;
    t->of = of;
    t->group = -1;
    t->tags = tags ? strdup(tags) : NULL;
    hist_init(&t->total);
    return t;
}

static void test_merged(void **state) {
    (void)state;
    agg_timer *a = mk("http.get{kind=api,v=1}", "{\"tagged_of\":\"http.get\",\"tags\":{\"kind\":\"api\",\"v\":\"1\"}}", NULL);
    agg_timer *b = mk("http.post{kind=api}", "{\"tagged_of\":\"http.post\",\"tags\":{\"kind\":\"api\"}}", NULL);
    agg_timer *w = mk("http.get{kind=web}", "{\"tagged_of\":\"http.get\",\"tags\":{\"kind\":\"web\"}}", NULL);
    agg_timer *twin = mk("http.get{kind=api,v=1} (all)", a->tags, a);
    agg_timer *all = mk("http.get", NULL, NULL);
    hist_record_n_us(&a->total, 1000, 90);         /* 90 x 1 ms */
    a->total_errors = 3;
    hist_record_n_us(&b->total, 100000, 10);       /* 10 x 100 ms */
    b->total_errors = 2;
    hist_record_n_us(&w->total, 500000, 50);       /* not selected */
    w->total_errors = 40;
    hist_record_n_us(&twin->total, 1000, 93);      /* a twin: never counted */
    hist_record_n_us(&all->total, 1000, 500);
    agg_timer *timers[] = {all, a, twin, b, w};
    run_result r;
    memset(&r, 0, sizeof r);
    r.agg.n = 5;
    r.agg.timers = timers;
    r.run_ns = r.span_ns = 10000000000;            /* 10 s */
    threshold th[] = {parse_ok("http.*{kind:api} p80 < 5ms"), parse_ok("http.*{kind:api} count == 105"),
                      parse_ok("http.*{kind=api} errors == 5"), parse_ok("http.*{kind=api} rate > 10"),
                      parse_ok("http.get{kind=api} max < 5ms"), parse_ok("http.*{kind=none} count > 0"),
                      parse_ok("http.get p80 < 5ms")};
    scenario sc;
    memset(&sc, 0, sizeof sc);
    sc.nthresholds = (int)(sizeof th / sizeof th[0]);
    sc.thresholds = th;
    th_result *res;
    int failed = report_threshold_results(&sc, &r, &res);
    /* merged: 90 of 100 successful samples at 1 ms, so p80 is ~1 ms (an
     * average of the two p80s would be ~50 ms, their maximum 100 ms) */
    assert_int_equal(res[0].state, TH_MEASURED);
    assert_true(res[0].measured >= 0.99 && res[0].measured <= 1.01);
    assert_true(res[0].passed);
    assert_true(res[1].passed);                    /* 90 + 10 successes + 5 errors */
    assert_true(res[1].measured == 105);
    assert_true(res[2].measured == 5);             /* errors added, the twin and kind=web left out */
    assert_true(res[3].measured == 10.5);          /* 105 over the run's 10 s (once, not per timer) */
    assert_true(res[4].passed);                    /* only http.get's: 1 ms, not http.post's 100 ms */
    assert_int_equal(res[5].state, TH_NO_DATA);
    assert_false(res[5].passed);
    assert_true(res[6].passed);                    /* the untagged timer as before */
    assert_int_equal(failed, 1);
    free(res);
    for (int i = 0; i < 5; i++) {
        hist_free(&timers[i]->total);
        free(timers[i]->name);
        free(timers[i]->tags);
        free(timers[i]);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_selector),
        cmocka_unit_test(test_match),
        cmocka_unit_test(test_merged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
