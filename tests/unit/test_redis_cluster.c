/* test_redis_cluster.c - unit tests for redis Cluster's pure parts
 * (src/proto/redis_cluster.c): CRC16-XMODEM and key slots against the
 * values redis documents and computes (hash tags and their edge cases), the
 * keys of commands (one key, several, a key count, keyless, refused,
 * cross-slot), an encoded command split back, MOVED/ASK replies, and
 * CLUSTER SLOTS replies (as redis 7 sends them, and malformed ones). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "proto/redis_cluster.h"
#include "proto/redis_proto.h"

static int slot_of(const char *k) { return redis_cluster_key_slot(k, strlen(k)); }

static void test_crc16_and_slots(void **state) {
    (void)state;
    assert_int_equal(redis_cluster_crc16("123456789", 9), 0x31C3);
    assert_int_equal(slot_of("foo"), 12182);        /* redis's CLUSTER KEYSLOT */
    assert_int_equal(slot_of("bar"), 5061);
    assert_int_equal(slot_of("hello"), 866);
    assert_int_equal(slot_of("hot"), 6093);
    assert_int_equal(slot_of(""), 0);
    /* hash tags: the first {...} that is not empty */
    assert_int_equal(slot_of("{user1000}.following"), slot_of("user1000"));
    assert_int_equal(slot_of("{user1000}.followers"), 3443);
    assert_int_equal(slot_of("foo{}{bar}"), 8363);  /* an empty first tag: the whole key */
    assert_int_equal(slot_of("foo{{bar}}zap"), slot_of("{bar"));
    assert_int_equal(slot_of("foo{bar}{zap}"), slot_of("bar"));
    assert_int_equal(slot_of("{nope"), redis_cluster_crc16("{nope", 5) & 16383);
    assert_int_equal(redis_cluster_key_slot("a\0b", 3), redis_cluster_crc16("a\0b", 3) & 16383);
}

static int cmd_slot(int argc, const char **argv, int *slot, int *other) {
    size_t lens[16];
    for (int i = 0; i < argc; i++) lens[i] = strlen(argv[i]);
    return redis_cluster_cmd_slot(argc, argv, lens, slot, other);
}

static void test_command_keys(void **state) {
    (void)state;
    int slot, other;
    const char *get[] = {"get", "foo"};
    assert_int_equal(cmd_slot(2, get, &slot, &other), 0);
    assert_int_equal(slot, 12182);
    const char *unknown[] = {"HINCRBYFLOAT", "bar", "f", "1"};  /* not in the table: the first argument */
    assert_int_equal(cmd_slot(4, unknown, &slot, &other), 0);
    assert_int_equal(slot, 5061);
    const char *ping[] = {"PING"}, *info[] = {"info", "server"}, *noarg[] = {"GET"};
    assert_int_equal(cmd_slot(1, ping, &slot, &other), REDIS_CLUSTER_KEYLESS);
    assert_int_equal(cmd_slot(2, info, &slot, &other), REDIS_CLUSTER_KEYLESS);
    assert_int_equal(cmd_slot(1, noarg, &slot, &other), REDIS_CLUSTER_KEYLESS);
    const char *mget_ok[] = {"MGET", "{u}a", "{u}b", "u"}, *mget_x[] = {"mget", "foo", "bar"};
    assert_int_equal(cmd_slot(4, mget_ok, &slot, &other), 0);
    assert_int_equal(cmd_slot(3, mget_x, &slot, &other), REDIS_CLUSTER_CROSSSLOT);
    assert_int_equal(slot, 12182);
    assert_int_equal(other, 5061);
    /* MSET: keys every other argument (the values may hash anywhere) */
    const char *mset[] = {"mset", "{t}1", "foo", "{t}2", "bar"}, *msetx[] = {"MSET", "foo", "v", "bar", "v"};
    assert_int_equal(cmd_slot(5, mset, &slot, &other), 0);
    assert_int_equal(slot, slot_of("t"));
    assert_int_equal(cmd_slot(5, msetx, &slot, &other), REDIS_CLUSTER_CROSSSLOT);
    /* BLPOP: the timeout is not a key */
    const char *blpop[] = {"BLPOP", "{q}1", "{q}2", "5"};
    assert_int_equal(cmd_slot(4, blpop, &slot, &other), 0);
    /* EVAL: numkeys; none -> keyless; more than given -> bad */
    const char *eval[] = {"EVAL", "return 1", "2", "{k}a", "{k}b", "foo"}, *eval0[] = {"eval", "x", "0", "foo"};
    const char *evalbad[] = {"EVAL", "x", "3", "a"}, *evalnan[] = {"EVAL", "x", "z"};
    assert_int_equal(cmd_slot(6, eval, &slot, &other), 0);
    assert_int_equal(slot, slot_of("k"));
    assert_int_equal(cmd_slot(4, eval0, &slot, &other), REDIS_CLUSTER_KEYLESS);
    assert_int_equal(cmd_slot(4, evalbad, &slot, &other), REDIS_CLUSTER_BADARGS);
    assert_int_equal(cmd_slot(3, evalnan, &slot, &other), REDIS_CLUSTER_BADARGS);
    /* ZUNIONSTORE: the destination and the counted keys */
    const char *zu[] = {"zunionstore", "foo", "1", "bar"};
    assert_int_equal(cmd_slot(4, zu, &slot, &other), REDIS_CLUSTER_CROSSSLOT);
    const char *multi[] = {"MULTI"}, *sel[] = {"select", "1"}, *xread[] = {"XREAD", "STREAMS", "s", "0"};
    assert_int_equal(cmd_slot(1, multi, &slot, &other), REDIS_CLUSTER_REFUSED);
    assert_int_equal(cmd_slot(2, sel, &slot, &other), REDIS_CLUSTER_REFUSED);
    assert_int_equal(cmd_slot(4, xread, &slot, &other), REDIS_CLUSTER_REFUSED);
    const char *obj[] = {"OBJECT", "ENCODING", "foo"};
    assert_int_equal(cmd_slot(3, obj, &slot, &other), 0);
    assert_int_equal(slot, 12182);
}

static void test_split(void **state) {
    (void)state;
    const char *argv_in[] = {"SET", "k\r\n1", ""};
    size_t lens_in[] = {3, 4, 0};
    char buf[128];
    size_t n = redis_proto_encode(buf, 3, argv_in, lens_in);
    const char *argv[4];
    size_t lens[4];
    assert_int_equal(redis_cluster_split(buf, n, argv, lens, 4), 3);
    assert_int_equal(lens[1], 4);
    assert_memory_equal(argv[1], "k\r\n1", 4);
    assert_int_equal(lens[2], 0);
    assert_int_equal(redis_cluster_split(buf, n, argv, lens, 1), 3);   /* the count, for more room */
    assert_int_equal(redis_cluster_split(buf, n - 1, argv, lens, 4), -1);
    assert_int_equal(redis_cluster_split(buf, n + 1, argv, lens, 4), -1);
    assert_int_equal(redis_cluster_split("*1\r\n$9\r\nab\r\n", 13, argv, lens, 4), -1);
    assert_int_equal(redis_cluster_split("+OK\r\n", 5, argv, lens, 4), -1);
}

static void test_redirect(void **state) {
    (void)state;
    char addr[64];
    int slot = -1;
    const char *m = "MOVED 3999 127.0.0.1:6381", *a = "ASK 16383 [::1]:7000";
    assert_int_equal(redis_cluster_redirect(m, strlen(m), &slot, addr, sizeof addr), REDIS_CLUSTER_MOVED);
    assert_int_equal(slot, 3999);
    assert_string_equal(addr, "127.0.0.1:6381");
    assert_int_equal(redis_cluster_redirect(a, strlen(a), &slot, addr, sizeof addr), REDIS_CLUSTER_ASK);
    assert_int_equal(slot, 16383);
    assert_string_equal(addr, "[::1]:7000");
    const char *bad[] = {"MOVED 16384 h:1", "MOVED x h:1", "MOVED 1", "MOVED 1 ", "MOVED 1 host", "ERR x",
                         "ASK 1 a:1 extra", "MOVEDX 1 h:1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(redis_cluster_redirect(bad[i], strlen(bad[i]), &slot, addr, sizeof addr), 0);
    assert_int_equal(redis_cluster_redirect(m, strlen(m), &slot, addr, 8), 0);   /* no room: not one */
}

typedef struct ranges {
    int n;
    int from[8], to[8], port[8];
    char host[8][32];
} ranges;

static int on_range(void *ctx, int from, int to, const char *host, size_t hlen, int port) {
    ranges *r = ctx;
    r->from[r->n] = from;
    r->to[r->n] = to;
    r->port[r->n] = port;
    snprintf(r->host[r->n], sizeof r->host[0], "%.*s", (int)hlen, host);
    r->n++;
    return 0;
}

static redisReply *parse(const char *resp) {
    redis_proto p;
    redis_limits l;
    redisReply *r = NULL;
    redis_limits_default(&l);
    assert_int_equal(redis_proto_init(&p, &l), 0);
    assert_int_equal(redis_proto_feed(&p, resp, strlen(resp)), 0);
    assert_int_equal(redis_proto_next(&p, &r), 1);
    redis_proto_free(&p);
    return r;
}

static void test_slots_reply(void **state) {
    (void)state;
    char err[200];
    ranges rs = {0};
    /* redis 7: [from, to, [host, port, id, [hostname...]]], a replica after */
    redisReply *r = parse("*2\r\n"
                          "*4\r\n:0\r\n:5460\r\n*4\r\n$9\r\n127.0.0.1\r\n:7000\r\n$2\r\nid\r\n*0\r\n"
                          "*3\r\n$1\r\n1\r\n:7003\r\n$3\r\nid2\r\n"
                          "*3\r\n:5461\r\n:16383\r\n*3\r\n$0\r\n\r\n:7001\r\n$3\r\nid3\r\n");
    assert_int_equal(redis_cluster_slots_walk(r, on_range, &rs, err, sizeof err), 0);
    assert_int_equal(rs.n, 2);
    assert_int_equal(rs.to[0], 5460);
    assert_string_equal(rs.host[0], "127.0.0.1");
    assert_int_equal(rs.port[0], 7000);
    assert_int_equal(rs.from[1], 5461);
    assert_string_equal(rs.host[1], "");            /* no host: the node asked */
    freeReplyObject(r);
    r = parse("-ERR This instance has cluster support disabled\r\n");
    assert_int_equal(redis_cluster_slots_walk(r, on_range, &rs, err, sizeof err), -1);
    assert_string_equal(err, "ERR This instance has cluster support disabled");
    freeReplyObject(r);
    const char *bad[] = {"+OK\r\n", "*1\r\n:1\r\n", "*1\r\n*3\r\n:5\r\n:4\r\n*2\r\n$1\r\nh\r\n:1\r\n",
                         "*1\r\n*3\r\n:0\r\n:16384\r\n*2\r\n$1\r\nh\r\n:1\r\n",
                         "*1\r\n*3\r\n:0\r\n:1\r\n*2\r\n$1\r\nh\r\n:0\r\n",
                         "*1\r\n*3\r\n:0\r\n:1\r\n*1\r\n$1\r\nh\r\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        r = parse(bad[i]);
        assert_int_equal(redis_cluster_slots_walk(r, on_range, &rs, err, sizeof err), -1);
        freeReplyObject(r);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc16_and_slots), cmocka_unit_test(test_command_keys),
        cmocka_unit_test(test_split),           cmocka_unit_test(test_redirect),
        cmocka_unit_test(test_slots_reply),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
