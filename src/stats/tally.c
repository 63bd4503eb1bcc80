/* tally.c - bounded message -> count table (open addressing, FNV-1a); see
 * tally.h.  Every message is made safe here, where it enters (common/text:
 * control bytes and invalid UTF-8 escaped, truncated on a character
 * boundary), so every output that shows errors gets clean text.  Allocates
 * only when a new message is first seen; an allocation failure counts the
 * message as "other". */
#include "stats/tally.h"

#include <stdlib.h>
#include <string.h>

#include "common/text.h"

void tally_init(tally *t, size_t limit) {
    memset(t, 0, sizeof *t);
    t->limit = limit;
}

static uint64_t tally_hash(const char *s, size_t len) {
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

static size_t tally_slot(const tally *t, const char *msg, size_t len) {
    size_t i = tally_hash(msg, len) & (t->cap - 1);
    while (t->msgs[i] && !(strlen(t->msgs[i]) == len && memcmp(t->msgs[i], msg, len) == 0))
        i = (i + 1) & (t->cap - 1);
    return i;
}

/* Double the table; -1 (the table unchanged) when out of memory. */
static int tally_grow(tally *t) {
    tally old = *t;
    size_t cap = old.cap ? old.cap * 2 : 16;
    char **msgs = calloc(cap, sizeof *msgs);
    int64_t *counts = calloc(cap, sizeof *counts);
    if (!msgs || !counts) {
        free(msgs);
        free(counts);
        return -1;
    }
    t->cap = cap;
    t->msgs = msgs;
    t->counts = counts;
    for (size_t i = 0; i < old.cap; i++) {
        if (!old.msgs[i]) continue;
        size_t j = tally_slot(t, old.msgs[i], strlen(old.msgs[i]));
        t->msgs[j] = old.msgs[i];
        t->counts[j] = old.counts[i];
    }
    free(old.msgs);
    free(old.counts);
    return 0;
}

void tally_add(tally *t, const char *msg, size_t len, int64_t count) {
    char clean[TALLY_MSG_MAX + 1];
    if (len > TALLY_MSG_MAX || !text_is_clean(msg, len)) {
        len = text_escape(msg, len, clean, sizeof clean);
        msg = clean;
    }
    if ((t->n + 1) * 2 > t->cap && tally_grow(t) != 0) { t->other += count; return; }
    size_t i = tally_slot(t, msg, len);
    if (t->msgs[i]) { t->counts[i] += count; return; }
    if (t->n >= t->limit || !(t->msgs[i] = strndup(msg, len))) { t->other += count; return; }
    t->counts[i] = count;
    t->n++;
}

void tally_merge(tally *dst, const tally *src) {
    for (size_t i = 0; i < src->cap; i++)
        if (src->msgs[i]) tally_add(dst, src->msgs[i], strlen(src->msgs[i]), src->counts[i]);
    dst->other += src->other;
}

int64_t tally_total(const tally *t) {
    int64_t n = t->other;
    for (size_t i = 0; i < t->cap; i++) if (t->msgs[i]) n += t->counts[i];
    return n;
}

static int tally_cmp(const void *a, const void *b, void *ctx) {
    const tally *t = ctx;
    int64_t ca = t->counts[*(const size_t *)a], cb = t->counts[*(const size_t *)b];
    if (ca != cb) return ca < cb ? 1 : -1;
    return strcmp(t->msgs[*(const size_t *)a], t->msgs[*(const size_t *)b]);
}

size_t tally_sorted(const tally *t, size_t **order) {
    size_t n = 0;
    *order = malloc((t->n + 1) * sizeof **order);
    if (*order == NULL) return 0;
    for (size_t i = 0; i < t->cap; i++) if (t->msgs[i]) (*order)[n++] = i;
    qsort_r(*order, n, sizeof **order, tally_cmp, (void *)t);
    return n;
}

void tally_reset(tally *t) {
    for (size_t i = 0; i < t->cap; i++) {
        free(t->msgs[i]);
        t->msgs[i] = NULL;
        t->counts[i] = 0;
    }
    t->n = 0;
    t->other = 0;
}

void tally_free(tally *t) {
    tally_reset(t);
    free(t->msgs);
    free(t->counts);
    memset(t, 0, sizeof *t);
}
