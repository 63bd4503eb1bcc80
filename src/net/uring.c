/* uring.c - the io_uring backend under net/conn.c (see uring.h): the
 * backend of each loop (net_io_use: a value set by the loop's owner, kept in
 * uv_loop_t.data; nothing read from the environment), the mode names and
 * the kernel probe, one ring per libuv loop (set up by the first connection,
 * torn down after the last), per-connection I/O records whose recv and send
 * are queued during the loop turn and submitted together by one
 * io_uring_submit in a uv_prepare handle, and the completions reaped from a
 * uv_poll handle on the ring fd; completions run as task work when the
 * thread enters the kernel anyway (COOP_TASKRUN), not by interrupting it.
 * A record outlives its connection until its operations have completed
 * (their buffers with it), so a close never waits for the kernel.  It
 * parses nothing and knows no TLS: conn.c decides what to send and where
 * to receive. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "net/uring.h"

#include <errno.h>
#include <liburing.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define NET_RING_ENTRIES 4096
#define NET_RING_BATCH 128          /* completions copied out per reap step */
#define NET_RING_REAP_PASSES 4      /* submit-and-reap-sends passes per prepare */
#define NET_RING_DRAIN_ROUNDS 50    /* x 100 ms: waiting for cancelled operations at teardown */
/* Completions run as task work when the loop thread enters the kernel
 * anyway (its next io_uring_enter or epoll_wait), instead of an
 * inter-processor interrupt that stops the running thread for every
 * completion (COOP_TASKRUN); without it both luamech's and the server's CPU
 * per operation doubled (docs/benchmarks.md, "io_uring on this kernel").
 * Kernels before 5.19 refuse the flag: the ring is then set up without. */
#define NET_RING_FLAGS IORING_SETUP_COOP_TASKRUN

enum { UD_RECV = 1, UD_SEND = 2, UD_MASK = 3 };

typedef struct net_ring {
    struct io_uring ring;
    uv_poll_t poll;                 /* the ring fd: completions ready */
    uv_prepare_t submit;            /* once per loop turn: io_uring_submit */
    uv_loop_t *loop;
    int nattached;                  /* records whose connection is alive */
    int nclosing;                   /* handles whose close callback is pending */
    size_t inflight;                /* recv/send operations in flight, all records */
    net_io_mode mode;               /* the loop's: NET_IO_URING or NET_IO_AUTO */
    uint64_t polls, reaped;         /* poll wake-ups, completions reaped (LUAMECH_IO_STATS) */
    uint64_t reaped_early;          /* sends reaped right after their submission */
} net_ring;

struct net_uio {
    net_ring *r;
    void *conn;                     /* NULL: detached (the connection is freed) */
    const net_uio_cbs *cbs;
    int fd;
    int recving, sending;           /* an operation of that kind is in flight */
    int cancelled;
    void *orphans[4];               /* freed with the record */
    int norphans;
};

/* ---- the mode and the probe ------------------------------------------- */

/* uv_loop_t.data of a loop: NULL (no backend set: epoll), the address of
 * its mode's tag (no ring now), or its ring (uring in use; ring->mode).
 * The tags are constant: only their addresses are stored. */
static const char io_tag[3] = {NET_IO_AUTO, NET_IO_URING, NET_IO_EPOLL};

static int io_is_tag(const void *d) { return d == &io_tag[0] || d == &io_tag[1] || d == &io_tag[2]; }

net_io_mode net_io_of(const uv_loop_t *loop) {
    const void *d = loop->data;
    if (d == NULL) return NET_IO_EPOLL;
    if (io_is_tag(d)) return (net_io_mode)*(const char *)d;
    return ((const net_ring *)d)->mode;
}

int net_io_use(uv_loop_t *loop, net_io_mode m) {
    if ((unsigned)m > NET_IO_EPOLL) return UV_EINVAL;
    void *d = loop->data;
    if (d != NULL && !io_is_tag(d)) {          /* a ring runs: its connections stay on it */
        if (m == NET_IO_EPOLL) return UV_EBUSY;
        ((net_ring *)d)->mode = m;
        return 0;
    }
    loop->data = (void *)(uintptr_t)&io_tag[m];   /* never written through */
    return 0;
}

const char *net_io_name(net_io_mode m) {
    return m == NET_IO_URING ? "uring" : m == NET_IO_EPOLL ? "epoll" : "auto";
}

int net_io_parse(const char *s, net_io_mode *out) {
    if (s == NULL || strcmp(s, "auto") == 0) *out = NET_IO_AUTO;
    else if (strcmp(s, "uring") == 0) *out = NET_IO_URING;
    else if (strcmp(s, "epoll") == 0) *out = NET_IO_EPOLL;
    else return -1;
    return 0;
}

static const char *uring_why(int err) {
    switch (err) {
    case EPERM: return "not permitted (kernel.io_uring_disabled, or a seccomp profile)";
    case ENOSYS: return "not implemented by this kernel (or blocked by a seccomp profile)";
    case EINVAL: return "this kernel's io_uring is too old";
    case ENOMEM: return "out of memory (locked memory limit?)";
    default: return strerror(err);
    }
}

int net_io_probe(char *msg, size_t len) {
    struct io_uring ring;
    int rc = io_uring_queue_init(4, &ring, 0);
    if (rc < 0) {
        snprintf(msg, len, "io_uring_setup: %s", uring_why(-rc));
        return rc;
    }
    struct io_uring_probe *p = io_uring_get_probe_ring(&ring);
    int ok = p && io_uring_opcode_supported(p, IORING_OP_SEND) && io_uring_opcode_supported(p, IORING_OP_RECV) &&
             io_uring_opcode_supported(p, IORING_OP_ASYNC_CANCEL);
    if (p) io_uring_free_probe(p);
    io_uring_queue_exit(&ring);
    if (!ok) {
        snprintf(msg, len, "this kernel's io_uring has no send/recv/cancel operations");
        return -EINVAL;
    }
    return 0;
}

int net_io_resolve(net_io_mode m, int *uring, char *msg, size_t len) {
    char why[160];
    *uring = 0;
    msg[0] = '\0';
    if (m == NET_IO_EPOLL) return 0;
    if (net_io_probe(why, sizeof why) == 0) {
        *uring = 1;
        return 0;
    }
    if (m == NET_IO_URING) {
        snprintf(msg, len, "--io uring: io_uring is unavailable here (%s); use --io epoll or auto", why);
        return -1;
    }
    snprintf(msg, len, "io_uring is unavailable here (%s): using epoll", why);
    return 0;
}

/* ---- the ring of a loop ----------------------------------------------- */

static void ring_on_poll(uv_poll_t *h, int status, int events);
static void ring_on_prepare(uv_prepare_t *h);
static void ring_dispatch(net_ring *r, uint64_t ud, int res);

static struct io_uring_sqe *ring_sqe(net_ring *r) {
    struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);
    if (sqe) return sqe;
    int rc = io_uring_submit(&r->ring);       /* the queue is full: submit now */
    if (rc < 0 && rc != -EAGAIN && rc != -EBUSY && rc != -EINTR) return NULL;
    return io_uring_get_sqe(&r->ring);
}

/* Copy completions out, advance, then dispatch (a callback may queue more). */
static int ring_reap(net_ring *r) {
    struct io_uring_cqe *cqes[NET_RING_BATCH];
    uint64_t ud[NET_RING_BATCH];
    int res[NET_RING_BATCH];
    int total = 0;
    for (;;) {
        unsigned n = io_uring_peek_batch_cqe(&r->ring, cqes, NET_RING_BATCH);
        if (n == 0) break;
        for (unsigned i = 0; i < n; i++) {
            ud[i] = io_uring_cqe_get_data64(cqes[i]);
            res[i] = cqes[i]->res;
        }
        io_uring_cq_advance(&r->ring, n);
        for (unsigned i = 0; i < n; i++) ring_dispatch(r, ud[i], res[i]);
        total += (int)n;
    }
    return total;
}

static void ring_on_poll(uv_poll_t *h, int status, int events) {
    net_ring *r = h->data;
    (void)status;
    (void)events;
    r->polls++;
    r->reaped += (uint64_t)ring_reap(r);
}

/* Successful sends at the head of the completion queue, dispatched now:
 * the kernel completes most sends inline, while submitting them, and each
 * left for the poll cost a loop turn of its own (an epoll_wait that returns
 * at once, then a second one that waits for the replies).  A send's
 * callback only queues more bytes (a short send's rest, or what was queued
 * meanwhile): no request completes and no VU resumes here, so nothing
 * waits for a poll that could block (only a failure to queue those bytes
 * fails the connection here, as it would anywhere).  The first receive or
 * failed send stops the pass; it and everything after it go to the poll. */
static int ring_reap_sends(net_ring *r) {
    struct io_uring_cqe *cqe;
    int n = 0;
    while (io_uring_peek_cqe(&r->ring, &cqe) == 0) {
        uint64_t ud = io_uring_cqe_get_data64(cqe);
        int res = cqe->res;
        if (ud != 0 && ((ud & UD_MASK) != UD_SEND || res <= 0)) break;
        io_uring_cqe_seen(&r->ring, cqe);
        ring_dispatch(r, ud, res);
        n++;
    }
    return n;
}

static void ring_on_prepare(uv_prepare_t *h) {
    net_ring *r = h->data;
    /* A send's callback may queue another send (a short send's rest): the
     * next pass submits it.  Bounded: the last pass submits without reaping,
     * so no SQE is ever left unsubmitted while the poll may block. */
    for (int pass = 0; io_uring_sq_ready(&r->ring) > 0; pass++) {
        if (io_uring_submit(&r->ring) < 0) return;   /* -EAGAIN/-EBUSY/-EINTR: the next turn submits it */
        if (pass == NET_RING_REAP_PASSES) break;     /* its completions: the poll */
        r->reaped_early += (uint64_t)ring_reap_sends(r);
    }
    /* Receives may already be posted too: the uv_poll sees them,
     * level-triggered, in this turn's poll. */
}

static void ring_free_on_close(uv_handle_t *h) {
    net_ring *r = h->data;
    if (--r->nclosing == 0) free(r);
}

/* Is h still in its loop's handle queue (its close not yet finished)? */
static void ring_walk_find(uv_handle_t *h, void *arg) {
    void **want = arg;
    if ((void *)h == want[0]) want[1] = h;
}

static int ring_handle_live(uv_loop_t *loop, uv_handle_t *h) {
    void *want[2] = {h, NULL};
    uv_walk(loop, ring_walk_find, want);
    return want[1] != NULL;
}

/* Wait (bounded) for cancelled operations, so no buffer is freed while the
 * kernel may use it; then release the ring. */
static void ring_destroy(net_ring *r) {
    if (r->loop->data == r) r->loop->data = (void *)(uintptr_t)&io_tag[r->mode];   /* the loop's mode stays */
    if (getenv(NET_IO_STATS_ENV))   /* a diagnostic for benchmarks and tests */
        fprintf(stderr, "luamech: io_uring ring: %llu completions reaped after %llu poll wake-ups, "
                "%llu sends at their submission; coop_taskrun %s\n", (unsigned long long)r->reaped,
                (unsigned long long)r->polls, (unsigned long long)r->reaped_early,
                (r->ring.flags & IORING_SETUP_COOP_TASKRUN) ? "on" : "off");
    for (int i = 0; r->inflight > 0 && i < NET_RING_DRAIN_ROUNDS; i++) {
        struct __kernel_timespec ts = {.tv_sec = 0, .tv_nsec = 100 * 1000 * 1000};
        struct io_uring_cqe *cqe;
        int rc = io_uring_submit_and_wait_timeout(&r->ring, &cqe, 1, &ts, NULL);
        if (rc < 0 && rc != -ETIME && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY) break;
        ring_reap(r);
    }
    io_uring_queue_exit(&r->ring);    /* the kernel cancels anything left */
    uv_handle_t *hs[2] = {(uv_handle_t *)&r->poll, (uv_handle_t *)&r->submit};
    int leak = 0;
    for (int i = 0; i < 2; i++) {
        if (!uv_is_closing(hs[i])) {
            r->nclosing++;
            uv_close(hs[i], ring_free_on_close);
        } else if (ring_handle_live(r->loop, hs[i])) {
            leak = 1;   /* closed by the loop's owner and not finished: its memory must stay */
        }
    }
    if (r->nclosing == 0 && !leak) free(r);   /* both closed by the owner's walk, and finished */
}

static int ring_new(uv_loop_t *loop, net_io_mode m, net_ring **out) {
    net_ring *r = calloc(1, sizeof *r);
    if (r == NULL) return UV_ENOMEM;
    r->mode = m;
    int rc = io_uring_queue_init(NET_RING_ENTRIES, &r->ring, NET_RING_FLAGS);
    if (rc == -EINVAL) rc = io_uring_queue_init(NET_RING_ENTRIES, &r->ring, 0);
    if (rc < 0) {
        free(r);
        return rc;
    }
    r->loop = loop;
    r->poll.data = r->submit.data = r;
    rc = uv_poll_init(loop, &r->poll, r->ring.ring_fd);
    if (rc < 0) {
        io_uring_queue_exit(&r->ring);
        free(r);
        return rc;
    }
    uv_prepare_init(loop, &r->submit);      /* only links the handle: cannot fail */
    rc = uv_poll_start(&r->poll, UV_READABLE, ring_on_poll);
    if (rc == 0) rc = uv_prepare_start(&r->submit, ring_on_prepare);
    if (rc < 0) {
        io_uring_queue_exit(&r->ring);
        r->nclosing = 2;
        uv_close((uv_handle_t *)&r->poll, ring_free_on_close);
        uv_close((uv_handle_t *)&r->submit, ring_free_on_close);
        return rc;
    }
    /* Neither keeps the loop alive: the connections' own handles do. */
    uv_unref((uv_handle_t *)&r->poll);
    uv_unref((uv_handle_t *)&r->submit);
    loop->data = r;
    *out = r;
    return 0;
}

/* ---- per-connection records ------------------------------------------- */

static void uio_free(net_uio *u) {
    for (int i = 0; i < u->norphans; i++) free(u->orphans[i]);
    free(u);
}

net_uio *net_uio_open(uv_loop_t *loop, void *conn, const net_uio_cbs *cbs, int *status) {
    *status = 0;
    net_io_mode m = net_io_of(loop);
    if (m == NET_IO_EPOLL) return NULL;
    net_ring *r = io_is_tag(loop->data) ? NULL : loop->data;
    if (r == NULL) {
        int rc = ring_new(loop, m, &r);
        if (rc < 0) {
            if (m == NET_IO_URING) *status = rc;   /* auto: epoll, as the run's notice said */
            return NULL;
        }
    }
    net_uio *u = calloc(1, sizeof *u);
    if (u == NULL) {
        *status = UV_ENOMEM;
        if (r->nattached == 0) ring_destroy(r);
        return NULL;
    }
    u->r = r;
    u->conn = conn;
    u->cbs = cbs;
    u->fd = -1;
    r->nattached++;
    return u;
}

void net_uio_set_fd(net_uio *u, int fd) { u->fd = fd; }

int net_uio_recv(net_uio *u, char *p, size_t n) {
    struct io_uring_sqe *sqe = ring_sqe(u->r);
    if (sqe == NULL) return UV_ENOBUFS;
    io_uring_prep_recv(sqe, u->fd, p, n, 0);
    io_uring_sqe_set_data64(sqe, (uint64_t)(uintptr_t)u | UD_RECV);
    u->recving = 1;
    u->r->inflight++;
    return 0;
}

int net_uio_send(net_uio *u, const char *p, size_t n) {
    struct io_uring_sqe *sqe = ring_sqe(u->r);
    if (sqe == NULL) return UV_ENOBUFS;
    io_uring_prep_send(sqe, u->fd, p, n, MSG_NOSIGNAL);
    io_uring_sqe_set_data64(sqe, (uint64_t)(uintptr_t)u | UD_SEND);
    u->sending = 1;
    u->r->inflight++;
    return 0;
}

/* Cancels carry user data 0: their own completions are ignored. */
static void uio_cancel_one(net_uio *u, unsigned kind) {
    struct io_uring_sqe *sqe = ring_sqe(u->r);
    if (sqe == NULL) return;     /* the operation completes by itself; the record waits for it */
    io_uring_prep_cancel64(sqe, (uint64_t)(uintptr_t)u | kind, 0);
    io_uring_sqe_set_data64(sqe, 0);
}

/* Submitted at once, before conn.c closes the socket: an SQE names its file
 * by number, resolved at submission, and a number closed this turn may be
 * reused by a socket opened later in the same turn. */
void net_uio_cancel(net_uio *u) {
    if (u->cancelled) return;
    u->cancelled = 1;
    if (!u->recving && !u->sending) return;
    if (u->recving) uio_cancel_one(u, UD_RECV);
    if (u->sending) uio_cancel_one(u, UD_SEND);
    (void)io_uring_submit(&u->r->ring);   /* -EAGAIN/-EBUSY: they stay queued for the turn's submit */
}

void net_uio_detach(net_uio *u, void **bufs, int nbufs) {
    net_ring *r = u->r;
    net_uio_cancel(u);
    u->conn = NULL;
    for (int i = 0; i < nbufs && u->norphans < 4; i++)
        if (bufs[i]) u->orphans[u->norphans++] = bufs[i];
    if (!u->recving && !u->sending) uio_free(u);
    if (--r->nattached == 0) ring_destroy(r);
}

static void ring_dispatch(net_ring *r, uint64_t ud, int res) {
    if (ud == 0) return;                      /* a cancel's own completion */
    net_uio *u = (net_uio *)(uintptr_t)(ud & ~(uint64_t)UD_MASK);
    unsigned kind = (unsigned)(ud & UD_MASK);
    r->inflight--;
    if (kind == UD_RECV) u->recving = 0;
    else u->sending = 0;
    if (u->conn == NULL) {
        if (!u->recving && !u->sending) uio_free(u);
        return;
    }
    if (u->cancelled) return;
    if (kind == UD_RECV) u->cbs->on_recv(u->conn, res);
    else u->cbs->on_send(u->conn, res);
}
