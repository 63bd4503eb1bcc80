/* mc_ring.c - memcached server lists and the key -> server mapping that
 * libmemcached 1.x computes for them (see mc_ring.h): the list parser with
 * its validation, libhashkit's one-at-a-time hash, the ketama continuum of
 * MEMCACHED_BEHAVIOR_KETAMA (100 points per server, point names "host-i",
 * or "host:port-i" when the port is not 11211, sorted by value then server)
 * and its lookup (the first point >= the key's hash, wrapping to the first).
 * It does not resolve names, open sockets, weigh servers (libmemcached's
 * KETAMA behaviour turns weighting off), eject servers or support Unix
 * sockets, IPv6 literals or libmemcached's other hashes and distributions. */
#include "client/mc_ring.h"
#include "common/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct mc_ring_point {
    uint32_t value;
    uint32_t index;
} mc_ring_point;

struct mc_ring {
    mc_dist dist;
    size_t n;
    mc_ring_server *servers;
    size_t npoints;
    mc_ring_point *points;            /* sorted; NULL for modula */
};

uint32_t mc_ring_hash(const char *key, size_t len) {
    uint32_t value = 0;
    for (size_t i = 0; i < len; i++) {
        value += (uint32_t)key[i];    /* plain char, as libhashkit (sign-extends where signed) */
        value += value << 10;
        value ^= value >> 6;
    }
    value += value << 3;
    value ^= value >> 11;
    value += value << 15;
    return value;
}

/* ---- parsing ---------------------------------------------------------- */

/* Digits only (1..9 of them), value in [lo, hi] stored in *v. */
static int mc_ring_digits(const char *p, size_t n, unsigned long lo, unsigned long hi,
                          unsigned long *v) {
    *v = 0;
    if (n == 0 || n > 9) return 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9') return 0;
        *v = *v * 10 + (unsigned long)(p[i] - '0');
    }
    return *v >= lo && *v <= hi;
}

/* One "host[:port[:weight]]" entry, spaces around it already removed. */
static int mc_ring_entry(const char *p, size_t n, mc_ring_server *s) {
    const char *colon = memchr(p, ':', n);
    size_t hlen = colon ? (size_t)(colon - p) : n;
    unsigned long port = MC_RING_DEFAULT_PORT, weight = 0;
    if (n == 0 || memchr(p, ' ', n) || hlen == 0 || hlen > MC_RING_HOST_MAX || p[0] == '/')
        return 0;
    if (colon) {
        const char *pp = colon + 1;
        size_t rest = n - hlen - 1;
        const char *w = memchr(pp, ':', rest);
        size_t plen = w ? (size_t)(w - pp) : rest;
        if (!mc_ring_digits(pp, plen, 1, 65535, &port)) return 0;
        if (w && !mc_ring_digits(w + 1, rest - plen - 1, 0, 1000000, &weight)) return 0;
    }
    memcpy(s->host, p, hlen);
    s->host[hlen] = 0;
    s->port = (int)port;
    s->weight = (uint32_t)weight;
    return 1;
}

static size_t mc_ring_count_entries(const char *servers) {
    size_t n = 1;
    for (const char *p = servers; *p; p++) n += *p == ',';
    return n;
}

static int mc_ring_parse(mc_ring *r, const char *servers, size_t max_servers, char *err,
                         size_t err_len) {
    size_t n = mc_ring_count_entries(servers);
    if (n > max_servers)
        return text_errf(err, err_len, "server list '%s': %zu servers (1..%zu allowed)",
                           servers, n, max_servers);
    r->servers = calloc(n, sizeof *r->servers);
    if (r->servers == NULL) return text_errf(err, err_len, "out of memory");
    const char *p = servers;
    for (size_t i = 0; i < n; i++) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        const char *e = p;
        size_t elen = len;
        while (elen && *e == ' ') e++, elen--;
        while (elen && e[elen - 1] == ' ') elen--;
        if (!mc_ring_entry(e, elen, &r->servers[i]))
            return text_errf(err, err_len, "bad server '%.*s' in '%s' (want host[:port],...)",
                               (int)len, p, servers);
        p = comma ? comma + 1 : p + len;
    }
    r->n = n;
    return 0;
}

/* ---- the ketama continuum --------------------------------------------- */

static int mc_ring_point_cmp(const void *a, const void *b) {
    const mc_ring_point *x = a, *y = b;
    if (x->value != y->value) return x->value < y->value ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int mc_ring_build(mc_ring *r, char *err, size_t err_len) {
    r->npoints = r->n * MC_RING_POINTS_PER_SERVER;
    r->points = calloc(r->npoints, sizeof *r->points);
    if (r->points == NULL) return text_errf(err, err_len, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < r->n; i++) {
        const mc_ring_server *s = &r->servers[i];
        for (unsigned j = 0; j < MC_RING_POINTS_PER_SERVER; j++) {
            char name[MC_RING_HOST_MAX + 32];
            int len = s->port == MC_RING_DEFAULT_PORT
                          ? snprintf(name, sizeof name, "%s-%u", s->host, j)
                          : snprintf(name, sizeof name, "%s:%d-%u", s->host, s->port, j);
            r->points[k].value = mc_ring_hash(name, (size_t)len);   /* < sizeof name: host is bounded */
            r->points[k++].index = (uint32_t)i;
        }
    }
    qsort(r->points, r->npoints, sizeof *r->points, mc_ring_point_cmp);
    return 0;
}

/* ---- public ----------------------------------------------------------- */

int mc_ring_new(const char *servers, mc_dist dist, size_t max_servers, mc_ring **out,
                char *err, size_t err_len) {
    *out = NULL;
    if (servers == NULL || *servers == 0) return text_errf(err, err_len, "empty server list");
    mc_ring *r = calloc(1, sizeof *r);
    if (r == NULL) return text_errf(err, err_len, "out of memory");
    r->dist = dist;
    if (mc_ring_parse(r, servers, max_servers, err, err_len) != 0 ||
        (dist == MC_DIST_KETAMA && mc_ring_build(r, err, err_len) != 0)) {
        mc_ring_free(r);
        return -1;
    }
    *out = r;
    return 0;
}

void mc_ring_free(mc_ring *r) {
    if (r == NULL) return;
    free(r->servers);
    free(r->points);
    free(r);
}

size_t mc_ring_count(const mc_ring *r) { return r->n; }

const mc_ring_server *mc_ring_server_at(const mc_ring *r, size_t idx) {
    return idx < r->n ? &r->servers[idx] : NULL;
}

uint32_t mc_ring_pick(const mc_ring *r, const char *key, size_t len) {
    if (r->n <= 1) return 0;
    uint32_t h = mc_ring_hash(key, len);
    if (r->dist == MC_DIST_MODULA) return h % (uint32_t)r->n;
    size_t lo = 0, hi = r->npoints;   /* the first point with value >= h */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->points[mid].value < h) lo = mid + 1;
        else hi = mid;
    }
    return r->points[lo == r->npoints ? 0 : lo].index;
}
