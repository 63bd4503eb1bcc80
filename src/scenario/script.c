/* script.c - what every Lua state luamech creates shares: luamech.param,
 * luamech.version and the refusal of os.exit (the scenario loader's state,
 * a suite's, each worker's); the state a scenario or suite file is run in
 * (with lua/checks.lua, the checks scenario.lua and suite.lua share, as
 * require("luamech.checks")); the compiling of a VU script into a
 * factory of fresh closures; and lua/paths.lua's hook that resolves
 * relative paths against the scenario's folder.  It runs no VU script and knows nothing of
 * VUs, workers or protocols: the engine and the bindings (above) call it. */
#include "scenario/script.h"

#include <lauxlib.h>
#include <luajit.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/embedded.h"

static int script_param(lua_State *L) {
    const params *p = lua_touserdata(L, lua_upvalueindex(1));
    const char *v = params_get(p, luaL_checkstring(L, 1));
    if (v) lua_pushstring(L, v);
    else lua_pushvalue(L, 2);
    return 1;
}

/* os.exit in a scenario file or a script would end luamech at once, with
 * the script's code and without the run's results: it is refused. */
static int script_os_exit(lua_State *L) {
    return luaL_error(L, "os.exit is not allowed in luamech scenarios and scripts (it would end the run "
                         "without its results); return from init, or raise an error to fail a transaction");
}

/* Pushes a `luamech` table: param (reading p) and version. */
static void script_push_luamech(lua_State *L, const params *p) {
    lua_newtable(L);
    lua_pushlightuserdata(L, (void *)p);
    lua_pushcclosure(L, script_param, 1);
    lua_setfield(L, -2, "param");
    lua_pushstring(L, LUAMECH_VERSION);
    lua_setfield(L, -2, "version");
}

void script_register_static(lua_State *L, const params *p) {
    lua_getglobal(L, "os");
    if (lua_istable(L, -1)) {
        lua_pushcfunction(L, script_os_exit);
        lua_setfield(L, -2, "exit");
    }
    lua_pop(L, 1);
    script_push_luamech(L, p);
    lua_setglobal(L, "luamech");
}

void script_push_env(lua_State *L, const params *p) {
    lua_newtable(L);
    lua_newtable(L);                            /* its metatable: reads fall through */
    lua_pushvalue(L, LUA_GLOBALSINDEX);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
    script_push_luamech(L, p);
    lua_setfield(L, -2, "luamech");
}

/* package.preload's loader of "luamech.checks": the embedded checks.lua. */
static int script_checks_loader(lua_State *L) {
    size_t len;
    const char *src = embedded_lua_find("checks", &len);
    if (!src) return luaL_error(L, "internal error: no checks.lua");
    if (luaL_loadbuffer(L, src, len, "=checks.lua") != 0) return lua_error(L);
    lua_call(L, 0, 1);
    return 1;
}

lua_State *script_state_open(const char *path, const params *p, const char *what, char *err, size_t err_len) {
    if (access(path, R_OK) != 0) {
        snprintf(err, err_len, "%s: cannot read the %s file: %m", path, what);
        return NULL;
    }
    lua_State *L = luaL_newstate();
    if (!L) {
        snprintf(err, err_len, "%s: out of memory for a Lua state", path);
        return NULL;
    }
    luaL_openlibs(L);
    script_register_static(L, p);
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "preload");
    lua_pushcfunction(L, script_checks_loader);
    lua_setfield(L, -2, "luamech.checks");
    lua_pop(L, 2);
    return L;
}

const char *script_error_text(lua_State *L, int idx) {
    int t = lua_type(L, idx);
    if (t == LUA_TSTRING || t == LUA_TNUMBER) return lua_tostring(L, idx);
    if (t == LUA_TNIL) return "(error object is a nil value)";
    if (t == LUA_TBOOLEAN) return lua_toboolean(L, idx) ? "(error object is a boolean value: true)"
                                                      : "(error object is a boolean value: false)";
    if (t == LUA_TTABLE) return "(error object is a table value)";
    if (t == LUA_TFUNCTION) return "(error object is a function value)";
    if (t == LUA_TUSERDATA || t == LUA_TLIGHTUSERDATA) return "(error object is a userdata value)";
    return "(error object is not a string)";
}

/* ---- a time limit on a scenario or suite file's evaluation ---- */

#define SCRIPT_LIMIT_KEY "luamech.script_limit"
#define SCRIPT_LIMIT_EVERY 10000       /* instructions between two clock reads */

typedef struct script_limit {
    uint64_t deadline_ns;
    int hit;                           /* past the deadline: every instruction raises */
    char where[256];                   /* file:line when it was hit */
} script_limit;

static uint64_t script_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Every SCRIPT_LIMIT_EVERY instructions: the clock against the deadline.
 * Once past it, the hook fires at every instruction and raises, so a
 * pcall in the script cannot swallow the stop and spin on. */
static void script_limit_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    lua_getfield(L, LUA_REGISTRYINDEX, SCRIPT_LIMIT_KEY);
    script_limit *lim = lua_touserdata(L, -1);
    lua_pop(L, 1);
    if (!lim) return;
    if (!lim->hit) {
        if (script_now_ns() < lim->deadline_ns) return;
        lim->hit = 1;
        lua_Debug d;
        if (lua_getstack(L, 0, &d) && lua_getinfo(L, "Sl", &d) && d.currentline > 0)
            snprintf(lim->where, sizeof lim->where, "%s:%d", d.short_src, d.currentline);
        lua_sethook(L, script_limit_hook, LUA_MASKCOUNT, 1);
    }
    lua_pushstring(L, "stopped: the file ran past its time limit");
    lua_error(L);
}

int script_pcall_limited(lua_State *L, int nargs, int nresults, const char *path, int64_t limit_ns, char *err,
                         size_t err_len) {
    script_limit lim = {script_now_ns() + (uint64_t)(limit_ns > 0 ? limit_ns : SCRIPT_LIMIT_DEFAULT_NS), 0, ""};
    lua_pushlightuserdata(L, &lim);
    lua_setfield(L, LUA_REGISTRYINDEX, SCRIPT_LIMIT_KEY);
    luaJIT_setmode(L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_OFF);   /* compiled code would not see the hook */
    lua_sethook(L, script_limit_hook, LUA_MASKCOUNT, SCRIPT_LIMIT_EVERY);
    int rc = lua_pcall(L, nargs, nresults, 0);
    lua_sethook(L, NULL, 0, 0);
    luaJIT_setmode(L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_ON);
    lua_pushnil(L);
    lua_setfield(L, LUA_REGISTRYINDEX, SCRIPT_LIMIT_KEY);
    if (lim.hit) {
        char limit[32];
        int64_t ns = limit_ns > 0 ? limit_ns : SCRIPT_LIMIT_DEFAULT_NS;
        if (ns % 1000000000 == 0) snprintf(limit, sizeof limit, "%llds", (long long)(ns / 1000000000));
        else snprintf(limit, sizeof limit, "%.0fms", (double)ns / 1e6);
        snprintf(err, err_len, "%s: still running after %s, the time limit of a scenario file%s%s (a loop that "
                 "never ends?); a long preparation belongs in setup() or a VU's init (the limit: %s, docs/lua-api.md)",
                 path, limit, lim.where[0] ? ", stopped at " : "", lim.where, SCRIPT_LIMIT_ENV);
        if (rc == 0) lua_pop(L, nresults);
        return -1;
    }
    if (rc != 0) {
        int text = lua_type(L, -1) == LUA_TSTRING || lua_type(L, -1) == LUA_TNUMBER;
        snprintf(err, err_len, "%s%s%s", text ? "" : path, text ? "" : ": ", script_error_text(L, -1));
        lua_pop(L, 1);
        return -1;
    }
    return 0;
}

lua_State *script_state_load(const char *path, const params *p, const char *what, int64_t limit_ns, char *err,
                             size_t err_len) {
    lua_State *L = script_state_open(path, p, what, err, err_len);
    if (!L) return NULL;
    if (luaL_loadfile(L, path) != 0) {
        snprintf(err, err_len, "%s", script_error_text(L, -1));
        lua_close(L);
        return NULL;
    }
    if (script_pcall_limited(L, 0, 1, path, limit_ns, err, err_len) != 0) {
        lua_close(L);
        return NULL;
    }
    return L;
}

int script_load(lua_State *L, const char *path, char *err, size_t err_len) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_len, "%s: cannot open: %m", path);
        return -1;
    }
    static const char head[] = "return function(...) ";
    static const char tail[] = "\nend";
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = n >= 0 ? malloc(sizeof head + (size_t)n + sizeof tail) : NULL;
    if (!buf) {
        fclose(f);
        snprintf(err, err_len, "%s: cannot read (%s)", path, n < 0 ? "not a regular file" : "out of memory");
        return -1;
    }
    size_t got = fread(buf + sizeof head - 1, 1, (size_t)n, f);
    fclose(f);
    memcpy(buf, head, sizeof head - 1);
    char *body = buf + sizeof head - 1;
    if (got >= 2 && body[0] == '#' && body[1] == '!') body[0] = body[1] = '-';  /* shebang */
    memcpy(body + got, tail, sizeof tail);
    char chunkname[1024];
    snprintf(chunkname, sizeof chunkname, "@%s", path);
    int rc = luaL_loadbuffer(L, buf, sizeof head - 1 + got + sizeof tail - 1, chunkname);
    free(buf);
    if (rc != 0) {
        snprintf(err, err_len, "%s", script_error_text(L, -1));
        lua_pop(L, 1);
        return -1;
    }
    return 0;
}

typedef struct script_recorder {
    script_record_fn fn;
    void *ctx;
} script_recorder;

static int script_record_lua(lua_State *L) {
    const script_recorder *r = lua_touserdata(L, lua_upvalueindex(1));
    r->fn(r->ctx, luaL_checkstring(L, 1));
    return 0;
}

int script_install_paths(lua_State *L, const char *root, script_record_fn record, void *ctx, char *err,
                         size_t err_len) {
    size_t len;
    const char *src = embedded_lua_find("paths", &len);
    if (!src || luaL_loadbuffer(L, src, len, "=paths.lua") != 0) {
        snprintf(err, err_len, "internal error: cannot load paths.lua");
        if (src) lua_pop(L, 1);
        return -1;
    }
    lua_pushstring(L, root);
    if (record) {
        script_recorder *r = lua_newuserdata(L, sizeof *r);
        r->fn = record;
        r->ctx = ctx;
        lua_pushcclosure(L, script_record_lua, 1);
    } else {
        lua_pushnil(L);
    }
    if (lua_pcall(L, 2, 1, 0) != 0) {
        snprintf(err, err_len, "internal error: paths.lua: %s", lua_tostring(L, -1));
        lua_pop(L, 1);
        return -1;
    }
    return 0;
}
