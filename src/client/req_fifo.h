/* client/req_fifo.h - what the memcached and redis clients do alike with a
 * request, whatever the protocol: its clock (the caller's start, the instant
 * its reply was read, its deadline), its place in the FIFO of requests sent
 * and not yet answered (replies come back in order), and the caller waiting
 * for a connect.  Header-only (static inline): it is on every request's path.
 * It knows no protocol, no socket and no Lua; it neither allocates nor calls
 * a request's callback (the client does, once it has taken the request off
 * the queue). */
#ifndef LUAMECH_CLIENT_REQ_FIFO_H
#define LUAMECH_CLIENT_REQ_FIFO_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

/* The head of every memcached and redis request (the first member of
 * mc_req and redis_req). */
typedef struct client_req {
    /* set by the caller before sending */
    uint64_t start_ns;            /* uv_hrtime() at the call, if the caller has it; 0 = read it */
    /* set by the client before on_done: uv_hrtime() when the reply's bytes
     * were read (one clock read per read, shared by every reply in it); 0
     * when it failed without a reply (the caller reads the clock) */
    uint64_t done_ns;
    /* private to the client */
    uint64_t deadline_ns;         /* 0: none */
    struct client_req *next;
} client_req;

/* Requests sent (or queued to be sent) and not yet answered, oldest first. */
typedef struct client_fifo {
    client_req *head, *tail;
    size_t n;
} client_fifo;

/* A request enters a client: no deadline, no reply yet.  Returns its start:
 * the caller's clock read, or now. */
static inline uint64_t client_req_begin(client_req *r) {
    r->next = NULL;
    r->deadline_ns = r->done_ns = 0;
    return r->start_ns ? r->start_ns : uv_hrtime();
}

/* Queue r, begun at start_ns, with the client's timeout (0: none).  Returns
 * its deadline, for the client's timer (0: none). */
static inline uint64_t client_fifo_push(client_fifo *q, client_req *r, uint64_t start_ns,
                                        uint64_t timeout_ns) {
    r->deadline_ns = timeout_ns ? start_ns + timeout_ns : 0;
    if (q->tail) q->tail->next = r;
    else q->head = r;
    q->tail = r;
    q->n++;
    return r->deadline_ns;
}

/* Take the oldest request off a non-empty queue, unlinked. */
static inline client_req *client_fifo_pop(client_fifo *q) {
    client_req *r = q->head;
    q->head = r->next;
    if (q->head == NULL) q->tail = NULL;
    q->n--;
    r->next = NULL;
    return r;
}

/* Take the oldest request, answered by a reply of the read whose clock is
 * *now_ns (read here, at the read's first reply, when still 0). */
static inline client_req *client_fifo_pop_answered(client_fifo *q, uint64_t *now_ns) {
    client_req *r = client_fifo_pop(q);
    if (*now_ns == 0) *now_ns = uv_hrtime();
    r->done_ns = *now_ns;
    return r;
}

/* Deadline of the oldest request; 0 when there is none or it has none. */
static inline uint64_t client_fifo_head_deadline(const client_fifo *q) {
    return q->head ? q->head->deadline_ns : 0;
}

/* Move every request of src behind those of dst; src is empty after. */
static inline void client_fifo_splice(client_fifo *dst, client_fifo *src) {
    if (src->head == NULL) return;
    if (dst->tail) dst->tail->next = src->head;
    else dst->head = src->head;
    dst->tail = src->tail;
    dst->n += src->n;
    src->head = src->tail = NULL;
    src->n = 0;
}

/* status 0: connected; else a libuv or client status and errmsg (valid only
 * during the call). */
typedef void (*client_connect_cb)(void *data, int status, const char *errmsg);

/* The caller of a client's connect, told once. */
typedef struct client_connect_wait {
    client_connect_cb cb;
    void *data;
} client_connect_wait;

/* Register the caller of connect.  0 when the client is closing: the caller
 * has been told (UV_ECANCELED) and there is nothing to connect. */
static inline int client_connect_wait_set(client_connect_wait *w, int closing,
                                          client_connect_cb cb, void *data) {
    if (closing) {
        if (cb) cb(data, UV_ECANCELED, "client closed");
        return 0;
    }
    w->cb = cb;
    w->data = data;
    return 1;
}

/* Tell the waiting caller, if any, once: the wait is cleared before its call. */
static inline void client_connect_wait_tell(client_connect_wait *w, int status, const char *msg) {
    client_connect_cb cb = w->cb;
    if (cb == NULL) return;
    w->cb = NULL;
    cb(w->data, status, status == 0 ? NULL : msg);
}

#endif
