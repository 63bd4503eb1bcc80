/* http_server.c - nginx and a fake HTTP server for the integration tests; see
 * http_server.h.  Blocking sockets, fork/exec, a thread: test code only. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "http_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "servers.h"

#define ECHO_MODULE "/usr/lib/nginx/modules/ngx_http_echo_module.so"

unsigned char test_large_byte(size_t i) { return (unsigned char)((i * 7 + (i >> 10)) & 0xff); }

static int write_file(const char *path, const void *data, size_t len) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t n = fwrite(data, 1, len, f);
    return fclose(f) == 0 && n == len ? 0 : -1;
}

static void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int write_config(const test_nginx *n, int port) {
    char path[256];
    snprintf(path, sizeof path, "%s/nginx.conf", n->dir);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    if (n->has_echo) fprintf(f, "load_module %s;\n", ECHO_MODULE);
    if (geteuid() == 0) fprintf(f, "user root;\n");
    fprintf(f,
            "worker_processes 1;\n"
            "error_log %1$s/error.log warn;\n"
            "pid %1$s/nginx.pid;\n"
            "events { worker_connections 1024; }\n"
            "http {\n"
            "  log_format lm '$connection $connection_requests $request $status';\n"
            "  access_log %1$s/access.log lm;\n"
            "  client_body_temp_path %1$s/tmp/body;\n"
            "  proxy_temp_path %1$s/tmp/proxy;\n"
            "  fastcgi_temp_path %1$s/tmp/fastcgi;\n"
            "  uwsgi_temp_path %1$s/tmp/uwsgi;\n"
            "  scgi_temp_path %1$s/tmp/scgi;\n"
            "  keepalive_requests 1000000;\n"
            "  keepalive_timeout 75s;\n"
            "  types { text/plain txt; application/octet-stream bin; }\n"
            "  server {\n"
            "    listen 127.0.0.1:%2$d;\n"
            "    root %1$s/www;\n"
            "    location = /hello { add_header X-Luamech yes; return 200 \"hello\"; }\n"
            "    location = /missing { return 404; }\n",
            n->dir, port);
    if (n->has_echo)
        fprintf(f, "    location = /echo { echo_read_request_body; "
                   "echo -n \"$request_method $http_x_test|\"; echo_request_body; }\n");
    fprintf(f, "  }\n}\n");
    return fclose(f);
}

int test_nginx_start(test_nginx *n) {
    memset(n, 0, sizeof n[0]);
    snprintf(n->dir, sizeof n->dir, "/tmp/luamech-nginx.XXXXXX");
    if (!mkdtemp(n->dir)) return -1;
    chmod(n->dir, 0755);
    char path[256];
    snprintf(path, sizeof path, "%s/www", n->dir);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/tmp", n->dir);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/www/small.txt", n->dir);
    if (write_file(path, TEST_NGINX_SMALL, strlen(TEST_NGINX_SMALL)) != 0) return -1;
    unsigned char *large = malloc(TEST_NGINX_LARGE_SIZE);
    for (size_t i = 0; i < TEST_NGINX_LARGE_SIZE; i++) large[i] = test_large_byte(i);
    snprintf(path, sizeof path, "%s/www/large.bin", n->dir);
    int rc = write_file(path, large, TEST_NGINX_LARGE_SIZE);
    free(large);
    if (rc != 0) return -1;
    n->has_echo = access(ECHO_MODULE, R_OK) == 0;
    for (int attempt = 0; attempt < 5; attempt++) {
        int port = test_free_port();
        if (port <= 0 || write_config(n, port) != 0) continue;
        char conf[256];
        snprintf(conf, sizeof conf, "%s/nginx.conf", n->dir);
        pid_t pid = fork();
        if (pid < 0) return -1;
        if (pid == 0) {
            execlp("nginx", "nginx", "-p", n->dir, "-c", conf, "-g", "daemon off;", (char *)NULL);
            _exit(127);
        }
        if (test_wait_port(port, 5000) == 0) {
            n->pid = pid;
            n->port = port;
            return 0;
        }
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
    }
    return -1;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st; (void)flag; (void)ftw;
    return remove(path);
}

void test_nginx_stop(test_nginx *n) {
    if (n->pid > 0) {
        kill(n->pid, SIGCONT);
        kill(n->pid, SIGTERM);
        waitpid(n->pid, NULL, 0);
        n->pid = 0;
    }
    if (n->dir[0]) {
        nftw(n->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        n->dir[0] = 0;
    }
}

int test_nginx_log(const test_nginx *n, const char *substr, int *requests, int *connections) {
    char path[256], line[2048];
    snprintf(path, sizeof path, "%s/access.log", n->dir);
    *requests = *connections = 0;
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    long *seen = NULL;
    int nseen = 0, cap = 0;
    while (fgets(line, sizeof line, f)) {
        if (substr && !strstr(line, substr)) continue;
        (*requests)++;
        long conn = strtol(line, NULL, 10);
        int found = 0;
        for (int i = 0; i < nseen && !found; i++) found = seen[i] == conn;
        if (found) continue;
        if (nseen == cap) {
            cap = cap ? cap * 2 : 64;
            seen = realloc(seen, (size_t)cap * sizeof *seen);
        }
        seen[nseen++] = conn;
    }
    fclose(f);
    free(seen);
    *connections = nseen;
    return 0;
}

int test_nginx_wait_log(const test_nginx *n, const char *substr, int requests, int timeout_ms,
                        int *got_requests, int *got_connections) {
    int rc = -1;
    for (int waited = 0; waited <= timeout_ms; waited += 20) {
        rc = test_nginx_log(n, substr, got_requests, got_connections);
        if (rc == 0 && *got_requests >= requests) break;
        sleep_ms(20);
    }
    sleep_ms(50);                          /* and nothing more arrives */
    return test_nginx_log(n, substr, got_requests, got_connections) == 0 ? 0 : rc;
}

/* ---- fake server ---- */

#define FAKE_MAX_PEERS 32

typedef struct fake_peer {
    int fd;
    size_t len;
    char buf[16384];
} fake_peer;

static void write_all(int fd, const char *s, size_t len) {
    while (len > 0) {
        ssize_t n = send(fd, s, len, MSG_NOSIGNAL);
        if (n <= 0) return;
        s += n;
        len -= (size_t)n;
    }
}

/* Length of the first complete request in buf, or 0. */
static size_t request_len(const char *buf, size_t len) {
    const char *end = memmem(buf, len, "\r\n\r\n", 4);
    if (!end) return 0;
    size_t head = (size_t)(end - buf) + 4, body = 0;
    for (const char *p = buf; p < end; p++) {
        if ((p == buf || p[-1] == '\n') && (size_t)(end - p) > 15 &&
            strncasecmp(p, "content-length:", 15) == 0)
            body = strtoul(p + 15, NULL, 10);
    }
    return len >= head + body ? head + body : 0;
}

static void fake_close_peer(test_fake_http *f, fake_peer *p) {
    close(p->fd);
    p->fd = -1;
    p->len = 0;
    atomic_fetch_sub(&f->open, 1);
}

/* Answer one request; 0 when the connection was closed. */
static int fake_answer(test_fake_http *f, fake_peer *p) {
    static const char chunked[] =
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Fake: chunked\r\n\r\n"
        "5;ext=1\r\nhello\r\n1\r\n \r\n5;a=\"b\";c\r\nworld\r\n0\r\nX-Trailer: yes\r\n\r\n";
    static const char close_each[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
    static const char mid_body[] = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial";
    static const char eof_body[] = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n" FAKE_EOF_BODY_TEXT;
    static const char garbage[] = "SPAM SPAM SPAM\r\n\r\n";
    switch (f->mode) {
    case FAKE_CHUNKED: write_all(p->fd, chunked, sizeof chunked - 1); return 1;
    case FAKE_SILENT: return 1;
    case FAKE_GARBAGE: write_all(p->fd, garbage, sizeof garbage - 1); return 1;
    case FAKE_CLOSE_EACH: write_all(p->fd, close_each, sizeof close_each - 1); break;
    case FAKE_CLOSE_MID_BODY: write_all(p->fd, mid_body, sizeof mid_body - 1); break;
    case FAKE_EOF_BODY: write_all(p->fd, eof_body, sizeof eof_body - 1); break;
    case FAKE_CLOSE_NO_REPLY: break;
    }
    fake_close_peer(f, p);
    return 0;
}

static void *fake_main(void *arg) {
    test_fake_http *f = arg;
    fake_peer *peers = calloc(FAKE_MAX_PEERS, sizeof *peers);
    for (int i = 0; i < FAKE_MAX_PEERS; i++) peers[i].fd = -1;
    while (!atomic_load(&f->stop)) {
        struct pollfd pfd[FAKE_MAX_PEERS + 1];
        int idx[FAKE_MAX_PEERS + 1], n = 0;
        pfd[n].fd = f->listen_fd;
        pfd[n].events = POLLIN;
        idx[n++] = -1;
        for (int i = 0; i < FAKE_MAX_PEERS; i++) {
            if (peers[i].fd < 0) continue;
            pfd[n].fd = peers[i].fd;
            pfd[n].events = POLLIN;
            idx[n++] = i;
        }
        if (poll(pfd, (nfds_t)n, 20) <= 0) continue;
        for (int k = 0; k < n; k++) {
            if (!(pfd[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            if (idx[k] < 0) {
                int fd = accept(f->listen_fd, NULL, NULL);
                if (fd < 0) continue;
                int slot = -1;
                for (int i = 0; i < FAKE_MAX_PEERS && slot < 0; i++) if (peers[i].fd < 0) slot = i;
                if (slot < 0) { close(fd); continue; }
                peers[slot].fd = fd;
                peers[slot].len = 0;
                atomic_fetch_add(&f->accepted, 1);
                atomic_fetch_add(&f->open, 1);
                continue;
            }
            fake_peer *p = &peers[idx[k]];
            if (p->len == sizeof p->buf) p->len = 0;       /* silent mode: drop old bytes */
            ssize_t r = recv(p->fd, p->buf + p->len, sizeof p->buf - p->len, 0);
            if (r <= 0) {
                fake_close_peer(f, p);
                continue;
            }
            p->len += (size_t)r;
            size_t rl;
            while (p->fd >= 0 && (rl = request_len(p->buf, p->len)) > 0) {
                atomic_fetch_add(&f->requests, 1);
                memmove(p->buf, p->buf + rl, p->len - rl);
                p->len -= rl;
                if (!fake_answer(f, p)) break;
            }
        }
    }
    for (int i = 0; i < FAKE_MAX_PEERS; i++) if (peers[i].fd >= 0) fake_close_peer(f, &peers[i]);
    free(peers);
    return NULL;
}

int test_fake_http_start(test_fake_http *f, fake_mode mode) {
    memset(f, 0, sizeof *f);
    f->mode = mode;
    f->listen_fd = socket(AF_INET, SOCK_STREAM, 0);
    if (f->listen_fd < 0) return -1;
    int one = 1;
    setsockopt(f->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (bind(f->listen_fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(f->listen_fd, 64) != 0 ||
        getsockname(f->listen_fd, (struct sockaddr *)&a, &len) != 0) {
        close(f->listen_fd);
        return -1;
    }
    f->port = ntohs(a.sin_port);
    if (pthread_create(&f->thread, NULL, fake_main, f) != 0) {
        close(f->listen_fd);
        return -1;
    }
    return 0;
}

void test_fake_http_stop(test_fake_http *f) {
    if (f->listen_fd <= 0) return;
    atomic_store(&f->stop, 1);
    pthread_join(f->thread, NULL);
    close(f->listen_fd);
    f->listen_fd = 0;
}
