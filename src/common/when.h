/* when.h - wall-clock instants for --start-at: RFC 3339 times
 * ("2026-12-02T10:00:00Z", "2026-12-02T11:00:00.5+01:00") or a delay from
 * now ("+30s", any duration of units.h), and their RFC 3339 text. */
#ifndef LUAMECH_WHEN_H
#define LUAMECH_WHEN_H

#include <stddef.h>
#include <stdint.h>

/* The latest instant --start-at accepts: 7 days after now. */
#define WHEN_MAX_AHEAD_NS (7 * 86400 * 1000000000LL)

/* arg -> CLOCK_REALTIME ns since the epoch (now_ns: the caller's reading of
 * CLOCK_REALTIME, 0 or more, for "+DUR" and the range).  0, or -1 with the
 * reason in why: not a time, before 1970, or more than WHEN_MAX_AHEAD_NS
 * after now_ns ("too far in the future"). */
int when_parse_ns(const char *arg, int64_t now_ns, int64_t *at_ns, char *why, size_t len);
/* "2026-12-02T10:00:00.000Z" (UTC, milliseconds) into buf; returns buf. */
char *when_format(int64_t at_ns, char *buf, size_t len);

#endif
