/* scenario.c - loads a scenario file in a private Lua state (or scenario
 * text from memory in a state the caller reuses: scenario_load_state), has
 * lua/scenario.lua check and normalise it, copies the result into a C struct,
 * applies the overrides (a suite entry's, the command line's) and has
 * plan_check() check the final plan.  Runs before any worker starts; it does
 * not run scripts (it only compiles them, to report syntax errors early). */
#include "scenario/scenario.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <libgen.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/embedded.h"
#include "common/text.h"
#include "common/units.h"
#include "scenario/script.h"
#include "scenario/plan.h"

void scenario_overrides_init(scenario_overrides *o) {
    o->run_time_ns = o->rampup_ns = o->interval_ns = o->graceful_stop_ns = -1;
    o->requests = o->vus = o->workers = o->seed = -1;
    o->cpus = o->name = o->origin = NULL;
    o->seg_index = o->seg_count = 0;
    o->start_at_ns = 0;
    o->io = NULL;
    o->io_env = 0;
    o->load_limit_ns = 0;
}

int scenario_parse_cpus(const char *s, int *cpus, int max) {
    int n = 0;
    while (*s) {
        char *end;
        long a = strtol(s, &end, 10), b;
        if (end == s || a < 0 || a >= 1024) return -1;   /* CPU_SETSIZE */
        b = a;
        if (*end == '-') {
            s = end + 1;
            b = strtol(s, &end, 10);
            if (end == s || b < a || b >= 1024) return -1;
        }
        for (long c = a; c <= b; c++) {
            if (n == max) return -1;
            cpus[n++] = (int)c;
        }
        if (*end == ',') end++;
        else if (*end) return -1;
        s = end;
    }
    return n > 0 ? n : -1;
}

/* The CPUs of set as a list of ranges: "0-1", "0,2-3". */
static void scenario_cpu_ranges(const cpu_set_t *set, char *buf, size_t len) {
    size_t n = 0;
    buf[0] = 0;
    for (int c = 0; c < CPU_SETSIZE && n < len; c++) {
        if (!CPU_ISSET(c, set) || (c > 0 && CPU_ISSET(c - 1, set))) continue;
        int last = c;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, set)) last++;
        if (last == c) n += (size_t)snprintf(buf + n, len - n, "%s%d", n ? "," : "", c);
        else n += (size_t)snprintf(buf + n, len - n, "%s%d-%d", n ? "," : "", c, last);
    }
}

int scenario_check_cpus(const int *cpus, int n, char *why, size_t len) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;     /* unknown: the pin will tell */
    for (int i = 0; i < n; i++) {
        if (CPU_ISSET(cpus[i], &set)) continue;
        char have[256];
        scenario_cpu_ranges(&set, have, sizeof have);
        snprintf(why, len, "no CPU %d on this machine for luamech (CPUs %s%s)", cpus[i], have,
                 cpus[i] < (int)sysconf(_SC_NPROCESSORS_CONF) ? ": the others are outside its affinity mask" : "");
        return -1;
    }
    return 0;
}

int scenario_lua_duration(lua_State *L) {
    int64_t ns;
    if (units_parse_duration_ns(luaL_checkstring(L, 1), &ns) != 0) return 0;
    lua_pushnumber(L, (lua_Number)ns);
    return 1;
}

int scenario_lua_count(lua_State *L) {
    int64_t n;
    if (units_parse_count(luaL_checkstring(L, 1), &n) != 0) return 0;
    lua_pushnumber(L, (lua_Number)n);
    return 1;
}

static int scenario_lua_threshold(lua_State *L) {
    threshold t;
    char err[512];
    if (threshold_parse(luaL_checkstring(L, 1), &t, err, sizeof err) == 0) {
        lua_pushboolean(L, 1);
        return 1;
    }
    lua_pushboolean(L, 0);
    lua_pushstring(L, err);
    return 2;
}

/* Values were range-checked by scenario.lua; anything else (NaN, out of
 * int64 range) still never reaches a cast. */
static int64_t scenario_field_num(lua_State *L, const char *field, int64_t dflt) {
    lua_getfield(L, -1, field);
    double d = lua_isnumber(L, -1) ? lua_tonumber(L, -1) : (double)dflt;
    int64_t v = d >= -9.0e18 && d <= 9.0e18 ? (int64_t)d : dflt;
    lua_pop(L, 1);
    return v;
}

/* A copy of the string field of the table on top into *out (NULL when it
 * is not a string); 0, or -1 when out of memory. */
static int scenario_field_str(lua_State *L, const char *field, char **out) {
    lua_getfield(L, -1, field);
    *out = lua_isstring(L, -1) ? strdup(lua_tostring(L, -1)) : NULL;
    int rc = lua_isstring(L, -1) && *out == NULL ? -1 : 0;
    lua_pop(L, 1);
    return rc;
}

static void scenario_apply(scenario *s, const scenario_overrides *o);

/* 0, or -1 when out of memory. */
static int scenario_copy_model(group_cfg *g, lua_State *L) {
    char *m;
    if (scenario_field_str(L, "model", &m) != 0) return -1;
    g->model = !m || strcmp(m, "closed") == 0 ? MODEL_CLOSED : strcmp(m, "paced") == 0 ? MODEL_PACED : MODEL_RATE;
    free(m);
    g->pacing_ns = scenario_field_num(L, "pacing_ns", 0);
    g->error_pause_ns = scenario_field_num(L, "error_pause_ns", 0);
    g->prealloc = (int)scenario_field_num(L, "prealloc", 0);
    lua_getfield(L, -1, "start");
    double start = lua_tonumber(L, -1);
    lua_pop(L, 1);
    lua_getfield(L, -1, "rate");
    if (g->model == MODEL_RATE && lua_isnumber(L, -1)) start = lua_tonumber(L, -1);
    lua_pop(L, 1);
    sched_constant(&g->sched, start);
    lua_getfield(L, -1, "stages");
    g->sched.n = lua_istable(L, -1) ? (int)lua_objlen(L, -1) : 0;
    if (g->sched.n > SCHED_MAX_STAGES) g->sched.n = SCHED_MAX_STAGES;
    for (int i = 0; i < g->sched.n; i++) {
        lua_rawgeti(L, -1, i + 1);
        g->sched.st[i].dur_ns = scenario_field_num(L, "dur_ns", 0);
        lua_getfield(L, -1, "target");
        g->sched.st[i].target = lua_tonumber(L, -1);
        lua_pop(L, 2);
    }
    lua_pop(L, 1);
    g->staged = g->sched.n > 0;
    return 0;
}

/* Closed and paced groups without stages: all VUs from t0, or a linear
 * ramp-up (VU i of n starts at i * rampup / n). */
static void scenario_build_ramp(scenario *s) {
    for (int i = 0; i < s->ngroups; i++) {
        group_cfg *g = &s->groups[i];
        if (g->model == MODEL_RATE || g->staged) continue;
        sched_constant(&g->sched, s->rampup_ns > 0 ? 0 : g->vus);
        if (s->rampup_ns > 0) {
            g->sched.n = 1;
            g->sched.st[0] = (sched_stage){s->rampup_ns, g->vus};
        }
    }
}

/* Copies the normalised table at the top of L into s (L's stack as it
 * was).  0, or -1 when out of memory: s is then partly filled (what is
 * there scenario_free frees). */
static int scenario_copy(scenario *s, lua_State *L) {
    int bad = scenario_field_str(L, "name", &s->name) | scenario_field_str(L, "notes", &s->notes);
    s->run_time_ns = scenario_field_num(L, "run_time_ns", 0);
    s->rampup_ns = scenario_field_num(L, "rampup_ns", 0);
    s->interval_ns = scenario_field_num(L, "interval_ns", 0);
    s->graceful_stop_ns = scenario_field_num(L, "graceful_stop_ns", 0);
    s->requests = scenario_field_num(L, "requests", 0);
    s->max_timers = (int)scenario_field_num(L, "max_timers", 1000);
    s->workers = (int)scenario_field_num(L, "workers", 0);
    s->seed = (uint64_t)scenario_field_num(L, "seed", -1);
    s->seed_set = scenario_field_num(L, "seed", -1) >= 0;
    lua_getfield(L, -1, "groups");
    s->ngroups = (int)lua_objlen(L, -1);
    s->groups = calloc((size_t)s->ngroups + 1, sizeof *s->groups);
    if (s->groups == NULL) s->ngroups = 0, bad = -1;
    for (int i = 0; i < s->ngroups; i++) {
        group_cfg *g = &s->groups[i];
        lua_rawgeti(L, -1, i + 1);
        bad |= scenario_field_str(L, "name", &g->name) | scenario_field_str(L, "script", &g->script_path) |
               scenario_field_str(L, "script_name", &g->script_name) | scenario_copy_model(g, L);
        g->vus = (int)scenario_field_num(L, "vus", 0);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    lua_getfield(L, -1, "abort_on_threshold");
    s->abort_on_threshold = lua_toboolean(L, -1);
    lua_getfield(L, -2, "console_full");
    s->console_full = lua_toboolean(L, -1);
    lua_pop(L, 2);
    lua_getfield(L, -1, "has_setup");
    s->has_setup = lua_toboolean(L, -1);
    lua_getfield(L, -2, "has_teardown");
    s->has_teardown = lua_toboolean(L, -1);
    lua_pop(L, 2);
    lua_getfield(L, -1, "thresholds");
    s->nthresholds = lua_istable(L, -1) ? (int)lua_objlen(L, -1) : 0;
    s->thresholds = calloc((size_t)s->nthresholds + 1, sizeof *s->thresholds);
    if (s->thresholds == NULL) s->nthresholds = 0, bad = -1;
    for (int i = 0; i < s->nthresholds; i++) {
        char err[512];
        lua_rawgeti(L, -1, i + 1);
        threshold_parse(lua_tostring(L, -1), &s->thresholds[i], err, sizeof err);  /* checked by scenario.lua */
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    lua_getfield(L, -1, "phases");
    s->nphases = lua_istable(L, -1) ? (int)lua_objlen(L, -1) : 0;
    s->phases = s->nphases ? calloc((size_t)s->nphases, sizeof *s->phases) : NULL;
    if (s->nphases && s->phases == NULL) s->nphases = 0, bad = -1;
    for (int i = 0; i < s->nphases; i++) {
        lua_rawgeti(L, -1, i + 1);
        s->phases[i].path = strdup(s->path);
        s->phases[i].dir = strdup(s->dir);
        if (!s->phases[i].path || !s->phases[i].dir) bad = -1;
        bad |= scenario_copy(&s->phases[i], L);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return bad ? -1 : 0;
}

static void scenario_apply(scenario *s, const scenario_overrides *o) {
    for (int i = 0; i < s->nphases; i++) scenario_apply(&s->phases[i], o);
    if (o->run_time_ns >= 0) s->run_time_ns = o->run_time_ns;
    if (o->rampup_ns >= 0) s->rampup_ns = o->rampup_ns;
    if (o->interval_ns > 0) s->interval_ns = o->interval_ns;
    if (o->graceful_stop_ns >= 0) s->graceful_stop_ns = o->graceful_stop_ns;
    if (o->requests >= 0) s->requests = o->requests;
    if (o->workers > 0) s->workers = (int)o->workers;
    if (o->seed >= 0) { s->seed = (uint64_t)o->seed; s->seed_set = 1; }
    if (o->cpus) s->ncpus = scenario_parse_cpus(o->cpus, s->cpus, 256);
    s->seg_index = o->seg_index;
    s->seg_count = o->seg_count;
    s->start_at_ns = o->start_at_ns;        /* with phases: refused by the command line */
    for (int i = 0; o->vus >= 0 && i < s->ngroups; i++) {
        group_cfg *g = &s->groups[i];
        if (g->staged && g->model != MODEL_RATE) continue;   /* stages decide */
        g->vus = (int)o->vus;
        if (g->prealloc > g->vus) g->prealloc = g->vus;
    }
    scenario_build_ramp(s);
    /* --requests alone means "until N transactions", not "N or 10 s". */
    if (o->requests > 0 && o->run_time_ns < 0) s->run_time_ns = 0;
}

/* What the scenario file reads (require, io.open...): its real path, once,
 * for the results' copy (script_install_paths's record). */
static void scenario_note_file(void *ctx, const char *path) {
    scenario *s = ctx;
    char *real = realpath(path, NULL);
    if (!real) return;
    for (int i = 0; i < s->nread_files; i++)
        if (strcmp(s->read_files[i], real) == 0) {
            free(real);
            return;
        }
    char **files = realloc(s->read_files, (size_t)(s->nread_files + 1) * sizeof *files);
    if (!files) {
        free(real);
        return;
    }
    s->read_files = files;
    s->read_files[s->nread_files++] = real;
}

/* Pushes the embedded lua/`name`.lua compiled: once per state (kept in
 * the registry; each call runs it afresh).  -1 after a message in err. */
int scenario_push_checker(lua_State *L, const char *name, char *err, size_t err_len) {
    char key[64], chunk[64];
    snprintf(key, sizeof key, "luamech.checker.%s", name);
    lua_getfield(L, LUA_REGISTRYINDEX, key);
    if (lua_isfunction(L, -1)) return 0;
    lua_pop(L, 1);
    size_t len;
    const char *src = embedded_lua_find(name, &len);
    snprintf(chunk, sizeof chunk, "=%s.lua", name);
    if (!src || luaL_loadbuffer(L, src, len, chunk) != 0) {
        snprintf(err, err_len, "internal error: %s", src ? script_error_text(L, -1) : "no checker");
        if (src) lua_pop(L, 1);
        return -1;
    }
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, key);
    return 0;
}

static int scenario_run_checker(lua_State *L, scenario *s, int64_t limit_ns, char *err, size_t err_len) {
    if (scenario_push_checker(L, "scenario", err, err_len) != 0) return -1;
    lua_pushvalue(L, -2);                      /* the user's table */
    lua_pushstring(L, s->path);
    lua_pushstring(L, s->dir);
    lua_pushcfunction(L, scenario_lua_duration);
    lua_pushcfunction(L, scenario_lua_count);
    lua_pushcfunction(L, scenario_lua_threshold);
    plan_push_rules(L);
    if (script_pcall_limited(L, 7, 1, s->path, limit_ns, err, err_len) != 0) return -1;  /* __index may loop */
    if (scenario_copy(s, L) != 0) return text_errf(err, err_len, "%s: out of memory", s->path);
    return 0;
}

int scenario_set_path(scenario *s, const char *path, char *err, size_t err_len) {
    memset(s, 0, sizeof *s);
    s->path = strdup(path);
    char *tmp = strdup(path);
    s->dir = tmp ? strdup(dirname(tmp)) : NULL;
    free(tmp);
    if (s->path && s->dir) return 0;
    snprintf(err, err_len, "%s: out of memory", path);
    return -1;
}

/* After the checker: the overrides, the final plan's check and the hash
 * (over src when the scenario came from memory, else over the file). */
static int scenario_finish(scenario *s, const scenario_overrides *o, const char *src, size_t len, char *err,
                           size_t err_len) {
    scenario_apply(s, o);
    if (o->name) {                             /* a suite run's name */
        free(s->name);
        if ((s->name = strdup(o->name)) == NULL) {
            snprintf(err, err_len, "%s: out of memory", s->path);
            return -1;
        }
    }
    int rc = plan_check(s, o, err, err_len);
    if (rc == PLAN_OK) plan_segment_apply(s);
    if (rc == PLAN_OK) scenario_hash_text(s, src, len);
    return rc == PLAN_OK ? 0 : rc == PLAN_BAD_FLAG ? -2 : -1;
}

int scenario_load(scenario *s, const char *path, const params *p,
                  const scenario_overrides *o, char *err, size_t err_len) {
    if (scenario_set_path(s, path, err, err_len) != 0) return -1;
    lua_State *L = script_state_open(path, p, "scenario", err, err_len);
    if (!L) return -1;
    int rc = -1;
    char *root = realpath(s->dir, NULL);       /* require and io.open next to the scenario */
    if (!root || script_install_paths(L, root, scenario_note_file, s, err, err_len) != 0) {
        if (!root) snprintf(err, err_len, "%s: cannot resolve its folder: %m", path);
        free(root);
        lua_close(L);
        return -1;
    }
    free(root);
    int undo = lua_gettop(L);
    if (luaL_loadfile(L, path) != 0)
        snprintf(err, err_len, "%s", script_error_text(L, -1));
    else if (script_pcall_limited(L, 0, 1, path, o->load_limit_ns, err, err_len) != 0)
        ;                                      /* its message */
    else if (lua_pushvalue(L, undo), lua_pcall(L, 0, 0, 0) != 0)
        snprintf(err, err_len, "internal error: %s", script_error_text(L, -1));
    else
        rc = scenario_run_checker(L, s, o->load_limit_ns, err, err_len);
    lua_close(L);
    if (rc != 0) return -1;
    return scenario_finish(s, o, NULL, 0, err, err_len);
}

int scenario_load_state(scenario *s, lua_State *L, const char *path, const char *src, size_t len,
                        const params *p, const scenario_overrides *o, char *err, size_t err_len) {
    if (scenario_set_path(s, path, err, err_len) != 0) return -1;
    int top = lua_gettop(L), rc = -1;
    lua_pushfstring(L, "@%s", path);           /* messages read "path:line: ..." as from a file */
    if (luaL_loadbuffer(L, src, len, lua_tostring(L, -1)) != 0) {
        snprintf(err, err_len, "%s", script_error_text(L, -1));
    } else {
        script_push_env(L, p);                 /* its globals die with it */
        lua_setfenv(L, -2);
        if (script_pcall_limited(L, 0, 1, path, o->load_limit_ns, err, err_len) == 0)
            rc = scenario_run_checker(L, s, o->load_limit_ns, err, err_len);
    }
    lua_settop(L, top);
    if (rc != 0) return -1;
    return scenario_finish(s, o, src, len, err, err_len);
}

static uint64_t scenario_fnv(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

static uint64_t scenario_fnv_file(uint64_t h, const char *path) {
    FILE *f = path ? fopen(path, "rb") : NULL;
    unsigned char buf[65536];
    size_t n;
    if (!f) return scenario_fnv(h, "?", 1);
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) h = scenario_fnv(h, buf, n);
    fclose(f);
    return h;
}

static uint64_t scenario_fnv_plan(uint64_t h, const scenario *s) {
    int64_t v[4] = {s->run_time_ns, s->requests_whole, s->rampup_ns, s->ngroups};
    h = scenario_fnv(h, v, sizeof v);
    for (int g = 0; g < s->ngroups; g++) {
        int64_t gv[2] = {s->groups[g].vus, s->groups[g].model};
        h = scenario_fnv_file(scenario_fnv(h, gv, sizeof gv), s->groups[g].script_path);
    }
    for (int i = 0; i < s->nphases; i++) h = scenario_fnv_plan(h, &s->phases[i]);
    return h;
}

void scenario_hash_text(scenario *s, const char *src, size_t len) {
    uint64_t h = src ? scenario_fnv(0xcbf29ce484222325ULL, src, len) : scenario_fnv_file(0xcbf29ce484222325ULL, s->path);
    snprintf(s->hash, sizeof s->hash, "%016llx", (unsigned long long)scenario_fnv_plan(h, s));
    for (int i = 0; i < s->nphases; i++) memcpy(s->phases[i].hash, s->hash, sizeof s->hash);  /* a phase is part of it */
}

void scenario_hash(scenario *s) { scenario_hash_text(s, NULL, 0); }
int scenario_lifecycle(scenario *out, const scenario *sc, int what) {
    memset(out, 0, sizeof *out);
    out->path = sc->path;                       /* borrowed: not freed here */
    out->dir = sc->dir;
    out->params = sc->params;
    out->name = what == 1 ? "setup" : "teardown";
    out->lifecycle = what;
    out->interval_ns = sc->interval_ns;
    out->graceful_stop_ns = sc->graceful_stop_ns;
    out->requests = 1;                          /* the function runs in the init; one empty transaction */
    out->run_time_ns = 0;
    out->max_timers = sc->max_timers;
    out->workers = 1;
    out->seed = sc->seed;
    out->seed_set = sc->seed_set;
    out->ngroups = 1;
    out->groups = calloc(1, sizeof *out->groups);
    if (!out->groups) return -1;
    group_cfg *g = &out->groups[0];
    g->name = (char *)out->name;
    g->vus = 1;
    g->script_path = sc->path;                  /* the VU loads the scenario file itself */
    g->script_name = (char *)out->name;
    g->model = MODEL_CLOSED;
    sched_constant(&g->sched, 1);
    return 0;
}

void scenario_lifecycle_free(scenario *s) { free(s->groups); }

int scenario_total_vus(const scenario *s) {
    if (s->nphases > 0) {
        int most = 0;
        for (int i = 0; i < s->nphases; i++)
            if (scenario_total_vus(&s->phases[i]) > most) most = scenario_total_vus(&s->phases[i]);
        return most;
    }
    int n = 0;
    for (int i = 0; i < s->ngroups; i++) n += s->groups[i].vus;
    return n;
}

void scenario_free(scenario *s) {
    for (int i = 0; i < s->nread_files; i++) free(s->read_files[i]);
    free(s->read_files);
    for (int i = 0; i < s->nphases; i++) scenario_free(&s->phases[i]);
    free(s->phases);
    free(s->thresholds);
    for (int i = 0; i < s->ngroups; i++) {
        free(s->groups[i].name);
        free(s->groups[i].script_path);
        free(s->groups[i].script_name);
    }
    free(s->groups);
    free(s->path);
    free(s->dir);
    free(s->name);
    free(s->notes);
    memset(s, 0, sizeof *s);
}
