/* lm_grpc_int.h - what luamech.grpc's two files share: lm_grpc.c (connect,
 * invoke, stream, the client objects) and lm_grpc_stream.c (open_stream's
 * stream objects: send, close_send, recv, cancel).  The per-worker list of
 * clients, a client, the call options, the request encoder, the timer and
 * status-counter ids, and what a finished call records. */
#ifndef LUAMECH_LM_GRPC_INT_H
#define LUAMECH_LM_GRPC_INT_H

#include <lua.h>

#include "client/grpc_client.h"
#include "lua/lm_client.h"
#include "lua/lm_op.h"
#include "lua/lm_pb.h"

#define LM_GR_MT "luamech.grpc.client"
#define LM_GS_MT "luamech.grpc.stream"
#define LM_GR_MAX_MD 32
#define LM_GR_STREAM_MAX (64u << 20)     /* bytes of a stream's messages kept for the script */
#define LM_GR_MSG_COST 64u               /* what each kept message counts for besides its bytes (its
                                            index, its decoded table): empty messages are bounded too */
#define LM_GS_UNSENT_MAX (16u << 20)     /* bytes of a stream's requests waiting for the server's window */

typedef struct lm_gs lm_gs;
typedef struct lm_gs_waker lm_gs_waker;

typedef struct lm_gr_list {
    lm_client_list base;            /* first */
    worker *w;
    pb_arena enc;                   /* requests' trees (built and encoded inside the call) */
    pb_arena dec;                   /* a stream's messages, checked on arrival and decoded at recv */
    char *tx;
    size_t tx_cap;
    char *ztx;                      /* tx gzip-compressed, for clients with compression = "gzip" */
    size_t ztx_cap;
    grpc_gzip gz;
    int status_cid[18];             /* grpc.status.<NAME> counters, 17: any other code; 0: not yet */
    int cid_sent, cid_received;     /* grpc.stream.messages_sent, _received (streams_on) */
    int streams_on;                 /* 1: the two counters above are made */
    int cid_retries;                /* grpc.retries + 1; 0: not yet */
    int tid_all;                    /* the aggregate timer "grpc" + 1; 0: not yet */
    lm_op_pool sops;                /* lm_gs_op: a VU waiting on a stream */
    lm_gs_waker *waker;             /* wakes VUs waiting on streams after the loop's I/O */
    lm_gs *gs_free;                 /* stream records collected, kept with their buffers */
} lm_gr_list;

typedef struct lm_gr {
    lm_client_obj obj;              /* first */
    lm_gr_list *list;
    worker *w;
    grpc_client *client;
    const pb_schema *schema;
    int pooled;
    int gzip;                       /* compression = "gzip": requests compressed */
    uint64_t timeout_ns;
    h2_nv md[LM_GR_MAX_MD];         /* connect's metadata (copies in mdbuf) */
    size_t nmd;
    char *mdbuf;
    char name[128];
    struct { const pb_method *m; int tid; } tids[16];
    int ntids;
    lm_op_pool ops;                 /* lm_gr_op */
    lm_gs *streams;                 /* open_stream's records still linked to the client */
} lm_gr;

/* A call's options ({metadata =, timeout =, name =} at idx, or none) and
 * the method: what invoke, stream and open_stream read alike. */
typedef struct lm_gr_call_args {
    const pb_method *m;
    char path[512];                 /* "/pkg.Service/Method" */
    uint64_t timeout_ns;
    const char *name;
    h2_nv md[2 * LM_GR_MAX_MD];
    size_t nmd;
    int tid;
} lm_gr_call_args;

/* The client at index 1 (raises when closed), the method at index 2 and
 * the options at opts_idx read into a (their strings stay on the stack). */
lm_gr *lm_gr_call_args_read(lua_State *L, int opts_idx, const char *fname, lm_gr_call_args *a);
/* The request table at idx encoded as message
 * type msg with its 5-byte gRPC prefix into the list's buffer (gzip-compressed,
 * flag 1, for a client with compression = "gzip"); *len its size.  Raises "<fname>: ..." for a bad table. */
const char *lm_gr_encode(lua_State *L, lm_gr *g, int idx, int32_t msg, const char *fname, size_t *len);
/* A finished call: its grpc.status.<NAME> count and, unless OK, the
 * tallied error "grpc <path>: <NAME>: <msg>"; neither when its VU v was
 * stopped (the run's end: the sample is "cancelled", vu_record's rule, so
 * a stream left open or dropped but not yet collected counts as cancelled
 * only, as any request in flight at the end). */
void lm_gr_count_status(lm_gr_list *l, const vu *v, const pb_method *m, int code, const char *msg);
/* The counters grpc.stream.messages_sent and _received, made at the first
 * streaming call (c:stream, c:open_stream). */
void lm_gr_stream_counters(lm_gr_list *l);
/* A finished call's transparent retries counted in grpc.retries. */
void lm_gr_count_retries(lm_gr_list *l, unsigned retries);
/* The text of a call's failure, unary or stream: "grpc <path>: <NAME>: <msg>"
 * into e; snprintf's result. */
int lm_gr_error_text(char *e, size_t len, const pb_method *m, int code, const char *msg);
/* lm_grpc_stream.c: c:open_stream, and the stream type (made once per worker). */
int lm_gs_open(lua_State *L);
void lm_gs_type(lua_State *L);
/* The worker's teardown, once its clients are closed: the stream parts of l. */
void lm_gs_list_close(lm_gr_list *l);
/* The client g is closing: its streams' calls have ended; they let go of g. */
void lm_gs_detach_all(lm_gr *g);

#endif
