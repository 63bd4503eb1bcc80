/* client/life.h - when a client may be freed: it counts its open libuv
 * handles (timers, connections) and is freed by the close callback of the
 * last one once the owner has asked it to close.  The memcached and HTTP
 * clients share this and the two close callbacks below; the redis client
 * (one connection, one timer) uses the count directly.  Header-only; knows
 * no protocol, socket or Lua. */
#ifndef LUAMECH_CLIENT_LIFE_H
#define LUAMECH_CLIENT_LIFE_H

#include <assert.h>
#include <uv.h>

typedef struct client_life {
    unsigned nhandles;            /* open libuv handles */
    int closing;                  /* close was asked: freed when nhandles reaches 0 */
    void (*free_fn)(void *client);
    void *client;
} client_life;

static inline void client_life_init(client_life *l, void (*free_fn)(void *), void *client) {
    l->nhandles = 0;
    l->closing = 0;
    l->free_fn = free_fn;
    l->client = client;
}

/* One more handle (or a callback still owed) keeps the client. */
static inline void client_life_hold(client_life *l) { l->nhandles++; }

/* One handle closed: frees the client when it was the last and close was asked. */
static inline void client_life_release(client_life *l) {
    assert(l->nhandles > 0);      /* every release matches a hold */
    if (--l->nhandles == 0 && l->closing) l->free_fn(l->client);
}

/* The close callbacks for a connection (net_conn_cbs.on_closed: owner) or a
 * timer (uv_close: handle->data) whose owner struct begins with its client's
 * `client_life *` (mc_conn, http_conn). */
static inline void client_life_on_owner_closed(void *owner) {
    client_life_release(*(client_life **)owner);
}

static inline void client_life_on_handle_closed(uv_handle_t *h) {
    client_life_on_owner_closed(h->data);
}

#endif
