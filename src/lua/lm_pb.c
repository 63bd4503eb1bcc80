/* lm_pb.c - luamech.protobuf and the protocol buffers helpers of the
 * bindings (lm_pb.h): loading a schema (running protoc for a .proto, once
 * per worker and file), a Lua table walked along its message's descriptor
 * into proto/pb.h's tree, a decoded tree pushed as a table.  It does not
 * read or write wire bytes (proto/pb_codec.c does) or touch sockets. */
#include <errno.h>
#include <fcntl.h>
#include <lauxlib.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/vu_api.h"
#include "lua/lm_core.h"
#include "lua/lm_pb.h"
#include "lua/lm_share.h"

#define LM_PB_MT "luamech.protobuf.schema"
#define LM_PB_CACHE "luamech.protobuf.cache"
#define LM_PB_MAX_FILE (64u << 20)

extern char **environ;

typedef struct lm_pb_ud { pb_schema *s; } lm_pb_ud;

static int lm_pb_gc(lua_State *L) {
    lm_pb_ud *u = luaL_checkudata(L, 1, LM_PB_MT);
    pb_schema_free(u->s);
    u->s = NULL;
    return 0;
}

/* The whole file into a malloc'd buffer; NULL with errno. */
static uint8_t *lm_pb_slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    uint8_t *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            if (cap >= LM_PB_MAX_FILE) {
                errno = EFBIG;
                break;
            }
            uint8_t *b = realloc(buf, cap = cap ? cap * 2 : 65536);
            if (!b) break;
            buf = b;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            fclose(f);
            *len = n;
            return buf ? buf : malloc(1);
        }
    }
    fclose(f);
    free(buf);
    return NULL;
}

/* protoc --include_imports --descriptor_set_out=out -I <dir of proto> <proto>;
 * 0, or -1 with protoc's first error line(s) in err. */
static int lm_pb_protoc(const char *proto, const char *out, char *err, size_t err_len) {
    char dir[4096], errpath[96];
    snprintf(dir, sizeof dir, "%s", proto);
    char *slash = strrchr(dir, '/');
    const char *base = slash ? slash + 1 : proto;
    if (slash) *slash = '\0';
    else snprintf(dir, sizeof dir, ".");
    char setarg[4200];
    snprintf(setarg, sizeof setarg, "--descriptor_set_out=%s", out);
    snprintf(errpath, sizeof errpath, "%s.err", out);
    char *argv[] = {"protoc", "--include_imports", setarg, "-I", dir, (char *)base, NULL};
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0) return snprintf(err, err_len, "out of memory"), -1;
    pid_t pid;
    int rc = posix_spawn_file_actions_addopen(&fa, 2, errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (rc == 0) rc = posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    if (rc == 0) rc = posix_spawnp(&pid, "protoc", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        snprintf(err, err_len, "cannot run protoc (%s): install protobuf-compiler, or give a descriptor set "
                 "made with protoc --include_imports --descriptor_set_out", strerror(rc));
        return -1;
    }
    int st = 0;
    pid_t w;
    while ((w = waitpid(pid, &st, 0)) < 0 && errno == EINTR) {}
    if (w == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0) {
        unlink(errpath);
        return 0;
    }
    size_t n = 0;
    uint8_t *msg = lm_pb_slurp(errpath, &n);
    unlink(errpath);
    if (n > 400) n = 400;
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == '\r')) n--;
    for (size_t i = 0; i < n; i++) if (msg[i] == '\n') msg[i] = ' ';
    snprintf(err, err_len, "protoc failed: %.*s", (int)n, msg ? (const char *)msg : "");
    free(msg);
    return -1;
}

/* The descriptor set of a .proto (through protoc) or of a descriptor set file. */
static uint8_t *lm_pb_descriptors(const char *path, size_t *len, char *err, size_t err_len) {
    size_t pl = strlen(path);
    if (pl > 6 && strcmp(path + pl - 6, ".proto") == 0) {
        char tmp[64];
        snprintf(tmp, sizeof tmp, "/tmp/luamech-pb-XXXXXX");
        int fd = mkstemp(tmp);
        if (fd < 0) return snprintf(err, err_len, "temporary file: %s", strerror(errno)), NULL;
        close(fd);
        uint8_t *d = NULL;
        if (lm_pb_protoc(path, tmp, err, err_len) == 0) {
            d = lm_pb_slurp(tmp, len);
            if (!d) snprintf(err, err_len, "reading protoc's output: %s", strerror(errno));
        }
        unlink(tmp);
        return d;
    }
    uint8_t *d = lm_pb_slurp(path, len);
    if (!d) snprintf(err, err_len, "%s", strerror(errno));
    return d;
}

const pb_schema *lm_pb_load(lua_State *L, worker *w, const char *name, const char *fname) {
    lm_share *sh = worker_script_ctx(w);
    char path[4096], err[600];
    if (name[0] == '/' || !sh) snprintf(path, sizeof path, "%s", name);
    else snprintf(path, sizeof path, "%s/%s", sh->root, name);
    lua_getfield(L, LUA_REGISTRYINDEX, LM_PB_CACHE);
    lua_getfield(L, -1, path);
    if (!lua_isnil(L, -1)) {
        lua_remove(L, -2);
        return ((lm_pb_ud *)lua_touserdata(L, -1))->s;
    }
    lua_pop(L, 1);
    size_t len = 0;
    uint8_t *d = lm_pb_descriptors(path, &len, err, sizeof err);
    if (!d) return luaL_error(L, "%s(\"%s\"): %s: %s", fname, name, path, err), NULL;
    pb_schema *s = pb_schema_load(d, len, err, sizeof err);
    free(d);
    if (!s) return luaL_error(L, "%s(\"%s\"): %s: %s", fname, name, path, err), NULL;
    if (sh) lm_share_record(sh, path);
    lm_pb_ud *u = lua_newuserdata(L, sizeof *u);
    u->s = s;
    luaL_getmetatable(L, LM_PB_MT);
    lua_setmetatable(L, -2);
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, path);
    lua_remove(L, -2);
    return s;
}

/* ---- Lua -> tree ---- */

static void lm_pb_value(lua_State *L, int idx, const pb_schema *s, pb_val *v, pb_arena *a, const char *fname,
                        const char *mname, int depth);

static pb_val *lm_pb_msg(lua_State *L, int idx, const pb_schema *s, pb_val *root, pb_arena *a, const char *fname,
                         int depth);

static int lm_pb_typeerr(lua_State *L, const char *fname, const char *mname, const pb_field *f, const char *want,
                         int idx) {
    return luaL_error(L, "%s: %s.%s: %s expected, got %s", fname, mname, f->name, want, luaL_typename(L, idx));
}

static void lm_pb_int(lua_State *L, int idx, pb_val *v, const char *fname, const char *mname) {
    const pb_field *f = v->f;
    if (lua_type(L, idx) == LUA_TSTRING) {
        size_t n;
        const char *t = lua_tolstring(L, idx, &n);
        int bad = v->kind == PB_V_UINT ? pb_parse_u64(t, n, &v->v.u) : pb_parse_i64(t, n, &v->v.i);
        if (bad) luaL_error(L, "%s: %s.%s: '%s' is not an integer", fname, mname, f->name, t);
        return;
    }
    if (lua_type(L, idx) != LUA_TNUMBER) lm_pb_typeerr(L, fname, mname, f, "integer", idx);
    double d = lua_tonumber(L, idx);
    if (d != floor(d) || d < (v->kind == PB_V_UINT ? 0 : -9223372036854775808.0) || d >= 18446744073709551616.0 ||
        (v->kind == PB_V_INT && d >= 9223372036854775808.0))
        luaL_error(L, "%s: %s.%s: %s is not an integer of its type", fname, mname, f->name, lua_tostring(L, idx));
    if (v->kind == PB_V_UINT) v->v.u = (uint64_t)d;
    else v->v.i = (int64_t)d;
}

static void lm_pb_enum(lua_State *L, int idx, const pb_schema *s, pb_val *v, const char *fname, const char *mname) {
    if (lua_type(L, idx) == LUA_TSTRING) {
        int32_t n;
        const pb_enum *e = pb_schema_enum(s, v->f->ref);
        if (pb_enum_number(e, lua_tostring(L, idx), &n) < 0)
            luaL_error(L, "%s: %s.%s: %s has no value '%s'", fname, mname, v->f->name, e->name, lua_tostring(L, idx));
        v->v.i = n;
        return;
    }
    lm_pb_int(L, idx, v, fname, mname);
}

static void lm_pb_value(lua_State *L, int idx, const pb_schema *s, pb_val *v, pb_arena *a, const char *fname,
                        const char *mname, int depth) {
    const pb_field *f = v->f;
    switch (v->kind) {
    case PB_V_MSG:
        if (!lua_istable(L, idx)) lm_pb_typeerr(L, fname, mname, f, "table", idx);
        lm_pb_msg(L, idx, s, v, a, fname, depth + 1);
        return;
    case PB_V_BYTES:
        if (lua_type(L, idx) != LUA_TSTRING) lm_pb_typeerr(L, fname, mname, f, "string", idx);
        v->v.s.p = lua_tolstring(L, idx, &v->v.s.n);
        return;
    case PB_V_BOOL:
        if (!lua_isboolean(L, idx)) lm_pb_typeerr(L, fname, mname, f, "boolean", idx);
        v->v.b = lua_toboolean(L, idx);
        return;
    case PB_V_DOUBLE:
        if (lua_type(L, idx) != LUA_TNUMBER) lm_pb_typeerr(L, fname, mname, f, "number", idx);
        v->v.d = lua_tonumber(L, idx);
        return;
    default:
        if (f->type == PB_ENUM) lm_pb_enum(L, idx, s, v, fname, mname);
        else lm_pb_int(L, idx, v, fname, mname);
    }
}

static pb_val *lm_pb_new(lua_State *L, pb_arena *a, const pb_field *f, const char *fname) {
    pb_val *v = pb_val_new(a, f);
    if (!v) luaL_error(L, "%s: message too large (memory limit)", fname);
    return v;
}

/* One value (key at -2, value at -1 for maps; the value at -1 else) of f appended to m. */
static void lm_pb_add(lua_State *L, const pb_schema *s, pb_val *m, const pb_field *f, pb_arena *a,
                      const char *fname, const char *mname, int depth, int map) {
    pb_val *v = lm_pb_new(L, a, f, fname);
    if (map) {
        const pb_msg *em = pb_schema_msg(s, f->ref);
        pb_val *k = lm_pb_new(L, a, pb_msg_field_by_number(em, 1), fname);
        pb_val *val = lm_pb_new(L, a, pb_msg_field_by_number(em, 2), fname);
        int top = lua_gettop(L);
        lm_pb_value(L, top - 1, s, k, a, fname, em->name, depth);   /* a string key: anchored by the table */
        lm_pb_value(L, top, s, val, a, fname, em->name, depth);
        pb_val_append(v, k);
        pb_val_append(v, val);
    } else {
        lm_pb_value(L, lua_gettop(L), s, v, a, fname, mname, depth);
    }
    pb_val_append(m, v);
}

static int lm_pb_is_map(const pb_schema *s, const pb_field *f) {
    if (f->type != PB_MESSAGE || !f->repeated) return 0;
    return pb_schema_msg(s, f->ref)->map_entry;
}

static void lm_pb_field(lua_State *L, int t, const pb_schema *s, pb_val *m, const pb_field *f, pb_arena *a,
                        const char *fname, const char *mname, int depth) {
    lua_getfield(L, t, f->name);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        return;
    }
    int vi = lua_gettop(L);
    if (lm_pb_is_map(s, f)) {
        if (!lua_istable(L, vi)) lm_pb_typeerr(L, fname, mname, f, "table (a map)", vi);
        lua_pushnil(L);
        while (lua_next(L, vi)) {
            lua_pushvalue(L, -2);               /* key copy: a conversion never touches lua_next's key */
            lua_insert(L, -2);
            lm_pb_add(L, s, m, f, a, fname, mname, depth, 1);
            lua_pop(L, 2);
        }
    } else if (f->repeated) {
        if (!lua_istable(L, vi)) lm_pb_typeerr(L, fname, mname, f, "table (an array)", vi);
        size_t n = lua_objlen(L, vi);
        for (size_t i = 1; i <= n; i++) {
            lua_rawgeti(L, vi, (int)i);
            lm_pb_add(L, s, m, f, a, fname, mname, depth, 0);
            lua_pop(L, 1);
        }
    } else {
        lm_pb_add(L, s, m, f, a, fname, mname, depth, 0);
    }
    lua_pop(L, 1);
}

/* Raise for the first key of the table at t that names no field. */
static void lm_pb_unknown_key(lua_State *L, int t, const pb_msg *m, const char *fname) {
    lua_pushnil(L);
    while (lua_next(L, t)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING || !pb_msg_field(m, lua_tostring(L, -1))) {
            lua_pushvalue(L, -1);
            const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, -1);
            luaL_error(L, "%s: %s has no field '%s'", fname, m->name, k);
        }
    }
}

static pb_val *lm_pb_msg(lua_State *L, int idx, const pb_schema *s, pb_val *root, pb_arena *a, const char *fname,
                         int depth) {
    if (depth > 64) luaL_error(L, "%s: tables nested deeper than 64 messages (a cycle?)", fname);
    luaL_checkstack(L, 8, fname);
    int t = idx < 0 ? lua_gettop(L) + idx + 1 : idx;
    const pb_msg *m = pb_schema_msg(s, root->v.m.msg);
    int found = 0, keys = 0;
    for (size_t i = 0; i < m->nfields; i++) {
        lua_getfield(L, t, m->fields[i].name);
        found += !lua_isnil(L, -1);
        lua_pop(L, 1);
        lm_pb_field(L, t, s, root, &m->fields[i], a, fname, m->name, depth);
    }
    lua_pushnil(L);
    while (lua_next(L, t)) {
        lua_pop(L, 1);
        keys++;
    }
    if (keys != found) lm_pb_unknown_key(L, t, m, fname);
    return root;
}

pb_val *lm_pb_from_table(lua_State *L, int idx, const pb_schema *s, int32_t msg, pb_arena *a, const char *fname) {
    pb_val *root = pb_val_root(a, msg);
    if (!root) luaL_error(L, "%s: out of memory", fname);
    if (!lua_istable(L, idx)) luaL_error(L, "%s: the message must be a table, got %s", fname, luaL_typename(L, idx));
    return lm_pb_msg(L, idx, s, root, a, fname, 0);
}

/* ---- tree -> Lua ---- */

static void lm_pb_push_int(lua_State *L, int64_t i) {
    if (i > 9007199254740992ll || i < -9007199254740992ll) {
        char b[24];
        snprintf(b, sizeof b, "%lld", (long long)i);
        lua_pushstring(L, b);
    } else {
        lua_pushnumber(L, (double)i);
    }
}

static void lm_pb_push_val(lua_State *L, const pb_schema *s, const pb_val *v) {
    switch (v->kind) {
    case PB_V_MSG: lm_pb_push(L, s, v); break;
    case PB_V_BYTES: lua_pushlstring(L, v->v.s.p, v->v.s.n); break;
    case PB_V_BOOL: lua_pushboolean(L, v->v.b); break;
    case PB_V_DOUBLE: lua_pushnumber(L, v->v.d); break;
    case PB_V_UINT:
        if (v->v.u > 9007199254740992ull) {
            char b[24];
            snprintf(b, sizeof b, "%llu", (unsigned long long)v->v.u);
            lua_pushstring(L, b);
        } else {
            lua_pushnumber(L, (double)v->v.u);
        }
        break;
    default: {
        const char *name = v->f->type == PB_ENUM ? pb_enum_name(pb_schema_enum(s, v->f->ref), (int32_t)v->v.i) : NULL;
        if (name) lua_pushstring(L, name);
        else lm_pb_push_int(L, v->v.i);
    }
    }
}

/* A map entry's key or value, or its type's default when absent. */
static void lm_pb_push_entry_part(lua_State *L, const pb_schema *s, const pb_val *e, uint32_t num) {
    for (const pb_val *c = e->v.m.first; c; c = c->next)
        if (c->f->number == num) {
            lm_pb_push_val(L, s, c);
            return;
        }
    const pb_field *f = pb_msg_field_by_number(pb_schema_msg(s, e->v.m.msg), num);
    switch (f ? pb_kind_of(f->type) : PB_V_MSG) {
    case PB_V_BYTES: lua_pushliteral(L, ""); break;
    case PB_V_BOOL: lua_pushboolean(L, 0); break;
    case PB_V_MSG: lua_newtable(L); break;
    default:
        if (f->type == PB_ENUM && pb_enum_name(pb_schema_enum(s, f->ref), 0))
            lua_pushstring(L, pb_enum_name(pb_schema_enum(s, f->ref), 0));
        else lua_pushnumber(L, 0);
    }
}

/* Clear the other members of c's oneof in the table on top (the last one read wins). */
static void lm_pb_oneof_clear(lua_State *L, const pb_schema *s, const pb_val *m, const pb_field *f) {
    const pb_msg *pm = pb_schema_msg(s, m->v.m.msg);
    for (size_t i = 0; i < pm->nfields; i++)
        if (pm->fields[i].oneof == f->oneof && &pm->fields[i] != f) {
            lua_pushnil(L);
            lua_setfield(L, -2, pm->fields[i].name);
        }
}

void lm_pb_push(lua_State *L, const pb_schema *s, const pb_val *m) {
    luaL_checkstack(L, 8, "protobuf");
    lua_newtable(L);
    for (const pb_val *c = m->v.m.first; c; c = c->next) {
        const pb_field *f = c->f;
        if (f->repeated) {
            lua_getfield(L, -1, f->name);
            if (lua_isnil(L, -1)) {
                lua_pop(L, 1);
                lua_newtable(L);
                lua_pushvalue(L, -1);
                lua_setfield(L, -3, f->name);
            }
            if (lm_pb_is_map(s, f)) {
                lm_pb_push_entry_part(L, s, c, 1);
                lm_pb_push_entry_part(L, s, c, 2);
                lua_rawset(L, -3);
            } else {
                lm_pb_push_val(L, s, c);
                lua_rawseti(L, -2, (int)lua_objlen(L, -2) + 1);
            }
            lua_pop(L, 1);
            continue;
        }
        if (f->oneof >= 0) lm_pb_oneof_clear(L, s, m, f);
        lm_pb_push_val(L, s, c);
        lua_setfield(L, -2, f->name);
    }
}

/* ---- luamech.protobuf ---- */

typedef struct lm_pbmod { pb_arena a; char *buf; size_t cap; } lm_pbmod;

static const pb_schema *lm_pb_self(lua_State *L) {
    lm_pb_ud *u = luaL_checkudata(L, 1, LM_PB_MT);
    if (!u->s) luaL_error(L, "protobuf: the schema is gone");
    return u->s;
}

static int32_t lm_pb_type(lua_State *L, const pb_schema *s, int idx, const char *fname) {
    const char *name = luaL_checkstring(L, idx);
    int32_t m = pb_schema_find_msg(s, name);
    if (m < 0) luaL_error(L, "%s: no message type '%s' in the schema", fname, name);
    return m;
}

static int lm_pb_encode_lua(lua_State *L) {
    const pb_schema *s = lm_pb_self(L);
    lm_pbmod *st = lua_touserdata(L, lua_upvalueindex(1));
    int32_t m = lm_pb_type(L, s, 2, "protobuf encode");
    pb_arena_reset(&st->a);
    pb_val *root = lm_pb_from_table(L, 3, s, m, &st->a, "protobuf encode");
    char err[300];
    int64_t n = pb_encode_size(s, root, NULL, err, sizeof err);
    if (n < 0) return luaL_error(L, "protobuf encode: %s", err);
    if (lm_buf_reserve(&st->buf, &st->cap, (size_t)n + 1) < 0) return luaL_error(L, "protobuf encode: out of memory");
    pb_encode_write(root, (uint8_t *)st->buf);
    lua_pushlstring(L, st->buf, (size_t)n);
    return 1;
}

static int lm_pb_decode_lua(lua_State *L) {
    const pb_schema *s = lm_pb_self(L);
    lm_pbmod *st = lua_touserdata(L, lua_upvalueindex(1));
    int32_t m = lm_pb_type(L, s, 2, "protobuf decode");
    size_t n;
    const char *b = luaL_checklstring(L, 3, &n);
    pb_arena_reset(&st->a);
    pb_val *root;
    char err[300];
    if (pb_decode(s, m, (const uint8_t *)b, n, &st->a, NULL, &root, err, sizeof err) < 0) {
        lua_pushnil(L);
        lua_pushstring(L, err);
        return 2;
    }
    lm_pb_push(L, s, root);
    return 1;
}

static int lm_pb_types_lua(lua_State *L) {
    const pb_schema *s = lm_pb_self(L);
    lua_newtable(L);
    for (size_t i = 0; i < pb_schema_nmsgs(s); i++) {
        lua_pushstring(L, pb_schema_msg(s, (int32_t)i)->name);
        lua_rawseti(L, -2, (int)i + 1);
    }
    return 1;
}

static int lm_pb_load_lua(lua_State *L) {
    lm_pb_load(L, lua_touserdata(L, lua_upvalueindex(1)), luaL_checkstring(L, 1), "luamech.protobuf.load");
    return 1;
}

static void lm_pbmod_close(void *p) {
    lm_pbmod *st = p;
    pb_arena_free(&st->a);
    free(st->buf);
    free(st);
}

void lm_protobuf_open(lua_State *L, worker *w) {
    lm_pbmod *st = calloc(1, sizeof *st);
    if (!st) luaL_error(L, "luamech.protobuf: out of memory");
    worker_on_close(w, lm_pbmod_close, st);
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, LM_PB_CACHE);
    luaL_newmetatable(L, LM_PB_MT);
    lua_pushcfunction(L, lm_pb_gc);
    lua_setfield(L, -2, "__gc");
    lua_newtable(L);
    static const luaL_Reg methods[] = {{"encode", lm_pb_encode_lua}, {"decode", lm_pb_decode_lua}, {NULL, NULL}};
    for (const luaL_Reg *r = methods; r->name; r++) {
        lua_pushlightuserdata(L, st);
        lua_pushcclosure(L, r->func, 1);
        lua_setfield(L, -2, r->name);
    }
    lua_pushcfunction(L, lm_pb_types_lua);
    lua_setfield(L, -2, "types");
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushlightuserdata(L, w);
    lua_pushcclosure(L, lm_pb_load_lua, 1);
    lua_setfield(L, -2, "load");
}
