/* grow.c - growing a byte buffer by doubling (see grow.h): the sizes,
 * their ceiling and the checked realloc.  It never shrinks a buffer, frees
 * one, or allocates when the capacity suffices. */
#include "common/grow.h"

#include <stdlib.h>

int grow_realloc(char **buf, size_t *cap, size_t need, size_t init_cap, size_t max_cap) {
    if (need <= *cap) return 0;
    if (max_cap > PTRDIFF_MAX) max_cap = PTRDIFF_MAX;
    if (need > max_cap) return -1;
    size_t c = *cap ? *cap : init_cap ? init_cap : need;
    if (c > max_cap) c = max_cap;
    while (c < need) c = c > max_cap / 2 ? max_cap : c * 2;
    char *b = realloc(*buf, c);
    if (b == NULL) return -1;
    *buf = b;
    *cap = c;
    return 0;
}
