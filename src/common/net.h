/* net.h - address resolution shared by the protocol clients. */
#ifndef LUAMECH_NET_H
#define LUAMECH_NET_H

#include <sys/socket.h>
#include <uv.h>

/* host (an IPv4/IPv6 literal or a name) and port into *out; names are
 * resolved synchronously (clients are created at init time, not per
 * request), IPv4 preferred.  Returns 0 or a negative libuv error. */
int net_resolve(uv_loop_t *loop, const char *host, int port, struct sockaddr_storage *out);
/* An IPv4/IPv6 literal and port into *out: 0, or UV_EINVAL for a name. */
int net_numeric(const char *host, int port, struct sockaddr_storage *out);
/* The address to use from a getaddrinfo list (the first IPv4 one, else the
 * first IPv6 one) with port, into *out: 0 or UV_EAI_FAMILY. */
int net_addr_pick(const struct addrinfo *list, int port, struct sockaddr_storage *out);

#endif
