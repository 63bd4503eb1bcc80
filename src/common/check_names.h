/* check_names.h - the counter name prefixes of luamech.check(cond, name)
 * and of the custom gauges and rates:
 * the Lua binding (lua/lm_core.c) counts under them, thresholds (stats/)
 * and reports (report/) list them as checks.  Here, below every layer, so
 * that none of them includes another's header for two strings. */
#ifndef LUAMECH_CHECK_NAMES_H
#define LUAMECH_CHECK_NAMES_H

#define LM_CHECK_PASS "check.pass "
#define LM_CHECK_FAIL "check.fail "

/* Counter name prefixes of custom metrics (lua/lm_metrics.c): a gauge's
 * level changes, a rate's true and false counts (counters have none);
 * thresholds (stats/) and reports (report/metrics.c) read them back. */
#define LM_GAUGE "gauge "
#define LM_RATE_TRUE "rate.true "
#define LM_RATE_FALSE "rate.false "

#endif
