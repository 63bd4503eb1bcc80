/* suite.h - `luamech suite FILE`: a list of runs done one after another
 * (a sweep of one setting, or explicit runs), loaded as the phases of one
 * synthetic scenario so they run and report like phases. */
#ifndef LUAMECH_SUITE_H
#define LUAMECH_SUITE_H

#include "scenario/scenario.h"

/* Load the suite file and every run's scenario (each with its own
 * parameters and overrides).  Returns 0, or with a message: -1 (bad suite
 * or scenario), -2 (bad command-line value, e.g. a flag for the swept
 * setting). */
int suite_load(scenario *suite, const char *path, const params *p,
               const scenario_overrides *o, char *err, size_t err_len);
/* The same for suite text in memory, in a reused state L, as
 * scenario_load_state (scenario.h) does for a scenario: each run's scenario
 * file is read and loaded in L too. */
int suite_load_state(scenario *suite, lua_State *L, const char *path, const char *src, size_t len,
                     const params *p, const scenario_overrides *o, char *err, size_t err_len);
/* Safe on a zeroed or partly loaded suite. */
void suite_free(scenario *suite);

#endif
