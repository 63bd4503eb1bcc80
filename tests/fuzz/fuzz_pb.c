/* fuzz_pb.c - fuzz harness for the protocol buffers decoder (pb_decode) and
 * the gRPC message reader (grpc_deframe), on the schema of
 * tests/unit/pb/test.proto (compiled by protoc at build time: PB_DESC).
 * Input: byte 0 picks the message type, byte 1 how the rest is cut into
 * pieces for the deframer (low 4 bits) and the stream's grpc-encoding
 * (bits 4-5: other, none, gzip, deflate); the rest is the message.  Properties: a decode
 * that succeeds encodes back to bytes that decode again and encode to the
 * same bytes (the encoder is a fixed point of the decoder); a failed one
 * leaves an error message; every decoded string lies inside the input; the
 * deframer hands out messages that lie within what it was fed, or in its
 * decoder's buffer, never past the receive limit once decompressed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/grpc_frame.h"
#include "proto/pb.h"

static pb_schema *fz_pb_schema(void) {
    static pb_schema *s;                         /* the harness's one schema, loaded at the first input */
    if (s) return s;
    FILE *f = fopen(PB_DESC, "rb");
    if (!f) abort();
    static uint8_t buf[1 << 16];
    size_t n = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    char err[256];
    s = pb_schema_load(buf, n, err, sizeof(err));
    if (!s) abort();
    return s;
}

static void fz_pb_inside(const pb_val *m, const uint8_t *lo, size_t n) {
    for (const pb_val *c = m->v.m.first; c; c = c->next) {
        if (c->kind == PB_V_BYTES && c->v.s.n &&
            ((const uint8_t *)c->v.s.p < lo || (const uint8_t *)c->v.s.p + c->v.s.n > lo + n))
            abort();
        if (c->kind == PB_V_MSG) fz_pb_inside(c, lo, n);
    }
}

static uint8_t *fz_pb_encode(const pb_schema *s, pb_val *root, size_t *len) {
    char err[256];
    int64_t n = pb_encode_size(s, root, NULL, err, sizeof(err));
    if (n < 0) abort();                          /* what was decoded must encode */
    uint8_t *out = malloc((size_t)n + 1);
    if (!out) abort();
    pb_encode_write(root, out);
    *len = (size_t)n;
    return out;
}

static void fz_pb_codec(const pb_schema *s, int32_t msg, const uint8_t *data, size_t size) {
    pb_arena a = {0}, b = {0};
    pb_val *root, *again;
    char err[256] = "";
    if (pb_decode(s, msg, data, size, &a, NULL, &root, err, sizeof(err)) < 0) {
        if (!err[0]) abort();
        pb_arena_free(&a);
        return;
    }
    fz_pb_inside(root, data, size);
    size_t n1, n2;
    uint8_t *e1 = fz_pb_encode(s, root, &n1);
    if (pb_decode(s, msg, e1, n1, &b, NULL, &again, err, sizeof(err)) < 0) abort();
    uint8_t *e2 = fz_pb_encode(s, again, &n2);
    if (n1 != n2 || memcmp(e1, e2, n1) != 0) abort();
    free(e1);
    free(e2);
    pb_arena_free(&a);
    pb_arena_free(&b);
}

static void fz_pb_deframe(const uint8_t *data, size_t size, size_t piece, int coding) {
    hz_decoder hz = {0};
    grpc_deframer d = {0};
    d.max = 1 << 16;
    d.coding = coding;
    d.hz = &hz;
    char err[256];
    for (size_t off = 0; off < size; off += piece) {
        const uint8_t *p = data + off, *start = p;
        size_t n = size - off < piece ? size - off : piece, fed = n;
        const uint8_t *msg;
        size_t len;
        int rc;
        while ((rc = grpc_deframe(&d, &p, &n, &msg, &len, err, sizeof(err))) == 1) {
            int in_piece = msg >= start && msg + len <= start + fed;
            int in_buf = d.buf && msg == d.buf && len <= d.cap;
            int in_hz = hz.out && msg == (const uint8_t *)hz.out && len <= d.max && hz.out_cap <= d.max;
            if (!in_piece && !in_buf && !in_hz && len) abort();
        }
        if (rc < 0) break;
        if (n != 0) abort();                     /* 0: the piece is used up */
    }
    grpc_deframer_free(&d);
    hz_free(&hz);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    const pb_schema *s = fz_pb_schema();
    int32_t msg = (int32_t)(data[0] % pb_schema_nmsgs(s));
    fz_pb_codec(s, msg, data + 2, size - 2);
    fz_pb_deframe(data + 2, size - 2, (size_t)data[1] % 16 + 1, (data[1] >> 4) % 4 - 1);   /* -1 .. 2 */
    return 0;
}
