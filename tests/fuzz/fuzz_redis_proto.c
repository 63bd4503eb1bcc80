/* fuzz_redis_proto.c - fuzz harness for the redis reply reader with limits
 * (proto/redis_proto.c: hiredis's reader behind luamech's checks), driven as
 * the redis client drives it.  The first input byte picks small limits; the
 * rest is fed twice: whole, and in pieces of 1..16 bytes (sizes from the
 * input).  Properties: no crash or leak; every reply respects the limits
 * (string lengths, elements summed, depth); and both feedings give the same
 * number of replies, the same reply trees, and an error in the same place. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/redis_proto.h"
#include "redis_reply_walk.h"

#define FZ_RD_MAX_REPLIES 256

typedef struct fz_rd_run {
    int n;                       /* replies taken */
    int error;                   /* the reader refused or failed */
    uint64_t sig[FZ_RD_MAX_REPLIES];
} fz_rd_run;

/* Take every reply available; 0 to go on, -1 once the reader failed. */
static int fz_rd_drain(redis_proto *p, fz_rd_run *run) {
    for (;;) {
        redisReply *r;
        int rc = redis_proto_next(p, &r);
        if (rc == 0) return 0;
        if (rc < 0) {
            run->error = 1;
            return -1;
        }
        uint64_t elements = 0;
        uint64_t h = fz_redis_walk(r, &p->lim, 0, &elements, 0);
        if (run->n < FZ_RD_MAX_REPLIES) run->sig[run->n] = h;
        run->n++;
        freeReplyObject(r);
    }
}

static void fz_rd_feed(const redis_limits *l, const uint8_t *d, size_t n, const uint8_t *sizes,
                       size_t nsizes, fz_rd_run *run) {
    redis_proto p;
    memset(run, 0, sizeof *run);
    if (redis_proto_init(&p, l) != 0) abort();
    size_t off = 0, k = 0;
    while (off < n) {
        size_t piece = sizes ? 1 + (size_t)(sizes[k++ % nsizes] & 15) : n;
        if (piece > n - off) piece = n - off;
        if (redis_proto_feed(&p, (const char *)d + off, piece) != 0) abort();
        off += piece;
        if (fz_rd_drain(&p, run) != 0) break;
    }
    redis_proto_free(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    redis_limits l;
    redis_limits_default(&l);
    l.max_reply_bytes = 16 + (data[0] & 0x3f) * 64u;    /* 16..4048 bytes */
    l.max_elements = 1 + (data[0] >> 6) * 8u;           /* 1..25 */
    l.max_depth = 1 + (data[0] & 3) * 2;                /* 1..7 */
    fz_rd_run whole, pieces;
    fz_rd_feed(&l, data + 1, size - 1, NULL, 0, &whole);
    fz_rd_feed(&l, data + 1, size - 1, data, size, &pieces);
    if (whole.n != pieces.n || whole.error != pieces.error) abort();
    for (int i = 0; i < whole.n && i < FZ_RD_MAX_REPLIES; i++)
        if (whole.sig[i] != pieces.sig[i]) abort();
    return 0;
}
