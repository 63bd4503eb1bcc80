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

#include <jansson.h>

#include "report/results.h"
#include "report/view.h"
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

/* A head with its views linked as agg links them (agg_view finds them). */
static agg_timer *mk_family(const char *name, const char *tags, int uncorrected) {
    char buf[256];
    agg_timer *h = mk(name, tags, NULL);
    snprintf(buf, sizeof buf, "%s (all)", name);
    h->all = mk(buf, tags, h);
    if (uncorrected) {
        snprintf(buf, sizeof buf, "%s (uncorrected)", name);
        h->uncorrected = mk(buf, tags, NULL);
        h->uncorrected->twin_of = h;
    }
    return h;
}

static void free_timer(agg_timer *t) {
    hist_free(&t->total);
    free(t->name);
    free(t->tags);
    free(t);
}

/* Views addressed by a suffix: "SEL (all)" merges the selected families'
 * "(all)" views (failures in the latency and in the errors), the default
 * view is the families themselves; a timer named the whole subject wins
 * over the suffix (a group called "a (uncorrected)"); summary.json says
 * which family and view were judged. */
static void test_views(void **state) {
    (void)state;
    agg_timer *a = mk_family("http login{flow=shop}", "{\"tagged_of\":\"http login\",\"tags\":{\"flow\":\"shop\"}}", 1);
    agg_timer *b = mk_family("http.get{flow=shop}", "{\"tagged_of\":\"http.get\",\"tags\":{\"flow\":\"shop\"}}", 0);
    agg_timer *ga = mk_family("group a", NULL, 1), *gu = mk_family("group a (uncorrected)", NULL, 1);
    hist_record_n_us(&a->total, 1000, 60);              /* successes: 1 ms */
    a->total_errors = 20;
    hist_record_n_us(&a->all->total, 1000, 60);         /* its (all) view: the failures at 2 s */
    hist_record_n_us(&a->all->total, 2000000, 20);
    a->all->total.not_ok = 20;
    hist_record_n_us(&a->uncorrected->total, 500, 60);
    hist_record_n_us(&b->total, 1000, 20);
    hist_record_n_us(&b->all->total, 1000, 20);
    hist_record_n_us(&ga->total, 1000, 7);
    hist_record_n_us(&ga->all->total, 1000, 7);
    hist_record_n_us(&ga->uncorrected->total, 1000, 8);
    hist_record_n_us(&gu->total, 1000, 9);
    hist_record_n_us(&gu->uncorrected->total, 1000, 10);
    agg_timer *timers[] = {a, a->all, a->uncorrected, b, b->all, ga, ga->all, ga->uncorrected,
                           gu, gu->all, gu->uncorrected};
    int n = (int)(sizeof timers / sizeof timers[0]);
    run_result r;
    memset(&r, 0, sizeof r);
    r.agg.n = n;
    r.agg.timers = timers;
    r.run_ns = r.span_ns = 10000000000;
    threshold th[] = {parse_ok("http{flow:shop} p99 < 1s"),              /* 0: default: passes */
                      parse_ok("http{flow:shop} (all) p99 < 1s"),        /* 1: the failures' 2 s: fails */
                      parse_ok("http{flow:shop} (all) count == 100"),    /* 2: 80 + 20 */
                      parse_ok("http{flow:shop} (all) errors == 20"),    /* 3: not_ok counted */
                      parse_ok("http{flow:shop} (all) errors rate == 20%"),
                      parse_ok("http{flow:shop} (default) count == 100"),   /* 5: 60 + 20 errors + 20 */
                      parse_ok("http{flow:shop} (uncorrected) count == 60"),   /* 6: only a has one */
                      parse_ok("group a (uncorrected) count == 9"),      /* 7: the group so named wins */
                      parse_ok("group a (uncorrected) (uncorrected) count == 10"),   /* 8: its twin */
                      parse_ok("group a (all) count == 7"),              /* 9: no failure: = default */
                      parse_ok("group b (all) count > 0"),               /* 10: no such family */
                      parse_ok("http{flow:none} (all) count > 0")};      /* 11: selects nothing */
    scenario sc;
    memset(&sc, 0, sizeof sc);
    sc.nthresholds = (int)(sizeof th / sizeof th[0]);
    sc.thresholds = th;
    timer_view v;
    assert_ptr_equal(threshold_family(&th[7], &r.agg, &v), gu);
    assert_int_equal(v, TV_DEFAULT);
    assert_true(threshold_exact(&th[7], &r.agg));
    assert_ptr_equal(threshold_family(&th[8], &r.agg, &v), gu);
    assert_int_equal(v, TV_UNCORRECTED);
    assert_ptr_equal(threshold_timer(&th[8], &r.agg), gu->uncorrected);
    assert_ptr_equal(threshold_timer(&th[9], &r.agg), ga->all);
    assert_false(threshold_exact(&th[9], &r.agg));
    assert_null(threshold_timer(&th[10], &r.agg));
    agg_timer eng;                                      /* an engine timer: no other view */
    memset(&eng, 0, sizeof eng);
    eng.kind = TK_ENGINE;
    assert_ptr_equal(threshold_view_of(&eng, TV_ALL), &eng);   /* no "all" view: the default */
    assert_null(threshold_view_of(&eng, TV_UNCORRECTED));
    th_result *res;
    int failed = report_threshold_results(&sc, &r, &res);
    assert_true(res[0].passed);
    assert_true(res[0].measured < 2);
    assert_false(res[1].passed);
    assert_true(res[1].measured >= 1999);
    for (int i = 2; i <= 9; i++) {
        if (!res[i].passed) fail_msg("%s: measured %f", th[i].text, res[i].measured);
    }
    assert_int_equal(res[10].state, TH_NO_DATA);
    assert_int_equal(res[11].state, TH_NO_DATA);
    assert_int_equal(failed, 3);
    json_t *j = report_thresholds_json(res, sc.nthresholds);
    static const char *const want[][3] = {{"0", "http{flow:shop}", "default"}, {"1", "http{flow:shop}", "all"},
                                          {"6", "http{flow:shop}", "uncorrected"},
                                          {"7", "group a (uncorrected)", "default"},
                                          {"8", "group a (uncorrected)", "uncorrected"}, {"9", "group a", "all"}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        json_t *o = json_array_get(j, (size_t)atoi(want[i][0]));
        assert_string_equal(json_string_value(json_object_get(o, "family")), want[i][1]);
        assert_string_equal(json_string_value(json_object_get(o, "view")), want[i][2]);
    }
    assert_string_equal(json_string_value(json_object_get(json_array_get(j, 1), "timer")), "http{flow:shop} (all)");
    json_decref(j);
    free(res);
    for (int i = 0; i < n; i++) free_timer(timers[i]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_selector),
        cmocka_unit_test(test_match),
        cmocka_unit_test(test_merged),
        cmocka_unit_test(test_views),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
