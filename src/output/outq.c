/* outq.c - the bounded queue between the main thread (producer) and a
 * sink's thread (consumer): the producer never waits; when the consumer
 * falls behind by max_bytes, new items are refused and counted as dropped.
 * No I/O here. */
#include "output/output_priv.h"

#include <stdlib.h>
#include <string.h>

#define OUTQ_STALL_MS 500u

int outq_init(outq *q, size_t max_bytes) {
    memset(q, 0, sizeof *q);
    q->max_bytes = max_bytes;
    if (uv_mutex_init(&q->mu) != 0) return -1;
    if (uv_cond_init(&q->cv) != 0) {
        uv_mutex_destroy(&q->mu);
        return -1;
    }
    return 0;
}

int outq_push(outq *q, const void *data, size_t len, int64_t weight) {
    uv_mutex_lock(&q->mu);
    int full = q->closing || q->bytes + len > q->max_bytes;
    outq_item *it = full ? NULL : malloc(sizeof *it + len);
    if (!it) {
        q->dropped += weight;
        uv_mutex_unlock(&q->mu);
        return -1;
    }
    it->next = NULL;
    it->len = len;
    it->weight = weight;
    memcpy(it->data, data, len);
    if (q->tail) q->tail->next = it;
    else q->head = it;
    q->tail = it;
    q->bytes += len;
    uv_cond_broadcast(&q->cv);
    uv_mutex_unlock(&q->mu);
    return 0;
}

outq_item *outq_pop(outq *q) {
    uv_mutex_lock(&q->mu);
    while (!q->head && !q->closing) uv_cond_wait(&q->cv, &q->mu);
    outq_item *it = q->head;
    if (it) {
        q->head = it->next;
        if (!q->head) q->tail = NULL;
        q->bytes -= it->len;
        q->busy = 1;
    }
    uv_mutex_unlock(&q->mu);
    return it;
}

void outq_done(outq *q) {
    uv_mutex_lock(&q->mu);
    q->busy = 0;
    q->progress++;
    uv_cond_broadcast(&q->cv);
    uv_mutex_unlock(&q->mu);
}

/* Gives up at wait_ms, or sooner when the consumer made no progress for
 * OUTQ_STALL_MS (stuck in one write to a reader that does not read).  With
 * keep_last (the last item holds what the earlier ones did, as cumulative
 * totals do), the items queued behind the one in progress but the last are
 * dropped at once (counted), and there is no stall rule: the consumer's I/O
 * must be bounded itself. */
int outq_close_wait(outq *q, int64_t wait_ms, int keep_last) {
    uint64_t now = uv_hrtime(), until = now + (uint64_t)wait_ms * 1000000u, moved = now;
    uint64_t stall = keep_last ? UINT64_MAX : OUTQ_STALL_MS * 1000000ull;
    uv_mutex_lock(&q->mu);
    q->closing = 1;
    uv_cond_broadcast(&q->cv);
    while (keep_last && q->head && q->head != q->tail) {
        outq_item *it = q->head;
        q->head = it->next;
        q->bytes -= it->len;
        q->dropped += it->weight;
        free(it);
    }
    uint64_t seen = q->progress;
    while ((q->head || q->busy) && now < until && now - moved < stall) {
        uv_cond_timedwait(&q->cv, &q->mu, 50000000u);
        now = uv_hrtime();
        if (q->progress != seen) seen = q->progress, moved = now;
    }
    int drained = !q->head && !q->busy;
    for (outq_item *it = q->head, *next; it; it = next) {   /* what was not sent */
        next = it->next;
        q->dropped += it->weight;
        free(it);
    }
    q->head = q->tail = NULL;
    q->bytes = 0;
    uv_mutex_unlock(&q->mu);
    return drained;
}

int64_t outq_dropped(outq *q) {
    uv_mutex_lock(&q->mu);
    int64_t n = q->dropped;
    uv_mutex_unlock(&q->mu);
    return n;
}

void outq_destroy(outq *q) {
    for (outq_item *it = q->head, *next; it; it = next) {
        next = it->next;
        free(it);
    }
    uv_cond_destroy(&q->cv);
    uv_mutex_destroy(&q->mu);
}
