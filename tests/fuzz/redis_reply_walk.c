/* redis_reply_walk.c - see redis_reply_walk.h: hashes a redis reply tree
 * and aborts when it breaks luamech's reply limits.  It does not parse
 * bytes (the harnesses' readers do) and keeps no state. */
#include "redis_reply_walk.h"

#include <stdlib.h>

uint64_t fz_redis_walk(const redisReply *r, const redis_limits *l, int depth, uint64_t *elements,
                       unsigned flags) {
    uint64_t h = (uint64_t)r->type * 1000003u;
    if (r->type == REDIS_REPLY_STRING || r->type == REDIS_REPLY_STATUS || r->type == REDIS_REPLY_ERROR) {
        if (r->len > l->max_reply_bytes) abort();
        if (flags & FZ_REDIS_WALK_LEN) h ^= r->len;
        for (size_t i = 0; i < r->len; i++) h = h * 131 + (unsigned char)r->str[i];
    } else if (r->type == REDIS_REPLY_INTEGER) {
        h ^= (uint64_t)r->integer;
    } else if (r->type == REDIS_REPLY_ARRAY) {
        if (depth + 1 > l->max_depth) abort();
        *elements += r->elements;
        if (*elements > l->max_elements) abort();
        for (size_t i = 0; i < r->elements; i++)
            h = h * 31 + fz_redis_walk(r->element[i], l, depth + 1, elements, flags);
    } else if ((flags & FZ_REDIS_WALK_RESP2) && r->type != REDIS_REPLY_NIL) {
        abort();                  /* RESP2 has no other type */
    }
    return h;
}
