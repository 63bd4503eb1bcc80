/* lm_redis.c - binds luamech.redis: connect() and the client methods call,
 * pipeline, prepare, close and the wrappers get, set, del, incr, hget, hset, lpush,
 * rpop, ping, exists, expire (each is call() with its command name and
 * arguments passed through).  Each method checks its arguments (misuse raises
 * a Lua error), queues the command on client/redis_client and waits; the
 * completion converts the reply, pushes it and resumes the VU (lua/lm_op.c:
 * the bindings' one operation pattern; pooled clients in its registry).  It never parses bytes or touches sockets.
 *
 * luamech.redis.connect(address [, {pool=, timeout=, connect_timeout=,
 *   password=, db=, max_reply=, max_elements=, max_depth=}]) -> client |
 *   nil, err.  address is "host:port" or a unix socket path ("/..."); times
 *   are in seconds (default 5; connect_timeout defaults to timeout); AUTH and
 *   SELECT are sent on every (re)connect before any command.  max_reply
 *   (bytes of one reply, default 64 MiB), max_elements (array elements in
 *   one reply, default 1048576) and max_depth (nested arrays, 1..7, default 7)
 *   limit what a server can make luamech hold; a reply over them is an error
 *   of its command and resets the connection.  Yields until connected.  pool = true: the VUs of a worker
 *   share one client per (address, options); close() on it does nothing.
 *   cluster = true: address is a redis Cluster's seeds "host:port,...", the
 *   client a client/redis_cluster (routing, MOVED/ASK; each redirection
 *   counted under redis.cluster.moved / redis.cluster.ask); each request
 *   slot is a redis_cluster_req, whose command buffer it keeps across uses.
 * r:call(cmd, ...) and the wrappers -> value | nil | nil, err.  Arguments are
 *   strings (binary-safe) or finite numbers (integral ones as integers).  Replies:
 *   status and bulk -> string, integer -> number, array -> table (1-based,
 *   nested), nil -> nil (a single nil, no err).  An error reply or a failure
 *   (timeout, connection lost, server down, cancelled) returns nil, err with
 *   err = "redis.<cmd> <server>: <message>" (the server's error reply, or a
 *   failure's "<kind>: <detail>" from client_describe).  Inside a table, nil becomes
 *   false (no holes) and an error reply becomes {err = "<message>"}.
 * r:pipeline({{cmd, ...}, ...}) -> t | nil, err.  t[i] is the reply to the
 *   i-th command, converted as inside a table; t.n is the number of commands.
 *   nil, err when the connection failed (then no partial results).  Every
 *   entry is checked and encoded (proto/redis_proto.h's put_array/put_arg)
 *   into one buffer before anything is sent, then queued in one copy
 *   (redis_client_send_encoded); an argument may be a luamech.keys
 *   generator, drawn per command (lm_keys_draw).
 * r:prepare({{cmd, ...}, ...}) -> prepared: the same checks, encoded once
 *   with a hole per generator argument; r:pipeline(prepared) copies the bytes
 *   straight into the connection's write queue (redis_client_encode_room),
 *   drawing a key into each hole.
 * r:close().  Pub/sub commands and MONITOR raise a Lua error (their replies
 *   are not one per request).
 * Timing: each command under "redis.<cmd lowercased>", a pipeline also under
 *   "redis.pipeline" (its commands each under their own timer).  Error
 *   replies and failures are errors of the command's timer and are tallied; a
 *   pipeline sample fails only when it returns nil, err. */
#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/redis_client.h"
#include "client/redis_cluster.h"
#include "engine/vu_api.h"
#include "lua/lm_client.h"
#include "lua/lm_core.h"
#include "lua/lm_op.h"
#include "lua/lm_tls.h"

#define LM_RD_MT "luamech.redis"
#define LM_RD_CMD_MAX 24            /* command name kept for timer names and messages */
#define LM_RD_ARGV_STACK 16
#define LM_RD_MSG_MAX 400

typedef struct lm_rd lm_rd;
typedef struct lm_rd_op lm_rd_op;

/* A command name as a script gave it -> its timer: the last few names seen
 * by pipelines, compared byte by byte before the registry table is asked. */
#define LM_RD_TCACHE 8
typedef struct lm_rd_tname {
    size_t len;                     /* 0: free */
    int tid;
    char given[LM_RD_CMD_MAX];
    char lower[LM_RD_CMD_MAX];
} lm_rd_tname;

typedef struct lm_rd_list {
    lm_client_list base;            /* first: the clients, the pooled ones, redis.tls */
    int cache_ref;                  /* registry table: command name as given -> timer id */
    int tid_pipeline;
    lm_rd_tname names[LM_RD_TCACHE];
    unsigned names_next;            /* the entry replaced next */
    const void *gen_mt;             /* luamech's generators' metatable, once looked up */
    const void *prep_mt;            /* the prepared pipelines' metatable, once looked up */
    char *enc;                      /* a pipeline's commands, encoded until sent */
    size_t enc_cap;
} lm_rd_list;

/* One client as Lua sees it.  The userdata holds a pointer: the C side may
 * outlive a collected userdata until libuv closes its handles. */
struct lm_rd {
    lm_client_obj obj;              /* first: the worker's list, the userdata's slot */
    redis_client *client;           /* NULL once closed (or a cluster) */
    redis_cluster *cluster;         /* cluster = true: NULL once closed */
    int c_moved, c_ask;             /* a cluster's counters */
    worker *w;
    lm_rd_list *list;
    int pooled;
    char name[300];
    lm_op_pool ops;                 /* lm_rd_op */
};

/* A command wrapper's constants (r:get, r:set, ...), in a userdata that is
 * the closure's upvalue 2: its command, lowercased for messages, the least
 * number of arguments and its timer id on this worker (-1 until the first
 * call). */
typedef struct lm_rd_wrap {
    const void *mt;                 /* the type's metatable (lua_topointer): self's check */
    const char *cmd;
    size_t len;
    char lower[LM_RD_CMD_MAX];
    int min;
    int tid;
} lm_rd_wrap;

typedef struct lm_rd_slot {         /* one command of an op */
    redis_cluster_req cr;           /* first: cr.req is the request (a cluster's keeps its bytes) */
    lm_rd_op *op;
    int idx;
    int tid;
    char cmd[LM_RD_CMD_MAX];        /* lowercased */
} lm_rd_slot;

struct lm_rd_op {
    lm_op core;                     /* the pattern's part (lua/lm_op.h): first */
    lm_rd *rd;
    int pipeline;
    int n;
    int status;                     /* < 0 first failure; > 0 error reply (single command) */
    int pushed;                     /* the value (single) or the table (pipeline) is pushed */
    int cap;
    lm_rd_slot *slots;
    redis_req **reqs;               /* &slots[i].cr.req, for redis_client_send_encoded */
    /* a pipeline's samples not recorded yet: acc_n replies of timer acc_tid
     * with outcome acc_ok, read at acc_done_ns (recorded in one call when
     * the next reply differs, or with the last) */
    int acc_tid, acc_ok;
    int64_t acc_n;
    uint64_t acc_done_ns;
    char err[LM_RD_MSG_MAX];
};

/* ---- op pool ---- */

/* An op with room for n commands (its slots are kept across uses). */
static lm_rd_op *lm_rd_op_get(lua_State *L, lm_rd *rd, int n) {
    lm_rd_op *op = (lm_rd_op *)lm_op_get(&rd->ops);
    if (op == NULL) luaL_error(L, "redis: out of memory");
    if (op->cap < n) {              /* one block: the slots, then pointers to their requests */
        lm_rd_slot *s = realloc(op->slots, (size_t)n * (sizeof *s + sizeof(redis_req *)));
        if (s == NULL) {
            lm_op_put(&op->core);
            luaL_error(L, "redis: out of memory");
        }
        memset(s + op->cap, 0, (size_t)(n - op->cap) * sizeof *s);   /* no command buffer yet */
        op->slots = s;
        op->reqs = (redis_req **)(s + n);
        op->cap = n;
        for (int i = 0; i < n; i++) op->reqs[i] = &s[i].cr.req;
    }
    op->rd = rd;
    op->pipeline = op->status = op->pushed = 0;
    op->acc_n = 0;
    op->err[0] = 0;
    op->n = n;
    return op;
}

static void lm_rd_op_fini(lm_op *op) {
    lm_rd_op *o = (lm_rd_op *)op;
    for (int i = 0; i < o->cap; i++) redis_cluster_req_free(&o->slots[i].cr);
    free(o->slots);
}

/* ---- replies to Lua values ---- */

static void lm_rd_push_reply(lua_State *L, const redisReply *r, int in_table) {
    switch (r->type) {
    case REDIS_REPLY_STATUS: case REDIS_REPLY_STRING:
        lua_pushlstring(L, r->str, r->len);
        break;
    case REDIS_REPLY_INTEGER:
        lua_pushnumber(L, (lua_Number)r->integer);
        break;
    case REDIS_REPLY_ARRAY:
        lua_createtable(L, (int)r->elements, 0);
        for (size_t i = 0; i < r->elements; i++) {
            lm_rd_push_reply(L, r->element[i], 1);
            lua_rawseti(L, -2, (int)i + 1);
        }
        break;
    case REDIS_REPLY_ERROR:         /* only inside a table */
        lua_createtable(L, 0, 1);
        lua_pushlstring(L, r->str, r->len);
        lua_setfield(L, -2, "err");
        break;
    default:
        if (in_table) lua_pushboolean(L, 0);
        else lua_pushnil(L);
    }
}

/* ---- completion ---- */

static void lm_rd_message(lm_rd_op *op, const char *cmd, const char *why, size_t len) {
    snprintf(op->err, sizeof op->err, "redis.%s %s: %.*s", cmd, op->rd->name, (int)len, why);
}

/* A failure of the client (status < 0): "redis.<cmd> <server>: <kind>: <detail>",
 * the kind from the clients' one status space (client_status.h).  A command
 * the client refused before sending it (UV_EINVAL: CROSSSLOT, MULTI in
 * cluster mode, pub/sub) is no failure of the server: its reason stands
 * alone, as the server's own error reply would. */
static void lm_rd_failure(lm_rd_op *op, const char *cmd, int status, const char *errmsg) {
    if (status == UV_EINVAL && errmsg && *errmsg) {
        lm_rd_message(op, cmd, errmsg, strlen(errmsg));
        return;
    }
    char why[LM_RD_MSG_MAX];
    client_describe(why, sizeof why, redis_client_status(status), errmsg ? errmsg : redis_client_strerror(status));
    lm_rd_message(op, cmd, why, strlen(why));
}

/* Push the op's results on L; returns how many (the pool's push). */
static int lm_rd_push_results(lm_op *core, lua_State *L) {
    lm_rd_op *op = (lm_rd_op *)core;
    if (op->status != 0) {
        lua_settop(L, op->core.base);
        lua_pushnil(L);
        lua_pushstring(L, op->err);
        return 2;
    }
    if (op->pipeline) {
        if (!op->pushed) lua_createtable(L, 0, 1);
        lua_pushinteger(L, op->n);
        lua_setfield(L, -2, "n");
    } else if (!op->pushed) {
        lua_pushnil(L);
    }
    return 1;
}

/* The last command of a pipeline is done (at now_ns; 0 = read the clock):
 * time and tally the pipeline. */
static void lm_rd_pipe_done(lm_rd_op *op, uint64_t now_ns) {
    lm_rd *rd = op->rd;
    lm_op_record_at(&op->core, rd->list->tid_pipeline, op->status == 0, now_ns);
    if (op->status != 0) worker_error(rd->w, op->err, strlen(op->err));
}

static void lm_rd_single_result(lm_rd_op *op, lm_rd_slot *s, int status, const redisReply *r,
                                const char *errmsg, lua_State *L) {
    if (status < 0 || r->type == REDIS_REPLY_ERROR) {
        if (status < 0) lm_rd_failure(op, s->cmd, status, errmsg);
        else lm_rd_message(op, s->cmd, r->str, r->len);
        op->status = status < 0 ? status : 1;
        worker_error(op->rd->w, op->err, strlen(op->err));
        return;
    }
    if (L == NULL || r->type == REDIS_REPLY_NIL) return;
    lua_checkstack(L, 48);
    lm_rd_push_reply(L, r, 0);
    op->pushed = 1;
}

static void lm_rd_pipe_result(lm_rd_op *op, lm_rd_slot *s, int status, const redisReply *r,
                              const char *errmsg, lua_State *L) {
    if (status < 0) {
        if (op->status == 0) lm_rd_failure(op, "pipeline", status, errmsg);
        if (op->status == 0) op->status = status;
        return;
    }
    if (r->type == REDIS_REPLY_ERROR) {
        char msg[LM_RD_MSG_MAX];
        int n = snprintf(msg, sizeof msg, "redis.%s %s: %.*s", s->cmd, op->rd->name, (int)r->len, r->str);
        worker_error(op->rd->w, msg, n < (int)sizeof msg ? (size_t)n : sizeof msg - 1);
    }
    if (L == NULL || op->status != 0) return;
    if (!op->pushed) {                      /* room once: the stack holds the table and one reply */
        lua_checkstack(L, 48);
        lua_createtable(L, op->n, 1);
        op->pushed = 1;
    }
    lm_rd_push_reply(L, r, 1);
    lua_rawseti(L, -2, s->idx + 1);
}

static void lm_rd_on_done(redis_req *req, int status, const redisReply *r, const char *errmsg) {
    lm_rd_slot *s = req->data;
    lm_rd_op *op = s->op;
    int ok = status == 0 && r->type != REDIS_REPLY_ERROR;
    lm_op_record_at(&op->core, s->tid, ok, req->base.done_ns);
    lm_rd_single_result(op, s, status, r, errmsg, lm_op_stack(&op->core));
    lm_op_request_done(&op->core);
}

static void lm_rd_acc_flush(lm_rd_op *op) {
    if (op->acc_n > 0) lm_op_record_count(&op->core, op->acc_tid, op->acc_ok, op->acc_done_ns, op->acc_n);
    op->acc_n = 0;
}

/* A command of a pipeline: its sample (one per command, recorded together
 * with the identical ones next to it: the replies of one read share their
 * time and start), its reply into the table. */
static void lm_rd_pipe_on_done(redis_req *req, int status, const redisReply *r, const char *errmsg) {
    lm_rd_slot *s = req->data;
    lm_rd_op *op = s->op;
    int ok = status == 0 && r->type != REDIS_REPLY_ERROR;
    uint64_t done = req->base.done_ns;
    if (op->acc_n > 0 && (op->acc_tid != s->tid || op->acc_ok != ok || op->acc_done_ns != done || done == 0))
        lm_rd_acc_flush(op);
    op->acc_tid = s->tid;
    op->acc_ok = ok;
    op->acc_done_ns = done;
    op->acc_n++;
    lm_rd_pipe_result(op, s, status, r, errmsg, lm_op_stack(&op->core));
    if (op->core.pending == 1) {
        lm_rd_acc_flush(op);
        lm_rd_pipe_done(op, done);
    }
    lm_op_request_done(&op->core);
}

/* ---- arguments ---- */

static int lm_rd_open(const lm_rd *rd) { return rd->client != NULL || rd->cluster != NULL; }

static lm_rd *lm_rd_check(lua_State *L) {
    lm_rd **ud = lm_check_self(L, LM_RD_MT);
    if (!*ud || !lm_rd_open(*ud)) luaL_error(L, "redis: the client is closed");
    return *ud;
}

/* A command name: a non-empty string, one reply per request (no pub/sub). */
static int lm_rd_cmd_ok(lua_State *L, int i) {
    size_t len;
    if (lua_type(L, i) != LUA_TSTRING) return 0;
    const char *s = lua_tolstring(L, i, &len);
    return len > 0 && redis_client_command_ok(s, len);
}

/* Replace the number d at i by its text: integral values as integers,
 * others as Lua's tostring writes them. */
static void lm_rd_arg_text(lua_State *L, int i, double d) {
    char buf[64];
    if (d == floor(d) && fabs(d) < 9.2e18) snprintf(buf, sizeof buf, "%.0f", d);
    else snprintf(buf, sizeof buf, "%.14g", d);
    lua_pushstring(L, buf);
    lua_replace(L, i);
}

/* Scratch arrays for argc arguments: the caller's when small enough, else a
 * userdata pushed on the stack (collected with it). */
static const char **lm_rd_scratch(lua_State *L, int argc, const char **small, size_t *small_lens,
                                  size_t **lens) {
    if (argc <= LM_RD_ARGV_STACK) {
        *lens = small_lens;
        return small;
    }
    const char **p = lua_newuserdata(L, (size_t)argc * (sizeof(char *) + sizeof(size_t)));
    *lens = (size_t *)(p + argc);
    return p;
}

/* cmd = the command name at idx, lowercased (kept for messages). */
static void lm_rd_lower(lua_State *L, int idx, char *cmd) {
    size_t len, i;
    const char *s = lua_tolstring(L, idx, &len);
    for (i = 0; i < len && i < LM_RD_CMD_MAX - 1; i++)
        cmd[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] - 'A' + 'a' : s[i]);
    cmd[i] = 0;
}

/* Timer id of the command at idx ("redis.<cmd lowercased>"), cached per
 * worker by the name as given; cmd gets the lowercased name. */
static int lm_rd_tid(lua_State *L, lm_rd *rd, int idx, char *cmd) {
    lm_rd_lower(L, idx, cmd);
    lua_rawgeti(L, LUA_REGISTRYINDEX, rd->list->cache_ref);
    lua_pushvalue(L, idx);
    lua_rawget(L, -2);
    if (lua_isnumber(L, -1)) {
        int tid = (int)lua_tointeger(L, -1);
        lua_pop(L, 2);
        return tid;
    }
    lua_pop(L, 1);
    char name[LM_RD_CMD_MAX + 8];
    snprintf(name, sizeof name, "redis.%s", cmd);
    int tid = lm_timer_id(rd->w, name, TK_PRIMITIVE);
    lua_pushvalue(L, idx);
    lua_pushinteger(L, tid);
    lua_rawset(L, -3);
    lua_pop(L, 1);
    return tid;
}

/* ---- calls ---- */

static void lm_rd_slot_init(lm_rd_op *op, int i) {
    lm_rd_slot *s = &op->slots[i];
    s->cr.req.on_done = lm_rd_on_done;
    s->cr.req.data = s;
    s->op = op;
    s->idx = i;
}


/* Check the arguments in stack slots first..top and fill argv[0..) from
 * them (numbers replaced by their text): one pass, one lua_type each. */
static void lm_rd_args(lua_State *L, int first, int top, const char **argv, size_t *lens) {
    for (int i = first; i <= top; i++) {
        int t = lua_type(L, i);
        if (t == LUA_TNUMBER) {
            double d = lua_tonumber(L, i);
            if (!isfinite(d)) t = LUA_TNONE;
            else lm_rd_arg_text(L, i, d);
        }
        if (t != LUA_TSTRING && t != LUA_TNUMBER) luaL_argerror(L, i, "string or finite number expected");
        argv[i - first] = lua_tolstring(L, i, &lens[i - first]);
    }
}

/* Send a command: wr's (a wrapper: the command is known good, its
 * arguments are the stack slots first..top) or, wr NULL, the one in slots
 * first..top (r:call: the command name first). */
static int lm_rd_command(lua_State *L, lm_rd *rd, int first, lm_rd_wrap *wr) {
    int top = lua_gettop(L), argc = top - first + 1 + (wr != NULL);
    if (!wr && (argc < 1 || !lm_rd_cmd_ok(L, first)))
        luaL_error(L, "redis call: the command name (a non-empty string, not pub/sub or MONITOR) expected as its "
                      "first argument, got %s%.40s%s", argc < 1 ? "none" : lua_type(L, first) == LUA_TSTRING ? "'"
                      : luaL_typename(L, first), lua_type(L, first) == LUA_TSTRING ? lua_tostring(L, first) : "",
                      lua_type(L, first) == LUA_TSTRING ? "'" : "");
    const char *small[LM_RD_ARGV_STACK];
    size_t small_lens[LM_RD_ARGV_STACK], *lens;
    const char **argv = lm_rd_scratch(L, argc, small, small_lens, &lens);
    if (wr) {
        argv[0] = wr->cmd;
        lens[0] = wr->len;
        lm_rd_args(L, first, top, argv + 1, lens + 1);
    } else {
        argv[0] = lua_tolstring(L, first, &lens[0]);
        lm_rd_args(L, first + 1, top, argv + 1, lens + 1);
    }
    vu *v = lm_current_vu(L, rd->w, "redis methods");
    lm_rd_op *op = lm_rd_op_get(L, rd, 1);
    lm_rd_slot_init(op, 0);
    if (wr && wr->tid >= 0) {
        memcpy(op->slots[0].cmd, wr->lower, sizeof wr->lower);
        op->slots[0].tid = wr->tid;
    } else if (wr) {                        /* its first call on this worker */
        lua_pushstring(L, wr->cmd);
        wr->tid = op->slots[0].tid = lm_rd_tid(L, rd, lua_gettop(L), op->slots[0].cmd);
        lua_pop(L, 1);
    } else {
        op->slots[0].tid = lm_rd_tid(L, rd, first, op->slots[0].cmd);
    }
    lm_op_start(&op->core, v, L, 1);
    op->slots[0].cr.req.base.start_ns = op->core.start_ns;   /* the client's deadline: the same clock read */
    if (rd->cluster) redis_cluster_send(rd->cluster, &op->slots[0].cr.req, argc, argv, lens);
    else redis_client_send(rd->client, &op->slots[0].cr.req, argc, argv, lens);
    return lm_op_finish_call(&op->core, L);
}

/* r:call(cmd, ...) */
static int lm_rd_call(lua_State *L) {
    return lm_rd_command(L, lm_rd_check(L), 2, NULL);
}

/* r:get(key) and the other wrappers: upvalues are the metatable
 * (lm_check_self) and the wrapper's lm_rd_wrap. */
static int lm_rd_wrapper(lua_State *L) {
    lm_rd_wrap *wr = lua_touserdata(L, lua_upvalueindex(2));
    lm_rd **ud = lua_touserdata(L, 1);      /* self: a userdata of this type (one pointer compare) */
    int self = ud && lua_type(L, 1) == LUA_TUSERDATA && lua_getmetatable(L, 1);
    if (self) {
        self = lua_topointer(L, -1) == wr->mt;
        lua_pop(L, 1);
    }
    lm_rd *rd = self && *ud && lm_rd_open(*ud) ? *ud : lm_rd_check(L);   /* else its error */
    int nargs = lua_gettop(L) - 1;
    if (nargs < wr->min)
        return luaL_error(L, "redis %s: at least %d argument(s) expected, got %d", wr->cmd, wr->min, nargs);
    return lm_rd_command(L, rd, 2, wr);
}

/* ---- pipelines ---- */

static void lm_rd_pipe_on_done(redis_req *req, int status, const redisReply *r, const char *errmsg);
static const void *lm_rd_prep_metatable(lua_State *L);

/* A pipeline entry refused: command cmd (1-based), element elem (0: the
 * entry itself; -1: out of memory); raised once the op is back in its pool. */
typedef struct lm_rd_bad {
    int cmd, elem;
} lm_rd_bad;

static int lm_rd_refuse(lm_rd_bad *bad, int cmd, int elem) {
    bad->cmd = cmd;
    bad->elem = elem;
    return -1;
}

static void lm_rd_pipe_raise(lua_State *L, const lm_rd_bad *bad) {
    if (bad->elem < 0) luaL_error(L, "redis: out of memory");
    if (bad->elem == 0) luaL_error(L, "redis pipeline: command %d is not a non-empty table", bad->cmd);
    luaL_error(L, "redis pipeline: command %d, element %d: %s expected", bad->cmd, bad->elem,
               bad->elem == 1 ? "command name (a non-empty string, not pub/sub or MONITOR)"
                              : "string or finite number (or a luamech.keys generator)");
}

/* The timer and lowercased name of the command name s (len bytes, at stack
 * slot idx): from the list's cache, else lm_rd_tid's (then cached); a name
 * too long for the cache gets tmp filled. */
static const lm_rd_tname *lm_rd_tname_of(lua_State *L, lm_rd *rd, int idx, const char *s, size_t len,
                                         lm_rd_tname *tmp) {
    lm_rd_list *l = rd->list;
    for (int i = 0; i < LM_RD_TCACHE; i++) {
        lm_rd_tname *e = &l->names[i];
        if (e->len == len && memcmp(e->given, s, len) == 0) return e;
    }
    lm_rd_tname *e = len < LM_RD_CMD_MAX ? &l->names[l->names_next++ % LM_RD_TCACHE] : tmp;
    e->len = 0;
    e->tid = lm_rd_tid(L, rd, idx, e->lower);
    if (e == tmp) return e;
    memcpy(e->given, s, len);
    e->len = len;
    return e;
}

/* A finite number's text into buf (64 bytes), as lm_rd_arg_text writes it:
 * integral values as integers, others as %.14g; returns its length. */
static size_t lm_rd_num_text(double d, char *buf) {
    if (d == floor(d) && fabs(d) < 9.2e18 && (d != 0 || !signbit(d))) {
        char tmp[24];
        int k = 0, neg = d < 0;
        uint64_t x = neg ? (uint64_t)-(int64_t)d : (uint64_t)d;
        do tmp[k++] = (char)('0' + x % 10); while ((x /= 10) != 0);
        size_t n = 0;
        if (neg) buf[n++] = '-';
        while (k) buf[n++] = tmp[--k];
        return n;
    }
    int n = snprintf(buf, 64, d == floor(d) ? "%.0f" : "%.14g", d);
    return n > 0 ? (size_t)n : 0;
}

/* 1 when the value at idx is a luamech.keys generator. */
static int lm_rd_is_keys(lua_State *L, lm_rd_list *l, int idx) {
    if (!lua_getmetatable(L, idx)) return 0;
    if (l->gen_mt == NULL) l->gen_mt = lm_gen_metatable(L);
    int gen = l->gen_mt && lua_topointer(L, -1) == l->gen_mt;
    lua_pop(L, 1);
    return gen && lm_keys_draw(lua_touserdata(L, idx), NULL, NULL) == 0;
}

/* Room for need bytes in the list's encoding buffer. */
static int lm_rd_enc_room(lm_rd_list *l, size_t need) { return lm_buf_reserve(&l->enc, &l->enc_cap, need); }

/* A prepared pipeline (r:prepare): its commands encoded once, with a hole
 * wherever an argument is a luamech.keys generator; each send copies the
 * bytes and draws a key into each hole.  Its generators are kept alive by
 * the userdata's environment table. */
typedef struct lm_rd_hole {
    size_t at;                      /* the argument goes before this byte of tpl */
    void *gen;                      /* the generator's userdata */
} lm_rd_hole;

typedef struct lm_rd_prep {
    int n;                          /* commands */
    int nholes, cap_holes;
    char *tpl;                      /* the encoded commands, holes left out */
    size_t len;
    size_t *ends;                   /* command i ends before tpl[ends[i]] */
    lm_rd_hole *holes;              /* in order of at */
    int *tids;
    char (*cmds)[LM_RD_CMD_MAX];    /* lowercased names, for messages */
} lm_rd_prep;

#define LM_RD_PREP_MT "luamech.redis.prepared"

/* One argument (j > 1) of a pipeline entry, at stack slot idx, encoded at
 * *off: a string, a finite number or a keys generator's draw (prep != NULL:
 * a hole of prep instead, the generator kept in the environment table at
 * stack slot env).  0, 1 (not an argument) or -1 (out of memory). */
static int lm_rd_pipe_arg(lua_State *L, lm_rd_list *l, vu *v, int idx, size_t *off, lm_rd_prep *prep,
                          int env) {
    char tmp[LM_KEY_MAX > 64 ? LM_KEY_MAX : 64];
    const char *s = tmp;
    size_t len;
    int t = lua_type(L, idx);
    if (t == LUA_TSTRING) {
        s = lua_tolstring(L, idx, &len);
    } else if (t == LUA_TNUMBER) {
        double d = lua_tonumber(L, idx);
        if (!isfinite(d)) return 1;
        len = lm_rd_num_text(d, tmp);
    } else if (t != LUA_TUSERDATA || !lm_rd_is_keys(L, l, idx)) {
        return 1;
    } else if (prep) {
        if (prep->nholes == prep->cap_holes) {
            int cap = prep->cap_holes ? 2 * prep->cap_holes : 16;
            lm_rd_hole *h = realloc(prep->holes, (size_t)cap * sizeof *h);
            if (h == NULL) return -1;
            prep->holes = h;
            prep->cap_holes = cap;
        }
        prep->holes[prep->nholes++] = (lm_rd_hole){*off, lua_touserdata(L, idx)};
        lua_pushvalue(L, idx);
        lua_rawseti(L, env, prep->nholes);
        return 0;
    } else {
        len = (size_t)lm_keys_draw(lua_touserdata(L, idx), v, tmp);
    }
    if (lm_rd_enc_room(l, *off + len + REDIS_PROTO_HDR_MAX + 2) != 0) return -1;
    *off = (size_t)(redis_proto_put_arg(l->enc + *off, s, len) - l->enc);
    return 0;
}

/* Entry i (0-based) of the pipeline table at stack slot 2, encoded at *off
 * in the list's buffer; its timer into *tid, its lowercased name into cmd.
 * 0, or -1 with the refusal in bad.  Uses the two stack slots above the top
 * (2, or with prep 4: the environment table for its generators). */
static int lm_rd_pipe_encode(lua_State *L, lm_rd *rd, int i, vu *v, size_t *off, lm_rd_bad *bad,
                             int *tid, char *cmd, lm_rd_prep *prep) {
    lm_rd_list *l = rd->list;
    int base = prep ? 4 : 2, t = base + 1, e = base + 2;
    lua_rawgeti(L, 2, i + 1);
    int argc = lua_istable(L, t) ? (int)lua_objlen(L, t) : 0;
    if (argc < 1) return lm_rd_refuse(bad, i + 1, 0);
    size_t len;
    lua_rawgeti(L, t, 1);
    const char *name = lua_type(L, e) == LUA_TSTRING ? lua_tolstring(L, e, &len) : NULL;
    if (name == NULL || len == 0 || !redis_client_command_ok(name, len)) return lm_rd_refuse(bad, i + 1, 1);
    lm_rd_tname tmp;
    const lm_rd_tname *tn = lm_rd_tname_of(L, rd, e, name, len, &tmp);
    *tid = tn->tid;
    memcpy(cmd, tn->lower, LM_RD_CMD_MAX);
    if (lm_rd_enc_room(l, *off + 2 * REDIS_PROTO_HDR_MAX + 2 + len) != 0) return lm_rd_refuse(bad, i + 1, -1);
    char *d = redis_proto_put_array(l->enc + *off, argc);
    *off = (size_t)(redis_proto_put_arg(d, name, len) - l->enc);
    lua_settop(L, t);
    for (int j = 2; j <= argc; j++) {
        lua_rawgeti(L, t, j);
        int rc = lm_rd_pipe_arg(L, l, v, e, off, prep, 4);
        if (rc != 0) return lm_rd_refuse(bad, i + 1, rc < 0 ? -1 : j);
        lua_settop(L, t);
    }
    lua_settop(L, base);
    return 0;
}

static void lm_rd_slot_pipe(lm_rd_op *op, int i, size_t end) {
    lm_rd_slot *slot = &op->slots[i];
    slot->cr.req.on_done = lm_rd_pipe_on_done;
    slot->cr.req.data = slot;
    slot->cr.req.wend = end;
    slot->op = op;
    slot->idx = i;
}

/* The op's n commands, encoded in buf (len bytes), leave. */
static int lm_rd_pipe_send(lua_State *L, lm_rd_op *op, vu *v, const char *buf, size_t len) {
    lm_op_start(&op->core, v, L, op->n);
    for (int i = 0; i < op->n; i++) op->slots[i].cr.req.base.start_ns = op->core.start_ns;
    if (op->rd->cluster) redis_cluster_send_encoded(op->rd->cluster, op->reqs, op->n, buf, len);
    else redis_client_send_encoded(op->rd->client, op->reqs, op->n, buf, len);
    return lm_op_finish_call(&op->core, L);
}

/* r:pipeline(prepared): the template copied, a key drawn into each hole,
 * straight into the connection's write queue when it is ready. */
static int lm_rd_pipeline_prepared(lua_State *L, lm_rd *rd, const lm_rd_prep *p, vu *v) {
    lm_rd_list *l = rd->list;
    size_t room = p->len + (size_t)p->nholes * (LM_KEY_MAX + REDIS_PROTO_HDR_MAX + 2);
    lm_rd_op *op = lm_rd_op_get(L, rd, p->n);
    char *start = rd->client ? redis_client_encode_room(rd->client, room) : NULL;   /* a cluster splits it */
    if (start == NULL && lm_rd_enc_room(l, room) == 0) start = l->enc;
    if (start == NULL) {
        lm_op_put(&op->core);
        luaL_error(L, "redis: out of memory");
    }
    op->pipeline = 1;
    char *d = start;
    size_t from = 0;                        /* tpl copied up to here */
    int h = 0;
    for (int i = 0; i < p->n; i++) {
        for (; h < p->nholes && p->holes[h].at <= p->ends[i]; h++) {
            const lm_rd_hole *hole = &p->holes[h];
            memcpy(d, p->tpl + from, hole->at - from);
            d += hole->at - from;
            from = hole->at;
            int k = lm_keys_draw(hole->gen, v, d + REDIS_PROTO_INPLACE);   /* drawn in place */
            d = redis_proto_put_arg_inplace(d, (size_t)k);
        }
        memcpy(d, p->tpl + from, p->ends[i] - from);
        d += p->ends[i] - from;
        from = p->ends[i];
        lm_rd_slot_pipe(op, i, (size_t)(d - start));
        op->slots[i].tid = p->tids[i];
        memcpy(op->slots[i].cmd, p->cmds[i], LM_RD_CMD_MAX);
    }
    return lm_rd_pipe_send(L, op, v, start, (size_t)(d - start));
}

static lm_rd_prep *lm_rd_prep_at(lua_State *L, lm_rd_list *l, int idx) {
    if (lua_type(L, idx) != LUA_TUSERDATA || !lua_getmetatable(L, idx)) return NULL;
    if (l->prep_mt == NULL) l->prep_mt = lm_rd_prep_metatable(L);
    int is = lua_topointer(L, -1) == l->prep_mt;
    lua_pop(L, 1);
    return is ? lua_touserdata(L, idx) : NULL;
}

/* r:pipeline({{cmd, ...}, ...}) or r:pipeline(prepared): every entry is
 * checked and encoded into one buffer before anything is sent, then the
 * client queues them all in one copy. */
static int lm_rd_pipeline(lua_State *L) {
    lm_rd *rd = lm_rd_check(L);
    lm_rd_prep *prep = lm_rd_prep_at(L, rd->list, 2);
    if (!prep) luaL_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 2);
    luaL_checkstack(L, 8, "redis pipeline");
    int n = prep ? prep->n : (int)lua_objlen(L, 2);
    vu *v = lm_current_vu(L, rd->w, "redis methods");
    if (n == 0) {
        lua_createtable(L, 0, 1);
        lua_pushinteger(L, 0);
        lua_setfield(L, -2, "n");
        return 1;
    }
    if (rd->list->tid_pipeline < 0)         /* created on first use, like command timers */
        rd->list->tid_pipeline = lm_timer_id(rd->w, "redis.pipeline", TK_PRIMITIVE);
    if (prep) return lm_rd_pipeline_prepared(L, rd, prep, v);
    lm_rd_op *op = lm_rd_op_get(L, rd, n);
    op->pipeline = 1;
    size_t off = 0;
    lm_rd_bad bad;
    for (int i = 0; i < n; i++) {
        lm_rd_slot *slot = &op->slots[i];
        if (lm_rd_pipe_encode(L, rd, i, v, &off, &bad, &slot->tid, slot->cmd, NULL) != 0) {
            lm_op_put(&op->core);
            lm_rd_pipe_raise(L, &bad);
        }
        lm_rd_slot_pipe(op, i, off);
    }
    return lm_rd_pipe_send(L, op, v, rd->list->enc, off);
}

static int lm_rd_prep_gc(lua_State *L) {
    lm_rd_prep *p = lua_touserdata(L, 1);
    free(p->tpl);
    free(p->ends);
    free(p->holes);
    free(p->tids);
    free(p->cmds);
    memset(p, 0, sizeof *p);
    return 0;
}

static int lm_rd_prep_tostring(lua_State *L) {
    lm_rd_prep *p = lua_touserdata(L, 1);
    lua_pushfstring(L, "luamech redis prepared pipeline (%d commands)", p->n);
    return 1;
}

/* The prepared pipelines' metatable (made once per Lua state), as a pointer;
 * pushed when push is set. */
static const void *lm_rd_prep_mt(lua_State *L, int push) {
    if (luaL_newmetatable(L, LM_RD_PREP_MT)) {
        lua_pushcfunction(L, lm_rd_prep_gc);
        lua_setfield(L, -2, "__gc");
        lua_pushcfunction(L, lm_rd_prep_tostring);
        lua_setfield(L, -2, "__tostring");
        lua_pushstring(L, "luamech.redis.prepared");
        lua_setfield(L, -2, "__metatable");
    }
    const void *mt = lua_topointer(L, -1);
    if (!push) lua_pop(L, 1);
    return mt;
}

static const void *lm_rd_prep_metatable(lua_State *L) { return lm_rd_prep_mt(L, 0); }

/* The arrays of a prepared pipeline of n commands; 0 or -1. */
static int lm_rd_prep_alloc(lm_rd_prep *p, int n) {
    p->ends = malloc((size_t)n * sizeof *p->ends);
    p->tids = malloc((size_t)n * sizeof *p->tids);
    p->cmds = malloc((size_t)n * sizeof *p->cmds);
    return p->ends && p->tids && p->cmds ? 0 : -1;
}

/* r:prepare({{cmd, ...}, ...}) -> prepared: checked and encoded once, for
 * r:pipeline(prepared) (any client of this worker); an argument that is a
 * luamech.keys generator is drawn anew at each send. */
static int lm_rd_prepare(lua_State *L) {
    lm_rd *rd = lm_rd_check(L);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 2);
    luaL_checkstack(L, 8, "redis prepare");
    int n = (int)lua_objlen(L, 2);
    lm_rd_prep *p = lua_newuserdata(L, sizeof *p);     /* 3 */
    memset(p, 0, sizeof *p);
    lm_rd_prep_mt(L, 1);
    lua_setmetatable(L, 3);
    lua_newtable(L);                        /* 4: the generators, the userdata's environment */
    lua_pushvalue(L, 4);
    lua_setfenv(L, 3);
    if (n > 0 && lm_rd_prep_alloc(p, n) != 0) luaL_error(L, "redis: out of memory");
    size_t off = 0;
    lm_rd_bad bad;
    for (int i = 0; i < n; i++) {
        if (lm_rd_pipe_encode(L, rd, i, NULL, &off, &bad, &p->tids[i], p->cmds[i], p) != 0)
            lm_rd_pipe_raise(L, &bad);
        p->ends[i] = off;
        p->n = i + 1;
    }
    if (off > 0 && (p->tpl = malloc(off)) == NULL) luaL_error(L, "redis: out of memory");
    if (off > 0) memcpy(p->tpl, rd->list->enc, off);
    p->len = off;
    lua_settop(L, 3);
    return 1;
}

/* ---- connect / close ---- */

static void lm_rd_close(lm_rd *rd) {
    redis_client *c = rd->client;
    redis_cluster *cl = rd->cluster;
    rd->client = NULL;
    rd->cluster = NULL;
    if (c) redis_client_close(c);           /* pending ops complete with ECANCELED */
    if (cl) redis_cluster_close(cl);
}

static void lm_rd_free(void *obj) {
    lm_rd *rd = obj;
    lm_client_unlink(&rd->obj);
    lm_op_pool_free(&rd->ops);
    free(rd);
}

/* A collected client is closed and freed, unless requests are pending (their
 * completions may resume VUs, never from inside the collector): then it is
 * left to the worker's teardown. */
static int lm_rd_gc(lua_State *L) {
    lm_rd **ud = luaL_checkudata(L, 1, LM_RD_MT);
    lm_rd *rd = *ud;
    if (rd == NULL) return 0;
    *ud = NULL;
    rd->obj.ud = NULL;
    if (rd->client && redis_client_pending(rd->client) > 0) return 0;
    if (rd->cluster && redis_cluster_pending(rd->cluster) > 0) return 0;
    lm_rd_close(rd);
    lm_rd_free(rd);
    return 0;
}

/* r:close(): a pooled client belongs to the worker and stays open. */
static int lm_rd_close_lua(lua_State *L) {
    lm_rd **ud = luaL_checkudata(L, 1, LM_RD_MT);
    if (*ud && !(*ud)->pooled) lm_rd_close(*ud);
    return 0;
}

static void lm_rd_on_connect(void *data, int status, const char *errmsg) {
    const lm_rd *rd = lm_connect_client(data);
    char why[LM_RD_MSG_MAX] = "";
    if (status < 0)
        client_describe(why, sizeof why, redis_client_status(status), errmsg ? errmsg : redis_client_strerror(status));
    lm_connect_done(data, status, "redis.connect %s: %s", rd->name, why);
}

static void lm_rd_connect(void *rd, lm_connect *cc) {
    lm_rd *r = rd;
    if (r->cluster) redis_cluster_connect(r->cluster, lm_rd_on_connect, cc);
    else redis_client_connect(r->client, lm_rd_on_connect, cc);
}

/* a failed connect closes a VU's own client (a pooled one keeps retrying);
 * the worker's teardown closes them all */
static void lm_rd_close_client(void *rd) { lm_rd_close(rd); }

static void lm_rd_worker_close(void *list) {
    free(((lm_rd_list *)list)->enc);
    lm_client_list_close(list, lm_rd_close_client, lm_rd_free);
}

/* connect()'s options: the client's, and cluster = true; db and the limits
 * read as 64-bit numbers (their rows) and narrowed after. */
typedef struct lm_rd_conn_opts {
    redis_client_opts o;
    int cluster;
    uint64_t db, max_elements, max_depth;
} lm_rd_conn_opts;

#define LM_RD_AT(f) LM_OPT_AT(lm_rd_conn_opts, f)

/* redis.connect's options as data (lm_client.h): the reader below,
 * lua/types/luamech.lua's luamech.RedisOptions and docs/lua-api.md's table
 * are checked against these rows. */
static const lm_opt_spec lm_rd_spec[] = {
    {"timeout", LM_OPT_SECONDS, 0, 86400, CLIENT_TIMEOUT_DEFAULT_NS / 1e9, "10", LM_RD_AT(o.timeout_ns)},
    {"connect_timeout", LM_OPT_SECONDS, 0, 86400, 0, "timeout", LM_RD_AT(o.connect_timeout_ns)},
    LM_OPT_OWN("password", NULL),
    {"db", LM_OPT_INT, 0, 1e6, 0, "0", LM_RD_AT(db)},
    LM_OPT_OWN("pool", "false"),
    {"max_reply", LM_OPT_BYTES, 1, (double)REDIS_PROTO_MAX_REPLY_LIMIT, (double)REDIS_PROTO_MAX_REPLY_DEFAULT,
     "64 MiB", LM_RD_AT(o.limits.max_reply_bytes)},
    {"max_elements", LM_OPT_INT, 1, (double)REDIS_PROTO_MAX_ELEMENTS_LIMIT,
     (double)REDIS_PROTO_MAX_ELEMENTS_DEFAULT, "1048576", LM_RD_AT(max_elements)},
    {"max_depth", LM_OPT_INT, 1, REDIS_PROTO_MAX_DEPTH_DEFAULT, REDIS_PROTO_MAX_DEPTH_DEFAULT, "7",
     LM_RD_AT(max_depth)},
    LM_OPT_OWN("tls", NULL),
    LM_OPT_OWN("cluster", "false"),
    LM_OPT_OWN(NULL, NULL)};

/* Reads the options table at idx; the password stays anchored by it. */
static const net_tls_opts **lm_rd_opts(lua_State *L, int idx, void *opts, int *pool) {
    lm_rd_conn_opts *co = opts;
    redis_client_opts *o = &co->o;
    redis_client_opts_default(o);
    co->cluster = 0;
    int have = lm_opts_read(L, idx, "redis.connect", lm_rd_spec, co);
    o->db = (int)co->db;
    o->limits.max_elements = (uint32_t)co->max_elements;
    o->limits.max_depth = (int)co->max_depth;
    *pool = lm_pool_opt(L, idx);
    if (!have) return &o->tls;
    lua_getfield(L, idx, "cluster");
    if (!lua_isnil(L, -1) && !lua_isboolean(L, -1)) luaL_error(L, "redis.connect: cluster must be a boolean");
    co->cluster = lua_toboolean(L, -1);
    lua_pop(L, 1);
    lua_getfield(L, idx, "password");
    if (!lua_isnil(L, -1)) o->password = luaL_checkstring(L, -1);
    lua_pop(L, 1);
    return &o->tls;
}

/* A cluster's MOVED or ASK, counted (redis.cluster.moved, .ask). */
static void lm_rd_on_event(void *data, int kind) {
    lm_rd *rd = data;
    worker_count(rd->w, kind == REDIS_CLUSTER_MOVED ? rd->c_moved : rd->c_ask, 1);
}

/* connect's lm_client_kind.create: the client (or cluster) of a into rd. */
static int lm_rd_new(void *obj, const lm_connect_args *a, void *opts, char *err, size_t err_len) {
    lm_rd *rd = obj;
    const lm_rd_conn_opts *co = opts;
    if (co->cluster) {
        if (redis_cluster_new(worker_loop(a->w), a->address, &co->o, &rd->cluster, err, err_len) != 0) return -1;
        rd->c_moved = worker_counter_id(a->w, "redis.cluster.moved");
        rd->c_ask = worker_counter_id(a->w, "redis.cluster.ask");
        redis_cluster_on_event(rd->cluster, lm_rd_on_event, rd);
    } else if (redis_client_new(worker_loop(a->w), a->address, &co->o, &rd->client, err, err_len) != 0) {
        return -1;
    }
    rd->w = a->w;
    rd->list = (lm_rd_list *)rd->obj.list;
    rd->pooled = a->pool;
    lm_op_pool_init(&rd->ops, sizeof(lm_rd_op), lm_rd_push_results, lm_rd_op_fini);
    snprintf(rd->name, sizeof rd->name, "%s", rd->cluster ? redis_cluster_name(rd->cluster)
                                                           : redis_client_name(rd->client));
    return 0;
}

static const lm_client_kind lm_rd_kind = {
    .fname = "redis.connect", .vu_fname = "luamech.redis.connect", .mt = LM_RD_MT,
    .size = sizeof(lm_rd), .tls_scheme = "rediss://", .plain_scheme = "redis://",
    .opts = lm_rd_opts, .create = lm_rd_new, .connect = lm_rd_connect, .close = lm_rd_close_client};

static int lm_rd_connect_lua(lua_State *L) {
    lm_rd_list *list = lua_touserdata(L, lua_upvalueindex(2));
    lm_rd_conn_opts co;
    const redis_client_opts *o = &co.o;
    lm_connect_args a;
    lm_connect_args_read(L, &lm_rd_kind, lua_touserdata(L, lua_upvalueindex(1)), &list->base.tls, &a, &co);
    lm_pool_key key = {.address = a.address, .timeout_ns = o->timeout_ns,
                       .connect_timeout_ns = o->connect_timeout_ns,
                       .opt = {o->db, (int64_t)o->limits.max_reply_bytes, (int64_t)o->limits.max_elements,
                               o->limits.max_depth, co.cluster},
                       .secret = o->password, .tls = a.tkey};
    return lm_client_connect(L, &lm_rd_kind, &list->base, &key, &a, &co);
}

/* ---- module ---- */

/* The command wrappers (get, set, ...) beside the methods of __index. */
static void lm_rd_wrappers(lua_State *L, int mt) {
    static const struct { const char *method, *cmd; int min; } wrappers[] = {
        {"get", "GET", 1}, {"set", "SET", 2}, {"del", "DEL", 1}, {"incr", "INCR", 1},
        {"hget", "HGET", 2}, {"hset", "HSET", 3}, {"lpush", "LPUSH", 2}, {"rpop", "RPOP", 1},
        {"ping", "PING", 0}, {"exists", "EXISTS", 1}, {"expire", "EXPIRE", 2}};
    for (size_t i = 0; i < sizeof wrappers / sizeof wrappers[0]; i++) {
        lua_pushvalue(L, mt);               /* the metatable: upvalue 1 of every method */
        lm_rd_wrap *wr = lua_newuserdata(L, sizeof *wr);
        wr->mt = lua_topointer(L, mt);
        wr->cmd = wrappers[i].cmd;
        wr->len = strlen(wr->cmd);
        wr->min = wrappers[i].min;
        wr->tid = -1;                       /* set by the first call */
        snprintf(wr->lower, sizeof wr->lower, "%s", wrappers[i].method);
        lua_pushcclosure(L, lm_rd_wrapper, 2);
        lua_setfield(L, -2, wrappers[i].method);
    }
}

void lm_redis_open(lua_State *L, worker *w) {
    static const luaL_Reg methods[] = {
        {"call", lm_rd_call}, {"pipeline", lm_rd_pipeline}, {"prepare", lm_rd_prepare},
        {"close", lm_rd_close_lua},
        {NULL, NULL}};
    static const luaL_Reg meta[] = {{"__gc", lm_rd_gc}, {NULL, NULL}};
    lm_client_type(L, LM_RD_MT, methods, meta, lm_rd_wrappers);
    lm_rd_list *list = calloc(1, sizeof *list);
    if (list) {
        lua_newtable(L);
        list->cache_ref = luaL_ref(L, LUA_REGISTRYINDEX);
        list->tid_pipeline = -1;
    }
    lm_client_module(L, w, list ? &list->base : NULL, "redis", lm_rd_worker_close, lm_rd_connect_lua);
}
