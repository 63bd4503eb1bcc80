/* servers.c - start and stop real servers for the integration tests, and
 * set a test loop's I/O backend from LUAMECH_IO; see servers.h.  Blocking
 * sockets and fork/exec: test code only. */
#include "servers.h"
#include "net/uring.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int connect_local(int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0) return -1;
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) { close(fd); return -1; }
    return fd;
}

/* A port below the kernel's ephemeral range (32768-60999), so that no
 * client socket of a concurrently running test can hold it. */
int test_free_port(void) {
    static unsigned seed;
    if (!seed) seed = (unsigned)getpid() ^ (unsigned)time(NULL);
    for (int tries = 0; tries < 200; tries++) {
        int port = 10000 + (int)(rand_r(&seed) % 22000);
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (fd < 0) return -1;
        int ok = bind(fd, (struct sockaddr *)&a, sizeof a) == 0;
        close(fd);
        if (ok) return port;
    }
    return -1;
}

int test_wait_port(int port, int timeout_ms) {
    for (int waited = 0; waited <= timeout_ms; waited += 10) {
        int fd = connect_local(port);
        if (fd >= 0) { close(fd); return 0; }
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return -1;
}

/* The pid a memcached on `port` reports in its stats, or -1 when no
 * memcached answers there. */
static long memcached_pid_on(int port) {
    char buf[16384];
    if (test_raw_request(port, "stats\r\n", buf, sizeof buf, "END\r\n") <= 0) return -1;
    const char *p = strstr(buf, "STAT pid ");
    return p ? strtol(p + 9, NULL, 10) : -1;
}

int test_memcached_start(test_server *s, const char *const *extra) {
    for (int attempt = 0; attempt < 5; attempt++) {
        int port = test_free_port();
        char portstr[16];
        snprintf(portstr, sizeof portstr, "%d", port);
        const char *argv[32] = {"memcached", "-l", "127.0.0.1", "-p", portstr, "-U", "0",
                                "-t", "1", "-u", "root", NULL};
        int n = 11;
        for (int i = 0; extra && extra[i] && n < 30; i++) argv[n++] = extra[i];
        argv[n] = NULL;
        pid_t pid = fork();
        if (pid < 0) return -1;
        if (pid == 0) {
            execvp("memcached", (char *const *)argv);
            _exit(127);
        }
        /* The port was free when picked, but another test may bind it before
         * this memcached does; then this one exits and the port answers for
         * someone else's server.  Only our own child's pid will do. */
        if (test_wait_port(port, 3000) == 0 && memcached_pid_on(port) == (long)pid) {
            s->pid = pid;
            s->port = port;
            return 0;
        }
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
    }
    return -1;
}

void test_server_stop(test_server *s) {
    if (s->pid <= 0) return;
    kill(s->pid, SIGCONT);
    kill(s->pid, SIGTERM);
    waitpid(s->pid, NULL, 0);
    s->pid = 0;
}

int test_raw_request(int port, const char *req, char *buf, size_t cap, const char *until) {
    int fd = connect_local(port);
    size_t got = 0;
    if (fd < 0) return -1;
    struct timeval tv = {2, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (write(fd, req, strlen(req)) != (ssize_t)strlen(req)) { close(fd); return -1; }
    while (got + 1 < cap) {
        ssize_t r = read(fd, buf + got, cap - 1 - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
        buf[got] = 0;
        if (until && strstr(buf, until)) break;
    }
    buf[got] = 0;
    close(fd);
    return (int)got;
}

/* A stats read that fails says why on stderr and is tried again (3 times,
 * 100 ms apart): what the test counts is the server's, not this socket's. */
int64_t test_memcached_stat(int port, const char *name) {
    char buf[16384], pat[128];
    snprintf(pat, sizeof pat, "STAT %s ", name);
    for (int attempt = 0; attempt < 3; attempt++) {
        errno = 0;
        int got = test_raw_request(port, "stats\r\n", buf, sizeof buf, "END\r\n");
        const char *p = got > 0 ? strstr(buf, pat) : NULL;
        if (p) return strtoll(p + strlen(pat), NULL, 10);
        fprintf(stderr, "memcached on port %d: no '%s' in its stats (%d bytes: %.80s; %s)\n", port, name, got,
                got > 0 ? buf : "", strerror(errno));
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return -1;
}

int test_io_use(uv_loop_t *loop) {
    net_io_mode m;
    const char *v = getenv(NET_IO_ENV);
    if (net_io_parse(v, &m) != 0 || net_io_use(loop, m) != 0) {
        fprintf(stderr, "%s=%s: expected auto, uring or epoll\n", NET_IO_ENV, v ? v : "");
        abort();
    }
    return (int)m;
}
