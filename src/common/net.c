/* net.c - host:port to a socket address for the clients; see net.h. */
#include "common/net.h"

#include <netinet/in.h>
#include <string.h>

int net_resolve(uv_loop_t *loop, const char *host, int port, struct sockaddr_storage *out) {
    struct addrinfo hints, *ai, *pick = NULL;
    uv_getaddrinfo_t req;
    memset(out, 0, sizeof *out);
    if (uv_ip4_addr(host, port, (struct sockaddr_in *)out) == 0) return 0;
    if (uv_ip6_addr(host, port, (struct sockaddr_in6 *)out) == 0) return 0;
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    int rc = uv_getaddrinfo(loop, &req, NULL, host, NULL, &hints);
    if (rc < 0) return rc;
    for (ai = req.addrinfo; ai && !pick; ai = ai->ai_next)
        if (ai->ai_family == AF_INET) pick = ai;       /* prefer IPv4 */
    for (ai = req.addrinfo; ai && !pick; ai = ai->ai_next)
        if (ai->ai_family == AF_INET6) pick = ai;
    if (pick == NULL) rc = UV_EAI_FAMILY;
    else memcpy(out, pick->ai_addr, pick->ai_addrlen);
    uv_freeaddrinfo(req.addrinfo);
    if (rc < 0) return rc;
    if (out->ss_family == AF_INET) ((struct sockaddr_in *)out)->sin_port = htons((uint16_t)port);
    else ((struct sockaddr_in6 *)out)->sin6_port = htons((uint16_t)port);
    return 0;
}
