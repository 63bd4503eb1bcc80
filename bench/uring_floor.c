/* uring_floor.c - the floor of socket I/O on this kernel, outside luamech:
 * a minimal memcached client doing "get" ping-pong (one request in flight per
 * connection) over N connections for D seconds, with one of four I/O styles:
 *   epoll     epoll_wait + read + write per operation (what libuv does)
 *   uring     io_uring: recv/send SQEs, all of a loop turn's submitted in one
 *             io_uring_submit_and_wait (one system call per turn)
 *   multishot as uring, but one multishot recv per connection into a ring of
 *             provided buffers (no recv re-arming)
 *   regfiles  multishot + registered files (IOSQE_FIXED_FILE) + registered
 *             ring fd
 * Prints one line: variant, ops, seconds, ops/s, CPU us/op (user+sys of this
 * process, getrusage, every thread included), user and sys us/op.
 * Workload (5th argument): "get" (default) a get of a key never set (every
 * reply is "END\r\n"), or "getset": each connection alternates a set and a
 * get of its own 16-byte key with a 32-byte value (memcaslap's and the
 * memcached bench's mix, 1:1, every get a hit; replies are of known length).
 * Built and run by bench/uring_floor.sh; not part of the product.  It checks
 * every result and exits 1 on any failure; it does not parse values, only
 * counts each reply's bytes. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <liburing.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define FLOOR_MAXCONN 1024
#define FLOOR_BUFS 1024          /* provided buffers (power of two) */
#define FLOOR_BUFSZ 2048
#define FLOOR_REQ_MAX 96

typedef struct floor_run {
    int n;
    int mix;                     /* 1: getset (phase alternates), 0: get only */
    int fds[FLOOR_MAXCONN];
    int got[FLOOR_MAXCONN];      /* reply bytes so far */
    int phase[FLOOR_MAXCONN];    /* which of req[] is in flight */
    char req[2][FLOOR_MAXCONN][FLOOR_REQ_MAX];
    int reqlen[2][FLOOR_MAXCONN];
    int want[2];                 /* reply length of each phase */
    char rbuf[FLOOR_MAXCONN][256];
    uint64_t ops;
    uint64_t end_ns;
} floor_run;

static void floor_die(const char *what, int err) {
    fprintf(stderr, "uring_floor: %s: %s\n", what, strerror(err));
    exit(1);
}

static uint64_t floor_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void floor_connect(floor_run *r, int port) {
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    for (int i = 0; i < r->n; i++) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        if (fd < 0) floor_die("socket", errno);
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0 && errno != EINPROGRESS)
            floor_die("connect", errno);
        r->fds[i] = fd;
    }
    /* wait until every socket is writable (connected) */
    for (int i = 0; i < r->n; i++) {
        int err = 0;
        socklen_t len = sizeof err;
        for (int tries = 0; tries < 1000; tries++) {
            struct sockaddr_in peer;
            socklen_t pl = sizeof peer;
            if (getpeername(r->fds[i], (struct sockaddr *)&peer, &pl) == 0) break;
            usleep(1000);
        }
        if (getsockopt(r->fds[i], SOL_SOCKET, SO_ERROR, &err, &len) < 0 || err)
            floor_die("connect", err ? err : errno);
    }
}

/* The requests of each connection and the reply lengths they get. */
static void floor_requests(floor_run *r) {
    static const char value[] = "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv";   /* 32 bytes */
    for (int i = 0; i < r->n; i++) {
        char key[32];
        snprintf(key, sizeof key, "mcbench:%08d", i);                /* 16 bytes */
        if (r->mix) {
            r->reqlen[0][i] = snprintf(r->req[0][i], FLOOR_REQ_MAX, "set %s 0 0 32\r\n%s\r\n", key, value);
            r->reqlen[1][i] = snprintf(r->req[1][i], FLOOR_REQ_MAX, "get %s\r\n", key);
        } else {
            r->reqlen[0][i] = snprintf(r->req[0][i], FLOOR_REQ_MAX, "get floor_missing_key\r\n");
        }
    }
    r->want[0] = r->mix ? 8 : 5;           /* "STORED\r\n" : "END\r\n" */
    r->want[1] = 29 + 32 + 2 + 5;          /* "VALUE <key> 0 32\r\n" <value> "\r\nEND\r\n" */
}

/* Bytes of one connection arrived; 1 when a whole reply is complete (the
 * connection's next request is then the other phase's, in getset). */
static int floor_got(floor_run *r, int i, int n) {
    int want = r->want[r->phase[i]];
    r->got[i] += n;
    if (r->got[i] < want) return 0;
    if (r->got[i] > want) { fprintf(stderr, "uring_floor: unexpected reply\n"); exit(1); }
    r->got[i] = 0;
    r->phase[i] ^= r->mix;
    r->ops++;
    return 1;
}

static int floor_write(floor_run *r, int i) {
    int len = r->reqlen[r->phase[i]][i];
    return write(r->fds[i], r->req[r->phase[i]][i], (size_t)len) == (ssize_t)len;
}

/* ---- (a) epoll -------------------------------------------------------- */

static void floor_epoll(floor_run *r) {
    int ep = epoll_create1(0);
    if (ep < 0) floor_die("epoll_create1", errno);
    for (int i = 0; i < r->n; i++) {
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
        if (epoll_ctl(ep, EPOLL_CTL_ADD, r->fds[i], &ev) < 0) floor_die("epoll_ctl", errno);
        if (!floor_write(r, i)) floor_die("write", errno);
    }
    struct epoll_event evs[FLOOR_MAXCONN];
    while (floor_now_ns() < r->end_ns) {
        int k = epoll_wait(ep, evs, FLOOR_MAXCONN, 100);
        if (k < 0 && errno != EINTR) floor_die("epoll_wait", errno);
        for (int e = 0; e < k; e++) {
            int i = (int)evs[e].data.u32;
            ssize_t n = read(r->fds[i], r->rbuf[i], sizeof r->rbuf[i]);
            if (n <= 0) floor_die("read", n == 0 ? ECONNRESET : errno);
            if (floor_got(r, i, (int)n) && !floor_write(r, i)) floor_die("write", errno);
        }
    }
    close(ep);
}

/* ---- (b, c, d) io_uring ----------------------------------------------- */

enum { UD_RECV = 1, UD_SEND = 2 };
#define FLOOR_UD(kind, i) (((uint64_t)(kind) << 32) | (uint32_t)(i))

typedef struct floor_ring {
    struct io_uring ring;
    struct io_uring_buf_ring *br;
    char *bufs;
    int multishot;
    int fixed;
} floor_ring;

static struct io_uring_sqe *floor_sqe(floor_ring *fr) {
    struct io_uring_sqe *sqe = io_uring_get_sqe(&fr->ring);
    if (sqe == NULL) {
        int rc = io_uring_submit(&fr->ring);
        if (rc < 0) floor_die("io_uring_submit", -rc);
        sqe = io_uring_get_sqe(&fr->ring);
        if (sqe == NULL) floor_die("io_uring_get_sqe", EBUSY);
    }
    return sqe;
}

static void floor_prep_send(floor_ring *fr, floor_run *r, int i) {
    struct io_uring_sqe *sqe = floor_sqe(fr);
    io_uring_prep_send(sqe, fr->fixed ? i : r->fds[i], r->req[r->phase[i]][i], (size_t)r->reqlen[r->phase[i]][i], 0);
    if (fr->fixed) sqe->flags |= IOSQE_FIXED_FILE;
    sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
    io_uring_sqe_set_data64(sqe, FLOOR_UD(UD_SEND, i));
}

static void floor_prep_recv(floor_ring *fr, floor_run *r, int i) {
    struct io_uring_sqe *sqe = floor_sqe(fr);
    int fd = fr->fixed ? i : r->fds[i];
    if (fr->multishot) {
        io_uring_prep_recv_multishot(sqe, fd, NULL, 0, 0);
        sqe->flags |= IOSQE_BUFFER_SELECT;
        sqe->buf_group = 0;
    } else {
        io_uring_prep_recv(sqe, fd, r->rbuf[i], sizeof r->rbuf[i], 0);
    }
    if (fr->fixed) sqe->flags |= IOSQE_FIXED_FILE;
    io_uring_sqe_set_data64(sqe, FLOOR_UD(UD_RECV, i));
}

static void floor_ring_setup(floor_ring *fr, floor_run *r, unsigned flags) {
    struct io_uring_params p = {.flags = flags};
    int rc = io_uring_queue_init_params(4096, &fr->ring, &p);
    if (rc < 0) floor_die("io_uring_queue_init", -rc);
    if (fr->multishot) {
        size_t sz = FLOOR_BUFS * sizeof(struct io_uring_buf);
        if (posix_memalign((void **)&fr->br, 4096, sz)) floor_die("posix_memalign", ENOMEM);
        fr->bufs = malloc((size_t)FLOOR_BUFS * FLOOR_BUFSZ);
        if (fr->bufs == NULL) floor_die("malloc", ENOMEM);
        io_uring_buf_ring_init(fr->br);
        struct io_uring_buf_reg reg = {.ring_addr = (uintptr_t)fr->br, .ring_entries = FLOOR_BUFS, .bgid = 0};
        rc = io_uring_register_buf_ring(&fr->ring, &reg, 0);
        if (rc < 0) floor_die("io_uring_register_buf_ring", -rc);
        for (int b = 0; b < FLOOR_BUFS; b++)
            io_uring_buf_ring_add(fr->br, fr->bufs + (size_t)b * FLOOR_BUFSZ, FLOOR_BUFSZ, (unsigned short)b,
                                  io_uring_buf_ring_mask(FLOOR_BUFS), b);
        io_uring_buf_ring_advance(fr->br, FLOOR_BUFS);
    }
    if (fr->fixed) {
        rc = io_uring_register_files(&fr->ring, r->fds, (unsigned)r->n);
        if (rc < 0) floor_die("io_uring_register_files", -rc);
        rc = io_uring_register_ring_fd(&fr->ring);
        if (rc < 0) floor_die("io_uring_register_ring_fd", -rc);
    }
}

static void floor_uring(floor_run *r, int multishot, int fixed, unsigned flags) {
    floor_ring fr = {.multishot = multishot, .fixed = fixed};
    floor_ring_setup(&fr, r, flags);
    for (int i = 0; i < r->n; i++) {
        floor_prep_recv(&fr, r, i);
        floor_prep_send(&fr, r, i);
    }
    struct __kernel_timespec ts = {.tv_sec = 0, .tv_nsec = 100000000};
    while (floor_now_ns() < r->end_ns) {
        struct io_uring_cqe *cqe;
        int rc = io_uring_submit_and_wait_timeout(&fr.ring, &cqe, 1, &ts, NULL);
        if (rc < 0 && rc != -ETIME && rc != -EINTR) floor_die("io_uring_submit_and_wait", -rc);
        unsigned head, seen = 0, recycled = 0;
        io_uring_for_each_cqe(&fr.ring, head, cqe) {
            seen++;
            uint64_t ud = io_uring_cqe_get_data64(cqe);
            int i = (int)(uint32_t)ud;
            if ((ud >> 32) == UD_SEND) floor_die("send", cqe->res < 0 ? -cqe->res : EIO);
            if (cqe->res <= 0) floor_die("recv", cqe->res == 0 ? ECONNRESET : -cqe->res);
            if (multishot) {
                unsigned bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
                io_uring_buf_ring_add(fr.br, fr.bufs + (size_t)bid * FLOOR_BUFSZ, FLOOR_BUFSZ,
                                      (unsigned short)bid, io_uring_buf_ring_mask(FLOOR_BUFS), (int)recycled);
                recycled++;
                if (!(cqe->flags & IORING_CQE_F_MORE)) floor_prep_recv(&fr, r, i);
            } else {
                floor_prep_recv(&fr, r, i);   /* partial or not: read again (ping-pong: nothing else comes) */
            }
            if (floor_got(r, i, cqe->res)) floor_prep_send(&fr, r, i);
        }
        if (recycled) io_uring_buf_ring_advance(fr.br, (int)recycled);
        io_uring_cq_advance(&fr.ring, seen);
    }
    io_uring_queue_exit(&fr.ring);
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: uring_floor epoll|uring|uring-defer|multishot|regfiles PORT CONNS SECONDS [get|getset]\n");
        return 2;
    }
    static floor_run r;
    const char *v = argv[1];
    r.n = atoi(argv[3]);
    double secs = atof(argv[4]);
    r.mix = argc > 5 && !strcmp(argv[5], "getset");
    if (r.n < 1 || r.n > FLOOR_MAXCONN || secs <= 0 || (argc > 5 && !r.mix && strcmp(argv[5], "get"))) {
        fprintf(stderr, "uring_floor: bad arguments\n");
        return 2;
    }
    floor_requests(&r);
    floor_connect(&r, atoi(argv[2]));
    unsigned coop = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN;
    unsigned defer = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
    struct rusage ru0, ru1;
    getrusage(RUSAGE_SELF, &ru0);
    uint64_t t0 = floor_now_ns();
    r.end_ns = t0 + (uint64_t)(secs * 1e9);
    if (!strcmp(v, "epoll")) floor_epoll(&r);
    else if (!strcmp(v, "uring")) floor_uring(&r, 0, 0, coop);
    else if (!strcmp(v, "uring-defer")) floor_uring(&r, 0, 0, defer);
    else if (!strcmp(v, "multishot")) floor_uring(&r, 1, 0, defer);
    else if (!strcmp(v, "regfiles")) floor_uring(&r, 1, 1, defer);
    else { fprintf(stderr, "uring_floor: unknown variant %s\n", v); return 2; }
    uint64_t t1 = floor_now_ns();
    getrusage(RUSAGE_SELF, &ru1);
    double us_u = (double)(ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec) * 1e6 + (double)(ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec);
    double us_s = (double)(ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) * 1e6 + (double)(ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec);
    double s = (double)(t1 - t0) / 1e9;
    double ops = (double)(r.ops ? r.ops : 1);
    printf("%s ops=%llu secs=%.2f ops_s=%.0f cpu_us_op=%.3f user_us_op=%.3f sys_us_op=%.3f\n", v,
           (unsigned long long)r.ops, s, (double)r.ops / s, (us_u + us_s) / ops, us_u / ops, us_s / ops);
    return 0;
}
