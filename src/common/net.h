/* net.h - address resolution shared by the protocol clients. */
#ifndef LUAMECH_NET_H
#define LUAMECH_NET_H

#include <sys/socket.h>
#include <uv.h>

/* host (an IPv4/IPv6 literal or a name) and port into *out; names are
 * resolved synchronously (clients are created at init time, not per
 * request), IPv4 preferred.  Returns 0 or a negative libuv error. */
int net_resolve(uv_loop_t *loop, const char *host, int port, struct sockaddr_storage *out);

#endif
