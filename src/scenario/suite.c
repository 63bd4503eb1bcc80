/* suite.c - reads a suite file with lua/suite.lua and loads each run's
 * scenario into suite->phases[i], with the run's own -e parameters and
 * overrides.  Precedence, highest first: the command line's flags, then the
 * suite entry (a run's own fields or sweep value, else the suite's top-level
 * fields), then the scenario file.  A flag that sets the swept setting is
 * refused (every run would be the same).  Each run's final plan is checked
 * by plan_check (in scenario_load).  suite_load_state does the same for
 * suite text in memory, in a Lua state the caller reuses.  It runs nothing
 * itself. */
#include "scenario/suite.h"

#include <lauxlib.h>
#include <libgen.h>
#include <lualib.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/embedded.h"
#include "common/units.h"
#include "scenario/script.h"
#include "scenario/plan.h"

/* The suite's value of field (range-checked by suite.lua) where the
 * command line gave none (cur < 0): flags win. */
static int64_t suite_num(lua_State *L, const char *field, int64_t cur) {
    if (cur >= 0) return cur;
    lua_getfield(L, -1, field);
    double d = lua_isnumber(L, -1) ? lua_tonumber(L, -1) : -1;
    lua_pop(L, 1);
    return d >= 0 && d <= 9.0e18 ? (int64_t)d : cur;
}

/* The run table at the top of L, under the command line's overrides. */
static void suite_overrides(lua_State *L, const scenario_overrides *cli, scenario_overrides *o) {
    *o = *cli;
    lua_getfield(L, -1, "overrides");
    o->vus = suite_num(L, "vus", o->vus);
    o->workers = suite_num(L, "workers", o->workers);
    o->requests = suite_num(L, "requests", o->requests);
    o->seed = suite_num(L, "seed", o->seed);
    o->run_time_ns = suite_num(L, "duration_ns", o->run_time_ns);
    o->rampup_ns = suite_num(L, "rampup_ns", o->rampup_ns);
    o->interval_ns = suite_num(L, "interval_ns", o->interval_ns);
    lua_pop(L, 1);
}

/* A flag for the setting the suite sweeps would make every run the same. */
static int suite_check_sweep(lua_State *L, const scenario_overrides *cli, char *err, size_t err_len) {
    static const struct { const char *key, *flag; size_t off; } map[] = {
        {"vus", "--vus", offsetof(scenario_overrides, vus)},
        {"workers", "--workers", offsetof(scenario_overrides, workers)},
        {"requests", "--requests", offsetof(scenario_overrides, requests)},
        {"seed", "--seed", offsetof(scenario_overrides, seed)},
        {"duration", "--duration", offsetof(scenario_overrides, run_time_ns)},
        {"rampup", "--rampup", offsetof(scenario_overrides, rampup_ns)},
        {"interval", "--interval", offsetof(scenario_overrides, interval_ns)},
    };
    lua_getfield(L, -1, "swept");
    const char *key = lua_tostring(L, -1);
    int rc = 0;
    for (size_t i = 0; key && i < sizeof map / sizeof map[0]; i++) {
        int64_t v;
        memcpy(&v, (const char *)cli + map[i].off, sizeof v);
        if (strcmp(key, map[i].key) == 0 && v >= 0) {
            snprintf(err, err_len, "%s: the suite sweeps %s; the flag would make every run the same", map[i].flag, key);
            rc = -2;
        }
    }
    lua_pop(L, 1);
    return rc;
}

/* The command line's -e, then the run's (which win: params_get takes the last). */
static params *suite_params(lua_State *L, const params *cli) {
    params *p = calloc(1, sizeof *p);
    params_init(p);
    for (size_t i = 0; i < cli->n; i++) {
        char buf[4096];
        snprintf(buf, sizeof buf, "%s=%s", cli->names[i], cli->values[i]);
        params_add(p, buf);
    }
    lua_getfield(L, -1, "params");
    for (lua_pushnil(L); lua_next(L, -2); lua_pop(L, 1)) {
        char buf[4096];
        lua_pushvalue(L, -2);          /* a copy: lua_tostring must not turn the key itself into a string */
        const char *name = lua_tostring(L, -1), *value = lua_tostring(L, -2);
        if (name && value) {
            snprintf(buf, sizeof buf, "%s=%s", name, value);
            params_add(p, buf);
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return p;
}

static int suite_run_checker(lua_State *L, const char *path, int64_t limit_ns, char *err, size_t err_len) {
    char *tmp = strdup(path);
    if (!tmp) {
        snprintf(err, err_len, "%s: out of memory", path);
        return -1;
    }
    if (scenario_push_checker(L, "suite", err, err_len) != 0) {
        free(tmp);
        return -1;
    }
    lua_pushvalue(L, -2);
    lua_pushstring(L, path);
    lua_pushstring(L, dirname(tmp));
    lua_pushcfunction(L, scenario_lua_duration);
    lua_pushcfunction(L, scenario_lua_count);
    plan_push_rules(L);
    free(tmp);
    return script_pcall_limited(L, 6, 1, path, limit_ns, err, err_len);   /* __index may loop */
}

/* A run's scenario file read whole into memory (suite_load_state's runs);
 * NULL when it is not a readable regular file (the file loader then says
 * why, as it would). */
static char *suite_read(const char *path, size_t *len, char *err, size_t err_len) {
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n = -1;
    struct stat st;
    if (f && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && fseek(f, 0, SEEK_END) == 0 &&
        (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
        *len = (size_t)n;
        fclose(f);
        return buf;
    }
    snprintf(err, err_len, "%s: cannot read the scenario file: %m", path);
    free(buf);
    if (f) fclose(f);
    return NULL;
}

/* One run's scenario: from its file, or (L given) read into memory and
 * loaded in L. */
static int suite_load_one(scenario *ph, lua_State *L, const char *path, params *rp, const scenario_overrides *ov,
                          char *err, size_t err_len) {
    size_t len;
    char *src = L ? suite_read(path, &len, err, err_len) : NULL;
    if (!src) return scenario_load(ph, path, rp, ov, err, err_len);   /* its message */
    int rc = scenario_load_state(ph, L, path, src, len, rp, ov, err, err_len);
    free(src);
    return rc;
}

static int suite_load_runs(scenario *s, lua_State *L, int reuse, const params *p, const scenario_overrides *o,
                           char *err, size_t err_len) {
    lua_getfield(L, -1, "runs");
    s->nphases = (int)lua_objlen(L, -1);
    s->phases = calloc((size_t)s->nphases, sizeof *s->phases);
    for (int i = 0; i < s->nphases; i++) {
        lua_rawgeti(L, -1, i + 1);
        scenario_overrides ov;
        suite_overrides(L, o, &ov);
        params *rp = suite_params(L, p);
        lua_getfield(L, -1, "scenario");
        char *path = strdup(lua_tostring(L, -1));
        lua_getfield(L, -2, "name");
        char *name = strdup(lua_tostring(L, -1));
        lua_getfield(L, -3, "origin");
        char *origin = strdup(lua_tostring(L, -1));
        lua_pop(L, 4);
        ov.name = name;
        ov.origin = origin;
        scenario *ph = &s->phases[i];
        int rc = suite_load_one(ph, reuse ? L : NULL, path, rp, &ov, err, err_len);
        ph->params = rp;
        if (rc == 0 && ph->nphases > 0) {
            snprintf(err, err_len, "%s: runs[%d]: %s has phases; a suite runs plain scenarios", s->path, i + 1, path);
            rc = -1;
        }
        free(path);
        free(name);
        free(origin);
        if (rc != 0) return rc;
    }
    lua_pop(L, 1);
    return 0;
}

/* After the suite's chunk (its value on top of L): the checker, then every
 * run (reuse: in L, from memory). */
static int suite_load_checked(scenario *s, lua_State *L, int reuse, const char *path, const params *p,
                              const scenario_overrides *o, char *err, size_t err_len) {
    if (suite_run_checker(L, path, o->load_limit_ns, err, err_len) != 0) return -1;
    char why[256];
    lua_getfield(L, -1, "name");
    s->name = strdup(lua_tostring(L, -1));
    lua_pop(L, 1);
    if (!s->name) {
        snprintf(err, err_len, "%s: out of memory", path);
        return -1;
    }
    if (plan_name_check(s->name, why, sizeof why) != 0) {
        snprintf(err, err_len, "%s: name: %s", path, why);
        return -1;
    }
    int rc = suite_check_sweep(L, o, err, err_len);
    return rc == 0 ? suite_load_runs(s, L, reuse, p, o, err, err_len) : rc;
}

/* 0, or -1 with a message when the path cannot be copied. */
static int suite_start(scenario *s, const char *path, char *err, size_t err_len) {
    if (scenario_set_path(s, path, err, err_len) != 0) return -1;
    s->interval_ns = PLAN_DEFAULT_INTERVAL_NS;
    s->is_suite = 1;
    return 0;
}

int suite_load(scenario *s, const char *path, const params *p, const scenario_overrides *o,
               char *err, size_t err_len) {
    if (suite_start(s, path, err, err_len) != 0) return -1;
    lua_State *L = script_state_load(path, p, "suite", o->load_limit_ns, err, err_len);
    int rc = L ? suite_load_checked(s, L, 0, path, p, o, err, err_len) : -1;
    if (L) lua_close(L);
    return rc;
}

int suite_load_state(scenario *s, lua_State *L, const char *path, const char *src, size_t len,
                     const params *p, const scenario_overrides *o, char *err, size_t err_len) {
    if (suite_start(s, path, err, err_len) != 0) return -1;
    int top = lua_gettop(L), rc = -1;
    lua_pushfstring(L, "@%s", path);
    if (luaL_loadbuffer(L, src, len, lua_tostring(L, -1)) != 0) {
        snprintf(err, err_len, "%s", script_error_text(L, -1));
    } else {
        script_push_env(L, p);
        lua_setfenv(L, -2);
        if (script_pcall_limited(L, 0, 1, path, o->load_limit_ns, err, err_len) == 0)
            rc = suite_load_checked(s, L, 1, path, p, o, err, err_len);
    }
    lua_settop(L, top);
    return rc;
}

void suite_free(scenario *s) {
    for (int i = 0; i < s->nphases; i++) {
        params *rp = (params *)s->phases[i].params;
        if (rp) {
            params_free(rp);
            free(rp);
        }
        s->phases[i].params = NULL;
    }
    scenario_free(s);
}
