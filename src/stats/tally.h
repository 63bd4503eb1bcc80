/* tally.h - error messages with counts (message -> count), bounded in the
 * number of distinct messages; the rest is counted as "other". Used
 * worker-locally per tick and merged in the main thread. Not thread-safe. */
#ifndef LUAMECH_TALLY_H
#define LUAMECH_TALLY_H

#include <stddef.h>
#include <stdint.h>

#define TALLY_MSG_MAX 240   /* longer messages are truncated (after escaping) */

typedef struct tally {
    size_t n, cap, limit;   /* used slots, table size, max distinct messages */
    char **msgs;            /* open addressing, NULL = empty */
    int64_t *counts;
    int64_t other;          /* occurrences beyond `limit` distinct messages */
} tally;

void tally_init(tally *t, size_t limit);
/* Count msg[0..len) (any bytes: control bytes and invalid UTF-8 are
 * escaped as \xHH, see common/text.h, so the stored text is clean). */
void tally_add(tally *t, const char *msg, size_t len, int64_t count);
void tally_merge(tally *dst, const tally *src);
int64_t tally_total(const tally *t);
/* Entries sorted by count, descending; caller frees the array (not strings).
 * Returns the number of entries (0, *order NULL, when out of memory). */
size_t tally_sorted(const tally *t, size_t **order);
void tally_reset(tally *t);
void tally_free(tally *t);

#endif
