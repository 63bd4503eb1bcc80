/* check_names.h - the counter name prefixes of luamech.check(cond, name):
 * the Lua binding (lua/lm_core.c) counts under them, thresholds (stats/)
 * and reports (report/) list them as checks.  Here, below every layer, so
 * that none of them includes another's header for two strings. */
#ifndef LUAMECH_CHECK_NAMES_H
#define LUAMECH_CHECK_NAMES_H

#define LM_CHECK_PASS "check.pass "
#define LM_CHECK_FAIL "check.fail "

#endif
