/* uring.h - the io_uring backend under net/conn.c (docs/architecture.md "The
 * I/O backend seam"): one ring per libuv loop, created by the first
 * connection opened on the loop and destroyed when its last connection is
 * freed; its completions wake libuv through the ring fd watched by a uv_poll
 * handle, and everything queued in a loop turn is submitted once, by a
 * uv_prepare handle that runs after the connections' write flushes.  Connect
 * and close stay on libuv; steady-state send and recv go through the ring.
 *
 * Which backend: a value per loop, net_io_use(loop, mode), set by the
 * loop's owner before its first connection (`luamech run --io`: src/cli.c
 * resolves the mode once, net_io_resolve, and it travels as a value through
 * the runner and the bindings' share to each worker's loop; lm_core.c sets
 * it).  A loop nobody set runs epoll.  The mode, and the ring while one
 * runs, live in uv_loop_t.data (nothing else in luamech uses that field). */
#ifndef LUAMECH_NET_URING_H
#define LUAMECH_NET_URING_H

#include <stddef.h>
#include <uv.h>

/* The environment variable `luamech run` reads when --io is not given
 * (src/cli.c, once, into the plan); net/ itself never reads it. */
#define NET_IO_ENV "LUAMECH_IO"
/* Set (to anything): each ring prints, when torn down, its completions and
 * poll wake-ups and whether it runs completions cooperatively
 * (COOP_TASKRUN); a diagnostic for benchmarks and tests. */
#define NET_IO_STATS_ENV "LUAMECH_IO_STATS"

typedef enum net_io_mode { NET_IO_AUTO = 0, NET_IO_URING, NET_IO_EPOLL } net_io_mode;

/* "auto", "uring", "epoll" -> mode (NULL: auto); -1 for anything else.
 * net_io_name: the other way. */
int net_io_parse(const char *s, net_io_mode *out);
const char *net_io_name(net_io_mode m);

/* The backend of the connections opened on loop from now on: uring (the
 * loop's ring; a connection fails with the ring's status when it cannot be
 * set up), epoll, or auto (uring when the ring can be set up, else epoll,
 * silently: `luamech run` resolves auto before, with its notice).  0,
 * UV_EINVAL (no such mode) or UV_EBUSY (epoll asked while the loop's ring
 * carries connections).  net_io_of: the loop's mode (epoll when never set). */
int net_io_use(uv_loop_t *loop, net_io_mode m);
net_io_mode net_io_of(const uv_loop_t *loop);

/* Can this process use io_uring?  0, or a negative errno with why in msg
 * (io_uring_setup refused: kernel.io_uring_disabled, a seccomp profile, an old
 * kernel; or send/recv not supported). */
int net_io_probe(char *msg, size_t len);

/* The mode in effect for a run: uring stays uring when the probe passes (else
 * -1 with msg); auto becomes uring or, with a one-line notice in msg, epoll;
 * epoll stays.  *uring = 1 when the ring is used. */
int net_io_resolve(net_io_mode m, int *uring, char *msg, size_t len);

/* ---- for net/conn.c ---- */
typedef struct net_uio net_uio;

typedef struct net_uio_cbs {
    void (*on_recv)(void *conn, int res);   /* bytes (0 = EOF) or -errno */
    void (*on_send)(void *conn, int res);   /* bytes sent or -errno */
} net_uio_cbs;

/* A connection's I/O record on its loop's ring: NULL with *status 0 when
 * the loop runs the epoll backend (net_io_of: epoll, or auto without
 * io_uring); NULL with *status < 0 when the ring cannot be set up. */
net_uio *net_uio_open(uv_loop_t *loop, void *conn, const net_uio_cbs *cbs, int *status);
void net_uio_set_fd(net_uio *u, int fd);
/* Queue one recv into p/n, or one send of p/n (submitted at the end of the
 * loop turn); 0 or UV_ENOBUFS.  One of each at most in flight. */
int net_uio_recv(net_uio *u, char *p, size_t n);
int net_uio_send(net_uio *u, const char *p, size_t n);
/* Cancel what is in flight (closing): the callbacks fire no more. */
void net_uio_cancel(net_uio *u);
/* The connection is freed: bufs[0..nbufs) (heap blocks the kernel may still
 * be reading or writing) are freed when its operations have completed. */
void net_uio_detach(net_uio *u, void **bufs, int nbufs);

#endif
