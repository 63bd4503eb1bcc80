/* redis_uv.c - hiredis async event hooks on libuv (see redis_uv.h).
 *
 * Why not hiredis's own libuv adapter: it restarts the uv_poll handle on
 * every hook call, and libuv's uv_poll_start unregisters and re-registers the
 * socket with epoll, so hiredis's R -> RW -> R per command cost four
 * epoll_ctl calls - a third of the generator's CPU in a redis benchmark.
 * Here, once the context is connected, addWrite only schedules a flush: a
 * uv_prepare handle calls redisAsyncHandleWrite just before the loop next
 * polls (libuv computes the poll timeout after the prepare phase, so nothing
 * waits), and all commands queued since leave in one write.  Only a partial write asks the poll for writability.  While
 * connecting, writability is how hiredis learns that connect() finished, so
 * there the poll is used as the adapter does.  A poll error (a refused
 * connect, a reset) is handed to hiredis as the events it waited for, so it
 * reads the socket error (hiredis 0.14's adapter drops such errors).
 *
 * It does not own the context: hiredis calls the cleanup hook when it frees
 * the context; the handles are closed then and the hooks freed once libuv has
 * closed both. */
#include "client/redis_uv.h"

#include <stdlib.h>

typedef struct redis_uv {
    redisAsyncContext *ac;   /* NULL once hiredis cleaned up */
    uv_poll_t poll;
    uv_prepare_t flush;
    int events;              /* UV_READABLE | UV_WRITABLE the poll watches */
    int in_flush;            /* inside redis_uv_on_flush */
    int open_handles;        /* handles not closed yet (freed at 0) */
} redis_uv;

static void redis_uv_on_poll(uv_poll_t *h, int status, int events) {
    redis_uv *u = h->data;
    int ev = status < 0 ? u->events : events;
    if (u->ac != NULL && (ev & UV_READABLE)) redisAsyncHandleRead(u->ac);
    if (u->ac != NULL && (ev & UV_WRITABLE)) redisAsyncHandleWrite(u->ac);
}

/* The poll is only restarted when the mask changes (each uv_poll_start is an
 * epoll DEL + ADD). */
static void redis_uv_watch(redis_uv *u, int events) {
    if (events == u->events) return;
    u->events = events;
    if (events) uv_poll_start(&u->poll, events, redis_uv_on_poll);
    else uv_poll_stop(&u->poll);
}

static void redis_uv_on_flush(uv_prepare_t *h) {
    redis_uv *u = h->data;
    uv_prepare_stop(h);
    if (u->ac == NULL) return;
    u->in_flush = 1;
    redisAsyncHandleWrite(u->ac);   /* may free the context: u survives */
    u->in_flush = 0;
}

static void redis_uv_add_read(void *pd) { redis_uv *u = pd; redis_uv_watch(u, u->events | UV_READABLE); }
static void redis_uv_del_read(void *pd) { redis_uv *u = pd; redis_uv_watch(u, u->events & ~UV_READABLE); }
static void redis_uv_del_write(void *pd) { redis_uv *u = pd; redis_uv_watch(u, u->events & ~UV_WRITABLE); }

static void redis_uv_add_write(void *pd) {
    redis_uv *u = pd;
    int connected = u->ac != NULL && (u->ac->c.flags & REDIS_CONNECTED);
    if (!connected || u->in_flush || (u->events & UV_WRITABLE)) {
        redis_uv_watch(u, u->events | UV_WRITABLE);   /* connecting, or a partial write */
        return;
    }
    if (!uv_is_active((uv_handle_t *)&u->flush)) uv_prepare_start(&u->flush, redis_uv_on_flush);
}

static void redis_uv_on_close(uv_handle_t *h) {
    redis_uv *u = h->data;
    if (--u->open_handles == 0) free(u);
}

static void redis_uv_cleanup(void *pd) {
    redis_uv *u = pd;
    u->ac = NULL;
    uv_poll_stop(&u->poll);
    uv_prepare_stop(&u->flush);
    uv_close((uv_handle_t *)&u->poll, redis_uv_on_close);
    uv_close((uv_handle_t *)&u->flush, redis_uv_on_close);
}

int redis_uv_attach(redisAsyncContext *ac, uv_loop_t *loop) {
    if (ac->ev.data != NULL) return -1;
    redis_uv *u = calloc(1, sizeof *u);
    if (u == NULL) return -1;
    if (uv_poll_init(loop, &u->poll, ac->c.fd) != 0) {
        free(u);
        return -1;
    }
    uv_prepare_init(loop, &u->flush);
    u->ac = ac;
    u->poll.data = u;
    u->flush.data = u;
    u->open_handles = 2;
    ac->ev.data = u;
    ac->ev.addRead = redis_uv_add_read;
    ac->ev.delRead = redis_uv_del_read;
    ac->ev.addWrite = redis_uv_add_write;
    ac->ev.delWrite = redis_uv_del_write;
    ac->ev.cleanup = redis_uv_cleanup;
    return 0;
}
