/* fuzz_loaders.c - see fuzz_loaders.h.  Harness support only; not part of
 * luamech.  The process-wide state (the folder, the Lua state) is what a
 * libFuzzer harness keeps between inputs. */
#include "fuzz_loaders.h"

#include <lua.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scenario/script.h"

/* Identifiers that could loop, allocate without bound, reach the file
 * system or the process, or change a table every input shares (the Lua
 * state is reused; string methods are reached with ':'). */
static const char *const fz_banned[] = {
    "while", "repeat", "goto", "for", "function", "os", "io", "require", "load", "loadstring",
    "dofile", "loadfile", "debug", "ffi", "jit", "collectgarbage", "setmetatable",
    "getmetatable", "rawset", "string", "coroutine", "luamech", "_G", "getfenv", "setfenv",
    "module", "package", "print", "newproxy", "unpack", "table", "math", "select", "bit"};

static int fz_loader_banned(const char *id, size_t len) {
    for (size_t i = 0; i < sizeof fz_banned / sizeof fz_banned[0]; i++)
        if (strlen(fz_banned[i]) == len && memcmp(fz_banned[i], id, len) == 0) return 1;
    return 0;
}

static int fz_loader_ident(int c) { return c == '_' || ((c | 32) >= 'a' && (c | 32) <= 'z'); }

int fz_loader_input_ok(const uint8_t *data, size_t size) {
    if (size > 8192) return 0;
    for (size_t i = 0; i < size;) {
        if (data[i] == ':' && i + 1 < size && fz_loader_ident(data[i + 1])) return 0;
        if (!fz_loader_ident(data[i])) { i++; continue; }
        size_t j = i;
        while (j < size && (fz_loader_ident(data[j]) || (data[j] >= '0' && data[j] <= '9'))) j++;
        if (fz_loader_banned((const char *)data + i, j - i)) return 0;
        i = j;
    }
    return 1;
}

static int fz_loader_put(const char *path, const void *data, size_t size) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    int ok = fwrite(data, 1, size, f) == size;
    return fclose(f) == 0 && ok ? 0 : -1;
}

static char fz_loader_dirbuf[64];
static lua_State *fz_loader_L;
static params fz_loader_params;

static void fz_loader_cleanup(void) {
    char cmd[128];
    if (fz_loader_L) lua_close(fz_loader_L);
    params_free(&fz_loader_params);
    snprintf(cmd, sizeof cmd, "rm -rf %s", fz_loader_dirbuf);
    if (system(cmd) != 0) fprintf(stderr, "fuzz: could not remove %s\n", fz_loader_dirbuf);
}

/* The folder (in /dev/shm when it can be written, else /tmp; removed at
 * exit) with s.lua and sc.lua, and the Lua state: made on the first input. */
static lua_State *fz_loader_state(void) {
    if (fz_loader_L) return fz_loader_L;
    char *dir = fz_loader_dirbuf;
    snprintf(dir, sizeof fz_loader_dirbuf, "%s/luamech-fuzz-%d",
             access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", (int)getpid());
    char cmd[128], path[128], err[512];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
    if (system(cmd) != 0) abort();
    params_init(&fz_loader_params);
    atexit(fz_loader_cleanup);
    static const char script[] = "return function() end\n";
    static const char scen[] = "return { run_time = '1s', groups = { { vus = 1, script = 's.lua' } } }\n";
    snprintf(path, sizeof path, "%s/s.lua", dir);
    if (fz_loader_put(path, script, sizeof script - 1) != 0) abort();
    snprintf(path, sizeof path, "%s/sc.lua", dir);
    if (fz_loader_put(path, scen, sizeof scen - 1) != 0) abort();
    fz_loader_L = script_state_open(path, &fz_loader_params, "scenario", err, sizeof err);
    if (!fz_loader_L) {
        fprintf(stderr, "fuzz: %s\n", err);
        abort();
    }
    return fz_loader_L;
}

int fz_loader_one(const uint8_t *data, size_t size, const char *name, fz_load_fn load, fz_free_fn free_fn) {
    if (!fz_loader_input_ok(data, size)) return 0;
    lua_State *L = fz_loader_state();
    char path[160];
    snprintf(path, sizeof path, "%s/%s", fz_loader_dirbuf, name);
    params p;
    params_init(&p);
    scenario_overrides o;
    scenario_overrides_init(&o);
    scenario s;
    memset(&s, 0, sizeof s);
    char err[1024];
    err[0] = 0;
    if (load(&s, L, path, (const char *)data, size, &p, &o, err, sizeof err) != 0 && !err[0])
        abort();                                         /* a refusal says why */
    free_fn(&s);                                         /* also after a refusal */
    params_free(&p);
    if (lua_gettop(L) != 0) abort();                     /* the state is left as it was */
    return 0;
}
