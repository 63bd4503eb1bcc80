/* mc_proto.h - memcached text and meta protocols: pure encoders and an
 * incremental reply parser that reads both kinds of reply.  Bytes in,
 * tokens out.  Nothing here touches sockets, allocates or
 * knows about Lua; the parser says "need more bytes" instead of blocking
 * (in the spirit of memcached's vendor/mcmc). */
#ifndef LUAMECH_MC_PROTO_H
#define LUAMECH_MC_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define MC_KEY_MAX 250
/* Longest command line the encoders write for one key (without value). */
#define MC_LINE_MAX (16 + MC_KEY_MAX + 3 * 21 + 8)

typedef enum mc_kind {
    MC_R_NEED_MORE = 0,  /* not enough bytes for one reply unit */
    MC_R_VALUE,          /* one "VALUE key flags bytes [cas]" item with its data */
    MC_R_END,            /* end of a retrieval reply */
    MC_R_STORED,
    MC_R_NOT_STORED,
    MC_R_EXISTS,
    MC_R_NOT_FOUND,
    MC_R_DELETED,
    MC_R_TOUCHED,
    MC_R_NUMBER,         /* incr/decr result in `number` */
    MC_R_ERROR,          /* "ERROR" (unknown command) */
    MC_R_CLIENT_ERROR,   /* message in msg/msg_len */
    MC_R_SERVER_ERROR,   /* message in msg/msg_len */
    MC_R_BAD,            /* malformed input: the stream cannot be resynchronised */
    /* meta protocol replies; each answers one meta command */
    MC_R_VA,             /* "VA <bytes> <flags>*" with its data: flags, cas, key from f, c, k */
    MC_R_HD,             /* success without a value (stored, deleted, hit without v) */
    MC_R_EN,             /* mg: miss */
    MC_R_NF,             /* not found */
    MC_R_NS,             /* not stored */
    MC_R_EX,             /* exists (cas mismatch) */
    MC_R_MN              /* answer to "mn" */
} mc_kind;

/* 1 for the replies of meta commands (MC_R_VA .. MC_R_MN). */
int mc_kind_is_meta(mc_kind k);

typedef enum mc_cmd {
    MC_SET, MC_ADD, MC_REPLACE, MC_APPEND, MC_PREPEND, MC_CAS
} mc_cmd;

typedef struct mc_reply {
    mc_kind kind;
    const char *key;      /* MC_R_VALUE: points into the parsed buffer */
    size_t key_len;
    uint32_t flags;
    uint64_t cas;         /* MC_R_VALUE from gets, MC_R_VA with a c flag, else 0 */
    const char *data;     /* MC_R_VALUE, MC_R_VA: the value bytes (without trailing \r\n) */
    size_t data_len;
    uint64_t number;      /* MC_R_NUMBER */
    const char *msg;      /* *_ERROR: message text (may be empty) */
    size_t msg_len;
    size_t need_bytes;    /* MC_R_NEED_MORE: total bytes this unit needs, if known, else 0 */
} mc_reply;

/* Parse one reply unit at the start of buf[0..len): a text reply or a meta
 * one (the parser does not know which command was sent; the client checks
 * that the kind fits its request).  Returns the number of
 * bytes consumed (> 0) and fills *r; returns 0 with r->kind == MC_R_NEED_MORE
 * when more input is needed, or 0 with r->kind == MC_R_BAD on garbage.
 * Pointers in *r point into buf and are valid until buf changes. */
size_t mc_parse(const char *buf, size_t len, mc_reply *r);

/* 1 when key is a valid text-protocol key: 1..250 bytes, no space or control
 * characters. */
int mc_key_valid(const char *key, size_t len);

const char *mc_kind_name(mc_kind k);   /* "STORED", "NOT_FOUND", ... */
const char *mc_cmd_name(mc_cmd c);     /* "set", "add", ... */

/* Encoders write one command line ending in "\r\n" into out[0..cap) and return
 * its length, or 0 when cap is too small.  They do not validate keys. */
size_t mc_encode_storage(char *out, size_t cap, mc_cmd cmd, const char *key,
                         size_t key_len, uint32_t flags, int64_t exptime,
                         size_t value_len, uint64_t cas);
/* "get k1 k2 ...\r\n" (or "gets" when with_cas) */
size_t mc_encode_retrieval(char *out, size_t cap, int with_cas,
                           const char *const *keys, const size_t *key_lens,
                           size_t nkeys);
size_t mc_encode_delete(char *out, size_t cap, const char *key, size_t key_len);
size_t mc_encode_arith(char *out, size_t cap, int incr, const char *key,
                       size_t key_len, uint64_t delta);
size_t mc_encode_touch(char *out, size_t cap, const char *key, size_t key_len,
                       int64_t exptime);
/* Meta get: "mg <key> v f[ c][ k]\r\n": the value and its flags, with_cas
 * adds its cas, with_key the key (get_multi's replies name their key).
 * Answered by "VA <bytes> f<flags>[ c<cas>][ k<key>]" + data, or "EN". */
size_t mc_encode_meta_get(char *out, size_t cap, const char *key, size_t key_len,
                          int with_cas, int with_key);

#endif
