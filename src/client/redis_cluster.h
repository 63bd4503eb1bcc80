/* redis_cluster.h - a redis Cluster client on a libuv loop: one
 * redis_client per master node, a slot map (16384 slots -> node) discovered
 * with CLUSTER SLOTS from the first seed that answers, each command routed
 * by its keys' slot (proto/redis_cluster.h; keyless commands round-robin
 * over the masters), MOVED followed (the slot moved at once, the whole map
 * refreshed in the background) and ASK followed (ASKING, then the command,
 * on the node named), at most REDIS_CLUSTER_MAX_REDIRECTS times per
 * command.  A command whose keys are in different slots, or that cluster
 * mode does not route (MULTI/EXEC/WATCH, SELECT, XREAD...), fails before it
 * is sent.  Never touches Lua; nodes are never dropped from the map, and no
 * replica is read from. */
#ifndef LUAMECH_REDIS_CLUSTER_H
#define LUAMECH_REDIS_CLUSTER_H

#include <stddef.h>
#include <stdint.h>
#include "client/redis_client.h"
#include "proto/redis_cluster.h"     /* REDIS_CLUSTER_MOVED, _ASK */

#define REDIS_CLUSTER_MAX_REDIRECTS 5
#define REDIS_CLUSTER_MAX_NODES 1000
#define REDIS_CLUSTER_ASKING_LEN 16      /* "*1\r\n$6\r\nASKING\r\n" */

typedef struct redis_cluster redis_cluster;

/* A request of a cluster: the caller sets req's fields as for
 * redis_client_send (on_done, data, base.start_ns) and nothing else; the
 * rest is the cluster's.  The command's bytes are kept in cmd (grown as
 * needed, kept across reuse: free it with redis_cluster_req_free) so that a
 * redirection can send them again. */
typedef struct redis_cluster_req {
    redis_req req;                /* first */
    redis_req asking;             /* the ASKING sent before it after an ASK */
    redis_cluster *cl;
    redis_done_cb done;           /* the caller's on_done while in flight */
    char *cmd;                    /* REDIS_CLUSTER_ASKING_LEN bytes of room, then the command */
    size_t len, cap;              /* the command's bytes; cmd's size */
    int node;                     /* where it was sent last */
    int redirects;
    struct redis_cluster_req *next_wait;   /* waiting for the map (a pooled cluster connecting) */
} redis_cluster_req;

void redis_cluster_req_free(redis_cluster_req *r);

/* The redirections followed, as they happen (for counters). */
typedef void (*redis_cluster_event_cb)(void *data, int kind);   /* REDIS_CLUSTER_MOVED / _ASK */

/* seeds: "host:port[,host:port...]" (no unix sockets: a cluster's nodes
 * are named by address).  Nothing is connected yet.  0, or -1 with a message
 * in err.  opts (TLS included) apply to every node. */
int redis_cluster_new(uv_loop_t *loop, const char *seeds, const redis_client_opts *opts,
                      redis_cluster **out, char *err, size_t err_len);
void redis_cluster_on_event(redis_cluster *cl, redis_cluster_event_cb cb, void *data);
/* Discover the slots (the seeds in order, until one answers CLUSTER SLOTS)
 * and connect every master; cb fires once: 0 when every master is ready,
 * else the reason (a seed that is not a cluster node, a master that does not
 * answer). */
void redis_cluster_connect(redis_cluster *cl, redis_connect_cb cb, void *data);
/* As redis_client_send, req being the first member of a redis_cluster_req.
 * Before the map is known (a pooled cluster another VU is connecting) the
 * request waits for it; a cluster whose discovery failed tries again, at
 * most once a second (meanwhile requests fail at once with its reason). */
void redis_cluster_send(redis_cluster *cl, redis_req *req, int argc, const char **argv,
                        const size_t *argvlen);
/* As redis_client_send_encoded (reqs[i]->wend: where command i ends in
 * buf), each reqs[i] the first member of a redis_cluster_req: the commands
 * are split by node, each node's sent in one copy; replies come back per
 * request, in each node's order. */
void redis_cluster_send_encoded(redis_cluster *cl, redis_req *const *reqs, int n, const char *buf,
                                size_t len);
/* Cancel everything (on_done with UV_ECANCELED before this returns) and
 * free the cluster (once no callback of it runs).  Safe from callbacks. */
void redis_cluster_close(redis_cluster *cl);

const char *redis_cluster_name(const redis_cluster *cl);   /* the seeds as given */
size_t redis_cluster_pending(const redis_cluster *cl);
typedef struct redis_cluster_stats {
    uint64_t moved, ask, refreshes;
    int nodes, masters;
} redis_cluster_stats;
void redis_cluster_get_stats(const redis_cluster *cl, redis_cluster_stats *st);

#endif
