/* test_http_proto.c - unit tests for the HTTP request encoder, the base URL
 * parser and the incremental response parser (src/proto/http_proto.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "proto/http_proto.h"

/* ---- encoder ---- */

static char *encode(const hp_request *r, size_t *len) {
    size_t need = hp_encode_request(NULL, 0, r);
    if (need == 0) return NULL;
    char *buf = malloc(need + 1);
    assert_non_null(buf);
    assert_int_equal(hp_encode_request(buf, need, r), need);
    buf[need] = 0;
    *len = need;
    return buf;
}

static void expect_encoding(const hp_request *r, const char *want) {
    size_t len;
    char *got = encode(r, &len);
    assert_non_null(got);
    if (len != strlen(want) || memcmp(got, want, len) != 0)
        fprintf(stderr, "got:\n%s\nwant:\n%s\n", got, want);
    assert_int_equal(len, strlen(want));
    assert_memory_equal(got, want, len);
    free(got);
}

static hp_request req(hp_method m, const char *path) {
    hp_request r;
    memset(&r, 0, sizeof r);
    r.method = m;
    r.path = path;
    r.path_len = strlen(path);
    r.host = "127.0.0.1:8080";
    r.host_len = strlen(r.host);
    return r;
}

static hp_header hdr(const char *n, const char *v) {
    hp_header h = {n, strlen(n), v, strlen(v)};
    return h;
}

static void test_encode_get(void **state) {
    (void)state;
    hp_request r = req(HP_GET, "/a/b?x=1&y=%20");
    expect_encoding(&r, "GET /a/b?x=1&y=%20 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n");
    hp_header h[2] = {hdr("Accept", "text/plain"), hdr("X-Empty", "")};
    r.headers = h;
    r.nheaders = 2;
    expect_encoding(&r, "GET /a/b?x=1&y=%20 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"
                        "Accept: text/plain\r\nX-Empty: \r\n\r\n");
    r.close = 1;
    expect_encoding(&r, "GET /a/b?x=1&y=%20 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"
                        "Accept: text/plain\r\nX-Empty: \r\nConnection: close\r\n\r\n");
}

static void test_encode_methods_and_bodies(void **state) {
    (void)state;
    hp_request r = req(HP_POST, "/p");
    r.body = "a=1";
    r.body_len = 3;
    expect_encoding(&r, "POST /p HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Length: 3\r\n\r\na=1");
    r = req(HP_PUT, "/p");                       /* no body: still Content-Length: 0 */
    expect_encoding(&r, "PUT /p HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Length: 0\r\n\r\n");
    r = req(HP_POST, "/p");
    r.body = "";
    r.close = 1;
    expect_encoding(&r, "POST /p HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Length: 0\r\n"
                        "Connection: close\r\n\r\n");
    r = req(HP_DELETE, "/d");
    expect_encoding(&r, "DELETE /d HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n");
    r.body = "x";
    r.body_len = 1;
    expect_encoding(&r, "DELETE /d HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Length: 1\r\n\r\nx");
    r = req(HP_HEAD, "/");
    expect_encoding(&r, "HEAD / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n");
    /* binary body, NUL included */
    r = req(HP_PUT, "/bin");
    r.body = "a\0b\r\n";
    r.body_len = 5;
    size_t len;
    char *got = encode(&r, &len);
    const char want[] = "PUT /bin HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Length: 5\r\n\r\na\0b\r\n";
    assert_int_equal(len, sizeof want - 1);
    assert_memory_equal(got, want, len);
    free(got);
}

static void test_encode_user_host_and_connection(void **state) {
    (void)state;
    hp_request r = req(HP_GET, "/");
    hp_header h[2] = {hdr("host", "example.com"), hdr("Connection", "keep-alive")};
    r.headers = h;
    r.nheaders = 2;
    r.close = 1;
    expect_encoding(&r, "GET / HTTP/1.1\r\nhost: example.com\r\nConnection: keep-alive\r\n\r\n");
}

static void test_encode_small_buffer(void **state) {
    (void)state;
    hp_request r = req(HP_POST, "/p");
    r.body = "0123456789";
    r.body_len = 10;
    size_t need = hp_encode_request(NULL, 0, &r);
    assert_true(need > 10);
    char buf[256];
    memset(buf, 'Z', sizeof buf);
    assert_int_equal(hp_encode_request(buf, 20, &r), need);   /* too small: says how much */
    assert_int_equal(buf[20], 'Z');                             /* nothing written past cap */
    assert_int_equal(hp_encode_request(buf, need, &r), need);
    assert_memory_equal(buf + need - 10, "0123456789", 10);
}

static void test_encode_rejects(void **state) {
    (void)state;
    hp_request r = req(HP_GET, "no-slash");
    assert_int_equal(hp_encode_request(NULL, 0, &r), 0);
    r = req(HP_GET, "/a b");
    assert_int_equal(hp_encode_request(NULL, 0, &r), 0);
    r = req(HP_GET, "/a\r\nX: y");
    assert_int_equal(hp_encode_request(NULL, 0, &r), 0);
    r = req(HP_GET, "/");
    hp_header bad_name = hdr("Bad Name", "v");
    r.headers = &bad_name;
    r.nheaders = 1;
    assert_int_equal(hp_encode_request(NULL, 0, &r), 0);
    hp_header bad_value = hdr("X", "a\r\nInjected: 1");
    r.headers = &bad_value;
    assert_int_equal(hp_encode_request(NULL, 0, &r), 0);
    hp_header cl = hdr("content-length", "5");
    r.headers = &cl;
    assert_int_equal(hp_encode_request(NULL, 0, &r), 0);
    hp_header te = hdr("Transfer-Encoding", "chunked");
    r.headers = &te;
    assert_int_equal(hp_encode_request(NULL, 0, &r), 0);
    r = req((hp_method)HP_NMETHODS, "/");
    assert_int_equal(hp_encode_request(NULL, 0, &r), 0);
}

static void test_methods(void **state) {
    (void)state;
    assert_int_equal(hp_method_parse("GET", 3), HP_GET);
    assert_int_equal(hp_method_parse("get", 3), HP_GET);
    assert_int_equal(hp_method_parse("Delete", 6), HP_DELETE);
    assert_int_equal(hp_method_parse("HEAD", 4), HP_HEAD);
    assert_int_equal(hp_method_parse("POST", 4), HP_POST);
    assert_int_equal(hp_method_parse("PUT", 3), HP_PUT);
    assert_int_equal(hp_method_parse("PATCH", 5), -1);
    assert_int_equal(hp_method_parse("GETX", 4), -1);
    assert_int_equal(hp_method_parse("", 0), -1);
    assert_string_equal(hp_method_name(HP_DELETE), "DELETE");
    assert_true(hp_header_name_valid("X-Foo_bar.1", 11));
    assert_false(hp_header_name_valid("X:Foo", 5));
    assert_false(hp_header_name_valid("", 0));
    assert_true(hp_header_value_valid("a b\tc", 5));
    assert_false(hp_header_value_valid("a\nb", 3));
}

static void test_base_url(void **state) {
    (void)state;
    hp_base_url u;
    const char *why = NULL;
    const char *s = "http://127.0.0.1:8080";
    assert_int_equal(hp_parse_base_url(s, strlen(s), &u, &why), 0);
    assert_int_equal(u.port, 8080);
    assert_int_equal(u.host_len, 9);
    assert_memory_equal(u.host, "127.0.0.1", 9);
    assert_int_equal(u.authority_len, 14);
    assert_memory_equal(u.authority, "127.0.0.1:8080", 14);
    s = "http://localhost/";
    assert_int_equal(hp_parse_base_url(s, strlen(s), &u, &why), 0);
    assert_int_equal(u.port, 80);
    assert_int_equal(u.authority_len, 9);
    s = "HTTP://[::1]:81";
    assert_int_equal(hp_parse_base_url(s, strlen(s), &u, &why), 0);
    assert_int_equal(u.port, 81);
    assert_int_equal(u.host_len, 3);
    assert_memory_equal(u.host, "::1", 3);
    assert_int_equal(u.authority_len, 8);
    const char *bad[] = {"https://127.0.0.1", "127.0.0.1:80", "http://h/api", "http://h:0",
                         "http://h:99999", "http://h?q=1", "http://u@h", "", "ftp://h", NULL};
    for (int i = 0; bad[i]; i++) {
        why = NULL;
        if (hp_parse_base_url(bad[i], strlen(bad[i]), &u, &why) != -1)
            fprintf(stderr, "accepted %s\n", bad[i]);
        assert_int_equal(hp_parse_base_url(bad[i], strlen(bad[i]), &u, &why), -1);
        assert_non_null(why);
    }
}

/* ---- parser ---- */

/* Feed src in pieces cut at `cuts` (each piece a malloc'd copy of exactly its
 * bytes, so ASan sees any overread).  Returns the final rc; *used_total is the
 * number of bytes that belonged to the response. */
static int feed_cut(hp_parser *p, const char *src, size_t len, const size_t *cuts, size_t ncuts,
                    size_t *used_total) {
    size_t off = 0;
    *used_total = 0;
    for (size_t i = 0; i <= ncuts; i++) {
        size_t end = i < ncuts ? cuts[i] : len;
        if (end < off) end = off;
        size_t n = end - off;
        char *copy = malloc(n ? n : 1);
        memcpy(copy, src + off, n);
        size_t used = 0;
        int rc = hp_parser_feed(p, copy, n, &used);
        free(copy);
        assert_true(used <= n);
        *used_total += used;
        if (rc != HP_NEED_MORE) return rc;
        assert_int_equal(used, n);
        off = end;
    }
    return HP_NEED_MORE;
}

static int feed_all(hp_parser *p, const char *src, size_t len, size_t *used) {
    return feed_cut(p, src, len, NULL, 0, used);
}

static void expect_header(const hp_parser *p, const char *name, const char *value) {
    size_t vl;
    const char *v = hp_parser_find(p, name, &vl);
    if (!v) fprintf(stderr, "no header %s\n", name);
    assert_non_null(v);
    assert_int_equal(vl, strlen(value));
    assert_memory_equal(v, value, vl);
}

static void expect_body(const hp_parser *p, const char *body) {
    assert_int_equal(p->body_len, strlen(body));
    if (p->body_len) assert_memory_equal(p->body, body, p->body_len);
}

static const char RESP_CL[] =
    "HTTP/1.1 200 OK\r\nServer: test\r\nContent-Type: text/plain\r\nContent-Length: 11\r\n"
    "X-Multi: a\r\nX-Multi: b\r\n\r\nhello world";

static void test_content_length(void **state) {
    (void)state;
    hp_parser p;
    hp_parser_init(&p);
    size_t used;
    assert_int_equal(feed_all(&p, RESP_CL, strlen(RESP_CL), &used), HP_DONE);
    assert_int_equal(used, strlen(RESP_CL));
    assert_int_equal(p.status, 200);
    assert_int_equal(p.http_major, 1);
    assert_int_equal(p.http_minor, 1);
    assert_true(p.keep_alive);
    assert_false(p.chunked);
    expect_body(&p, "hello world");
    assert_int_equal(p.nheaders, 5);
    const char *n, *v;
    size_t nl, vl;
    hp_parser_header(&p, 1, &n, &nl, &v, &vl);
    assert_int_equal(nl, 12);
    assert_memory_equal(n, "content-type", 12);        /* lowercased */
    assert_memory_equal(v, "text/plain", 10);
    expect_header(&p, "CONTENT-LENGTH", "11");
    hp_parser_header(&p, 4, &n, &nl, &v, &vl);
    assert_memory_equal(n, "x-multi", 7);
    assert_memory_equal(v, "b", 1);
    assert_null(hp_parser_find(&p, "x-none", NULL));
    assert_int_equal(p.nbytes, strlen(RESP_CL));
    /* the same parser, reset, for a second response */
    hp_parser_reset(&p, 0);
    const char *r2 = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
    assert_int_equal(feed_all(&p, r2, strlen(r2), &used), HP_DONE);
    assert_int_equal(p.status, 404);
    assert_int_equal(p.nheaders, 1);
    expect_body(&p, "");
    hp_parser_free(&p);
}

/* Packing keeps every header in order, with empty values, and the walk
 * stops at the end or at a damaged block. */
static void test_headers_pack(void **state) {
    (void)state;
    static const char resp[] = "HTTP/1.1 200 OK\r\nX-Empty:\r\nServer: test\r\n"
                               "X-Multi: a\r\nX-Multi: b\r\nContent-Length: 0\r\n\r\n";
    static const char *const want[][2] = {
        {"x-empty", ""}, {"server", "test"}, {"x-multi", "a"}, {"x-multi", "b"}, {"content-length", "0"}};
    hp_parser p;
    hp_parser_init(&p);
    size_t used;
    assert_int_equal(feed_all(&p, resp, strlen(resp), &used), HP_DONE);
    char small[8], blk[256];
    size_t need = hp_parser_headers_pack(&p, small, sizeof small);
    assert_true(need > sizeof small);
    assert_int_equal(hp_parser_headers_pack(&p, blk, sizeof blk), need);
    size_t pos = 0, i = 0, nl, vl;
    const char *n, *v;
    while (hp_headers_next(blk, need, &pos, &n, &nl, &v, &vl)) {
        assert_true(i < 5);
        assert_int_equal(nl, strlen(want[i][0]));
        assert_memory_equal(n, want[i][0], nl);
        assert_int_equal(vl, strlen(want[i][1]));
        if (vl) assert_memory_equal(v, want[i][1], vl);
        i++;
    }
    assert_int_equal(i, 5);
    assert_int_equal(pos, need);
    pos = 0;                                   /* a truncated block ends the walk early */
    i = 0;
    while (hp_headers_next(blk, need - 1, &pos, &n, &nl, &v, &vl)) i++;
    assert_int_equal(i, 4);
    hp_parser_reset(&p, 0);                    /* no headers: an empty block */
    const char *r2 = "HTTP/1.0 200 OK\r\n\r\n";
    assert_int_equal(feed_all(&p, r2, strlen(r2), &used), HP_NEED_MORE);
    assert_int_equal(hp_parser_eof(&p), HP_DONE);
    assert_int_equal(hp_parser_headers_pack(&p, blk, sizeof blk), 0);
    pos = 0;
    assert_false(hp_headers_next(blk, 0, &pos, &n, &nl, &v, &vl));
    hp_parser_free(&p);
}

static const char RESP_CHUNKED[] =
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-A: 1\r\n\r\n"
    "5;name=value\r\nhello\r\n"
    "6;a;b=\"q\"\r\n world\r\n"
    "A\r\n0123456789\r\n"
    "0;last\r\nX-Trailer: t\r\nX-Other: u\r\n\r\n";

static void test_chunked(void **state) {
    (void)state;
    hp_parser p;
    hp_parser_init(&p);
    size_t used;
    assert_int_equal(feed_all(&p, RESP_CHUNKED, strlen(RESP_CHUNKED), &used), HP_DONE);
    assert_int_equal(used, strlen(RESP_CHUNKED));
    assert_true(p.chunked);
    assert_true(p.keep_alive);
    expect_body(&p, "hello world0123456789");
    assert_int_equal(p.nheaders, 2);                   /* trailers are not headers */
    expect_header(&p, "transfer-encoding", "chunked");
    expect_header(&p, "x-a", "1");
    assert_null(hp_parser_find(&p, "x-trailer", NULL));
    hp_parser_free(&p);
}

static void test_head_and_bodyless(void **state) {
    (void)state;
    hp_parser p;
    hp_parser_init(&p);
    size_t used;
    const char *head = "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n";
    hp_parser_reset(&p, 1);
    assert_int_equal(feed_all(&p, head, strlen(head), &used), HP_DONE);
    assert_int_equal(used, strlen(head));
    assert_int_equal(p.body_len, 0);
    assert_true(p.keep_alive);
    const char *head_chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
    hp_parser_reset(&p, 1);
    assert_int_equal(feed_all(&p, head_chunked, strlen(head_chunked), &used), HP_DONE);
    assert_int_equal(p.body_len, 0);
    /* the same bytes for a GET wait for the body */
    hp_parser_reset(&p, 0);
    assert_int_equal(feed_all(&p, head, strlen(head), &used), HP_NEED_MORE);
    const char *nc = "HTTP/1.1 204 No Content\r\nServer: x\r\n\r\n";
    hp_parser_reset(&p, 0);
    assert_int_equal(feed_all(&p, nc, strlen(nc), &used), HP_DONE);
    assert_int_equal(p.status, 204);
    assert_int_equal(p.body_len, 0);
    assert_true(p.keep_alive);
    const char *nm = "HTTP/1.1 304 Not Modified\r\nContent-Length: 50\r\nETag: \"x\"\r\n\r\n";
    hp_parser_reset(&p, 0);
    assert_int_equal(feed_all(&p, nm, strlen(nm), &used), HP_DONE);
    assert_int_equal(used, strlen(nm));
    assert_int_equal(p.status, 304);
    assert_int_equal(p.body_len, 0);
    assert_true(p.keep_alive);
    /* interim 100 Continue, then the real response */
    const char *cont = "HTTP/1.1 100 Continue\r\nX-Interim: 1\r\n\r\n"
                       "HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok";
    hp_parser_reset(&p, 0);
    assert_int_equal(feed_all(&p, cont, strlen(cont), &used), HP_DONE);
    assert_int_equal(used, strlen(cont));
    assert_int_equal(p.status, 201);
    assert_int_equal(p.nheaders, 1);
    assert_null(hp_parser_find(&p, "x-interim", NULL));
    expect_body(&p, "ok");
    hp_parser_free(&p);
}

static void test_keep_alive(void **state) {
    (void)state;
    struct { const char *resp; int keep; } cases[] = {
        {"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx", 1},
        {"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\nx", 0},
        {"HTTP/1.1 200 OK\r\nConnection: Close\r\nContent-Length: 1\r\n\r\nx", 0},
        {"HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nx", 0},
        {"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 1\r\n\r\nx", 1},
        {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hp_parser p;
        hp_parser_init(&p);
        size_t used;
        assert_int_equal(feed_all(&p, cases[i].resp, strlen(cases[i].resp), &used), HP_DONE);
        expect_body(&p, "x");
        if (p.keep_alive != cases[i].keep) fprintf(stderr, "case %zu\n", i);
        assert_int_equal(p.keep_alive, cases[i].keep);
        hp_parser_free(&p);
    }
}

static void test_eof(void **state) {
    (void)state;
    hp_parser p;
    hp_parser_init(&p);
    size_t used;
    /* a body delimited by the end of the connection */
    const char *r = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end";
    assert_int_equal(feed_all(&p, r, strlen(r), &used), HP_NEED_MORE);
    assert_int_equal(hp_parser_eof(&p), HP_DONE);
    expect_body(&p, "until the end");
    assert_false(p.keep_alive);
    assert_true(p.eof_terminated);
    const char *r10 = "HTTP/1.0 200 OK\r\n\r\n";
    hp_parser_reset(&p, 0);
    assert_int_equal(feed_all(&p, r10, strlen(r10), &used), HP_NEED_MORE);
    assert_int_equal(hp_parser_eof(&p), HP_DONE);
    expect_body(&p, "");
    /* truncated: mid Content-Length body, mid chunk, mid headers */
    const char *cuts[] = {"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc",
                          "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhe",
                          "HTTP/1.1 200 OK\r\nContent-Len", "HTTP/1.1 2", NULL};
    for (int i = 0; cuts[i]; i++) {
        hp_parser_reset(&p, 0);
        assert_int_equal(feed_all(&p, cuts[i], strlen(cuts[i]), &used), HP_NEED_MORE);
        assert_int_equal(hp_parser_eof(&p), HP_ERROR);
        assert_true(p.nbytes > 0);
        assert_string_equal(hp_parser_error(&p), "connection closed before the response ended");
    }
    /* nothing at all */
    hp_parser_reset(&p, 0);
    assert_int_equal(hp_parser_eof(&p), HP_ERROR);
    assert_int_equal(p.nbytes, 0);
    hp_parser_free(&p);
}

/* Parse a response whole, then split in two at every byte position, then one
 * byte at a time, with the next response's bytes appended: the results agree
 * and the parser stops exactly at the end of the response. */
static void check_splits(const char *resp, int head, int status, const char *body) {
    size_t len = strlen(resp);
    const char *next = "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nnext";
    size_t total = len + strlen(next);
    char *both = malloc(total + 1);
    memcpy(both, resp, len);
    memcpy(both + len, next, strlen(next) + 1);
    hp_parser p;
    hp_parser_init(&p);
    size_t *cuts = malloc(total * sizeof *cuts);
    for (size_t cut = 0; cut <= total; cut++) {
        hp_parser_reset(&p, head);
        size_t used;
        int rc = feed_cut(&p, both, total, &cut, 1, &used);
        if (rc != HP_DONE || used != len) fprintf(stderr, "cut %zu: rc %d used %zu\n", cut, rc, used);
        assert_int_equal(rc, HP_DONE);
        assert_int_equal(used, len);
        assert_int_equal(p.status, status);
        expect_body(&p, body);
    }
    for (size_t i = 0; i < total; i++) cuts[i] = i + 1;
    hp_parser_reset(&p, head);
    size_t used;
    assert_int_equal(feed_cut(&p, both, total, cuts, total - 1, &used), HP_DONE);
    assert_int_equal(used, len);
    expect_body(&p, body);
    /* the rest parses as the next response */
    hp_parser_reset(&p, 0);
    assert_int_equal(feed_all(&p, both + len, total - len, &used), HP_DONE);
    expect_body(&p, "next");
    hp_parser_free(&p);
    free(cuts);
    free(both);
}

static void test_split_everywhere(void **state) {
    (void)state;
    check_splits(RESP_CL, 0, 200, "hello world");
    check_splits(RESP_CHUNKED, 0, 200, "hello world0123456789");
    check_splits("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", 1, 200, "");
    check_splits("HTTP/1.1 204 No Content\r\n\r\n", 0, 204, "");
    check_splits("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 4\r\n\r\nnope",
                 0, 404, "nope");
}

static void test_garbage(void **state) {
    (void)state;
    const char *bad[] = {
        "FOO BAR\r\n\r\n",
        "HTTP/1.1 abc OK\r\n\r\n",
        "HTTP/x.1 200 OK\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 12a\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        "HTTP/1.1 200 OK\r\nBad Header\r\n\r\n",
        "\x01\x02\x03\x04",
        NULL};
    for (int i = 0; bad[i]; i++) {
        hp_parser p;
        hp_parser_init(&p);
        size_t used;
        int rc = feed_all(&p, bad[i], strlen(bad[i]), &used);
        if (rc != HP_ERROR) fprintf(stderr, "accepted: %s\n", bad[i]);
        assert_int_equal(rc, HP_ERROR);
        assert_non_null(hp_parser_error(&p));
        /* and it stays failed */
        assert_int_equal(hp_parser_feed(&p, "x", 1, &used), HP_ERROR);
        hp_parser_free(&p);
    }
    /* an upgrade is refused */
    hp_parser p;
    hp_parser_init(&p);
    size_t used;
    const char *up = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n";
    assert_int_equal(feed_all(&p, up, strlen(up), &used), HP_ERROR);
    hp_parser_free(&p);
}

static void test_limits(void **state) {
    (void)state;
    hp_parser p;
    hp_parser_init(&p);
    p.max_body = 5;
    size_t used;
    const char *r = "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\n123456";
    assert_int_equal(feed_all(&p, r, strlen(r), &used), HP_ERROR);
    assert_string_equal(hp_parser_error(&p), "response body larger than the limit");
    hp_parser_reset(&p, 0);
    const char *ok = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n12345";
    assert_int_equal(feed_all(&p, ok, strlen(ok), &used), HP_DONE);
    expect_body(&p, "12345");
    p.max_body = 0;
    p.discard_body = 1;
    hp_parser_reset(&p, 0);
    assert_int_equal(feed_all(&p, r, strlen(r), &used), HP_DONE);
    assert_int_equal(p.body_len, 0);
    assert_int_equal(p.body_seen, 6);
    hp_parser_free(&p);
    /* a large body in many pieces */
    hp_parser_init(&p);
    size_t big = 3 * 1000 * 1000;
    char head[128];
    int hl = snprintf(head, sizeof head, "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n\r\n", big);
    int rc = hp_parser_feed(&p, head, (size_t)hl, &used);
    assert_int_equal(rc, HP_NEED_MORE);
    char *chunk = malloc(65536);
    size_t sent = 0;
    while (sent < big) {
        size_t n = big - sent < 65536 ? big - sent : 65536;
        memset(chunk, 'a' + (int)(sent / 65536 % 26), n);
        rc = hp_parser_feed(&p, chunk, n, &used);
        sent += n;
    }
    assert_int_equal(rc, HP_DONE);
    assert_int_equal(p.body_len, big);
    assert_int_equal(p.body[0], 'a');
    assert_int_equal(p.body[big - 1], 'a' + (int)((big - 1) / 65536 % 26));
    free(chunk);
    hp_parser_free(&p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_encode_get),
        cmocka_unit_test(test_encode_methods_and_bodies),
        cmocka_unit_test(test_encode_user_host_and_connection),
        cmocka_unit_test(test_encode_small_buffer),
        cmocka_unit_test(test_encode_rejects),
        cmocka_unit_test(test_methods),
        cmocka_unit_test(test_base_url),
        cmocka_unit_test(test_content_length),
        cmocka_unit_test(test_headers_pack),
        cmocka_unit_test(test_chunked),
        cmocka_unit_test(test_head_and_bodyless),
        cmocka_unit_test(test_keep_alive),
        cmocka_unit_test(test_eof),
        cmocka_unit_test(test_split_everywhere),
        cmocka_unit_test(test_garbage),
        cmocka_unit_test(test_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
