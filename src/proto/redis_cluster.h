/* redis_cluster.h - what redis Cluster adds to the protocol, as pure
 * functions: a key's hash slot (CRC16-XMODEM of the key, or of its hash tag
 * "{...}", modulo 16384), which arguments of a command are keys (and the one
 * slot they share), a command as the RESP this repository's encoder writes
 * split back into its arguments, the MOVED and ASK redirections of an error
 * reply, and the CLUSTER SLOTS reply walked range by range.  Never touches
 * sockets, never allocates. */
#ifndef LUAMECH_REDIS_CLUSTER_PROTO_H
#define LUAMECH_REDIS_CLUSTER_PROTO_H

#include <stddef.h>
#include <stdint.h>
#include <hiredis/hiredis.h>

#define REDIS_CLUSTER_SLOTS 16384

/* CRC16-CCITT (XMODEM: polynomial 0x1021, initial value 0), as redis
 * Cluster hashes keys: "123456789" -> 0x31C3. */
uint16_t redis_cluster_crc16(const char *p, size_t n);
/* The hash slot of a key: the CRC16 of the part between the first '{' and
 * the first '}' after it when that part is not empty, else of the whole
 * key, modulo 16384. */
int redis_cluster_key_slot(const char *key, size_t n);

/* Where a command's keys are (argv[0] is its name). */
#define REDIS_CLUSTER_KEYLESS   (-1)   /* no key: any node */
#define REDIS_CLUSTER_CROSSSLOT (-2)   /* keys in different slots (*slot, *other) */
#define REDIS_CLUSTER_REFUSED   (-3)   /* a command cluster mode does not route
                                          (MULTI/EXEC/WATCH, SELECT, XREAD, ...) */
#define REDIS_CLUSTER_BADARGS   (-4)   /* a key count argument that is not one */
/* The slot of the command's keys: 0 with *slot set, or one of the codes
 * above (CROSSSLOT: *slot and *other are two of the slots seen). */
int redis_cluster_cmd_slot(int argc, const char *const *argv, const size_t *lens, int *slot,
                           int *other);

/* One command encoded as redis_proto_encode writes it (an array of bulk
 * strings), split into pointers into buf: returns its argument count
 * (argv/lens filled up to max; call again with room for more when the count
 * is larger), or -1 when buf[0..len) is not exactly one such command. */
int redis_cluster_split(const char *buf, size_t len, const char **argv, size_t *lens, int max);

/* An error reply's redirection: "MOVED <slot> <host>:<port>" -> 1, "ASK
 * <slot> <host>:<port>" -> 2 (with *slot and the address, NUL-terminated,
 * in addr), anything else 0 (addr too small or malformed included). */
#define REDIS_CLUSTER_MOVED 1
#define REDIS_CLUSTER_ASK   2
int redis_cluster_redirect(const char *err, size_t len, int *slot, char *addr, size_t addr_len);

/* A CLUSTER SLOTS reply, range by range: fn(ctx, from, to, host, host_len,
 * port) for each range's master (host_len 0: the node that was asked).
 * Returns 0, fn's first non-zero result, or -1 with a message in err when
 * the reply is not a CLUSTER SLOTS reply (an error reply: its text). */
typedef int (*redis_cluster_range_fn)(void *ctx, int from, int to, const char *host, size_t host_len,
                                      int port);
int redis_cluster_slots_walk(const redisReply *r, redis_cluster_range_fn fn, void *ctx, char *err,
                             size_t err_len);

#endif
