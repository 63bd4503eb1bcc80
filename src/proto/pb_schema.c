/* pb_schema.c - the schema of pb.h read from a serialized FileDescriptorSet
 * (descriptor.proto read by protobuf-c code generated at build time): every
 * message and enum of every file, nested ones included, by full name; each
 * field's number, type, label, packing, oneof and presence (implicit or
 * explicit); message and enum references resolved to indexes; the
 * services' methods.  It does not run protoc or read files (the binding
 * does) and does not encode or decode messages (pb_codec.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/descriptor.pb-c.h"
#include "proto/pb.h"

typedef Google__Protobuf__FileDescriptorProto pb_fdp;
typedef Google__Protobuf__DescriptorProto pb_dp;
typedef Google__Protobuf__EnumDescriptorProto pb_edp;
typedef Google__Protobuf__FieldDescriptorProto pb_fieldp;

struct pb_schema {
    Google__Protobuf__FileDescriptorSet *set;
    pb_msg *msgs;
    size_t nmsgs, cap_msgs;
    pb_enum *enums;
    size_t nenums, cap_enums;
    pb_method *methods;
    size_t nmethods, cap_methods;
    const pb_dp **msg_src;      /* the descriptor of msgs[i] */
    const pb_fdp **msg_file;
    int32_t *by_name;           /* message indexes sorted by name */
    int32_t *enum_by_name;
};

static char *pb_join(const char *a, const char *sep, const char *b) {
    size_t na = a ? strlen(a) : 0, ns = na ? strlen(sep) : 0, nb = strlen(b);
    char *r = malloc(na + ns + nb + 1);
    if (!r) return NULL;
    if (na) memcpy(r, a, na);
    if (ns) memcpy(r + na, sep, ns);
    memcpy(r + na + ns, b, nb + 1);
    return r;
}

static int pb_grow(void **arr, size_t *cap, size_t n, size_t elem) {
    if (n < *cap) return 0;
    size_t nc = *cap ? *cap * 2 : 16;
    void *p = realloc(*arr, nc * elem);
    if (!p) return -1;
    memset((char *)p + *cap * elem, 0, (nc - *cap) * elem);
    *arr = p;
    *cap = nc;
    return 0;
}

static int pb_add_enum(pb_schema *s, const char *scope, const pb_edp *e) {
    if (!e->name || pb_grow((void **)&s->enums, &s->cap_enums, s->nenums, sizeof(pb_enum)) < 0) return -1;
    pb_enum *pe = &s->enums[s->nenums];
    pe->name = pb_join(scope, ".", e->name);
    pe->values = calloc(e->n_value ? e->n_value : 1, sizeof(pb_enum_value));
    if (!pe->name || !pe->values) return -1;
    s->nenums++;
    for (size_t i = 0; i < e->n_value; i++) {
        if (!e->value[i]->name) return -1;
        pe->values[i].name = e->value[i]->name;
        pe->values[i].number = e->value[i]->number;
    }
    pe->nvalues = e->n_value;
    return 0;
}

/* Collects m and what is nested in it (names only; fields in a second pass). */
static int pb_add_msg(pb_schema *s, const pb_fdp *f, const char *scope, const pb_dp *m, int depth) {
    if (!m->name || depth > 100) return -1;
    if (pb_grow((void **)&s->msgs, &s->cap_msgs, s->nmsgs, sizeof(pb_msg)) < 0) return -1;
    size_t cap = s->cap_msgs;
    void *src = realloc(s->msg_src, cap * sizeof(*s->msg_src));
    if (!src) return -1;
    s->msg_src = src;
    void *fl = realloc(s->msg_file, cap * sizeof(*s->msg_file));
    if (!fl) return -1;
    s->msg_file = fl;
    char *name = pb_join(scope, ".", m->name);
    if (!name) return -1;
    size_t i = s->nmsgs++;
    s->msgs[i].name = name;
    s->msgs[i].map_entry = m->options && m->options->has_map_entry && m->options->map_entry;
    s->msg_src[i] = m;
    s->msg_file[i] = f;
    for (size_t k = 0; k < m->n_enum_type; k++)
        if (pb_add_enum(s, name, m->enum_type[k]) < 0) return -1;
    for (size_t k = 0; k < m->n_nested_type; k++)
        if (pb_add_msg(s, f, name, m->nested_type[k], depth + 1) < 0) return -1;
    return 0;
}

static int pb_cmp_name(const char *a, const char *b) { return strcmp(a, b); }

static int32_t pb_bsearch(const pb_schema *s, const int32_t *idx, size_t n, const char *name, int is_enum) {
    if (name && name[0] == '.') name++;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const char *mn = is_enum ? s->enums[idx[mid]].name : s->msgs[idx[mid]].name;
        int c = pb_cmp_name(mn, name);
        if (c == 0) return idx[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return -1;
}

/* Sorts an index array by name (a merge sort: qsort's comparison has no
 * context argument for the schema). */
static void pb_sort_idx(const pb_schema *s, int32_t *idx, int32_t *tmp, size_t n, int is_enum) {
    if (n < 2) return;
    size_t h = n / 2;
    pb_sort_idx(s, idx, tmp, h, is_enum);
    pb_sort_idx(s, idx + h, tmp, n - h, is_enum);
    size_t i = 0, j = h, k = 0;
    while (i < h || j < n) {
        int take_left;
        if (i >= h) take_left = 0;
        else if (j >= n) take_left = 1;
        else {
            const char *a = is_enum ? s->enums[idx[i]].name : s->msgs[idx[i]].name;
            const char *b = is_enum ? s->enums[idx[j]].name : s->msgs[idx[j]].name;
            take_left = strcmp(a, b) <= 0;
        }
        tmp[k++] = take_left ? idx[i++] : idx[j++];
    }
    memcpy(idx, tmp, n * sizeof(*idx));
}

static int pb_build_index(pb_schema *s, int32_t **out, size_t n, int is_enum) {
    int32_t *idx = malloc((n ? n : 1) * sizeof(int32_t)), *tmp = malloc((n ? n : 1) * sizeof(int32_t));
    if (!idx || !tmp) {
        free(idx);
        free(tmp);
        return -1;
    }
    for (size_t i = 0; i < n; i++) idx[i] = (int32_t)i;
    pb_sort_idx(s, idx, tmp, n, is_enum);
    free(tmp);
    *out = idx;
    return 0;
}

static int pb_packable(uint8_t t) {
    return t != PB_STRING && t != PB_BYTES && t != PB_MESSAGE && t != PB_GROUP;
}

static int pb_cmp_field(const void *a, const void *b) {
    uint32_t x = ((const pb_field *)a)->number, y = ((const pb_field *)b)->number;
    return x < y ? -1 : x > y;
}

/* Implicit presence (proto3 without `optional`): a singular scalar, string,
 * bytes or enum outside any oneof, in a proto3 file, not a map entry's key or
 * value (entries always carry both, as Google's encoders write them). */
static int pb_implicit(const pb_fdp *file, const pb_fieldp *fp, const pb_field *f, int map_entry) {
    int proto3 = file->syntax && strcmp(file->syntax, "proto3") == 0;
    return proto3 && !map_entry && !f->repeated && f->type != PB_MESSAGE && f->type != PB_GROUP &&
           !fp->has_oneof_index && !(fp->has_proto3_optional && fp->proto3_optional);
}

static int pb_fill_field(pb_schema *s, const pb_fdp *file, const pb_fieldp *fp, pb_field *f, char *err,
                         size_t err_len, const char *mname, int map_entry) {
    if (!fp->name || !fp->has_number || !fp->has_type || fp->number <= 0 || fp->type < 1 || fp->type > 18) {
        snprintf(err, err_len, "message %s: a field without a name, number or type", mname);
        return -1;
    }
    f->name = fp->name;
    f->number = (uint32_t)fp->number;
    f->type = (uint8_t)fp->type;
    f->repeated = fp->label == GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__LABEL__LABEL_REPEATED;
    int proto3 = file->syntax && strcmp(file->syntax, "proto3") == 0;
    int packed = proto3;
    if (fp->options && fp->options->has_packed) packed = fp->options->packed;
    f->packed = f->repeated && pb_packable(f->type) && packed;
    f->oneof = (fp->has_oneof_index && !(fp->has_proto3_optional && fp->proto3_optional)) ? fp->oneof_index : -1;
    f->implicit = (uint8_t)pb_implicit(file, fp, f, map_entry);
    f->ref = -1;
    if (f->type == PB_MESSAGE || f->type == PB_GROUP || f->type == PB_ENUM) {
        int is_enum = f->type == PB_ENUM;
        f->ref = pb_bsearch(s, is_enum ? s->enum_by_name : s->by_name, is_enum ? s->nenums : s->nmsgs,
                            fp->type_name ? fp->type_name : "", is_enum);
        if (f->ref < 0) {
            snprintf(err, err_len, "message %s: field %s names type %s, which the descriptor set does not hold "
                     "(made without --include_imports?)", mname, fp->name, fp->type_name ? fp->type_name : "?");
            return -1;
        }
    }
    return 0;
}

static int pb_fill_msg(pb_schema *s, size_t i, char *err, size_t err_len) {
    const pb_dp *m = s->msg_src[i];
    pb_msg *pm = &s->msgs[i];
    pm->fields = calloc(m->n_field ? m->n_field : 1, sizeof(pb_field));
    pm->oneofs = calloc(m->n_oneof_decl ? m->n_oneof_decl : 1, sizeof(char *));
    if (!pm->fields || !pm->oneofs) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    for (size_t k = 0; k < m->n_field; k++)
        if (pb_fill_field(s, s->msg_file[i], m->field[k], &pm->fields[k], err, err_len, pm->name, pm->map_entry) < 0)
            return -1;
    pm->nfields = m->n_field;
    for (size_t k = 0; k < m->n_oneof_decl; k++) pm->oneofs[k] = m->oneof_decl[k]->name ? m->oneof_decl[k]->name : "";
    pm->noneofs = m->n_oneof_decl;
    for (size_t k = 0; k < pm->nfields; k++)
        if (pm->fields[k].oneof >= (int32_t)pm->noneofs) {
            snprintf(err, err_len, "message %s: field %s is in a oneof that does not exist", pm->name,
                     pm->fields[k].name);
            return -1;
        }
    qsort(pm->fields, pm->nfields, sizeof(pb_field), pb_cmp_field);
    for (size_t k = 1; k < pm->nfields; k++)
        if (pm->fields[k].number == pm->fields[k - 1].number) {
            snprintf(err, err_len, "message %s: two fields numbered %u", pm->name, pm->fields[k].number);
            return -1;
        }
    return 0;
}

static int pb_add_service(pb_schema *s, const pb_fdp *f, const Google__Protobuf__ServiceDescriptorProto *sv,
                          char *err, size_t err_len) {
    if (!sv->name) return -1;
    char *sname = pb_join(f->package, ".", sv->name);
    if (!sname) return -1;
    for (size_t k = 0; k < sv->n_method; k++) {
        const Google__Protobuf__MethodDescriptorProto *md = sv->method[k];
        if (!md->name || pb_grow((void **)&s->methods, &s->cap_methods, s->nmethods, sizeof(pb_method)) < 0) {
            free(sname);
            return -1;
        }
        pb_method *pm = &s->methods[s->nmethods];
        pm->path = pb_join(sname, "/", md->name);
        if (!pm->path) {
            free(sname);
            return -1;
        }
        s->nmethods++;
        pm->in = pb_bsearch(s, s->by_name, s->nmsgs, md->input_type ? md->input_type : "", 0);
        pm->out = pb_bsearch(s, s->by_name, s->nmsgs, md->output_type ? md->output_type : "", 0);
        if (pm->in < 0 || pm->out < 0) {
            snprintf(err, err_len, "method %s: its message types are not in the descriptor set", pm->path);
            free(sname);
            return -1;
        }
        pm->client_streaming = md->has_client_streaming && md->client_streaming;
        pm->server_streaming = md->has_server_streaming && md->server_streaming;
    }
    free(sname);
    return 0;
}

static int pb_schema_build(pb_schema *s, char *err, size_t err_len) {
    const Google__Protobuf__FileDescriptorSet *set = s->set;
    for (size_t i = 0; i < set->n_file; i++) {
        const pb_fdp *f = set->file[i];
        const char *pkg = f->package && f->package[0] ? f->package : NULL;
        for (size_t k = 0; k < f->n_enum_type; k++)
            if (pb_add_enum(s, pkg, f->enum_type[k]) < 0) goto oom;
        for (size_t k = 0; k < f->n_message_type; k++)
            if (pb_add_msg(s, f, pkg, f->message_type[k], 0) < 0) goto oom;
    }
    if (pb_build_index(s, &s->by_name, s->nmsgs, 0) < 0 || pb_build_index(s, &s->enum_by_name, s->nenums, 1) < 0)
        goto oom;
    for (size_t i = 0; i < s->nmsgs; i++)
        if (pb_fill_msg(s, i, err, err_len) < 0) return -1;
    for (size_t i = 0; i < set->n_file; i++)
        for (size_t k = 0; k < set->file[i]->n_service; k++)
            if (pb_add_service(s, set->file[i], set->file[i]->service[k], err, err_len) < 0) {
                if (!err[0]) snprintf(err, err_len, "out of memory or an unnamed method");
                return -1;
            }
    return 0;
oom:
    snprintf(err, err_len, "a descriptor without a name, or out of memory");
    return -1;
}

pb_schema *pb_schema_load(const uint8_t *data, size_t len, char *err, size_t err_len) {
    err[0] = '\0';
    pb_schema *s = calloc(1, sizeof(*s));
    if (!s) {
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    s->set = google__protobuf__file_descriptor_set__unpack(NULL, len, data);
    if (!s->set) {
        snprintf(err, err_len, "not a descriptor set (FileDescriptorSet) that protobuf can read");
        free(s);
        return NULL;
    }
    if (pb_schema_build(s, err, err_len) < 0) {
        pb_schema_free(s);
        return NULL;
    }
    return s;
}

void pb_schema_free(pb_schema *s) {
    if (!s) return;
    for (size_t i = 0; i < s->nmsgs; i++) {
        free((char *)s->msgs[i].name);
        free(s->msgs[i].fields);
        free(s->msgs[i].oneofs);
    }
    for (size_t i = 0; i < s->nenums; i++) {
        free((char *)s->enums[i].name);
        free(s->enums[i].values);
    }
    for (size_t i = 0; i < s->nmethods; i++) free((char *)s->methods[i].path);
    free(s->msgs);
    free(s->enums);
    free(s->methods);
    free(s->msg_src);
    free(s->msg_file);
    free(s->by_name);
    free(s->enum_by_name);
    if (s->set) google__protobuf__file_descriptor_set__free_unpacked(s->set, NULL);
    free(s);
}

int32_t pb_schema_find_msg(const pb_schema *s, const char *name) {
    return pb_bsearch(s, s->by_name, s->nmsgs, name, 0);
}

const pb_msg *pb_schema_msg(const pb_schema *s, int32_t i) {
    return i >= 0 && (size_t)i < s->nmsgs ? &s->msgs[i] : NULL;
}

const pb_enum *pb_schema_enum(const pb_schema *s, int32_t i) {
    return i >= 0 && (size_t)i < s->nenums ? &s->enums[i] : NULL;
}

const pb_method *pb_schema_find_method(const pb_schema *s, const char *path) {
    if (path[0] == '/') path++;
    for (size_t i = 0; i < s->nmethods; i++)
        if (strcmp(s->methods[i].path, path) == 0) return &s->methods[i];
    return NULL;
}

size_t pb_schema_nmsgs(const pb_schema *s) { return s->nmsgs; }
size_t pb_schema_nmethods(const pb_schema *s) { return s->nmethods; }
const pb_method *pb_schema_method(const pb_schema *s, size_t i) { return i < s->nmethods ? &s->methods[i] : NULL; }

const pb_field *pb_msg_field(const pb_msg *m, const char *name) {
    for (size_t i = 0; i < m->nfields; i++)
        if (strcmp(m->fields[i].name, name) == 0) return &m->fields[i];
    return NULL;
}

const pb_field *pb_msg_field_by_number(const pb_msg *m, uint32_t number) {
    size_t lo = 0, hi = m->nfields;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m->fields[mid].number == number) return &m->fields[mid];
        if (m->fields[mid].number < number) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

const char *pb_enum_name(const pb_enum *e, int32_t number) {
    for (size_t i = 0; i < e->nvalues; i++)
        if (e->values[i].number == number) return e->values[i].name;
    return NULL;
}

int pb_enum_number(const pb_enum *e, const char *name, int32_t *out) {
    for (size_t i = 0; i < e->nvalues; i++)
        if (strcmp(e->values[i].name, name) == 0) {
            *out = e->values[i].number;
            return 0;
        }
    return -1;
}
