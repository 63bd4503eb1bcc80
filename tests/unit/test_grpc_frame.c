/* test_grpc_frame.c - unit tests for proto/grpc_frame.c: the message prefix
 * (the bytes of gRPC's PROTOCOL-HTTP2 document; the real server's side is
 * tested with the client, tests/scenarios), messages
 * read whole, in place and split at every byte, several in one piece; the
 * compressed flag refused on a stream without grpc-encoding and lengths
 * above the limit with one message; gzip messages written and read back
 * whole and split at every byte, a gzip bomb stopped at the limit on the
 * decompressed size, corrupt gzip refused;
 * grpc-timeout both ways; grpc-status and grpc-message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "proto/grpc_frame.h"

static void test_prefix(void **state) {
    (void)state;
    uint8_t p[5];
    grpc_frame_prefix(p, 0x01020304);
    assert_memory_equal(p, "\x00\x01\x02\x03\x04", 5);
    grpc_frame_prefix(p, 0);
    assert_memory_equal(p, "\x00\x00\x00\x00\x00", 5);
}

/* Three messages (7, 0 and 300 bytes) in one stream, fed in pieces of k bytes. */
static void feed_in_pieces(size_t k) {
    uint8_t stream[5 + 7 + 5 + 5 + 300];
    size_t n = 0;
    size_t lens[3] = {7, 0, 300};
    for (int m = 0; m < 3; m++) {
        grpc_frame_prefix(stream + n, (uint32_t)lens[m]);
        n += 5;
        memset(stream + n, 'a' + m, lens[m]);
        n += lens[m];
    }
    grpc_deframer d = {0};
    char err[128];
    int got = 0;
    for (size_t off = 0; off < n; off += k) {
        const uint8_t *p = stream + off;
        size_t left = n - off < k ? n - off : k;
        const uint8_t *msg;
        size_t len;
        int rc;
        while ((rc = grpc_deframe(&d, &p, &left, &msg, &len, err, sizeof(err))) == 1) {
            assert_true(got < 3);
            assert_int_equal(len, lens[got]);
            for (size_t i = 0; i < len; i++) assert_int_equal(msg[i], 'a' + got);
            got++;
        }
        assert_int_equal(rc, 0);
        assert_int_equal(left, 0);
    }
    assert_int_equal(got, 3);
    assert_false(grpc_deframe_partial(&d));
    grpc_deframer_free(&d);
}

static void test_deframe_pieces(void **state) {
    (void)state;
    for (size_t k = 1; k <= 330; k++) feed_in_pieces(k);
}

static void test_deframe_refusals(void **state) {
    (void)state;
    grpc_deframer d = {0};
    char err[128];
    const uint8_t *msg, *p = (const uint8_t *)"\x01\x00\x00\x00\x01x";
    size_t n = 6, len;
    assert_int_equal(grpc_deframe(&d, &p, &n, &msg, &len, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "compressed message on a response without grpc-encoding"));
    grpc_deframer_free(&d);
    d.coding = -1;
    p = (const uint8_t *)"\x01\x00\x00\x00\x01x", n = 6;
    assert_int_equal(grpc_deframe(&d, &p, &n, &msg, &len, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "cannot decode"));
    grpc_deframer_free(&d);
    p = (const uint8_t *)"\x02\x00\x00\x00\x01x", n = 6;
    assert_int_equal(grpc_deframe(&d, &p, &n, &msg, &len, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "message flag 2"));
    grpc_deframer_free(&d);
    d.max = 100;
    p = (const uint8_t *)"\x00\x00\x00\x00\x65", n = 5;
    assert_int_equal(grpc_deframe(&d, &p, &n, &msg, &len, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "101 bytes, above the receive limit of 100"));
    grpc_deframer_free(&d);
    p = (const uint8_t *)"\x00\x00\x00\x00\x05xy", n = 7;           /* the stream ends mid-message */
    assert_int_equal(grpc_deframe(&d, &p, &n, &msg, &len, err, sizeof(err)), 0);
    assert_true(grpc_deframe_partial(&d));
    grpc_deframer_free(&d);
}

/* Two gzip messages (1000 and 0 bytes) written by grpc_gzip_frame with a
 * plain one between, read back fed in pieces of every size. */
static void test_gzip_roundtrip(void **state) {
    (void)state;
    uint8_t plain[1000], stream[3 * 1100];
    for (size_t i = 0; i < sizeof plain; i++) plain[i] = (uint8_t)("abcab"[i % 5]);
    grpc_gzip z = {0};
    size_t n = 0, w;
    assert_int_equal(grpc_gzip_frame(&z, plain, sizeof plain, stream, &w), 0);
    assert_int_equal(stream[0], 1);
    assert_true(w < 100);                                   /* really compressed */
    n += w;
    grpc_frame_prefix(stream + n, 3);
    memcpy(stream + n + 5, "xyz", 3);
    n += 8;
    assert_int_equal(grpc_gzip_frame(&z, plain, 0, stream + n, &w), 0);
    assert_true(w <= grpc_gzip_bound(0));
    n += w;
    grpc_gzip_free(&z);
    for (size_t k = 1; k <= n; k++) {
        hz_decoder hz = {0};
        grpc_deframer d = {0};
        d.coding = 1;
        d.hz = &hz;
        char err[160];
        size_t got = 0;
        for (size_t off = 0; off < n; off += k) {
            const uint8_t *p = stream + off, *msg;
            size_t left = n - off < k ? n - off : k, len;
            int rc;
            while ((rc = grpc_deframe(&d, &p, &left, &msg, &len, err, sizeof(err))) == 1) {
                if (got == 0) assert_true(len == sizeof plain && memcmp(msg, plain, len) == 0);
                if (got == 1) assert_true(len == 3 && memcmp(msg, "xyz", 3) == 0);
                if (got == 2) assert_int_equal(len, 0);
                got++;
            }
            assert_int_equal(rc, 0);
        }
        assert_int_equal(got, 3);
        grpc_deframer_free(&d);
        hz_free(&hz);
    }
}

/* 64 MiB of zeros in about 64 KiB of gzip against a 1 MiB limit: refused
 * with "receive limit", the decoder's buffer never past the limit; a
 * body with a wrong CRC refused as corrupt. */
static void test_gzip_bomb(void **state) {
    (void)state;
    size_t big = 64u << 20;
    uint8_t *zeros = calloc(1, big);
    assert_non_null(zeros);
    uint8_t *framed = malloc(grpc_gzip_bound(big));
    assert_non_null(framed);
    grpc_gzip z = {0};
    size_t w;
    assert_int_equal(grpc_gzip_frame(&z, zeros, big, framed, &w), 0);
    grpc_gzip_free(&z);
    free(zeros);
    assert_true(w < (1u << 20));
    hz_decoder hz = {0};
    grpc_deframer d = {0};
    d.coding = 1;
    d.hz = &hz;
    d.max = 1u << 20;
    char err[160];
    const uint8_t *p = framed, *msg;
    size_t n = w, len;
    assert_int_equal(grpc_deframe(&d, &p, &n, &msg, &len, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "decompresses past the receive limit of 1048576"));
    assert_true(hz.out_cap <= d.max);
    grpc_deframer_free(&d);
    grpc_gzip z2 = {0};
    assert_int_equal(grpc_gzip_frame(&z2, (const uint8_t *)"hello hello", 11, framed, &w), 0);
    grpc_gzip_free(&z2);
    framed[w - 8] ^= 0xff;                                      /* the gzip trailer's CRC */
    d.coding = 1;
    d.hz = &hz;
    p = framed, n = w;
    assert_int_equal(grpc_deframe(&d, &p, &n, &msg, &len, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "cannot be decoded"));
    grpc_deframer_free(&d);
    hz_free(&hz);
    free(framed);
}

static void test_timeout(void **state) {
    (void)state;
    char b[16];
    grpc_timeout_format(b, 250);
    assert_string_equal(b, "250m");
    grpc_timeout_format(b, 99999999);
    assert_string_equal(b, "99999999m");
    grpc_timeout_format(b, 100000000);
    assert_string_equal(b, "100000S");
    grpc_timeout_format(b, UINT64_MAX / 2);
    assert_true(strlen(b) <= 9);
    uint64_t ms;
    assert_int_equal(grpc_timeout_parse("1500u", 5, &ms), 0);
    assert_int_equal(ms, 2);
    assert_int_equal(grpc_timeout_parse("2S", 2, &ms), 0);
    assert_int_equal(ms, 2000);
    assert_int_equal(grpc_timeout_parse("1H", 2, &ms), 0);
    assert_int_equal(ms, 3600000);
    assert_int_equal(grpc_timeout_parse("10x", 3, &ms), -1);
    assert_int_equal(grpc_timeout_parse("123456789m", 10, &ms), -1);   /* at most 8 digits */
    assert_int_equal(grpc_timeout_parse("m", 1, &ms), -1);
}

static void test_status(void **state) {
    (void)state;
    assert_int_equal(grpc_status_parse("0", 1), 0);
    assert_int_equal(grpc_status_parse("14", 2), 14);
    assert_int_equal(grpc_status_parse("", 0), -1);
    assert_int_equal(grpc_status_parse("1a", 2), -1);
    assert_int_equal(grpc_status_parse("99999999999", 11), -1);
    assert_string_equal(grpc_status_name(4), "DEADLINE_EXCEEDED");
    assert_string_equal(grpc_status_name(16), "UNAUTHENTICATED");
    assert_string_equal(grpc_status_name(17), "UNKNOWN");
    assert_string_equal(grpc_status_name(-1), "UNKNOWN");
    char out[32];
    const char *m = "no %E2%82%AC here%2";      /* a euro sign; a cut escape kept */
    assert_int_equal(grpc_message_decode(m, strlen(m), out, sizeof(out)), 13);
    assert_string_equal(out, "no \xe2\x82\xac here%2");
    assert_int_equal(grpc_message_decode("abcdef", 6, out, 4), 3);
    assert_string_equal(out, "abc");
    assert_int_equal(grpc_message_decode("%zz%41", 6, out, sizeof(out)), 4);
    assert_string_equal(out, "%zzA");
    assert_int_equal(grpc_message_decode("a%00b%41", 8, out, sizeof(out)), 6);   /* a NUL is not decoded */
    assert_string_equal(out, "a%00bA");
}

static void test_base64(void **state) {
    (void)state;
    char out[16];
    const char *in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    const char *want[] = {"", "Zg", "Zm8", "Zm9v", "Zm9vYg", "Zm9vYmE", "Zm9vYmFy"};   /* RFC 4648 10, unpadded */
    for (int i = 0; i < 7; i++) {
        size_t n = strlen(in[i]);
        size_t k = grpc_base64((const uint8_t *)in[i], n, out);
        assert_int_equal(k, GRPC_BASE64_LEN(n));
        out[k] = '\0';
        assert_string_equal(out, want[i]);
    }
    assert_int_equal(grpc_base64((const uint8_t *)"\xff\x00\r", 3, out), 4);
    assert_memory_equal(out, "/wAN", 4);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prefix),  cmocka_unit_test(test_deframe_pieces), cmocka_unit_test(test_deframe_refusals),
        cmocka_unit_test(test_gzip_roundtrip), cmocka_unit_test(test_gzip_bomb),
        cmocka_unit_test(test_timeout), cmocka_unit_test(test_status), cmocka_unit_test(test_base64),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
