/* plan.h - the rules of a run plan in one place: the defaults and limits of
 * every setting (one table, also handed to lua/scenario.lua and
 * lua/suite.lua so their messages quote the same ranges), and plan_check(),
 * run once over the final scenario struct after every override (scenario
 * file, suite entry, command line).  Limits are documented in README.md
 * ("Limits"). */
#ifndef LUAMECH_PLAN_H
#define LUAMECH_PLAN_H

#include <lua.h>
#include <stddef.h>
#include <stdint.h>

#include "scenario/scenario.h"

/* Defaults of a scenario's settings (the only place they are written). */
#define PLAN_DEFAULT_RUN_TIME_NS 10000000000LL       /* without a requests budget */
#define PLAN_DEFAULT_INTERVAL_NS 10000000000LL
#define PLAN_DEFAULT_GRACEFUL_STOP_NS 5000000000LL
#define PLAN_DEFAULT_RATE_PREALLOC 10                /* rate groups: VUs started at t0 */

/* Intervals are cut in whole ticks of this length (engine_tick_ns). */
#define PLAN_INTERVAL_UNIT_NS 100000000LL
/* A non-zero duration below this is refused (the engine's timers honour
 * microseconds at best). */
#define PLAN_RESOLUTION_NS 1000LL
#define PLAN_MAX_VUS 10000000                        /* per group and per run */
#define PLAN_MAX_NAME_BYTES 200

typedef enum plan_kind { PLAN_COUNT, PLAN_DURATION, PLAN_NUMBER } plan_kind;

typedef struct plan_limit {
    const char *name;     /* the field's name in scenarios and suites */
    const char *flag;     /* its command-line flag, or NULL */
    plan_kind kind;
    double min, max;      /* inclusive; durations in ns */
    double step;          /* > 0: the value must be a whole multiple */
} plan_limit;

/* Results of plan_check and plan_check_flags. */
enum { PLAN_OK = 0, PLAN_BAD_SCENARIO = -1, PLAN_BAD_FLAG = -2 };

/* The limit named `name` ("vus", "interval", ...), or NULL. */
const plan_limit *plan_limit_of(const char *name);
/* "an integer from 0 to 10000000" / "a duration from 100ms to 24h, a whole
 * number of 100ms" into buf; returns buf. */
char *plan_range_text(const plan_limit *l, char *buf, size_t len);
/* 0 when v (a count, a number, or ns) is within l (NaN and infinities are
 * not); else -1 with the reason ("expected ...") in why. */
int plan_value_check(const plan_limit *l, double v, char *why, size_t len);
/* 0 when s is a usable name: 1..PLAN_MAX_NAME_BYTES bytes of valid UTF-8
 * without control characters; else -1 with the reason in why. */
int plan_name_check(const char *s, char *why, size_t len);
/* The command line's values against the same limits.  PLAN_OK or
 * PLAN_BAD_FLAG with a message naming the flag. */
int plan_check_flags(const scenario_overrides *o, char *err, size_t len);
/* The final plan: every value in range, names usable, intervals whole
 * ticks, a bound on the run, something that can run.  A value that came
 * from an override is blamed on o->origin (a suite entry) or on its flag.
 * Returns PLAN_OK, PLAN_BAD_SCENARIO or PLAN_BAD_FLAG with a message. */
int plan_check(const scenario *s, const scenario_overrides *o, char *err, size_t len);
/* ---- segments (--segment i/N; docs/distributed.md "The segment rule") ----
 * Segments are numbered 1..N; the rule is the workers' one level up:
 *  - VU k of the run (k = 0, 1, ... counted through the groups in order; its
 *    id is k + 1 and its random stream depends on the seed and id only) runs
 *    in segment k mod N + 1;
 *  - a rate group with n VUs is hosted by h = min(n, N) segments (those with
 *    some of its VUs); the host of rank r (r = (segment - 1 - offset) mod N,
 *    offset = the VUs of the groups before) takes the group's arrivals
 *    k = r, r + h, r + 2h, ...;
 *  - a --requests budget R is shared like the engine shares it between
 *    workers: segment s gets floor(R * vus_s / V), the remainder one each to
 *    segments 1, 2, ... (those with VUs);
 *  - stage targets, ramp-up and pacing stay the whole run's: VU k runs
 *    exactly when it would in the unsegmented run. */
#define PLAN_MAX_SEGMENTS 100000
/* "3/8" -> 3, 8.  0, or -1 with the reason in why. */
int plan_segment_parse(const char *arg, int *index, int *count, char *why, size_t len);
/* Is VU k of the run (0-based, through the groups) in s's segment?  Always
 * 1 for an unsegmented run. */
int plan_segment_has_vu(const scenario *s, int64_t k);
/* VUs of group g in s's segment (group g's whole count when unsegmented). */
int plan_segment_group_vus(const scenario *s, int g);
/* VUs in s's segment, all groups. */
int64_t plan_segment_vus(const scenario *s);
/* The arrivals of rate group g in s's segment: k = *first + m * *step
 * (m = 0, 1, ...).  Returns 0 when the segment has no VU of g (no arrivals). */
int plan_segment_arrivals(const scenario *s, int g, uint64_t *first, uint64_t *step);
/* The same one level down: of those, the arrivals of worker w (0-based) of
 * nworkers in the segment, whose p-th VU (run order) runs on worker
 * p % nworkers.  Returns 0 when that worker has no VU of g. */
int plan_worker_arrivals(const scenario *s, int g, int nworkers, int w, uint64_t *first, uint64_t *step);
/* Segment `index`'s share (1-based) of a budget over the VUs of s. */
int64_t plan_segment_share(const scenario *s, int index, int64_t budget);
/* After plan_check: requests becomes this segment's share (requests_whole
 * keeps the run's), in s and every phase. */
void plan_segment_apply(scenario *s);

/* Pushes { limits = { name = { min, max, step, kind, range } }, defaults = {...} }
 * for the checkers in lua/. */
void plan_push_rules(lua_State *L);

#endif
