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
 * ended) may not pass max_reply_bytes.
 *
 * In front of the reader, redis_proto_scan takes the replies a pipelined
 * load mostly sees (status, error, integer, bulk string up to 64 KiB, nil)
 * in place from the caller's buffer, under the same limits and with the
 * same messages, so a reply costs no allocation and no copy; anything else
 * (arrays, big or unusual replies) goes to hiredis.  redis_proto_encode
 * writes a command's RESP into the caller's buffer (hiredis's format
 * allocates per command); put_array and put_arg write the same bytes a part
 * at a time.  It does not know about sockets, requests or Lua. */
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

/* s[0..n) beginning with 1..20 digits and a '\r' (a bulk header's line,
 * whose '\n' may not be in yet): their value (capped at 4e18), else -1. */
static long long redis_proto_digits_cr(const char *s, size_t n) {
    size_t i = 0;
    long long v = 0;
    for (; i < n && i < 20 && s[i] >= '0' && s[i] <= '9'; i++)
        v = v > (long long)1e17 ? (long long)4e18 : v * 10 + (s[i] - '0');
    return i > 0 && i < n && s[i] == '\r' ? v : -1;
}

/* A bulk header over the limit: the message, -1. */
static int redis_proto_bulk_refused(redis_proto *p, long long len) {
    snprintf(p->err, sizeof p->err, "reply refused: bulk string of %lld bytes (max_reply %llu)", len,
             (unsigned long long)p->lim.max_reply_bytes);
    redis_proto_refused(p);
    return -1;
}

/* The length of a bulk string whose header is complete but whose body is
 * not, or -1.  hiredis consumes the type byte when it starts an item, so
 * the current task says "string" and the bytes begin with the digits. */
static long long redis_proto_bulk_header(const redisReader *r) {
    const char *s = r->buf + r->pos;
    size_t n = r->len - r->pos, i = 0;
    int type = r->ridx < 0 ? -1 : r->rstack[r->ridx].type;
    if (type != REDIS_REPLY_STRING) {
        /* a line reply (status, error, integer) or an aggregate header in
         * progress: its text may begin with '$' and is not a bulk header */
        if (type >= 0 || n == 0 || s[0] != '$') return -1;
        i = 1;                               /* not started yet */
    }
    return redis_proto_digits_cr(s + i, n - i);
}

/* An unfinished reply: over the limits yet? */
static int redis_proto_check_partial(redis_proto *p) {
    const redisReader *r = p->rd;
    long long bulk = redis_proto_bulk_header(r);
    unsigned long long lim = (unsigned long long)p->lim.max_reply_bytes;
    if (bulk >= 0 && (unsigned long long)bulk > lim) return redis_proto_bulk_refused(p, bulk);
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

/* ---- in-place scanner ------------------------------------------------- */

/* hiredis 0.14 leaves ridx at 0 with a task of type -1 when asked for a
 * reply with no bytes left: nothing of a reply started. */
int redis_proto_idle(const redis_proto *p) {
    const redisReader *r = p->rd;
    if (r == NULL || r->err || p->refused || r->pos != r->len) return 0;
    return r->ridx == -1 || (r->ridx == 0 && r->rstack[0].type == -1);
}

/* An unfinished reply of n bytes: more bytes (0), past the limit (-1), or
 * a line so long that hiredis should stream it (2). */
static int redis_proto_scan_partial(redis_proto *p, size_t n) {
    unsigned long long lim = (unsigned long long)p->lim.max_reply_bytes;
    if (n > lim) {
        snprintf(p->err, sizeof p->err, "reply refused: more than %llu bytes (max_reply %llu)",
                 lim, lim);
        redis_proto_refused(p);
        return -1;
    }
    return n > REDIS_PROTO_SCAN_MAX_BULK ? 2 : 0;
}

/* A complete reply of size bytes: over the limit? */
static int redis_proto_scan_size(redis_proto *p, size_t size) {
    if (size <= p->lim.max_reply_bytes) return 0;
    snprintf(p->err, sizeof p->err, "reply refused: %llu bytes (max_reply %llu)",
             (unsigned long long)size, (unsigned long long)p->lim.max_reply_bytes);
    redis_proto_refused(p);
    return -1;
}

/* The line after the type byte at s (n bytes): its length up to "\r\n";
 * -1 when incomplete, -2 for a lone '\r' (hiredis's business). */
static long redis_proto_scan_line(const char *s, size_t n) {
    size_t i = 0;
    while (i < n && i < 8 && s[i] != '\r') i++;     /* the usual short lines ("OK", "$32") */
    const char *cr = i < n && s[i] == '\r' ? s + i : i < n ? memchr(s + i, '\r', n - i) : NULL;
    if (cr == NULL || (size_t)(cr - s) + 1 >= n) return -1;
    return cr[1] == '\n' ? (long)(cr - s) : -2;
}

/* s[0..len) as an optional '-' and 1..18 digits; 0 when not that form. */
static int redis_proto_scan_ll(const char *s, size_t len, long long *v) {
    size_t i = len > 0 && s[0] == '-';
    long long x = 0;
    if (len <= i || len - i > 18) return 0;
    for (size_t k = i; k < len; k++) {
        if (s[k] < '0' || s[k] > '9') return 0;
        x = x * 10 + (s[k] - '0');
    }
    *v = i ? -x : x;
    return 1;
}

/* hiredis reads integers and bulk lengths with string2ll, which refuses a
 * leading zero ("03", "-0", "00"): such a line is hiredis's to refuse. */
static int redis_proto_scan_canonical(const char *s, size_t len) {
    size_t i = len > 0 && s[0] == '-';
    return len > i && (s[i] != '0' || len == 1);
}

/* "$<len>\r\n<bytes>\r\n" or "$-1\r\n"; hdr is the header line's length. */
static int redis_proto_scan_bulk(redis_proto *p, const char *buf, size_t n, size_t hdr,
                                 redisReply *out, size_t *used) {
    long long len;
    if (!redis_proto_scan_canonical(buf + 1, hdr) || !redis_proto_scan_ll(buf + 1, hdr, &len) || len < -1)
        return 2;
    if (len == -1) {
        out->type = REDIS_REPLY_NIL;
        *used = hdr + 3;
        return 1;
    }
    if ((unsigned long long)len > p->lim.max_reply_bytes) return redis_proto_bulk_refused(p, len);
    if (len > REDIS_PROTO_SCAN_MAX_BULK) return 2;
    size_t total = hdr + 3 + (size_t)len + 2;
    if (n < total) return redis_proto_scan_partial(p, n);
    if (buf[total - 2] != '\r' || buf[total - 1] != '\n') return 2;
    if (redis_proto_scan_size(p, total) < 0) return -1;
    out->type = REDIS_REPLY_STRING;
    out->str = (char *)(buf + hdr + 3);
    out->len = (size_t)len;
    *used = total;
    return 1;
}

int redis_proto_scan(redis_proto *p, const char *buf, size_t n, redisReply *out, size_t *used) {
    *out = (redisReply){.type = 0};
    *used = 0;
    if (n == 0) return 0;
    char t = buf[0];
    if (t != '+' && t != '-' && t != ':' && t != '$') return 2;
    long line = redis_proto_scan_line(buf + 1, n - 1);
    if (line == -2) return 2;
    if (line < 0) {
        /* as the reader does: a bulk header over the limit is refused once
         * its '\r' is in, before its '\n' */
        long long len = t == '$' ? redis_proto_digits_cr(buf + 1, n - 1) : -1;
        if (len >= 0 && (unsigned long long)len > p->lim.max_reply_bytes) return redis_proto_bulk_refused(p, len);
        return redis_proto_scan_partial(p, n);
    }
    size_t hdr = (size_t)line;
    if (t == '$') return redis_proto_scan_bulk(p, buf, n, hdr, out, used);
    if (redis_proto_scan_size(p, hdr + 3) < 0) return -1;
    if (t == ':') {
        if (!redis_proto_scan_canonical(buf + 1, hdr) || !redis_proto_scan_ll(buf + 1, hdr, &out->integer))
            return 2;
        out->type = REDIS_REPLY_INTEGER;
    } else {
        out->type = t == '+' ? REDIS_REPLY_STATUS : REDIS_REPLY_ERROR;
        out->str = (char *)(buf + 1);
        out->len = hdr;
    }
    *used = hdr + 3;
    return 1;
}

/* ---- command encoder -------------------------------------------------- */

static size_t redis_proto_digits(size_t v) {
    if (v < 100) return v < 10 ? 1 : 2;     /* command names, keys, small values */
    size_t d = 3;
    while (v >= 1000) v /= 10, d++;
    return d;
}

static char *redis_proto_put_len(char *d, char type, size_t v) {
    char tmp[24];
    int k = 0;
    *d++ = type;
    if (v < 100) {                          /* the common lengths: no loop */
        if (v >= 10) *d++ = (char)('0' + v / 10);
        *d++ = (char)('0' + v % 10);
        *d++ = '\r';
        *d++ = '\n';
        return d;
    }
    do tmp[k++] = (char)('0' + v % 10); while ((v /= 10) != 0);
    while (k) *d++ = tmp[--k];
    *d++ = '\r';
    *d++ = '\n';
    return d;
}

size_t redis_proto_cmd_len(int argc, const size_t *lens) {
    size_t n = 3 + redis_proto_digits((size_t)argc);
    for (int i = 0; i < argc; i++) n += 3 + redis_proto_digits(lens[i]) + lens[i] + 2;
    return n;
}

char *redis_proto_put_array(char *dst, int argc) { return redis_proto_put_len(dst, '*', (size_t)argc); }

char *redis_proto_put_arg(char *dst, const char *s, size_t len) {
    char *d = redis_proto_put_len(dst, '$', len);
    if (len) memcpy(d, s, len);
    d += len;
    *d++ = '\r';
    *d++ = '\n';
    return d;
}

char *redis_proto_put_arg_inplace(char *dst, size_t len) {
    size_t hdr = 3 + redis_proto_digits(len);
    if (hdr != REDIS_PROTO_INPLACE) memmove(dst + hdr, dst + REDIS_PROTO_INPLACE, len);
    char *d = redis_proto_put_len(dst, '$', len) + len;
    *d++ = '\r';
    *d++ = '\n';
    return d;
}

size_t redis_proto_encode(char *dst, int argc, const char *const *argv, const size_t *lens) {
    char *d = redis_proto_put_array(dst, argc);
    for (int i = 0; i < argc; i++) d = redis_proto_put_arg(d, argv[i], lens[i]);
    return (size_t)(d - dst);
}
