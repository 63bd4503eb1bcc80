/* test_pb_codec.c - unit tests for proto/pb_schema.c and proto/pb_codec.c
 * against Google's own implementation: tests/unit/pb/test.proto is compiled
 * by protoc at test time, python3-protobuf encodes the fixtures
 * (tests/unit/pb/fixtures.py), luamech decodes them (values checked one by
 * one), encodes them back byte for byte, and Python parses luamech's
 * encoding and compares it with the message it meant.  Then the spec's
 * finer points: a singular message that comes twice merged, a known field
 * on a foreign wire type skipped, proto3 presence (defaults of implicit
 * fields not written; optional, oneof, message and map entry values are).
 * Then hostile input: every truncation, invalid wire types, lengths past
 * the end, overlong varints, nesting bombs, the size limit, groups skipped,
 * encoding errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "proto/pb.h"

#define PY "/usr/bin/python3"

typedef struct fx {
    char dir[64];
    pb_schema *s;
    int32_t all, plus;
    pb_arena a;
    uint8_t *inputs[16];        /* decoded trees point into them */
    int ninputs;
} fx;

static uint8_t *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static uint8_t buf[1 << 16];
    *len = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    uint8_t *r = malloc(*len + 1);
    assert_non_null(r);
    memcpy(r, buf, *len);
    return r;
}

static int setup(void **state) {
    fx *x = calloc(1, sizeof(*x));
    assert_non_null(x);
    snprintf(x->dir, sizeof(x->dir), "/tmp/lm_pb_XXXXXX");
    assert_non_null(mkdtemp(x->dir));
    char cmd[1024];
    snprintf(cmd, sizeof(cmd), "protoc --include_imports --descriptor_set_out=%s/t.desc -I %s test.proto && "
             PY " %s/fixtures.py make %s/t.desc %s", x->dir, PB_DIR, PB_DIR, x->dir, x->dir);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof(cmd), "%s/t.desc", x->dir);
    size_t len;
    uint8_t *d = slurp(cmd, &len);
    char err[256];
    x->s = pb_schema_load(d, len, err, sizeof(err));
    free(d);
    if (!x->s) fail_msg("%s", err);
    x->all = pb_schema_find_msg(x->s, "lmtest.All");
    x->plus = pb_schema_find_msg(x->s, ".lmtest.AllPlus");
    assert_true(x->all >= 0 && x->plus >= 0);
    *state = x;
    return 0;
}

static int teardown(void **state) {
    fx *x = *state;
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", x->dir);
    assert_int_equal(system(cmd), 0);
    pb_arena_free(&x->a);
    pb_schema_free(x->s);
    for (int i = 0; i < x->ninputs; i++) free(x->inputs[i]);
    free(x);
    return 0;
}

/* The k-th value of field name among m's children. */
static const pb_val *kid(const pb_val *m, const char *name, int k) {
    for (const pb_val *c = m->v.m.first; c; c = c->next)
        if (strcmp(c->f->name, name) == 0 && k-- == 0) return c;
    return NULL;
}

static int nkids(const pb_val *m, const char *name) {
    int n = 0;
    for (const pb_val *c = m->v.m.first; c; c = c->next) n += strcmp(c->f->name, name) == 0;
    return n;
}

static const pb_val *kid_or_fail(const pb_val *m, const char *name, int k) {
    const pb_val *v = kid(m, name, k);
    if (!v) fail_msg("no %s #%d", name, k);
    return v;
}
#define KID(m, name, k) kid_or_fail((m), (name), (k))

/* Decodes case.bin as msg, checks that encoding it back gives the same bytes, writes case.out. */
static const pb_val *decode_case(fx *x, const char *name, int32_t msg, int same) {
    char path[128];
    snprintf(path, sizeof(path), "%s/%s.bin", x->dir, name);
    size_t len;
    uint8_t *in = slurp(path, &len);
    assert_true(x->ninputs < 16);
    x->inputs[x->ninputs++] = in;
    char err[256];
    pb_val *root;
    pb_arena_reset(&x->a);
    if (pb_decode(x->s, msg, in, len, &x->a, NULL, &root, err, sizeof(err)) < 0) fail_msg("%s: %s", name, err);
    int64_t n = pb_encode_size(x->s, root, NULL, err, sizeof(err));
    if (n < 0) fail_msg("%s: %s", name, err);
    uint8_t *out = malloc((size_t)n + 1);
    assert_non_null(out);
    pb_encode_write(root, out);
    if (same) {
        assert_int_equal(n, len);
        assert_memory_equal(out, in, len);
    }
    snprintf(path, sizeof(path), "%s/%s.out", x->dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(out, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    free(out);
    return root;
}

static void test_scalars(void **state) {
    fx *x = *state;
    const pb_val *m = decode_case(x, "scalars", x->all, 1);
    assert_true(KID(m, "d", 0)->v.d == 1.5);
    assert_true(KID(m, "f", 0)->v.d == -2.25);
    assert_true(KID(m, "i64", 0)->v.i == -9007199254740993ll);
    assert_true(KID(m, "u64", 0)->v.u == UINT64_MAX);
    assert_int_equal(KID(m, "i32", 0)->v.i, -7);
    assert_true(KID(m, "fx64", 0)->v.u == 9223372036854775813ull);
    assert_int_equal(KID(m, "fx32", 0)->v.u, 4000000000u);
    assert_int_equal(KID(m, "b", 0)->v.b, 1);
    assert_int_equal(KID(m, "s", 0)->v.s.n, 6);
    assert_memory_equal(KID(m, "s", 0)->v.s.p, "h\xc3\xa9llo", 6);
    assert_int_equal(KID(m, "by", 0)->v.s.n, 2);
    assert_memory_equal(KID(m, "by", 0)->v.s.p, "\x00\xff", 2);
    assert_int_equal(KID(m, "u32", 0)->v.u, 4294967295u);
    assert_int_equal(KID(m, "color", 0)->v.i, 2);
    assert_string_equal(pb_enum_name(pb_schema_enum(x->s, KID(m, "color", 0)->f->ref), 2), "GREEN");
    assert_int_equal(KID(m, "sfx32", 0)->v.i, -3);
    assert_int_equal(KID(m, "sfx64", 0)->v.i, -4);
    assert_true(KID(m, "si32", 0)->v.i == INT32_MIN);
    assert_true(KID(m, "si64", 0)->v.i == INT64_MIN);
    const pb_val *in = KID(m, "inner", 0);
    assert_int_equal(in->kind, PB_V_MSG);
    assert_memory_equal(KID(in, "name", 0)->v.s.p, "in", 2);
    assert_int_equal(KID(in, "n", 0)->v.i, 42);
}

static void test_repeated(void **state) {
    fx *x = *state;
    const pb_val *m = decode_case(x, "repeated", x->all, 1);
    assert_int_equal(nkids(m, "packed_i32"), 3);
    assert_int_equal(KID(m, "packed_i32", 1)->v.i, -2);
    assert_int_equal(KID(m, "packed_i32", 2)->v.i, 300);
    assert_true(KID(m, "packed_i32", 0)->f->packed);
    assert_int_equal(nkids(m, "unpacked_i32"), 2);
    assert_false(KID(m, "unpacked_i32", 0)->f->packed);
    assert_int_equal(KID(m, "unpacked_i32", 1)->v.i, 6);
    assert_int_equal(nkids(m, "names"), 3);
    assert_int_equal(KID(m, "names", 1)->v.s.n, 0);
    assert_int_equal(nkids(m, "inners"), 2);
    assert_null(KID(m, "inners", 1)->v.m.first);
    assert_true(KID(m, "packed_d", 1)->v.d == -1.0);
    assert_int_equal(KID(m, "packed_si64", 0)->v.i, -1);
}

static void test_maps(void **state) {
    fx *x = *state;
    const pb_val *m = decode_case(x, "maps", x->all, 1);
    assert_int_equal(nkids(m, "counts"), 2);
    int seen = 0;                                       /* a map's order is not the wire's business */
    for (int k = 0; k < 2; k++) {
        const pb_val *e = KID(m, "counts", k);
        assert_true(pb_schema_msg(x->s, e->v.m.msg)->map_entry);
        int key = KID(e, "key", 0)->v.s.p[0];
        assert_int_equal(KID(e, "value", 0)->v.i, key - 'a' + 1);
        seen |= 1 << (key - 'a');
    }
    assert_int_equal(seen, 3);
    const pb_val *e = KID(m, "by_id", 0);
    assert_int_equal(KID(e, "key", 0)->v.i, 7);
    assert_memory_equal(KID(KID(e, "value", 0), "name", 0)->v.s.p, "seven", 5);
}

static void test_oneof_wkt(void **state) {
    fx *x = *state;
    const pb_val *m = decode_case(x, "oneof_wkt", x->all, 1);
    assert_int_equal(KID(m, "obj", 0)->f->oneof, 0);
    assert_null(kid(m, "text", 0));
    const pb_val *at = KID(m, "at", 0);
    assert_int_equal(KID(at, "seconds", 0)->v.i, 1700000000);
    assert_int_equal(KID(at, "nanos", 0)->v.i, 5);
    assert_int_equal(KID(KID(m, "wrapped", 0), "value", 0)->v.i, -1);
    assert_int_equal(KID(m, "opt", 0)->f->oneof, -1);        /* proto3 optional: its synthetic oneof is not one */
    assert_int_equal(KID(m, "opt", 0)->v.i, 0);
    /* Google's encoding of defaults: optional 0, oneof "", {} and a map entry {"": 0} kept, byte for byte */
    m = decode_case(x, "presence", x->all, 1);
    assert_int_equal(KID(m, "opt", 0)->v.i, 0);
    assert_int_equal(KID(m, "text", 0)->v.s.n, 0);
    assert_null(KID(m, "inner", 0)->v.m.first);
    assert_int_equal(KID(KID(m, "counts", 0), "value", 0)->v.i, 0);
    assert_null(kid(m, "i32", 0));
}

static void test_nested_and_unknown(void **state) {
    fx *x = *state;
    const pb_val *m = decode_case(x, "nested", x->all, 1);
    assert_int_equal(KID(KID(KID(KID(m, "child", 0), "child", 0), "child", 0), "i32", 0)->v.i, 3);
    m = decode_case(x, "unknown", x->all, 0);            /* AllPlus read as All: extras skipped */
    int n = 0;
    for (const pb_val *c = m->v.m.first; c; c = c->next) n++;
    assert_int_equal(n, 3);
    assert_true(KID(m, "d", 0)->v.d == 2.5);
    assert_int_equal(KID(m, "i32", 0)->v.i, 9);
    assert_memory_equal(KID(m, "s", 0)->v.s.p, "kept", 4);
}

/* Python parses what luamech encoded (the .out files of the tests above). */
static void test_python_reads_ours(void **state) {
    fx *x = *state;
    char cmd[512];
    snprintf(cmd, sizeof(cmd), PY " %s/fixtures.py check %s/t.desc %s", PB_DIR, x->dir, x->dir);
    assert_int_equal(system(cmd), 0);
}

static int dec(fx *x, int32_t msg, const void *p, size_t n, const pb_limits *lim, char *err) {
    pb_val *root;
    pb_arena_reset(&x->a);
    return pb_decode(x->s, msg, p, n, &x->a, lim, &root, err, 256);
}

static void expect_err(fx *x, const void *p, size_t n, const char *what) {
    char err[256] = "";
    assert_int_equal(dec(x, x->all, p, n, NULL, err), -1);
    if (!strstr(err, what)) fail_msg("error \"%s\" lacks \"%s\"", err, what);
}

static void test_malformed(void **state) {
    fx *x = *state;
    expect_err(x, "\x0f", 1, "invalid wire type 7");
    expect_err(x, "\x00\x01", 2, "field number 0");
    expect_err(x, "\x4a\x05" "a", 3, "field s: length 5 past the end");
    expect_err(x, "\x18\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 11, "overlong varint");
    expect_err(x, "\x0d\x01\x02", 3, "truncated 32-bit value");   /* a foreign wire type, skipped: still whole */
    expect_err(x, "\x09\x01\x02", 3, "field d: truncated 64-bit");
    expect_err(x, "\x8a", 1, "truncated or overlong field key");
    expect_err(x, "\x93\x03\x08\x01", 4, "group 50 has no end");
    expect_err(x, "\x93\x03\x08\x01\x9c\x03", 6, "end of group 51 inside group 50");
    expect_err(x, "\x94\x03", 2, "end of group 50 outside");
    char err[256];
    /* two members of one oneof (text, then obj): the last wins, and the tree encodes
     * (fuzz_pb's first finding: the encoder refused what the decoder had kept) */
    pb_val *root;
    pb_arena_reset(&x->a);
    assert_int_equal(pb_decode(x->s, x->all, (const uint8_t *)"\xd2\x01\x01t\x28\x01\xda\x01\x00", 9, &x->a, NULL,
                               &root, err, sizeof(err)), 0);
    assert_null(kid(root, "text", 0));
    assert_non_null(kid(root, "obj", 0));
    assert_int_equal(kid(root, "i32", 0)->v.i, 1);
    assert_int_equal(pb_encode_size(x->s, root, NULL, err, sizeof(err)), 5);
    /* an unknown group is skipped */
    assert_int_equal(dec(x, x->all, "\x93\x03\x08\x01\x94\x03\x28\x05", 8, NULL, err), 0);
    /* every truncation of every fixture: decoded or refused, never read past the end (ASan) */
    const char *cases[] = {"scalars", "repeated", "maps", "oneof_wkt", "presence", "nested", "unknown"};
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        char path[128];
        snprintf(path, sizeof(path), "%s/%s.bin", x->dir, cases[c]);
        size_t len;
        uint8_t *in = slurp(path, &len);
        int refused = 0;
        for (size_t k = 0; k < len; k++) {
            uint8_t *cut = malloc(k + 1);
            assert_non_null(cut);
            memcpy(cut, in, k);
            refused += dec(x, x->all, cut, k, NULL, err) < 0;
            free(cut);
        }
        assert_true(refused > 0);
        free(in);
    }
}

/* A literal and its length. */
#define B(lit) (lit), sizeof(lit) - 1

/* Decodes p as All; fails the test on an error. */
static const pb_val *dec_ok(fx *x, const void *p, size_t n) {
    char err[256];
    pb_val *root;
    pb_arena_reset(&x->a);
    if (pb_decode(x->s, x->all, p, n, &x->a, NULL, &root, err, sizeof(err)) < 0) fail_msg("%s", err);
    return root;
}

/* Encodes root and compares with want (n bytes). */
static void enc_is(fx *x, pb_val *root, const void *want, size_t n) {
    char err[256];
    int64_t len = pb_encode_size(x->s, root, NULL, err, sizeof(err));
    if (len < 0) fail_msg("%s", err);
    uint8_t out[256];
    assert_true(len <= (int64_t)sizeof(out));
    pb_encode_write(root, out);
    assert_int_equal(len, n);
    assert_memory_equal(out, want, n);
}

/* A singular message field that comes twice is merged (encoding guide: "the
 * parser merges"): later scalars win, repeated fields append, nested
 * messages merge in turn; a oneof message member that comes back after
 * another member starts afresh; a singular scalar is replaced. */
static void test_merge(void **state) {
    fx *x = *state;
    /* at (28) {seconds 5}, then at {nanos 7}: one at {5, 7} */
    const pb_val *m = dec_ok(x, B("\xe2\x01\x02\x08\x05\xe2\x01\x02\x10\x07"));
    assert_int_equal(nkids(m, "at"), 1);
    const pb_val *at = KID(m, "at", 0);
    assert_int_equal(KID(at, "seconds", 0)->v.i, 5);
    assert_int_equal(KID(at, "nanos", 0)->v.i, 7);
    /* child (33) {i32 1, inner {name "a"}, packed_i32 [1]}, then child {i32 2, inner {n 2}, packed_i32 [2]} */
    m = dec_ok(x, B("\x8a\x02\x0b" "\x28\x01" "\x5a\x03\x0a\x01" "a" "\xa2\x01\x01\x01"
                  "\x8a\x02\x0a" "\x28\x02" "\x5a\x02\x10\x02" "\xa2\x01\x01\x02"));
    assert_int_equal(nkids(m, "child"), 1);
    const pb_val *ch = KID(m, "child", 0);
    assert_int_equal(nkids(ch, "i32"), 1);                            /* replaced: the last one wins */
    assert_int_equal(KID(ch, "i32", 0)->v.i, 2);
    assert_int_equal(nkids(ch, "inner"), 1);
    assert_memory_equal(KID(KID(ch, "inner", 0), "name", 0)->v.s.p, "a", 1);
    assert_int_equal(KID(KID(ch, "inner", 0), "n", 0)->v.i, 2);
    assert_int_equal(nkids(ch, "packed_i32"), 2);
    assert_int_equal(KID(ch, "packed_i32", 0)->v.i, 1);
    assert_int_equal(KID(ch, "packed_i32", 1)->v.i, 2);
    /* obj (27) {n 1}, obj {name "x"}: merged; then text (26), then obj {name "y"}: a fresh obj */
    m = dec_ok(x, B("\xda\x01\x02\x10\x01" "\xda\x01\x03\x0a\x01x"));
    assert_int_equal(nkids(m, "obj"), 1);
    assert_int_equal(KID(KID(m, "obj", 0), "n", 0)->v.i, 1);
    m = dec_ok(x, B("\xda\x01\x02\x10\x01" "\xd2\x01\x01t" "\xda\x01\x03\x0a\x01y"));
    assert_int_equal(nkids(m, "obj"), 1);
    assert_null(kid(m, "text", 0));
    assert_null(kid(KID(m, "obj", 0), "n", 0));
    /* a singular scalar, string or oneof member that comes again replaces the first in place: i32 5,
     * s "a", text "t", i32 0, s "", text "u": i32 0 and s "" are defaults, so only text is written */
    pb_val *r = (pb_val *)dec_ok(x, B("\x28\x05" "\x4a\x01" "a" "\xd2\x01\x01t" "\x28\x00" "\x4a\x00"
                                      "\xd2\x01\x01u"));
    assert_int_equal(nkids(r, "i32"), 1);
    assert_int_equal(KID(r, "i32", 0)->v.i, 0);
    assert_int_equal(nkids(r, "s"), 1);
    assert_int_equal(nkids(r, "text"), 1);
    enc_is(x, r, B("\xd2\x01\x01u"));
    /* repeated messages stay apart; the merged tree encodes as one message */
    m = dec_ok(x, B("\xba\x01\x00\xba\x01\x00"));
    assert_int_equal(nkids(m, "inners"), 2);
    r = (pb_val *)dec_ok(x, B("\xe2\x01\x02\x08\x05\xe2\x01\x02\x10\x07"));
    enc_is(x, r, B("\xe2\x01\x04\x08\x05\x10\x07"));
}

/* Members of one oneof that alternate after many other values: the last
 * wins, and each one costs no walk over the values read before (a hostile
 * message of 3 MB alternating text and obj behind 500,000 packed values
 * took hours before; under ctest's timeout it fails when that returns). */
static void test_oneof_alternating(void **state) {
    fx *x = *state;
    enum { NPACKED = 500000, NSWAP = 400000 };
    size_t cap = 4 + NPACKED + (size_t)NSWAP * 4 + 8, n = 0;
    uint8_t *b = malloc(cap);
    assert_non_null(b);
    b[n++] = 0xa2;                                      /* packed_i32 (20), length-delimited */
    b[n++] = 0x01;
    b[n++] = (uint8_t)(0x80 | (NPACKED & 0x7f));        /* 500,000 as a varint */
    b[n++] = (uint8_t)(0x80 | ((NPACKED >> 7) & 0x7f));
    b[n++] = (uint8_t)(NPACKED >> 14);
    memset(b + n, 0x01, NPACKED);
    n += NPACKED;
    for (int i = 0; i < NSWAP; i++) {
        if (i % 2 == 0) memcpy(b + n, "\xd2\x01\x01t", 4);   /* text "t" */
        else memcpy(b + n, "\xda\x01\x00\x00", 3);          /* obj {} */
        n += i % 2 == 0 ? 4 : 3;
    }
    const pb_val *m = dec_ok(x, b, n);
    free(b);
    assert_int_equal(nkids(m, "packed_i32"), NPACKED);
    assert_int_equal(nkids(m, "obj"), 1);               /* NSWAP is even: obj came last */
    assert_null(kid(m, "text", 0));
}

/* A known field on a wire type that is not its own is skipped as an unknown
 * field (what Google's parsers do); a repeated scalar is read packed or
 * unpacked whichever its declaration says. */
static void test_wire_mismatch(void **state) {
    fx *x = *state;
    /* s (9) as varint, f (2) as length-delimited, d (1) as 32-bit, inner (11) as a group, then i32 5 */
    const pb_val *m = dec_ok(x, B("\x48\x01" "\x12\x01" "a" "\x0d\x01\x02\x03\x04" "\x5b\x08\x01\x5c" "\x28\x05"));
    assert_null(kid(m, "s", 0));
    assert_null(kid(m, "f", 0));
    assert_null(kid(m, "d", 0));
    assert_null(kid(m, "inner", 0));
    assert_int_equal(KID(m, "i32", 0)->v.i, 5);
    /* packed_i32 (20) unpacked, unpacked_i32 (21) packed: both read */
    m = dec_ok(x, B("\xa0\x01\x07" "\xaa\x01\x02\x08\x09"));
    assert_int_equal(nkids(m, "packed_i32"), 1);
    assert_int_equal(KID(m, "packed_i32", 0)->v.i, 7);
    assert_int_equal(nkids(m, "unpacked_i32"), 2);
    assert_int_equal(KID(m, "unpacked_i32", 1)->v.i, 9);
    /* a repeated string as varint: skipped, not read as packed */
    m = dec_ok(x, B("\xb0\x01\x01\x28\x01"));
    assert_null(kid(m, "names", 0));
}

static pb_val *put(fx *x, pb_val *parent, const char *name) {
    const pb_field *f = pb_msg_field(pb_schema_msg(x->s, parent->v.m.msg), name);
    assert_non_null(f);
    pb_val *v = pb_val_new(&x->a, f);
    assert_non_null(v);
    pb_val_append(parent, v);
    return v;
}

/* proto3 implicit presence: a default is not written; explicit presence
 * (optional, oneof members, messages) and repeated values are, even at
 * their default; map entries carry key and value always. */
static void test_presence(void **state) {
    fx *x = *state;
    pb_arena_reset(&x->a);
    pb_val *root = pb_val_root(&x->a, x->all);
    put(x, root, "i32");
    put(x, root, "u64");
    put(x, root, "d");
    put(x, root, "f");
    put(x, root, "b");
    put(x, root, "s");
    put(x, root, "by");
    put(x, root, "color");
    put(x, root, "si64");
    put(x, root, "fx32");
    enc_is(x, root, B(""));
    put(x, root, "d")->v.d = -0.0;                      /* not 0 bit for bit: written */
    enc_is(x, root, B("\x09\x00\x00\x00\x00\x00\x00\x00\x80"));
    root = pb_val_root(&x->a, x->all);
    put(x, root, "opt");                                /* proto3 optional 0 */
    put(x, root, "text");                               /* oneof member "" */
    put(x, root, "inner");                              /* an empty message */
    put(x, root, "packed_i32");                         /* [0] */
    put(x, root, "names");                              /* [""] */
    pb_val *e = put(x, root, "counts");                 /* {[""] = 0} */
    put(x, e, "key");
    put(x, e, "value");
    enc_is(x, root, B("\x80\x02\x00" "\xd2\x01\x00" "\x5a\x00" "\xa2\x01\x01\x00" "\xb2\x01\x00"
                    "\xc2\x01\x04\x0a\x00\x10\x00"));
    /* decoded explicit defaults of implicit fields are dropped; optional ones kept */
    root = (pb_val *)dec_ok(x, B("\x28\x00\x4a\x00\x80\x02\x00"));
    assert_int_equal(KID(root, "opt", 0)->v.i, 0);
    enc_is(x, root, B("\x80\x02\x00"));
}

static void test_limits(void **state) {
    fx *x = *state;
    /* child { child { ... } } 100 deep: field 33 = tag 0x8a 0x02 */
    uint8_t buf[1024];
    size_t n = 0;
    for (int i = 0; i < 100; i++) {
        uint8_t tmp[1024];
        tmp[0] = 0x8a, tmp[1] = 0x02;
        size_t h = 2;
        if (n >= 128) tmp[h++] = (uint8_t)(n | 0x80), tmp[h++] = (uint8_t)(n >> 7);
        else tmp[h++] = (uint8_t)n;
        memcpy(tmp + h, buf, n);
        n += h;
        memcpy(buf, tmp, n);
    }
    char err[256];
    assert_int_equal(dec(x, x->all, buf, n, NULL, err), -1);
    assert_non_null(strstr(err, "nested deeper than 64"));
    pb_limits deep = {200, 0};
    assert_int_equal(dec(x, x->all, buf, n, &deep, err), 0);
    pb_limits small = {0, 10};
    assert_int_equal(dec(x, x->all, buf, n, &small, err), -1);
    assert_non_null(strstr(err, "above the limit of 10"));
    /* a packed run of a million values passes the arena's limit cleanly */
    size_t big = 1000000;
    uint8_t *p = malloc(big + 8);
    assert_non_null(p);
    p[0] = 0xa2, p[1] = 0x01, p[2] = (uint8_t)(big | 0x80), p[3] = (uint8_t)((big >> 7) | 0x80), p[4] = (uint8_t)(big >> 14);
    memset(p + 5, 1, big);
    x->a.limit = 1 << 20;
    assert_int_equal(dec(x, x->all, p, big + 5, NULL, err), -1);
    assert_non_null(strstr(err, "too many values"));
    x->a.limit = 0;
    assert_int_equal(dec(x, x->all, p, big + 5, NULL, err), 0);
    free(p);
}

static void test_encode_errors(void **state) {
    fx *x = *state;
    const pb_msg *m = pb_schema_msg(x->s, x->all);
    char err[256];
    pb_arena_reset(&x->a);
    pb_val *root = pb_val_root(&x->a, x->all);
    pb_val *t = pb_val_new(&x->a, pb_msg_field(m, "text"));
    t->v.s.p = "x", t->v.s.n = 1;
    pb_val_append(root, t);
    pb_val_append(root, pb_val_new(&x->a, pb_msg_field(m, "obj")));
    assert_int_equal(pb_encode_size(x->s, root, NULL, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "fields text and obj are members of one oneof"));
    root = pb_val_root(&x->a, x->all);
    pb_val *i = pb_val_new(&x->a, pb_msg_field(m, "i32"));
    i->v.i = 1ll << 40;
    pb_val_append(root, i);
    assert_int_equal(pb_encode_size(x->s, root, NULL, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "field i32: 1099511627776 is out of the 32-bit range"));
}

static void test_schema(void **state) {
    fx *x = *state;
    const pb_method *md = pb_schema_find_method(x->s, "/lmtest.Echo/Stream");
    assert_non_null(md);
    assert_true(md->server_streaming && !md->client_streaming);
    assert_string_equal(pb_schema_msg(x->s, md->out)->name, "lmtest.Inner");
    assert_null(pb_schema_find_method(x->s, "lmtest.Echo/Nope"));
    char err[256];
    assert_null(pb_schema_load((const uint8_t *)"\x0a\x05zz", 4, err, sizeof(err)));
    assert_non_null(strstr(err, "not a descriptor set"));
    /* a set made without --include_imports lacks Timestamp */
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "protoc --descriptor_set_out=%s/n.desc -I %s test.proto", x->dir, PB_DIR);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof(cmd), "%s/n.desc", x->dir);
    size_t len;
    uint8_t *d = slurp(cmd, &len);
    assert_null(pb_schema_load(d, len, err, sizeof(err)));
    assert_non_null(strstr(err, "--include_imports"));
    free(d);
    int64_t v;
    uint64_t u;
    assert_int_equal(pb_parse_i64("-9223372036854775808", 20, &v), 0);
    assert_true(v == INT64_MIN);
    assert_int_equal(pb_parse_i64("9223372036854775808", 19, &v), -1);
    assert_int_equal(pb_parse_u64("18446744073709551616", 20, &u), -1);
    assert_int_equal(pb_parse_u64("1x", 2, &u), -1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scalars),   cmocka_unit_test(test_repeated),
        cmocka_unit_test(test_maps),      cmocka_unit_test(test_oneof_wkt), cmocka_unit_test(test_oneof_alternating),
        cmocka_unit_test(test_nested_and_unknown), cmocka_unit_test(test_python_reads_ours),
        cmocka_unit_test(test_malformed), cmocka_unit_test(test_merge),
        cmocka_unit_test(test_wire_mismatch), cmocka_unit_test(test_presence),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_encode_errors), cmocka_unit_test(test_schema),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
