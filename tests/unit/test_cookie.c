/* test_cookie.c - unit tests for proto/cookie.c against a table of RFC 6265
 * cases: the date formats of 5.1.1 (expected values from Python's
 * calendar.timegm), Set-Cookie parsing (5.2), domain and path matching
 * (5.1.3, 5.1.4), and the jar's storage and retrieval (5.3, 5.4) following
 * the examples of section 3.1 and the rules they rest on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "proto/cookie.h"

#define NOW 1700000000   /* 2023-11-14 */

static void date_ok(const char *s, int64_t want) {
    int64_t t = -1;
    assert_int_equal(ck_parse_date(s, strlen(s), &t), 0);
    assert_int_equal(t, want);
}

static void date_bad(const char *s) {
    int64_t t;
    assert_int_equal(ck_parse_date(s, strlen(s), &t), -1);
}

static void test_dates(void **state) {
    (void)state;
    date_ok("Wed, 09 Jun 2027 10:18:14 GMT", 1812536294);          /* RFC 1123 */
    date_ok("Sunday, 06-Nov-94 08:49:37 GMT", 784111777);          /* RFC 850, 2-digit year */
    date_ok("Sun Nov  6 08:49:37 1994", 784111777);                /* asctime */
    date_ok("Thu, 01 Jan 1970 00:00:00 GMT", 0);
    date_ok("29 feb 2000 0:0:0", 951782400);                      /* any order, any case */
    date_bad("Wed, 30 Feb 2027 10:18:14 GMT");
    date_bad("Wed, 09 Jun 1600 10:18:14 GMT");
    date_bad("Wed, 09 Jun 2027 GMT");                            /* no time */
    date_bad("Wed, 09 Jun 2027 24:00:00 GMT");
    date_bad("Wed, 09 Foo 2027 10:18:14 GMT");
    date_bad("");
}

static void test_parse(void **state) {
    (void)state;
    ck_set s;
    const char *v = "SID=31d4d96e407aad42; Path=/; Secure; HttpOnly";
    assert_int_equal(ck_parse(v, strlen(v), &s), 0);
    assert_int_equal(s.name_len, 3);
    assert_memory_equal(s.name, "SID", 3);
    assert_int_equal(s.value_len, 16);
    assert_true(s.secure && s.http_only && s.path_len == 1);
    v = " a = b c ; Max-Age=-5; Domain=.Example.COM; path=rel; expires=junk";
    assert_int_equal(ck_parse(v, strlen(v), &s), 0);
    assert_memory_equal(s.name, "a", 1);
    assert_int_equal(s.value_len, 3);                             /* "b c": inner space kept */
    assert_true(s.has_max_age && s.max_age_s == -5);
    assert_int_equal(s.domain_len, 11);                           /* leading dot dropped */
    assert_null(s.path);                                          /* relative: the default path */
    assert_false(s.has_expires);                                  /* unparseable: ignored */
    v = "x=1; Max-Age=12a";
    assert_int_equal(ck_parse(v, strlen(v), &s), 0);
    assert_false(s.has_max_age);
    assert_int_equal(ck_parse("=v", 2, &s), -1);
    assert_int_equal(ck_parse("novalue", 7, &s), -1);
    assert_int_equal(ck_parse("a=", 2, &s), 0);                   /* an empty value is a cookie */
}

static void test_matching(void **state) {
    (void)state;
#define DM(h, d) ck_domain_match(h, strlen(h), d, strlen(d))
#define PM(r, c) ck_path_match(r, strlen(r), c, strlen(c))
    assert_true(DM("example.com", "example.com"));
    assert_true(DM("www.example.com", "example.com"));
    assert_true(DM("WWW.Example.com", "example.COM"));
    assert_false(DM("wwwexample.com", "example.com"));
    assert_false(DM("example.com", "www.example.com"));
    assert_false(DM("10.0.0.1", "0.0.1"));                         /* not for IP addresses */
    assert_true(DM("10.0.0.1", "10.0.0.1"));
    assert_true(PM("/docs", "/docs"));
    assert_true(PM("/docs/", "/docs"));
    assert_true(PM("/docs/web", "/docs"));
    assert_true(PM("/docs/web", "/docs/"));
    assert_false(PM("/docsets", "/docs"));
    assert_false(PM("/", "/docs"));
    assert_true(PM("/anything", "/"));
}

typedef struct step {
    const char *op;          /* "set" or "get" */
    const char *host, *path; /* the request */
    const char *arg;         /* Set-Cookie value, or the Cookie header expected */
    int64_t now;
    int secure;
} step;

static void run(const step *steps, size_t n) {
    ck_jar j;
    ck_jar_init(&j);
    for (size_t i = 0; i < n; i++) {
        const step *s = &steps[i];
        int64_t now = s->now ? s->now : NOW;
        if (strcmp(s->op, "set") == 0) {
            assert_true(ck_jar_set(&j, s->arg, strlen(s->arg), s->host, s->path, strlen(s->path), now) >= 0);
        } else {
            char out[512];
            size_t len = ck_jar_header(&j, s->host, s->path, strlen(s->path), s->secure, now, out, sizeof out);
            assert_true(len < sizeof out);
            out[len] = 0;
            if (strcmp(out, s->arg) != 0) print_error("step %zu: got '%s', want '%s'\n", i, out, s->arg);
            assert_string_equal(out, s->arg);
        }
    }
    ck_jar_free(&j);
}

static void test_jar_rfc_examples(void **state) {
    (void)state;
    const step steps[] = {
        /* 3.1: a session cookie, sent back */
        {"set", "www.example.com", "/", "SID=31d4d96e407aad42", 0, 0},
        {"get", "www.example.com", "/x", "SID=31d4d96e407aad42", 0, 0},
        {"get", "example.com", "/", "", 0, 0},                              /* host-only */
        {"get", "sub.www.example.com", "/", "", 0, 0},
        /* 3.1: Path=/; Domain=example.com from www.example.com, then lang */
        {"set", "www.example.com", "/", "SID=31d4d96e407aad42; Path=/; Domain=example.com", 0, 0},
        {"set", "www.example.com", "/", "lang=en-US; Path=/; Domain=example.com", 0, 0},
        {"get", "example.com", "/", "SID=31d4d96e407aad42; lang=en-US", 0, 0},
        {"get", "a.b.example.com", "/", "SID=31d4d96e407aad42; lang=en-US", 0, 0},
        /* 3.1: an Expires in the past removes lang */
        {"set", "example.com", "/", "lang=; Expires=Sun, 06 Nov 1994 08:49:37 GMT; Domain=example.com", 0, 0},
        {"get", "example.com", "/", "SID=31d4d96e407aad42", 0, 0},
    };
    run(steps, sizeof steps / sizeof steps[0]);
}

static void test_jar_rules(void **state) {
    (void)state;
    const step steps[] = {
        /* a Domain the host does not match: ignored */
        {"set", "example.com", "/", "evil=1; Domain=example.org", 0, 0},
        {"get", "example.org", "/", "", 0, 0},
        /* default path: the request path up to its last '/' */
        {"set", "h", "/a/b/login?next=/x", "dp=1", 0, 0},
        {"get", "h", "/a/b/page", "dp=1", 0, 0},
        {"get", "h", "/a/bc", "", 0, 0},
        {"get", "h", "/a", "", 0, 0},
        /* longer paths first, then older first */
        {"set", "h", "/", "root=1; Path=/", 0, 0},
        {"set", "h", "/", "deep=1; Path=/a/b/c", 0, 0},
        {"set", "h", "/", "root2=1; Path=/", 0, 0},
        {"get", "h", "/a/b/c/d", "deep=1; dp=1; root=1; root2=1", 0, 0},
        /* replacement keeps the place (creation time) */
        {"set", "h", "/", "root=2; Path=/", 0, 0},
        {"get", "h", "/", "root=2; root2=1", 0, 0},
        /* Secure only on a secure channel */
        {"set", "h", "/", "s=1; Secure", 0, 0},
        {"get", "h", "/", "root=2; root2=1", 0, 0},
        {"get", "h", "/", "root=2; root2=1; s=1", 0, 1},
        /* Max-Age wins over Expires; expiry with time; Max-Age=0 deletes */
        {"set", "h", "/", "m=1; Max-Age=10; Expires=Thu, 01 Jan 1970 00:00:00 GMT", 0, 0},
        {"get", "h", "/", "root=2; root2=1; m=1", NOW + 9, 0},
        {"get", "h", "/", "root=2; root2=1", NOW + 10, 0},
        {"set", "h", "/", "root2=x; Max-Age=0", 0, 0},
        {"get", "h", "/", "root=2", 0, 0},
        /* an IP host: host-only works, a Domain does not */
        {"set", "127.0.0.1", "/", "ip=1", 0, 0},
        {"set", "127.0.0.1", "/", "ipd=1; Domain=0.0.1", 0, 0},
        {"get", "127.0.0.1", "/", "ip=1", 0, 0},
        {"get", "127.0.0.2", "/", "", 0, 0},
        /* not cookies */
        {"set", "h", "/", "novalue", 0, 0},
        {"set", "h", "/", "=x", 0, 0},
        {"get", "h", "/", "root=2", 0, 0},
    };
    run(steps, sizeof steps / sizeof steps[0]);
}

static void test_jar_bounded(void **state) {
    (void)state;
    ck_jar j;
    ck_jar_init(&j);
    char sc[32];
    for (int i = 0; i < CK_MAX_PER_DOMAIN + 50; i++) {
        int n = snprintf(sc, sizeof sc, "c%d=%d", i, i);
        assert_int_equal(ck_jar_set(&j, sc, (size_t)n, "h", "/", 1, NOW), 1);
    }
    assert_int_equal(j.n, CK_MAX_PER_DOMAIN);                    /* the domain's oldest went */
    assert_int_equal(j.dropped, 50);
    char out[16], all[8192];
    size_t need = ck_jar_header(&j, "h", "/", 1, 0, NOW, out, sizeof out);
    assert_true(need > sizeof out);                              /* the size needed, no overrun */
    assert_int_equal(ck_jar_header(&j, "h", "/", 1, 0, NOW, all, sizeof all), need);
    all[need] = 0;
    assert_non_null(strstr(all, "c99=99"));
    assert_null(strstr(all, "c0=0"));
    assert_null(strstr(all, "c49=49"));
    assert_non_null(strstr(all, "c50=50"));
    ck_jar_free(&j);
}

/* RFC 6265 6.1's minimums (issue 23): 50 cookies of 4096 bytes for one
 * domain all kept (three 4 KB cookies used to push the session cookie out
 * of the request), 3000 in all over many domains; past them the oldest
 * goes, counted, and a Set-Cookie over 4096 bytes is counted too. */
static void test_jar_rfc_minimums(void **state) {
    (void)state;
    ck_jar j;
    ck_jar_init(&j);
    char *sc = malloc(CK_MAX_SIZE + 2);
    assert_non_null(sc);
    assert_int_equal(ck_jar_set(&j, "sid=S", 5, "h", "/", 1, NOW), 1);
    for (int i = 1; i < CK_MAX_PER_DOMAIN; i++) {                /* 49 more of 4096 bytes each */
        int n = snprintf(sc, 16, "c%02d=", i);
        memset(sc + n, 'v', (size_t)(CK_MAX_SIZE - n));
        assert_int_equal(ck_jar_set(&j, sc, CK_MAX_SIZE, "h", "/", 1, NOW), 1);
    }
    assert_int_equal(j.n, CK_MAX_PER_DOMAIN);
    assert_int_equal(j.dropped, 0);
    size_t need = ck_jar_header(&j, "h", "/", 1, 0, NOW, NULL, 0);
    assert_true(need > 49 * (CK_MAX_SIZE - 1));
    char *all = malloc(need + 1);
    assert_non_null(all);
    assert_int_equal(ck_jar_header(&j, "h", "/", 1, 0, NOW, all, need), need);
    assert_memory_equal(all, "sid=S; ", 7);                      /* the session cookie is still sent */
    free(all);
    memset(sc, 'v', CK_MAX_SIZE + 1);
    memcpy(sc, "big=", 4);
    assert_int_equal(ck_jar_set(&j, sc, CK_MAX_SIZE + 1, "h", "/", 1, NOW), 0);   /* over 4096: not kept */
    assert_int_equal(j.dropped, 1);
    assert_int_equal(ck_jar_set(&j, "c50=x", 5, "h", "/", 1, NOW), 1);            /* the 51st: sid goes */
    assert_int_equal(j.dropped, 2);
    assert_int_equal(j.n, CK_MAX_PER_DOMAIN);
    ck_jar_free(&j);
    ck_jar_init(&j);
    char host[32];
    for (int d = 0; d < CK_MAX_COOKIES / CK_MAX_PER_DOMAIN + 1; d++) {   /* 61 domains x 50 */
        int hl = snprintf(host, sizeof host, "h%d.test", d);
        (void)hl;
        for (int i = 0; i < CK_MAX_PER_DOMAIN; i++) {
            int n = snprintf(sc, 32, "c%d=%d", i, d);
            assert_int_equal(ck_jar_set(&j, sc, (size_t)n, host, "/", 1, NOW), 1);
        }
    }
    assert_int_equal(j.n, CK_MAX_COOKIES);
    assert_int_equal(j.dropped, CK_MAX_PER_DOMAIN);               /* the jar's oldest (h0.test's) went */
    assert_int_equal(ck_jar_header(&j, "h0.test", "/", 1, 0, NOW, NULL, 0), 0);
    free(sc);
    ck_jar_free(&j);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dates),
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_matching),
        cmocka_unit_test(test_jar_rfc_examples),
        cmocka_unit_test(test_jar_rules),
        cmocka_unit_test(test_jar_bounded),
        cmocka_unit_test(test_jar_rfc_minimums),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
