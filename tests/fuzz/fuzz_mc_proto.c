/* fuzz_mc_proto.c - fuzz harness for the memcached reply parser (mc_parse),
 * text and meta replies alike (the corpus has both).
 * Properties checked on any input: a reply never claims more bytes than it
 * was given; every pointer of a reply points inside the bytes of that reply;
 * and the parser is incremental: every strict prefix of the first reply unit
 * parses as "need more" (never as garbage, never as another reply). */
#include <stdint.h>
#include <stdlib.h>

#include "proto/mc_proto.h"

static void fz_mc_inside(const char *p, size_t n, const char *lo, size_t span) {
    if (n == 0) return;
    if (p < lo || p + n > lo + span) abort();
}

static void fz_mc_check_reply(const mc_reply *r, const char *at, size_t used) {
    fz_mc_inside(r->key, r->key_len, at, used);       /* any meta reply may carry k<key> */
    fz_mc_inside(r->data, r->data_len, at, used);
    if (r->key_len && !mc_key_valid(r->key, r->key_len)) abort();
    if (r->data_len && r->kind != MC_R_VALUE && r->kind != MC_R_VA) abort();
    if (r->kind == MC_R_CLIENT_ERROR || r->kind == MC_R_SERVER_ERROR)
        fz_mc_inside(r->msg, r->msg_len, at, used);
}

static void fz_mc_check_prefixes(const char *buf, size_t used) {
    mc_reply r;
    for (size_t k = 0; k < used; k++) {
        if (mc_parse(buf, k, &r) != 0 || r.kind != MC_R_NEED_MORE) abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *buf = (const char *)data;
    size_t off = 0;
    int first = 1;
    while (off < size) {
        mc_reply r;
        size_t used = mc_parse(buf + off, size - off, &r);
        if (used == 0) {
            if (r.kind != MC_R_NEED_MORE && r.kind != MC_R_BAD) abort();
            break;
        }
        if (used > size - off) abort();
        fz_mc_check_reply(&r, buf + off, used);
        if (first && used <= 4096) fz_mc_check_prefixes(buf + off, used);
        first = 0;
        off += used;
    }
    return 0;
}
