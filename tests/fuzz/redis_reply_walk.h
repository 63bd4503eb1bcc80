/* redis_reply_walk.h - the redis fuzz harnesses' one reply walk
 * (fuzz_redis_proto.c, fuzz_redis_scan.c): a hash of a reply tree that two
 * feedings of the same stream must agree on, aborting (libFuzzer's finding)
 * when the reply breaks a limit.  Harness support only; not part of
 * luamech. */
#ifndef LUAMECH_FUZZ_REDIS_REPLY_WALK_H
#define LUAMECH_FUZZ_REDIS_REPLY_WALK_H

#include <stdint.h>

#include "proto/redis_proto.h"

/* How strictly fz_redis_walk hashes and checks (each harness keeps what it
 * checked before the walk was shared). */
enum {
    FZ_REDIS_WALK_LEN = 1,      /* a string's length is mixed into its hash */
    FZ_REDIS_WALK_RESP2 = 2     /* a type other than RESP2's five aborts */
};

/* The hash of r at nesting depth (0 for a whole reply); *elements sums the
 * array elements met so far (start at 0).  Aborts when a string is longer
 * than l->max_reply_bytes, arrays nest deeper than l->max_depth or hold
 * more than l->max_elements elements in all. */
uint64_t fz_redis_walk(const redisReply *r, const redis_limits *l, int depth, uint64_t *elements,
                       unsigned flags);

#endif
