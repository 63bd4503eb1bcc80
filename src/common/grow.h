/* grow.h - the one growable byte buffer rule every layer uses: room for
 * need bytes in a buffer of *cap bytes, grown by doubling from a first size
 * up to a ceiling.  The check that the room is there is inline and
 * allocates nothing (hot paths call it per request); growing is
 * grow_realloc's, out of line.  A buffer is a char * and its capacity a
 * size_t owned by the caller, who frees it. */
#ifndef LUAMECH_GROW_H
#define LUAMECH_GROW_H

#include <stddef.h>
#include <stdint.h>

/* Grows *buf (capacity *cap bytes) to hold at least need bytes: from
 * init_cap when *cap is 0 (init_cap 0: need itself), doubling, the last
 * step stopping at max_cap (SIZE_MAX: no ceiling of the caller's; the
 * ceiling is never above PTRDIFF_MAX, malloc's own).  0; or -1, with *buf
 * and *cap as they were, when need is above the ceiling or realloc fails.
 * Nothing is allocated when need <= *cap. */
int grow_realloc(char **buf, size_t *cap, size_t need, size_t init_cap, size_t max_cap);

/* Room for need bytes in *buf: 0 at once when *cap suffices, else
 * grow_realloc's result. */
static inline int grow_reserve(char **buf, size_t *cap, size_t need, size_t init_cap, size_t max_cap) {
    return need <= *cap ? 0 : grow_realloc(buf, cap, need, init_cap, max_cap);
}

/* Room for more bytes after the first len: grow_reserve for len + more,
 * -1 (nothing changed) when that sum wraps. */
static inline int grow_room(char **buf, size_t *cap, size_t len, size_t more, size_t init_cap, size_t max_cap) {
    if (len <= *cap && more <= *cap - len) return 0;
    return more > SIZE_MAX - len ? -1 : grow_realloc(buf, cap, len + more, init_cap, max_cap);
}

#endif
