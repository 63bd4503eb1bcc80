/* lm_data.c - luamech.data.csv(path [, opts]) and luamech.data.jsonl(path
 * [, opts]): a data file is read and checked once per process (the first
 * VU to ask parses it under the share's lock; CSV through Debian's libcsv,
 * JSON lines checked with luamech.json's decoder (jansson)), kept read-only in C memory
 * shared by every worker, and handed out a row at a time as a fresh Lua
 * table (nothing is copied per VU or per worker).  Rows are picked with
 * ds:next() (sequential across all VUs, circular, unique per VU, random),
 * ds:get(i) or ds:random().  It does not resolve paths (lua/paths.lua's
 * rule is applied through the share's folder) nor write anything. */
#include <csv.h>
#include <errno.h>
#include <lauxlib.h>
#include <lua.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/vu_api.h"
#include "lua/lm_core.h"
#include "lua/lm_json.h"
#include "lua/lm_share.h"


#define LM_DATA_MT "luamech.dataset"
#define LM_DATA_MAX_BYTES (4000LL * 1000 * 1000)  /* offsets are 32-bit */

enum { LM_CSV = 0, LM_JSONL = 1 };
enum { PICK_SEQUENTIAL = 0, PICK_CIRCULAR, PICK_UNIQUE, PICK_RANDOM };
enum { END_ERROR = 0, END_STOP, END_WRAP };

typedef struct lm_dataset {
    struct lm_dataset *next;
    char *key;                  /* kind, options and real path: one parse per key */
    char *name;                 /* the path as the script gave it (messages) */
    int kind, pick, on_end;
    char *buf;                  /* every field, each ended by a NUL */
    size_t len, cap;
    uint32_t *off;              /* field starts, row-major; nrows * ncols of them */
    int64_t nrows, cap_fields;
    int ncols;                  /* fields per row (1 for JSON lines) */
    int header;                 /* CSV: the first row named the fields */
    int64_t nheader;            /* fields of the header row, in off[0..ncols) */
    _Atomic int64_t cursor;     /* sequential and circular picks */
} lm_dataset;

/* ---- building ---- */

typedef struct lm_parse {
    lm_dataset *ds;
    int64_t line;               /* current line (1-based) */
    int64_t row_line;           /* line where the current row began */
    int nfields;                /* fields of the current row so far */
    char err[512];
} lm_parse;

static int lm_data_add_field(lm_dataset *ds, const char *s, size_t n) {
    if (ds->len + n + 1 > (size_t)LM_DATA_MAX_BYTES) return -1;
    if (grow_reserve(&ds->buf, &ds->cap, ds->len + n + 1, 65536, SIZE_MAX) != 0) return -1;
    memcpy(ds->buf + ds->len, s, n);
    ds->buf[ds->len + n] = 0;
    ds->len += n + 1;
    return 0;
}

/* Appends the start offset of a field that begins at ds->len. */
static int lm_data_add_off(lm_dataset *ds, int64_t index) {
    if (index >= ds->cap_fields) {
        int64_t cap = ds->cap_fields ? ds->cap_fields * 2 : 4096;
        uint32_t *o = realloc(ds->off, (size_t)cap * sizeof *o);
        if (!o) return -1;
        ds->off = o, ds->cap_fields = cap;
    }
    ds->off[index] = (uint32_t)ds->len;
    return 0;
}

static void lm_csv_field(void *s, size_t n, void *data) {
    lm_parse *p = data;
    lm_dataset *ds = p->ds;
    if (p->err[0]) return;
    if (p->nfields == 0) p->row_line = p->line;
    int64_t first = ds->nheader + ds->nrows * (ds->ncols ? ds->ncols : 0);
    if (ds->ncols && p->nfields >= ds->ncols) {          /* counted at the row's end */
        p->nfields++;
        return;
    }
    if (lm_data_add_off(ds, first + p->nfields) != 0 || lm_data_add_field(ds, s ? s : "", n) != 0) {
        snprintf(p->err, sizeof p->err, "line %lld: out of memory (or the file is over 4 GB)",
                 (long long)p->line);
        return;
    }
    p->nfields++;
}

static void lm_csv_row(int c, void *data) {
    (void)c;
    lm_parse *p = data;
    lm_dataset *ds = p->ds;
    if (p->err[0] || p->nfields == 0) return;
    if (ds->ncols == 0) {                     /* the first row sets the width */
        ds->ncols = p->nfields;
        if (ds->header) ds->nheader = ds->ncols;
        else ds->nrows = 1;
    } else if (p->nfields != ds->ncols) {
        snprintf(p->err, sizeof p->err, "line %lld: %d fields, expected %d (as %s)", (long long)p->row_line,
                 p->nfields, ds->ncols, ds->header ? "in the header" : "in the first row");
    } else {
        ds->nrows++;
    }
    p->nfields = 0;
}

static int lm_csv_no_space(unsigned char c) {
    (void)c;
    return 0;   /* spaces around fields are data */
}

/* Feed the file line by line so that errors carry their line number. */
static int lm_data_parse_csv(lm_dataset *ds, const char *text, size_t len, char delim, char *err, size_t err_len) {
    struct csv_parser cp;
    if (csv_init(&cp, CSV_STRICT | CSV_STRICT_FINI) != 0) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    csv_set_delim(&cp, (unsigned char)delim);
    csv_set_space_func(&cp, lm_csv_no_space);
    lm_parse p = {.ds = ds, .line = 1};
    size_t at = 0;
    while (at < len && !p.err[0]) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - (text + at)) + 1 : len - at;
        if (csv_parse(&cp, text + at, n, lm_csv_field, lm_csv_row, &p) != n && !p.err[0])
            snprintf(p.err, sizeof p.err, "line %lld: %s", (long long)p.line, csv_strerror(csv_error(&cp)));
        at += n;
        p.line++;
    }
    if (!p.err[0] && csv_fini(&cp, lm_csv_field, lm_csv_row, &p) != 0 && !p.err[0])
        snprintf(p.err, sizeof p.err, "line %lld: %s (a quoted field is not closed)", (long long)p.row_line,
                 csv_strerror(csv_error(&cp)));
    csv_free(&cp);
    if (p.err[0]) {
        snprintf(err, err_len, "%s", p.err);
        return -1;
    }
    return 0;
}

/* Each non-blank line is one JSON value, checked with the JSON decoder (on top
 * of L) now; rows are decoded again when a VU takes them. */
static int lm_data_parse_jsonl(lua_State *L, lm_dataset *ds, const char *text, size_t len, char *err,
                               size_t err_len) {
    ds->ncols = 1;
    int64_t line = 0;
    for (size_t at = 0; at < len; ) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
        const char *s = text + at;
        at += n + (nl ? 1 : 0);
        line++;
        size_t k = n;
        while (k > 0 && (s[k - 1] == '\r' || s[k - 1] == ' ' || s[k - 1] == '\t')) k--;
        size_t b = 0;
        while (b < k && (s[b] == ' ' || s[b] == '\t')) b++;
        if (b == k) continue;                     /* blank lines are skipped */
        lua_pushvalue(L, -1);
        lua_pushlstring(L, s + b, k - b);
        if (lua_pcall(L, 1, 0, 0) != 0) {
            snprintf(err, err_len, "line %lld: bad JSON: %s", (long long)line, lua_tostring(L, -1));
            lua_pop(L, 1);
            return -1;
        }
        if (lm_data_add_off(ds, ds->nrows) != 0 || lm_data_add_field(ds, s + b, k - b) != 0) {
            snprintf(err, err_len, "line %lld: out of memory (or the file is over 4 GB)", (long long)line);
            return -1;
        }
        ds->nrows++;
    }
    return 0;
}

static char *lm_data_slurp(const char *path, size_t *len, char *err, size_t err_len) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_len, "cannot open: %m");
        return NULL;
    }
    char *buf = NULL;
    size_t cap = 0, n = 0, got;
    do {
        if (n == cap) {
            cap = cap ? cap * 2 : 65536;
            char *b = cap <= (size_t)LM_DATA_MAX_BYTES * 2 ? realloc(buf, cap) : NULL;
            if (!b) {
                snprintf(err, err_len, "out of memory (or the file is over 4 GB)");
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = b;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
    } while (got > 0);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        snprintf(err, err_len, "cannot read: %m");
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

static void lm_data_free(lm_dataset *ds) {
    free(ds->key);
    free(ds->name);
    free(ds->buf);
    free(ds->off);
    free(ds);
}

void lm_data_free_all(lm_share *s) {
    for (lm_dataset *ds = s->sets, *next; ds; ds = next) {
        next = ds->next;
        lm_data_free(ds);
    }
    s->sets = NULL;
}

/* ---- options ---- */

typedef struct lm_data_opts {
    int header, pick, on_end;
    char delim;
} lm_data_opts;

static int lm_data_choice(lua_State *L, int idx, const char *field, const char *const *names, int dflt) {
    lua_getfield(L, idx, field);
    int r = dflt;
    if (!lua_isnil(L, -1)) {
        const char *v = lua_tostring(L, -1);
        r = -1;
        for (int i = 0; v && names[i]; i++) if (strcmp(v, names[i]) == 0) r = i;
        if (r < 0) luaL_error(L, "luamech.data: option %s: expected one of \"%s\", \"%s\", ... got %s", field,
                              names[0], names[1], v ? v : luaL_typename(L, -1));
    }
    lua_pop(L, 1);
    return r;
}

static void lm_data_options(lua_State *L, int kind, lm_data_opts *o) {
    static const char *const csv_known[] = {"header", "separator", "pick", "on_end", NULL};
    static const char *const jsonl_known[] = {"pick", "on_end", NULL};
    static const char *const picks[] = {"sequential", "circular", "unique", "random", NULL};
    static const char *const ends[] = {"error", "stop", "wrap", NULL};
    *o = (lm_data_opts){.header = 1, .delim = ','};
    if (lua_isnoneornil(L, 2)) return;
    luaL_checktype(L, 2, LUA_TTABLE);
    lm_check_options(L, 2, kind == LM_CSV ? "luamech.data.csv" : "luamech.data.jsonl",
                     kind == LM_CSV ? csv_known : jsonl_known);
    o->pick = lm_data_choice(L, 2, "pick", picks, PICK_SEQUENTIAL);
    o->on_end = lm_data_choice(L, 2, "on_end", ends, END_ERROR);
    lua_getfield(L, 2, "header");
    if (!lua_isnil(L, -1)) {
        if (!lua_isboolean(L, -1)) luaL_error(L, "luamech.data.csv: option header: expected true or false");
        o->header = lua_toboolean(L, -1);
    }
    lua_getfield(L, 2, "separator");
    if (!lua_isnil(L, -1)) {
        size_t n;
        const char *d = lua_tolstring(L, -1, &n);
        if (!d || n != 1 || *d == '"' || *d == '\n' || *d == '\r')
            luaL_error(L, "luamech.data.csv: option separator: expected one character such as \",\" or \"\\t\"");
        o->delim = *d;
    }
    lua_pop(L, 2);
}

/* ---- loading ---- */

static lm_dataset *lm_data_find(lm_share *s, const char *key) {
    for (lm_dataset *ds = s->sets; ds; ds = ds->next)
        if (strcmp(ds->key, key) == 0) return ds;
    return NULL;
}

/* Parse the file now (under the share's lock); NULL with err. */
static lm_dataset *lm_data_build(lua_State *L, int kind, const char *path, const char *name,
                                 const lm_data_opts *o, const char *key, char *err, size_t err_len) {
    lm_dataset *ds = calloc(1, sizeof *ds);
    size_t len = 0;
    char *text = ds ? lm_data_slurp(path, &len, err, err_len) : NULL;
    if (!ds || !text) {
        if (!ds) snprintf(err, err_len, "out of memory");
        free(ds);
        return NULL;
    }
    ds->kind = kind, ds->pick = o->pick, ds->on_end = o->on_end, ds->header = kind == LM_CSV && o->header;
    ds->key = strdup(key);
    ds->name = strdup(name);
    int rc = kind == LM_CSV ? lm_data_parse_csv(ds, text, len, o->delim, err, err_len)
                            : lm_data_parse_jsonl(L, ds, text, len, err, err_len);
    free(text);
    if (rc == 0 && ds->nrows == 0) {
        snprintf(err, err_len, "no rows%s", ds->header ? " after the header" : "");
        rc = -1;
    }
    if (rc != 0 || !ds->key || !ds->name) {
        if (rc == 0) snprintf(err, err_len, "out of memory");
        lm_data_free(ds);
        return NULL;
    }
    char *b = realloc(ds->buf, ds->len);             /* give back the growth slack */
    if (b) ds->buf = b, ds->cap = ds->len;
    int64_t nf = ds->nheader + ds->nrows * ds->ncols;
    uint32_t *offs = realloc(ds->off, (size_t)nf * sizeof *offs);
    if (offs) ds->off = offs, ds->cap_fields = nf;
    return ds;
}

static worker *lm_data_worker(lua_State *L) { return lua_touserdata(L, lua_upvalueindex(1)); }

/* luamech.data.csv / jsonl: the data set as a userdata, one per worker
 * and key (cached in the table at upvalue 2). */
static int lm_data_open(lua_State *L, int kind) {
    worker *w = lm_data_worker(L);
    const char *fname = kind == LM_CSV ? "luamech.data.csv" : "luamech.data.jsonl";
    const char *name = luaL_checkstring(L, 1);
    lm_data_opts o;
    lm_data_options(L, kind, &o);
    lm_share *s = worker_script_ctx(w);
    if (!s) return luaL_error(L, "%s: not available here", fname);
    char path[4096], key[4200], err[600];
    if (name[0] == '/') snprintf(path, sizeof path, "%s", name);
    else snprintf(path, sizeof path, "%s/%s", s->root, name);
    char *real = realpath(path, NULL);
    if (!real) return luaL_error(L, "%s(\"%s\"): cannot open %s: %s", fname, name, path, strerror(errno));
    snprintf(key, sizeof key, "%d %d %d %d %d %s", kind, o.header, o.pick, o.on_end, o.delim, real);
    free(real);
    lua_pushstring(L, key);
    lua_rawget(L, lua_upvalueindex(2));
    if (!lua_isnil(L, -1)) return 1;
    lua_pop(L, 1);
    if (kind == LM_JSONL) lua_pushvalue(L, lua_upvalueindex(3));   /* the JSON decoder, for the check */
    uv_mutex_lock(&s->mu);
    lm_dataset *ds = lm_data_find(s, key);
    err[0] = 0;
    if (!ds && (ds = lm_data_build(L, kind, path, name, &o, key, err, sizeof err))) {
        ds->next = s->sets;
        s->sets = ds;
    }
    uv_mutex_unlock(&s->mu);
    if (!ds) return luaL_error(L, "%s(\"%s\"): %s: %s", fname, name, path, err);
    lm_share_record(s, path);
    lm_dataset **ud = lua_newuserdata(L, sizeof *ud);
    *ud = ds;
    luaL_getmetatable(L, LM_DATA_MT);
    lua_setmetatable(L, -2);
    lua_newtable(L);                             /* unique pick: per VU cursors */
    lua_setfenv(L, -2);
    lua_pushstring(L, key);
    lua_pushvalue(L, -2);
    lua_rawset(L, lua_upvalueindex(2));
    return 1;
}

static int lm_data_csv(lua_State *L) { return lm_data_open(L, LM_CSV); }
static int lm_data_jsonl(lua_State *L) { return lm_data_open(L, LM_JSONL); }

/* ---- rows ---- */

static lm_dataset *lm_data_check(lua_State *L) { return *(lm_dataset **)luaL_checkudata(L, 1, LM_DATA_MT); }

/* Push row r (0-based) as a table: CSV with a header by field name, else a
 * list; a JSON line decoded (the JSON decoder at upvalue 1 of the method). */
static int lm_data_push_row(lua_State *L, const lm_dataset *ds, int64_t r) {
    const uint32_t *f = ds->off + ds->nheader + r * ds->ncols;
    if (ds->kind == LM_JSONL) {
        lua_pushvalue(L, lua_upvalueindex(1));
        lua_pushstring(L, ds->buf + f[0]);
        lua_call(L, 1, 1);
        return 1;
    }
    lua_createtable(L, ds->header ? 0 : ds->ncols, ds->header ? ds->ncols : 0);
    for (int c = 0; c < ds->ncols; c++) {
        if (ds->header) lua_pushstring(L, ds->buf + ds->off[c]);
        lua_pushstring(L, ds->buf + f[c]);
        if (ds->header) lua_rawset(L, -3);
        else lua_rawseti(L, -2, c + 1);
    }
    return 1;
}

static int lm_data_get(lua_State *L) {
    lm_dataset *ds = lm_data_check(L);
    lua_Number i = luaL_checknumber(L, 2);
    if (!(i >= 1 && i <= (lua_Number)ds->nrows) || i != (lua_Number)(int64_t)i) {
        char msg[400];
        snprintf(msg, sizeof msg, "%s: get(%.17g): rows are 1 to %lld", ds->name, (double)i, (long long)ds->nrows);
        return luaL_error(L, "%s", msg);
    }
    return lm_data_push_row(L, ds, (int64_t)i - 1);
}

static int64_t lm_data_random_row(vu *v, int64_t n) {
    return (int64_t)(((unsigned __int128)vu_random_u64(v) * (uint64_t)n) >> 64);
}

static int lm_data_random(lua_State *L) {
    lm_dataset *ds = lm_data_check(L);
    vu *v = lm_current_vu(L, lua_touserdata(L, lua_upvalueindex(2)), "dataset:random");
    return lm_data_push_row(L, ds, lm_data_random_row(v, ds->nrows));
}

static const char *const lm_pick_names[] = {"sequential", "circular", "unique", "random"};

/* Past the last row of a sequential or unique pick. */
static int lm_data_exhausted(lua_State *L, const lm_dataset *ds, worker *w, int64_t k) {
    if (ds->on_end == END_WRAP) return lm_data_push_row(L, ds, k % ds->nrows);
    if (ds->on_end == END_STOP) {
        char why[300];
        snprintf(why, sizeof why, "data %s: all %lld rows used", ds->name, (long long)ds->nrows);
        worker_script_stop(w, 0, why);
        lua_pushnil(L);
        return 1;
    }
    char msg[400];                         /* luaL_error knows no %lld */
    snprintf(msg, sizeof msg, "%s: all %lld rows used (pick = \"%s\"); set on_end = \"wrap\" to start again or "
             "\"stop\" to end the run", ds->name, (long long)ds->nrows, lm_pick_names[ds->pick]);
    return luaL_error(L, "%s", msg);
}

/* ds:next(): the next row by the data set's pick; nil once the run is
 * stopping when on_end = "stop". */
static int lm_data_next(lua_State *L) {
    lm_dataset *ds = lm_data_check(L);
    worker *w = lua_touserdata(L, lua_upvalueindex(2));
    vu *v = lm_current_vu(L, w, "dataset:next");
    int64_t k;
    switch (ds->pick) {
    case PICK_RANDOM: return lm_data_push_row(L, ds, lm_data_random_row(v, ds->nrows));
    case PICK_CIRCULAR: return lm_data_push_row(L, ds, atomic_fetch_add(&((lm_dataset *)ds)->cursor, 1) % ds->nrows);
    case PICK_UNIQUE: {                      /* VU id i of T takes rows i-1, i-1+T, ... */
        lua_getfenv(L, 1);
        lua_rawgeti(L, -1, vu_id(v));
        int64_t used = (int64_t)lua_tonumber(L, -1);
        lua_pop(L, 1);
        lua_pushnumber(L, (lua_Number)(used + 1));
        lua_rawseti(L, -2, vu_id(v));
        lua_pop(L, 1);
        int64_t total = scenario_total_vus(worker_scenario(w));
        k = (int64_t)(vu_id(v) - 1) + used * total;
        break;
    }
    default: k = atomic_fetch_add(&ds->cursor, 1); break;
    }
    if (k >= ds->nrows) return lm_data_exhausted(L, ds, w, k);
    return lm_data_push_row(L, ds, k);
}

static int lm_data_len(lua_State *L) {
    lua_pushnumber(L, (lua_Number)lm_data_check(L)->nrows);
    return 1;
}

static int lm_data_tostring(lua_State *L) {
    lm_dataset *ds = lm_data_check(L);
    lua_pushfstring(L, "luamech.dataset(%s, %d rows)", ds->name, (int)ds->nrows);
    return 1;
}

static int lm_data_columns(lua_State *L) {
    lm_dataset *ds = lm_data_check(L);
    if (!ds->header) {
        lua_pushnil(L);
        return 1;
    }
    lua_createtable(L, ds->ncols, 0);
    for (int c = 0; c < ds->ncols; c++) {
        lua_pushstring(L, ds->buf + ds->off[c]);
        lua_rawseti(L, -2, c + 1);
    }
    return 1;
}

/* Method closures get (the JSON decoder, worker) as upvalues. */
static void lm_data_metatable(lua_State *L, worker *w) {
    static const luaL_Reg methods[] = {{"get", lm_data_get}, {"next", lm_data_next}, {"random", lm_data_random},
                                       {"len", lm_data_len}, {"columns", lm_data_columns}, {NULL, NULL}};
    static const luaL_Reg meta[] = {{"__len", lm_data_len}, {"__tostring", lm_data_tostring}, {NULL, NULL}};
    luaL_newmetatable(L, LM_DATA_MT);
    lua_newtable(L);
    for (const luaL_Reg *m = methods; m->name; m++) {
        lua_pushvalue(L, -3);                    /* decode */
        lua_pushlightuserdata(L, w);
        lua_pushcclosure(L, m->func, 2);
        lua_setfield(L, -2, m->name);
    }
    lua_setfield(L, -2, "__index");
    luaL_register(L, NULL, meta);
    lua_pop(L, 1);
}

/* decode(text) -> value, raising "line L column C: why": the JSON lines'
 * check at load and the rows' decoding share it (luamech.json's decoder). */
static int lm_data_json_decode(lua_State *L) {
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    char err[256];
    if (!lm_json_decode(L, s, len, NULL, err, sizeof err)) return luaL_error(L, "%s", err);   /* local files: no limits */
    return 1;
}

/* luamech.data, into the luamech table on top of L. */
void lm_data_open_lua(lua_State *L, worker *w) {
    lua_pushcfunction(L, lm_data_json_decode);   /* decode */
    lm_data_metatable(L, w);
    lua_newtable(L);
    lua_pushlightuserdata(L, w);
    lua_newtable(L);                             /* key -> data set, this worker's */
    lua_pushcclosure(L, lm_data_csv, 2);
    lua_setfield(L, -2, "csv");
    lua_pushlightuserdata(L, w);
    lua_newtable(L);
    lua_pushvalue(L, -4);                        /* decode */
    lua_pushcclosure(L, lm_data_jsonl, 3);
    lua_setfield(L, -2, "jsonl");
    lua_setfield(L, -3, "data");
    lua_pop(L, 1);                               /* decode */
}
