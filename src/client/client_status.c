/* The one status space of the protocol clients (client_status.h): the kinds'
 * texts, the mapping of the connection layer's statuses, and the message
 * made of a kind and a protocol's detail.  It knows no protocol's private
 * codes (each client maps its own) and keeps no state. */
#include "client/client_status.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <uv.h>

#include "net/conn.h"

const char *client_strerror(client_status s) {
    static const char *const names[CLIENT_STATUS_COUNT] = {
        [CLIENT_OK] = "ok",
        [CLIENT_DOWN] = "server down",
        [CLIENT_PROTOCOL] = "protocol error",
        [CLIENT_TIMEOUT] = "timeout",
        [CLIENT_CANCELLED] = "cancelled",
        [CLIENT_SETUP] = "setup refused",
        [CLIENT_BODY] = "over a size limit",
        [CLIENT_TLS] = "TLS error",
    };
    return (unsigned)s < CLIENT_STATUS_COUNT ? names[s] : "unknown status";
}

client_status client_status_of_net(int status) {
    switch (status) {
    case 0: return CLIENT_OK;
    case UV_ETIMEDOUT: return CLIENT_TIMEOUT;
    case UV_ECANCELED: return CLIENT_CANCELLED;
    case NET_ETLS: return CLIENT_TLS;
    case UV_EPROTONOSUPPORT: return CLIENT_SETUP;   /* the server does not speak the protocol (ALPN) */
    default: return CLIENT_DOWN;
    }
}

const char *client_describe(char *buf, size_t len, client_status s, const char *detail) {
    const char *kind = client_strerror(s);
    size_t klen = strlen(kind);
    if (!detail || !*detail) snprintf(buf, len, "%s", kind);
    else if (strncasecmp(detail, kind, klen) == 0) snprintf(buf, len, "%s", detail);
    else snprintf(buf, len, "%s: %s", kind, detail);
    return buf;
}
