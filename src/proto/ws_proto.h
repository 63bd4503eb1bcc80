/* ws_proto.h - WebSocket (RFC 6455), client side, pure code: ws:// and
 * wss:// URLs, the HTTP/1.1 Upgrade request and the check of the server's
 * 101 response (Sec-WebSocket-Accept computed with OpenSSL's SHA-1 and
 * base64), client frames built masked into a caller buffer, server frames
 * parsed in place with RFC 6455's rules and size limits, fragments
 * reassembled into a buffer the caller keeps, close frames' payloads.
 * Nothing here touches sockets or knows Lua; the only allocation is the
 * growth of a reassembly buffer (kept from one message to the next). */
#ifndef LUAMECH_WS_PROTO_H
#define LUAMECH_WS_PROTO_H

#include <stddef.h>
#include <stdint.h>

/* Opcodes. */
enum {
    WS_OP_CONT = 0x0, WS_OP_TEXT = 0x1, WS_OP_BINARY = 0x2,
    WS_OP_CLOSE = 0x8, WS_OP_PING = 0x9, WS_OP_PONG = 0xA
};

/* Close codes luamech sends or reports itself. */
enum {
    WS_CLOSE_NORMAL = 1000, WS_CLOSE_GOING_AWAY = 1001, WS_CLOSE_PROTOCOL = 1002,
    WS_CLOSE_NO_STATUS = 1005,      /* reported: a close frame without a code */
    WS_CLOSE_ABNORMAL = 1006,       /* reported: the connection ended without a close frame */
    WS_CLOSE_BAD_DATA = 1007,       /* text that is not UTF-8 */
    WS_CLOSE_TOO_BIG = 1009
};

#define WS_FRAME_HDR_MAX 14         /* 2 + 8 (64-bit length) + 4 (mask) */
#define WS_CONTROL_MAX 125          /* payload of a control frame */
#define WS_HANDSHAKE_MAX 16384      /* the 101 response's head */
#define WS_KEY_LEN 24               /* base64 of 16 bytes */
#define WS_ACCEPT_LEN 28            /* base64 of a SHA-1 */

/* ---- URLs ---- */

typedef struct ws_url {
    int tls;                        /* wss:// */
    const char *host;               /* into the URL; without brackets for IPv6 */
    size_t host_len;
    const char *authority;          /* "host[:port]" as written: the Host header */
    size_t authority_len;
    int port;                       /* 80 (wss: 443) when absent */
    const char *path;               /* "/..." with the query; "/" when absent */
    size_t path_len;
} ws_url;

/* "ws://host[:port][/path][?query]" or wss://; no userinfo, no fragment.
 * 0, or -1 with a static reason in *why. */
int ws_url_parse(const char *url, size_t len, ws_url *out, const char **why);

/* ---- handshake ---- */

/* Sec-WebSocket-Key from 16 random bytes: 24 characters and a NUL. */
void ws_key_make(const uint8_t rnd[16], char out[WS_KEY_LEN + 1]);
/* The Sec-WebSocket-Accept the server must answer to key: 28 characters
 * and a NUL; 0, or -1 when the digest failed. */
int ws_accept_of(const char *key, size_t key_len, char out[WS_ACCEPT_LEN + 1]);

typedef struct ws_header {
    const char *name, *value;
    size_t name_len, value_len;
} ws_header;

typedef struct ws_request {
    const ws_url *url;
    const char *key;                /* WS_KEY_LEN characters */
    const char *protocols;          /* Sec-WebSocket-Protocol: "chat, superchat"; NULL: none */
    const ws_header *headers;       /* the caller's, after the ones luamech writes */
    size_t nheaders;
} ws_request;

/* 1 when a caller's header may be sent: an RFC 7230 token for a name, no CR,
 * LF or NUL in the value, and not one the handshake writes itself or
 * that belongs to it (Host, Upgrade, Connection, Sec-WebSocket-*,
 * Content-Length, Transfer-Encoding). */
int ws_header_ok(const ws_header *h);
/* 1 when s is a subprotocol name (an RFC 7230 token). */
int ws_token_ok(const char *s, size_t len);

/* The GET request into out[0..cap).  Returns the bytes it needs: when > cap
 * nothing useful was written (grow and call again); 0 when a header is
 * refused by ws_header_ok. */
size_t ws_request_build(char *out, size_t cap, const ws_request *r);

typedef struct ws_response {
    int status;
    const char *accept, *protocol, *extensions, *upgrade, *connection;  /* into the bytes; NULL: absent */
    size_t accept_len, protocol_len, extensions_len, upgrade_len, connection_len;
} ws_response;

/* The response head in p[0..n): > 0 its length (the frames follow it),
 * 0 when it is not complete yet (n < WS_HANDSHAKE_MAX), -1 when it is
 * malformed or longer than WS_HANDSHAKE_MAX (*why, static). */
long ws_response_parse(const char *p, size_t n, ws_response *r, const char **why);
/* The handshake's verdict on a parsed response: 0, or -1 with the reason
 * in err (a status other than 101, no "Upgrade: websocket" or "Connection:
 * upgrade", a wrong Sec-WebSocket-Accept, an extension or a subprotocol
 * that was not offered). */
int ws_response_check(const ws_response *r, const char *accept, const char *offered, char *err,
                      size_t err_len);

/* ---- frames ---- */

/* Bytes a client frame with len bytes of payload takes. */
static inline size_t ws_frame_size(size_t len) {
    return len + 6 + (len > 125 ? (len > 65535 ? 8 : 2) : 0);
}
/* A final client frame (opcode, payload p[0..len), masked with mask) into
 * out (ws_frame_size(len) bytes); returns that size.  p and out may not
 * overlap. */
size_t ws_frame_build(char *out, int opcode, const void *p, size_t len, const uint8_t mask[4]);
/* XOR p[0..n) with the mask, starting at byte `off` of the mask stream. */
void ws_mask(char *p, size_t n, const uint8_t mask[4], size_t off);

typedef struct ws_limits {
    uint64_t max_message;           /* a data frame or a reassembled message longer is refused (1009) */
} ws_limits;

enum { WS_NEED_MORE = 0, WS_FRAME = 1, WS_ERROR = -1 };

typedef struct ws_frame {
    int fin, opcode;
    const char *payload;            /* into the bytes parsed (server frames are not masked) */
    size_t len;
    size_t size;                    /* WS_FRAME: header + payload, the bytes consumed;
                                       WS_NEED_MORE: the whole frame's size once its
                                       header is complete (0: not yet) */
    int close_code;                 /* WS_ERROR: the code to close with (1002, 1009) */
    const char *err;                /* WS_ERROR: why (static) */
} ws_frame;

/* One server frame at the start of p[0..n): RSV bits, unknown opcodes,
 * masked frames, fragmented or long control frames, lengths not in the
 * shortest form or with the top bit set, and data frames over
 * lim->max_message are refused as soon as the header says so. */
int ws_frame_parse(const char *p, size_t n, const ws_limits *lim, ws_frame *f);

/* A message being reassembled from its frames; buf grows and is kept. */
typedef struct ws_msg {
    char *buf;
    size_t len, cap;
    int opcode;                     /* of the message in progress (0: none) */
} ws_msg;

void ws_msg_free(ws_msg *m);
/* A data frame f (text, binary, continuation) into m.  Returns 1 when it
 * ends a message (*out, *out_len: its bytes, f's payload itself for an
 * unfragmented message, else m->buf; *opcode text or binary), 0 when more
 * fragments follow, -1 on a protocol error (*close_code, *why: a
 * continuation without a start, a new message inside one, over max_message,
 * text that is not UTF-8, out of memory). */
int ws_msg_add(ws_msg *m, const ws_frame *f, const ws_limits *lim, const char **out,
               size_t *out_len, int *opcode, int *close_code, const char **why);

/* 1 when p[0..n) is UTF-8 (RFC 3629: no overlongs, surrogates or code
 * points over U+10FFFF). */
int ws_utf8_ok(const char *p, size_t n);

/* A close frame's payload: *code (1005 when empty) and the reason.  0, or
 * -1 (a one-byte payload, a code not allowed on the wire, a reason that is
 * not UTF-8). */
int ws_close_parse(const char *p, size_t n, int *code, const char **reason, size_t *reason_len);
/* 1 when an endpoint may send code in a close frame (1000-1003, 1007-1014,
 * 3000-4999). */
int ws_close_code_ok(int code);

#endif
