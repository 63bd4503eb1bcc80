/* lm_random.c - binds the distributions of luamech.random (zipf, gaussian,
 * exponential, pareto, weighted) and luamech.keys (memtier/YCSB key
 * patterns).  Each constructor checks its arguments and returns a generator
 * (a callable userdata) whose draws use the calling VU's random stream
 * (vu_random_u64), so runs with the same seed repeat.  Set-up may allocate
 * (alias tables); a draw does not, except for the key string it returns.
 * The sampling math lives in common/randdist.c; this file only binds it.
 * It also turns luamech.random into a callable table so that
 * luamech.random(m, n) keeps working. */
#include <lauxlib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/randdist.h"
#include "engine/vu_api.h"
#include "lua/lm_core.h"

#define LM_GEN_MT "luamech.random.generator"
#define LM_KEY_PREFIX_MAX 200
_Static_assert(LM_KEY_MAX >= LM_KEY_PREFIX_MAX + 21, "a key: prefix and up to 20 digits");

typedef enum lm_gen_kind {
    LM_GEN_ZIPF, LM_GEN_GAUSSIAN, LM_GEN_EXPONENTIAL, LM_GEN_PARETO, LM_GEN_WEIGHTED,
    LM_GEN_KEYS_SEQUENTIAL, LM_GEN_KEYS_UNIFORM, LM_GEN_KEYS_GAUSSIAN, LM_GEN_KEYS_ZIPF
} lm_gen_kind;

typedef struct lm_gen {
    lm_gen_kind kind;
    worker *w;
    const char *fname;     /* static: names the generator in errors */
    double a, b;           /* gaussian mean/sd, exponential mean, pareto scale/shape */
    double n;              /* keys: how many */
    uint64_t seq;          /* keys sequential: draws so far */
    rd_zipf zipf;
    rd_alias alias;        /* weighted: its keys are in the userdata's env table */
    size_t prefix_len;
    char prefix[LM_KEY_PREFIX_MAX + 1];
} lm_gen;

static uint64_t lm_rand_next(void *v) { return vu_random_u64(v); }

static lm_gen *lm_gen_new(lua_State *L, lm_gen_kind kind, const char *fname) {
    lm_gen *g = lua_newuserdata(L, sizeof *g);
    memset(g, 0, sizeof *g);
    g->kind = kind;
    g->w = lua_touserdata(L, lua_upvalueindex(1));
    g->fname = fname;
    luaL_getmetatable(L, LM_GEN_MT);
    lua_setmetatable(L, -2);
    return g;
}

/* luaL_checknumber with a message naming the function and the argument */
static double lm_rand_num(lua_State *L, int idx, const char *fname, const char *arg) {
    if (lua_type(L, idx) != LUA_TNUMBER)
        luaL_error(L, "%s: %s must be a number, got %s", fname, arg, luaL_typename(L, idx));
    double x = lua_tonumber(L, idx);
    if (!isfinite(x)) luaL_error(L, "%s: %s must be finite", fname, arg);
    return x;
}

static double lm_rand_count(lua_State *L, double n, const char *fname) {
    if (n < 1 || n != floor(n) || n > 9007199254740992.0)
        luaL_error(L, "%s: n must be a whole number between 1 and 2^53, got %f", fname, n);
    return n;
}

static int lm_rand_zipf(lua_State *L) {
    const char *f = "luamech.random.zipf(n, s)";
    double n = lm_rand_count(L, lm_rand_num(L, 1, f, "n"), f);
    double s = lua_isnoneornil(L, 2) ? 0.99 : lm_rand_num(L, 2, f, "s");
    if (!(s > 0) || s > 100) luaL_error(L, "%s: s must be > 0 and <= 100, got %f", f, s);
    lm_gen *g = lm_gen_new(L, LM_GEN_ZIPF, "zipf");
    rd_zipf_init(&g->zipf, n, s);
    return 1;
}

static int lm_rand_gaussian(lua_State *L) {
    const char *f = "luamech.random.gaussian(mean, sd)";
    double mean = lm_rand_num(L, 1, f, "mean");
    double sd = lm_rand_num(L, 2, f, "sd");
    if (sd < 0) luaL_error(L, "%s: sd must be >= 0, got %f", f, sd);
    lm_gen *g = lm_gen_new(L, LM_GEN_GAUSSIAN, "gaussian");
    g->a = mean;
    g->b = sd;
    return 1;
}

static int lm_rand_exponential(lua_State *L) {
    const char *f = "luamech.random.exponential(mean)";
    double mean = lm_rand_num(L, 1, f, "mean");
    if (!(mean > 0)) luaL_error(L, "%s: mean must be > 0, got %f", f, mean);
    lm_gen *g = lm_gen_new(L, LM_GEN_EXPONENTIAL, "exponential");
    g->a = mean;
    return 1;
}

static int lm_rand_pareto(lua_State *L) {
    const char *f = "luamech.random.pareto(scale, shape)";
    double xm = lm_rand_num(L, 1, f, "scale");
    double alpha = lm_rand_num(L, 2, f, "shape");
    if (!(xm > 0)) luaL_error(L, "%s: scale must be > 0, got %f", f, xm);
    if (!(alpha > 0)) luaL_error(L, "%s: shape must be > 0, got %f", f, alpha);
    lm_gen *g = lm_gen_new(L, LM_GEN_PARETO, "pareto");
    g->a = xm;
    g->b = alpha;
    return 1;
}

static int lm_rand_key_cmp(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The weights table's keys in a fixed order (sorted names, or 1..n for a
 * list), as an array at the top of the stack; returns how many. */
static size_t lm_rand_weight_keys(lua_State *L, const char *f) {
    size_t n = 0, strings = 0;
    lua_pushnil(L);
    while (lua_next(L, 1)) {
        lua_pop(L, 1);
        n++;
        if (lua_type(L, -1) == LUA_TSTRING) strings++;
    }
    if (n == 0) luaL_error(L, "%s: weights must not be empty", f);
    if (strings != 0 && strings != n) luaL_error(L, "%s: weights must be all named or a list, not both", f);
    if (n > 1000000) luaL_error(L, "%s: at most 1000000 weights", f);
    lua_createtable(L, (int)n, 0);
    if (strings == 0) {
        if (lua_objlen(L, 1) != n) luaL_error(L, "%s: a list of weights must be indexed 1..n", f);
        for (size_t i = 1; i <= n; i++) { lua_pushinteger(L, (lua_Integer)i); lua_rawseti(L, -2, (int)i); }
        return n;
    }
    const char **names = lua_newuserdata(L, n * sizeof *names);   /* collected with the stack */
    size_t i = 0;
    lua_pushnil(L);
    while (lua_next(L, 1)) { lua_pop(L, 1); names[i++] = lua_tostring(L, -1); }
    qsort(names, n, sizeof *names, lm_rand_key_cmp);
    for (i = 0; i < n; i++) { lua_pushstring(L, names[i]); lua_rawseti(L, -3, (int)i + 1); }
    lua_pop(L, 1);
    return n;
}

static int lm_rand_weighted(lua_State *L) {
    const char *f = "luamech.random.weighted{...}";
    if (lua_type(L, 1) != LUA_TTABLE)
        luaL_error(L, "%s: weights must be a table (e.g. { get = 90, set = 10 }), got %s", f, luaL_typename(L, 1));
    lua_settop(L, 1);
    size_t n = lm_rand_weight_keys(L, f);                /* keys at 2 */
    double *wts = lua_newuserdata(L, n * sizeof *wts);   /* at 3 */
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, 2, (int)i + 1);
        lua_gettable(L, 1);
        if (lua_type(L, -1) != LUA_TNUMBER || !(lua_tonumber(L, -1) >= 0) || !isfinite(lua_tonumber(L, -1))) {
            lua_rawgeti(L, 2, (int)i + 1);
            luaL_error(L, "%s: the weight of '%s' must be a number >= 0", f, lua_tostring(L, -1));
        }
        wts[i] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    lm_gen *g = lm_gen_new(L, LM_GEN_WEIGHTED, "weighted");
    int rc = rd_alias_init(&g->alias, wts, n);
    if (rc == -2) luaL_error(L, "%s: out of memory", f);
    if (rc != 0) luaL_error(L, "%s: the weights must not all be 0", f);
    lua_pushvalue(L, 2);
    lua_setfenv(L, -2);
    return 1;
}

/* luamech.keys{ pattern = ..., n = ..., prefix = "key:", s = 0.99, mean = ..., sd = ... } */
static int lm_keys(lua_State *L) {
    static const char *const known[] = {"pattern", "n", "prefix", "s", "mean", "sd", NULL};
    const char *f = "luamech.keys{pattern, n, prefix}";
    if (lua_type(L, 1) != LUA_TTABLE) luaL_error(L, "%s: an option table expected, got %s", f, luaL_typename(L, 1));
    lua_settop(L, 1);
    lm_check_options(L, 1, "luamech.keys", known);
    lua_getfield(L, 1, "pattern");
    const char *p = lua_tostring(L, -1);
    lm_gen_kind kind;
    if (!p) luaL_error(L, "%s: pattern is required: \"sequential\", \"uniform\", \"gaussian\" or \"zipf\"", f);
    if (strcmp(p, "sequential") == 0) kind = LM_GEN_KEYS_SEQUENTIAL;
    else if (strcmp(p, "uniform") == 0) kind = LM_GEN_KEYS_UNIFORM;
    else if (strcmp(p, "gaussian") == 0) kind = LM_GEN_KEYS_GAUSSIAN;
    else if (strcmp(p, "zipf") == 0) kind = LM_GEN_KEYS_ZIPF;
    else return luaL_error(L, "%s: unknown pattern '%s' (sequential, uniform, gaussian or zipf)", f, p);
    lua_getfield(L, 1, "n");
    double n = lm_rand_count(L, lm_rand_num(L, -1, f, "n"), f);
    lua_getfield(L, 1, "prefix");
    size_t plen = 0;
    const char *prefix = lua_isnil(L, -1) ? "key:" : lua_tolstring(L, -1, &plen);
    if (!prefix) luaL_error(L, "%s: prefix must be a string", f);
    if (lua_isnil(L, -1)) plen = strlen(prefix);
    if (plen > LM_KEY_PREFIX_MAX) luaL_error(L, "%s: prefix longer than %d bytes", f, LM_KEY_PREFIX_MAX);
    double s = 0.99, mean = (n + 1) / 2, sd = n / 6;
    lua_getfield(L, 1, "s");
    if (!lua_isnil(L, -1)) s = lm_rand_num(L, -1, f, "s");
    lua_getfield(L, 1, "mean");
    if (!lua_isnil(L, -1)) mean = lm_rand_num(L, -1, f, "mean");
    lua_getfield(L, 1, "sd");
    if (!lua_isnil(L, -1)) sd = lm_rand_num(L, -1, f, "sd");
    if (kind == LM_GEN_KEYS_ZIPF && (!(s > 0) || s > 100)) luaL_error(L, "%s: s must be > 0 and <= 100", f);
    if (kind == LM_GEN_KEYS_GAUSSIAN && !(sd > 0)) luaL_error(L, "%s: sd must be > 0", f);
    lm_gen *g = lm_gen_new(L, kind, "keys");
    g->n = n;
    g->a = mean;
    g->b = sd;
    if (kind == LM_GEN_KEYS_ZIPF) rd_zipf_init(&g->zipf, n, s);
    memcpy(g->prefix, prefix, plen);
    g->prefix_len = plen;
    return 1;
}

/* A key index in 1..n: gaussian draws outside are drawn again (at most 64
 * times, then clamped), as memtier does. */
static double lm_keys_index(lm_gen *g, rd_source *src) {
    switch (g->kind) {
    case LM_GEN_KEYS_SEQUENTIAL: return (double)(g->seq++ % (uint64_t)g->n) + 1;
    case LM_GEN_KEYS_UNIFORM: return (double)rd_below(src->next(src->ctx), (uint64_t)g->n) + 1;
    case LM_GEN_KEYS_ZIPF: return rd_zipf_draw(&g->zipf, src);
    default: break;
    }
    double k = 0;
    for (int i = 0; i < 64; i++) {
        k = floor(rd_gaussian(src, g->a, g->b) + 0.5);
        if (k >= 1 && k <= g->n) return k;
    }
    return k < 1 ? 1 : g->n;
}

/* the generator's name in "... must be called from a virtual user's script" */
static const char *lm_gen_call_name(lm_gen_kind kind) {
    switch (kind) {
    case LM_GEN_ZIPF: return "a luamech zipf generator";
    case LM_GEN_GAUSSIAN: return "a luamech gaussian generator";
    case LM_GEN_EXPONENTIAL: return "a luamech exponential generator";
    case LM_GEN_PARETO: return "a luamech pareto generator";
    case LM_GEN_WEIGHTED: return "a luamech weighted generator";
    default: return "a luamech keys generator";
    }
}

/* prefix .. decimal index into buf (LM_KEY_MAX bytes; no printf on the
 * draw path); returns its length */
static size_t lm_keys_write(const lm_gen *g, double index, char *buf) {
    char digits[24], *p = digits + sizeof digits;      /* written from the end */
    uint64_t x = (uint64_t)index;
    if (x <= UINT32_MAX) {                              /* 32-bit division: the usual key counts */
        uint32_t y = (uint32_t)x;
        do { uint32_t q = y / 10; *--p = (char)('0' + (y - q * 10)); y = q; } while (y);
    } else {
        do { uint64_t q = x / 10; *--p = (char)('0' + (x - q * 10)); x = q; } while (x);
    }
    size_t nd = (size_t)(digits + sizeof digits - p);
    memcpy(buf, g->prefix, g->prefix_len);
    memcpy(buf + g->prefix_len, p, nd);
    return g->prefix_len + nd;
}

static void lm_keys_push(lua_State *L, const lm_gen *g, double index) {
    char buf[LM_KEY_MAX];
    lua_pushlstring(L, buf, lm_keys_write(g, index, buf));
}

const void *lm_gen_metatable(lua_State *L) {
    luaL_getmetatable(L, LM_GEN_MT);
    const void *mt = lua_topointer(L, -1);
    lua_pop(L, 1);
    return mt;
}

int lm_keys_draw(void *ud, struct vu *v, char *buf) {
    lm_gen *g = ud;
    if (g->kind < LM_GEN_KEYS_SEQUENTIAL) return -1;
    if (v == NULL) return 0;                  /* only asked what it is */
    rd_source src = {lm_rand_next, v};
    return (int)lm_keys_write(g, lm_keys_index(g, &src), buf);
}

static int lm_gen_call(lua_State *L) {
    lm_gen *g = luaL_checkudata(L, 1, LM_GEN_MT);
    vu *v = lm_current_vu(L, g->w, lm_gen_call_name(g->kind));
    rd_source src = {lm_rand_next, v};
    switch (g->kind) {
    case LM_GEN_ZIPF: lua_pushnumber(L, rd_zipf_draw(&g->zipf, &src)); return 1;
    case LM_GEN_GAUSSIAN: lua_pushnumber(L, rd_gaussian(&src, g->a, g->b)); return 1;
    case LM_GEN_EXPONENTIAL: lua_pushnumber(L, rd_exponential(&src, g->a)); return 1;
    case LM_GEN_PARETO: lua_pushnumber(L, rd_pareto(&src, g->a, g->b)); return 1;
    case LM_GEN_WEIGHTED:
        lua_getfenv(L, 1);
        lua_rawgeti(L, -1, (int)rd_alias_draw(&g->alias, &src) + 1);
        return 1;
    default: break;
    }
    lm_keys_push(L, g, lm_keys_index(g, &src));
    return 1;
}

static int lm_gen_gc(lua_State *L) {
    lm_gen *g = luaL_checkudata(L, 1, LM_GEN_MT);
    rd_alias_free(&g->alias);
    return 0;
}

static int lm_gen_tostring(lua_State *L) {
    lm_gen *g = luaL_checkudata(L, 1, LM_GEN_MT);
    lua_pushfstring(L, "luamech %s generator", g->fname);
    return 1;
}

/* luamech.random(...) through the table's __call: the draw of
 * luamech.random's function, from the arguments after the table, called
 * directly (no stack shuffle, no lua_call: it is the scripts' hot path). */
static int lm_rand_call(lua_State *L) {
    return lm_random_draw(L, lua_touserdata(L, lua_upvalueindex(1)), 2);
}

void lm_random_open(lua_State *L, worker *w) {
    static const luaL_Reg fns[] = {
        {"zipf", lm_rand_zipf}, {"gaussian", lm_rand_gaussian}, {"exponential", lm_rand_exponential},
        {"pareto", lm_rand_pareto}, {"weighted", lm_rand_weighted}, {NULL, NULL}};
    static const luaL_Reg meta[] = {{"__call", lm_gen_call}, {"__gc", lm_gen_gc},
                                    {"__tostring", lm_gen_tostring}, {NULL, NULL}};
    luaL_newmetatable(L, LM_GEN_MT);
    luaL_register(L, NULL, meta);
    lua_pop(L, 1);
    lua_newtable(L);                          /* luamech.random */
    for (const luaL_Reg *f = fns; f->name; f++) {
        lua_pushlightuserdata(L, w);
        lua_pushcclosure(L, f->func, 1);
        lua_setfield(L, -2, f->name);
    }
    lua_newtable(L);                          /* its metatable */
    lua_pushlightuserdata(L, w);              /* luamech.random(m, n)'s draw */
    lua_pushcclosure(L, lm_rand_call, 1);
    lua_setfield(L, -2, "__call");
    lua_setmetatable(L, -2);
    lua_setfield(L, -2, "random");
    lua_pushlightuserdata(L, w);
    lua_pushcclosure(L, lm_keys, 1);
    lua_setfield(L, -2, "keys");
}
