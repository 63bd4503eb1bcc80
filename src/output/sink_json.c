/* sink_json.c - `--stream json=FILE|-`: the JSON lines (output_json.c)
 * written by a thread of their own, one write per event, so a reader sees
 * each interval as soon as it closed.  A reader that does not keep up
 * (a full pipe, a stalled disk) makes events drop, counted in lines and
 * reported at the end; the run never waits for it.  A FIFO is opened
 * without blocking: with no reader yet, luamech says so and waits for one
 * at most SINK_JSON_READER_MS, then refuses (a usage error: no load). */
#include "output/output_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SINK_JSON_QUEUE_BYTES (8u << 20)
#define SINK_JSON_CLOSE_MS 2000
#define SINK_JSON_READER_MS 10000

typedef struct sink_json {
    outq q;
    int fd;
    int failed;              /* a write failed: the rest is dropped */
    char target[1024];
    uv_thread_t thread;
} sink_json;

static int sink_json_write_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static void sink_json_thread(void *arg) {
    sink_json *s = arg;
    outq_item *it;
    while ((it = outq_pop(&s->q)) != NULL) {
        if (!s->failed && sink_json_write_all(s->fd, it->data, it->len) != 0) {
            s->failed = errno ? errno : EIO;
        }
        if (s->failed) {
            uv_mutex_lock(&s->q.mu);
            s->q.dropped += it->weight;
            uv_mutex_unlock(&s->q.mu);
        }
        free(it);
        outq_done(&s->q);
    }
}

static int64_t sink_json_lines(const char *p, size_t len) {
    int64_t n = 0;
    for (size_t i = 0; i < len; i++) n += p[i] == '\n';
    return n;
}

static void sink_json_event(void *self, const output_run *run, output_ev ev, int interval,
                            const char *lines, size_t len) {
    sink_json *s = self;
    (void)run, (void)ev, (void)interval;
    if (len) outq_push(&s->q, lines, len, sink_json_lines(lines, len));
}

static void sink_json_close(void *self) {
    sink_json *s = self;
    int drained = outq_close_wait(&s->q, SINK_JSON_CLOSE_MS, 0);
    int64_t dropped = outq_dropped(&s->q);
    if (s->failed) fprintf(stderr, "luamech: --stream json=%s: %s\n", s->target, strerror(s->failed));
    if (dropped > 0)
        fprintf(stderr, "luamech: --stream json=%s: %lld line(s) dropped (the reader did not keep up)\n",
                s->target, (long long)dropped);
    if (!drained) return;      /* the thread is stuck in a write: left to the process's end */
    uv_thread_join(&s->thread);
    if (s->fd >= 0) close(s->fd);
    outq_destroy(&s->q);
    free(s);
}

/* The file, or a FIFO once a reader has it open (ENXIO until then: retried
 * every 50 ms for SINK_JSON_READER_MS); blocking writes after.  The fd, or
 * -1 and the message in err. */
static int sink_json_open_path(const char *path, char *err, size_t err_len) {
    uint64_t until = uv_hrtime() + SINK_JSON_READER_MS * 1000000ull;
    int fd, said = 0;
    while ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NONBLOCK, 0644)) < 0 && errno == ENXIO &&
           uv_hrtime() < until) {
        if (!said++)
            fprintf(stderr, "luamech: --stream json=%s: a FIFO that no process reads yet: waiting up to %d s for a "
                    "reader\n", path, SINK_JSON_READER_MS / 1000);
        usleep(50000);
    }
    if (fd < 0 && errno == ENXIO) {
        snprintf(err, err_len, "--stream json=%s: no process opened the FIFO for reading within %d s (start the "
                 "reader first)", path, SINK_JSON_READER_MS / 1000);
        return -1;
    }
    if (fd < 0) {
        snprintf(err, err_len, "--stream json=%s: cannot open it: %s", path, strerror(errno));
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
        snprintf(err, err_len, "--stream json=%s: cannot make its writes blocking: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

int output_json_open(output_sink *out, const output_stream_cfg *c, char *err, size_t err_len) {
    sink_json *s = calloc(1, sizeof *s);
    if (!s || outq_init(&s->q, SINK_JSON_QUEUE_BYTES) != 0) {
        free(s);
        snprintf(err, err_len, "--stream json: out of memory");
        return -1;
    }
    snprintf(s->target, sizeof s->target, "%s", c->target);
    int is_stdout = strcmp(c->target, "-") == 0;
    s->fd = is_stdout ? dup(STDOUT_FILENO) : sink_json_open_path(c->target, err, err_len);
    if (s->fd < 0) {
        if (is_stdout) snprintf(err, err_len, "--stream json=-: cannot use standard output: %s", strerror(errno));
        outq_destroy(&s->q);
        free(s);
        return -1;
    }
    if (uv_thread_create(&s->thread, sink_json_thread, s) != 0) {
        snprintf(err, err_len, "--stream json=%s: cannot start its thread", c->target);
        close(s->fd);
        outq_destroy(&s->q);
        free(s);
        return -1;
    }
    *out = (output_sink){"json", s, sink_json_event, sink_json_close};
    return 0;
}
