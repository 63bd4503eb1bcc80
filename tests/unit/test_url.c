/* test_url.c - unit tests for proto/url.c: percent-encoding against
 * Python's urllib.parse.quote (safe="~") output taken as the reference,
 * decoding, absolute-URL splitting and Location resolution (RFC 3986 5.4's
 * examples for the forms servers send). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "proto/url.h"

static void expect_enc(const char *in, int form, const char *want) {
    char out[256];
    size_t n = url_encode(out, sizeof out, in, strlen(in), form);
    assert_true(n < sizeof out);
    out[n] = 0;
    assert_string_equal(out, want);
    char back[256];
    size_t m = url_decode(back, out, n, form);
    assert_int_equal(m, strlen(in));
    assert_memory_equal(back, in, m);
}

static void test_encode(void **state) {
    (void)state;
    /* references: python3 -c 'import urllib.parse as u; print(u.quote(s, safe="~"))' */
    expect_enc("abcXYZ019-._~", 0, "abcXYZ019-._~");
    expect_enc("a b&c=d/é", 0, "a%20b%26c%3Dd%2F%C3%A9");
    expect_enc("?#[]@!$'()*+,;%", 0, "%3F%23%5B%5D%40%21%24%27%28%29%2A%2B%2C%3B%25");
    /* python3 -c 'import urllib.parse as u; print(u.quote_plus(s, safe="~"))' */
    expect_enc("a b+c", 1, "a+b%2Bc");
    expect_enc("", 0, "");
    /* too small: the size needed, nothing overrun */
    char small[4] = {'x', 'x', 'x', 'x'};
    assert_int_equal(url_encode(small, 2, "é", 2, 0), 6);
    assert_int_equal(url_encode(small, 4, "ab ", 3, 0), 5);
}

static void test_decode_errors(void **state) {
    (void)state;
    char out[16];
    assert_int_equal(url_decode(out, "%", 1, 0), (size_t)-1);
    assert_int_equal(url_decode(out, "%4", 2, 0), (size_t)-1);
    assert_int_equal(url_decode(out, "%zz", 3, 0), (size_t)-1);
    assert_int_equal(url_decode(out, "a+b", 3, 0), 3);
    assert_memory_equal(out, "a+b", 3);                 /* '+' kept outside forms */
    assert_int_equal(url_decode(out, "%4a%4A", 6, 0), 2);
    assert_memory_equal(out, "JJ", 2);
}

static void expect_split(const char *in, int rc, const char *scheme, const char *auth, const char *rest) {
    url_abs a;
    assert_int_equal(url_split_abs(in, strlen(in), &a), rc);
    if (rc) return;
    assert_int_equal(a.scheme_len, strlen(scheme));
    assert_memory_equal(a.scheme, scheme, a.scheme_len);
    assert_int_equal(a.authority_len, strlen(auth));
    assert_memory_equal(a.authority, auth, a.authority_len);
    assert_int_equal(a.rest_len, strlen(rest));
    assert_memory_equal(a.rest, rest, a.rest_len);
}

static void test_split(void **state) {
    (void)state;
    expect_split("http://h:8080/a/b?c=1", 0, "http", "h:8080", "/a/b?c=1");
    expect_split("HTTPS://[::1]:443", 0, "HTTPS", "[::1]:443", "/");
    expect_split("http://h?q=1", 0, "http", "h", "?q=1");
    expect_split("http:///x", -1, "", "", "");
    expect_split("http://user@h/", -1, "", "", "");
    expect_split("ftp://h/", -1, "", "", "");
    expect_split("/rel", -1, "", "", "");
    assert_true(url_is_abs("Http://x", 8));
    assert_false(url_is_abs("http:/x", 7));
}

static void expect_resolve(const char *base, const char *loc, const char *want) {
    char out[256];
    size_t n = url_resolve(out, sizeof out, base, strlen(base), loc, strlen(loc), "http");
    assert_true(n != (size_t)-1);
    assert_string_equal(out, want);
    assert_int_equal(n, strlen(want));
}

/* A Location's scheme (issue 23): only http and https redirects are
 * followed, so the binding must see "file:" and "javascript:" as schemes,
 * and relative references (with a ':' further on) as none. */
static void test_scheme_len(void **state) {
    (void)state;
    assert_int_equal(url_scheme_len("file:///etc/passwd", 18), 4);
    assert_int_equal(url_scheme_len("javascript:alert(1)", 19), 10);
    assert_int_equal(url_scheme_len("FTP://h/x", 9), 3);
    assert_int_equal(url_scheme_len("svn+ssh://h", 11), 7);
    assert_int_equal(url_scheme_len("https://h/", 10), 5);
    assert_int_equal(url_scheme_len("/a:b", 4), 0);
    assert_int_equal(url_scheme_len("a/b:c", 5), 0);
    assert_int_equal(url_scheme_len("?x=a:b", 6), 0);
    assert_int_equal(url_scheme_len(":x", 2), 0);
    assert_int_equal(url_scheme_len("1a:x", 4), 0);
    assert_int_equal(url_scheme_len("page", 4), 0);
}

static void test_resolve(void **state) {
    (void)state;
    /* RFC 3986 5.4.1 with base http://a/b/c/d;p?q (the forms a Location takes) */
    const char *b = "/b/c/d;p?q";
    expect_resolve(b, "g", "/b/c/g");
    expect_resolve(b, "./g", "/b/c/g");
    expect_resolve(b, "g/", "/b/c/g/");
    expect_resolve(b, "/g", "/g");
    expect_resolve(b, "//g", "http://g");
    expect_resolve(b, "?y", "/b/c/d;p?y");
    expect_resolve(b, "g?y", "/b/c/g?y");
    expect_resolve(b, "g#s", "/b/c/g");                  /* fragments are not sent */
    expect_resolve(b, "../g", "/b/g");
    expect_resolve(b, "../../g", "/g");
    expect_resolve(b, "http://other:81/x", "http://other:81/x");
    char out[8];
    assert_int_equal(url_resolve(out, sizeof out, "/", 1, "/much-too-long", 14, "http"), (size_t)-1);
    assert_int_equal(url_resolve(out, sizeof out, "/", 1, "", 0, "http"), (size_t)-1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_encode),
        cmocka_unit_test(test_decode_errors),
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_resolve),
        cmocka_unit_test(test_scheme_len),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
