/* redis_proto.c - the redis reply reader with limits (see redis_proto.h).
 *
 * hiredis's redisReader does the parsing; its reply objects are built by
 * hiredis's default functions, copied from a reader made by
 * redisReaderCreate, except createArray, which first checks the element count
 * (negative counts included: hiredis 0.14 would store them as a huge size)
 * and the nesting depth against the limits and refuses the array (the reader
 * then stops with an error) before anything is allocated for it.  The size of
 * a reply is checked as it streams in: the reader consumes an item only once
 * it is complete, so the bytes not consumed yet begin with the unfinished
 * item; a bulk header over the limit is refused as soon as its line is in,
 * and the bytes of an unfinished reply (counted from where the previous reply
 * ended) may not pass max_reply_bytes.  It does not know about sockets,
 * requests or Lua. */
#include "proto/redis_proto.h"

#include <stdio.h>
#include <string.h>

void redis_limits_default(redis_limits *l) {
    l->max_reply_bytes = REDIS_PROTO_MAX_REPLY_DEFAULT;
    l->max_elements = REDIS_PROTO_MAX_ELEMENTS_DEFAULT;
    l->max_depth = REDIS_PROTO_MAX_DEPTH_DEFAULT;
}

/* Mark the current reply refused; the message is already in p->err. */
static void *redis_proto_refused(redis_proto *p) {
    p->refused = 1;
    return NULL;
}

static void *redis_proto_create_array(const redisReadTask *task, int elements) {
    redis_proto *p = task->privdata;
    int depth = 1;
    for (const redisReadTask *t = task->parent; t; t = t->parent) depth++;
    if (elements < 0) {
        snprintf(p->err, sizeof p->err, "reply refused: bad array length %d", elements);
        return redis_proto_refused(p);
    }
    if (depth > p->lim.max_depth) {
        snprintf(p->err, sizeof p->err, "reply refused: arrays nested %d deep (max_depth %d)",
                 depth, p->lim.max_depth);
        return redis_proto_refused(p);
    }
    p->elements += (uint64_t)elements;
    if (p->elements > p->lim.max_elements) {
        snprintf(p->err, sizeof p->err, "reply refused: more than %u array elements "
                 "(max_elements %u)", p->lim.max_elements, p->lim.max_elements);
        return redis_proto_refused(p);
    }
    return p->base.createArray(task, elements);
}

/* Strings arrive whole; a bulk header over the limit is normally refused
 * before its body (redis_proto_check_partial), this catches one that came
 * in a single read. */
static void *redis_proto_create_string(const redisReadTask *task, char *str, size_t len) {
    redis_proto *p = task->privdata;
    if (len > p->lim.max_reply_bytes) {
        snprintf(p->err, sizeof p->err, "reply refused: string of %zu bytes (max_reply %llu)",
                 len, (unsigned long long)p->lim.max_reply_bytes);
        return redis_proto_refused(p);
    }
    return p->base.createString(task, str, len);
}

void redis_proto_free(redis_proto *p) {
    if (p->rd) redisReaderFree(p->rd);
    p->rd = NULL;
}

int redis_proto_reset(redis_proto *p) {
    redis_proto_free(p);
    p->fed = p->reply_start = p->elements = 0;
    p->refused = 0;
    p->err[0] = 0;
    p->rd = redisReaderCreate();
    if (p->rd == NULL || p->rd->fn == NULL) {
        redis_proto_free(p);
        snprintf(p->err, sizeof p->err, "out of memory");
        return -1;
    }
    p->base = *p->rd->fn;
    p->fn = p->base;
    p->fn.createArray = redis_proto_create_array;
    p->fn.createString = redis_proto_create_string;
    p->rd->fn = &p->fn;
    p->rd->privdata = p;
    return 0;
}

int redis_proto_init(redis_proto *p, const redis_limits *lim) {
    memset(p, 0, sizeof *p);
    if (lim) p->lim = *lim;
    else redis_limits_default(&p->lim);
    return redis_proto_reset(p);
}

int redis_proto_feed(redis_proto *p, const char *buf, size_t len) {
    if (p->rd == NULL || redisReaderFeed(p->rd, buf, len) != REDIS_OK) {
        snprintf(p->err, sizeof p->err, "%s", p->rd ? p->rd->errstr : "out of memory");
        return -1;
    }
    p->fed += len;
    return 0;
}

/* The length of a bulk string whose header is complete but whose body is
 * not, or -1.  hiredis consumes the type byte when it starts an item, so
 * the current task says "string" and the bytes begin with the digits. */
static long long redis_proto_bulk_header(const redisReader *r) {
    const char *s = r->buf + r->pos;
    size_t n = r->len - r->pos, i = 0;
    long long v = 0;
    int type = r->ridx < 0 ? -1 : r->rstack[r->ridx].type;
    if (type != REDIS_REPLY_STRING) {
        /* a line reply (status, error, integer) or an aggregate header in
         * progress: its text may begin with '$' and is not a bulk header */
        if (type >= 0 || n == 0 || s[0] != '$') return -1;
        i = 1;                               /* not started yet */
    }
    size_t first = i;
    for (; i < n && i < first + 20 && s[i] >= '0' && s[i] <= '9'; i++)
        v = v > (long long)1e17 ? (long long)4e18 : v * 10 + (s[i] - '0');
    return i > first && i < n && s[i] == '\r' ? v : -1;
}

/* An unfinished reply: over the limits yet? */
static int redis_proto_check_partial(redis_proto *p) {
    const redisReader *r = p->rd;
    long long bulk = redis_proto_bulk_header(r);
    unsigned long long lim = (unsigned long long)p->lim.max_reply_bytes;
    if (bulk >= 0 && (unsigned long long)bulk > lim) {
        snprintf(p->err, sizeof p->err, "reply refused: bulk string of %lld bytes (max_reply %llu)",
                 bulk, lim);
        redis_proto_refused(p);
        return -1;
    }
    if (p->fed - p->reply_start > lim) {
        snprintf(p->err, sizeof p->err, "reply refused: more than %llu bytes (max_reply %llu)",
                 lim, lim);
        redis_proto_refused(p);
        return -1;
    }
    return 0;
}

int redis_proto_next(redis_proto *p, redisReply **out) {
    void *reply = NULL;
    *out = NULL;
    if (p->rd == NULL || p->refused) return -1;
    if (redisReaderGetReply(p->rd, &reply) != REDIS_OK) {
        if (!p->refused) snprintf(p->err, sizeof p->err, "%s", p->rd->errstr);
        return -1;
    }
    if (reply == NULL) return redis_proto_check_partial(p);
    uint64_t end = p->fed - (p->rd->len - p->rd->pos);
    uint64_t size = end - p->reply_start;
    p->reply_start = end;
    p->elements = 0;
    if (size > p->lim.max_reply_bytes) {
        freeReplyObject(reply);
        snprintf(p->err, sizeof p->err, "reply refused: %llu bytes (max_reply %llu)",
                 (unsigned long long)size, (unsigned long long)p->lim.max_reply_bytes);
        redis_proto_refused(p);
        return -1;
    }
    *out = reply;
    return 1;
}
