/* pb.h - protocol buffers at run time: a schema read from a descriptor set
 * (what `protoc --include_imports --descriptor_set_out` writes), and a codec
 * that encodes and decodes messages by walking that schema, to and from a
 * neutral tree of values (pb_val) held in an arena.  No generated code per
 * service; no sockets, no Lua (the binding converts Lua tables to and from
 * the tree).  See pb_schema.c and pb_codec.c. */
#ifndef LUAMECH_PB_H
#define LUAMECH_PB_H

#include <stddef.h>
#include <stdint.h>

/* Field types: descriptor.proto's FieldDescriptorProto.Type numbers. */
enum {
    PB_DOUBLE = 1, PB_FLOAT = 2, PB_INT64 = 3, PB_UINT64 = 4, PB_INT32 = 5, PB_FIXED64 = 6,
    PB_FIXED32 = 7, PB_BOOL = 8, PB_STRING = 9, PB_GROUP = 10, PB_MESSAGE = 11, PB_BYTES = 12,
    PB_UINT32 = 13, PB_ENUM = 14, PB_SFIXED32 = 15, PB_SFIXED64 = 16, PB_SINT32 = 17, PB_SINT64 = 18,
};

typedef struct pb_field {
    const char *name;
    uint32_t number;
    uint8_t type;               /* PB_* */
    uint8_t repeated;           /* label LABEL_REPEATED */
    uint8_t packed;             /* how it is encoded (decoding accepts both) */
    uint8_t implicit;           /* proto3 implicit presence (singular, no `optional`, no oneof, not a
                                 * message, not a map entry's key or value): not encoded when it
                                 * holds its default (0, false, "", the enum's 0) */
    int32_t oneof;              /* index in its message's oneofs, or -1 (proto3 optional: -1) */
    int32_t ref;                /* PB_MESSAGE/GROUP: message index; PB_ENUM: enum index; else -1 */
} pb_field;

typedef struct pb_msg {
    const char *name;           /* full name without the leading dot: "pkg.Outer.Inner" */
    pb_field *fields;           /* sorted by number */
    size_t nfields;
    const char **oneofs;
    size_t noneofs;
    int map_entry;              /* a map<K,V>'s entry: field 1 key, field 2 value */
} pb_msg;

typedef struct pb_enum_value {
    const char *name;
    int32_t number;
} pb_enum_value;

typedef struct pb_enum {
    const char *name;
    pb_enum_value *values;
    size_t nvalues;
} pb_enum;

typedef struct pb_method {
    const char *path;           /* "pkg.Service/Method" */
    int32_t in, out;            /* message indexes */
    int client_streaming, server_streaming;
} pb_method;

typedef struct pb_schema pb_schema;

/* Reads a serialized FileDescriptorSet (with its imports: a type it names
 * and does not hold is an error).  NULL with a message in err. */
pb_schema *pb_schema_load(const uint8_t *data, size_t len, char *err, size_t err_len);
void pb_schema_free(pb_schema *s);
/* A message by full name (a leading dot is allowed), or -1. */
int32_t pb_schema_find_msg(const pb_schema *s, const char *name);
const pb_msg *pb_schema_msg(const pb_schema *s, int32_t index);
const pb_enum *pb_schema_enum(const pb_schema *s, int32_t index);
/* A method by "pkg.Service/Method" (a leading slash is allowed), or NULL. */
const pb_method *pb_schema_find_method(const pb_schema *s, const char *path);
size_t pb_schema_nmsgs(const pb_schema *s);
size_t pb_schema_nmethods(const pb_schema *s);
const pb_method *pb_schema_method(const pb_schema *s, size_t i);
/* A field of m by name or number, or NULL. */
const pb_field *pb_msg_field(const pb_msg *m, const char *name);
const pb_field *pb_msg_field_by_number(const pb_msg *m, uint32_t number);
/* An enum value's name, or NULL; a name's number: 0, or -1 if unknown. */
const char *pb_enum_name(const pb_enum *e, int32_t number);
int pb_enum_number(const pb_enum *e, const char *name, int32_t *out);

/* The neutral tree.  A message is a list of field values in wire order
 * (decoded) or in the order given (encoded); a repeated field is several
 * values with the same field (a packed run is expanded), a map is repeated
 * entries (PB_V_MSG of the entry type).  Strings and bytes point into the
 * decoded input or into memory the caller keeps until the encode ends. */
enum { PB_V_INT = 1, PB_V_UINT, PB_V_DOUBLE, PB_V_BOOL, PB_V_BYTES, PB_V_MSG };

struct pb_dec_ix;

typedef struct pb_val {
    const pb_field *f;          /* NULL for the root message */
    uint8_t kind;               /* PB_V_*: the kind of f's type (pb_kind_of) */
    union {
        int64_t i;              /* int32/64, sint*, sfixed*, enum */
        uint64_t u;             /* uint32/64, fixed* */
        double d;               /* double, float */
        int b;
        struct { const char *p; size_t n; } s;
        struct {
            int32_t msg;
            struct pb_val *first, *last;
            struct pb_dec_ix *ix;   /* decode: the singular fields it holds (pb_codec.c), or NULL */
        } m;
    } v;
    struct pb_val *next;
    size_t size;                /* encode: the message's encoded length (computed) */
} pb_val;

int pb_kind_of(uint8_t type);

/* Memory for trees: chunks kept across pb_arena_reset, so that a steady
 * stream of messages of similar size allocates nothing. */
typedef struct pb_arena_chunk pb_arena_chunk;
typedef struct pb_arena {
    pb_arena_chunk *head, *cur;
    size_t used;                /* bytes handed out since the reset */
    size_t limit;               /* 0: PB_ARENA_LIMIT */
} pb_arena;
#define PB_ARENA_LIMIT (64u << 20)
void pb_arena_reset(pb_arena *a);
void pb_arena_free(pb_arena *a);
void *pb_arena_alloc(pb_arena *a, size_t n);     /* NULL past the limit or out of memory */
/* A new value node (zeroed) of field f (kind from f's type); the root: f NULL, msg given. */
pb_val *pb_val_new(pb_arena *a, const pb_field *f);
pb_val *pb_val_root(pb_arena *a, int32_t msg);
void pb_val_append(pb_val *parent, pb_val *child);

typedef struct pb_limits {
    int max_depth;              /* nested messages; 0: 64 */
    size_t max_size;            /* input or output bytes; 0: 4 MiB (gRPC's default receive limit) */
} pb_limits;

/* Decodes data as message msg into a tree in a: 0 and *out, or -1 with a
 * message in err (truncated input, invalid wire type, length past the end,
 * too deep, too big).  Unknown fields are skipped, and so is a known field
 * on a wire type that is not its own (as Google's parsers do; a repeated
 * scalar is read packed or not, whichever arrives).  A message holds one
 * value per singular field: a scalar, string or bytes that comes again
 * replaces the first in place (the last one wins), a message that comes
 * again is merged into the first (its scalars replaced, repeated fields
 * appended, messages merged in turn). */
int pb_decode(const pb_schema *s, int32_t msg, const uint8_t *data, size_t len, pb_arena *a,
              const pb_limits *lim, pb_val **out, char *err, size_t err_len);
/* The encoded length of root (it also stores each sub-message's size), or
 * -1 with a message (two members of one oneof, too deep, too big).  Fields
 * of implicit presence (pb_field.implicit) holding their default are left
 * out, here and by pb_encode_write; map entries always carry key and value. */
int64_t pb_encode_size(const pb_schema *s, pb_val *root, const pb_limits *lim, char *err, size_t err_len);
/* Writes root (pb_encode_size first) into out, which has room for its size. */
void pb_encode_write(const pb_val *root, uint8_t *out);

/* Decimal text to a 64-bit integer (int64 values travel as strings past
 * 2^53 in Lua): 0, or -1 when it is not one. */
int pb_parse_i64(const char *s, size_t n, int64_t *out);
int pb_parse_u64(const char *s, size_t n, uint64_t *out);

#endif
