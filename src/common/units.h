/* units.h - parsing and formatting of durations and counts, shared by the
 * command line and the scenario loader. Pure functions. */
#ifndef LUAMECH_UNITS_H
#define LUAMECH_UNITS_H

#include <stdint.h>
#include <stddef.h>

/* "250ms", "30s", "5m", "1h", "1.5s"; a bare number is seconds.
 * Returns 0 and sets *ns, or -1 on bad syntax, a negative value, or a
 * non-zero value below 1 us (durations have a resolution of 1 us). */
int units_parse_duration_ns(const char *s, int64_t *ns);
/* "1000", "10k", "1M", "2.5k" (k = 1000, M = 1000000). Returns 0 or -1. */
int units_parse_count(const char *s, int64_t *out);
/* "1h02m03s", "45s", "1.250s" into buf; returns buf. */
char *units_format_duration(int64_t ns, char *buf, size_t len);

#endif
