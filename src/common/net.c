/* net.c - host:port to a socket address for the clients (a literal, a
 * synchronous lookup, or the pick from an asynchronous one); see net.h. */
#include "common/net.h"

#include <netinet/in.h>
#include <string.h>

int net_addr_pick(const struct addrinfo *list, int port, struct sockaddr_storage *out) {
    const struct addrinfo *ai, *pick = NULL;
    for (ai = list; ai && !pick; ai = ai->ai_next)
        if (ai->ai_family == AF_INET) pick = ai;       /* prefer IPv4 */
    for (ai = list; ai && !pick; ai = ai->ai_next)
        if (ai->ai_family == AF_INET6) pick = ai;
    if (pick == NULL || pick->ai_addrlen > sizeof *out) return UV_EAI_FAMILY;
    memset(out, 0, sizeof *out);
    memcpy(out, pick->ai_addr, pick->ai_addrlen);
    if (out->ss_family == AF_INET) ((struct sockaddr_in *)out)->sin_port = htons((uint16_t)port);
    else ((struct sockaddr_in6 *)out)->sin6_port = htons((uint16_t)port);
    return 0;
}

int net_numeric(const char *host, int port, struct sockaddr_storage *out) {
    memset(out, 0, sizeof *out);
    if (uv_ip4_addr(host, port, (struct sockaddr_in *)out) == 0) return 0;
    if (uv_ip6_addr(host, port, (struct sockaddr_in6 *)out) == 0) return 0;
    return UV_EINVAL;
}

int net_resolve(uv_loop_t *loop, const char *host, int port, struct sockaddr_storage *out) {
    struct addrinfo hints;
    uv_getaddrinfo_t req;
    if (net_numeric(host, port, out) == 0) return 0;
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    int rc = uv_getaddrinfo(loop, &req, NULL, host, NULL, &hints);
    if (rc < 0) return rc;
    rc = net_addr_pick(req.addrinfo, port, out);
    uv_freeaddrinfo(req.addrinfo);
    return rc;
}
