/* test_mc_proto.c - unit tests for the memcached text and meta protocol
 * encoders and the incremental reply parser (src/proto/mc_proto.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "proto/mc_proto.h"

/* Parse a copy of exactly len bytes (so ASan catches any read past len). */
static size_t parse_exact(const char *src, size_t len, mc_reply *r, char **keep) {
    char *copy = malloc(len ? len : 1);
    assert_non_null(copy);
    if (len) memcpy(copy, src, len);
    size_t n = mc_parse(copy, len, r);
    assert_true(n <= len);
    if (keep) *keep = copy;
    else free(copy);
    return n;
}

static void expect_kind(const char *s, mc_kind kind) {
    mc_reply r;
    size_t n = parse_exact(s, strlen(s), &r, NULL);
    assert_int_equal(r.kind, kind);
    assert_int_equal(n, strlen(s));
}

static void expect_bad(const char *s, size_t len) {
    mc_reply r;
    size_t n = parse_exact(s, len, &r, NULL);
    assert_int_equal(n, 0);
    if (r.kind != MC_R_BAD) fprintf(stderr, "expected BAD for '%.*s'\n", (int)len, s);
    assert_int_equal(r.kind, MC_R_BAD);
}

static void expect_need(const char *s, size_t len, size_t need) {
    mc_reply r;
    size_t n = parse_exact(s, len, &r, NULL);
    assert_int_equal(n, 0);
    assert_int_equal(r.kind, MC_R_NEED_MORE);
    assert_int_equal(r.need_bytes, need);
}

static void test_status_replies(void **state) {
    (void)state;
    expect_kind("END\r\n", MC_R_END);
    expect_kind("STORED\r\n", MC_R_STORED);
    expect_kind("NOT_STORED\r\n", MC_R_NOT_STORED);
    expect_kind("EXISTS\r\n", MC_R_EXISTS);
    expect_kind("NOT_FOUND\r\n", MC_R_NOT_FOUND);
    expect_kind("DELETED\r\n", MC_R_DELETED);
    expect_kind("TOUCHED\r\n", MC_R_TOUCHED);
    expect_kind("ERROR\r\n", MC_R_ERROR);
}

static void expect_msg(const char *s, mc_kind kind, const char *msg) {
    mc_reply r;
    char *keep;
    size_t n = parse_exact(s, strlen(s), &r, &keep);
    assert_int_equal(n, strlen(s));
    assert_int_equal(r.kind, kind);
    assert_int_equal(r.msg_len, strlen(msg));
    assert_memory_equal(r.msg, msg, r.msg_len);
    free(keep);
}

static void test_error_replies(void **state) {
    (void)state;
    expect_msg("CLIENT_ERROR bad command line format\r\n", MC_R_CLIENT_ERROR,
               "bad command line format");
    expect_msg("SERVER_ERROR out of memory storing object\r\n", MC_R_SERVER_ERROR,
               "out of memory storing object");
    expect_msg("CLIENT_ERROR\r\n", MC_R_CLIENT_ERROR, "");
    expect_msg("ERROR unknown command\r\n", MC_R_ERROR, "unknown command");
    expect_msg("ERROR\r\n", MC_R_ERROR, "");
}

static void expect_number(const char *s, uint64_t v) {
    mc_reply r;
    size_t n = parse_exact(s, strlen(s), &r, NULL);
    assert_int_equal(n, strlen(s));
    assert_int_equal(r.kind, MC_R_NUMBER);
    assert_true(r.number == v);
}

static void test_number_replies(void **state) {
    (void)state;
    expect_number("0\r\n", 0);
    expect_number("42\r\n", 42);
    expect_number("7  \r\n", 7);
    expect_number("18446744073709551615\r\n", UINT64_MAX);
    expect_bad("18446744073709551616\r\n", 22);
    expect_bad("123456789012345678901\r\n", 23);
    expect_bad("12a\r\n", 5);
    expect_bad("1 2\r\n", 5);
}

static void test_value_flags_cas(void **state) {
    (void)state;
    const char *s = "VALUE foo 123 5\r\nhello\r\n";
    mc_reply r;
    char *keep;
    size_t n = parse_exact(s, strlen(s), &r, &keep);
    assert_int_equal(n, strlen(s));
    assert_int_equal(r.kind, MC_R_VALUE);
    assert_int_equal(r.key_len, 3);
    assert_memory_equal(r.key, "foo", 3);
    assert_int_equal(r.flags, 123);
    assert_true(r.cas == 0);
    assert_int_equal(r.data_len, 5);
    assert_memory_equal(r.data, "hello", 5);
    assert_ptr_equal(r.data, keep + 17);
    free(keep);

    s = "VALUE k:1 4294967295 3 18446744073709551615\r\nabc\r\n";
    n = parse_exact(s, strlen(s), &r, &keep);
    assert_int_equal(n, strlen(s));
    assert_int_equal(r.kind, MC_R_VALUE);
    assert_true(r.flags == UINT32_MAX);
    assert_true(r.cas == UINT64_MAX);
    assert_memory_equal(r.data, "abc", 3);
    free(keep);

    expect_bad("VALUE k 4294967296 3\r\nabc\r\n", 27);
    expect_kind("VALUE empty 0 0\r\n\r\n", MC_R_VALUE);
}

static void test_value_binary(void **state) {
    (void)state;
    static const char data[] = "a\r\nEND\r\n\0b\r\nVALUE x 0 1\r\n";
    size_t dlen = sizeof data - 1;
    char buf[128];
    int h = snprintf(buf, sizeof buf, "VALUE bin 7 %zu\r\n", dlen);
    memcpy(buf + h, data, dlen);
    memcpy(buf + h + dlen, "\r\nEND\r\n", 7);
    size_t total = (size_t)h + dlen + 2;
    mc_reply r;
    char *keep;
    size_t n = parse_exact(buf, total + 5, &r, &keep);
    assert_int_equal(n, total);
    assert_int_equal(r.kind, MC_R_VALUE);
    assert_int_equal(r.data_len, dlen);
    assert_memory_equal(r.data, data, dlen);
    n = mc_parse(keep + n, 5, &r);
    assert_int_equal(n, 5);
    assert_int_equal(r.kind, MC_R_END);
    free(keep);
}

static char *make_value_reply(const char *key, size_t dlen, size_t *out_len, char **data) {
    char *buf = malloc(dlen + 300);
    assert_non_null(buf);
    int h = snprintf(buf, 300, "VALUE %s 99 %zu 5\r\n", key, dlen);
    for (size_t i = 0; i < dlen; i++) buf[h + i] = (char)((i * 131 + 7) & 0xff);
    memcpy(buf + h + dlen, "\r\n", 2);
    *out_len = (size_t)h + dlen + 2;
    *data = buf + h;
    return buf;
}

static void test_value_30k(void **state) {
    (void)state;
    size_t len;
    char *data;
    char *buf = make_value_reply("big", 30 * 1024, &len, &data);
    mc_reply r;
    assert_int_equal(mc_parse(buf, len, &r), len);
    assert_int_equal(r.kind, MC_R_VALUE);
    assert_int_equal(r.data_len, 30 * 1024);
    assert_ptr_equal(r.data, data);
    assert_int_equal(r.flags, 99);
    assert_true(r.cas == 5);
    /* header alone tells the total size */
    assert_int_equal(mc_parse(buf, 40, &r), 0);
    assert_int_equal(r.kind, MC_R_NEED_MORE);
    assert_int_equal(r.need_bytes, len);
    free(buf);
}

/* Every strict prefix needs more (need_bytes 0 or the full size); the whole
 * unit gives the same result as parsing it with trailing bytes. */
static void check_split_everywhere(const char *unit, size_t len) {
    mc_reply full, part;
    char *ext = malloc(len + 6);
    assert_non_null(ext);
    memcpy(ext, unit, len);
    memcpy(ext + len, "END\r\n", 5);
    assert_int_equal(mc_parse(ext, len + 5, &full), len);
    for (size_t k = 0; k < len; k++) {
        char *pre = malloc(k ? k : 1);
        assert_non_null(pre);
        memcpy(pre, unit, k);
        assert_int_equal(mc_parse(pre, k, &part), 0);
        assert_int_equal(part.kind, MC_R_NEED_MORE);
        assert_true(part.need_bytes == 0 || part.need_bytes == len);
        free(pre);
    }
    char *exact = malloc(len);
    assert_non_null(exact);
    memcpy(exact, unit, len);
    assert_int_equal(mc_parse(exact, len, &part), len);
    assert_int_equal(part.kind, full.kind);
    assert_int_equal(part.flags, full.flags);
    assert_true(part.cas == full.cas && part.number == full.number);
    assert_int_equal(part.key_len, full.key_len);
    assert_memory_equal(part.key ? part.key : "", full.key ? full.key : "", part.key_len);
    assert_int_equal(part.data_len, full.data_len);
    if (part.data_len) assert_memory_equal(part.data, full.data, part.data_len);
    assert_int_equal(part.msg_len, full.msg_len);
    if (part.msg_len) assert_memory_equal(part.msg, full.msg, part.msg_len);
    free(exact);
    free(ext);
}

static void test_split_every_byte(void **state) {
    (void)state;
    static const char *units[] = {
        "END\r\n", "STORED\r\n", "NOT_STORED\r\n", "EXISTS\r\n", "NOT_FOUND\r\n",
        "DELETED\r\n", "TOUCHED\r\n", "ERROR\r\n", "12345\r\n",
        "CLIENT_ERROR bad data chunk\r\n", "SERVER_ERROR object too large for cache\r\n",
        "VALUE k 1 3\r\nabc\r\n", "VALUE key2 0 10 77\r\n0123\r\n6789\r\n",
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        check_split_everywhere(units[i], strlen(units[i]));
    size_t len;
    char *data;
    char *big = make_value_reply("split", 30 * 1024, &len, &data);
    check_split_everywhere(big, len);
    free(big);
}

static void test_back_to_back(void **state) {
    (void)state;
    static const char s[] = "VALUE a 1 1\r\nx\r\nVALUE bb 2 2 7\r\nyy\r\nEND\r\n"
                            "STORED\r\n15\r\nNOT_FOUND\r\nSERVER_ERROR oops\r\n";
    size_t len = sizeof s - 1, off = 0, n;
    mc_reply r;
    static const mc_kind want[] = {MC_R_VALUE, MC_R_VALUE, MC_R_END, MC_R_STORED,
                                   MC_R_NUMBER, MC_R_NOT_FOUND, MC_R_SERVER_ERROR};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        n = mc_parse(s + off, len - off, &r);
        assert_true(n > 0);
        assert_int_equal(r.kind, want[i]);
        if (i == 1) {
            assert_memory_equal(r.key, "bb", 2);
            assert_true(r.cas == 7);
            assert_memory_equal(r.data, "yy", 2);
        }
        if (i == 4) assert_true(r.number == 15);
        off += n;
    }
    assert_int_equal(off, len);
    assert_int_equal(mc_parse(s + off, 0, &r), 0);
    assert_int_equal(r.kind, MC_R_NEED_MORE);
}

static void test_garbage(void **state) {
    (void)state;
    static const char *bad[] = {
        "HELLO\r\n", "VALUE\r\n", "VALUE k\r\n", "VALUE k 1\r\n", "VALUE k x 1\r\n",
        "VALUE k 1 -1\r\n", "VALUE k 1 1 2 3\r\n", "VALUE k 1 1 z\r\n", "END\n",
        "\r\n", "\n", "ENDX\r\n", "STORED extra\r\n", "OK\r\n", "X", "end\r\n",
        "VALUE k 1 99999999999999999999999\r\n", "VALUE k 1 18446744073709551615\r\n",
        "STAT pid 1\r\n", "ERRORS\r\n",
        "CLIENT_ERRORx\r\n", "END\rX\r\n", "VALUE k\x01y 0 1\r\nz\r\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) expect_bad(bad[i], strlen(bad[i]));
    /* data not followed by \r\n */
    expect_bad("VALUE k 1 2\r\nabXY", 17);
    expect_bad("VALUE k 1 2\r\nabc\r\n", 18);
    /* key of 251 bytes */
    char line[400];
    memset(line, 0, sizeof line);
    memcpy(line, "VALUE ", 6);
    memset(line + 6, 'k', 251);
    memcpy(line + 257, " 0 1\r\nz\r\n", 9);
    expect_bad(line, strlen(line));
    line[255] = ' ';  /* 249-byte key, then "k" where flags belong */
    expect_bad(line, strlen(line));
    /* a long line without \r\n */
    char *longl = malloc(3000);
    assert_non_null(longl);
    memcpy(longl, "VALUE ", 6);
    memset(longl + 6, 'a', 3000 - 6);
    expect_bad(longl, 3000);
    expect_need(longl, 2000, 0);
    memset(longl, '1', 3000);
    expect_bad(longl, 3000);
    free(longl);
}

static void test_truncated(void **state) {
    (void)state;
    expect_need("", 0, 0);
    expect_need("EN", 2, 0);
    expect_need("END\r", 4, 0);
    expect_need("123", 3, 0);
    expect_need("CLIENT_ERROR some", 17, 0);
    expect_need("VALUE k 1 3\r\nab", 15, 18);
    expect_need("VALUE k 1 3\r\nabc\r", 17, 18);
    /* huge but representable byte count: need, never allocate or overflow */
    const char *huge = "VALUE k 1 1000000000000\r\n";
    expect_need(huge, strlen(huge), strlen(huge) + 1000000000000ull + 2);
    huge = "VALUE k 1 18446744073709551000\r\n"; /* just below SIZE_MAX in total */
    expect_need(huge, strlen(huge), strlen(huge) + 18446744073709551000ull + 2);
    mc_reply r;
    assert_int_equal(mc_parse(NULL, 0, &r), 0);
    assert_int_equal(r.kind, MC_R_NEED_MORE);
}

static uint64_t lcg(uint64_t *s) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/* Random and mutated input: never a crash, an overread (ASan) or a bogus result. */
static void test_fuzz(void **state) {
    (void)state;
    static const char seed[] = "VALUE key 5 10 3\r\n0123\r\n6789\r\nEND\r\nSTORED\r\n99\r\n"
                               "CLIENT_ERROR x\r\nNOT_FOUND\r\n";
    static const char alpha[] = "VALUE END\r\n0123456789 STORED ERROR_ HDNFSXMfck";
    uint64_t s = 12345;
    for (int iter = 0; iter < 100000; iter++) {
        size_t len = lcg(&s) % 80;
        char *buf = malloc(len ? len : 1);
        assert_non_null(buf);
        if (iter % 2) {
            size_t l2 = len < sizeof seed - 1 ? len : sizeof seed - 1;
            memcpy(buf, seed, l2);
            for (size_t i = l2; i < len; i++) buf[i] = (char)lcg(&s);
            for (int m = 0; m < 3 && len; m++) buf[lcg(&s) % len] = alpha[lcg(&s) % (sizeof alpha - 1)];
        } else {
            for (size_t i = 0; i < len; i++) buf[i] = alpha[lcg(&s) % (sizeof alpha - 1)];
        }
        size_t off = 0, n;
        mc_reply r;
        while ((n = mc_parse(buf + off, len - off, &r)) > 0) {
            assert_true(n <= len - off);
            assert_true(r.kind != MC_R_NEED_MORE && r.kind != MC_R_BAD);
            if (r.kind == MC_R_VALUE || r.kind == MC_R_VA) {
                assert_true(r.data >= buf + off && r.data + r.data_len <= buf + off + n);
                assert_true(r.kind == MC_R_VA ? r.key_len == 0 || mc_key_valid(r.key, r.key_len)
                                              : mc_key_valid(r.key, r.key_len));
            }
            off += n;
        }
        assert_true(r.kind == MC_R_NEED_MORE || r.kind == MC_R_BAD);
        free(buf);
    }
}

static void expect_line(size_t n, const char *out, const char *want) {
    assert_int_equal(n, strlen(want));
    assert_memory_equal(out, want, n);
}

static void test_encoders(void **state) {
    (void)state;
    char out[1024];
    expect_line(mc_encode_storage(out, sizeof out, MC_SET, "foo", 3, 5, 0, 10, 0), out,
                "set foo 5 0 10\r\n");
    expect_line(mc_encode_storage(out, sizeof out, MC_ADD, "a", 1, 0, 60, 0, 99), out,
                "add a 0 60 0\r\n");
    expect_line(mc_encode_storage(out, sizeof out, MC_REPLACE, "k", 1, 4294967295u, -1, 1, 0),
                out, "replace k 4294967295 -1 1\r\n");
    expect_line(mc_encode_storage(out, sizeof out, MC_APPEND, "k", 1, 0, 0, 2, 0), out,
                "append k 0 0 2\r\n");
    expect_line(mc_encode_storage(out, sizeof out, MC_PREPEND, "k", 1, 0, 0, 2, 0), out,
                "prepend k 0 0 2\r\n");
    expect_line(mc_encode_storage(out, sizeof out, MC_CAS, "k", 1, 1, 2, 3,
                                  18446744073709551615ull), out,
                "cas k 1 2 3 18446744073709551615\r\n");
    expect_line(mc_encode_storage(out, sizeof out, MC_SET, "k", 1, 0, INT64_MIN, 0, 0), out,
                "set k 0 -9223372036854775808 0\r\n");
    const char *keys[] = {"a", "bb", "ccc"};
    size_t lens[] = {1, 2, 3};
    expect_line(mc_encode_retrieval(out, sizeof out, 0, keys, lens, 3), out, "get a bb ccc\r\n");
    expect_line(mc_encode_retrieval(out, sizeof out, 1, keys, lens, 1), out, "gets a\r\n");
    assert_int_equal(mc_encode_retrieval(out, sizeof out, 0, keys, lens, 0), 0);
    expect_line(mc_encode_delete(out, sizeof out, "gone", 4), out, "delete gone\r\n");
    expect_line(mc_encode_arith(out, sizeof out, 1, "n", 1, 5), out, "incr n 5\r\n");
    expect_line(mc_encode_arith(out, sizeof out, 0, "n", 1, UINT64_MAX), out,
                "decr n 18446744073709551615\r\n");
    expect_line(mc_encode_touch(out, sizeof out, "t", 1, 300), out, "touch t 300\r\n");
    /* key bytes are copied as given (length, not NUL) */
    expect_line(mc_encode_delete(out, sizeof out, "abcdef", 3), out, "delete abc\r\n");
}

static void test_encoders_cap(void **state) {
    (void)state;
    char out[64];
    const char *want = "set foo 5 0 10\r\n";
    size_t len = strlen(want);
    for (size_t cap = 0; cap < len; cap++) {
        memset(out, 'Z', sizeof out);
        assert_int_equal(mc_encode_storage(out, cap, MC_SET, "foo", 3, 5, 0, 10, 0), 0);
        assert_true(out[cap] == 'Z'); /* nothing written past cap */
    }
    expect_line(mc_encode_storage(out, len, MC_SET, "foo", 3, 5, 0, 10, 0), out, want);
    assert_int_equal(mc_encode_delete(out, 5, "key", 3), 0);
    assert_int_equal(mc_encode_touch(out, 10, "key", 3, 0), 0);
    assert_int_equal(mc_encode_arith(out, 11, 1, "key", 3, 1), 0);
    /* the longest line fits MC_LINE_MAX */
    char key[MC_KEY_MAX], big[MC_LINE_MAX];
    memset(key, 'k', sizeof key);
    assert_true(mc_encode_storage(big, sizeof big, MC_CAS, key, MC_KEY_MAX, UINT32_MAX,
                                  INT64_MIN, SIZE_MAX, UINT64_MAX) > 0);
}

static void test_key_valid(void **state) {
    (void)state;
    char key[300];
    memset(key, 'a', sizeof key);
    assert_true(mc_key_valid("foo", 3));
    assert_true(mc_key_valid("user:42/\xc3\xa9", 10));
    assert_true(mc_key_valid(key, 250));
    assert_false(mc_key_valid(key, 251));
    assert_false(mc_key_valid("", 0));
    assert_false(mc_key_valid(NULL, 3));
    assert_false(mc_key_valid("a b", 3));
    assert_false(mc_key_valid("a\tb", 3));
    assert_false(mc_key_valid("a\rb", 3));
    assert_false(mc_key_valid("a\nb", 3));
    assert_false(mc_key_valid("a\x01", 2));
    assert_false(mc_key_valid("a\x7f", 2));
    assert_false(mc_key_valid("a\0b", 3));
}

static void test_names(void **state) {
    (void)state;
    assert_string_equal(mc_kind_name(MC_R_STORED), "STORED");
    assert_string_equal(mc_kind_name(MC_R_NOT_FOUND), "NOT_FOUND");
    assert_string_equal(mc_kind_name(MC_R_SERVER_ERROR), "SERVER_ERROR");
    assert_string_equal(mc_kind_name(MC_R_BAD), "BAD");
    assert_string_equal(mc_kind_name((mc_kind)999), "UNKNOWN");
    assert_string_equal(mc_cmd_name(MC_SET), "set");
    assert_string_equal(mc_cmd_name(MC_PREPEND), "prepend");
    assert_string_equal(mc_cmd_name(MC_CAS), "cas");
}

/* ---- meta protocol ---- */

static void test_meta_replies(void **state) {
    (void)state;
    expect_kind("HD\r\n", MC_R_HD);
    expect_kind("EN\r\n", MC_R_EN);
    expect_kind("EN kzz\r\n", MC_R_EN);
    expect_kind("NF\r\n", MC_R_NF);
    expect_kind("NS\r\n", MC_R_NS);
    expect_kind("EX c5\r\n", MC_R_EX);
    expect_kind("MN\r\n", MC_R_MN);
    expect_kind("HD t-1 s5 W X Z O123 b h1 l0\r\n", MC_R_HD);
    mc_reply r;
    char *keep;
    /* the reply of "mg k v f c k" (memcached 1.6.18's order) */
    static const char va[] = "VA 5 f42 c77 kmykey\r\nhe\r\no\r\n";
    assert_int_equal(parse_exact(va, sizeof va - 1, &r, &keep), sizeof va - 1);
    assert_int_equal(r.kind, MC_R_VA);
    assert_int_equal(r.flags, 42);
    assert_true(r.cas == 77);
    assert_int_equal(r.key_len, 5);
    assert_memory_equal(r.key, "mykey", 5);
    assert_int_equal(r.data_len, 5);
    assert_memory_equal(r.data, "he\r\no", 5);
    free(keep);
    /* the order of the flags is not strict; absent ones stay 0 */
    static const char va2[] = "VA 0 c1 f4294967295\r\n\r\n";
    assert_int_equal(parse_exact(va2, sizeof va2 - 1, &r, NULL), sizeof va2 - 1);
    assert_true(r.kind == MC_R_VA && r.flags == 4294967295u && r.cas == 1 && r.data_len == 0);
    assert_int_equal(r.key_len, 0);
    static const char va3[] = "VA 1\r\nx\r\n";
    assert_int_equal(parse_exact(va3, sizeof va3 - 1, &r, NULL), sizeof va3 - 1);
    assert_true(r.kind == MC_R_VA && r.flags == 0 && r.cas == 0 && r.data_len == 1);
    /* the data length says how much is needed */
    expect_need("VA 10 f1\r\nabc", 14, 10 + 10 + 2);
    /* the text replies still parse beside them */
    expect_kind("END\r\n", MC_R_END);
    expect_kind("EXISTS\r\n", MC_R_EXISTS);
    assert_true(mc_kind_is_meta(MC_R_VA) && mc_kind_is_meta(MC_R_MN) && mc_kind_is_meta(MC_R_EN));
    assert_false(mc_kind_is_meta(MC_R_VALUE) || mc_kind_is_meta(MC_R_END) ||
                 mc_kind_is_meta(MC_R_ERROR) || mc_kind_is_meta(MC_R_BAD));
    assert_string_equal(mc_kind_name(MC_R_VA), "VA");
    assert_string_equal(mc_kind_name(MC_R_EN), "EN");
    assert_string_equal(mc_kind_name(MC_R_MN), "MN");
}

static void test_meta_split_every_byte(void **state) {
    (void)state;
    static const char *units[] = {
        "HD\r\n", "EN\r\n", "NF\r\n", "NS\r\n", "EX\r\n", "MN\r\n", "EN kabc\r\n",
        "HD c12 t-1\r\n", "VA 3 f1\r\nabc\r\n", "VA 10 f0 c77 kkey2\r\n0123\r\n6789\r\n",
        "VA 0\r\n\r\n", "VA 2 f5 O123 ka\r\nhi\r\n",
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        check_split_everywhere(units[i], strlen(units[i]));
    /* a 30 KB meta value */
    size_t dlen = 30 * 1024, len;
    char *big = malloc(dlen + 64);
    assert_non_null(big);
    len = (size_t)sprintf(big, "VA %zu f9 c3\r\n", dlen);
    for (size_t i = 0; i < dlen; i++) big[len + i] = (char)(i * 31 + 7);
    memcpy(big + len + dlen, "\r\n", 2);
    check_split_everywhere(big, len + dlen + 2);
    free(big);
}

static void test_meta_back_to_back(void **state) {
    (void)state;
    static const char s[] = "VA 1 f1\r\nx\r\nEN\r\nVA 2 f2 c9 kbb\r\nyy\r\nHD\r\nSTORED\r\n"
                            "NF\r\nCLIENT_ERROR bad command line format\r\nMN\r\n";
    static const mc_kind want[] = {MC_R_VA, MC_R_EN, MC_R_VA, MC_R_HD, MC_R_STORED,
                                   MC_R_NF, MC_R_CLIENT_ERROR, MC_R_MN};
    size_t len = sizeof s - 1, off = 0;
    mc_reply r;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        size_t n = mc_parse(s + off, len - off, &r);
        assert_true(n > 0);
        assert_int_equal(r.kind, want[i]);
        if (i == 2) assert_true(r.cas == 9 && r.flags == 2 && r.key_len == 2 && r.data_len == 2);
        off += n;
    }
    assert_int_equal(off, len);
}

static void test_meta_garbage(void **state) {
    (void)state;
    static const char *bad[] = {
        "VA\r\n", "VA x\r\n", "VA -1\r\n", "VA 1x\r\n", "VA 99999999999999999999999\r\n",
        "VA 18446744073709551615\r\n", "VA 1 f\r\n", "VA 1 fx\r\n", "VA 1 f4294967296\r\n",
        "VA 1 c\r\n", "VA 1 c1z\r\n", "VA 1 k\r\n", "VA 1 5\r\n", "VA 1 -\r\n",
        "HDX\r\n", "HDD\r\n", "HD 7\r\n", "HD f\r\n", "ENX\r\n", "NFS\r\n", "MNO\r\n",
        "XX\r\n", "HX\r\n", "hd\r\n", "H\r\n", "HD\n", "VA 1 f1\x01\r\n", "HD t\x7f\r\n",
        "VA 1 ka\x01b\r\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) expect_bad(bad[i], strlen(bad[i]));
    /* data not followed by \r\n, or longer than the length said */
    expect_bad("VA 2 f0\r\nabXY", 13);
    expect_bad("VA 2 f0\r\nabc\r\n", 14);
    /* a k token of 251 bytes */
    char line[400];
    memcpy(line, "HD k", 4);
    memset(line + 4, 'k', 251);
    memcpy(line + 255, "\r\n", 3);
    expect_bad(line, strlen(line));
    /* prefixes that can still become meta replies need more */
    expect_need("V", 1, 0);
    expect_need("VA", 2, 0);
    expect_need("VA 12 f", 7, 0);
    expect_need("HD\r", 3, 0);
    expect_need("M", 1, 0);
    expect_bad("MX", 2);
    expect_bad("HDX", 3);
    expect_bad("Q", 1);
}

static void test_meta_encoder(void **state) {
    (void)state;
    char out[MC_LINE_MAX];
    size_t n = mc_encode_meta_get(out, sizeof out, "key", 3, 0, 0);
    assert_int_equal(n, strlen("mg key v f\r\n"));
    assert_memory_equal(out, "mg key v f\r\n", n);
    n = mc_encode_meta_get(out, sizeof out, "key", 3, 1, 0);
    assert_memory_equal(out, "mg key v f c\r\n", n);
    n = mc_encode_meta_get(out, sizeof out, "key", 3, 0, 1);
    assert_memory_equal(out, "mg key v f k\r\n", n);
    n = mc_encode_meta_get(out, sizeof out, "key", 3, 1, 1);
    assert_memory_equal(out, "mg key v f c k\r\n", n);
    char key[MC_KEY_MAX];
    memset(key, 'k', sizeof key);
    assert_true(mc_encode_meta_get(out, sizeof out, key, sizeof key, 1, 1) > MC_KEY_MAX);
    assert_int_equal(mc_encode_meta_get(out, 10, "key", 3, 0, 0), 0);   /* too small */
    assert_int_equal(mc_encode_meta_get(out, 12, "key", 3, 0, 0), 12);
    assert_int_equal(mc_encode_meta_get(out, 11, "key", 3, 0, 0), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_replies),  cmocka_unit_test(test_error_replies),
        cmocka_unit_test(test_number_replies),  cmocka_unit_test(test_value_flags_cas),
        cmocka_unit_test(test_value_binary),    cmocka_unit_test(test_value_30k),
        cmocka_unit_test(test_split_every_byte), cmocka_unit_test(test_back_to_back),
        cmocka_unit_test(test_garbage),         cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_fuzz),            cmocka_unit_test(test_encoders),
        cmocka_unit_test(test_encoders_cap),    cmocka_unit_test(test_key_valid),
        cmocka_unit_test(test_names),           cmocka_unit_test(test_meta_replies),
        cmocka_unit_test(test_meta_split_every_byte), cmocka_unit_test(test_meta_back_to_back),
        cmocka_unit_test(test_meta_garbage),    cmocka_unit_test(test_meta_encoder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
