/* test_h2_mem.c - the per-session allocator of libnghttp2's blocks
 * (client/h2_mem.h): a freed block is handed out again for the next request
 * of its class (no new malloc), payloads stay 16-byte aligned, realloc keeps
 * the bytes, calloc zeroes and refuses an overflowing size, the free lists
 * keep at most H2_MEM_KEEP_BYTES and no large block, and a real nghttp2
 * client session runs on it (streams submitted and serialised, then
 * deleted) with every block back on the lists or freed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "client/h2_mem.h"

static void test_reuse(void **state) {
    (void)state;
    h2_mem m;
    memset(&m, 0, sizeof m);
    nghttp2_mem x = h2_mem_nghttp2(&m);
    void *a = x.malloc(100, x.mem_user_data);
    assert_non_null(a);
    x.free(a, x.mem_user_data);
    assert_int_not_equal(m.kept, 0);
    void *b = x.malloc(90, x.mem_user_data);     /* same class: the same block */
    assert_ptr_equal(a, b);
    assert_int_equal(m.kept, 0);
    void *c = x.malloc(1000, x.mem_user_data);   /* another class: a new one */
    assert_ptr_not_equal(c, b);
    x.free(b, x.mem_user_data);
    x.free(c, x.mem_user_data);
    x.free(NULL, x.mem_user_data);
    h2_mem_free(&m);
    assert_int_equal(m.kept, 0);
}

static void test_sizes(void **state) {
    (void)state;
    h2_mem m;
    memset(&m, 0, sizeof m);
    nghttp2_mem x = h2_mem_nghttp2(&m);
    for (size_t n = 0; n < 9000; n += 7) {
        unsigned char *p = x.malloc(n, x.mem_user_data);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p & 15, 0);
        memset(p, 0xab, n);
        unsigned char *q = x.realloc(p, n * 2 + 1, x.mem_user_data);
        assert_non_null(q);
        for (size_t i = 0; i < n; i++) assert_int_equal(q[i], 0xab);
        q = x.realloc(q, n / 2, x.mem_user_data);  /* shrinking keeps the first bytes */
        for (size_t i = 0; i < n / 2; i++) assert_int_equal(q[i], 0xab);
        x.free(q, x.mem_user_data);
    }
    unsigned char *z = x.calloc(10, 10, x.mem_user_data);
    assert_non_null(z);
    for (int i = 0; i < 100; i++) assert_int_equal(z[i], 0);
    x.free(z, x.mem_user_data);
    assert_null(x.calloc(SIZE_MAX / 2, 3, x.mem_user_data));
    assert_null(x.malloc(SIZE_MAX - 4, x.mem_user_data));
    h2_mem_free(&m);
}

static void test_keep_bound(void **state) {
    (void)state;
    h2_mem m;
    memset(&m, 0, sizeof m);
    nghttp2_mem x = h2_mem_nghttp2(&m);
    enum { N = 400 };
    void *p[N];
    for (int i = 0; i < N; i++) p[i] = x.malloc(2000, x.mem_user_data);
    for (int i = 0; i < N; i++) x.free(p[i], x.mem_user_data);
    assert_true(m.kept <= H2_MEM_KEEP_BYTES);
    assert_true(m.kept > H2_MEM_KEEP_BYTES / 2);
    size_t kept = m.kept;
    x.free(x.malloc(1 << 20, x.mem_user_data), x.mem_user_data);   /* large: never kept */
    assert_int_equal(m.kept, kept);
    h2_mem_free(&m);
}

static ssize_t test_send_cb(nghttp2_session *s, const uint8_t *d, size_t n, int f, void *ud) {
    (void)s, (void)d, (void)f;
    *(size_t *)ud += n;
    return (ssize_t)n;
}

static void test_session(void **state) {
    (void)state;
    h2_mem m;
    memset(&m, 0, sizeof m);
    nghttp2_mem x = h2_mem_nghttp2(&m);
    nghttp2_session_callbacks *cb;
    assert_int_equal(nghttp2_session_callbacks_new(&cb), 0);
    nghttp2_session_callbacks_set_send_callback(cb, test_send_cb);
    size_t sent = 0;
    nghttp2_session *s;
    assert_int_equal(nghttp2_session_client_new3(&s, cb, &sent, NULL, &x), 0);
    nghttp2_session_callbacks_del(cb);
    const nghttp2_nv nv[] = {
        {(uint8_t *)":method", (uint8_t *)"GET", 7, 3, 0},
        {(uint8_t *)":scheme", (uint8_t *)"http", 7, 4, 0},
        {(uint8_t *)":authority", (uint8_t *)"a.test", 10, 6, 0},
        {(uint8_t *)":path", (uint8_t *)"/x", 5, 2, 0},
    };
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 50; i++) assert_true(nghttp2_submit_request(s, NULL, nv, 4, NULL, NULL) > 0);
        assert_int_equal(nghttp2_session_send(s), 0);
    }
    assert_true(sent > 150 * 9);
    nghttp2_session_del(s);
    assert_true(m.kept > 0);                  /* its blocks came back to the lists */
    h2_mem_free(&m);
    assert_int_equal(m.kept, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reuse),
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_keep_bound),
        cmocka_unit_test(test_session),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
