/* plan.c - the run plan's rules: one table of limits (also pushed to the Lua
 * checkers, so every entry point quotes the same ranges), name rules, and
 * plan_check() over the final scenario struct, after the scenario file, a
 * suite entry and the command line have all been applied.  It only reads
 * the plan; it neither loads files nor runs anything. */
#include "scenario/plan.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#define PLAN_DAY_NS (86400.0 * 1e9)

static const plan_limit plan_limits[] = {
    {"vus", "--vus", PLAN_COUNT, 0, PLAN_MAX_VUS, 0},
    {"max_vus", NULL, PLAN_COUNT, 1, PLAN_MAX_VUS, 0},
    {"rate", NULL, PLAN_NUMBER, 0, 1e7, 0},
    {"target", NULL, PLAN_NUMBER, 0, 1e7, 0},
    {"start", NULL, PLAN_NUMBER, 0, 1e7, 0},
    {"requests", "--requests", PLAN_COUNT, 1, 1e11, 0},
    {"workers", "--workers", PLAN_COUNT, 1, 1024, 0},
    {"seed", "--seed", PLAN_COUNT, 0, 9007199254740991.0, 0},          /* 2^53 - 1 */
    {"max_timers", NULL, PLAN_COUNT, 1, 1000000, 0},                    /* distinct timer names */
    {"run_time", "--duration", PLAN_DURATION, 0, 7 * PLAN_DAY_NS, 0},
    {"rampup", "--rampup", PLAN_DURATION, 0, 7 * PLAN_DAY_NS, 0},
    {"interval", "--interval", PLAN_DURATION, (double)PLAN_INTERVAL_UNIT_NS, PLAN_DAY_NS,
     (double)PLAN_INTERVAL_UNIT_NS},
    {"graceful_stop", "--graceful-stop", PLAN_DURATION, 0, 3600e9, 0},
    {"pacing", NULL, PLAN_DURATION, (double)PLAN_RESOLUTION_NS, PLAN_DAY_NS, 0},
    {"duration", NULL, PLAN_DURATION, 0, 7 * PLAN_DAY_NS, 0},          /* a stage's */
    {"pause", NULL, PLAN_DURATION, 1e6, 3600e9, 0},                    /* a group's on_error.pause */
};
#define PLAN_NLIMITS (sizeof plan_limits / sizeof plan_limits[0])

const plan_limit *plan_limit_of(const char *name) {
    for (size_t i = 0; i < PLAN_NLIMITS; i++)
        if (strcmp(plan_limits[i].name, name) == 0) return &plan_limits[i];
    return NULL;
}

/* 604800e9 -> "168h", 1e8 -> "100ms", 1000 -> "1us" (limits are whole units). */
static const char *plan_duration_text(double ns, char *buf, size_t len) {
    static const struct { double ns; const char *unit; } units[] = {
        {3600e9, "h"}, {60e9, "m"}, {1e9, "s"}, {1e6, "ms"}, {1e3, "us"}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (ns >= units[i].ns && fmod(ns, units[i].ns) == 0) {
            snprintf(buf, len, "%.0f%s", ns / units[i].ns, units[i].unit);
            return buf;
        }
    snprintf(buf, len, "%.0fs", ns / 1e9);
    return buf;
}

char *plan_range_text(const plan_limit *l, char *buf, size_t len) {
    char a[32], b[32], c[32];
    if (l->kind == PLAN_DURATION)
        snprintf(buf, len, "a duration from %s to %s%s%s", plan_duration_text(l->min, a, sizeof a),
                 plan_duration_text(l->max, b, sizeof b), l->step > 0 ? ", a whole number of " : "",
                 l->step > 0 ? plan_duration_text(l->step, c, sizeof c) : "");
    else
        snprintf(buf, len, "%s from %.16g to %.16g", l->kind == PLAN_COUNT ? "an integer" : "a number",
                 l->min, l->max);
    return buf;
}

int plan_value_check(const plan_limit *l, double v, char *why, size_t len) {
    char range[128];
    int ok = v >= l->min && v <= l->max;                  /* false for NaN */
    if (ok && l->kind == PLAN_COUNT && v != floor(v)) ok = 0;
    if (ok && l->step > 0 && fmod(v, l->step) != 0) ok = 0;
    if (ok) return 0;
    plan_range_text(l, range, sizeof range);
    if (l->kind == PLAN_DURATION && v > 0 && v < PLAN_RESOLUTION_NS)
        snprintf(why, len, "expected %s; %.3g s is below the 1us resolution", range, v / 1e9);
    else if (l->kind == PLAN_DURATION)
        snprintf(why, len, "expected %s, got %.9g s", range, v / 1e9);
    else
        snprintf(why, len, "expected %s, got %.17g", range, v);
    return -1;
}

/* Length of the UTF-8 sequence at p (RFC 3629: no overlongs, no surrogates,
 * at most U+10FFFF), or 0 when it is not valid. */
static size_t plan_utf8_len(const unsigned char *p) {
    if (p[0] < 0x80) return 1;
    size_t n = p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : p[0] >= 0xe0 && p[0] <= 0xef ? 3
             : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80) return 0;
    if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] > 0x9f) ||
        (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] > 0x8f)) return 0;
    return n;
}

static int plan_utf8_check(const char *s, int controls_ok, char *why, size_t len) {
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        size_t n = plan_utf8_len(p);
        if (n == 0) {
            snprintf(why, len, "not valid UTF-8 (byte %zu is 0x%02x)", (size_t)(p - (const unsigned char *)s) + 1, *p);
            return -1;
        }
        if (!controls_ok && n == 1 && (*p < 0x20 || *p == 0x7f)) {
            snprintf(why, len, "control character 0x%02x at byte %zu; names are printable text", *p,
                     (size_t)(p - (const unsigned char *)s) + 1);
            return -1;
        }
        p += n;
    }
    return 0;
}

int plan_name_check(const char *s, char *why, size_t len) {
    if (!s || !*s) {
        snprintf(why, len, "expected a non-empty name");
        return -1;
    }
    if (strlen(s) > PLAN_MAX_NAME_BYTES) {
        snprintf(why, len, "at most %d bytes, got %zu", PLAN_MAX_NAME_BYTES, strlen(s));
        return -1;
    }
    return plan_utf8_check(s, 0, why, len);
}

/* Who set a value: the command line (its flag), a suite entry (o->origin)
 * or the scenario file (its path and where). */
typedef struct plan_ctx {
    const scenario *s;
    const scenario_overrides *o;
    const char *where;        /* "" or "phases[2]." */
    char *err;
    size_t len;
} plan_ctx;

static int plan_fail(const plan_ctx *c, const char *field, int overridden, const char *why) {
    const plan_limit *l = plan_limit_of(field);
    if (overridden && !c->o->origin && l && l->flag) {
        snprintf(c->err, c->len, "%s: %s", l->flag, why);
        return PLAN_BAD_FLAG;
    }
    if (overridden && c->o->origin) snprintf(c->err, c->len, "%s: %s: %s", c->o->origin, field, why);
    else snprintf(c->err, c->len, "%s: %s%s: %s", c->s->path, c->where, field, why);
    return PLAN_BAD_SCENARIO;
}

static int plan_value(const plan_ctx *c, const char *field, double v, int overridden) {
    char why[256];
    if (plan_value_check(plan_limit_of(field), v, why, sizeof why) == 0) return PLAN_OK;
    return plan_fail(c, field, overridden, why);
}

static int plan_check_settings(const plan_ctx *c) {
    const scenario *s = c->s;
    const scenario_overrides *o = c->o;
    int rc = PLAN_OK;
    if (rc == PLAN_OK && s->run_time_ns > 0) rc = plan_value(c, "run_time", (double)s->run_time_ns, o->run_time_ns >= 0);
    if (rc == PLAN_OK) rc = plan_value(c, "rampup", (double)s->rampup_ns, o->rampup_ns >= 0);
    if (rc == PLAN_OK) rc = plan_value(c, "interval", (double)s->interval_ns, o->interval_ns > 0);
    if (rc == PLAN_OK) rc = plan_value(c, "graceful_stop", (double)s->graceful_stop_ns, o->graceful_stop_ns >= 0);
    if (rc == PLAN_OK && s->requests > 0) rc = plan_value(c, "requests", (double)s->requests, o->requests >= 0);
    if (rc == PLAN_OK && s->workers > 0) rc = plan_value(c, "workers", (double)s->workers, o->workers > 0);
    if (rc == PLAN_OK && s->seed_set) rc = plan_value(c, "seed", (double)s->seed, o->seed >= 0);
    return rc;
}

static int plan_check_group(const plan_ctx *c, int i) {
    const group_cfg *g = &c->s->groups[i];
    char field[64], why[256];
    snprintf(field, sizeof field, "groups[%d].name", i + 1);
    if (plan_name_check(g->name, why, sizeof why) != 0) return plan_fail(c, field, 0, why);
    int rc = plan_value(c, "vus", g->vus, c->o->vus >= 0);
    if (rc == PLAN_OK && g->model == MODEL_PACED) rc = plan_value(c, "pacing", (double)g->pacing_ns, 0);
    if (rc == PLAN_OK && g->error_pause_ns > 0) rc = plan_value(c, "pause", (double)g->error_pause_ns, 0);
    for (int k = 0; rc == PLAN_OK && k < g->sched.n; k++) {
        rc = plan_value(c, "duration", (double)g->sched.st[k].dur_ns, 0);
        if (rc == PLAN_OK) rc = plan_value(c, "target", g->sched.st[k].target, 0);
    }
    return rc;
}

/* A budget or a clock bounds the run, and with a budget some VU can run. */
static int plan_check_bounds(const plan_ctx *c) {
    const scenario *s = c->s;
    int64_t total = 0, runnable = 0;
    for (int i = 0; i < s->ngroups; i++) {
        total += s->groups[i].vus;
        if (s->groups[i].vus > 0 && sched_max(&s->groups[i].sched) > 0) runnable++;
    }
    char why[256];
    if (total > PLAN_MAX_VUS) {
        snprintf(why, sizeof why, "the groups' VUs add up to %lld; at most %d in a run", (long long)total, PLAN_MAX_VUS);
        return plan_fail(c, "vus", c->o->vus >= 0, why);
    }
    if (s->run_time_ns == 0 && s->requests == 0) {
        snprintf(why, sizeof why, "neither a run_time nor a requests budget bounds the run");
        return plan_fail(c, "run_time", c->o->run_time_ns >= 0, why);
    }
    if (s->requests > 0 && runnable == 0) {
        snprintf(why, sizeof why, "a requests budget of %lld but no VU can ever start (vus or every target is 0)",
                 (long long)s->requests);
        return plan_fail(c, "vus", c->o->vus >= 0, why);
    }
    return PLAN_OK;
}

/* Name, notes and threshold texts (they name timers in every output). */
static int plan_check_texts(const plan_ctx *c) {
    const scenario *s = c->s;
    char why[256];
    if (plan_name_check(s->name, why, sizeof why) != 0) return plan_fail(c, "name", c->o->name != NULL, why);
    if (s->notes && plan_utf8_check(s->notes, 1, why, sizeof why) != 0) return plan_fail(c, "notes", 0, why);
    for (int i = 0; i < s->nthresholds; i++) {
        char field[32];
        snprintf(field, sizeof field, "thresholds[%d]", i + 1);
        if (plan_utf8_check(s->thresholds[i].text, 0, why, sizeof why) != 0) return plan_fail(c, field, 0, why);
    }
    return PLAN_OK;
}

/* ---- segments (the rule: plan.h) ---- */

int plan_segment_parse(const char *arg, int *index, int *count, char *why, size_t len) {
    char *end;
    errno = 0;
    long i = strtol(arg, &end, 10), n = 0;
    int ok = end != arg && *end == '/' && arg[0] >= '0' && arg[0] <= '9' && errno == 0;
    const char *q = ok ? end + 1 : NULL;
    if (ok) n = strtol(q, &end, 10);
    ok = ok && end != q && *end == 0 && q[0] >= '0' && q[0] <= '9' && errno == 0;
    if (!ok) {
        snprintf(why, len, "expected i/N such as 3/8 (segment i of N, counted from 1) or auto; got '%s'", arg);
        return -1;
    }
    if (n < 1 || n > PLAN_MAX_SEGMENTS || i < 1 || i > n) {
        snprintf(why, len, "segment %ld of %ld: N is 1 to %d and i is 1 to N (segments count from 1)", i, n,
                 PLAN_MAX_SEGMENTS);
        return -1;
    }
    *index = (int)i;
    *count = (int)n;
    return 0;
}

static int plan_segmented(const scenario *s) { return s->seg_count > 1 && s->seg_index >= 1; }

int plan_segment_has_vu(const scenario *s, int64_t k) {
    return !plan_segmented(s) || k % s->seg_count == s->seg_index - 1;
}

/* The VUs of the groups before g. */
static int64_t plan_group_offset(const scenario *s, int g) {
    int64_t off = 0;
    for (int i = 0; i < g; i++) off += s->groups[i].vus;
    return off;
}

/* VUs k in [off, off + n) with k mod N == r. */
static int64_t plan_count_mod(int64_t off, int64_t n, int64_t N, int64_t r) {
    int64_t first = off + ((r - off) % N + N) % N;
    return first >= off + n ? 0 : (off + n - 1 - first) / N + 1;
}

int plan_segment_group_vus(const scenario *s, int g) {
    if (!plan_segmented(s)) return s->groups[g].vus;
    return (int)plan_count_mod(plan_group_offset(s, g), s->groups[g].vus, s->seg_count, s->seg_index - 1);
}

int64_t plan_segment_vus(const scenario *s) {
    int64_t n = 0;
    for (int g = 0; g < s->ngroups; g++) n += plan_segment_group_vus(s, g);
    return n;
}

int plan_segment_arrivals(const scenario *s, int g, uint64_t *first, uint64_t *step) {
    *first = 0;
    *step = 1;
    if (!plan_segmented(s)) return s->groups[g].vus > 0;
    int64_t N = s->seg_count, n = s->groups[g].vus, hosts = n < N ? n : N;
    int64_t rank = ((s->seg_index - 1 - plan_group_offset(s, g)) % N + N) % N;
    if (rank >= hosts) return 0;
    *first = (uint64_t)rank;
    *step = (uint64_t)hosts;
    return 1;
}

int plan_worker_arrivals(const scenario *s, int g, int nworkers, int w, uint64_t *first, uint64_t *step) {
    int64_t off = 0;                            /* the segment's VUs of the groups before g */
    for (int i = 0; i < g; i++) off += plan_segment_group_vus(s, i);
    int64_t n = plan_segment_group_vus(s, g), hosts = n < nworkers ? n : nworkers;
    int64_t slot = ((w - off) % nworkers + nworkers) % nworkers;   /* rank among the hosts */
    uint64_t f, st;
    if (!plan_segment_arrivals(s, g, &f, &st) || slot >= hosts) {
        *first = 0, *step = 1;
        return 0;
    }
    *first = f + st * (uint64_t)slot;
    *step = st * (uint64_t)hosts;
    return 1;
}

int64_t plan_segment_share(const scenario *s, int index, int64_t budget) {
    int64_t N = s->seg_count, total = 0;
    for (int g = 0; g < s->ngroups; g++) total += s->groups[g].vus;
    if (N <= 1 || total <= 0) return budget;
    int64_t given = 0, mine = 0, nwith = total < N ? total : N;   /* segments with VUs: 1..nwith */
    for (int64_t j = 0; j < nwith; j++) {
        int64_t vus = plan_count_mod(0, total, N, j), q = (int64_t)((__int128)budget * vus / total);
        given += q;
        if (j == index - 1) mine = q;
    }
    int64_t left = budget - given;              /* < nwith: one each to segments 1, 2, ... */
    if (index - 1 < nwith && index - 1 < left) mine++;
    return mine;
}

void plan_segment_apply(scenario *s) {
    for (int i = 0; i < s->nphases; i++) plan_segment_apply(&s->phases[i]);
    s->requests_whole = s->requests;
    if (plan_segmented(s) && s->requests > 0) s->requests = plan_segment_share(s, s->seg_index, s->requests);
}

/* "phases[2]." without its dot. */
static int plan_where_len(const plan_ctx *c) {
    size_t n = strlen(c->where);
    return (int)(n > 0 && c->where[n - 1] == '.' ? n - 1 : n);
}

/* A segment must have something to do: VUs, and its share of a budget. */
static int plan_check_segment(const plan_ctx *c) {
    const scenario *s = c->s;
    if (!plan_segmented(s)) return PLAN_OK;
    int64_t total = 0;
    for (int g = 0; g < s->ngroups; g++) total += s->groups[g].vus;
    if (plan_segment_vus(s) == 0) {
        snprintf(c->err, c->len, "--segment %d/%d: %.*s%sthe run has %lld VUs, so segment %d would have none: "
                 "use at most %lld segments", s->seg_index, s->seg_count, plan_where_len(c), c->where,
                 *c->where ? ": " : "",
                 (long long)total, s->seg_index, (long long)total);
        return PLAN_BAD_FLAG;
    }
    if (s->requests > 0 && plan_segment_share(s, s->seg_index, s->requests) == 0) {
        snprintf(c->err, c->len, "--segment %d/%d: %.*s%sa requests budget of %lld leaves segment %d nothing to do: "
                 "use at most %lld segments", s->seg_index, s->seg_count, plan_where_len(c), c->where,
                 *c->where ? ": " : "",
                 (long long)s->requests, s->seg_index, (long long)s->requests);
        return PLAN_BAD_FLAG;
    }
    return PLAN_OK;
}

static int plan_check_one(const scenario *s, const scenario_overrides *o, const char *where, char *err, size_t len) {
    plan_ctx c = {s, o, where, err, len};
    int rc = plan_check_texts(&c);
    if (rc != PLAN_OK) return rc;
    rc = plan_check_settings(&c);
    for (int i = 0; rc == PLAN_OK && i < s->ngroups; i++) rc = plan_check_group(&c, i);
    if (rc == PLAN_OK) rc = plan_check_bounds(&c);
    return rc == PLAN_OK ? plan_check_segment(&c) : rc;
}

int plan_check(const scenario *s, const scenario_overrides *o, char *err, size_t len) {
    if (s->nphases == 0) return plan_check_one(s, o, "", err, len);
    scenario_overrides none;                          /* the top's name is the file's own */
    scenario_overrides_init(&none);
    plan_ctx top = {s, &none, "", err, len};
    if (plan_check_texts(&top) != PLAN_OK) return PLAN_BAD_SCENARIO;
    for (int i = 0; i < s->nphases; i++) {
        char where[32];
        snprintf(where, sizeof where, "phases[%d].", i + 1);
        int rc = plan_check_one(&s->phases[i], o, where, err, len);
        if (rc != PLAN_OK) return rc;
    }
    return PLAN_OK;
}

int plan_check_flags(const scenario_overrides *o, char *err, size_t len) {
    const struct { const char *name; int64_t v; int64_t unset_below; } vals[] = {
        {"run_time", o->run_time_ns, 0}, {"rampup", o->rampup_ns, 0}, {"interval", o->interval_ns, 0},
        {"graceful_stop", o->graceful_stop_ns, 0}, {"requests", o->requests, 0}, {"vus", o->vus, 0},
        {"workers", o->workers, 0}, {"seed", o->seed, 0},
    };
    char why[256];
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        const plan_limit *l = plan_limit_of(vals[i].name);
        if (vals[i].v < vals[i].unset_below) continue;       /* not given */
        if (vals[i].v == 0 && strcmp(l->name, "run_time") == 0) continue;   /* -d 0: until the budget */
        if (plan_value_check(l, (double)vals[i].v, why, sizeof why) != 0) {
            snprintf(err, len, "%s: %s", l->flag, why);
            return PLAN_BAD_FLAG;
        }
    }
    if (o->io && strcmp(o->io, "auto") != 0 && strcmp(o->io, "uring") != 0 && strcmp(o->io, "epoll") != 0) {
        snprintf(err, len, "%s: expected auto, uring or epoll; got '%s'", o->io_env ? "LUAMECH_IO" : "--io", o->io);
        return PLAN_BAD_FLAG;
    }
    return PLAN_OK;
}

void plan_push_rules(lua_State *L) {
    char range[128];
    lua_newtable(L);
    lua_newtable(L);
    for (size_t i = 0; i < PLAN_NLIMITS; i++) {
        const plan_limit *l = &plan_limits[i];
        lua_newtable(L);
        lua_pushnumber(L, l->min);
        lua_setfield(L, -2, "min");
        lua_pushnumber(L, l->max);
        lua_setfield(L, -2, "max");
        lua_pushstring(L, plan_range_text(l, range, sizeof range));
        lua_setfield(L, -2, "range");
        lua_setfield(L, -2, l->name);
    }
    lua_setfield(L, -2, "limits");
    lua_newtable(L);
    lua_pushnumber(L, (lua_Number)PLAN_DEFAULT_RUN_TIME_NS);
    lua_setfield(L, -2, "run_time_ns");
    lua_pushnumber(L, (lua_Number)PLAN_DEFAULT_INTERVAL_NS);
    lua_setfield(L, -2, "interval_ns");
    lua_pushnumber(L, (lua_Number)PLAN_DEFAULT_GRACEFUL_STOP_NS);
    lua_setfield(L, -2, "graceful_stop_ns");
    lua_pushnumber(L, PLAN_DEFAULT_RATE_PREALLOC);
    lua_setfield(L, -2, "rate_prealloc");
    lua_pushnumber(L, (lua_Number)PLAN_RESOLUTION_NS);
    lua_setfield(L, -2, "resolution_ns");
    lua_pushnumber(L, PLAN_MAX_NAME_BYTES);
    lua_setfield(L, -2, "max_name_bytes");
    lua_setfield(L, -2, "defaults");
}
