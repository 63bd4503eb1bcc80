/* test_mc_ring.c - src/client/mc_ring.c against libmemcached (a test-only
 * dependency: the product no longer links it).  For several server lists
 * (one server, default and explicit ports, names, weights, duplicates, 64
 * servers) the parsed hosts and ports equal libmemcached's, and 100000 keys
 * (printable, binary with bytes >= 0x80, empty, 250 bytes) map to the same
 * server index as memcached_generate_hash under MEMCACHED_BEHAVIOR_KETAMA and
 * under the default (modula) distribution.  Odd inputs: what libmemcached
 * parses the same is compared the same way; what luamech rejects or reads
 * differently (spaces kept in libmemcached's host names, which then fail to
 * resolve) is listed with the expected result. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <libmemcached/memcached.h>
#include "client/mc_ring.h"

#define NKEYS 100000

static memcached_st *lm_new(const char *servers, int ketama) {
    memcached_server_list_st l = memcached_servers_parse(servers);
    memcached_st *m = memcached_create(NULL);
    assert_non_null(l);
    assert_non_null(m);
    assert_int_equal(memcached_server_push(m, l), MEMCACHED_SUCCESS);
    memcached_server_list_free(l);
    if (ketama) assert_int_equal(memcached_behavior_set(m, MEMCACHED_BEHAVIOR_KETAMA, 1),
                                 MEMCACHED_SUCCESS);
    return m;
}

static mc_ring *ring_new(const char *servers, mc_dist dist) {
    char err[512] = "";
    mc_ring *r = NULL;
    int rc = mc_ring_new(servers, dist, 64, &r, err, sizeof err);
    if (rc != 0) fprintf(stderr, "mc_ring_new(%s): %s\n", servers, err);
    assert_int_equal(rc, 0);
    assert_non_null(r);
    return r;
}

/* The same servers, in the same order, as libmemcached parsed. */
static void same_servers(const mc_ring *r, const memcached_st *m) {
    assert_int_equal(mc_ring_count(r), memcached_server_count(m));
    for (size_t i = 0; i < mc_ring_count(r); i++) {
        const memcached_instance_st *in = memcached_server_instance_by_position(m, (uint32_t)i);
        assert_string_equal(mc_ring_server_at(r, i)->host, memcached_server_name(in));
        assert_int_equal(mc_ring_server_at(r, i)->port, memcached_server_port(in));
    }
    assert_null(mc_ring_server_at(r, mc_ring_count(r)));
}

static uint64_t xorshift(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Key number i: a mix of the forms a scenario uses and binary bytes. */
static size_t make_key(uint64_t *rng, int i, char *key) {
    switch (i % 4) {
    case 0: return (size_t)snprintf(key, 251, "key:%d", i);
    case 1: return (size_t)snprintf(key, 251, "user:%llu:profile", (unsigned long long)(xorshift(rng) % 1000000));
    case 2: {
        size_t len = (size_t)(xorshift(rng) % 251);       /* 0..250 bytes, any value */
        for (size_t j = 0; j < len; j++) key[j] = (char)(xorshift(rng) & 0xff);
        return len;
    }
    default: {
        size_t len = 1 + (size_t)(xorshift(rng) % 40);
        for (size_t j = 0; j < len; j++) key[j] = (char)(0x80 | (xorshift(rng) & 0x7f));
        return len;
    }
    }
}

/* Every key maps to the same server as libmemcached; returns how many servers got keys. */
static size_t same_mapping(const char *servers, mc_dist dist, int nkeys) {
    mc_ring *r = ring_new(servers, dist);
    memcached_st *m = lm_new(servers, dist == MC_DIST_KETAMA);
    same_servers(r, m);
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    uint32_t used[64] = {0};
    char key[256];
    for (int i = 0; i < nkeys; i++) {
        size_t len = make_key(&rng, i, key);
        uint32_t want = memcached_generate_hash(m, key, len);
        uint32_t got = mc_ring_pick(r, key, len);
        if (got != want)
            fprintf(stderr, "%s (%s): key %d (%zu bytes): mc_ring %u, libmemcached %u\n", servers,
                    dist == MC_DIST_KETAMA ? "ketama" : "modula", i, len, got, want);
        assert_int_equal(got, want);
        assert_true(got < 64);
        used[got]++;
    }
    size_t nused = 0;
    for (size_t i = 0; i < 64; i++) nused += used[i] > 0;
    memcached_free(m);
    mc_ring_free(r);
    return nused;
}

static const char *const LISTS[] = {
    "127.0.0.1:11211",
    "127.0.0.1",
    "127.0.0.1:11211,127.0.0.1:11212",
    "10.0.0.1,10.0.0.2,10.0.0.3",
    "10.0.0.1:11211,10.0.0.2:22122,10.0.0.3:11213,10.0.0.4",
    "cache-a.example.com:11211,cache-b.example.com:11211,cache-c.example.com:11211",
    "127.0.0.1:11211:10,127.0.0.1:11212:1,127.0.0.1:11213:3",   /* weights: accepted, ignored */
    "localhost:7000:0,localhost:7001:1000000",
    "h:1,h:1",                                                   /* the same server twice */
    "127.0.0.1:11211, 127.0.0.1:11212",                          /* a space after a comma */
};

static void test_lists(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof LISTS / sizeof LISTS[0]; i++) {
        size_t n = same_mapping(LISTS[i], MC_DIST_KETAMA, NKEYS);
        size_t nm = same_mapping(LISTS[i], MC_DIST_MODULA, NKEYS);
        if (strcmp(LISTS[i], "h:1,h:1") != 0) {      /* every server gets keys */
            mc_ring *r = ring_new(LISTS[i], MC_DIST_KETAMA);
            assert_int_equal(n, mc_ring_count(r));
            assert_int_equal(nm, mc_ring_count(r));
            mc_ring_free(r);
        }
    }
}

static void test_many_servers(void **state) {
    (void)state;
    char list[64 * 24] = "";
    for (int n = 1; n <= 64; n = n < 8 ? n + 1 : n * 2) {
        list[0] = 0;
        for (int i = 0; i < n; i++) {
            size_t l = strlen(list);
            snprintf(list + l, sizeof list - l, "%s10.1.%d.%d:%d", i ? "," : "", i / 8, i % 8,
                     i % 3 ? 11211 + i : 11211);
        }
        assert_int_equal(same_mapping(list, MC_DIST_KETAMA, 20000), (size_t)n);
        assert_int_equal(same_mapping(list, MC_DIST_MODULA, 20000), (size_t)n);
    }
}

/* Our own hash is libhashkit's one-at-a-time (what ketama and modula use). */
static void test_hash(void **state) {
    (void)state;
    uint64_t rng = 42;
    char key[256];
    for (int i = 0; i < 10000; i++) {
        size_t len = make_key(&rng, i, key);
        assert_int_equal(mc_ring_hash(key, len),
                         memcached_generate_hash_value(key, len, MEMCACHED_HASH_DEFAULT));
    }
}

typedef struct odd_case {
    const char *servers;
    const char *err;          /* NULL: parses; else a substring of the message */
    const char *hosts;        /* parsed "host:port " list */
    int like_libmemcached;    /* libmemcached parses it to the same servers */
} odd_case;

static const odd_case ODD[] = {
    {"h", NULL, "h:11211 ", 1},
    {"h:0011212", NULL, "h:11212 ", 1},
    {"h:11211:7", NULL, "h:11211 ", 1},
    {"a:1,b:2", NULL, "a:1 b:2 ", 1},
    {"a:1 ,b:2", NULL, "a:1 b:2 ", 1},           /* libmemcached: port "1 " -> 1 */
    /* libmemcached keeps the spaces in these names (then unresolvable): luamech trims them */
    {" a:1", NULL, "a:1 ", 0},
    {"a:1,  b:2", NULL, "a:1 b:2 ", 0},
    {"a ", NULL, "a:11211 ", 0},
    /* rejected by luamech (libmemcached: port 0 -> 11211, an empty name, ...) */
    {"", "empty server list", NULL, 0},
    {"h:0", "bad server 'h:0'", NULL, 0},
    {"h:65536", "bad server 'h:65536'", NULL, 0},
    {"h:", "bad server 'h:'", NULL, 0},
    {"h:abc", "bad server 'h:abc'", NULL, 0},
    {"h:1:x", "bad server 'h:1:x'", NULL, 0},
    {"h:1:1000001", "bad server 'h:1:1000001'", NULL, 0},
    {"h:1:2:3", "bad server 'h:1:2:3'", NULL, 0},
    {":11211", "bad server ':11211'", NULL, 0},
    {"a b:1", "bad server 'a b:1'", NULL, 0},
    {"a:1 2", "bad server 'a:1 2'", NULL, 0},
    {"a:1,", "bad server ''", NULL, 0},
    {",a:1", "bad server ''", NULL, 0},
    {"a:1,,b:2", "bad server ''", NULL, 0},
    {"  ", "bad server '  '", NULL, 0},
    {"/tmp/memcached.sock", "bad server '/tmp/memcached.sock'", NULL, 0},
    {"[::1]:11211", "bad server '[::1]:11211'", NULL, 0},
    {"h:1234567890", "bad server 'h:1234567890'", NULL, 0},
};

static void odd_one(const odd_case *c) {
    char err[512] = "", got[1024] = "";
    mc_ring *r = (mc_ring *)1;
    int rc = mc_ring_new(c->servers, MC_DIST_KETAMA, 64, &r, err, sizeof err);
    if (c->err) {
        if (rc == 0 || strstr(err, c->err) == NULL)
            fprintf(stderr, "'%s': rc %d, err '%s', want '%s'\n", c->servers, rc, err, c->err);
        assert_int_equal(rc, -1);
        assert_null(r);
        assert_non_null(strstr(err, c->err));
        return;
    }
    assert_int_equal(rc, 0);
    for (size_t i = 0; i < mc_ring_count(r); i++) {
        size_t l = strlen(got);
        snprintf(got + l, sizeof got - l, "%s:%d ", mc_ring_server_at(r, i)->host,
                 mc_ring_server_at(r, i)->port);
    }
    assert_string_equal(got, c->hosts);
    mc_ring_free(r);
    if (c->like_libmemcached) {
        same_mapping(c->servers, MC_DIST_KETAMA, 2000);
        same_mapping(c->servers, MC_DIST_MODULA, 2000);
    }
}

static void test_odd_inputs(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof ODD / sizeof ODD[0]; i++) odd_one(&ODD[i]);
}

static void test_limits(void **state) {
    (void)state;
    char list[65 * 4 + 1] = "", host[300], err[512] = "";
    mc_ring *r = NULL;
    for (int i = 0; i < 65; i++) strcat(list, i ? ",h:1" : "h:1");
    assert_int_equal(mc_ring_new(list, MC_DIST_KETAMA, 64, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "65 servers (1..64 allowed)"));
    list[64 * 4 - 1] = 0;                                     /* 64 servers */
    assert_int_equal(mc_ring_new(list, MC_DIST_KETAMA, 64, &r, err, sizeof err), 0);
    assert_int_equal(mc_ring_count(r), 64);
    mc_ring_free(r);
    memset(host, 'a', 255);
    strcpy(host + 255, ":1");                                  /* the longest name */
    assert_int_equal(mc_ring_new(host, MC_DIST_KETAMA, 64, &r, err, sizeof err), 0);
    mc_ring_free(r);
    memset(host, 'a', 256);
    strcpy(host + 256, ":1");
    assert_int_equal(mc_ring_new(host, MC_DIST_KETAMA, 64, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "bad server"));
    mc_ring_free(NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hash),
        cmocka_unit_test(test_lists),
        cmocka_unit_test(test_many_servers),
        cmocka_unit_test(test_odd_inputs),
        cmocka_unit_test(test_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
