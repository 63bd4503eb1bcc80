/* ws_proto.c - WebSocket (RFC 6455) client-side encoding and parsing (see
 * ws_proto.h): URLs, the Upgrade request, the 101 response's head and its
 * check (OpenSSL's SHA-1 and base64 for Sec-WebSocket-Accept), masked client
 * frames, server frames parsed in place, fragment reassembly with a size
 * limit, UTF-8 and close payloads.  It does not touch sockets, keep a
 * connection's state (client/ws_client.c does) or know Lua.  Its only
 * allocation is ws_msg's buffer growth. */
#include "proto/ws_proto.h"
#include "proto/http_proto.h"
#include "common/grow.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- URLs ---- */

static int ws_port_parse(const char *p, size_t n, int *port) {
    long v = 0;
    if (n == 0 || n > 5) return -1;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9') return -1;
        v = v * 10 + (p[i] - '0');
    }
    if (v < 1 || v > 65535) return -1;
    *port = (int)v;
    return 0;
}

/* The authority a[0..n) into host and port. */
static int ws_authority_parse(const char *a, size_t n, ws_url *u, const char **why) {
    const char *colon = NULL;
    u->authority = a;
    u->authority_len = n;
    if (n && a[0] == '[') {
        const char *close = memchr(a, ']', n);
        if (!close) return *why = "unclosed '[' in the host", -1;
        u->host = a + 1;
        u->host_len = (size_t)(close - a - 1);
        if ((size_t)(close - a) + 1 < n) {
            if (close[1] != ':') return *why = "bad characters after ']'", -1;
            colon = close + 1;
        }
    } else {
        colon = memchr(a, ':', n);
        u->host = a;
        u->host_len = colon ? (size_t)(colon - a) : n;
    }
    if (u->host_len == 0 || u->host_len > 255) return *why = "empty or too long host", -1;
    for (size_t i = 0; i < u->host_len; i++) {
        unsigned char c = (unsigned char)u->host[i];
        if (c <= ' ' || c >= 127 || c == '@' || c == '/' || c == '?' || c == '#')
            return *why = "bad character in the host", -1;
    }
    if (colon && ws_port_parse(colon + 1, (size_t)(a + n - colon - 1), &u->port) != 0)
        return *why = "bad port (1-65535)", -1;
    return 0;
}

int ws_url_parse(const char *url, size_t len, ws_url *u, const char **why) {
    memset(u, 0, sizeof *u);
    size_t skip;
    if (len >= 5 && strncmp(url, "ws://", 5) == 0) skip = 5;
    else if (len >= 6 && strncmp(url, "wss://", 6) == 0) skip = 6, u->tls = 1;
    else return *why = "the URL must start with ws:// or wss://", -1;
    u->port = u->tls ? 443 : 80;
    const char *a = url + skip, *end = url + len, *p = a;
    while (p < end && *p != '/' && *p != '?') p++;
    if (ws_authority_parse(a, (size_t)(p - a), u, why) != 0) return -1;
    u->path = p < end ? p : "/";
    u->path_len = p < end ? (size_t)(end - p) : 1;
    if (u->path[0] == '?') return *why = "the query must follow a path ('/?...')", -1;
    if (memchr(u->path, '#', u->path_len)) return *why = "a WebSocket URL has no fragment", -1;
    if (!hp_path_valid(u->path, u->path_len)) return *why = "bad character in the path", -1;
    return 0;
}

/* ---- handshake ---- */

void ws_key_make(const uint8_t rnd[16], char out[WS_KEY_LEN + 1]) {
    EVP_EncodeBlock((unsigned char *)out, rnd, 16);
}

int ws_accept_of(const char *key, size_t key_len, char out[WS_ACCEPT_LEN + 1]) {
    static const char guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
    char buf[128];
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    if (key_len > sizeof buf - sizeof guid) return -1;
    memcpy(buf, key, key_len);
    memcpy(buf + key_len, guid, sizeof guid - 1);
    if (EVP_Digest(buf, key_len + sizeof guid - 1, md, &mdlen, EVP_sha1(), NULL) != 1 || mdlen != 20)
        return -1;
    EVP_EncodeBlock((unsigned char *)out, md, 20);
    return 0;
}

static int ws_ieq(const char *a, size_t n, const char *lit) {
    size_t m = strlen(lit);
    if (n != m) return 0;
    for (size_t i = 0; i < n; i++) {
        char c = a[i];
        if (c >= 'A' && c <= 'Z') c = (char)(c + 32);
        if (c != lit[i]) return 0;
    }
    return 1;
}

int ws_token_ok(const char *s, size_t len) { return hp_header_name_valid(s, len); }

int ws_header_ok(const ws_header *h) {
    static const char *const own[] = {"host", "upgrade", "connection", "content-length",
                                      "transfer-encoding", NULL};
    if (!hp_header_name_valid(h->name, h->name_len) || !hp_header_value_valid(h->value, h->value_len))
        return 0;
    if (h->name_len >= 14 && ws_ieq(h->name, 14, "sec-websocket-")) return 0;
    for (int i = 0; own[i]; i++)
        if (ws_ieq(h->name, h->name_len, own[i])) return 0;
    return 1;
}

/* Appends at *pos when it fits (the size is counted anyway). */
static void ws_put(char *out, size_t cap, size_t *pos, const char *s, size_t n) {
    if (*pos + n <= cap) memcpy(out + *pos, s, n);
    *pos += n;
}

#define WS_PUTS(s) ws_put(out, cap, &pos, s, sizeof(s) - 1)

size_t ws_request_build(char *out, size_t cap, const ws_request *r) {
    size_t pos = 0;
    for (size_t i = 0; i < r->nheaders; i++)
        if (!ws_header_ok(&r->headers[i])) return 0;
    WS_PUTS("GET ");
    ws_put(out, cap, &pos, r->url->path, r->url->path_len);
    WS_PUTS(" HTTP/1.1\r\nHost: ");
    ws_put(out, cap, &pos, r->url->authority, r->url->authority_len);
    WS_PUTS("\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ");
    ws_put(out, cap, &pos, r->key, WS_KEY_LEN);
    WS_PUTS("\r\nSec-WebSocket-Version: 13\r\n");
    if (r->protocols && *r->protocols) {
        WS_PUTS("Sec-WebSocket-Protocol: ");
        ws_put(out, cap, &pos, r->protocols, strlen(r->protocols));
        WS_PUTS("\r\n");
    }
    for (size_t i = 0; i < r->nheaders; i++) {
        const ws_header *h = &r->headers[i];
        ws_put(out, cap, &pos, h->name, h->name_len);
        WS_PUTS(": ");
        ws_put(out, cap, &pos, h->value, h->value_len);
        WS_PUTS("\r\n");
    }
    WS_PUTS("\r\n");
    return pos;
}

/* Trim spaces and tabs around v[0..*n). */
static const char *ws_trim(const char *v, size_t *n) {
    while (*n && (v[0] == ' ' || v[0] == '\t')) v++, (*n)--;
    while (*n && (v[*n - 1] == ' ' || v[*n - 1] == '\t')) (*n)--;
    return v;
}

static void ws_resp_header(ws_response *r, const char *name, size_t nl, const char *v, size_t vl) {
    static const struct { const char *name; size_t off, len_off; } known[] = {
        {"sec-websocket-accept", offsetof(ws_response, accept), offsetof(ws_response, accept_len)},
        {"sec-websocket-protocol", offsetof(ws_response, protocol), offsetof(ws_response, protocol_len)},
        {"sec-websocket-extensions", offsetof(ws_response, extensions),
         offsetof(ws_response, extensions_len)},
        {"upgrade", offsetof(ws_response, upgrade), offsetof(ws_response, upgrade_len)},
        {"connection", offsetof(ws_response, connection), offsetof(ws_response, connection_len)},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        if (!ws_ieq(name, nl, known[i].name)) continue;
        const char **val = (const char **)((char *)r + known[i].off);
        if (*val == NULL) {             /* the first one counts */
            *val = v;
            *(size_t *)((char *)r + known[i].len_off) = vl;
        }
        return;
    }
}

/* One header line l[0..n) (no CRLF). */
static int ws_resp_line(ws_response *r, const char *l, size_t n, const char **why) {
    const char *colon = memchr(l, ':', n);
    if (colon == NULL || colon == l) return *why = "malformed header line in the response", -1;
    size_t nl = (size_t)(colon - l), vl = n - nl - 1;
    if (!hp_header_name_valid(l, nl)) return *why = "bad header name in the response", -1;
    const char *v = ws_trim(colon + 1, &vl);
    for (size_t i = 0; i < vl; i++)
        if (v[i] == 0 || v[i] == '\r' || v[i] == '\n') return *why = "bad header value in the response", -1;
    ws_resp_header(r, l, nl, v, vl);
    return 0;
}

/* "HTTP/1.x NNN reason" */
static int ws_status_line(ws_response *r, const char *l, size_t n, const char **why) {
    if (n < 12 || memcmp(l, "HTTP/1.", 7) != 0 || (l[7] != '0' && l[7] != '1') || l[8] != ' ' ||
        l[9] < '1' || l[9] > '5' || l[10] < '0' || l[10] > '9' || l[11] < '0' || l[11] > '9' ||
        (n > 12 && l[12] != ' '))
        return *why = "not an HTTP/1.1 status line", -1;
    r->status = (l[9] - '0') * 100 + (l[10] - '0') * 10 + (l[11] - '0');
    return 0;
}

long ws_response_parse(const char *p, size_t n, ws_response *r, const char **why) {
    memset(r, 0, sizeof *r);
    size_t lim = n < WS_HANDSHAKE_MAX ? n : WS_HANDSHAKE_MAX, pos = 0;
    int line = 0;
    while (pos < lim) {
        const char *nl = memchr(p + pos, '\n', lim - pos);
        if (nl == NULL) break;
        size_t end = (size_t)(nl - p), ln = end - pos;
        if (ln == 0 || p[end - 1] != '\r') return *why = "a response line not ended by CRLF", -1;
        ln--;
        if (ln == 0) {
            if (line == 0) return *why = "empty status line", -1;
            return (long)(end + 1);
        }
        int rc = line == 0 ? ws_status_line(r, p + pos, ln, why) : ws_resp_line(r, p + pos, ln, why);
        if (rc != 0) return -1;
        line++;
        pos = end + 1;
    }
    if (n >= WS_HANDSHAKE_MAX) return *why = "the response head is over 16 KB", -1;
    return 0;
}

/* 1 when the comma-separated list v[0..n) has an element equal to tok
 * (case-insensitively). */
static int ws_list_has(const char *v, size_t n, const char *tok) {
    size_t i = 0;
    while (i <= n) {
        size_t j = i;
        while (j < n && v[j] != ',') j++;
        size_t el = j - i;
        const char *e = ws_trim(v + i, &el);
        if (ws_ieq(e, el, tok)) return 1;
        i = j + 1;
    }
    return 0;
}

/* 1 when protocol p[0..n) is one of the offered list (exact compare). */
static int ws_offered(const char *offered, const char *p, size_t n) {
    const char *s = offered;
    while (s && *s) {
        while (*s == ' ' || *s == ',') s++;
        size_t el = strcspn(s, ", ");
        if (el == n && el && memcmp(s, p, n) == 0) return 1;
        s += el;
    }
    return 0;
}

int ws_response_check(const ws_response *r, const char *accept, const char *offered, char *err,
                      size_t err_len) {
    if (r->status != 101) {
        snprintf(err, err_len, "handshake: the server answered %d, not 101 Switching Protocols",
                 r->status);
        return -1;
    }
    if (!r->upgrade || !ws_list_has(r->upgrade, r->upgrade_len, "websocket")) {
        snprintf(err, err_len, "handshake: no 'Upgrade: websocket' in the 101 response");
        return -1;
    }
    if (!r->connection || !ws_list_has(r->connection, r->connection_len, "upgrade")) {
        snprintf(err, err_len, "handshake: no 'Connection: Upgrade' in the 101 response");
        return -1;
    }
    if (!r->accept || r->accept_len != WS_ACCEPT_LEN || memcmp(r->accept, accept, WS_ACCEPT_LEN) != 0) {
        (void)accept;                   /* the values differ per key: not in the message */
        snprintf(err, err_len, "handshake: %s Sec-WebSocket-Accept", r->accept ? "wrong" : "no");
        return -1;
    }
    if (r->extensions && r->extensions_len) {
        snprintf(err, err_len, "handshake: the server chose an extension luamech did not offer (%.*s)",
                 (int)(r->extensions_len > 60 ? 60 : r->extensions_len), r->extensions);
        return -1;
    }
    if (r->protocol && !ws_offered(offered, r->protocol, r->protocol_len)) {
        snprintf(err, err_len, "handshake: the server chose a subprotocol that was not offered (%.*s)",
                 (int)(r->protocol_len > 60 ? 60 : r->protocol_len), r->protocol);
        return -1;
    }
    return 0;
}

/* ---- frames ---- */

void ws_mask(char *p, size_t n, const uint8_t mask[4], size_t off) {
    size_t i = 0;
    off &= 3;
    for (; i < n && ((i + off) & 3); i++) p[i] ^= (char)mask[(i + off) & 3];
    if (i + 8 <= n) {
        uint8_t m8[8];
        for (int k = 0; k < 8; k++) m8[k] = mask[(i + off + (size_t)k) & 3];
        uint64_t m;
        memcpy(&m, m8, 8);
        for (; i + 8 <= n; i += 8) {
            uint64_t x;
            memcpy(&x, p + i, 8);
            x ^= m;
            memcpy(p + i, &x, 8);
        }
    }
    for (; i < n; i++) p[i] ^= (char)mask[(i + off) & 3];
}

size_t ws_frame_build(char *out, int opcode, const void *p, size_t len, const uint8_t mask[4]) {
    unsigned char *o = (unsigned char *)out;
    size_t h = 2;
    o[0] = (unsigned char)(0x80 | (opcode & 0x0F));
    if (len <= 125) {
        o[1] = (unsigned char)(0x80 | len);
    } else if (len <= 65535) {
        o[1] = 0x80 | 126;
        o[2] = (unsigned char)(len >> 8);
        o[3] = (unsigned char)len;
        h = 4;
    } else {
        o[1] = 0x80 | 127;
        for (int i = 0; i < 8; i++) o[2 + i] = (unsigned char)((uint64_t)len >> (56 - 8 * i));
        h = 10;
    }
    memcpy(o + h, mask, 4);
    h += 4;
    if (len) {
        memcpy(o + h, p, len);
        ws_mask(out + h, len, mask, 0);
    }
    return h + len;
}

static int ws_frame_err(ws_frame *f, int code, const char *why) {
    f->close_code = code;
    f->err = why;
    return WS_ERROR;
}

int ws_frame_parse(const char *p, size_t n, const ws_limits *lim, ws_frame *f) {
    const unsigned char *u = (const unsigned char *)p;
    memset(f, 0, sizeof *f);
    if (n < 2) return WS_NEED_MORE;
    f->fin = u[0] >> 7;
    f->opcode = u[0] & 0x0F;
    if (u[0] & 0x70) return ws_frame_err(f, WS_CLOSE_PROTOCOL, "reserved bits set (no extension was negotiated)");
    int control = f->opcode & 0x08;
    if ((f->opcode > WS_OP_BINARY && !control) || f->opcode > WS_OP_PONG)
        return ws_frame_err(f, WS_CLOSE_PROTOCOL, "unknown opcode");
    if (u[1] & 0x80) return ws_frame_err(f, WS_CLOSE_PROTOCOL, "a masked frame from the server");
    uint64_t len = u[1] & 0x7F;
    size_t h = 2;
    if (control && (!f->fin || len > WS_CONTROL_MAX))
        return ws_frame_err(f, WS_CLOSE_PROTOCOL, "a fragmented or long control frame");
    if (len == 126) {
        if (n < 4) return WS_NEED_MORE;
        len = (uint64_t)u[2] << 8 | u[3];
        h = 4;
        if (len < 126) return ws_frame_err(f, WS_CLOSE_PROTOCOL, "a length not in its shortest form");
    } else if (len == 127) {
        if (n < 10) return WS_NEED_MORE;
        len = 0;
        for (int i = 0; i < 8; i++) len = len << 8 | u[2 + i];
        h = 10;
        if (len >> 63) return ws_frame_err(f, WS_CLOSE_PROTOCOL, "a length with its top bit set");
        if (len < 65536) return ws_frame_err(f, WS_CLOSE_PROTOCOL, "a length not in its shortest form");
    }
    if (len > lim->max_message) return ws_frame_err(f, WS_CLOSE_TOO_BIG, "a frame over max_message");
    f->size = h + (size_t)len;
    if (n < f->size) return WS_NEED_MORE;
    f->payload = p + h;
    f->len = (size_t)len;
    return WS_FRAME;
}

/* ---- messages ---- */

void ws_msg_free(ws_msg *m) {
    free(m->buf);
    memset(m, 0, sizeof *m);
}

static int ws_msg_err(int *code, const char **why, int c, const char *w) {
    *code = c;
    *why = w;
    return -1;
}

/* Append f's payload to m; 0 or -1 (out of memory). */
static int ws_msg_append(ws_msg *m, const char *p, size_t n) {
    if (n == 0) return 0;               /* an empty fragment (buf may still be NULL) */
    if (grow_room(&m->buf, &m->cap, m->len, n, 4096, SIZE_MAX) != 0) return -1;
    memcpy(m->buf + m->len, p, n);
    m->len += n;
    return 0;
}

int ws_msg_add(ws_msg *m, const ws_frame *f, const ws_limits *lim, const char **out,
               size_t *out_len, int *opcode, int *close_code, const char **why) {
    if (f->opcode == WS_OP_CONT) {
        if (m->opcode == 0) return ws_msg_err(close_code, why, WS_CLOSE_PROTOCOL, "a continuation frame outside a message");
        if ((uint64_t)m->len + f->len > lim->max_message)
            return ws_msg_err(close_code, why, WS_CLOSE_TOO_BIG, "a fragmented message over max_message");
        if (ws_msg_append(m, f->payload, f->len) != 0)
            return ws_msg_err(close_code, why, WS_CLOSE_TOO_BIG, "out of memory");
        if (!f->fin) return 0;
        *out = m->buf;
        *out_len = m->len;
        *opcode = m->opcode;
        m->opcode = 0;
        m->len = 0;
    } else {
        if (m->opcode != 0) return ws_msg_err(close_code, why, WS_CLOSE_PROTOCOL, "a new message inside a fragmented one");
        if (!f->fin) {
            m->opcode = f->opcode;
            m->len = 0;
            if (ws_msg_append(m, f->payload, f->len) != 0)
                return ws_msg_err(close_code, why, WS_CLOSE_TOO_BIG, "out of memory");
            return 0;
        }
        *out = f->payload;
        *out_len = f->len;
        *opcode = f->opcode;
    }
    if (*opcode == WS_OP_TEXT && !ws_utf8_ok(*out, *out_len))
        return ws_msg_err(close_code, why, WS_CLOSE_BAD_DATA, "a text message that is not UTF-8");
    return 1;
}

int ws_utf8_ok(const char *s, size_t n) {
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        while (i + 8 <= n) {            /* ASCII runs 8 bytes at a time */
            uint64_t x;
            memcpy(&x, p + i, 8);
            if (x & 0x8080808080808080ull) break;
            i += 8;
        }
        if (i >= n) break;
        unsigned c = p[i];
        if (c < 0x80) { i++; continue; }
        size_t k;
        unsigned lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) k = 1;
        else if (c >= 0xE0 && c <= 0xEF) {
            k = 2;
            if (c == 0xE0) lo = 0xA0;
            if (c == 0xED) hi = 0x9F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            k = 3;
            if (c == 0xF0) lo = 0x90;
            if (c == 0xF4) hi = 0x8F;
        } else return 0;
        if (n - i <= k) return 0;
        if (p[i + 1] < lo || p[i + 1] > hi) return 0;
        for (size_t j = 2; j <= k; j++)
            if ((p[i + j] & 0xC0) != 0x80) return 0;
        i += k + 1;
    }
    return 1;
}

int ws_close_code_ok(int code) {
    return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) ||
           (code >= 3000 && code <= 4999);
}

int ws_close_parse(const char *p, size_t n, int *code, const char **reason, size_t *reason_len) {
    *reason = "";
    *reason_len = 0;
    if (n == 0) {
        *code = WS_CLOSE_NO_STATUS;
        return 0;
    }
    if (n == 1) return -1;
    *code = (unsigned char)p[0] << 8 | (unsigned char)p[1];
    if (!ws_close_code_ok(*code)) return -1;
    *reason = p + 2;
    *reason_len = n - 2;
    return ws_utf8_ok(*reason, *reason_len) ? 0 : -1;
}
