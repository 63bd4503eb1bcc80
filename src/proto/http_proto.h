/* http_proto.h - HTTP/1.1 client side, pure code: a request encoder that
 * writes into a caller buffer, and an incremental response parser wrapping
 * Debian's http-parser (see docs/http.md for why we did not write our own),
 * which also stores HTTP/2 responses decoded by client/http_h2.c
 * (hp_parser_put_*).
 * Nothing here touches sockets or knows about Lua.  The parser says "need more
 * bytes" instead of blocking; it allocates only to grow its own header and
 * body buffers, which are kept from one response to the next. */
#ifndef LUAMECH_HTTP_PROTO_H
#define LUAMECH_HTTP_PROTO_H

#include <stddef.h>
#include <stdint.h>
#include <http_parser.h>

/* Methods luamech sends (http_parser.h owns the HTTP_* names). */
typedef enum hp_method {
    HP_GET = 0, HP_HEAD, HP_POST, HP_PUT, HP_DELETE, HP_PATCH, HP_OPTIONS, HP_NMETHODS
} hp_method;

const char *hp_method_name(hp_method m);            /* "GET", ... */
/* Case-insensitive; -1 when not one of the seven. */
int hp_method_parse(const char *s, size_t len);

typedef struct hp_header {
    const char *name;
    size_t name_len;
    const char *value;
    size_t value_len;
} hp_header;

typedef struct hp_request {
    hp_method method;
    const char *path;          /* "/..." (origin form), not encoded further */
    size_t path_len;
    const char *host;          /* Host header value ("127.0.0.1:8080"); required */
    size_t host_len;
    const hp_header *headers;  /* extra headers; a "Host" here replaces `host` */
    size_t nheaders;
    const char *body;          /* may be NULL */
    size_t body_len;
    int close;                 /* add "Connection: close" (unless a header sets Connection) */
} hp_request;

/* 1 when name is an RFC 7230 token (1..256 bytes). */
int hp_header_name_valid(const char *name, size_t len);
/* 1 when value has no CR, LF or NUL (at most 8 KB). */
int hp_header_value_valid(const char *value, size_t len);
/* The longest Cookie header a request may carry: the cookie jar's, for
 * RFC 6265's 50 cookies of 4 KB per domain, and a parent domain's. */
#define HP_COOKIE_MAX (512u * 1024u)
/* 1 when path starts with '/' and has no space, control byte or DEL (at most 8 KB). */
int hp_path_valid(const char *path, size_t len);
/* 1 for header names luamech computes itself: Content-Length, Transfer-Encoding. */
int hp_header_reserved(const char *name, size_t len);

/* Encode the request line, "Host", the extra headers, "Content-Length" (when
 * there is a body, and always for POST, PUT and PATCH), "Connection: close" when
 * asked, the blank line and the body into out[0..cap).  Returns the number of
 * bytes the request needs: when it is > cap nothing useful was written (grow
 * and call again).  Returns 0 when the request is invalid (path, header name
 * or value, reserved header). */
size_t hp_encode_request(char *out, size_t cap, const hp_request *r);

/* A base URL: "http[s]://host[:port][/]".  host points into the URL. */
typedef struct hp_base_url {
    const char *host;          /* without brackets for IPv6 */
    size_t host_len;
    const char *authority;     /* "host[:port]" as written: the Host header */
    size_t authority_len;
    int port;                  /* 80 (https: 443) when absent */
    int tls;                   /* 1: https */
} hp_base_url;

/* 0, or -1 with a reason in *why (a static string). */
int hp_parse_base_url(const char *url, size_t len, hp_base_url *out, const char **why);

/* ---- response parser ---- */

enum { HP_NEED_MORE = 0, HP_DONE = 1, HP_ERROR = -1 };

/* A stored header: offsets into hbuf (names lowercased). */
typedef struct hp_hdr_ref {
    size_t name_off, name_len, value_off, value_len;
} hp_hdr_ref;

typedef struct hp_parser {
    /* results of the current response; valid after HP_DONE */
    int status;
    int http_major, http_minor;
    int keep_alive;            /* the connection may carry another request */
    int chunked;
    int eof_terminated;        /* the body ended with the connection */
    char *body;                /* decoded body (not NUL-terminated) */
    size_t body_len;           /* 0 when the body is discarded */
    size_t body_seen;          /* decoded body bytes, kept or discarded */
    size_t nheaders;
    uint64_t nbytes;           /* bytes fed for this response */
    /* settings, kept across resets */
    size_t max_body;           /* 0 = no limit; a larger body is an error (hp_parser_too_big):
                                * at once when Content-Length or a chunk size says so */
    int discard_body;          /* count the body but do not keep it */
    /* private */
    http_parser hp;
    char *hbuf;
    size_t hlen, hcap;
    hp_hdr_ref *hdrs;
    size_t hdrs_cap;
    size_t body_cap;
    int head, started, done, in_value, in_body, interim;
    int fast;                  /* this response was parsed by the fast path (tests) */
    const char *err;
} hp_parser;

void hp_parser_init(hp_parser *p);
/* Prepare for the response to one request (head: it was a HEAD request).
 * After a failed response a body buffer over 8 MB is freed (a hostile
 * server does not leave a connection holding max_body bytes). */
void hp_parser_reset(hp_parser *p, int head);
void hp_parser_free(hp_parser *p);

/* Feed bytes.  Returns HP_NEED_MORE (all len bytes used), HP_DONE (the
 * response is complete; *used bytes belong to it, the rest do not) or
 * HP_ERROR (see hp_parser_error).  After HP_DONE or HP_ERROR, reset before
 * feeding again. */
int hp_parser_feed(hp_parser *p, const char *data, size_t len, size_t *used);
/* The connection ended: HP_DONE when that completes the response (a body
 * delimited by the end of the connection), else HP_ERROR.  p->nbytes == 0
 * tells that not a single response byte had arrived. */
int hp_parser_eof(hp_parser *p);
const char *hp_parser_error(const hp_parser *p);
/* 1 when the error is a body over max_body. */
int hp_parser_too_big(const hp_parser *p);

/* Header i (0-based) of the response: name (lowercase) and value. */
void hp_parser_header(const hp_parser *p, size_t i, const char **name, size_t *name_len,
                      const char **value, size_t *value_len);
/* The response's headers packed into out[0..cap) as one self-contained
 * block (to be kept after the parser moves on).  Returns the bytes the block
 * needs; when that is > cap nothing useful was written (grow and call again).
 * 0 when there are no headers. */
size_t hp_parser_headers_pack(const hp_parser *p, char *out, size_t cap);

/* Walk a packed block: the header at *pos, then *pos moves past it.  Returns
 * 1, or 0 at the end of the block (or on a block that was not made by
 * hp_parser_headers_pack). */
int hp_headers_next(const char *blk, size_t len, size_t *pos, const char **name,
                    size_t *name_len, const char **value, size_t *value_len);

/* ---- a response framed elsewhere (HTTP/2: client/http_h2.c) ----
 * The parser as the store of a response whose bytes another layer decoded
 * (nghttp2's frames and HPACK): after hp_parser_reset, put the status, the
 * header fields and the body chunks, then the end; the results read as
 * those of a parsed response (http_major 2), under the same max_body and
 * discard_body.  The put functions return 0, or HP_ERROR with
 * hp_parser_error (a body over max_body: hp_parser_too_big; a header block
 * over 256 KiB; out of memory).  hp_parser_put_header checks the field as
 * RFC 9113 8.2.1 and nghttp2 do (the session runs without nghttp2's HTTP
 * checks): a name with an uppercase letter is an error (HP_ERROR); a name
 * with another byte outside the token set, or a value with a control byte
 * but HTAB, is ignored (returns 1, nothing kept); names are kept as sent
 * (lowercase). */
void hp_parser_put_status(hp_parser *p, int status, int major, int minor);
int hp_parser_put_header(hp_parser *p, const char *name, size_t name_len, const char *value, size_t value_len);
/* The same for a name known to be a lowercase token (one of HPACK's static
 * table, which nghttp2 tells apart): its bytes are not checked again. */
int hp_parser_put_header_known(hp_parser *p, const char *name, size_t name_len, const char *value,
                               size_t value_len);
int hp_parser_put_body(hp_parser *p, const char *data, size_t len);
void hp_parser_put_end(hp_parser *p);

/* First header called name (compared case-insensitively), or NULL. */
const char *hp_parser_find(const hp_parser *p, const char *name, size_t *value_len);

#endif
