/* test_redis_proto.c - unit tests for the redis reply reader with limits
 * (src/proto/redis_proto.c): whole and split replies, pipelined replies
 * counted one by one, and hostile headers refused before their bodies
 * arrive (bulk length, array length, total elements, depth, bytes); the
 * in-place scanner (redis_proto_scan) against hiredis's reader on the same
 * byte streams split at every point, its replies pointing into the caller's
 * buffer (no copy, no allocation) and its limits; the command encoder against
 * hiredis's redisFormatCommandArgv. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "proto/redis_proto.h"

static void init(redis_proto *p, uint64_t max_reply, uint32_t max_elements, int max_depth) {
    redis_limits l;
    redis_limits_default(&l);
    if (max_reply) l.max_reply_bytes = max_reply;
    if (max_elements) l.max_elements = max_elements;
    if (max_depth) l.max_depth = max_depth;
    assert_int_equal(redis_proto_init(p, &l), 0);
}

static int feed_next(redis_proto *p, const char *s, redisReply **r) {
    assert_int_equal(redis_proto_feed(p, s, strlen(s)), 0);
    return redis_proto_next(p, r);
}

static void test_replies_whole_and_split(void **state) {
    (void)state;
    redis_proto p;
    redisReply *r;
    init(&p, 0, 0, 0);
    assert_int_equal(feed_next(&p, "*2\r\n$3\r\nabc\r\n:4", &r), 0);
    assert_int_equal(feed_next(&p, "2\r\n+OK\r\n", &r), 1);
    assert_int_equal(r->type, REDIS_REPLY_ARRAY);
    assert_int_equal(r->elements, 2);
    assert_int_equal(r->element[1]->integer, 42);
    freeReplyObject(r);
    assert_int_equal(redis_proto_next(&p, &r), 1);
    assert_int_equal(r->type, REDIS_REPLY_STATUS);
    freeReplyObject(r);
    assert_int_equal(redis_proto_next(&p, &r), 0);
    redis_proto_free(&p);
}

/* Limits apply per reply: 100 pipelined 5-byte replies pass a 10-byte limit. */
static void test_limits_per_reply(void **state) {
    (void)state;
    redis_proto p;
    redisReply *r;
    char buf[600] = "";
    init(&p, 10, 3, 0);
    for (int i = 0; i < 100; i++) strcat(buf, "+OK\r\n");
    strcat(buf, "*3\r\n:1\r\n:2\r\n:3\r\n");
    assert_int_equal(feed_next(&p, buf, &r), 1);
    freeReplyObject(r);
    for (int i = 1; i < 100; i++) {
        assert_int_equal(redis_proto_next(&p, &r), 1);
        freeReplyObject(r);
    }
    assert_int_equal(redis_proto_next(&p, &r), -1);    /* *3 ... is 16 bytes > 10 */
    assert_non_null(strstr(p.err, "max_reply 10"));
    redis_proto_free(&p);
}

static void expect_refused(redis_proto *p, const char *bytes, const char *why) {
    redisReply *r = NULL;
    assert_int_equal(feed_next(p, bytes, &r), -1);
    assert_null(r);
    if (!strstr(p->err, why)) fail_msg("error '%s' lacks '%s'", p->err, why);
    redis_proto_free(p);
}

static void test_hostile_headers(void **state) {
    (void)state;
    redis_proto p;
    redisReply *r;
    /* a 512 MiB bulk: refused with the first bytes of its body */
    init(&p, 0, 0, 0);
    expect_refused(&p, "$536870912\r\nxxxxxxxx", "bulk string of 536870912 bytes (max_reply 67108864)");
    /* the same header alone, then the body in a second read */
    init(&p, 0, 0, 0);
    assert_int_equal(feed_next(&p, "$5368", &r), 0);
    expect_refused(&p, "70912\r\nxx", "bulk string of 536870912");
    /* inside an array */
    init(&p, 100, 0, 0);
    expect_refused(&p, "*2\r\n:1\r\n$101\r\n", "bulk string of 101 bytes (max_reply 100)");
    /* 2^31-1 elements: refused at the header, nothing allocated for it */
    init(&p, 0, 0, 0);
    expect_refused(&p, "*2147483647\r\n:1\r\n", "more than 1048576 array elements");
    /* elements summed over nesting levels */
    init(&p, 0, 4, 0);
    expect_refused(&p, "*2\r\n*2\r\n:1\r\n:2\r\n*2\r\n", "more than 4 array elements (max_elements 4)");
    /* depth */
    init(&p, 0, 0, 2);
    expect_refused(&p, "*1\r\n*1\r\n*1\r\n:1\r\n", "nested 3 deep (max_depth 2)");
    /* a negative length other than -1, and one past INT_MAX (hiredis refuses them) */
    init(&p, 0, 0, 0);
    expect_refused(&p, "*-5\r\n", "out of range");
    init(&p, 0, 0, 0);
    expect_refused(&p, "*2147483648\r\n", "out of range");
    /* an endless line: refused once its bytes pass max_reply */
    init(&p, 64, 0, 0);
    assert_int_equal(feed_next(&p, "+aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", &r), 0);
    expect_refused(&p, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "more than 64 bytes");
    /* not RESP */
    init(&p, 0, 0, 0);
    expect_refused(&p, "?garbage\r\n", "Protocol error");
    /* a nil array and a nil bulk are fine */
    init(&p, 0, 0, 0);
    assert_int_equal(feed_next(&p, "*-1\r\n", &r), 1);
    assert_int_equal(r->type, REDIS_REPLY_NIL);
    freeReplyObject(r);
    assert_int_equal(feed_next(&p, "$-1\r\n", &r), 1);
    assert_int_equal(r->type, REDIS_REPLY_NIL);
    freeReplyObject(r);
    redis_proto_free(&p);
}

/* After reset the reader starts clean (a new connection). */
static void test_reset(void **state) {
    (void)state;
    redis_proto p;
    redisReply *r;
    init(&p, 0, 2, 0);
    assert_int_equal(feed_next(&p, "*3\r\n", &r), -1);
    assert_int_equal(redis_proto_next(&p, &r), -1);
    assert_int_equal(redis_proto_reset(&p), 0);
    assert_int_equal(feed_next(&p, "*2\r\n:1\r\n:2\r\n", &r), 1);
    freeReplyObject(r);
    redis_proto_free(&p);
}

/* ---- the in-place scanner ---- */

/* A reply as text, "+OK", "$abc", ":42", "-ERR x", "_" (nil), "*2[...]". */
static void shape(const redisReply *r, char *buf, size_t cap) {
    size_t n = strlen(buf);
    switch (r->type) {
    case REDIS_REPLY_STATUS: snprintf(buf + n, cap - n, "+%.*s|", (int)r->len, r->str); break;
    case REDIS_REPLY_ERROR: snprintf(buf + n, cap - n, "-%.*s|", (int)r->len, r->str); break;
    case REDIS_REPLY_STRING: snprintf(buf + n, cap - n, "$%zu:%.*s|", r->len, (int)r->len, r->str); break;
    case REDIS_REPLY_INTEGER: snprintf(buf + n, cap - n, ":%lld|", r->integer); break;
    case REDIS_REPLY_NIL: snprintf(buf + n, cap - n, "_|"); break;
    case REDIS_REPLY_ARRAY:
        snprintf(buf + n, cap - n, "*%zu[", r->elements);
        for (size_t i = 0; i < r->elements; i++) shape(r->element[i], buf, cap);
        n = strlen(buf);
        snprintf(buf + n, cap - n, "]|");
        break;
    default: snprintf(buf + n, cap - n, "?|");
    }
}

/* What redis_client does with each read: scan in place while the reader is
 * idle, keep an unfinished scalar reply for the next read, hand the rest to
 * hiredis.  Returns the replies as text; *scanned counts those taken in
 * place.  Returns -1 on a refusal. */
static int client_like(redis_proto *p, const char *stream, size_t len, size_t split,
                       char *out, size_t cap, int *scanned) {
    char keep[4096];
    size_t nkeep = 0;
    out[0] = 0;
    *scanned = 0;
    const size_t parts[2][2] = {{0, split}, {split, len}};
    for (int k = 0; k < 2; k++) {
        size_t n = parts[k][1] - parts[k][0];
        assert_true(nkeep + n <= sizeof keep);
        memcpy(keep + nkeep, stream + parts[k][0], n);
        n += nkeep;
        size_t off = 0;
        nkeep = 0;
        while (off < n) {
            if (!redis_proto_idle(p)) break;
            redisReply r;
            size_t used;
            int rc = redis_proto_scan(p, keep + off, n - off, &r, &used);
            if (rc < 0) return -1;
            if (rc == 2) break;
            if (rc == 0) {
                memmove(keep, keep + off, n - off);
                nkeep = n - off;
                off = n;
                break;
            }
            assert_true(r.str == NULL || (r.str > keep && r.str < keep + n));  /* in place */
            shape(&r, out, cap);
            (*scanned)++;
            off += used;
        }
        if (off < n) {
            redisReply *r;
            int rc;
            assert_int_equal(redis_proto_feed(p, keep + off, n - off), 0);
            while ((rc = redis_proto_next(p, &r)) == 1) {
                shape(r, out, cap);
                freeReplyObject(r);
            }
            if (rc < 0) return -1;
        }
    }
    return nkeep == 0 && redis_proto_idle(p) ? 0 : 1;   /* 1: something left over */
}

static const char scan_stream[] =
    "+OK\r\n$3\r\nabc\r\n:42\r\n:-7\r\n$-1\r\n-ERR wrong type\r\n$0\r\n\r\n"
    "*3\r\n$1\r\na\r\n:1\r\n*-1\r\n+PONG\r\n$5\r\na\r\nbc\r\n*0\r\n:123456789012345678\r\n"
    "+a\rb\r\n$2\r\nxy\r\n*2\r\n*1\r\n+in\r\n$-1\r\n:1234567890123456789\r\n+\r\n";

/* Every split of a pipelined stream: the same replies, in the same order,
 * as hiredis alone; the scalar ones taken in place. */
static void test_scan_matches_hiredis(void **state) {
    (void)state;
    size_t len = sizeof scan_stream - 1;
    char want[4096] = "", got[4096];
    redis_proto p;
    redisReply *r;
    init(&p, 0, 0, 0);
    assert_int_equal(redis_proto_feed(&p, scan_stream, len), 0);
    while (redis_proto_next(&p, &r) == 1) {
        shape(r, want, sizeof want);
        freeReplyObject(r);
    }
    redis_proto_free(&p);
    int min_scanned = 1 << 30;
    for (size_t split = 0; split <= len; split++) {
        int scanned;
        init(&p, 0, 0, 0);
        int left = client_like(&p, scan_stream, len, split, got, sizeof got, &scanned);
        if (left != 0) fail_msg("split %zu: left %d idle %d pos %zu len %zu ridx %d got %s", split, left, redis_proto_idle(&p), p.rd->pos, p.rd->len, p.rd->ridx, got);
        if (strcmp(got, want) != 0) fail_msg("split %zu:\n got %s\nwant %s", split, got, want);
        if (scanned < min_scanned) min_scanned = scanned;
        redis_proto_free(&p);
    }
    assert_true(min_scanned >= 5);     /* the leading scalar replies never reach hiredis */
}

/* Integers and bulk lengths hiredis refuses (string2ll: no leading zero, no
 * "-0") are refused at every split, never taken in place (found by
 * fuzz_redis_scan: "$-0\r\n" waited for a body and ":0012" was taken as 12
 * where hiredis alone refused them). */
static void test_scan_refuses_what_hiredis_refuses(void **state) {
    (void)state;
    static const char *const streams[] = {"$03\r\nabc\r\n", "+OK\r\n$-0\r\n\r\n", ":1\r\n$00\r\n\r\n",
                                           ":0012\r\n", "+OK\r\n:-0\r\n", ":00\r\n"};
    for (size_t k = 0; k < sizeof streams / sizeof streams[0]; k++) {
        size_t len = strlen(streams[k]);
        for (size_t split = 0; split <= len; split++) {
            redis_proto p;
            char got[256];
            int scanned;
            init(&p, 0, 0, 0);
            int rc = client_like(&p, streams[k], len, split, got, sizeof got, &scanned);
            if (rc != -1) fail_msg("%s split %zu: %d, not refused (got %s)", streams[k], split, rc, got);
            redis_proto_free(&p);
        }
    }
}

/* A pipelined batch of scalar replies is scanned whole, without hiredis:
 * its reader never holds a byte. */
static void test_scan_in_place(void **state) {
    (void)state;
    const char *b = "+OK\r\n$5\r\nhello\r\n:1\r\n$-1\r\n";
    size_t n = strlen(b), off = 0, used;
    redis_proto p;
    redisReply r;
    init(&p, 0, 0, 0);
    int types[] = {REDIS_REPLY_STATUS, REDIS_REPLY_STRING, REDIS_REPLY_INTEGER, REDIS_REPLY_NIL};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(redis_proto_scan(&p, b + off, n - off, &r, &used), 1);
        assert_int_equal(r.type, types[i]);
        if (i == 1) {
            assert_ptr_equal(r.str, b + off + 4);
            assert_int_equal(r.len, 5);
        }
        off += used;
    }
    assert_int_equal(off, n);
    assert_int_equal(redis_proto_scan(&p, b, 0, &r, &used), 0);
    assert_int_equal(redis_proto_scan(&p, "$5\r\nhel", 7, &r, &used), 0);    /* unfinished */
    assert_int_equal(redis_proto_scan(&p, "*1\r\n", 4, &r, &used), 2);       /* arrays: hiredis */
    assert_int_equal(redis_proto_scan(&p, "$65537\r\n", 8, &r, &used), 2);   /* big bulk: hiredis */
    assert_true(redis_proto_idle(&p));
    redis_proto_free(&p);
}

/* The scanner's limits and messages are the reader's. */
static void test_scan_limits(void **state) {
    (void)state;
    redis_proto p;
    redisReply r;
    size_t used;
    init(&p, 0, 0, 0);
    assert_int_equal(redis_proto_scan(&p, "$536870912\r\nxx", 14, &r, &used), -1);
    assert_non_null(strstr(p.err, "bulk string of 536870912 bytes (max_reply 67108864)"));
    assert_false(redis_proto_idle(&p));
    redis_proto_free(&p);
    init(&p, 10, 0, 0);
    assert_int_equal(redis_proto_scan(&p, "+0123456789\r\n", 13, &r, &used), -1);
    assert_non_null(strstr(p.err, "13 bytes (max_reply 10)"));
    redis_proto_free(&p);
    init(&p, 10, 0, 0);
    assert_int_equal(redis_proto_scan(&p, "+0123456", 8, &r, &used), 0);
    assert_int_equal(redis_proto_scan(&p, "+0123456789a", 12, &r, &used), -1);
    assert_non_null(strstr(p.err, "more than 10 bytes"));
    redis_proto_free(&p);
    init(&p, 10, 0, 0);
    assert_int_equal(redis_proto_scan(&p, "$6\r\nabcdef\r\n", 12, &r, &used), -1);
    assert_non_null(strstr(p.err, "12 bytes (max_reply 10)"));
    redis_proto_free(&p);
    /* a bulk header over the limit is refused once its '\r' is in, as the
     * reader refuses it (found by fuzz_redis_scan: the scanner waited for
     * the '\n' where hiredis's path refused) */
    init(&p, 80, 0, 0);
    assert_int_equal(redis_proto_scan(&p, "$553611\r", 8, &r, &used), -1);
    assert_non_null(strstr(p.err, "bulk string of 553611 bytes (max_reply 80)"));
    redis_proto_free(&p);
}

/* ---- the encoder ---- */

static void expect_encoding(int argc, const char **argv, const size_t *lens) {
    char *want = NULL;
    int n = redisFormatCommandArgv(&want, argc, argv, lens);
    assert_true(n > 0);
    size_t len = redis_proto_cmd_len(argc, lens);
    assert_int_equal(len, (size_t)n);
    char *got = malloc(len + 1);
    assert_non_null(got);
    got[len] = 'Z';
    assert_int_equal(redis_proto_encode(got, argc, argv, lens), len);
    assert_memory_equal(got, want, len);
    assert_int_equal(got[len], 'Z');                      /* not a byte more */
    free(got);
    redisFreeCommand(want);
}

static void test_encode_matches_hiredis(void **state) {
    (void)state;
    static char big[100000];
    memset(big, 'v', sizeof big);
    const char *a1[] = {"PING"};
    size_t l1[] = {4};
    expect_encoding(1, a1, l1);
    const char *a2[] = {"SET", "key:000000000042", "a\0b\r\nc", ""};
    size_t l2[] = {3, 16, 6, 0};
    expect_encoding(4, a2, l2);
    const char *a3[] = {"SET", "k", big};
    for (size_t n = 1; n <= sizeof big; n *= 10) {
        size_t l3[] = {3, 1, n - 1};
        expect_encoding(3, a3, l3);
        l3[2] = n;
        expect_encoding(3, a3, l3);
    }
    const char *a4[12];
    size_t l4[12];
    for (int i = 0; i < 12; i++) a4[i] = "x", l4[i] = 1;
    expect_encoding(12, a4, l4);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replies_whole_and_split),
        cmocka_unit_test(test_limits_per_reply),
        cmocka_unit_test(test_hostile_headers),
        cmocka_unit_test(test_reset),
        cmocka_unit_test(test_scan_matches_hiredis),
        cmocka_unit_test(test_scan_refuses_what_hiredis_refuses),
        cmocka_unit_test(test_scan_in_place),
        cmocka_unit_test(test_scan_limits),
        cmocka_unit_test(test_encode_matches_hiredis),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
