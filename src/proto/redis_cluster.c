/* redis_cluster.c - redis Cluster's pure parts (see redis_cluster.h): the
 * CRC16-XMODEM of keys and hash tags, the table of commands whose keys are
 * not simply their first argument (keyless ones, several keys, a key count
 * argument, commands cluster mode refuses), the split of one encoded command
 * back into its arguments, MOVED/ASK error replies and the CLUSTER SLOTS
 * reply.  It does not know about sockets, connections or Lua, and allocates
 * nothing. */
#include "proto/redis_cluster.h"

#include <stdio.h>
#include <string.h>

uint16_t redis_cluster_crc16(const char *p, size_t n) {
    uint16_t crc = 0;
    for (size_t i = 0; i < n; i++) {
        crc ^= (uint16_t)((uint8_t)p[i] << 8);
        for (int b = 0; b < 8; b++)
            crc = (uint16_t)(crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1);
    }
    return crc;
}

int redis_cluster_key_slot(const char *key, size_t n) {
    const char *open = memchr(key, '{', n);
    if (open) {
        size_t from = (size_t)(open - key) + 1;
        const char *close = memchr(open + 1, '}', n - from);
        if (close && close > open + 1) {
            key = open + 1;
            n = (size_t)(close - key);
        }
    }
    return redis_cluster_crc16(key, n) & (REDIS_CLUSTER_SLOTS - 1);
}

/* ---- where a command's keys are ---------------------------------------- */

enum { RC_KEYLESS, RC_REFUSED, RC_RANGE, RC_NUMKEYS };

/* first..last step `step` (last -1: to the end, -2: all but the last
 * argument); RC_NUMKEYS: the key count at argument numkeys_at, the keys
 * right after it, and argument `first` too when it is not 0. */
typedef struct rc_spec {
    const char *name;           /* lowercase; the table is sorted by strcmp */
    signed char kind, first, last, step, numkeys_at;
} rc_spec;

static const rc_spec rc_specs[] = {
    {"acl", RC_KEYLESS, 0, 0, 0, 0},
    {"asking", RC_KEYLESS, 0, 0, 0, 0},
    {"bgrewriteaof", RC_KEYLESS, 0, 0, 0, 0},
    {"bgsave", RC_KEYLESS, 0, 0, 0, 0},
    {"blmove", RC_RANGE, 1, 2, 1, 0},
    {"blmpop", RC_NUMKEYS, 0, 0, 0, 2},
    {"blpop", RC_RANGE, 1, -2, 1, 0},
    {"brpop", RC_RANGE, 1, -2, 1, 0},
    {"brpoplpush", RC_RANGE, 1, 2, 1, 0},
    {"bzmpop", RC_NUMKEYS, 0, 0, 0, 2},
    {"bzpopmax", RC_RANGE, 1, -2, 1, 0},
    {"bzpopmin", RC_RANGE, 1, -2, 1, 0},
    {"client", RC_KEYLESS, 0, 0, 0, 0},
    {"cluster", RC_KEYLESS, 0, 0, 0, 0},
    {"command", RC_KEYLESS, 0, 0, 0, 0},
    {"config", RC_KEYLESS, 0, 0, 0, 0},
    {"copy", RC_RANGE, 1, 2, 1, 0},
    {"dbsize", RC_KEYLESS, 0, 0, 0, 0},
    {"debug", RC_KEYLESS, 0, 0, 0, 0},
    {"del", RC_RANGE, 1, -1, 1, 0},
    {"discard", RC_REFUSED, 0, 0, 0, 0},
    {"echo", RC_KEYLESS, 0, 0, 0, 0},
    {"eval", RC_NUMKEYS, 0, 0, 0, 2},
    {"eval_ro", RC_NUMKEYS, 0, 0, 0, 2},
    {"evalsha", RC_NUMKEYS, 0, 0, 0, 2},
    {"evalsha_ro", RC_NUMKEYS, 0, 0, 0, 2},
    {"exec", RC_REFUSED, 0, 0, 0, 0},
    {"exists", RC_RANGE, 1, -1, 1, 0},
    {"fcall", RC_NUMKEYS, 0, 0, 0, 2},
    {"fcall_ro", RC_NUMKEYS, 0, 0, 0, 2},
    {"flushall", RC_KEYLESS, 0, 0, 0, 0},
    {"flushdb", RC_KEYLESS, 0, 0, 0, 0},
    {"function", RC_KEYLESS, 0, 0, 0, 0},
    {"geosearchstore", RC_RANGE, 1, 2, 1, 0},
    {"hello", RC_KEYLESS, 0, 0, 0, 0},
    {"info", RC_KEYLESS, 0, 0, 0, 0},
    {"keys", RC_KEYLESS, 0, 0, 0, 0},
    {"lastsave", RC_KEYLESS, 0, 0, 0, 0},
    {"latency", RC_KEYLESS, 0, 0, 0, 0},
    {"lcs", RC_RANGE, 1, 2, 1, 0},
    {"lmove", RC_RANGE, 1, 2, 1, 0},
    {"lmpop", RC_NUMKEYS, 0, 0, 0, 1},
    {"memory", RC_RANGE, 2, 2, 1, 0},
    {"mget", RC_RANGE, 1, -1, 1, 0},
    {"migrate", RC_REFUSED, 0, 0, 0, 0},
    {"module", RC_KEYLESS, 0, 0, 0, 0},
    {"move", RC_REFUSED, 0, 0, 0, 0},
    {"mset", RC_RANGE, 1, -1, 2, 0},
    {"msetnx", RC_RANGE, 1, -1, 2, 0},
    {"multi", RC_REFUSED, 0, 0, 0, 0},
    {"object", RC_RANGE, 2, 2, 1, 0},
    {"pfcount", RC_RANGE, 1, -1, 1, 0},
    {"pfmerge", RC_RANGE, 1, -1, 1, 0},
    {"ping", RC_KEYLESS, 0, 0, 0, 0},
    {"publish", RC_KEYLESS, 0, 0, 0, 0},
    {"pubsub", RC_KEYLESS, 0, 0, 0, 0},
    {"randomkey", RC_KEYLESS, 0, 0, 0, 0},
    {"readonly", RC_KEYLESS, 0, 0, 0, 0},
    {"readwrite", RC_KEYLESS, 0, 0, 0, 0},
    {"rename", RC_RANGE, 1, 2, 1, 0},
    {"renamenx", RC_RANGE, 1, 2, 1, 0},
    {"role", RC_KEYLESS, 0, 0, 0, 0},
    {"rpoplpush", RC_RANGE, 1, 2, 1, 0},
    {"save", RC_KEYLESS, 0, 0, 0, 0},
    {"scan", RC_KEYLESS, 0, 0, 0, 0},
    {"script", RC_KEYLESS, 0, 0, 0, 0},
    {"sdiff", RC_RANGE, 1, -1, 1, 0},
    {"sdiffstore", RC_RANGE, 1, -1, 1, 0},
    {"select", RC_REFUSED, 0, 0, 0, 0},
    {"shutdown", RC_KEYLESS, 0, 0, 0, 0},
    {"sinter", RC_RANGE, 1, -1, 1, 0},
    {"sintercard", RC_NUMKEYS, 0, 0, 0, 1},
    {"sinterstore", RC_RANGE, 1, -1, 1, 0},
    {"slowlog", RC_KEYLESS, 0, 0, 0, 0},
    {"smove", RC_RANGE, 1, 2, 1, 0},
    {"sunion", RC_RANGE, 1, -1, 1, 0},
    {"sunionstore", RC_RANGE, 1, -1, 1, 0},
    {"swapdb", RC_REFUSED, 0, 0, 0, 0},
    {"time", RC_KEYLESS, 0, 0, 0, 0},
    {"touch", RC_RANGE, 1, -1, 1, 0},
    {"unlink", RC_RANGE, 1, -1, 1, 0},
    {"unwatch", RC_REFUSED, 0, 0, 0, 0},
    {"wait", RC_KEYLESS, 0, 0, 0, 0},
    {"watch", RC_REFUSED, 0, 0, 0, 0},
    {"xgroup", RC_RANGE, 2, 2, 1, 0},
    {"xinfo", RC_RANGE, 2, 2, 1, 0},
    {"xread", RC_REFUSED, 0, 0, 0, 0},
    {"xreadgroup", RC_REFUSED, 0, 0, 0, 0},
    {"zdiff", RC_NUMKEYS, 0, 0, 0, 1},
    {"zdiffstore", RC_NUMKEYS, 1, 1, 1, 2},
    {"zinter", RC_NUMKEYS, 0, 0, 0, 1},
    {"zinterstore", RC_NUMKEYS, 1, 1, 1, 2},
    {"zmpop", RC_NUMKEYS, 0, 0, 0, 1},
    {"zrangestore", RC_RANGE, 1, 2, 1, 0},
    {"zunion", RC_NUMKEYS, 0, 0, 0, 1},
    {"zunionstore", RC_NUMKEYS, 1, 1, 1, 2},
};

/* The table's entry of the command name s (any case), or NULL: its first
 * argument is its key. */
static const rc_spec *rc_lookup(const char *s, size_t len) {
    char low[20];
    if (len == 0 || len >= sizeof low) return NULL;
    for (size_t i = 0; i < len; i++) low[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
    low[len] = 0;
    size_t lo = 0, hi = sizeof rc_specs / sizeof rc_specs[0];
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(low, rc_specs[mid].name);
        if (c == 0) return &rc_specs[mid];
        if (c < 0) hi = mid;
        else lo = mid + 1;
    }
    return NULL;
}

/* Fold the slot of key i into *slot (-1: none yet); 0, or CROSSSLOT. */
static int rc_fold(const char *const *argv, const size_t *lens, int i, int *slot, int *other) {
    int s = redis_cluster_key_slot(argv[i], lens[i]);
    if (*slot >= 0 && s != *slot) {
        *other = s;
        return REDIS_CLUSTER_CROSSSLOT;
    }
    *slot = s;
    return 0;
}

/* A non-negative decimal key count; -1 when it is not one. */
static long rc_count(const char *s, size_t n) {
    long v = 0;
    if (n == 0 || n > 9) return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

static int rc_numkeys(const rc_spec *sp, int argc, const char *const *argv, const size_t *lens,
                      int *slot, int *other) {
    int at = sp->numkeys_at;
    if (at >= argc) return REDIS_CLUSTER_BADARGS;
    long k = rc_count(argv[at], lens[at]);
    if (k < 0 || k > argc - at - 1) return REDIS_CLUSTER_BADARGS;
    if (sp->first > 0 && sp->first < argc && rc_fold(argv, lens, sp->first, slot, other) != 0)
        return REDIS_CLUSTER_CROSSSLOT;
    for (int i = at + 1; i <= at + (int)k; i++)
        if (rc_fold(argv, lens, i, slot, other) != 0) return REDIS_CLUSTER_CROSSSLOT;
    return *slot >= 0 ? 0 : REDIS_CLUSTER_KEYLESS;
}

int redis_cluster_cmd_slot(int argc, const char *const *argv, const size_t *lens, int *slot,
                           int *other) {
    const rc_spec *sp = argc > 0 ? rc_lookup(argv[0], lens[0]) : NULL;
    *slot = *other = -1;
    if (sp == NULL) {
        if (argc < 2) return REDIS_CLUSTER_KEYLESS;
        *slot = redis_cluster_key_slot(argv[1], lens[1]);
        return 0;
    }
    if (sp->kind == RC_KEYLESS) return REDIS_CLUSTER_KEYLESS;
    if (sp->kind == RC_REFUSED) return REDIS_CLUSTER_REFUSED;
    if (sp->kind == RC_NUMKEYS) return rc_numkeys(sp, argc, argv, lens, slot, other);
    int last = sp->last == -1 ? argc - 1 : sp->last == -2 ? argc - 2 : sp->last;
    if (last > argc - 1) last = argc - 1;
    for (int i = sp->first; i <= last; i += sp->step)
        if (rc_fold(argv, lens, i, slot, other) != 0) return REDIS_CLUSTER_CROSSSLOT;
    return *slot >= 0 ? 0 : REDIS_CLUSTER_KEYLESS;
}

/* ---- an encoded command, split ----------------------------------------- */

/* "<c><digits>\r\n" at *p (before end): the number, *p after the line;
 * -1 when malformed. */
static long rc_header(const char **p, const char *end, char c) {
    const char *q = *p;
    long v = 0;
    if (q >= end || *q++ != c || q >= end) return -1;
    const char *digits = q;
    while (q < end && *q >= '0' && *q <= '9' && q - digits < 18) v = v * 10 + (*q++ - '0');
    if (q == digits || end - q < 2 || q[0] != '\r' || q[1] != '\n') return -1;
    *p = q + 2;
    return v;
}

int redis_cluster_split(const char *buf, size_t len, const char **argv, size_t *lens, int max) {
    const char *p = buf, *end = buf + len;
    long argc = rc_header(&p, end, '*');
    if (argc < 1 || argc > 0x7fffffff) return -1;
    for (long i = 0; i < argc; i++) {
        long n = rc_header(&p, end, '$');
        if (n < 0 || end - p < n + 2 || p[n] != '\r' || p[n + 1] != '\n') return -1;
        if (i < max) {
            argv[i] = p;
            lens[i] = (size_t)n;
        }
        p += n + 2;
    }
    return p == end ? (int)argc : -1;
}

/* ---- replies ------------------------------------------------------------ */

int redis_cluster_redirect(const char *err, size_t len, int *slot, char *addr, size_t addr_len) {
    int kind;
    size_t i;
    if (len > 6 && memcmp(err, "MOVED ", 6) == 0) kind = REDIS_CLUSTER_MOVED, i = 6;
    else if (len > 4 && memcmp(err, "ASK ", 4) == 0) kind = REDIS_CLUSTER_ASK, i = 4;
    else return 0;
    long s = 0;
    size_t d0 = i;
    while (i < len && err[i] >= '0' && err[i] <= '9' && i - d0 < 6) s = s * 10 + (err[i++] - '0');
    if (i == d0 || s >= REDIS_CLUSTER_SLOTS || i >= len || err[i] != ' ') return 0;
    i++;
    size_t alen = len - i;
    if (alen == 0 || alen >= addr_len || memchr(err + i, ' ', alen) || !memchr(err + i, ':', alen))
        return 0;
    memcpy(addr, err + i, alen);
    addr[alen] = 0;
    *slot = (int)s;
    return kind;
}

static int rc_bad(char *err, size_t err_len, const char *why) {
    snprintf(err, err_len, "%s", why);
    return -1;
}

int redis_cluster_slots_walk(const redisReply *r, redis_cluster_range_fn fn, void *ctx, char *err,
                             size_t err_len) {
    if (r->type == REDIS_REPLY_ERROR) {
        snprintf(err, err_len, "%.*s", (int)(r->len < 200 ? r->len : 200), r->str);
        return -1;
    }
    if (r->type != REDIS_REPLY_ARRAY) return rc_bad(err, err_len, "CLUSTER SLOTS: not an array");
    for (size_t i = 0; i < r->elements; i++) {
        const redisReply *e = r->element[i];
        if (e->type != REDIS_REPLY_ARRAY || e->elements < 3 || e->element[0]->type != REDIS_REPLY_INTEGER ||
            e->element[1]->type != REDIS_REPLY_INTEGER || e->element[2]->type != REDIS_REPLY_ARRAY)
            return rc_bad(err, err_len, "CLUSTER SLOTS: a range is not [from, to, [host, port, ...], ...]");
        long long from = e->element[0]->integer, to = e->element[1]->integer;
        const redisReply *m = e->element[2];
        if (from < 0 || to < from || to >= REDIS_CLUSTER_SLOTS || m->elements < 2 ||
            m->element[0]->type != REDIS_REPLY_STRING || m->element[1]->type != REDIS_REPLY_INTEGER ||
            m->element[1]->integer < 1 || m->element[1]->integer > 65535)
            return rc_bad(err, err_len, "CLUSTER SLOTS: a range's slots or master are malformed");
        int rc = fn(ctx, (int)from, (int)to, m->element[0]->str, m->element[0]->len,
                    (int)m->element[1]->integer);
        if (rc != 0) return rc;
    }
    return 0;
}
