/* fuzz_redis_scan.c - differential fuzz harness for the in-place redis reply
 * scanner (redis_proto_scan, proto/redis_proto.c) as redis_client.c drives
 * it: while the reader is idle, scalar replies are taken in place from the
 * connection's buffer, an unfinished one stays in the buffer for the next
 * read, anything else goes to hiredis's reader (redis_proto_feed/next).
 * The reference is hiredis's reader alone, fed the whole stream.
 *
 * Input: byte 0 picks the limits (as in fuzz_redis_proto.c, whose corpus
 * is valid here; 0x3f in its low bits: the default 64 MiB max_reply); the
 * rest is the stream, read by the client-like driver twice: in one read,
 * and in reads of 1..32 bytes (sizes from the input bytes).  Every call
 * gets its bytes in a buffer of exactly that size, so ASan sees a read past
 * them.  Properties: no crash, leak or undefined behaviour; a scan never
 * claims more bytes than it had nor zero, and its string lies inside the
 * reply; every reply respects the limits; both drivers give the reference's
 * replies (same trees, same order) and refuse exactly when it does, after
 * the same replies.  Bulk strings over REDIS_PROTO_SCAN_MAX_BULK (64 KiB)
 * need longer inputs than a campaign uses: tests/unit/test_redis_proto.c
 * covers that hand-over. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/redis_proto.h"
#include "redis_reply_walk.h"

#define FZ_RS_MAX_REPLIES 512

typedef struct fz_rs_run {
    int n;                        /* replies taken */
    int error;                    /* the reader or scanner refused */
    int scanned;                  /* of which taken in place */
    uint64_t sig[FZ_RS_MAX_REPLIES];
} fz_rs_run;

static void fz_rs_take(fz_rs_run *run, const redisReply *r, const redis_limits *l) {
    uint64_t elements = 0;
    /* scanned replies and hiredis's hash the same way */
    uint64_t h = fz_redis_walk(r, l, 0, &elements, FZ_REDIS_WALK_LEN | FZ_REDIS_WALK_RESP2);
    if (run->n < FZ_RS_MAX_REPLIES) run->sig[run->n] = h;
    run->n++;
}

/* hiredis's replies; 0 to go on, -1 once it refused. */
static int fz_rs_drain(redis_proto *p, fz_rs_run *run) {
    for (;;) {
        redisReply *r;
        int rc = redis_proto_next(p, &r);
        if (rc == 0) return 0;
        if (rc < 0) {
            if (!p->err[0]) abort();                   /* a refusal says why */
            run->error = 1;
            return -1;
        }
        fz_rs_take(run, r, &p->lim);
        freeReplyObject(r);
    }
}

/* redis_read_replies (client/redis_client.c) on buf[0..n): the bytes
 * consumed, or -1 once refused. */
static long fz_rs_read(redis_proto *p, const char *buf, size_t n, fz_rs_run *run) {
    size_t off = 0;
    while (off < n) {
        if (!redis_proto_idle(p)) break;
        redisReply r;
        size_t used = 12345;
        int rc = redis_proto_scan(p, buf + off, n - off, &r, &used);
        if (rc == 0) return (long)off;
        if (rc == 2) break;
        if (rc < 0) {
            if (!p->err[0] || redis_proto_idle(p)) abort();   /* says why; unusable until reset */
            run->error = 1;
            return -1;
        }
        if (rc != 1 || used == 0 || used > n - off) abort();
        if (r.str && (r.str < buf + off || r.str + r.len > buf + off + used)) abort();
        fz_rs_take(run, &r, &p->lim);
        run->scanned++;
        off += used;
    }
    if (off < n) {
        if (redis_proto_feed(p, buf + off, n - off) != 0) abort();   /* only out of memory */
        if (fz_rs_drain(p, run) != 0) return -1;
    }
    return (long)n;
}

/* The connection: reads of the given sizes (whole when sizes is NULL);
 * what on_data did not consume comes again ahead of the next bytes, each
 * time in a buffer of exactly its size. */
static void fz_rs_client(const redis_limits *l, const uint8_t *d, size_t n, const uint8_t *sizes, size_t nsizes,
                         fz_rs_run *run) {
    redis_proto p;
    memset(run, 0, sizeof *run);
    if (redis_proto_init(&p, l) != 0) abort();
    size_t start = 0, avail = 0, k = 0;
    while (avail < n) {
        size_t piece = sizes ? 1 + (size_t)(sizes[k++ % nsizes] & 31) : n;
        avail += piece > n - avail ? n - avail : piece;
        size_t len = avail - start;
        char *buf = malloc(len);
        if (!buf) abort();
        memcpy(buf, d + start, len);
        long used = fz_rs_read(&p, buf, len, run);
        free(buf);
        if (used < 0) break;
        start += (size_t)used;
    }
    redis_proto_free(&p);
}

static void fz_rs_reference(const redis_limits *l, const uint8_t *d, size_t n, fz_rs_run *run) {
    redis_proto p;
    memset(run, 0, sizeof *run);
    if (redis_proto_init(&p, l) != 0) abort();
    if (n && redis_proto_feed(&p, (const char *)d, n) != 0) abort();
    fz_rs_drain(&p, run);
    redis_proto_free(&p);
}

static void fz_rs_same(const fz_rs_run *a, const fz_rs_run *b) {
    if (a->n != b->n || a->error != b->error) abort();
    for (int i = 0; i < a->n && i < FZ_RS_MAX_REPLIES; i++)
        if (a->sig[i] != b->sig[i]) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    redis_limits l;
    redis_limits_default(&l);
    if ((data[0] & 0x3f) != 0x3f) l.max_reply_bytes = 16 + (data[0] & 0x3f) * 64u;   /* 16..4048 */
    l.max_elements = 1 + (data[0] >> 6) * 8u;                                          /* 1..25 */
    l.max_depth = 1 + (data[0] & 3) * 2;                                               /* 1..7 */
    fz_rs_run ref, whole, pieces;
    fz_rs_reference(&l, data + 1, size - 1, &ref);
    fz_rs_client(&l, data + 1, size - 1, NULL, 0, &whole);
    fz_rs_client(&l, data + 1, size - 1, data, size, &pieces);
    fz_rs_same(&ref, &whole);
    fz_rs_same(&ref, &pieces);
    return 0;
}
