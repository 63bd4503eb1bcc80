/* test_redis_proto.c - unit tests for the redis reply reader with limits
 * (src/proto/redis_proto.c): whole and split replies, pipelined replies
 * counted one by one, and hostile headers refused before their bodies
 * arrive (bulk length, array length, total elements, depth, bytes). */
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replies_whole_and_split),
        cmocka_unit_test(test_limits_per_reply),
        cmocka_unit_test(test_hostile_headers),
        cmocka_unit_test(test_reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
