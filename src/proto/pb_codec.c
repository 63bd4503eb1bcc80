/* pb_codec.c - the protocol buffers wire format, walking a pb_schema:
 * decodes bytes into pb.h's neutral tree (varints, zigzag, fixed32/64,
 * float/double, length-delimited strings, bytes and messages, packed and
 * unpacked repeated fields, map entries, groups; unknown fields and known
 * ones on a foreign wire type skipped; one value per singular field, a
 * message that comes again merged; limits on depth, size and memory; one
 * message per malformed input) and encodes such a tree (sizes first, then
 * one pass of writing), checking integer ranges and oneofs and leaving out
 * proto3 defaults of implicit presence.  Also the arena the trees live in.
 * It does not know Lua tables (the binding builds and reads the trees),
 * sockets, or gRPC framing (grpc_frame.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/pb.h"

/* ---- arena ---- */

struct pb_arena_chunk {
    pb_arena_chunk *next;
    size_t cap, off;
    max_align_t data[];
};

void pb_arena_reset(pb_arena *a) {
    for (pb_arena_chunk *c = a->head; c; c = c->next) c->off = 0;
    a->cur = a->head;
    a->used = 0;
}

void pb_arena_free(pb_arena *a) {
    pb_arena_chunk *c = a->head;
    while (c) {
        pb_arena_chunk *n = c->next;
        free(c);
        c = n;
    }
    memset(a, 0, sizeof(*a));
}

void *pb_arena_alloc(pb_arena *a, size_t n) {
    n = (n + 15) & ~(size_t)15;
    size_t limit = a->limit ? a->limit : PB_ARENA_LIMIT;
    if (n > limit || a->used + n > limit) return NULL;
    while (a->cur && a->cur->off + n > a->cur->cap) a->cur = a->cur->next;
    if (!a->cur) {
        size_t cap = n > 65536 ? n : 65536;
        pb_arena_chunk *c = malloc(sizeof(*c) + cap);
        if (!c) return NULL;
        c->next = NULL;
        c->cap = cap;
        c->off = 0;
        pb_arena_chunk **tail = &a->head;
        while (*tail) tail = &(*tail)->next;
        *tail = c;
        a->cur = c;
    }
    void *p = (char *)a->cur->data + a->cur->off;
    a->cur->off += n;
    a->used += n;
    return p;
}

int pb_kind_of(uint8_t t) {
    switch (t) {
    case PB_DOUBLE: case PB_FLOAT: return PB_V_DOUBLE;
    case PB_INT64: case PB_INT32: case PB_SFIXED32: case PB_SFIXED64: case PB_SINT32: case PB_SINT64:
    case PB_ENUM: return PB_V_INT;
    case PB_UINT64: case PB_FIXED64: case PB_FIXED32: case PB_UINT32: return PB_V_UINT;
    case PB_BOOL: return PB_V_BOOL;
    case PB_STRING: case PB_BYTES: return PB_V_BYTES;
    default: return PB_V_MSG;
    }
}

pb_val *pb_val_new(pb_arena *a, const pb_field *f) {
    pb_val *v = pb_arena_alloc(a, sizeof(pb_val));
    if (!v) return NULL;
    memset(v, 0, sizeof(*v));
    v->f = f;
    v->kind = (uint8_t)pb_kind_of(f->type);
    if (v->kind == PB_V_MSG) v->v.m.msg = f->ref;
    return v;
}

pb_val *pb_val_root(pb_arena *a, int32_t msg) {
    pb_val *v = pb_arena_alloc(a, sizeof(pb_val));
    if (!v) return NULL;
    memset(v, 0, sizeof(*v));
    v->kind = PB_V_MSG;
    v->v.m.msg = msg;
    return v;
}

void pb_val_append(pb_val *parent, pb_val *child) {
    child->next = NULL;
    if (parent->v.m.last) parent->v.m.last->next = child;
    else parent->v.m.first = child;
    parent->v.m.last = child;
}

/* ---- wire types ---- */

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_SGROUP = 3, WT_EGROUP = 4, WT_I32 = 5 };

static int pb_wire_type(uint8_t t) {
    switch (t) {
    case PB_DOUBLE: case PB_FIXED64: case PB_SFIXED64: return WT_I64;
    case PB_FLOAT: case PB_FIXED32: case PB_SFIXED32: return WT_I32;
    case PB_STRING: case PB_BYTES: case PB_MESSAGE: return WT_LEN;
    case PB_GROUP: return WT_SGROUP;
    default: return WT_VARINT;
    }
}

static const char *pb_wt_name(int wt) {
    static const char *const n[] = {"varint", "64-bit", "length-delimited", "start-group", "end-group",
                                    "32-bit", "6 (invalid)", "7 (invalid)"};
    return n[wt & 7];
}

/* ---- decoding ---- */

typedef struct pb_dec_ix pb_dec_ix;

typedef struct pb_dec {
    const pb_schema *s;
    pb_arena *a;
    int max_depth;
    const uint8_t *start;
    char *err;
    size_t err_len;
} pb_dec;

static int pb_fail(pb_dec *d, const uint8_t *at, const char *fmt, ...) {
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    snprintf(d->err, d->err_len, "protobuf: %s (at byte %zu)", msg, (size_t)(at - d->start));
    return -1;
}

static int pb_rd_varint(const uint8_t **pp, const uint8_t *end, uint64_t *out) {
    const uint8_t *p = *pp;
    uint64_t v = 0;
    for (int i = 0; i < 10; i++) {
        if (p >= end) return -1;
        uint8_t b = *p++;
        if (i == 9 && b > 1) return -1;
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *pp = p;
            *out = v;
            return 0;
        }
    }
    return -1;
}

static uint64_t pb_rd_le(const uint8_t *p, int n) {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

static int pb_skip(pb_dec *d, const uint8_t **pp, const uint8_t *end, int wt, uint32_t num, int depth);

/* Skips a group's fields up to its end tag (number num). */
static int pb_skip_group(pb_dec *d, const uint8_t **pp, const uint8_t *end, uint32_t num, int depth) {
    if (depth > d->max_depth) return pb_fail(d, *pp, "groups nested deeper than %d", d->max_depth);
    while (*pp < end) {
        const uint8_t *at = *pp;
        uint64_t key;
        if (pb_rd_varint(pp, end, &key) < 0) return pb_fail(d, at, "truncated or overlong field key");
        if ((key & 7) == WT_EGROUP) {
            if ((key >> 3) != num) return pb_fail(d, at, "end of group %u inside group %u", (unsigned)(key >> 3), num);
            return 0;
        }
        if (pb_skip(d, pp, end, (int)(key & 7), (uint32_t)(key >> 3), depth + 1) < 0) return -1;
    }
    return pb_fail(d, *pp, "group %u has no end", num);
}

static int pb_skip(pb_dec *d, const uint8_t **pp, const uint8_t *end, int wt, uint32_t num, int depth) {
    const uint8_t *at = *pp;
    uint64_t v;
    switch (wt) {
    case WT_VARINT:
        if (pb_rd_varint(pp, end, &v) < 0) return pb_fail(d, at, "truncated or overlong varint");
        return 0;
    case WT_I64:
    case WT_I32: {
        size_t n = wt == WT_I64 ? 8 : 4;
        if ((size_t)(end - *pp) < n) return pb_fail(d, at, "truncated %s value", pb_wt_name(wt));
        *pp += n;
        return 0;
    }
    case WT_LEN:
        if (pb_rd_varint(pp, end, &v) < 0) return pb_fail(d, at, "truncated length");
        if (v > (uint64_t)(end - *pp)) return pb_fail(d, at, "length %llu past the end", (unsigned long long)v);
        *pp += v;
        return 0;
    case WT_SGROUP:
        return pb_skip_group(d, pp, end, num, depth);
    case WT_EGROUP:
        return pb_fail(d, at, "end of group %u outside any group", num);
    default:
        return pb_fail(d, at, "invalid wire type %d (field %u)", wt, num);
    }
}

/* The value of a varint field of type t. */
static void pb_set_varint(pb_val *v, uint8_t t, uint64_t raw) {
    switch (t) {
    case PB_INT32: case PB_ENUM: v->v.i = (int32_t)(uint32_t)raw; break;
    case PB_INT64: v->v.i = (int64_t)raw; break;
    case PB_UINT32: v->v.u = (uint32_t)raw; break;
    case PB_UINT64: v->v.u = raw; break;
    case PB_SINT32: {
        uint32_t x = (uint32_t)raw;
        v->v.i = (int32_t)((x >> 1) ^ (~(x & 1) + 1));
        break;
    }
    case PB_SINT64: v->v.i = (int64_t)((raw >> 1) ^ (~(raw & 1) + 1)); break;
    case PB_BOOL: v->v.b = raw != 0; break;
    }
}

static void pb_set_fixed(pb_val *v, uint8_t t, uint64_t raw) {
    switch (t) {
    case PB_FIXED32: case PB_FIXED64: v->v.u = raw; break;
    case PB_SFIXED32: v->v.i = (int32_t)(uint32_t)raw; break;
    case PB_SFIXED64: v->v.i = (int64_t)raw; break;
    case PB_FLOAT: {
        uint32_t x = (uint32_t)raw;
        float fl;
        memcpy(&fl, &x, 4);
        v->v.d = fl;
        break;
    }
    case PB_DOUBLE: memcpy(&v->v.d, &raw, 8); break;
    }
}

/* Which singular fields a message being decoded holds: a bit per field
 * (by index in its pb_msg), and, from the first field that comes twice,
 * each one's value (one walk over the message's values finds them). */
struct pb_dec_ix {
    pb_val **last;
    uint8_t held[];
};

static void pb_dec_mark(pb_dec_ix *ix, size_t i, int on) {
    if (on) ix->held[i / 8] |= (uint8_t)(1u << (i % 8));
    else ix->held[i / 8] &= (uint8_t)~(1u << (i % 8));
    if (ix->last && !on) ix->last[i] = NULL;
}

/* ix->last of parent: the value of each singular field it holds. */
static int pb_dec_index(pb_dec *d, pb_val *parent, const pb_msg *m, const uint8_t *at) {
    pb_dec_ix *ix = parent->v.m.ix;
    ix->last = pb_arena_alloc(d->a, m->nfields * sizeof(pb_val *));
    if (!ix->last) return pb_fail(d, at, "too many values (memory limit)");
    memset(ix->last, 0, m->nfields * sizeof(pb_val *));
    for (pb_val *c = parent->v.m.first; c; c = c->next)
        if (!c->f->repeated) ix->last[c->f - m->fields] = c;
    return 0;
}

/* The value parent holds already for its singular field f in *held, or
 * NULL (f is then marked as held: the caller appends its value next); -1
 * past the memory limit. */
static int pb_dec_held(pb_dec *d, pb_val *parent, const pb_field *f, const uint8_t *at, pb_val **held) {
    const pb_msg *m = pb_schema_msg(d->s, parent->v.m.msg);
    size_t i = (size_t)(f - m->fields);
    pb_dec_ix *ix = parent->v.m.ix;
    *held = NULL;
    if (!ix) {
        size_t n = sizeof(*ix) + (m->nfields + 7) / 8;
        if (!(ix = pb_arena_alloc(d->a, n))) return pb_fail(d, at, "too many values (memory limit)");
        memset(ix, 0, n);
        parent->v.m.ix = ix;
    }
    if (!(ix->held[i / 8] & (1u << (i % 8)))) {
        pb_dec_mark(ix, i, 1);
        return 0;
    }
    if (!ix->last && pb_dec_index(d, parent, m, at) < 0) return -1;
    *held = ix->last[i];
    return 0;
}

/* Appends a new value v (a member of a oneof replaces another one in
 * pb_dec_target, before it gets here). */
static void pb_dec_append(pb_dec *d, pb_val *parent, pb_val *v) {
    pb_dec_ix *ix = parent->v.m.ix;
    pb_val_append(parent, v);
    if (ix && ix->last && !v->f->repeated) {
        const pb_msg *m = pb_schema_msg(d->s, parent->v.m.msg);
        ix->last[v->f - m->fields] = v;
    }
}

/* The value of another member of f's oneof that parent holds, unmarked
 * and made a fresh value of f in place (the last member on the wire wins,
 * as in every protobuf implementation; a message member that comes back
 * after another starts afresh): one step per field of the message, not per
 * value read, so alternating members cost no walk.  NULL when none is
 * held; -1 past the memory limit. */
static int pb_dec_oneof_swap(pb_dec *d, pb_val *parent, const pb_field *f, const uint8_t *at, pb_val **out) {
    const pb_msg *m = pb_schema_msg(d->s, parent->v.m.msg);
    pb_dec_ix *ix = parent->v.m.ix;
    *out = NULL;
    for (size_t i = 0; i < m->nfields; i++) {
        const pb_field *o = &m->fields[i];
        if (o == f || o->oneof != f->oneof || !(ix->held[i / 8] & (1u << (i % 8)))) continue;
        if (!ix->last && pb_dec_index(d, parent, m, at) < 0) return -1;
        pb_val *x = ix->last[i], *next = x->next;
        pb_dec_mark(ix, i, 0);
        memset(x, 0, sizeof *x);
        x->f = f;
        x->kind = (uint8_t)pb_kind_of(f->type);
        if (x->kind == PB_V_MSG) x->v.m.msg = f->ref;
        x->next = next;
        ix->last[f - m->fields] = x;
        *out = x;
        return 0;
    }
    return 0;
}

/* The value of singular field f parent holds (*fresh 0), or a new one
 * (*fresh 1: append it once read), or NULL with the error set. */
static pb_val *pb_dec_target(pb_dec *d, pb_val *parent, const pb_field *f, const uint8_t *at, int *fresh) {
    pb_val *v = NULL;
    if (!f->repeated && pb_dec_held(d, parent, f, at, &v) < 0) return NULL;
    if (!v && f->oneof >= 0 && !f->repeated && pb_dec_oneof_swap(d, parent, f, at, &v) < 0) return NULL;
    *fresh = !v;
    if (!v && !(v = pb_val_new(d->a, f)))
        pb_fail(d, at, "too many values (memory limit %zu bytes)", d->a->limit ? d->a->limit : (size_t)PB_ARENA_LIMIT);
    return v;
}

/* One scalar (not length-delimited) value of f at *pp, appended to parent
 * (a singular one replaces the value parent holds). */
static int pb_dec_scalar(pb_dec *d, const pb_field *f, const uint8_t **pp, const uint8_t *end, pb_val *parent) {
    const uint8_t *at = *pp;
    int fresh;
    pb_val *v = pb_dec_target(d, parent, f, at, &fresh);
    if (!v) return -1;
    int wt = pb_wire_type(f->type);
    if (wt == WT_VARINT) {
        uint64_t raw;
        if (pb_rd_varint(pp, end, &raw) < 0) return pb_fail(d, at, "field %s: truncated or overlong varint", f->name);
        pb_set_varint(v, f->type, raw);
    } else {
        size_t n = wt == WT_I64 ? 8 : 4;
        if ((size_t)(end - *pp) < n) return pb_fail(d, at, "field %s: truncated %s value", f->name, pb_wt_name(wt));
        pb_set_fixed(v, f->type, pb_rd_le(*pp, (int)n));
        *pp += n;
    }
    if (fresh) pb_dec_append(d, parent, v);
    return 0;
}

static int pb_dec_msg(pb_dec *d, pb_val *parent, const uint8_t **pp, const uint8_t *end, int depth,
                      int64_t group);

static int pb_dec_packed(pb_dec *d, const pb_field *f, const uint8_t *p, const uint8_t *end, pb_val *parent) {
    while (p < end)
        if (pb_dec_scalar(d, f, &p, end, parent) < 0) return -1;
    return 0;
}

/* A message (group: up to its end tag numbered group; else: up to end) of
 * field f.  A singular one that parent already holds is merged into it, as
 * the encoding guide says: its fields are read into the same value, so
 * scalars read later win, repeated fields append, messages merge in turn. */
static int pb_dec_sub(pb_dec *d, const pb_field *f, const uint8_t **pp, const uint8_t *end, pb_val *parent,
                      int depth, int64_t group, const uint8_t *at) {
    int fresh;
    pb_val *v = pb_dec_target(d, parent, f, at, &fresh);
    if (!v || pb_dec_msg(d, v, pp, end, depth + 1, group) < 0) return -1;
    if (fresh) pb_dec_append(d, parent, v);
    return 0;
}

static int pb_dec_len(pb_dec *d, const pb_field *f, const uint8_t **pp, const uint8_t *end, pb_val *parent,
                      int depth) {
    const uint8_t *at = *pp;
    uint64_t n;
    if (pb_rd_varint(pp, end, &n) < 0) return pb_fail(d, at, "field %s: truncated length", f->name);
    if (n > (uint64_t)(end - *pp))
        return pb_fail(d, at, "field %s: length %llu past the end", f->name, (unsigned long long)n);
    const uint8_t *p = *pp, *e = p + n;
    *pp = e;
    if (f->type != PB_STRING && f->type != PB_BYTES && f->type != PB_MESSAGE) return pb_dec_packed(d, f, p, e, parent);
    if (f->type == PB_MESSAGE) return pb_dec_sub(d, f, &p, e, parent, depth, -1, at);
    int fresh;
    pb_val *v = pb_dec_target(d, parent, f, at, &fresh);
    if (!v) return -1;
    v->v.s.p = (const char *)p;
    v->v.s.n = (size_t)n;
    if (fresh) pb_dec_append(d, parent, v);
    return 0;
}

static int pb_dec_field(pb_dec *d, const pb_field *f, int wt, const uint8_t **pp, const uint8_t *end,
                        pb_val *parent, int depth, const uint8_t *at) {
    int want = pb_wire_type(f->type);
    if (wt == WT_LEN && (want == WT_LEN || (f->repeated && want != WT_SGROUP)))
        return pb_dec_len(d, f, pp, end, parent, depth);
    if (wt != want) return pb_skip(d, pp, end, wt, f->number, depth);     /* as an unknown field */
    if (wt == WT_SGROUP) return pb_dec_sub(d, f, pp, end, parent, depth, f->number, at);
    return pb_dec_scalar(d, f, pp, end, parent);
}

/* The fields of parent's message up to end, or, in a group, to its end tag. */
static int pb_dec_msg(pb_dec *d, pb_val *parent, const uint8_t **pp, const uint8_t *end, int depth,
                      int64_t group) {
    if (depth > d->max_depth) return pb_fail(d, *pp, "messages nested deeper than %d", d->max_depth);
    const pb_msg *m = pb_schema_msg(d->s, parent->v.m.msg);
    while (*pp < end) {
        const uint8_t *at = *pp;
        uint64_t key;
        if (pb_rd_varint(pp, end, &key) < 0) return pb_fail(d, at, "truncated or overlong field key");
        uint64_t num = key >> 3;
        int wt = (int)(key & 7);
        if (num == 0 || num > 536870911u) return pb_fail(d, at, "field number %llu", (unsigned long long)num);
        if (wt > WT_I32) return pb_fail(d, at, "invalid wire type %d (field %u)", wt, (unsigned)num);
        if (wt == WT_EGROUP) {
            if (group == (int64_t)num) return 0;
            return pb_fail(d, at, "end of group %u outside its group", (unsigned)num);
        }
        const pb_field *f = pb_msg_field_by_number(m, (uint32_t)num);
        int rc = f ? pb_dec_field(d, f, wt, pp, end, parent, depth, at)
                   : pb_skip(d, pp, end, wt, (uint32_t)num, depth);
        if (rc < 0) return -1;
    }
    if (group >= 0) return pb_fail(d, *pp, "group %lld has no end", (long long)group);
    return 0;
}

int pb_decode(const pb_schema *s, int32_t msg, const uint8_t *data, size_t len, pb_arena *a,
              const pb_limits *lim, pb_val **out, char *err, size_t err_len) {
    pb_dec d = {s, a, lim && lim->max_depth > 0 ? lim->max_depth : 64, data, err, err_len};
    size_t max = lim && lim->max_size ? lim->max_size : (4u << 20);
    if (len > max) {
        snprintf(err, err_len, "protobuf: message of %zu bytes, above the limit of %zu", len, max);
        return -1;
    }
    if (!pb_schema_msg(s, msg)) {
        snprintf(err, err_len, "protobuf: no such message type");
        return -1;
    }
    pb_val *root = pb_val_root(a, msg);
    if (!root) {
        snprintf(err, err_len, "protobuf: out of memory");
        return -1;
    }
    const uint8_t *p = data;
    if (pb_dec_msg(&d, root, &p, data + len, 0, -1) < 0) return -1;
    *out = root;
    return 0;
}

/* ---- encoding ---- */

static size_t pb_varint_len(uint64_t v) {
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static uint64_t pb_zz64(int64_t i) { return ((uint64_t)i << 1) ^ (uint64_t)(i >> 63); }
static uint64_t pb_zz32(int64_t i) {
    int32_t x = (int32_t)i;
    return (uint32_t)(((uint32_t)x << 1) ^ (uint32_t)(x >> 31));
}

/* The varint a value of a varint type encodes as. */
static uint64_t pb_varint_of(const pb_val *v) {
    switch (v->f->type) {
    case PB_INT32: case PB_INT64: case PB_ENUM: return (uint64_t)v->v.i;
    case PB_SINT32: return pb_zz32(v->v.i);
    case PB_SINT64: return pb_zz64(v->v.i);
    case PB_BOOL: return v->v.b ? 1 : 0;
    default: return v->v.u;
    }
}

static size_t pb_scalar_len(const pb_val *v) {
    switch (pb_wire_type(v->f->type)) {
    case WT_I64: return 8;
    case WT_I32: return 4;
    default: return pb_varint_len(pb_varint_of(v));
    }
}

typedef struct pb_enc {
    const pb_schema *s;
    int max_depth;
    size_t max;
    char *err;
    size_t err_len;
} pb_enc;

static int pb_efail(pb_enc *e, const char *fmt, ...) {
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    snprintf(e->err, e->err_len, "protobuf: %s", msg);
    return -1;
}

static int pb_check_range(pb_enc *e, const pb_val *v) {
    const pb_field *f = v->f;
    switch (f->type) {
    case PB_INT32: case PB_SINT32: case PB_SFIXED32: case PB_ENUM:
        if (v->v.i < INT32_MIN || v->v.i > INT32_MAX)
            return pb_efail(e, "field %s: %lld is out of the 32-bit range", f->name, (long long)v->v.i);
        break;
    case PB_UINT32: case PB_FIXED32:
        if (v->v.u > UINT32_MAX)
            return pb_efail(e, "field %s: %llu is out of the 32-bit range", f->name, (unsigned long long)v->v.u);
        break;
    }
    if (v->kind != pb_kind_of(f->type)) return pb_efail(e, "field %s: value of the wrong kind", f->name);
    return 0;
}

/* Another member of the same oneof before v among parent's children. */
static const pb_val *pb_oneof_clash(const pb_val *parent, const pb_val *v) {
    for (const pb_val *c = parent->v.m.first; c && c != v; c = c->next)
        if (c->f->oneof == v->f->oneof && c->f != v->f) return c;
    return NULL;
}

static int64_t pb_size_msg(pb_enc *e, pb_val *m, int depth);

/* A field of implicit presence that holds its default: not written (proto3:
 * 0, false, empty string or bytes, the enum's 0; a float or double only
 * when its bits are zero: -0.0 is written, as Google's encoders do). */
static int pb_enc_omit(const pb_val *c) {
    if (!c->f->implicit) return 0;
    switch (c->kind) {
    case PB_V_INT: return c->v.i == 0;
    case PB_V_UINT: return c->v.u == 0;
    case PB_V_BOOL: return !c->v.b;
    case PB_V_BYTES: return c->v.s.n == 0;
    case PB_V_DOUBLE:
        if (c->f->type == PB_FLOAT) {
            float fl = (float)c->v.d;
            uint32_t x;
            memcpy(&x, &fl, 4);
            return x == 0;
        } else {
            uint64_t x;
            memcpy(&x, &c->v.d, 8);
            return x == 0;
        }
    default: return 0;
    }
}

/* The length of the packed run that starts at *c (same field), and moves *c past it. */
static size_t pb_packed_len(const pb_val **c) {
    const pb_field *f = (*c)->f;
    size_t n = 0;
    for (; *c && (*c)->f == f; *c = (*c)->next) n += pb_scalar_len(*c);
    return n;
}

static int64_t pb_size_child(pb_enc *e, pb_val *c, int depth) {
    size_t tag = pb_varint_len((uint64_t)c->f->number << 3);
    if (c->kind == PB_V_BYTES) return (int64_t)(tag + pb_varint_len(c->v.s.n) + c->v.s.n);
    if (c->kind == PB_V_MSG) {
        int64_t n = pb_size_msg(e, c, depth + 1);
        if (n < 0) return -1;
        c->size = (size_t)n;
        if (c->f->type == PB_GROUP) return (int64_t)(2 * tag) + n;
        return (int64_t)(tag + pb_varint_len((uint64_t)n)) + n;
    }
    if (pb_check_range(e, c) < 0) return -1;
    return (int64_t)(tag + pb_scalar_len(c));
}

static int64_t pb_size_msg(pb_enc *e, pb_val *m, int depth) {
    if (depth > e->max_depth) return pb_efail(e, "messages nested deeper than %d", e->max_depth);
    int64_t total = 0;
    pb_val *c = m->v.m.first;
    while (c) {
        if (!c->f) return pb_efail(e, "a value without a field");
        if (c->f->oneof >= 0) {
            const pb_val *o = pb_oneof_clash(m, c);
            if (o) return pb_efail(e, "fields %s and %s are members of one oneof: set one", o->f->name, c->f->name);
        }
        if (c->f->packed) {
            for (pb_val *k = c; k && k->f == c->f; k = k->next)
                if (pb_check_range(e, k) < 0) return -1;
            const pb_val *k = c;
            size_t n = pb_packed_len(&k);
            total += (int64_t)(pb_varint_len((uint64_t)c->f->number << 3) + pb_varint_len(n) + n);
            c = (pb_val *)k;
        } else {
            int64_t n = pb_enc_omit(c) ? 0 : pb_size_child(e, c, depth);
            if (n < 0) return -1;
            total += n;
            c = c->next;
        }
        if ((uint64_t)total > e->max) return pb_efail(e, "message larger than the limit of %zu bytes", e->max);
    }
    return total;
}

int64_t pb_encode_size(const pb_schema *s, pb_val *root, const pb_limits *lim, char *err, size_t err_len) {
    pb_enc e = {s, lim && lim->max_depth > 0 ? lim->max_depth : 64, lim && lim->max_size ? lim->max_size : (4u << 20),
                err, err_len};
    int64_t n = pb_size_msg(&e, root, 0);
    if (n >= 0) root->size = (size_t)n;
    return n;
}

static uint8_t *pb_wr_varint(uint8_t *p, uint64_t v) {
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

static uint8_t *pb_wr_le(uint8_t *p, uint64_t v, int n) {
    for (int i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
    return p + n;
}

static uint8_t *pb_wr_scalar(uint8_t *p, const pb_val *v) {
    switch (v->f->type) {
    case PB_DOUBLE: {
        uint64_t x;
        memcpy(&x, &v->v.d, 8);
        return pb_wr_le(p, x, 8);
    }
    case PB_FLOAT: {
        float fl = (float)v->v.d;
        uint32_t x;
        memcpy(&x, &fl, 4);
        return pb_wr_le(p, x, 4);
    }
    case PB_FIXED64: return pb_wr_le(p, v->v.u, 8);
    case PB_SFIXED64: return pb_wr_le(p, (uint64_t)v->v.i, 8);
    case PB_FIXED32: return pb_wr_le(p, v->v.u, 4);
    case PB_SFIXED32: return pb_wr_le(p, (uint64_t)(uint32_t)(int32_t)v->v.i, 4);
    default: return pb_wr_varint(p, pb_varint_of(v));
    }
}

static uint8_t *pb_wr_msg(uint8_t *p, const pb_val *m);

static uint8_t *pb_wr_child(uint8_t *p, const pb_val *c) {
    uint64_t num = c->f->number;
    if (c->kind == PB_V_MSG && c->f->type == PB_GROUP) {
        p = pb_wr_varint(p, num << 3 | WT_SGROUP);
        p = pb_wr_msg(p, c);
        return pb_wr_varint(p, num << 3 | WT_EGROUP);
    }
    if (c->kind == PB_V_MSG) {
        p = pb_wr_varint(p, num << 3 | WT_LEN);
        p = pb_wr_varint(p, c->size);
        return pb_wr_msg(p, c);
    }
    if (c->kind == PB_V_BYTES) {
        p = pb_wr_varint(p, num << 3 | WT_LEN);
        p = pb_wr_varint(p, c->v.s.n);
        if (c->v.s.n) memcpy(p, c->v.s.p, c->v.s.n);
        return p + c->v.s.n;
    }
    p = pb_wr_varint(p, num << 3 | (uint64_t)pb_wire_type(c->f->type));
    return pb_wr_scalar(p, c);
}

static uint8_t *pb_wr_msg(uint8_t *p, const pb_val *m) {
    const pb_val *c = m->v.m.first;
    while (c) {
        if (c->f->packed) {
            const pb_val *k = c;
            size_t n = pb_packed_len(&k);
            p = pb_wr_varint(p, (uint64_t)c->f->number << 3 | WT_LEN);
            p = pb_wr_varint(p, n);
            for (; c != k; c = c->next) p = pb_wr_scalar(p, c);
        } else {
            if (!pb_enc_omit(c)) p = pb_wr_child(p, c);
            c = c->next;
        }
    }
    return p;
}

void pb_encode_write(const pb_val *root, uint8_t *out) { pb_wr_msg(out, root); }

/* ---- 64-bit integers as text ---- */

int pb_parse_u64(const char *s, size_t n, uint64_t *out) {
    if (n == 0 || n > 20) return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        unsigned dg = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - dg) / 10) return -1;
        v = v * 10 + dg;
    }
    *out = v;
    return 0;
}

int pb_parse_i64(const char *s, size_t n, int64_t *out) {
    int neg = n > 0 && s[0] == '-';
    uint64_t u;
    if (pb_parse_u64(s + neg, n - (size_t)neg, &u) < 0) return -1;
    if (neg ? u > (uint64_t)INT64_MAX + 1 : u > (uint64_t)INT64_MAX) return -1;
    *out = neg ? (int64_t)(0 - u) : (int64_t)u;
    return 0;
}
