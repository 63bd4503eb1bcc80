/* names.h - an index from (name, kind) to a small integer: open addressing
 * over FNV-1a hashes, for the worker's and the main thread's timer tables
 * (lookups are O(1) whatever the number of timers).  It stores the ids only;
 * the names live in the caller's table, read back through a callback given
 * the caller's table (ctx) at each call, so the table may move.  Not
 * thread-safe. */
#ifndef LUAMECH_NAMES_H
#define LUAMECH_NAMES_H

#include <stddef.h>
#include <stdint.h>

/* The name and kind of id in the caller's table. */
typedef void (*names_key_fn)(const void *ctx, int id, const char **name, int *kind);

typedef struct names {
    size_t cap;           /* power of two, or 0 */
    size_t n;
    int *slot;            /* id + 1, 0 = empty */
    names_key_fn key;
} names;

void names_init(names *x, names_key_fn key);
/* The id of (name, kind) in table ctx, or -1. */
int names_find(const names *x, const void *ctx, const char *name, int kind);
/* Index id of table ctx under its name and kind (not already there).  -1
 * when out of memory (the index is unchanged). */
int names_add(names *x, const void *ctx, int id);
void names_free(names *x);

#endif
