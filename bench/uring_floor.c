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
 * memcached bench's mix, 1:1, every get a hit; replies are of known length),
 * or "http": an HTTP/1.1 keep-alive "GET / HTTP/1.1" per operation (the
 * server an nginx as bench/http_vs_wrk_ab.sh sets it up); each response is
 * gathered in the connection's buffer, its end found from the header block's
 * end and its Content-Length, and its status line checked (200).
 * Built and run by bench/uring_floor.sh and bench/http_floor.sh; not part of
 * the product.  It checks every result and exits 1 on any failure; for
 * memcached it does not parse values, only counts each reply's bytes; for
 * HTTP it parses no header but Content-Length (no chunked bodies, no
 * pipelining: one request in flight per connection). */
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
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define FLOOR_MAXCONN 1024
#define FLOOR_BUFS 1024          /* provided buffers (power of two) */
#define FLOOR_BUFSZ 2048
#define FLOOR_REQ_MAX 96
#define FLOOR_RBUF 1024          /* per-connection receive buffer (a whole HTTP response) */
#define FLOOR_MC_READ 256        /* memcached: the most one read takes (replies are only counted) */

typedef struct floor_run {
    int n;
    int mix;                     /* 1: getset (phase alternates), 0: get only or http */
    int http;                    /* 1: HTTP keep-alive GETs (replies parsed for their length) */
    int fds[FLOOR_MAXCONN];
    int got[FLOOR_MAXCONN];      /* reply bytes so far */
    int phase[FLOOR_MAXCONN];    /* which of req[] is in flight */
    char req[2][FLOOR_MAXCONN][FLOOR_REQ_MAX];
    int reqlen[2][FLOOR_MAXCONN];
    int want[2];                 /* reply length of each phase */
    char rbuf[FLOOR_MAXCONN][FLOOR_RBUF];
    uint64_t ops;
    uint64_t end_ns;
    int port;
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
        if (r->http) {
            r->reqlen[0][i] = snprintf(r->req[0][i], FLOOR_REQ_MAX, "GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n",
                                       r->port);
        } else if (r->mix) {
            r->reqlen[0][i] = snprintf(r->req[0][i], FLOOR_REQ_MAX, "set %s 0 0 32\r\n%s\r\n", key, value);
            r->reqlen[1][i] = snprintf(r->req[1][i], FLOOR_REQ_MAX, "get %s\r\n", key);
        } else {
            r->reqlen[0][i] = snprintf(r->req[0][i], FLOOR_REQ_MAX, "get floor_missing_key\r\n");
        }
    }
    r->want[0] = r->mix ? 8 : 5;           /* "STORED\r\n" : "END\r\n" */
    r->want[1] = 29 + 32 + 2 + 5;          /* "VALUE <key> 0 32\r\n" <value> "\r\nEND\r\n" */
}

/* The length of the HTTP response at the start of buf[0..n): 0 while its
 * header block is incomplete, -1 when it is not a 200 with a Content-Length.
 * Only the status line and Content-Length are looked at. */
static int floor_http_len(const char *buf, int n) {
    const char *end = memmem(buf, (size_t)n, "\r\n\r\n", 4);
    if (end == NULL) return n >= FLOOR_RBUF ? -1 : 0;
    if (n < 12 || memcmp(buf, "HTTP/1.", 7) != 0 || memcmp(buf + 8, " 200", 4) != 0) return -1;
    int head = (int)(end - buf) + 4;
    for (const char *p = buf; p < end;) {
        const char *eol = memmem(p, (size_t)(end - p), "\r\n", 2);
        if (eol == NULL) eol = end;
        if (eol - p > 15 && strncasecmp(p, "content-length:", 15) == 0) {
            long cl = strtol(p + 15, NULL, 10);
            return cl < 0 || head + cl > FLOOR_RBUF ? -1 : head + (int)cl;
        }
        p = eol + 2;
    }
    return -1;
}

/* HTTP bytes of connection i arrived at data (its buffer's end, or a
 * provided buffer: then copied there); 1 when its response is complete. */
static int floor_got_http(floor_run *r, int i, const char *data, int n) {
    if (r->got[i] + n > FLOOR_RBUF) { fprintf(stderr, "uring_floor: response too long\n"); exit(1); }
    if (data != r->rbuf[i] + r->got[i]) memcpy(r->rbuf[i] + r->got[i], data, (size_t)n);
    r->got[i] += n;
    int want = floor_http_len(r->rbuf[i], r->got[i]);
    if (want < 0) { fprintf(stderr, "uring_floor: not a 200 response with a Content-Length\n"); exit(1); }
    if (want == 0 || r->got[i] < want) return 0;
    if (r->got[i] > want) { fprintf(stderr, "uring_floor: bytes after the response (none were asked for)\n"); exit(1); }
    r->got[i] = 0;
    r->ops++;
    return 1;
}

/* Where connection i's next read goes, and how much room it has: memcached
 * replies are only counted (the buffer's start); HTTP ones gathered. */
static char *floor_rptr(floor_run *r, int i) { return r->http ? r->rbuf[i] + r->got[i] : r->rbuf[i]; }
static size_t floor_rroom(floor_run *r, int i) { return r->http ? (size_t)(FLOOR_RBUF - r->got[i]) : FLOOR_MC_READ; }

/* Bytes of one connection arrived at data; 1 when a whole reply is complete
 * (the connection's next request is then the other phase's, in getset). */
static int floor_got(floor_run *r, int i, const char *data, int n) {
    if (r->http) return floor_got_http(r, i, data, n);
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
            char *at = floor_rptr(r, i);
            ssize_t n = read(r->fds[i], at, floor_rroom(r, i));
            if (n <= 0) floor_die("read", n == 0 ? ECONNRESET : errno);
            if (floor_got(r, i, at, (int)n) && !floor_write(r, i)) floor_die("write", errno);
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
        io_uring_prep_recv(sqe, fd, floor_rptr(r, i), floor_rroom(r, i), 0);
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
            const char *data = floor_rptr(r, i);
            if (multishot) {
                unsigned bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
                data = fr.bufs + (size_t)bid * FLOOR_BUFSZ;
                if (floor_got(r, i, data, cqe->res)) floor_prep_send(&fr, r, i);   /* before the buffer goes back */
                io_uring_buf_ring_add(fr.br, fr.bufs + (size_t)bid * FLOOR_BUFSZ, FLOOR_BUFSZ,
                                      (unsigned short)bid, io_uring_buf_ring_mask(FLOOR_BUFS), (int)recycled);
                recycled++;
                if (!(cqe->flags & IORING_CQE_F_MORE)) floor_prep_recv(&fr, r, i);
            } else {
                int done = floor_got(r, i, data, cqe->res);
                floor_prep_recv(&fr, r, i);   /* partial or not: read again (ping-pong: nothing else comes) */
                if (done) floor_prep_send(&fr, r, i);
            }
        }
        if (recycled) io_uring_buf_ring_advance(fr.br, (int)recycled);
        io_uring_cq_advance(&fr.ring, seen);
    }
    io_uring_queue_exit(&fr.ring);
    free(fr.bufs);
    free(fr.br);
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: uring_floor epoll|uring|uring-defer|multishot|regfiles PORT CONNS SECONDS [get|getset|http]\n");
        return 2;
    }
    static floor_run r;
    const char *v = argv[1];
    r.n = atoi(argv[3]);
    double secs = atof(argv[4]);
    r.mix = argc > 5 && !strcmp(argv[5], "getset");
    r.http = argc > 5 && !strcmp(argv[5], "http");
    r.port = atoi(argv[2]);
    if (r.n < 1 || r.n > FLOOR_MAXCONN || secs <= 0 || r.port < 1 || r.port > 65535 ||
        (argc > 5 && !r.mix && !r.http && strcmp(argv[5], "get"))) {
        fprintf(stderr, "uring_floor: bad arguments\n");
        return 2;
    }
    floor_requests(&r);
    floor_connect(&r, r.port);
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
