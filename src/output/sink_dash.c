/* sink_dash.c - `--dashboard [ADDR:]PORT`: a small HTTP/1.1 server on a
 * libuv loop of its own thread, serving one embedded page
 * (src/output/dashboard.html: inline script and SVG, no network) at / and
 * the run's JSON lines (output_json.c) as server-sent events at /events: a
 * new client first gets the events so far (bounded history), then each
 * interval as it closes.  Each event is allocated once and shared by every
 * client's pending writes (reference counted on the loop thread: no copy
 * per client).  A client that would have more than DASH_CLIENT_QUEUE bytes
 * unsent is disconnected (counted; a browser reconnects and gets the
 * history again), never the run slowed: the main thread only pushes each event
 * onto a lock-free list (one compare-and-swap, no lock, no wait) and wakes
 * the loop.  The thread is named "lm-dashboard" (its CPU time can be read
 * in /proc, as test_dashboard.sh does).
 * With --dashboard-linger the server stays up after the run until SIGINT
 * or SIGTERM.  Unauthenticated: loopback only unless --dashboard-public.
 * Hostile clients: a request whose Host header is not a name it listens on
 * (localhost, a loopback address, the bound address; any IP literal on a
 * wildcard bind) gets 403 (DNS rebinding); a request not complete within
 * DASH_REQUEST_MS is dropped; at DASH_MAX_CLIENTS connections a new one
 * takes the slot of the oldest that has not sent its request yet (slow
 * clients cannot lock a browser out).  Each refusal is counted and printed
 * at the end. */
#include "output/output_priv.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>

#include "common/embedded_files.h"

#define DASH_HISTORY_BYTES (8u << 20)    /* events kept for new clients */
#define DASH_CLIENT_QUEUE (DASH_HISTORY_BYTES + (1u << 20))   /* unsent bytes before a client is dropped */
#define DASH_REQUEST_MAX 8192
#define DASH_MAX_CLIENTS 64
#define DASH_REQUEST_MS 5000     /* to send a whole request, from the connection */
#define DASH_SWEEP_MS 500
#define DASH_PAGE "src/output/dashboard.html"

typedef struct dash_ev {
    struct dash_ev *next;
    int refs;                /* the history's and each pending write's (loop thread) */
    size_t len;
    char data[];             /* "data: {...}\n\n" for each line */
} dash_ev;

typedef struct dash_client {
    uv_tcp_t tcp;
    struct dash_sink *d;
    struct dash_client *next;
    char req[DASH_REQUEST_MAX];
    size_t req_len;
    uint64_t since_ms;       /* uv_now when accepted */
    int answered;            /* the request was read (reply sent or subscribed) */
    int sse;                 /* subscribed to /events */
    int closing;
} dash_client;

typedef struct dash_sink {
    uv_loop_t loop;
    uv_tcp_t server;
    uv_async_t wake;
    uv_signal_t sigint, sigterm;
    uv_timer_t sweep;
    uv_thread_t thread;
    char url[320];
    struct sockaddr_storage bound;   /* the address it listens on */
    int port, wildcard;              /* wildcard: 0.0.0.0 or :: */
    /* main thread -> loop thread, lock-free: pushed newest first */
    _Atomic(dash_ev *) inbox;
    atomic_int stop;
    int linger;
    int64_t dropped_in;      /* main thread only: events lost for want of memory */
    /* loop thread only */
    int64_t dropped;         /* events a client missed */
    int64_t kicked;          /* clients disconnected for being too far behind */
    int64_t sent;            /* events queued to clients */
    int64_t bad_host;        /* requests refused for their Host header */
    int64_t slow;            /* connections dropped: no whole request within DASH_REQUEST_MS */
    int64_t evicted;         /* ... to make room for a newer one */
    int64_t full;            /* connections refused: every slot subscribed */
    dash_ev *hist_head, *hist_tail;
    size_t hist_bytes;
    dash_client *clients;
    int nclients;
} dash_sink;

int output_dash_is_loopback(const char *spec) {
    const char *colon = strrchr(spec, ':');
    if (!colon) return 1;                   /* PORT alone: 127.0.0.1 */
    char a[256];
    size_t n = (size_t)(colon - spec);
    if (n >= sizeof a) return 0;
    memcpy(a, spec, n);
    a[n] = 0;
    char *p = a;
    if (p[0] == '[' && n > 1) p[n - 1] = 0, p++;
    struct in_addr v4;
    if (inet_pton(AF_INET, p, &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
    return strcmp(p, "::1") == 0;
}

/* ---- writing to clients (loop thread) ---- */

typedef struct dash_write {
    uv_write_t req;
    dash_client *c;
    dash_ev *ev;             /* a shared event, or NULL: data below */
    char data[];
} dash_write;

static void dash_ev_unref(dash_ev *e) {
    if (e && --e->refs == 0) free(e);
}

static void dash_on_closed(uv_handle_t *h) {
    dash_client *c = h->data;
    free(c);
}

static void dash_close_client(dash_client *c) {
    if (c->closing) return;
    c->closing = 1;
    dash_sink *d = c->d;
    for (dash_client **pp = &d->clients; *pp; pp = &(*pp)->next)
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    d->nclients--;
    uv_close((uv_handle_t *)&c->tcp, dash_on_closed);
}

static void dash_on_written(uv_write_t *req, int status) {
    dash_write *w = (dash_write *)req;
    dash_client *c = w->c;
    dash_ev_unref(w->ev);
    free(w);
    if (status < 0) dash_close_client(c);
}

static void dash_on_written_close(uv_write_t *req, int status) {
    dash_write *w = (dash_write *)req;
    dash_client *c = w->c;
    (void)status;
    dash_ev_unref(w->ev);
    free(w);
    dash_close_client(c);
}

/* Queue bytes to a client: a shared event (ev, referenced, not copied) or
 * p/len (copied).  0, or -1 when the client is closing or was too far
 * behind (then it is disconnected). */
static int dash_write_to(dash_client *c, dash_ev *ev, const char *p, size_t len, uv_write_cb cb) {
    if (c->closing) return -1;
    if (ev) p = ev->data, len = ev->len;
    if (uv_stream_get_write_queue_size((uv_stream_t *)&c->tcp) + len > DASH_CLIENT_QUEUE) {
        c->d->kicked++;
        dash_close_client(c);
        return -1;
    }
    dash_write *w = malloc(sizeof *w + (ev ? 0 : len));
    if (!w) return -1;
    w->c = c;
    w->ev = ev;
    if (!ev) memcpy(w->data, p, len);
    uv_buf_t buf = uv_buf_init(ev ? ev->data : w->data, (unsigned)len);
    if (uv_write(&w->req, (uv_stream_t *)&c->tcp, &buf, 1, cb) != 0) {
        free(w);
        dash_close_client(c);
        return -1;
    }
    if (ev) ev->refs++;
    return 0;
}

static int dash_send(dash_client *c, const char *p, size_t len, uv_write_cb cb) {
    return dash_write_to(c, NULL, p, len, cb);
}

/* One event to one subscriber; a miss is counted. */
static void dash_send_ev(dash_client *c, dash_ev *e) {
    if (dash_write_to(c, e, NULL, 0, dash_on_written) == 0) c->d->sent++;
    else c->d->dropped++;
}

static void dash_reply(dash_client *c, const char *status, const char *type, const char *body, size_t len) {
    char head[512];
    int n = snprintf(head, sizeof head, "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
                     "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
                     status, type, len);
    char *all = malloc((size_t)n + len);
    if (!all) {
        dash_close_client(c);
        return;
    }
    memcpy(all, head, (size_t)n);
    memcpy(all + n, body, len);
    if (dash_send(c, all, (size_t)n + len, dash_on_written_close) != 0) dash_close_client(c);
    free(all);
}

static void dash_subscribe(dash_client *c) {
    static const char head[] = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n"
                               "X-Content-Type-Options: nosniff\r\nConnection: keep-alive\r\n\r\n";
    if (dash_send(c, head, sizeof head - 1, dash_on_written) != 0) return;
    c->sse = 1;
    for (dash_ev *e = c->d->hist_head; e && !c->closing; e = e->next) dash_send_ev(c, e);
}

/* The value of header `name` (lower case, with its colon) in the request
 * into out; 0, or -1 when absent or too long. */
static int dash_header(const char *req, const char *name, char *out, size_t len) {
    size_t n = strlen(name);
    for (const char *p = strchr(req, '\n'); p && p[1] && p[1] != '\r' && p[1] != '\n'; p = strchr(p + 1, '\n')) {
        if (strncasecmp(p + 1, name, n) != 0) continue;
        const char *v = p + 1 + n;
        while (*v == ' ' || *v == '\t') v++;
        size_t vl = strcspn(v, "\r\n");
        while (vl > 0 && (v[vl - 1] == ' ' || v[vl - 1] == '\t')) vl--;
        if (vl >= len) return -1;
        memcpy(out, v, vl);
        out[vl] = 0;
        return 0;
    }
    return -1;
}

/* 1 when a Host header names this server: "localhost", 127.0.0.1, [::1] or
 * the bound address (any IP literal on a wildcard bind), with no port or
 * ours.  A DNS name other than localhost is what a rebinding page sends. */
static int dash_host_ok(const dash_sink *d, const char *host) {
    char h[256];
    const char *port = NULL;
    if (host[0] == '[') {
        const char *rb = strchr(host, ']');
        if (!rb || (size_t)(rb - host - 1) >= sizeof h) return 0;
        snprintf(h, sizeof h, "%.*s", (int)(rb - host - 1), host + 1);
        if (rb[1] == ':') port = rb + 2;
        else if (rb[1]) return 0;
    } else {
        const char *colon = strchr(host, ':');
        if (colon && strchr(colon + 1, ':')) return 0;     /* an IPv6 address needs brackets */
        size_t n = colon ? (size_t)(colon - host) : strlen(host);
        if (n >= sizeof h) return 0;
        snprintf(h, sizeof h, "%.*s", (int)n, host);
        if (colon) port = colon + 1;
    }
    if (port) {
        char *end;
        long p = strtol(port, &end, 10);
        if (!isdigit((unsigned char)port[0]) || *end || p != d->port) return 0;
    }
    if (strcasecmp(h, "localhost") == 0) return 1;
    struct in_addr a4;
    struct in6_addr a6;
    if (host[0] != '[' && inet_pton(AF_INET, h, &a4) == 1) {
        const struct sockaddr_in *b = (const struct sockaddr_in *)&d->bound;
        return d->wildcard || ntohl(a4.s_addr) == 0x7f000001u ||
               (b->sin_family == AF_INET && b->sin_addr.s_addr == a4.s_addr);
    }
    if (host[0] == '[' && inet_pton(AF_INET6, h, &a6) == 1) {
        const struct sockaddr_in6 *b = (const struct sockaddr_in6 *)&d->bound;
        return d->wildcard || IN6_IS_ADDR_LOOPBACK(&a6) ||
               (b->sin6_family == AF_INET6 && memcmp(&b->sin6_addr, &a6, sizeof a6) == 0);
    }
    return 0;
}

static void dash_request(dash_client *c) {
    char method[8] = "", path[256] = "", host[300];
    c->answered = 1;
    if (dash_header(c->req, "host:", host, sizeof host) != 0 || !dash_host_ok(c->d, host)) {
        c->d->bad_host++;
        dash_reply(c, "403 Forbidden", "text/plain", "wrong Host header\n", 18);
        return;
    }
    if (sscanf(c->req, "%7s %255s", method, path) != 2) {
        dash_reply(c, "400 Bad Request", "text/plain", "bad request\n", 12);
        return;
    }
    if (strcmp(method, "GET") != 0) {
        dash_reply(c, "405 Method Not Allowed", "text/plain", "GET only\n", 9);
        return;
    }
    if (strcmp(path, "/") == 0 || strcmp(path, "/index.html") == 0) {
        size_t len;
        const char *page = embedded_file_find(DASH_PAGE, &len);
        if (page) dash_reply(c, "200 OK", "text/html; charset=utf-8", page, len);
        else dash_reply(c, "500 Internal Server Error", "text/plain", "no page\n", 8);
    } else if (strcmp(path, "/events") == 0) dash_subscribe(c);
    else if (strcmp(path, "/favicon.ico") == 0) dash_reply(c, "204 No Content", "image/x-icon", "", 0);
    else dash_reply(c, "404 Not Found", "text/plain", "not found\n", 10);
}

static void dash_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf) {
    dash_client *c = h->data;
    (void)suggested;
    size_t room = sizeof c->req - 1 - c->req_len;
    *buf = uv_buf_init(c->req + c->req_len, (unsigned)room);
}

static void dash_on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf) {
    dash_client *c = s->data;
    (void)buf;
    if (n < 0) {
        dash_close_client(c);
        return;
    }
    if (c->answered || n == 0) return;     /* after the request: ignored */
    c->req_len += (size_t)n;
    c->req[c->req_len] = 0;
    if (strstr(c->req, "\r\n\r\n") || strstr(c->req, "\n\n")) dash_request(c);
    else if (c->req_len >= sizeof c->req - 1) {
        c->answered = 1;
        dash_reply(c, "431 Request Header Fields Too Large", "text/plain", "too large\n", 10);
    }
}

/* The oldest connection that has not sent its whole request, or NULL. */
static dash_client *dash_oldest_waiting(dash_sink *d) {
    dash_client *old = NULL;
    for (dash_client *c = d->clients; c; c = c->next)     /* newest first */
        if (!c->answered) old = c;
    return old;
}

/* Every DASH_SWEEP_MS: connections still without a whole request after
 * DASH_REQUEST_MS are closed (slow or idle clients). */
static void dash_on_sweep(uv_timer_t *t) {
    dash_sink *d = t->data;
    uint64_t now = uv_now(&d->loop);
    for (dash_client *c = d->clients, *next; c; c = next) {
        next = c->next;
        if (!c->answered && now - c->since_ms >= DASH_REQUEST_MS) {
            d->slow++;
            dash_close_client(c);
        }
    }
}

static void dash_on_connection(uv_stream_t *server, int status) {
    dash_sink *d = server->data;
    if (status < 0) return;
    dash_client *c = calloc(1, sizeof *c);
    if (!c) return;
    c->d = d;
    if (uv_tcp_init(&d->loop, &c->tcp) != 0) {
        free(c);
        return;
    }
    c->tcp.data = c;
    if (uv_accept(server, (uv_stream_t *)&c->tcp) != 0) {
        uv_close((uv_handle_t *)&c->tcp, dash_on_closed);
        return;
    }
    if (d->nclients >= DASH_MAX_CLIENTS) {    /* the oldest still sending its request makes room */
        dash_client *old = dash_oldest_waiting(d);
        if (!old) {
            d->full++;
            uv_close((uv_handle_t *)&c->tcp, dash_on_closed);
            return;
        }
        d->evicted++;
        dash_close_client(old);
    }
    c->since_ms = uv_now(&d->loop);
    c->next = d->clients;
    d->clients = c;
    d->nclients++;
    if (uv_read_start((uv_stream_t *)&c->tcp, dash_alloc, dash_on_read) != 0) dash_close_client(c);
}

/* ---- events from the main thread ---- */

static void dash_keep(dash_sink *d, dash_ev *e) {
    e->next = NULL;
    if (d->hist_tail) d->hist_tail->next = e;
    else d->hist_head = e;
    d->hist_tail = e;
    d->hist_bytes += e->len;
    while (d->hist_bytes > DASH_HISTORY_BYTES && d->hist_head && d->hist_head->next) {
        dash_ev *old = d->hist_head->next;     /* the first (a start event) stays */
        d->hist_head->next = old->next;
        if (d->hist_tail == old) d->hist_tail = d->hist_head;
        d->hist_bytes -= old->len;
        dash_ev_unref(old);
    }
}

static void dash_walk_close(uv_handle_t *h, void *arg) {
    (void)arg;
    if (!uv_is_closing(h)) uv_close(h, NULL);
}

/* Every client, the server, the wake-up and the signals: the loop ends. */
static void dash_close_all(dash_sink *d) {
    while (d->clients) dash_close_client(d->clients);
    uv_walk(&d->loop, dash_walk_close, NULL);
}

static void dash_on_signal(uv_signal_t *h, int signum) {
    dash_sink *d = h->data;
    (void)signum;
    fprintf(stderr, "luamech: dashboard stopped\n");
    dash_close_all(d);
}

/* The events the main thread pushed since the last wake-up, oldest first. */
static dash_ev *dash_take_inbox(dash_sink *d) {
    dash_ev *e = atomic_exchange(&d->inbox, NULL), *fifo = NULL;
    while (e) {
        dash_ev *next = e->next;
        e->next = fifo;
        fifo = e;
        e = next;
    }
    return fifo;
}

static void dash_on_wake(uv_async_t *a) {
    dash_sink *d = a->data;
    int stop = atomic_load(&d->stop);        /* before the inbox: the last events are in */
    for (dash_ev *e = dash_take_inbox(d), *next; e; e = next) {
        next = e->next;
        e->refs = 1;                          /* the history's */
        for (dash_client *c = d->clients, *cn; c; c = cn) {
            cn = c->next;
            if (c->sse) dash_send_ev(c, e);
        }
        dash_keep(d, e);
    }
    if (!stop) return;
    if (d->linger) {
        if (uv_signal_start(&d->sigint, dash_on_signal, SIGINT) == 0 &&
            uv_signal_start(&d->sigterm, dash_on_signal, SIGTERM) == 0) return;
        fprintf(stderr, "luamech: --dashboard-linger: cannot wait for signals: stopping the dashboard\n");
    }
    dash_close_all(d);
}

static void dash_thread(void *arg) {
    dash_sink *d = arg;
    prctl(PR_SET_NAME, "lm-dashboard", 0, 0, 0);   /* a name for ps and /proc; failure is harmless */
    uv_run(&d->loop, UV_RUN_DEFAULT);
}

static void dash_event(void *self, const output_run *run, output_ev ev, int k, const char *lines, size_t len) {
    dash_sink *d = self;
    (void)run, (void)ev, (void)k;
    size_t nl = 0;
    for (size_t i = 0; i < len; i++) nl += lines[i] == '\n';
    dash_ev *e = malloc(sizeof *e + len + nl * 8 + 1);
    if (!e) {
        d->dropped_in++;
        return;
    }
    size_t o = 0;
    for (const char *p = lines, *end = lines + len; p < end;) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        size_t n = eol ? (size_t)(eol - p) : (size_t)(end - p);
        memcpy(e->data + o, "data: ", 6);
        memcpy(e->data + o + 6, p, n);
        memcpy(e->data + o + 6 + n, "\n\n", 2);
        o += n + 8;
        p += n + 1;
    }
    e->len = o;
    e->refs = 0;
    e->next = atomic_load(&d->inbox);
    while (!atomic_compare_exchange_weak(&d->inbox, &e->next, e)) {}   /* fails only when the loop took the list */
    uv_async_send(&d->wake);
}

static void dash_free(dash_sink *d) {
    for (dash_ev *e = d->hist_head, *n; e; e = n) n = e->next, free(e);
    for (dash_ev *e = atomic_exchange(&d->inbox, NULL), *n; e; e = n) n = e->next, free(e);
    uv_loop_close(&d->loop);
    free(d);
}

static void dash_close(void *self) {
    dash_sink *d = self;
    atomic_store(&d->stop, 1);
    if (d->linger) fprintf(stderr, "luamech: the dashboard stays up at %s until Ctrl-C (--dashboard-linger)\n", d->url);
    uv_async_send(&d->wake);
    uv_thread_join(&d->thread);
    if (d->dropped + d->dropped_in > 0)       /* the thread ended: no race */
        fprintf(stderr, "luamech: --dashboard: %lld event(s) not sent (%lld sent); %lld browser(s) disconnected "
                "for not keeping up\n", (long long)(d->dropped + d->dropped_in), (long long)d->sent,
                (long long)d->kicked);
    if (d->bad_host + d->slow + d->evicted + d->full > 0)
        fprintf(stderr, "luamech: --dashboard: refused %lld request(s) with a wrong Host header (403), %lld connection(s) "
                "without a whole request in %d s, %lld to make room for newer ones (at most %d), %lld with every "
                "slot subscribed\n", (long long)d->bad_host, (long long)d->slow, DASH_REQUEST_MS / 1000,
                (long long)d->evicted, DASH_MAX_CLIENTS, (long long)d->full);
    dash_free(d);
}

/* Binds and listens; the URL into d->url.  0 or -1 and a message. */
static int dash_listen(dash_sink *d, const char *spec, char *err, size_t err_len) {
    const char *colon = strrchr(spec, ':');
    char addr[256] = "127.0.0.1";
    if (colon) {
        size_t n = (size_t)(colon - spec);
        const char *a = spec;
        if (a[0] == '[') a++, n -= 2;
        snprintf(addr, sizeof addr, "%.*s", (int)n, a);
    }
    int port = atoi(colon ? colon + 1 : spec), rc;
    struct sockaddr_storage ss;
    if (uv_ip4_addr(addr, port, (struct sockaddr_in *)&ss) != 0 && uv_ip6_addr(addr, port, (struct sockaddr_in6 *)&ss) != 0) {
        snprintf(err, err_len, "--dashboard %s: not an address", spec);
        return -1;
    }
    if ((rc = uv_tcp_bind(&d->server, (struct sockaddr *)&ss, 0)) != 0 ||
        (rc = uv_listen((uv_stream_t *)&d->server, 64, dash_on_connection)) != 0) {
        snprintf(err, err_len, "--dashboard %s: cannot listen there: %s", spec, uv_strerror(rc));
        return -1;
    }
    struct sockaddr_storage got;
    int len = sizeof got;
    char host[64] = "";
    static const struct in6_addr any6 = IN6ADDR_ANY_INIT;
    uv_tcp_getsockname(&d->server, (struct sockaddr *)&got, &len);
    d->bound = got;
    d->wildcard = got.ss_family == AF_INET6
                      ? memcmp(&((struct sockaddr_in6 *)&got)->sin6_addr, &any6, sizeof any6) == 0
                      : ((struct sockaddr_in *)&got)->sin_addr.s_addr == htonl(INADDR_ANY);
    d->port = ntohs(got.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&got)->sin6_port
                                              : ((struct sockaddr_in *)&got)->sin_port);
    if (got.ss_family == AF_INET6) {
        uv_ip6_name((struct sockaddr_in6 *)&got, host, sizeof host);
        snprintf(d->url, sizeof d->url, "http://[%s]:%d/", host, ntohs(((struct sockaddr_in6 *)&got)->sin6_port));
    } else {
        uv_ip4_name((struct sockaddr_in *)&got, host, sizeof host);
        snprintf(d->url, sizeof d->url, "http://%s:%d/", host, ntohs(((struct sockaddr_in *)&got)->sin_port));
    }
    return 0;
}

int output_dash_open(output_sink *out, const output_cfg *c, char *err, size_t err_len) {
    dash_sink *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, err_len, "--dashboard: out of memory");
        return -1;
    }
    atomic_init(&d->inbox, NULL);
    atomic_init(&d->stop, 0);
    d->linger = c->dashboard_linger;
    int rc = uv_loop_init(&d->loop);
    if (rc != 0) {
        snprintf(err, err_len, "--dashboard: cannot create its loop: %s", uv_strerror(rc));
        free(d);
        return -1;
    }
    rc = uv_tcp_init(&d->loop, &d->server);
    if (rc == 0) rc = uv_async_init(&d->loop, &d->wake, dash_on_wake);
    if (rc == 0) rc = uv_signal_init(&d->loop, &d->sigint);
    if (rc == 0) rc = uv_signal_init(&d->loop, &d->sigterm);
    if (rc == 0) rc = uv_timer_init(&d->loop, &d->sweep);
    if (rc != 0) snprintf(err, err_len, "--dashboard: cannot set up its loop: %s", uv_strerror(rc));
    d->server.data = d->wake.data = d->sigint.data = d->sigterm.data = d->sweep.data = d;
    if (rc == 0 && dash_listen(d, c->dashboard, err, err_len) != 0) rc = -1;
    if (rc == 0 && (rc = uv_timer_start(&d->sweep, dash_on_sweep, DASH_SWEEP_MS, DASH_SWEEP_MS)) != 0)
        snprintf(err, err_len, "--dashboard: cannot start its timer: %s", uv_strerror(rc));
    if (rc == 0 && uv_thread_create(&d->thread, dash_thread, d) != 0) {
        snprintf(err, err_len, "--dashboard: cannot start its thread");
        rc = -1;
    }
    if (rc != 0) {
        uv_walk(&d->loop, dash_walk_close, NULL);
        uv_run(&d->loop, UV_RUN_DEFAULT);
        dash_free(d);
        return -1;
    }
    fprintf(stderr, "luamech: dashboard at %s (unauthenticated)\n", d->url);
    *out = (output_sink){"dashboard", d, dash_event, dash_close};
    return 0;
}
