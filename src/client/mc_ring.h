/* mc_ring.h - a memcached server list and its key -> server mapping.
 *
 * Parses "host[:port[:weight]],..." (port 11211 by default; the weight is
 * accepted and ignored, as libmemcached ignores it under
 * MEMCACHED_BEHAVIOR_KETAMA) and maps keys to servers exactly as libmemcached
 * does for the same list: ketama (MEMCACHED_BEHAVIOR_KETAMA: 100 points per
 * server on a continuum hashed with libhashkit's one-at-a-time function) or
 * modula (that hash modulo the number of servers).  tests/unit/test_mc_ring.c
 * compares both with libmemcached key by key.
 *
 * Pure computation: no sockets, no name resolution, no allocation after
 * mc_ring_new.  mc_ring_pick is safe to call from any thread on a ring that
 * is no longer modified. */
#ifndef LUAMECH_MC_RING_H
#define LUAMECH_MC_RING_H

#include <stddef.h>
#include <stdint.h>

#define MC_RING_HOST_MAX 255          /* bytes of a host name (DNS: 253) */
#define MC_RING_DEFAULT_PORT 11211
#define MC_RING_POINTS_PER_SERVER 100 /* libmemcached's MEMCACHED_POINTS_PER_SERVER */

typedef enum mc_dist { MC_DIST_KETAMA = 0, MC_DIST_MODULA = 1 } mc_dist;

typedef struct mc_ring_server {
    char host[MC_RING_HOST_MAX + 1];
    int port;                         /* 1..65535 */
    uint32_t weight;                  /* as written (0 if none); not used */
} mc_ring_server;

typedef struct mc_ring mc_ring;

/* Parses `servers` into a new ring of at most max_servers servers.  Spaces
 * around an entry are ignored; an empty entry, a space inside one, a port
 * outside 1..65535, a weight outside 0..1000000, a host longer than
 * MC_RING_HOST_MAX, an empty host or a Unix socket path ("/...") is an error
 * naming the entry.  Returns 0, or -1 with a message in err. */
int mc_ring_new(const char *servers, mc_dist dist, size_t max_servers, mc_ring **out,
                char *err, size_t err_len);
void mc_ring_free(mc_ring *r);

size_t mc_ring_count(const mc_ring *r);
const mc_ring_server *mc_ring_server_at(const mc_ring *r, size_t idx);

/* The index of the server that holds `key` (0 with one server). */
uint32_t mc_ring_pick(const mc_ring *r, const char *key, size_t len);

/* libhashkit's default hash (hashkit_one_at_a_time), bytes as plain char. */
uint32_t mc_ring_hash(const char *key, size_t len);

#endif
