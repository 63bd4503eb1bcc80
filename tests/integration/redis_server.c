/* redis_server.c - start redis-server for the integration tests and read
 * INFO commandstats; see redis_server.h.  Blocking sockets and fork/exec:
 * test code only. */
#include "redis_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int redis_connect_local(int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    struct timeval tv = {2, 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0) return -1;
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) { close(fd); return -1; }
    return fd;
}

static int redis_write_all(int fd, const char *p) {
    size_t n = strlen(p);
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w <= 0) return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Read one reply line ("+PONG", "-ERR ...", "$123") into buf. */
static int redis_read_line(int fd, char *buf, size_t cap) {
    size_t n = 0;
    while (n + 1 < cap) {
        if (read(fd, buf + n, 1) != 1) return -1;
        if (buf[n] == '\n') { buf[n > 0 && buf[n - 1] == '\r' ? n - 1 : n] = 0; return 0; }
        n++;
    }
    return -1;
}

static int redis_ping_once(int port) {
    char line[256];
    int fd = redis_connect_local(port);
    if (fd < 0) return -1;
    int ok = redis_write_all(fd, "PING\r\n") == 0 && redis_read_line(fd, line, sizeof line) == 0 &&
             (strcmp(line, "+PONG") == 0 || strncmp(line, "-NOAUTH", 7) == 0);
    close(fd);
    return ok ? 0 : -1;
}

int test_redis_wait(int port, int timeout_ms) {
    for (int waited = 0; waited <= timeout_ms; waited += 10) {
        if (redis_ping_once(port) == 0) return 0;
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return -1;
}

static pid_t redis_spawn(int port, const char *const *extra) {
    char portstr[16];
    snprintf(portstr, sizeof portstr, "%d", port);
    const char *argv[40] = {"redis-server", "--port", portstr, "--bind", "127.0.0.1", "--save", "",
                            "--appendonly", "no", "--daemonize", "no", NULL};
    int n = 11;
    for (int i = 0; extra && extra[i] && n < 38; i++) argv[n++] = extra[i];
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) { dup2(null, 1); dup2(null, 2); }
        execvp("redis-server", (char *const *)argv);
        _exit(127);
    }
    return pid;
}

static char *redis_read_bulk(int fd, const char *line);

/* 1 when the redis on port is the process pid (INFO's process_id), or
 * when it cannot tell (a password is required); 0 for another server: a
 * port picked free may be bound by another test's server first. */
static int redis_is_ours(int port, pid_t pid) {
    char line[512], pat[64];
    int fd = redis_connect_local(port), ours = 0;
    if (fd < 0) return 0;
    if (redis_write_all(fd, "INFO server\r\n") == 0 && redis_read_line(fd, line, sizeof line) == 0) {
        if (strncmp(line, "-NOAUTH", 7) == 0) ours = 1;
        char *info = line[0] == '$' ? redis_read_bulk(fd, line) : NULL;
        snprintf(pat, sizeof pat, "process_id:%ld\r\n", (long)pid);
        if (info && strstr(info, pat)) ours = 1;
        free(info);
    }
    close(fd);
    return ours;
}

int test_redis_start_port(test_server *s, int port, const char *const *extra) {
    pid_t pid = redis_spawn(port, extra);
    if (pid < 0) return -1;
    if (test_redis_wait(port, 5000) == 0 && waitpid(pid, NULL, WNOHANG) == 0 && redis_is_ours(port, pid)) {
        s->pid = pid;
        s->port = port;
        return 0;
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return -1;
}

int test_redis_start(test_server *s, const char *const *extra) {
    for (int attempt = 0; attempt < 5; attempt++) {
        int port = test_free_port();
        if (port > 0 && test_redis_start_port(s, port, extra) == 0) return 0;
    }
    return -1;
}

/* Read a bulk reply whose header line is `line` ("$n"); NUL-terminated. */
static char *redis_read_bulk(int fd, const char *line) {
    long len = line[0] == '$' ? strtol(line + 1, NULL, 10) : -1;
    if (len < 0 || len > (1 << 24)) return NULL;
    char *body = malloc((size_t)len + 3);
    size_t got = 0;
    while (body && got < (size_t)len + 2) {
        ssize_t r = read(fd, body + got, (size_t)len + 2 - got);
        if (r <= 0) { free(body); return NULL; }
        got += (size_t)r;
    }
    if (body) body[len] = 0;
    return body;
}

static char *redis_info(int port, const char *password) {
    char req[512], line[512];
    int fd = redis_connect_local(port);
    if (fd < 0) return NULL;
    char *info = NULL;
    if (password) snprintf(req, sizeof req, "AUTH %s\r\nINFO commandstats\r\n", password);
    else snprintf(req, sizeof req, "INFO commandstats\r\n");
    if (redis_write_all(fd, req) == 0 && redis_read_line(fd, line, sizeof line) == 0 &&
        (!password || (line[0] == '+' && redis_read_line(fd, line, sizeof line) == 0)))
        info = redis_read_bulk(fd, line);
    close(fd);
    return info;
}

int64_t test_redis_cmdstat(int port, const char *password, const char *cmd) {
    char pat[128];
    char *info = redis_info(port, password);
    if (info == NULL) return -1;
    snprintf(pat, sizeof pat, "cmdstat_%s:calls=", cmd);
    const char *p = strstr(info, pat);
    int64_t calls = p ? strtoll(p + strlen(pat), NULL, 10) : 0;
    free(info);
    return calls;
}
