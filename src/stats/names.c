/* names.c - (name, kind) -> id index; see names.h.  Grows at half load; never
 * shrinks, never removes.  No I/O, no locking. */
#include "stats/names.h"

#include <stdlib.h>
#include <string.h>

static uint64_t names_hash(const char *name, int kind) {
    uint64_t h = 1469598103934665603ULL ^ (uint64_t)(unsigned)kind;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) h = (h ^ *p) * 1099511628211ULL;
    return h;
}

void names_init(names *x, names_key_fn key) {
    memset(x, 0, sizeof *x);
    x->key = key;
}

int names_find(const names *x, const void *ctx, const char *name, int kind) {
    if (!x->cap) return -1;
    for (size_t i = names_hash(name, kind) & (x->cap - 1);; i = (i + 1) & (x->cap - 1)) {
        if (!x->slot[i]) return -1;
        const char *n;
        int k;
        x->key(ctx, x->slot[i] - 1, &n, &k);
        if (k == kind && strcmp(n, name) == 0) return x->slot[i] - 1;
    }
}

static void names_put(int *slot, size_t cap, uint64_t h, int id) {
    size_t i = h & (cap - 1);
    while (slot[i]) i = (i + 1) & (cap - 1);
    slot[i] = id + 1;
}

static int names_grow(names *x, const void *ctx) {
    size_t cap = x->cap ? x->cap * 2 : 64;
    int *slot = calloc(cap, sizeof *slot);
    if (!slot) return -1;
    for (size_t i = 0; i < x->cap; i++) {
        if (!x->slot[i]) continue;
        const char *n;
        int k;
        x->key(ctx, x->slot[i] - 1, &n, &k);
        names_put(slot, cap, names_hash(n, k), x->slot[i] - 1);
    }
    free(x->slot);
    x->slot = slot;
    x->cap = cap;
    return 0;
}

int names_add(names *x, const void *ctx, int id) {
    if ((x->n + 1) * 2 > x->cap && names_grow(x, ctx) != 0) return -1;
    const char *n;
    int k;
    x->key(ctx, id, &n, &k);
    names_put(x->slot, x->cap, names_hash(n, k), id);
    x->n++;
    return 0;
}

void names_free(names *x) {
    free(x->slot);
    x->slot = NULL;
    x->cap = x->n = 0;
}
