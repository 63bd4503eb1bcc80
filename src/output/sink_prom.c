/* sink_prom.c - `--stream prometheus=URL`: Prometheus remote write 1.0.
 * At each closed interval (at most once per push period) the main thread
 * turns the merged data into labelled samples (prom_series.c's layout:
 * classic histogram buckets, count/sum, percentile gauges, counters, VUs,
 * generator health), packs a WriteRequest with the protobuf-c code protoc-c
 * generated from remote_write.proto, compresses it with snappy and queues
 * it.  A thread of its own POSTs the queue (plain HTTP/1.1, one connection
 * per push, 2 s timeouts, 3 tries for network errors, 5xx and 429).  A full
 * queue drops the new push; its samples are counted and reported, and sent
 * in later pushes as luamech_output_dropped_samples_total.  The answer is
 * read with proto/http_proto.c's response parser (a status line split
 * across TCP segments is one answer).  At the end the last push (the run's
 * totals) goes before any still queued: those are dropped and counted, and
 * a final push not sent within PROM_CLOSE_MS is reported.  No TLS yet. */
#include "output/output_priv.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <snappy-c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "output/remote_write.pb-c.h"
#include "output/sink_prom.h"
#include "proto/http_proto.h"

#define PROM_QUEUE_BYTES (16u << 20)
#define PROM_CLOSE_MS 3000
#define PROM_IO_MS 2000
#define PROM_TRIES 3
#define PROM_ANSWER_MAX 65536    /* body of an answer kept (for the error message) */

typedef struct prom_url {
    char host[256], port[8], path[512];
    char auth[512];          /* "Basic ..." or "Bearer ...", or "" */
} prom_url;

typedef struct sink_prom {
    outq q;
    prom_url url;
    output_stream_cfg cfg;
    uv_thread_t thread;
    int64_t last_push_ns;    /* run time of the last push (-1: none) */
    int last_pushed;         /* the last interval pushed, -1: none */
    int stopping;            /* closing: no more retries */
    int64_t pushes, failed_pushes;
    int last_ok;             /* the last push done was accepted (1 before any) */
    char last_error[256];    /* the last refusal or network error (sender thread) */
    uv_mutex_t mu;           /* last_error, counts */
} sink_prom;

/* ---- the URL ---- */

static int prom_parse_url(const char *url, prom_url *u, char *err, size_t err_len) {
    memset(u, 0, sizeof *u);
    if (strncmp(url, "https://", 8) == 0) {
        snprintf(err, err_len, "--stream prometheus=%s: https is not supported yet (plain http:// only)", url);
        return -1;
    }
    if (strncmp(url, "http://", 7) != 0) {
        snprintf(err, err_len, "--stream prometheus=%s: expected a URL such as http://127.0.0.1:9090/api/v1/write", url);
        return -1;
    }
    const char *p = url + 7, *slash = strchr(p, '/');
    size_t hostlen = slash ? (size_t)(slash - p) : strlen(p);
    char hostport[512];
    if (hostlen == 0 || hostlen >= sizeof hostport) goto bad;
    memcpy(hostport, p, hostlen);
    hostport[hostlen] = 0;
    snprintf(u->path, sizeof u->path, "%s", slash && slash[1] ? slash : "/api/v1/write");
    char *hp = hostport, *at = strrchr(hostport, '@');
    if (at) {                              /* user:password@ -> basic auth */
        *at = 0;
        if (!strchr(hostport, ':')) goto bad;
        strcpy(u->auth, "Basic ");
        prom_base64(hostport, u->auth + 6, sizeof u->auth - 6);
        hp = at + 1;
    }
    char *colon = hp[0] == '[' ? strstr(hp, "]:") : strrchr(hp, ':');
    if (colon && hp[0] == '[') colon++;
    if (colon) {
        *colon = 0;
        char *end;
        long port = strtol(colon + 1, &end, 10);
        if (!colon[1] || *end || port < 1 || port > 65535) goto bad;
        snprintf(u->port, sizeof u->port, "%ld", port);
    } else snprintf(u->port, sizeof u->port, "80");
    if (hp[0] == '[') {
        size_t n = strlen(hp);
        if (n < 3 || hp[n - 1] != ']') goto bad;
        hp[n - 1] = 0;
        hp++;
    }
    if (!hp[0] || strlen(hp) >= sizeof u->host) goto bad;
    for (const char *c = hp; *c; c++)
        if (!isalnum((unsigned char)*c) && !strchr(".-_:", *c)) goto bad;
    memcpy(u->host, hp, strlen(hp) + 1);      /* shorter than u->host: checked above */
    return 0;
bad:
    snprintf(err, err_len, "--stream prometheus=%s: malformed URL (expected http://[USER:PASSWORD@]HOST[:PORT][/PATH])",
             url);
    return -1;
}

int output_prom_check_url(const char *url, char *err, size_t err_len) {
    prom_url u;
    return prom_parse_url(url, &u, err, err_len);
}

/* ---- the sender thread ---- */

static void prom_set_error(sink_prom *s, const char *fmt, const char *arg) {
    uv_mutex_lock(&s->mu);
    snprintf(s->last_error, sizeof s->last_error, fmt, arg);
    uv_mutex_unlock(&s->mu);
}

static int prom_connect(sink_prom *s) {
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
    int rc = getaddrinfo(s->url.host, s->url.port, &hints, &res), fd = -1;
    if (rc != 0) {
        prom_set_error(s, "cannot resolve the host: %s", gai_strerror(rc));
        return -1;
    }
    for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
        if (fd < 0) continue;
        struct pollfd pf = {.fd = fd, .events = POLLOUT};
        int soerr = 0;
        socklen_t sl = sizeof soerr;
        if (connect(fd, a->ai_addr, a->ai_addrlen) != 0 &&
            (errno != EINPROGRESS || poll(&pf, 1, PROM_IO_MS) != 1 ||
             getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) != 0 || soerr != 0)) {
            prom_set_error(s, "cannot connect: %s", soerr ? strerror(soerr) : errno == EINPROGRESS ? "timed out" : strerror(errno));
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0) return -1;
    struct timeval tv = {PROM_IO_MS / 1000, (PROM_IO_MS % 1000) * 1000};
    if (fcntl(fd, F_SETFL, 0) != 0 || setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) != 0 ||
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static int prom_send_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* The answer on fd (whole, as http_proto.c parses it; each recv bounded by
 * SO_RCVTIMEO, the whole by 2 x PROM_IO_MS): its status, or -1 (the error
 * recorded).  A refusal's status and the start of its body are recorded. */
static int prom_read_answer(sink_prom *s, int fd) {
    hp_parser p;
    hp_parser_init(&p);
    p.max_body = PROM_ANSWER_MAX;
    hp_parser_reset(&p, 0);
    char buf[4096];
    uint64_t until = uv_hrtime() + 2ull * PROM_IO_MS * 1000000u;
    int rc = HP_NEED_MORE;
    const char *why = NULL;
    while (rc == HP_NEED_MORE) {
        ssize_t got = recv(fd, buf, sizeof buf, 0);
        size_t used;
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) why = errno == EAGAIN || errno == EWOULDBLOCK ? "timed out" : strerror(errno);
        else if (got == 0) rc = hp_parser_eof(&p), why = p.nbytes == 0 ? "connection closed" : NULL;
        else rc = hp_parser_feed(&p, buf, (size_t)got, &used);
        if (why) break;
        if (rc == HP_NEED_MORE && uv_hrtime() > until) why = "timed out";
        if (why) break;
    }
    int status = -1;
    if (why) prom_set_error(s, "no answer: %s", why);
    else if (rc != HP_DONE) prom_set_error(s, "not an HTTP answer: %s", hp_parser_error(&p));
    else status = p.status;
    if (status > 0 && status / 100 != 2) {
        char line[200];
        snprintf(line, sizeof line, "HTTP %d%s%.*s", status, p.body_len ? ": " : "",
                 (int)(p.body_len < 150 ? p.body_len : 150), p.body ? p.body : "");
        for (char *c = line; *c; c++) if ((unsigned char)*c < 32) *c = ' ';
        prom_set_error(s, "%s", line);
    }
    hp_parser_free(&p);
    return status;
}

/* One POST: the HTTP status, or -1 for a network error. */
static int prom_post(sink_prom *s, const outq_item *it) {
    int fd = prom_connect(s);
    if (fd < 0) return -1;
    char head[2048];
    int n = snprintf(head, sizeof head,
        "POST %s HTTP/1.1\r\nHost: %s:%s\r\nUser-Agent: luamech/" LUAMECH_VERSION "\r\n"
        "Content-Type: application/x-protobuf\r\nContent-Encoding: snappy\r\n"
        "X-Prometheus-Remote-Write-Version: 0.1.0\r\nContent-Length: %zu\r\n%s%s%sConnection: close\r\n\r\n",
        s->url.path, s->url.host, s->url.port, it->len, s->url.auth[0] ? "Authorization: " : "", s->url.auth,
        s->url.auth[0] ? "\r\n" : "");
    int status = -1;
    if (n > 0 && (size_t)n < sizeof head && prom_send_all(fd, head, (size_t)n) == 0 &&
        prom_send_all(fd, it->data, it->len) == 0)
        status = prom_read_answer(s, fd);
    else prom_set_error(s, "cannot send: %s", strerror(errno));
    close(fd);
    return status;
}

static void prom_thread(void *arg) {
    sink_prom *s = arg;
    outq_item *it;
    while ((it = outq_pop(&s->q)) != NULL) {
        int ok = 0;
        for (int t = 0; t < PROM_TRIES && !ok; t++) {
            if (t > 0) {
                uv_mutex_lock(&s->mu);
                int stop = s->stopping;
                uv_mutex_unlock(&s->mu);
                if (stop) break;
                usleep((useconds_t)(250000 << (t - 1)));
            }
            int status = prom_post(s, it);
            ok = status / 100 == 2;
            if (status >= 400 && status < 500 && status != 429) break;     /* refused: retrying won't help */
        }
        uv_mutex_lock(&s->mu);
        if (ok) s->pushes++;
        else s->failed_pushes++;
        s->last_ok = ok;
        uv_mutex_unlock(&s->mu);
        if (!ok) {
            uv_mutex_lock(&s->q.mu);
            s->q.dropped += it->weight;
            uv_mutex_unlock(&s->q.mu);
        }
        free(it);
        outq_done(&s->q);
    }
}

/* ---- building a push (main thread) ---- */

static void prom_push(sink_prom *s, const output_run *run, int k) {
    prom_batch b;
    prom_batch_init(&b, run, &s->cfg, outq_dropped(&s->q));
    prom_batch_fill(&b, run, k);
    size_t len = 0, clen = 0;
    uint8_t *pb = prom_batch_pack(&b, &len);
    char *z = pb ? malloc(snappy_max_compressed_length(len)) : NULL;
    clen = z ? snappy_max_compressed_length(len) : 0;
    if (z && snappy_compress((const char *)pb, len, z, &clen) == SNAPPY_OK)
        outq_push(&s->q, z, clen, b.n);
    else {
        uv_mutex_lock(&s->q.mu);
        s->q.dropped += b.n;
        uv_mutex_unlock(&s->q.mu);
    }
    free(z);
    free(pb);
    prom_batch_free(&b);
}

static void prom_event(void *self, const output_run *run, output_ev ev, int k, const char *lines, size_t len) {
    sink_prom *s = self;
    (void)lines, (void)len;
    if (ev == OUTPUT_EV_START) {
        s->last_push_ns = -1;
        s->last_pushed = -1;
        return;
    }
    if (ev == OUTPUT_EV_END) {             /* the last interval, if the push period skipped it */
        if (run->r->agg.nintervals > 0 && s->last_pushed != run->r->agg.nintervals - 1)
            prom_push(s, run, run->r->agg.nintervals - 1);
        return;
    }
    int64_t end_ns = (int64_t)(k + 1) * run->r->agg.interval_ns;
    if (s->last_push_ns >= 0 && end_ns - s->last_push_ns < s->cfg.push_ns) return;
    s->last_push_ns = end_ns;
    s->last_pushed = k;
    prom_push(s, run, k);
}

static void prom_close(void *self) {
    sink_prom *s = self;
    uv_mutex_lock(&s->mu);
    s->stopping = 1;
    uv_mutex_unlock(&s->mu);
    int drained = outq_close_wait(&s->q, PROM_CLOSE_MS, 1);   /* the last push (the totals) goes first */
    int64_t dropped = outq_dropped(&s->q);
    uv_mutex_lock(&s->mu);
    int final_ok = drained && s->last_ok;
    int64_t failed = s->failed_pushes;
    char last_error[sizeof s->last_error];
    memcpy(last_error, s->last_error, sizeof last_error);
    uv_mutex_unlock(&s->mu);
    if (dropped > 0 || failed > 0 || !final_ok)
        fprintf(stderr, "luamech: --stream prometheus=http://%s:%s%s: %lld sample(s) dropped (%lld push(es) "
                "failed%s%s)%s\n", s->url.host, s->url.port, s->url.path, (long long)dropped, (long long)failed,
                last_error[0] ? "; last: " : "", last_error,
                final_ok ? "" : drained ? "; the final push (the run's totals) failed"
                                        : "; the final push (the run's totals) was not sent within 3 s");
    if (!drained) return;                  /* stuck in a bounded I/O wait: left to the process's end */
    uv_thread_join(&s->thread);
    outq_destroy(&s->q);
    uv_mutex_destroy(&s->mu);
    free(s);
}

static int prom_read_token(const char *path, char *auth, size_t len, char *err, size_t err_len) {
    FILE *f = fopen(path, "r");
    char tok[400] = "";
    if (!f || !fgets(tok, sizeof tok, f)) {
        snprintf(err, err_len, "--stream prometheus: bearer_token_file=%s: %s", path,
                 f ? "empty" : strerror(errno));
        if (f) fclose(f);
        return -1;
    }
    fclose(f);
    tok[strcspn(tok, "\r\n")] = 0;
    snprintf(auth, len, "Bearer %s", tok);
    return 0;
}

int output_prom_open(output_sink *out, const output_stream_cfg *c, char *err, size_t err_len) {
    sink_prom *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, err_len, "--stream prometheus: out of memory");
        return -1;
    }
    s->cfg = *c;
    s->last_push_ns = -1;
    s->last_pushed = -1;
    s->last_ok = 1;
    if (prom_parse_url(c->target, &s->url, err, err_len) != 0 ||
        (c->bearer_file[0] && prom_read_token(c->bearer_file, s->url.auth, sizeof s->url.auth, err, err_len) != 0)) {
        free(s);
        return -1;
    }
    if (outq_init(&s->q, PROM_QUEUE_BYTES) != 0) {
        free(s);
        snprintf(err, err_len, "--stream prometheus: out of memory");
        return -1;
    }
    if (uv_mutex_init(&s->mu) != 0 || uv_thread_create(&s->thread, prom_thread, s) != 0) {
        outq_destroy(&s->q);
        free(s);
        snprintf(err, err_len, "--stream prometheus: cannot start its thread");
        return -1;
    }
    *out = (output_sink){"prometheus", s, prom_event, prom_close};
    return 0;
}
