/* fuzz_ws_proto.c - fuzz harness for the WebSocket parsers of
 * proto/ws_proto.c: the input is read as a stream of server frames
 * (ws_frame_parse, data frames through ws_msg_add's reassembly, close
 * payloads through ws_close_parse) and, separately, as a 101 response head
 * (ws_response_parse, ws_response_check).
 * Properties checked on any input: a frame never claims more bytes than it
 * was given and its payload lies inside them; every strict prefix of a
 * frame is "need more" (never an error, never another frame), and once its
 * header is complete the need-more says the frame's exact size; a
 * reassembled message never exceeds max_message and a text one is UTF-8; a
 * close code accepted is one that may be sent; a response head's length and
 * header values lie inside the input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/ws_proto.h"

#define FZ_WS_MAX 4096

static void fz_ws_inside(const char *p, size_t n, const char *lo, size_t span) {
    if (n == 0) return;
    if (p == NULL || p < lo || p + n > lo + span) abort();
}

static void fz_ws_prefixes(const char *buf, const ws_frame *whole, const ws_limits *lim) {
    for (size_t k = 0; k < whole->size && k < 64; k++) {
        ws_frame f;
        if (ws_frame_parse(buf, k, lim, &f) != WS_NEED_MORE) abort();
        if (f.size != 0 && f.size != whole->size) abort();
    }
}

static void fz_ws_control(const ws_frame *f) {
    if (f->opcode != WS_OP_CLOSE) return;
    int code;
    const char *reason;
    size_t rlen;
    if (ws_close_parse(f->payload, f->len, &code, &reason, &rlen) != 0) return;
    if (code != WS_CLOSE_NO_STATUS && !ws_close_code_ok(code)) abort();
    fz_ws_inside(reason, rlen, f->payload, f->len);
    if (!ws_utf8_ok(reason, rlen)) abort();
}

static int fz_ws_frames(const char *buf, size_t size) {
    ws_limits lim = {FZ_WS_MAX};
    ws_msg m = {0};
    size_t off = 0;
    while (off < size) {
        ws_frame f;
        int rc = ws_frame_parse(buf + off, size - off, &lim, &f);
        if (rc == WS_NEED_MORE) {
            if (f.size && f.size <= size - off) abort();
            break;
        }
        if (rc == WS_ERROR) {
            if (f.err == NULL || (f.close_code != WS_CLOSE_PROTOCOL && f.close_code != WS_CLOSE_TOO_BIG)) abort();
            break;
        }
        if (f.size > size - off || f.size < 2) abort();
        fz_ws_inside(f.payload, f.len, buf + off, f.size);
        if (f.len > FZ_WS_MAX) abort();
        fz_ws_prefixes(buf + off, &f, &lim);
        off += f.size;
        if (f.opcode & 8) {
            if (!f.fin || f.len > WS_CONTROL_MAX) abort();
            fz_ws_control(&f);
            continue;
        }
        const char *out, *why;
        size_t out_len;
        int op, code;
        int r = ws_msg_add(&m, &f, &lim, &out, &out_len, &op, &code, &why);
        if (r < 0) break;
        if (r == 1) {
            if (out_len > FZ_WS_MAX || (op != WS_OP_TEXT && op != WS_OP_BINARY)) abort();
            if (op == WS_OP_TEXT && !ws_utf8_ok(out, out_len)) abort();
        }
    }
    ws_msg_free(&m);
    return 0;
}

static void fz_ws_response(const char *buf, size_t size) {
    ws_response r;
    const char *why;
    char err[256], accept[WS_ACCEPT_LEN + 1];
    long n = ws_response_parse(buf, size, &r, &why);
    if (n < 0) {
        if (why == NULL) abort();
        return;
    }
    if ((size_t)n > size) abort();
    if (n == 0) return;
    fz_ws_inside(r.accept, r.accept_len, buf, (size_t)n);
    fz_ws_inside(r.protocol, r.protocol_len, buf, (size_t)n);
    fz_ws_inside(r.upgrade, r.upgrade_len, buf, (size_t)n);
    if (ws_accept_of("dGhlIHNhbXBsZSBub25jZQ==", 24, accept) != 0) abort();
    if (ws_response_check(&r, accept, "chat, superchat", err, sizeof err) == 0 && r.status != 101) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *buf = (const char *)data;
    fz_ws_frames(buf, size);
    fz_ws_response(buf, size);
    return 0;
}
