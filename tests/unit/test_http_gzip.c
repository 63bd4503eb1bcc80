/* test_http_gzip.c - unit tests for proto/http_gzip.c: bodies compressed by
 * zlib itself (gzip, zlib-wrapped and raw deflate, every level) decode to
 * the original; the limit stops a bomb without growing past it; corrupt and
 * truncated input fail; Content-Encoding names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "proto/http_gzip.h"

/* zlib's own encoder: wbits 31 gzip, 15 zlib, -15 raw. */
static size_t zenc(const char *in, size_t len, int level, int wbits, char *out, size_t cap) {
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(deflateInit2(&z, level, Z_DEFLATED, wbits, 8, Z_DEFAULT_STRATEGY), Z_OK);
    z.next_in = (Bytef *)(uintptr_t)in;
    z.avail_in = (uInt)len;
    z.next_out = (Bytef *)out;
    z.avail_out = (uInt)cap;
    assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
    size_t n = z.total_out;
    deflateEnd(&z);
    return n;
}

static void test_roundtrips(void **state) {
    (void)state;
    size_t len = 300000;
    char *in = malloc(len), *enc = malloc(len * 2);
    assert_non_null(in);
    assert_non_null(enc);
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < len; i++) {           /* half text, half noise */
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        in[i] = i < len / 2 ? (char)('a' + i % 23) : (char)x;
    }
    hz_decoder d;
    hz_init(&d);
    const int wbits[] = {31, 15, -15}, coding[] = {1, 2, 2};
    for (int k = 0; k < 3; k++)
        for (int level = 0; level <= 9; level += 3) {
            size_t n = zenc(in, len, level, wbits[k], enc, len * 2);
            const char *why;
            assert_int_equal(hz_decode(&d, coding[k], enc, n, 0, &why), HZ_OK);
            assert_int_equal(d.out_len, len);
            assert_memory_equal(d.out, in, len);
            /* the limit: exactly the size passes, one byte less does not */
            assert_int_equal(hz_decode(&d, coding[k], enc, n, len, &why), HZ_OK);
            assert_int_equal(hz_decode(&d, coding[k], enc, n, len - 1, &why), HZ_TOO_BIG);
            /* truncated */
            assert_int_equal(hz_decode(&d, coding[k], enc, n / 2, 0, &why), HZ_ERROR);
            assert_non_null(why);
        }
    /* an empty body compressed */
    size_t n = zenc("", 0, 6, 31, enc, 64);
    const char *why;
    assert_int_equal(hz_decode(&d, 1, enc, n, 10, &why), HZ_OK);
    assert_int_equal(d.out_len, 0);
    hz_free(&d);
    free(in);
    free(enc);
}

static void test_bomb_and_garbage(void **state) {
    (void)state;
    size_t len = 50u << 20;                      /* 50 MiB of zeros */
    char *zeros = calloc(1, len), *enc = malloc(1 << 20);
    assert_non_null(zeros);
    assert_non_null(enc);
    size_t n = zenc(zeros, len, 9, 31, enc, 1 << 20);
    free(zeros);
    assert_true(n < 100000);
    hz_decoder d;
    hz_init(&d);
    const char *why;
    assert_int_equal(hz_decode(&d, 1, enc, n, 1 << 20, &why), HZ_TOO_BIG);
    assert_true(d.out_cap <= (1u << 20));        /* never grew past the limit */
    assert_int_equal(hz_decode(&d, 1, "not gzip", 8, 0, &why), HZ_ERROR);
    assert_non_null(why);
    assert_int_equal(hz_decode(&d, 2, "\xff\xfe\xfd\xfc", 4, 0, &why), HZ_ERROR);
    hz_free(&d);
    free(enc);
}

/* A gzip body of several members (RFC 1952 2.2, "cat a.gz b.gz") decodes
 * to all of them; trailing NUL padding is ignored, trailing garbage and a
 * truncated second member fail, and the limit counts every member. */
static void test_members(void **state) {
    (void)state;
    char enc[512];
    size_t n = zenc("hello ", 6, 6, 31, enc, sizeof enc);
    n += zenc("world", 5, 1, 31, enc + n, sizeof enc - n);
    size_t two = n;
    n += zenc("!", 1, 9, 31, enc + n, sizeof enc - n);
    hz_decoder d;
    hz_init(&d);
    const char *why;
    assert_int_equal(hz_decode(&d, 1, enc, two, 0, &why), HZ_OK);
    assert_int_equal(d.out_len, 11);
    assert_memory_equal(d.out, "hello world", 11);
    assert_int_equal(hz_decode(&d, 1, enc, n, 0, &why), HZ_OK);
    assert_int_equal(d.out_len, 12);
    assert_memory_equal(d.out, "hello world!", 12);
    assert_int_equal(hz_decode(&d, 1, enc, n, 12, &why), HZ_OK);      /* exactly at the limit */
    assert_int_equal(hz_decode(&d, 1, enc, n, 11, &why), HZ_TOO_BIG);  /* the third member passes it */
    assert_int_equal(hz_decode(&d, 1, enc, n - 3, 0, &why), HZ_ERROR); /* the last member cut short */
    assert_string_equal(why, "truncated compressed body");
    memset(enc + n, 0, 8);                                            /* NUL padding */
    assert_int_equal(hz_decode(&d, 1, enc, n + 8, 0, &why), HZ_OK);
    assert_int_equal(d.out_len, 12);
    memcpy(enc + n, "garbage!", 8);
    assert_int_equal(hz_decode(&d, 1, enc, n + 8, 0, &why), HZ_ERROR);
    hz_free(&d);
}

static void test_coding(void **state) {
    (void)state;
    assert_int_equal(hz_coding("gzip", 4), 1);
    assert_int_equal(hz_coding(" X-GZIP ", 8), 1);
    assert_int_equal(hz_coding("deflate", 7), 2);
    assert_int_equal(hz_coding("identity", 8), 0);
    assert_int_equal(hz_coding("", 0), 0);
    assert_int_equal(hz_coding("br", 2), -1);
    assert_int_equal(hz_coding("gzip, br", 8), -1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrips),
        cmocka_unit_test(test_bomb_and_garbage),
        cmocka_unit_test(test_coding),
        cmocka_unit_test(test_members),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
