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
    r = req(HP_PATCH, "/p");                     /* like PUT: always a Content-Length */
    expect_encoding(&r, "PATCH /p HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Length: 0\r\n\r\n");
    r = req(HP_OPTIONS, "/o");
    expect_encoding(&r, "OPTIONS /o HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n");
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
    assert_int_equal(hp_method_parse("patch", 5), HP_PATCH);
    assert_int_equal(hp_method_parse("OPTIONS", 7), HP_OPTIONS);
    assert_string_equal(hp_method_name(HP_OPTIONS), "OPTIONS");
    assert_int_equal(hp_method_parse("TRACE", 5), -1);
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
    s = "https://127.0.0.1";
    assert_int_equal(hp_parse_base_url(s, strlen(s), &u, &why), 0);
    assert_int_equal(u.port, 443);
    assert_int_equal(u.tls, 1);
    const char *bad[] = {"ws://127.0.0.1", "127.0.0.1:80", "http://h/api", "http://h:0",
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

/* ---- the fast path against http-parser ----
 * Responses are generated from pieces that are valid, odd or broken; each is
 * parsed once in one piece (where the fast path may take it) and once a byte
 * at a time (which always goes to http-parser), and every result must agree. */

typedef struct gen { uint64_t s; int dirty; char buf[4096]; size_t n; } gen;

static uint32_t gen_rand(gen *g, uint32_t n) {
    g->s ^= g->s << 13; g->s ^= g->s >> 7; g->s ^= g->s << 17;
    return (uint32_t)(g->s % n);
}

static void gen_put(gen *g, const char *s, size_t n) {
    if (g->n + n > sizeof g->buf) n = sizeof g->buf - g->n;
    memcpy(g->buf + g->n, s, n);
    g->n += n;
}

static void gen_str(gen *g, const char *s) { gen_put(g, s, strlen(s)); }

/* Pick from arr: from its first `clean` entries only, unless g->dirty. */
#define PICK(g, arr, clean) \
    ((arr)[gen_rand(g, (g)->dirty ? (uint32_t)(sizeof(arr) / sizeof(arr)[0]) : (clean))])

/* The status line, headers and body of one response; chunked when a
 * "Transfer-Encoding: chunked" header was written. */
static void gen_response(gen *g) {
    static const char *const vers[] = {"HTTP/1.1", "HTTP/1.0", "HTTP/2.0", "HTTP/1.2", "HTTP/11.1",
                                       "HTTP/1.", "http/1.1"};
    static const char *const codes[] = {"200", "201", "206", "301", "404", "500", "204", "304", "100",
                                        "101", "199", "999", "20x", "2000", "099"};
    static const char *const reasons[] = {" OK", "", " ", " Not Found", " r\tx", " \x80\xff",
                                          " bad\x01", "  two spaces", " x\x7f"};
    static const char *const seps[] = {" ", "  ", "\t"};
    static const char *const eols[] = {"\r\n", "\n", "\r"};
    static const char *const names[] = {"Content-Type", "Server", "Date", "X-A", "x-multi", "X-Multi",
                                        "X-Empty", "Set-Cookie", "Connection", "X!#$%&'*+.^_`|~",
                                        "Transfer-Encoding", "Proxy-Connection", "Upgrade", "Keep-Alive",
                                        "Bad Name", "X_Y", "", "\xc3\x9c"};
    static const char *const colons[] = {": ", ":", ":  ", ":\t", ": \t", " : ", " :"};
    static const char *const values[] = {"text/plain", "", "a b", "a\tb", "close", "keep-alive",
                                         "Keep-Alive", "CLOSE", "\x80\xfe", "x ", "x\t", "bad\x01",
                                         "upgrade", "keep-alive, x", "chunked", "123", "v\x7fv"};
    static const char *const cls[] = {"%zu", "0%zu", " %zu", "%zu ", "+%zu", "%zux", ""};
    static const char *const clnames[] = {"Content-Length: ", "content-length:", "CONTENT-LENGTH:  "};
    char body[64];
    size_t blen = gen_rand(g, 40);
    for (size_t i = 0; i < blen; i++) body[i] = (char)('a' + gen_rand(g, 26));
    int chunked = 0, with_cl = gen_rand(g, 10) < 8;
    g->dirty = gen_rand(g, 4) == 0;
    g->n = 0;
    gen_str(g, PICK(g, vers, 2));
    gen_str(g, PICK(g, seps, 1));
    gen_str(g, PICK(g, codes, 8));
    gen_str(g, PICK(g, reasons, 5));
    gen_str(g, PICK(g, eols, 1));
    int nh = (int)gen_rand(g, 7);
    for (int h = 0; h < nh; h++) {
        const char *name = PICK(g, names, 12);
        const char *value = PICK(g, values, 8);
        if (strcmp(name, "Transfer-Encoding") == 0 && gen_rand(g, 2)) value = "chunked";
        if (strcmp(value, "chunked") == 0 && strcmp(name, "Transfer-Encoding") == 0) chunked = 1;
        gen_str(g, name);
        gen_str(g, PICK(g, colons, 5));
        gen_str(g, value);
        gen_str(g, PICK(g, eols, 1));
        if (g->dirty && gen_rand(g, 10) == 0) gen_str(g, " folded\r\n");
    }
    if (with_cl) {
        char v[64];
        size_t want = blen + (g->dirty && gen_rand(g, 4) == 0 ? 1 : 0);
        snprintf(v, sizeof v, PICK(g, cls, 2), want);
        gen_str(g, PICK(g, clnames, 3));
        gen_str(g, v);
        gen_str(g, "\r\n");
        if (g->dirty && gen_rand(g, 5) == 0) { gen_str(g, "Content-Length: "); gen_str(g, v); gen_str(g, "\r\n"); }
    }
    gen_str(g, g->dirty && gen_rand(g, 4) == 0 ? "\n" : "\r\n");
    if (chunked) {
        char line[32];
        snprintf(line, sizeof line, "%zx\r\n", blen);
        if (blen) { gen_str(g, line); gen_put(g, body, blen); gen_str(g, "\r\n"); }
        gen_str(g, "0\r\n\r\n");
    } else {
        gen_put(g, body, blen);
    }
    if (gen_rand(g, 6) == 0) gen_str(g, "HTTP/1.1 200 OK\r\n");    /* the next response, or junk */
    if (gen_rand(g, 8) == 0) g->n = gen_rand(g, (uint32_t)g->n + 1);  /* cut short */
}

/* Feed src in pieces of `step` bytes (0: all at once); then the EOF if the
 * parser still wants more.  Returns the result; *used: bytes consumed. */
static int parse_steps(hp_parser *p, const char *src, size_t len, size_t step, size_t *used) {
    size_t off = 0;
    int rc = HP_NEED_MORE;
    while (off < len && rc == HP_NEED_MORE) {
        size_t n = step && len - off > step ? step : len - off, u = 0;
        rc = hp_parser_feed(p, src + off, n, &u);
        off += u;
    }
    if (rc == HP_NEED_MORE) rc = hp_parser_eof(p);
    *used = off;
    return rc;
}

static void same_response(const hp_parser *a, const hp_parser *b) {
    assert_int_equal(a->status, b->status);
    assert_int_equal(a->http_major, b->http_major);
    assert_int_equal(a->http_minor, b->http_minor);
    assert_int_equal(a->keep_alive, b->keep_alive);
    assert_int_equal(a->chunked, b->chunked);
    assert_int_equal(a->eof_terminated, b->eof_terminated);
    assert_int_equal(a->nheaders, b->nheaders);
    for (size_t i = 0; i < a->nheaders; i++) {
        const char *an, *av, *bn, *bv;
        size_t anl, avl, bnl, bvl;
        hp_parser_header(a, i, &an, &anl, &av, &avl);
        hp_parser_header(b, i, &bn, &bnl, &bv, &bvl);
        assert_int_equal(anl, bnl);
        assert_memory_equal(an, bn, anl);
        assert_int_equal(avl, bvl);
        if (avl) assert_memory_equal(av, bv, avl);
    }
    assert_int_equal(a->body_len, b->body_len);
    if (a->body_len) assert_memory_equal(a->body, b->body, a->body_len);
}

static void test_fast_path_matches_http_parser(void **state) {
    (void)state;
    gen g = {.s = 0x9e3779b97f4a7c15ull};
    hp_parser one, bytes;
    hp_parser_init(&one);
    hp_parser_init(&bytes);
    int fast = 0, done = 0, errors = 0;
    for (int i = 0; i < 30000; i++) {
        gen_response(&g);
        int head = gen_rand(&g, 20) == 0;
        static const size_t limits[] = {10, 1, 5, 64};
        one.max_body = bytes.max_body = gen_rand(&g, 8) == 0 ? limits[gen_rand(&g, 4)] : 0;
        one.discard_body = bytes.discard_body = gen_rand(&g, 8) == 0;
        hp_parser_reset(&one, head);
        hp_parser_reset(&bytes, head);
        size_t u1, u2;
        int r1 = parse_steps(&one, g.buf, g.n, 0, &u1);
        int r2 = parse_steps(&bytes, g.buf, g.n, 1, &u2);
        if (r1 != r2) fprintf(stderr, "case %d: %d vs %d: %.*s\n", i, r1, r2, (int)g.n, g.buf);
        assert_int_equal(r1, r2);
        assert_false(bytes.fast);
        fast += one.fast;
        if (r1 == HP_ERROR) { errors++; continue; }
        done++;
        assert_int_equal(u1, u2);
        same_response(&one, &bytes);
        assert_int_equal(one.body_seen, bytes.body_seen);
        if (one.discard_body) assert_int_equal(one.body_len, 0);
        else assert_int_equal(one.body_seen, one.body_len);
    }
    /* the generator reaches all three outcomes often enough to mean something */
    fprintf(stderr, "fast path %d, http-parser %d, errors %d of 30000\n", fast, done - fast, errors);
    assert_true(fast > 5000);
    assert_true(done - fast > 3000);
    assert_true(errors > 1000);
    hp_parser_free(&one);
    hp_parser_free(&bytes);
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
    assert_string_equal(hp_parser_error(&p), "response body larger than max_body");
    assert_true(hp_parser_too_big(&p));
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

/* A hostile server: a declared length or a chunk size over max_body is
 * refused before any body byte (nothing buffered, however many bytes would
 * follow); a body without a declared end stops at the limit, kept or
 * discarded; a HEAD or 304 that declares a huge length is fine. */
static void test_body_limit_hostile(void **state) {
    (void)state;
    hp_parser p;
    hp_parser_init(&p);
    p.max_body = 1000;
    size_t used;
    const char *clen = "HTTP/1.1 200 OK\r\nContent-Length: 10000000000\r\n\r\nxxxx";
    assert_int_equal(hp_parser_feed(&p, clen, strlen(clen), &used), HP_ERROR);
    assert_true(hp_parser_too_big(&p));
    assert_int_equal(p.body_seen, 0);
    assert_int_equal(p.body_cap, 0);                  /* no buffer was made for it */
    const char *huge = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffff\r\nxxxx";
    hp_parser_reset(&p, 0);
    assert_int_equal(hp_parser_feed(&p, huge, strlen(huge), &used), HP_ERROR);
    assert_true(hp_parser_too_big(&p));
    assert_int_equal(p.body_seen, 0);
    /* chunks within the limit, then one that would pass it */
    const char *chunks = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                         "1f4\r\n";                   /* 500 */
    char *buf = malloc(4096);
    assert_non_null(buf);
    for (int discard = 0; discard <= 1; discard++) {
        p.discard_body = discard;
        hp_parser_reset(&p, 0);
        assert_int_equal(hp_parser_feed(&p, chunks, strlen(chunks), &used), HP_NEED_MORE);
        memset(buf, 'a', 500);
        memcpy(buf + 500, "\r\n1f5\r\n", 7);         /* 500 + 501 > 1000 */
        assert_int_equal(hp_parser_feed(&p, buf, 507, &used), HP_ERROR);
        assert_true(hp_parser_too_big(&p));
        assert_int_equal(p.body_seen, 500);
        assert_int_equal(p.body_len, discard ? 0 : 500);
    }
    /* endless: no length, the body ends with the connection */
    const char *eof = "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n";
    for (int discard = 0; discard <= 1; discard++) {
        p.discard_body = discard;
        hp_parser_reset(&p, 0);
        assert_int_equal(hp_parser_feed(&p, eof, strlen(eof), &used), HP_NEED_MORE);
        int rc = HP_NEED_MORE;
        size_t fed = 0;
        memset(buf, 'b', 4096);
        while (rc == HP_NEED_MORE && fed < 100000) {
            rc = hp_parser_feed(&p, buf, 300, &used);
            fed += 300;
        }
        assert_int_equal(rc, HP_ERROR);
        assert_true(hp_parser_too_big(&p));
        assert_int_equal(fed, 1200);                  /* stopped by the piece that passed 1000 */
        assert_int_equal(p.body_len, discard ? 0 : 900);  /* what was kept before it */
    }
    /* discarded but within the limit: counted */
    const char *ok = "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n";
    p.discard_body = 1;
    hp_parser_reset(&p, 0);
    assert_int_equal(hp_parser_feed(&p, ok, strlen(ok), &used), HP_NEED_MORE);
    memset(buf, 'c', 1000);
    assert_int_equal(hp_parser_feed(&p, buf, 1000, &used), HP_DONE);
    assert_int_equal(p.body_seen, 1000);
    assert_int_equal(p.body_len, 0);
    /* no body whatever the length says */
    const char *nm = "HTTP/1.1 304 Not Modified\r\nContent-Length: 10000000000\r\n\r\n";
    p.discard_body = 0;
    hp_parser_reset(&p, 0);
    assert_int_equal(hp_parser_feed(&p, nm, strlen(nm), &used), HP_DONE);
    hp_parser_reset(&p, 1);
    assert_int_equal(hp_parser_feed(&p, clen, strlen(clen) - 4, &used), HP_DONE);
    free(buf);
    hp_parser_free(&p);
}

/* Headers without end (one endless line, or endless short lines) are
 * refused by http-parser's 80 KB header limit: nothing grows past it. */
static void test_header_limit_hostile(void **state) {
    (void)state;
    char *line = malloc(4096);
    assert_non_null(line);
    for (int many = 0; many <= 1; many++) {
        hp_parser p;
        hp_parser_init(&p);
        size_t used;
        const char *start = many ? "HTTP/1.1 200 OK\r\n" : "HTTP/1.1 200 OK\r\nX-Endless: ";
        assert_int_equal(hp_parser_feed(&p, start, strlen(start), &used), HP_NEED_MORE);
        if (many) for (int i = 0; i < 4096 / 8; i++) memcpy(line + i * 8, "X-M: 1\r\n", 8);
        else memset(line, 'v', 4096);
        int rc = HP_NEED_MORE;
        size_t fed = 0;
        while (rc == HP_NEED_MORE && fed < (1u << 20)) {
            rc = hp_parser_feed(&p, line, 4096, &used);
            fed += 4096;
        }
        assert_int_equal(rc, HP_ERROR);
        assert_true(fed <= 84 * 1024);
        assert_true(p.hcap <= 128 * 1024);
        assert_false(hp_parser_too_big(&p));
        hp_parser_free(&p);
    }
    free(line);
}

/* HTTP/2 fields put by client/http_h2.c: RFC 9113 8.2.1's name and value
 * rules (an uppercase name is an error; another bad name byte, or a control
 * byte in a value, drops the field), names kept as sent. */
static void test_put_header_h2(void **state) {
    (void)state;
    hp_parser p;
    hp_parser_init(&p);
    hp_parser_put_status(&p, 200, 2, 0);
    assert_int_equal(hp_parser_put_header(&p, "x-ok", 4, "a\tb c~ long value of many bytes", 31), 0);
    assert_int_equal(hp_parser_put_header(&p, "x-cr", 4, "0123456789\r", 11), 1);
    assert_int_equal(hp_parser_put_header(&p, "x-nul", 5, "abcdefghijklmnop\0q", 19), 1);
    assert_int_equal(hp_parser_put_header(&p, "x-del", 5, "\x7f", 1), 1);
    assert_int_equal(hp_parser_put_header(&p, "x sp", 4, "v", 1), 1);
    assert_int_equal(hp_parser_put_header(&p, "", 0, "v", 1), 1);
    assert_int_equal(hp_parser_put_header(&p, "x-utf8", 6, "caf\xc3\xa9 \x80\xff", 8), 0);
    /* a name from HPACK's static table: kept without a check of its bytes,
     * the value checked as any */
    assert_int_equal(hp_parser_put_header_known(&p, "server", 6, "nginx", 5), 0);
    assert_int_equal(hp_parser_put_header_known(&p, "date", 4, "x\ry", 3), 1);
    assert_int_equal(p.nheaders, 3);
    size_t vl;
    assert_memory_equal(hp_parser_find(&p, "x-ok", &vl), "a\tb c~ long value of many bytes", 31);
    assert_memory_equal(hp_parser_find(&p, "server", &vl), "nginx", 5);
    assert_null(hp_parser_find(&p, "date", NULL));
    assert_null(hp_parser_find(&p, "x-cr", NULL));
    assert_int_equal(hp_parser_put_header(&p, "X-Up", 4, "v", 1), HP_ERROR);
    assert_string_equal(hp_parser_error(&p), "uppercase header field name in an HTTP/2 response");
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
        cmocka_unit_test(test_fast_path_matches_http_parser),
        cmocka_unit_test(test_chunked),
        cmocka_unit_test(test_head_and_bodyless),
        cmocka_unit_test(test_keep_alive),
        cmocka_unit_test(test_eof),
        cmocka_unit_test(test_split_everywhere),
        cmocka_unit_test(test_garbage),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_body_limit_hostile),
        cmocka_unit_test(test_header_limit_hostile),
        cmocka_unit_test(test_put_header_h2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
