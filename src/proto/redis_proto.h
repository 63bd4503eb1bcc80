/* redis_proto.h - the redis reply reader with limits: hiredis's redisReader
 * (RESP2) fed with bytes, its reply objects built by hiredis's own functions
 * behind checks that refuse a reply as it streams in when it is larger than
 * the limits (bytes of one reply, elements, nesting depth); in front of it a
 * scanner that takes the common replies (status, error, integer, bulk
 * string, nil) in place from the caller's buffer without allocating, and an
 * encoder that writes a command's RESP straight into the caller's buffer.
 * Never touches sockets. */
#ifndef LUAMECH_REDIS_PROTO_H
#define LUAMECH_REDIS_PROTO_H

#include <stddef.h>
#include <stdint.h>
#include <hiredis/hiredis.h>

#define REDIS_PROTO_MAX_REPLY_DEFAULT    ((uint64_t)64 << 20)   /* 64 MiB */
#define REDIS_PROTO_MAX_REPLY_LIMIT      ((uint64_t)1 << 40)
#define REDIS_PROTO_MAX_ELEMENTS_DEFAULT 1048576u
#define REDIS_PROTO_MAX_ELEMENTS_LIMIT   2147483647u
#define REDIS_PROTO_MAX_DEPTH_DEFAULT    7                      /* hiredis 0.14's own maximum */

typedef struct redis_limits {
    uint64_t max_reply_bytes;   /* bytes of one reply on the wire, all nested parts included */
    uint32_t max_elements;      /* array elements in one reply, all nesting levels summed */
    int max_depth;              /* nested arrays: 1 = an array of scalars; 1..7 */
} redis_limits;

void redis_limits_default(redis_limits *l);

typedef struct redis_proto {
    redisReader *rd;
    redisReplyObjectFunctions fn;     /* hiredis's, behind our checks */
    redisReplyObjectFunctions base;   /* hiredis's defaults */
    redis_limits lim;
    uint64_t fed;                     /* bytes fed since init/reset */
    uint64_t reply_start;             /* fed-offset where the current reply starts */
    uint64_t elements;                /* array elements of the current reply so far */
    int refused;                      /* a limit refused the current reply (see err) */
    char err[160];
} redis_proto;

/* 0, or -1 when out of memory.  p must not move while in use. */
int redis_proto_init(redis_proto *p, const redis_limits *lim);
/* A fresh reader for a new connection; 0 or -1 (out of memory). */
int redis_proto_reset(redis_proto *p);
void redis_proto_free(redis_proto *p);

/* Append bytes; 0, or -1 (reader error or out of memory: see p->err). */
int redis_proto_feed(redis_proto *p, const char *buf, size_t len);

/* The next complete reply: 1 with *out set (free it with freeReplyObject),
 * 0 when more bytes are needed, -1 on a protocol error or a reply over the
 * limits (p->err says which; the reader is unusable until reset). */
int redis_proto_next(redis_proto *p, redisReply **out);

/* Scalar replies the scanner takes: bulk strings up to this size; larger
 * ones (and arrays, and unusual forms) go through hiredis's reader. */
#define REDIS_PROTO_SCAN_MAX_BULK (64 * 1024)

/* 1 when the reader holds no bytes (between replies): the scanner may take
 * the next reply.  0 while hiredis has an unfinished reply or bytes of the
 * next ones: feed it the rest (redis_proto_feed/next) until it is idle. */
int redis_proto_idle(const redis_proto *p);

/* The reply at the head of buf[0..n), taken in place (nothing allocated,
 * nothing fed to hiredis).  Only call it when redis_proto_idle.
 *  1: a complete scalar reply: *out describes it (out->str points into buf,
 *     valid as long as buf; not NUL-terminated: use out->len), *used its
 *     bytes;
 *  0: the reply is incomplete; ask again with more bytes (the caller keeps
 *     buf[0..n));
 *  2: not a reply the scanner takes (an array, a bulk string over
 *     REDIS_PROTO_SCAN_MAX_BULK, an unusual form, not RESP): feed buf[0..n)
 *     to hiredis with redis_proto_feed and take its replies with
 *     redis_proto_next, which applies the same limits;
 * -1: over the limits (p->err says which; the reader is unusable until
 *     reset). */
int redis_proto_scan(redis_proto *p, const char *buf, size_t n, redisReply *out, size_t *used);

/* The RESP encoding of a command (argv[0] is its name; binary-safe
 * arguments): its exact size, and writing it to dst (which has that room);
 * the same bytes as hiredis's redisFormatCommandArgv, with no allocation. */
size_t redis_proto_cmd_len(int argc, const size_t *lens);
size_t redis_proto_encode(char *dst, int argc, const char *const *argv, const size_t *lens);

/* The same encoding a part at a time, for a caller that reads a command's
 * arguments one by one (a whole pipeline into one buffer): the array's
 * header ("*<argc>" CRLF, at most REDIS_PROTO_HDR_MAX bytes), then each
 * argument ("$<len>" CRLF, its bytes, CRLF: at most len +
 * REDIS_PROTO_HDR_MAX + 2 bytes); each returns the end of what it wrote. */
#define REDIS_PROTO_HDR_MAX 24
char *redis_proto_put_array(char *dst, int argc);
char *redis_proto_put_arg(char *dst, const char *s, size_t len);
/* An argument whose len bytes the caller already wrote at dst +
 * REDIS_PROTO_INPLACE (where the header of a two-digit length ends): its
 * header goes before them (the bytes moved when len has not two digits),
 * CRLF after; returns the end.  Room as for redis_proto_put_arg. */
#define REDIS_PROTO_INPLACE 5
char *redis_proto_put_arg_inplace(char *dst, size_t len);

#endif
