/* dist.h - a timer's latency distribution, printed in the styles of two
 * classic tools, from a histogram (microseconds, successful samples only):
 *
 * redis: redis-benchmark's (before 6.2) listing, one line per millisecond
 *   that holds samples, with the share of samples at or below it:
 *       ====== GET ======
 *         12345 requests completed in 3.00 seconds
 *
 *       98.51% <= 1 milliseconds
 *       100.00% <= 2 milliseconds
 *   A bucket of the histogram counts at or below N ms when its lowest
 *   equivalent value is (HdrHistogram's getPercentileAtOrBelowValue), the
 *   highest bucket when the exact max is; percentages are truncated to two
 *   decimals (99.999% prints 99.99%), so only the last line reads 100.00%.
 *
 * ab: ApacheBench's table, percentiles as luamech computes them everywhere
 *   (hist_percentile_us; 100% is the exact max), in ms with 3 decimals where
 *   ab rounds to whole ms:
 *       Percentage of the requests served within a certain time (ms)
 *         50%      0.128
 *         66%      0.150
 *         ...
 *        100%      0.489 (longest request)
 */
#ifndef LUAMECH_DIST_H
#define LUAMECH_DIST_H

#include <stdio.h>

#include "stats/hist.h"

/* seconds <= 0 leaves "in X seconds" out of the redis header. */
void dist_print_redis(FILE *out, const char *title, const hist *h, double seconds);
void dist_print_ab(FILE *out, const hist *h);

/* `luamech report DIR --distribution TIMER --style redis|ab`: merges every
 * interval of TIMER in DIR/histograms.hlog and prints its distribution to
 * out (style NULL = redis).  Returns an exit code of common/exit_codes.h: EXIT_OK;
 * EXIT_USAGE for an unknown style; EXIT_SCENARIO when the log is missing or
 * invalid or has no such timer (with a message on stderr listing the
 * timers it has). */
int dist_cmd_print(const char *dir, const char *timer, const char *style, FILE *out);

#endif
