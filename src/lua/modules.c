/* modules.c - the table of luamech's Lua modules (the protocols, json,
 * url, ...) opened in every worker's Lua state, and the timers and counters
 * they name by themselves (thresholds check subjects against them before
 * any load).
 * Adding a protocol adds one line here. */
#include <stdio.h>
#include <string.h>

#include "lua/lm_core.h"
#include "lua/lm_json.h"
#include "lua/lm_pb.h"
#include "lua/lm_url.h"
#include "proto/grpc_frame.h"

void lm_builtin_timers(lm_name_fn fn, void *ctx) {
    lm_http_timer_names(fn, ctx);
    lm_mc_timer_names(fn, ctx);
    fn(ctx, "redis.pipeline");
    fn(ctx, "redis.tls");
    lm_ws_timer_names(fn, ctx);
    fn(ctx, "grpc");                /* every gRPC call (lm_grpc.c) */
    fn(ctx, "grpc.tls");
}

void lm_builtin_counters(lm_name_fn fn, void *ctx) {
    static const char *const tls[] = {"http", "memcached", "redis", "ws", "grpc"};   /* lm_tls.c's */
    static const char *const more[] = {"redis.cluster.moved", "redis.cluster.ask", "ws.messages_sent",
                                       "ws.messages_received", "grpc.stream.messages_sent",
                                       "grpc.stream.messages_received", "grpc.status.OTHER", "grpc.retries"};
    char name[64];
    lm_http_counter_names(fn, ctx);
    for (size_t i = 0; i < sizeof tls / sizeof *tls; i++) {
        snprintf(name, sizeof name, "%s.tls_resumed", tls[i]);
        fn(ctx, name);
    }
    for (size_t i = 0; i < sizeof more / sizeof *more; i++) fn(ctx, more[i]);
    for (int code = 0; code <= 16; code++) {        /* lm_grpc.c's grpc.status.<NAME> */
        snprintf(name, sizeof name, "grpc.status.%s", grpc_status_name(code));
        fn(ctx, name);
    }
}

int lm_builtin_closed(const char *name) {
    return strcmp(name, "http") == 0 || strncmp(name, "http.", 5) == 0 || strncmp(name, "memcached.", 10) == 0 ||
           strncmp(name, "ws.", 3) == 0 || strcmp(name, "grpc") == 0 || strncmp(name, "grpc.", 5) == 0;
}

const lm_module lm_modules[] = {
    {"memcached", lm_memcached_open, NULL},
    {"redis", lm_redis_open, NULL},
    {"http", lm_http_open, NULL},
    {"ws", lm_ws_open, NULL},
    {"json", lm_json_open, NULL},
    {"grpc", lm_grpc_open, NULL},
    {"protobuf", lm_protobuf_open, NULL},
    {"url", NULL, lm_url_fns},
    {NULL, NULL, NULL},
};
