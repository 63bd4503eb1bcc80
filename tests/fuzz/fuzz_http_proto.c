/* fuzz_http_proto.c - differential fuzz harness for the HTTP response parser.
 * The input (after one flags byte) is parsed in one piece, where the fast
 * path may take it, and again in pieces of a few bytes, which always go to
 * http-parser; both must give the same verdict, consume the same bytes and
 * produce the same status, flags, headers and body.  Memory safety is left to
 * the sanitizers.  Flags byte: bit 0 = response to a HEAD request, bit 1 = a
 * 10-byte body limit, bits 2-4 = piece size - 1 for the second parse. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/http_proto.h"

static int fz_http_parse(hp_parser *p, const char *src, size_t len, size_t step, size_t *used) {
    size_t off = 0;
    int rc = HP_NEED_MORE;
    while (off < len && rc == HP_NEED_MORE) {
        size_t n = step && len - off > step ? step : len - off, u = 0;
        rc = hp_parser_feed(p, src + off, n, &u);
        if (u > n) abort();
        off += u;
    }
    if (rc == HP_NEED_MORE) rc = hp_parser_eof(p);
    *used = off;
    return rc;
}

static void fz_http_same_bytes(const char *a, size_t al, const char *b, size_t bl) {
    if (al != bl || (al && memcmp(a, b, al) != 0)) abort();
}

static void fz_http_same(const hp_parser *a, const hp_parser *b) {
    if (a->status != b->status || a->http_major != b->http_major ||
        a->http_minor != b->http_minor || a->keep_alive != b->keep_alive ||
        a->chunked != b->chunked || a->eof_terminated != b->eof_terminated ||
        a->nheaders != b->nheaders)
        abort();
    for (size_t i = 0; i < a->nheaders; i++) {
        const char *an, *av, *bn, *bv;
        size_t anl, avl, bnl, bvl;
        hp_parser_header(a, i, &an, &anl, &av, &avl);
        hp_parser_header(b, i, &bn, &bnl, &bv, &bvl);
        fz_http_same_bytes(an, anl, bn, bnl);
        fz_http_same_bytes(av, avl, bv, bvl);
    }
    fz_http_same_bytes(a->body, a->body_len, b->body, b->body_len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    int head = data[0] & 1;
    size_t limit = (data[0] & 2) ? 10 : 0, step = ((data[0] >> 2) & 7) + 1;
    const char *src = (const char *)data + 1;
    size_t len = size - 1, u1 = 0, u2 = 0;
    hp_parser one, pieces;
    hp_parser_init(&one);
    hp_parser_init(&pieces);
    one.max_body = pieces.max_body = limit;
    hp_parser_reset(&one, head);
    hp_parser_reset(&pieces, head);
    int r1 = fz_http_parse(&one, src, len, 0, &u1);
    int r2 = fz_http_parse(&pieces, src, len, step, &u2);
    if (pieces.fast && step < len) abort();
    if (r1 != r2) abort();
    if (r1 == HP_DONE) {
        if (u1 != u2) abort();
        fz_http_same(&one, &pieces);
    }
    hp_parser_free(&one);
    hp_parser_free(&pieces);
    return 0;
}
