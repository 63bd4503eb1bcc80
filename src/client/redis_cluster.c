/* redis_cluster.c - a redis Cluster client (see redis_cluster.h).
 *
 * Above one redis_client per node: the slot map, built from a CLUSTER SLOTS
 * reply (the seeds' first answer at connect; again, in the background, after
 * each MOVED while no refresh is in flight), routes each command by the slot
 * of its keys (proto/redis_cluster.c finds them; an encoded command is split
 * back into its arguments for that).  Each request keeps its command's bytes
 * (in the request's own buffer, kept across reuse: no allocation once warm)
 * so that a MOVED or ASK reply sends it again to the node named, the
 * caller's on_done being called only with the final reply.  A pipeline is
 * split by node: each node's commands are copied into its connection's
 * write queue in one piece.  What it does not do: read from replicas, drop
 * nodes, follow a failover by itself (a refresh follows a MOVED), TLS (the
 * options' TLS settings are refused by redis_cluster_new), Lua. */
#include "client/redis_cluster.h"
#include "common/grow.h"
#include "proto/redis_cluster.h"
#include "proto/redis_proto.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char rc_asking[REDIS_CLUSTER_ASKING_LEN + 1] = "*1\r\n$6\r\nASKING\r\n";

typedef enum rc_state { RC_IDLE, RC_DISCOVER, RC_CONNECTING, RC_READY } rc_state;

typedef struct rc_node {
    redis_cluster *cl;
    redis_client *c;
    char addr[280];
    int index;
} rc_node;

struct redis_cluster {
    uv_loop_t *loop;
    redis_client_opts opts;
    char *password;                 /* owned copy */
    char *seeds;                    /* owned copy, commas replaced by NULs */
    int nseeds, seed_i;
    char name[300];
    rc_state state;
    int closing, busy;              /* busy: callbacks of ours on the C stack */
    uint16_t map[REDIS_CLUSTER_SLOTS];     /* node index + 1; 0: no node */
    uint16_t next[REDIS_CLUSTER_SLOTS];    /* a map being built */
    rc_node **nodes;
    int nnodes, cap;
    int *masters, nmasters;         /* nodes serving slots; keyless commands go round them */
    unsigned rr;
    size_t *node_bytes;             /* per node: a pipeline's bytes and commands */
    int *node_n;
    redis_client *seed;             /* the discovery's connection */
    const char *seed_host;          /* its host, for ranges naming no host */
    redis_req slots_req;            /* CLUSTER SLOTS: discovery or refresh */
    int refreshing;
    int connect_left;
    client_connect_wait connect;
    const char **argv;              /* a split command's arguments */
    size_t *lens;
    int argv_cap;
    redis_req **batch;
    int batch_cap;
    char *buf;                      /* a node's commands when its queue is not ready */
    size_t buf_cap;
    redis_cluster_req *wait_head, *wait_tail;   /* sent before the map was known */
    size_t nwait;
    uint64_t failed_at;             /* the last discovery's failure (uv_hrtime), 0: none */
    char down_why[300];             /* its reason */
    redis_cluster_event_cb on_event;
    void *event_data;
    uint64_t moved, ask, refreshes;
    char err[300];
};

/* ---- memory ----------------------------------------------------------- */

void redis_cluster_req_free(redis_cluster_req *r) {
    free(r->cmd);
    r->cmd = NULL;
    r->cap = r->len = 0;
}

/* Room for n command bytes (after the ASKING room) in r; 0 or -1. */
static int rc_req_room(redis_cluster_req *r, size_t n) {
    return grow_reserve(&r->cmd, &r->cap, n + REDIS_CLUSTER_ASKING_LEN, 128, SIZE_MAX);
}

static int rc_grow(void **p, int *cap, int need, size_t each) {
    if (need <= *cap) return 0;
    int c = *cap ? *cap : 16;
    while (c < need) c *= 2;
    void *q = realloc(*p, (size_t)c * each);
    if (q == NULL) return -1;
    *p = q;
    *cap = c;
    return 0;
}

static void rc_free(redis_cluster *cl) {
    for (int i = 0; i < cl->nnodes; i++) free(cl->nodes[i]);
    free(cl->nodes);
    free(cl->masters);
    free(cl->node_bytes);
    free(cl->node_n);
    free(cl->argv);
    free(cl->lens);
    free(cl->batch);
    free(cl->buf);
    free(cl->password);
    free(cl->seeds);
    free(cl);
}

static void rc_enter(redis_cluster *cl) { cl->busy++; }

/* Leave a callback; the last one out frees a closed cluster. */
static void rc_leave(redis_cluster *cl) {
    if (--cl->busy == 0 && cl->closing) rc_free(cl);
}

/* ---- creation ----------------------------------------------------------- */

int redis_cluster_new(uv_loop_t *loop, const char *seeds, const redis_client_opts *opts,
                      redis_cluster **out, char *err, size_t err_len) {
    *out = NULL;
    if (opts->tls) {
        snprintf(err, err_len, "tls is not supported with cluster (yet)");
        return -1;
    }
    if (opts->db > 0) {
        snprintf(err, err_len, "db %d: a cluster has only db 0", opts->db);
        return -1;
    }
    if (seeds == NULL || *seeds == 0 || *seeds == '/' || strstr(seeds, ",/")) {
        snprintf(err, err_len, "cluster seeds must be host:port[,host:port...], got '%s'", seeds ? seeds : "");
        return -1;
    }
    redis_cluster *cl = calloc(1, sizeof *cl);
    if (cl == NULL || (cl->seeds = strdup(seeds)) == NULL ||
        (opts->password && (cl->password = strdup(opts->password)) == NULL) ||
        rc_grow((void **)&cl->argv, &cl->argv_cap, 16, sizeof *cl->argv) != 0 ||
        (cl->lens = malloc((size_t)cl->argv_cap * sizeof *cl->lens)) == NULL) {
        if (cl) rc_free(cl);
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    cl->loop = loop;
    cl->opts = *opts;
    cl->opts.password = cl->password;
    snprintf(cl->name, sizeof cl->name, "%s", seeds);
    cl->nseeds = 1;
    for (char *p = cl->seeds; (p = strchr(p, ',')) != NULL; p++, cl->nseeds++) *p = 0;
    *out = cl;
    return 0;
}

void redis_cluster_on_event(redis_cluster *cl, redis_cluster_event_cb cb, void *data) {
    cl->on_event = cb;
    cl->event_data = data;
}

const char *redis_cluster_name(const redis_cluster *cl) { return cl->name; }

size_t redis_cluster_pending(const redis_cluster *cl) {
    size_t n = cl->nwait + (cl->seed ? redis_client_pending(cl->seed) : 0);
    for (int i = 0; i < cl->nnodes; i++) n += redis_client_pending(cl->nodes[i]->c);
    return n;
}

void redis_cluster_get_stats(const redis_cluster *cl, redis_cluster_stats *st) {
    st->moved = cl->moved;
    st->ask = cl->ask;
    st->refreshes = cl->refreshes;
    st->nodes = cl->nnodes;
    st->masters = cl->nmasters;
}

/* ---- nodes and the map ---------------------------------------------------- */

/* Room for one more node in the per-node arrays; 0 or -1. */
static int rc_nodes_room(redis_cluster *cl) {
    if (cl->nnodes < cl->cap) return 0;
    size_t cap = cl->cap ? 2 * (size_t)cl->cap : 8;
    void *p;
    if ((p = realloc(cl->nodes, cap * sizeof *cl->nodes)) == NULL) return -1;
    cl->nodes = p;
    if ((p = realloc(cl->masters, cap * sizeof *cl->masters)) == NULL) return -1;
    cl->masters = p;
    if ((p = realloc(cl->node_n, cap * sizeof *cl->node_n)) == NULL) return -1;
    cl->node_n = p;
    if ((p = realloc(cl->node_bytes, cap * sizeof *cl->node_bytes)) == NULL) return -1;
    cl->node_bytes = p;
    cl->cap = (int)cap;
    return 0;
}

/* The node of addr ("host:port"), made (not connected) when new; -1 with
 * cl->err when it cannot be. */
static int rc_node_get(redis_cluster *cl, const char *addr) {
    for (int i = 0; i < cl->nnodes; i++)
        if (strcmp(cl->nodes[i]->addr, addr) == 0) return i;
    if (cl->nnodes >= REDIS_CLUSTER_MAX_NODES) {
        snprintf(cl->err, sizeof cl->err, "more than %d nodes", REDIS_CLUSTER_MAX_NODES);
        return -1;
    }
    if (rc_nodes_room(cl) != 0) {
        snprintf(cl->err, sizeof cl->err, "out of memory");
        return -1;
    }
    rc_node *n = calloc(1, sizeof *n);
    char err[256];
    if (n == NULL) {
        snprintf(cl->err, sizeof cl->err, "out of memory");
        return -1;
    }
    if (redis_client_new(cl->loop, addr, &cl->opts, &n->c, err, sizeof err) != 0) {
        snprintf(cl->err, sizeof cl->err, "node %.100s: %.180s", addr, err);
        free(n);
        return -1;
    }
    n->cl = cl;
    n->index = cl->nnodes;
    snprintf(n->addr, sizeof n->addr, "%s", addr);
    cl->nodes[cl->nnodes++] = n;
    return n->index;
}

/* One range of a CLUSTER SLOTS reply into cl->next. */
static int rc_on_range(void *ctx, int from, int to, const char *host, size_t hlen, int port) {
    redis_cluster *cl = ctx;
    char addr[280];
    if (hlen == 0 || (hlen == 1 && host[0] == '?')) {
        host = cl->seed_host;
        hlen = strlen(host);
    }
    if (hlen > 255) {
        snprintf(cl->err, sizeof cl->err, "CLUSTER SLOTS: a host name of %zu bytes", hlen);
        return -1;
    }
    snprintf(addr, sizeof addr, memchr(host, ':', hlen) ? "[%.*s]:%d" : "%.*s:%d", (int)hlen, host, port);
    int k = rc_node_get(cl, addr);
    if (k < 0) return -1;
    for (int s = from; s <= to; s++) cl->next[s] = (uint16_t)(k + 1);
    return 0;
}

/* The masters: the nodes the map names. */
static void rc_masters(redis_cluster *cl) {
    for (int i = 0; i < cl->nnodes; i++) cl->node_n[i] = 0;
    for (int s = 0; s < REDIS_CLUSTER_SLOTS; s++)
        if (cl->map[s]) cl->node_n[cl->map[s] - 1] = 1;
    cl->nmasters = 0;
    for (int i = 0; i < cl->nnodes; i++)
        if (cl->node_n[i]) cl->masters[cl->nmasters++] = i;
}

/* A CLUSTER SLOTS reply from a node of host `host` becomes the map; 0, or
 * -1 with cl->err (the map unchanged). */
static int rc_map_build(redis_cluster *cl, const redisReply *r, const char *host) {
    char err[240];
    memset(cl->next, 0, sizeof cl->next);
    cl->seed_host = host;
    cl->err[0] = 0;
    int rc = redis_cluster_slots_walk(r, rc_on_range, cl, err, sizeof err);
    if (rc != 0) {
        if (cl->err[0] == 0) snprintf(cl->err, sizeof cl->err, "%s", err);
        return -1;
    }
    memcpy(cl->map, cl->next, sizeof cl->map);
    rc_masters(cl);
    if (cl->nmasters == 0) {
        snprintf(cl->err, sizeof cl->err, "the cluster serves no slot yet (CLUSTER SLOTS is empty)");
        return -1;
    }
    return 0;
}

/* ---- connecting ------------------------------------------------------------ */

static void rc_try_seed(redis_cluster *cl);

/* Seed i, as given. */
static const char *rc_seed_at(const redis_cluster *cl, int i) {
    const char *seed = cl->seeds;
    while (i-- > 0) seed += strlen(seed) + 1;
    return seed;
}

/* The host of "host:port" or "[v6]:port" (a bare host: itself). */
static void rc_host_of(const char *addr, char *host, size_t len) {
    if (addr[0] == '[') {
        snprintf(host, len, "%s", addr + 1);
        char *close = strchr(host, ']');
        if (close) *close = 0;
        return;
    }
    snprintf(host, len, "%s", addr);
    char *colon = strchr(host, ':');
    if (colon && colon == strrchr(host, ':')) *colon = 0;
}

static void rc_waiting_fail(redis_cluster *cl, int status, const char *msg);
static void rc_waiting_send(redis_cluster *cl);

static void rc_connect_failed(redis_cluster *cl, int status, const char *msg) {
    cl->state = RC_IDLE;
    cl->failed_at = uv_hrtime();
    snprintf(cl->down_why, sizeof cl->down_why, "%s", msg);
    rc_waiting_fail(cl, status, msg);
    client_connect_wait_tell(&cl->connect, status, msg);
}

static void rc_on_node_ready(void *data, int status, const char *errmsg) {
    rc_node *n = data;
    redis_cluster *cl = n->cl;
    if (cl->closing || cl->state != RC_CONNECTING) return;
    rc_enter(cl);
    if (status < 0 && cl->err[0] == 0)      /* the first failure is the one told */
        snprintf(cl->err, sizeof cl->err, "node %.80s: %.200s", n->addr, errmsg ? errmsg : "failed");
    if (--cl->connect_left == 0) {
        if (cl->err[0]) rc_connect_failed(cl, REDIS_CLIENT_EIO, cl->err);
        else {
            cl->state = RC_READY;
            rc_waiting_send(cl);
            client_connect_wait_tell(&cl->connect, 0, NULL);
        }
    }
    rc_leave(cl);
}

/* Connect every master; the last answer tells the caller. */
static void rc_connect_masters(redis_cluster *cl) {
    cl->state = RC_CONNECTING;
    cl->err[0] = 0;
    cl->connect_left = cl->nmasters;
    for (int i = 0; i < cl->nmasters && !cl->closing && cl->state == RC_CONNECTING; i++) {
        rc_node *n = cl->nodes[cl->masters[i]];
        redis_client_connect(n->c, rc_on_node_ready, n);
    }
}

static void rc_seed_done(redis_cluster *cl) {
    redis_client *s = cl->seed;
    cl->seed = NULL;
    redis_client_close(s);
}

static void rc_on_discover(redis_req *req, int status, const redisReply *r, const char *errmsg) {
    redis_cluster *cl = req->data;
    if (cl->closing) return;
    rc_enter(cl);
    const char *seed = rc_seed_at(cl, cl->seed_i);
    char host[260];
    rc_host_of(seed, host, sizeof host);
    if (status < 0) {
        snprintf(cl->err, sizeof cl->err, "seed %s: %.200s", seed, errmsg);
        rc_seed_done(cl);
        cl->seed_i++;
        rc_try_seed(cl);
    } else if (r->type == REDIS_REPLY_ERROR) {
        char msg[400];
        snprintf(msg, sizeof msg, "seed %s is not a cluster node (CLUSTER SLOTS: %.*s)", seed,
                 (int)(r->len < 200 ? r->len : 200), r->str);
        rc_seed_done(cl);
        rc_connect_failed(cl, REDIS_CLIENT_ESETUP, msg);
    } else if (rc_map_build(cl, r, host) != 0) {
        char msg[400];
        snprintf(msg, sizeof msg, "seed %s: %s", seed, cl->err);
        rc_seed_done(cl);
        rc_connect_failed(cl, REDIS_CLIENT_EPROTO, msg);
    } else {
        rc_seed_done(cl);
        rc_connect_masters(cl);
    }
    rc_leave(cl);
}

static void rc_on_seed_ready(void *data, int status, const char *errmsg) {
    redis_cluster *cl = data;
    if (cl->closing || cl->state != RC_DISCOVER) return;
    rc_enter(cl);
    if (status < 0) {
        const char *seed = rc_seed_at(cl, cl->seed_i);
        snprintf(cl->err, sizeof cl->err, "seed %s: %.200s", seed, errmsg ? errmsg : "failed");
        rc_seed_done(cl);
        cl->seed_i++;
        rc_try_seed(cl);
    } else {
        static const char *argv[2] = {"CLUSTER", "SLOTS"};
        static const size_t lens[2] = {7, 5};
        cl->slots_req.on_done = rc_on_discover;
        cl->slots_req.data = cl;
        cl->slots_req.base.start_ns = 0;
        redis_client_send(cl->seed, &cl->slots_req, 2, argv, lens);
    }
    rc_leave(cl);
}

/* Discovery through seed seed_i, or the failure once none is left. */
static void rc_try_seed(redis_cluster *cl) {
    if (cl->seed_i >= cl->nseeds) {
        char msg[400];
        snprintf(msg, sizeof msg, "no seed answered: %s", cl->err);
        rc_connect_failed(cl, REDIS_CLIENT_EIO, msg);
        return;
    }
    const char *seed = rc_seed_at(cl, cl->seed_i);
    char err[256];
    if (redis_client_new(cl->loop, seed, &cl->opts, &cl->seed, err, sizeof err) != 0) {
        char msg[400];
        snprintf(msg, sizeof msg, "seed %s", err);
        rc_connect_failed(cl, UV_EINVAL, msg);
        return;
    }
    redis_client_connect(cl->seed, rc_on_seed_ready, cl);
}

static void rc_discover(redis_cluster *cl) {
    rc_enter(cl);
    cl->state = RC_DISCOVER;
    cl->seed_i = 0;
    cl->err[0] = 0;
    rc_try_seed(cl);
    rc_leave(cl);
}

void redis_cluster_connect(redis_cluster *cl, redis_connect_cb cb, void *data) {
    if (!client_connect_wait_set(&cl->connect, cl->closing, cb, data)) return;
    if (cl->state == RC_READY) {
        client_connect_wait_tell(&cl->connect, 0, NULL);
        return;
    }
    if (cl->state == RC_IDLE) rc_discover(cl);
}

/* ---- the map refreshed --------------------------------------------------- */

static void rc_on_refresh(redis_req *req, int status, const redisReply *r, const char *errmsg) {
    rc_node *n = req->data;
    redis_cluster *cl = n->cl;
    (void)errmsg;
    cl->refreshing = 0;
    if (cl->closing || status < 0) return;
    char host[260];
    rc_host_of(n->addr, host, sizeof host);
    if (rc_map_build(cl, r, host) == 0) cl->refreshes++;
}

/* Ask node k for the whole map again, unless a refresh is in flight. */
static void rc_refresh(redis_cluster *cl, int k) {
    static const char *argv[2] = {"CLUSTER", "SLOTS"};
    static const size_t lens[2] = {7, 5};
    if (cl->refreshing || cl->closing) return;
    cl->refreshing = 1;
    cl->slots_req.on_done = rc_on_refresh;
    cl->slots_req.data = cl->nodes[k];
    cl->slots_req.base.start_ns = 0;
    redis_client_send(cl->nodes[k]->c, &cl->slots_req, 2, argv, lens);
}

/* ---- requests -------------------------------------------------------------- */

static void rc_on_done(redis_req *req, int status, const redisReply *r, const char *errmsg);

/* The caller's on_done, once: the request is the caller's again. */
static void rc_finish(redis_cluster_req *q, int status, const redisReply *r, const char *msg) {
    q->req.on_done = q->done;
    q->done(&q->req, status, r, msg);
}

static void rc_fail(redis_cluster_req *q, int status, const char *msg) {
    q->req.base.done_ns = 0;
    rc_finish(q, status, NULL, msg ? msg : redis_client_strerror(status));
}

/* The node of a command (argv), or -1 with the reason in cl->err. */
static int rc_route(redis_cluster *cl, int argc, const char *const *argv, const size_t *lens) {
    int slot, other;
    int rc = redis_cluster_cmd_slot(argc, argv, lens, &slot, &other);
    int k;
    switch (rc) {
    case 0:
        k = cl->map[slot] - 1;
        if (k < 0) snprintf(cl->err, sizeof cl->err, "slot %d is served by no node (CLUSTER SLOTS)", slot);
        return k;
    case REDIS_CLUSTER_KEYLESS:
        if (cl->nmasters == 0) {
            snprintf(cl->err, sizeof cl->err, "the cluster is not connected");
            return -1;
        }
        return cl->masters[cl->rr++ % (unsigned)cl->nmasters];
    case REDIS_CLUSTER_CROSSSLOT:
        snprintf(cl->err, sizeof cl->err, "CROSSSLOT: the keys of %.*s are in different slots (%d and %d): "
                 "give them one hash tag, as {user1}.a and {user1}.b", (int)(lens[0] < 30 ? lens[0] : 30),
                 argv[0], slot, other);
        return -1;
    case REDIS_CLUSTER_REFUSED:
        snprintf(cl->err, sizeof cl->err, "%.*s is not supported in cluster mode",
                 (int)(lens[0] < 30 ? lens[0] : 30), argv[0]);
        return -1;
    default:
        snprintf(cl->err, sizeof cl->err, "%.*s: bad key count argument", (int)(lens[0] < 30 ? lens[0] : 30),
                 argv[0]);
        return -1;
    }
}

/* The node of q's encoded command, or -1 with cl->err. */
static int rc_route_encoded(redis_cluster *cl, redis_cluster_req *q) {
    const char *cmd = q->cmd + REDIS_CLUSTER_ASKING_LEN;
    int argc = redis_cluster_split(cmd, q->len, cl->argv, cl->lens, cl->argv_cap);
    if (argc > cl->argv_cap) {
        int cap = cl->argv_cap;
        size_t *lens;
        if (rc_grow((void **)&cl->argv, &cap, argc, sizeof *cl->argv) != 0 ||
            (lens = realloc(cl->lens, (size_t)cap * sizeof *lens)) == NULL) {
            snprintf(cl->err, sizeof cl->err, "out of memory");
            return -1;
        }
        cl->lens = lens;
        cl->argv_cap = cap;
        argc = redis_cluster_split(cmd, q->len, cl->argv, cl->lens, cl->argv_cap);
    }
    if (argc < 1) {
        snprintf(cl->err, sizeof cl->err, "a command that is not RESP");
        return -1;
    }
    return rc_route(cl, argc, cl->argv, cl->lens);
}

/* Send q's command to node k. */
static void rc_dispatch(redis_cluster *cl, redis_cluster_req *q, int k) {
    redis_req *one = &q->req;
    q->node = k;
    q->req.on_done = rc_on_done;
    q->req.wend = q->len;
    redis_client_send_encoded(cl->nodes[k]->c, &one, 1, q->cmd + REDIS_CLUSTER_ASKING_LEN, q->len);
}

/* ASKING's reply: nothing to do (a refusal shows in the command's own). */
static void rc_on_asking(redis_req *req, int status, const redisReply *r, const char *errmsg) {
    (void)req, (void)status, (void)r, (void)errmsg;
}

/* A MOVED or ASK reply to q: to the node it names. */
static void rc_redirect(redis_cluster *cl, redis_cluster_req *q, int kind, int slot, const char *addr) {
    int k = rc_node_get(cl, addr);
    if (k < 0) {
        rc_fail(q, REDIS_CLIENT_EIO, cl->err);
        return;
    }
    q->redirects++;
    if (kind == REDIS_CLUSTER_MOVED) {
        cl->moved++;
        cl->map[slot] = (uint16_t)(k + 1);
    } else {
        cl->ask++;
    }
    if (cl->on_event) cl->on_event(cl->event_data, kind);
    if (kind == REDIS_CLUSTER_MOVED) rc_refresh(cl, k);
    if (cl->closing) {
        rc_fail(q, UV_ECANCELED, NULL);
        return;
    }
    q->asking.on_done = rc_on_asking;
    q->asking.data = q;
    q->asking.base.start_ns = q->req.base.start_ns;
    if (kind == REDIS_CLUSTER_ASK) {
        q->node = k;
        q->req.on_done = rc_on_done;
        memcpy(q->cmd, rc_asking, REDIS_CLUSTER_ASKING_LEN);
        q->asking.wend = REDIS_CLUSTER_ASKING_LEN;
        q->req.wend = REDIS_CLUSTER_ASKING_LEN + q->len;
        redis_req *two[2] = {&q->asking, &q->req};
        redis_client_send_encoded(cl->nodes[k]->c, two, 2, q->cmd, REDIS_CLUSTER_ASKING_LEN + q->len);
        return;
    }
    rc_dispatch(cl, q, k);
}

static void rc_on_done(redis_req *req, int status, const redisReply *r, const char *errmsg) {
    redis_cluster_req *q = (redis_cluster_req *)req;
    redis_cluster *cl = q->cl;
    if (status == 0 && r->type == REDIS_REPLY_ERROR && !cl->closing && q->redirects < REDIS_CLUSTER_MAX_REDIRECTS) {
        char addr[280];
        int slot, kind = redis_cluster_redirect(r->str, r->len, &slot, addr, sizeof addr);
        if (kind) {
            rc_enter(cl);
            rc_redirect(cl, q, kind, slot, addr);
            rc_leave(cl);
            return;
        }
    }
    if (status < 0 && !cl->closing && q->node >= 0 && q->node < cl->nnodes) {
        char msg[400];
        snprintf(msg, sizeof msg, "node %.80s: %.300s", cl->nodes[q->node]->addr, errmsg);
        rc_finish(q, status, r, msg);
        return;
    }
    rc_finish(q, status, r, errmsg);
}

/* ---- requests sent before the map is known ------------------------------ */

static redis_cluster_req *rc_wait_take(redis_cluster *cl) {
    redis_cluster_req *q = cl->wait_head;
    cl->wait_head = cl->wait_tail = NULL;
    cl->nwait = 0;
    return q;
}

static void rc_waiting_fail(redis_cluster *cl, int status, const char *msg) {
    for (redis_cluster_req *q = rc_wait_take(cl), *next; q; q = next) {
        next = q->next_wait;
        rc_fail(q, status, msg);
    }
}

static void rc_waiting_send(redis_cluster *cl) {
    for (redis_cluster_req *q = rc_wait_take(cl), *next; q; q = next) {
        next = q->next_wait;
        int k = cl->closing ? -1 : rc_route_encoded(cl, q);
        if (k < 0) rc_fail(q, cl->closing ? UV_ECANCELED : UV_EINVAL, cl->closing ? NULL : cl->err);
        else rc_dispatch(cl, q, k);
    }
}

/* Not ready: q (its command in q->cmd) waits for the map, a discovery
 * starting unless one failed less than a second ago (then q fails now);
 * 1 when q was taken care of so. */
static int rc_not_ready(redis_cluster *cl, redis_cluster_req *q) {
    if (cl->state == RC_READY) return 0;
    if (cl->state == RC_IDLE && cl->failed_at && uv_hrtime() - cl->failed_at < 1000000000ull) {
        rc_fail(q, REDIS_CLIENT_EDOWN, cl->down_why);
        return 1;
    }
    q->next_wait = NULL;
    if (cl->wait_tail) cl->wait_tail->next_wait = q;
    else cl->wait_head = q;
    cl->wait_tail = q;
    cl->nwait++;
    if (cl->state == RC_IDLE) rc_discover(cl);
    return 1;
}

/* q enters the cluster with the caller's on_done. */
static void rc_begin(redis_cluster *cl, redis_cluster_req *q) {
    q->cl = cl;
    q->done = q->req.on_done;
    q->redirects = 0;
    q->node = -1;
}

void redis_cluster_send(redis_cluster *cl, redis_req *req, int argc, const char **argv,
                        const size_t *argvlen) {
    redis_cluster_req *q = (redis_cluster_req *)req;
    rc_begin(cl, q);
    if (cl->closing || argc < 1) {
        rc_fail(q, cl->closing ? UV_ECANCELED : UV_EINVAL, NULL);
        return;
    }
    if (!redis_client_command_ok(argv[0], argvlen[0])) {
        rc_fail(q, UV_EINVAL, "pub/sub and MONITOR are not supported");
        return;
    }
    size_t n = redis_proto_cmd_len(argc, argvlen);
    if (rc_req_room(q, n) != 0) {
        rc_fail(q, UV_ENOMEM, NULL);
        return;
    }
    redis_proto_encode(q->cmd + REDIS_CLUSTER_ASKING_LEN, argc, argv, argvlen);
    q->len = n;
    if (rc_not_ready(cl, q)) return;
    int k = rc_route(cl, argc, argv, argvlen);
    if (k < 0) {
        rc_fail(q, UV_EINVAL, cl->err);
        return;
    }
    rc_enter(cl);
    rc_dispatch(cl, q, k);
    rc_leave(cl);
}

/* Pass 1 of a pipeline: each command copied into its request and routed
 * (node_n/node_bytes counted); a refused one fails now. */
static void rc_pipe_route(redis_cluster *cl, redis_req *const *reqs, int n, const char *buf) {
    size_t from = 0;
    for (int i = 0; i < cl->nnodes; i++) cl->node_n[i] = 0, cl->node_bytes[i] = 0;
    for (int i = 0; i < n; i++) {
        redis_cluster_req *q = (redis_cluster_req *)reqs[i];
        size_t end = reqs[i]->wend;
        rc_begin(cl, q);
        q->len = end - from;
        if (rc_req_room(q, q->len) != 0) {
            rc_fail(q, UV_ENOMEM, NULL);
        } else {
            memcpy(q->cmd + REDIS_CLUSTER_ASKING_LEN, buf + from, q->len);
            if (!rc_not_ready(cl, q)) {         /* else it waits for the map (or failed) */
                q->node = rc_route_encoded(cl, q);
                if (q->node < 0) rc_fail(q, UV_EINVAL, cl->err);
                else cl->node_n[q->node]++, cl->node_bytes[q->node] += q->len;
            }
        }
        from = end;
    }
}

/* Pass 2: node k's commands, in order, in one piece. */
static void rc_pipe_send(redis_cluster *cl, redis_req *const *reqs, int n, int k) {
    redis_client *c = cl->nodes[k]->c;
    size_t total = cl->node_bytes[k];
    char *dst = redis_client_encode_room(c, total);
    if (dst == NULL) {
        if (total > cl->buf_cap) {
            char *p = realloc(cl->buf, total);
            if (p) cl->buf = p, cl->buf_cap = total;
        }
        dst = total <= cl->buf_cap ? cl->buf : NULL;
    }
    int m = 0;
    size_t off = 0;
    for (int i = 0; i < n; i++) {
        redis_cluster_req *q = (redis_cluster_req *)reqs[i];
        if (q->node != k) continue;         /* elsewhere, or failed already (-1) */
        if (dst) memcpy(dst + off, q->cmd + REDIS_CLUSTER_ASKING_LEN, q->len);
        off += q->len;
        q->req.wend = off;
        q->req.on_done = rc_on_done;
        cl->batch[m++] = &q->req;
    }
    if (dst) {
        redis_client_send_encoded(c, cl->batch, m, dst, off);
        return;
    }
    for (int i = 0; i < m; i++) rc_fail((redis_cluster_req *)cl->batch[i], UV_ENOMEM, NULL);
}

void redis_cluster_send_encoded(redis_cluster *cl, redis_req *const *reqs, int n, const char *buf,
                                size_t len) {
    (void)len;
    if (n < 1) return;
    rc_enter(cl);
    if (rc_grow((void **)&cl->batch, &cl->batch_cap, n, sizeof *cl->batch) != 0 || cl->closing) {
        int st = cl->closing ? UV_ECANCELED : UV_ENOMEM;
        for (int i = 0; i < n; i++) {
            rc_begin(cl, (redis_cluster_req *)reqs[i]);
            rc_fail((redis_cluster_req *)reqs[i], st, NULL);
        }
        rc_leave(cl);
        return;
    }
    rc_pipe_route(cl, reqs, n, buf);
    for (int k = 0; k < cl->nnodes; k++) {
        if (cl->node_n[k] == 0) continue;
        if (cl->closing) {                          /* a callback closed it: the rest fail */
            for (int i = 0; i < n; i++) {
                redis_cluster_req *q = (redis_cluster_req *)reqs[i];
                if (q->node == k) rc_fail(q, UV_ECANCELED, NULL);
            }
            continue;
        }
        rc_pipe_send(cl, reqs, n, k);
    }
    rc_leave(cl);
}

/* ---- close -------------------------------------------------------------- */

void redis_cluster_close(redis_cluster *cl) {
    if (cl == NULL || cl->closing) return;
    cl->closing = 1;
    rc_enter(cl);
    client_connect_wait_tell(&cl->connect, UV_ECANCELED, "cancelled");
    rc_waiting_fail(cl, UV_ECANCELED, "cancelled");
    if (cl->seed) rc_seed_done(cl);
    for (int i = 0; i < cl->nnodes; i++) redis_client_close(cl->nodes[i]->c);
    rc_leave(cl);
}
