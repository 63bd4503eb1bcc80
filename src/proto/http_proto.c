/* http_proto.c - HTTP/1.1 request encoder and incremental response parser
 * (a thin layer over http-parser 2.9: it collects the status, the headers
 * with lowercased names and the decoded body, and stops at the end of one
 * response so the caller can tell which bytes belong to it), with a fast
 * path of our own for the common whole, plain Content-Length response (see
 * "fast path" below), and the store of responses framed elsewhere
 * (hp_parser_put_*: HTTP/2's, decoded by nghttp2 in client/).  See
 * http_proto.h. */
#include "proto/http_proto.h"
#include "common/grow.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HP_HBUF_INIT 1024
#define HP_HDRS_INIT 16
#define HP_BODY_INIT 4096
#define HP_FIELD_MAX 8192
#define HP_BODY_KEEP (8u << 20)   /* a larger body buffer is freed after a failed response */

static const char HP_ERR_TOO_BIG[] = "response body larger than max_body";

static const char *const hp_method_names[HP_NMETHODS] = {"GET", "HEAD", "POST", "PUT", "DELETE",
                                                             "PATCH", "OPTIONS"};

const char *hp_method_name(hp_method m) {
    return (unsigned)m < HP_NMETHODS ? hp_method_names[m] : "?";
}

static int hp_lower(int c) { return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c; }

static int hp_ieq(const char *a, size_t alen, const char *b) {
    size_t blen = strlen(b);
    if (alen != blen) return 0;
    for (size_t i = 0; i < alen; i++)
        if (hp_lower((unsigned char)a[i]) != hp_lower((unsigned char)b[i])) return 0;
    return 1;
}

int hp_method_parse(const char *s, size_t len) {
    for (int m = 0; m < HP_NMETHODS; m++)
        if (hp_ieq(s, len, hp_method_names[m])) return m;
    return -1;
}

/* ---- validation ---- */

/* Token bytes (RFC 9110 5.6.2) by class: 1 a lowercase one, 2 an uppercase
 * letter, 0 not a token byte.  HTTP/2 field names must be class 1 (RFC
 * 9113 8.2.1: an uppercase letter is malformed; nghttp2 ignores a field
 * with another byte). */
static const unsigned char hp_h2_name_class[256] = {
    ['!'] = 1, ['#'] = 1, ['$'] = 1, ['%'] = 1, ['&'] = 1, ['\''] = 1, ['*'] = 1, ['+'] = 1, ['-'] = 1,
    ['.'] = 1, ['^'] = 1, ['_'] = 1, ['`'] = 1, ['|'] = 1, ['~'] = 1,
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1,
    ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1,
    ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1,
    ['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1,
    ['A'] = 2, ['B'] = 2, ['C'] = 2, ['D'] = 2, ['E'] = 2, ['F'] = 2, ['G'] = 2, ['H'] = 2, ['I'] = 2,
    ['J'] = 2, ['K'] = 2, ['L'] = 2, ['M'] = 2, ['N'] = 2, ['O'] = 2, ['P'] = 2, ['Q'] = 2, ['R'] = 2,
    ['S'] = 2, ['T'] = 2, ['U'] = 2, ['V'] = 2, ['W'] = 2, ['X'] = 2, ['Y'] = 2, ['Z'] = 2,
};

static int hp_tchar(unsigned char c) { return hp_h2_name_class[c] != 0; }

int hp_header_name_valid(const char *name, size_t len) {
    if (len == 0 || len > 256) return 0;
    for (size_t i = 0; i < len; i++)
        if (!hp_tchar((unsigned char)name[i])) return 0;
    return 1;
}

/* 1 when the 8 bytes at p hold a control byte (below 0x20, or 0x7f). */
static int hp_h2_word_ctl(const char *p) {
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    uint64_t w;
    memcpy(&w, p, 8);
    uint64_t low = (w - 0x20 * ones) & ~w & highs;                  /* a byte < 0x20 */
    uint64_t x = w ^ (0x7f * ones);
    return ((low | ((x - ones) & ~x & highs))) != 0;                /* or one == 0x7f */
}

/* 1 when value[0..len) has no CR, LF or NUL and len <= max (eight bytes at
 * a time: a value without control bytes passes by words). */
static int hp_value_ok(const char *value, size_t len, size_t max) {
    if (len > max) return 0;
    if (len >= 8) {
        int ctl = 0;
        for (size_t i = 0; i + 8 <= len; i += 8) ctl |= hp_h2_word_ctl(value + i);
        if (!(ctl | hp_h2_word_ctl(value + len - 8))) return 1;
    }
    for (size_t i = 0; i < len; i++)
        if (value[i] == '\r' || value[i] == '\n' || value[i] == '\0') return 0;
    return 1;
}

int hp_header_value_valid(const char *value, size_t len) { return hp_value_ok(value, len, HP_FIELD_MAX); }

int hp_path_valid(const char *path, size_t len) {
    if (len == 0 || len > HP_FIELD_MAX || path[0] != '/') return 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)path[i];
        if (c <= 0x20 || c == 0x7f) return 0;
    }
    return 1;
}

int hp_header_reserved(const char *name, size_t len) {
    if (len == 14) return hp_ieq(name, len, "content-length");
    return len == 17 && hp_ieq(name, len, "transfer-encoding");
}

/* ---- encoder ---- */

typedef struct hp_out {
    char *p;
    size_t cap, len;
} hp_out;

static void hp_put(hp_out *o, const char *s, size_t n) {
    if (n && o->len <= o->cap && n <= o->cap - o->len) memcpy(o->p + o->len, s, n);
    o->len += n;
}

static void hp_puts(hp_out *o, const char *s) { hp_put(o, s, strlen(s)); }

size_t hp_encode_request(char *out, size_t cap, const hp_request *r) {
    if ((unsigned)r->method >= HP_NMETHODS || !hp_path_valid(r->path, r->path_len)) return 0;
    if (r->body_len && !r->body) return 0;
    int user_host = 0, user_conn = 0;
    for (size_t i = 0; i < r->nheaders; i++) {
        const hp_header *h = &r->headers[i];
        size_t max = hp_ieq(h->name, h->name_len, "cookie") ? HP_COOKIE_MAX : HP_FIELD_MAX;
        if (!hp_header_name_valid(h->name, h->name_len) || !hp_value_ok(h->value, h->value_len, max) ||
            hp_header_reserved(h->name, h->name_len))
            return 0;
        if (hp_ieq(h->name, h->name_len, "host")) user_host = 1;
        if (hp_ieq(h->name, h->name_len, "connection")) user_conn = 1;
    }
    if (!user_host && !hp_header_value_valid(r->host, r->host_len)) return 0;
    hp_out o = {out, cap, 0};
    hp_puts(&o, hp_method_names[r->method]);
    hp_put(&o, " ", 1);
    hp_put(&o, r->path, r->path_len);
    hp_puts(&o, " HTTP/1.1\r\n");
    if (!user_host) {
        hp_puts(&o, "Host: ");
        hp_put(&o, r->host, r->host_len);
        hp_put(&o, "\r\n", 2);
    }
    for (size_t i = 0; i < r->nheaders; i++) {
        const hp_header *h = &r->headers[i];
        hp_put(&o, h->name, h->name_len);
        hp_put(&o, ": ", 2);
        hp_put(&o, h->value, h->value_len);
        hp_put(&o, "\r\n", 2);
    }
    if (r->body_len || r->body || r->method == HP_POST || r->method == HP_PUT ||
        r->method == HP_PATCH) {
        char num[48];
        int n = snprintf(num, sizeof num, "Content-Length: %zu\r\n", r->body_len);
        hp_put(&o, num, (size_t)n);
    }
    if (r->close && !user_conn) hp_puts(&o, "Connection: close\r\n");
    hp_put(&o, "\r\n", 2);
    hp_put(&o, r->body, r->body_len);
    return o.len;
}

int hp_parse_base_url(const char *url, size_t len, hp_base_url *out, const char **why) {
    struct http_parser_url u;
    memset(out, 0, sizeof *out);
    http_parser_url_init(&u);
    if (len == 0 || http_parser_parse_url(url, len, 0, &u) != 0) {
        *why = "not a URL (expected http[s]://host[:port])";
        return -1;
    }
    if (!(u.field_set & (1 << UF_SCHEMA)) || !(u.field_set & (1 << UF_HOST))) {
        *why = "expected http[s]://host[:port]";
        return -1;
    }
    out->tls = hp_ieq(url + u.field_data[UF_SCHEMA].off, u.field_data[UF_SCHEMA].len, "https");
    if (!out->tls && !hp_ieq(url + u.field_data[UF_SCHEMA].off, u.field_data[UF_SCHEMA].len, "http")) {
        *why = "only http:// and https:// are supported";
        return -1;
    }
    if (u.field_set & ((1 << UF_QUERY) | (1 << UF_FRAGMENT) | (1 << UF_USERINFO))) {
        *why = "a query, fragment or user name is not allowed in the base URL";
        return -1;
    }
    size_t end = len;
    if (u.field_set & (1 << UF_PATH)) {
        if (u.field_data[UF_PATH].len != 1) {
            *why = "the base URL cannot have a path (give the path to each request)";
            return -1;
        }
        end = u.field_data[UF_PATH].off;
    }
    if ((u.field_set & (1 << UF_PORT)) && u.port == 0) {
        *why = "port must be 1..65535";
        return -1;
    }
    out->host = url + u.field_data[UF_HOST].off;
    out->host_len = u.field_data[UF_HOST].len;
    out->port = (u.field_set & (1 << UF_PORT)) ? u.port : out->tls ? 443 : 80;
    out->authority = url + u.field_data[UF_SCHEMA].len + 3;      /* after "http(s)://" */
    out->authority_len = end - (u.field_data[UF_SCHEMA].len + 3);
    return 0;
}

/* ---- response parser ---- */

static hp_parser *hp_of(http_parser *hp) { return hp->data; }

static int hp_on_begin(http_parser *hp) {
    hp_parser *p = hp_of(hp);
    p->nheaders = 0;
    p->hlen = 0;
    p->in_value = p->in_body = 0;
    return 0;
}

static int hp_on_field(http_parser *hp, const char *at, size_t len) {
    hp_parser *p = hp_of(hp);
    if (p->in_body) return 0;                      /* a trailer: not kept */
    if (p->nheaders == 0 || p->in_value) {
        if (p->nheaders == p->hdrs_cap) {
            size_t cap = p->hdrs_cap ? p->hdrs_cap * 2 : HP_HDRS_INIT;
            hp_hdr_ref *h = realloc(p->hdrs, cap * sizeof *h);
            if (!h) { p->err = "out of memory"; return -1; }
            p->hdrs = h;
            p->hdrs_cap = cap;
        }
        hp_hdr_ref *h = &p->hdrs[p->nheaders++];
        memset(h, 0, sizeof *h);
        h->name_off = p->hlen;
        p->in_value = 0;
    }
    if (grow_reserve(&p->hbuf, &p->hcap, p->hlen + len, HP_HBUF_INIT, SIZE_MAX) < 0) {
        p->err = "out of memory";
        return -1;
    }
    for (size_t i = 0; i < len; i++) p->hbuf[p->hlen + i] = (char)hp_lower((unsigned char)at[i]);
    p->hlen += len;
    p->hdrs[p->nheaders - 1].name_len += len;
    return 0;
}

static int hp_on_value(http_parser *hp, const char *at, size_t len) {
    hp_parser *p = hp_of(hp);
    if (p->in_body || p->nheaders == 0) return 0;
    hp_hdr_ref *h = &p->hdrs[p->nheaders - 1];
    if (!p->in_value) {
        p->in_value = 1;
        h->value_off = p->hlen;
        h->value_len = 0;
    }
    if (grow_reserve(&p->hbuf, &p->hcap, p->hlen + len, HP_HBUF_INIT, SIZE_MAX) < 0) {
        p->err = "out of memory";
        return -1;
    }
    if (len) memcpy(p->hbuf + p->hlen, at, len);
    p->hlen += len;
    h->value_len += len;
    return 0;
}

static int hp_on_headers_complete(http_parser *hp) {
    hp_parser *p = hp_of(hp);
    p->in_body = 1;
    p->status = (int)hp->status_code;
    p->http_major = hp->http_major;
    p->http_minor = hp->http_minor;
    p->chunked = (hp->flags & F_CHUNKED) != 0;
    p->interim = p->status >= 100 && p->status < 200;
    if (p->status == 101) {
        p->err = "101 Switching Protocols: protocol upgrades are not supported";
        return -1;
    }
    /* No body, whatever the headers say (RFC 9112 6.3): a response to HEAD,
     * 1xx (the real response follows), 204 and 304. */
    if (p->head || p->interim || p->status == 204 || p->status == 304) return 1;
    if (p->chunked || hp->content_length == ULLONG_MAX) return 0;
    if (p->max_body && hp->content_length > p->max_body) {  /* refused before any body byte */
        p->err = HP_ERR_TOO_BIG;
        return -1;
    }
    /* A declared length within the limit: the buffer at once, not by doubling
     * (without a limit, only up to 8 MB: the length is the server's word). */
    size_t want = p->max_body || hp->content_length <= HP_BODY_KEEP ? (size_t)hp->content_length : HP_BODY_KEEP;
    if (!p->discard_body && grow_reserve(&p->body, &p->body_cap, want, HP_BODY_INIT, SIZE_MAX) < 0) {
        p->err = "out of memory";
        return -1;
    }
    return 0;
}

/* Each chunk's size is known before its bytes: a chunk that would take the
 * body past the limit is refused at once. */
static int hp_on_chunk_header(http_parser *hp) {
    hp_parser *p = hp_of(hp);
    if (p->max_body && hp->content_length > p->max_body - p->body_seen) {
        p->err = HP_ERR_TOO_BIG;
        return -1;
    }
    return 0;
}

static int hp_on_body(http_parser *hp, const char *at, size_t len) {
    hp_parser *p = hp_of(hp);
    p->body_seen += len;
    if (p->max_body && p->body_seen > p->max_body) {
        p->err = HP_ERR_TOO_BIG;
        return -1;
    }
    if (p->discard_body) return 0;
    if (grow_reserve(&p->body, &p->body_cap, p->body_len + len, HP_BODY_INIT, SIZE_MAX) < 0) {
        p->err = "out of memory";
        return -1;
    }
    memcpy(p->body + p->body_len, at, len);
    p->body_len += len;
    return 0;
}

static int hp_on_complete(http_parser *hp) {
    hp_parser *p = hp_of(hp);
    if (p->interim) {                              /* skip "100 Continue" and friends */
        p->interim = 0;
        p->status = 0;
        p->nheaders = 0;
        p->hlen = 0;
        p->in_value = p->in_body = 0;
        return 0;
    }
    p->done = 1;
    p->keep_alive = http_should_keep_alive(hp) != 0;
    http_parser_pause(hp, 1);                      /* stop at the end of this response */
    return 0;
}

static const http_parser_settings hp_settings = {
    .on_message_begin = hp_on_begin,
    .on_header_field = hp_on_field,
    .on_header_value = hp_on_value,
    .on_headers_complete = hp_on_headers_complete,
    .on_body = hp_on_body,
    .on_chunk_header = hp_on_chunk_header,
    .on_message_complete = hp_on_complete,
};

void hp_parser_init(hp_parser *p) {
    memset(p, 0, sizeof *p);
    hp_parser_reset(p, 0);
}

void hp_parser_reset(hp_parser *p, int head) {
    if (p->err && p->body_cap > HP_BODY_KEEP) {   /* e.g. a body cut at max_body: do not keep it */
        free(p->body);
        p->body = NULL;
        p->body_cap = 0;
    }
    http_parser_init(&p->hp, HTTP_RESPONSE);
    p->hp.data = p;
    p->status = p->http_major = p->http_minor = 0;
    p->keep_alive = p->chunked = p->eof_terminated = 0;
    p->body_len = p->nheaders = p->hlen = p->body_seen = 0;
    p->nbytes = 0;
    p->head = head;
    p->started = p->done = p->in_value = p->in_body = p->interim = p->fast = 0;
    p->err = NULL;
}

void hp_parser_free(hp_parser *p) {
    free(p->hbuf);
    free(p->hdrs);
    free(p->body);
    p->hbuf = NULL;
    p->hdrs = NULL;
    p->body = NULL;
    p->hcap = p->hdrs_cap = p->body_cap = 0;
    hp_parser_reset(p, 0);
}

/* ---- a response framed elsewhere (HTTP/2) ---- */

#define HP_PUT_HDR_MAX (256u * 1024u)

void hp_parser_put_status(hp_parser *p, int status, int major, int minor) {
    p->status = status;
    p->http_major = major;
    p->http_minor = minor;
    p->keep_alive = 1;
    p->started = 1;
    p->in_body = 0;
}

/* 1 when value[0..len) has no control byte but HTAB (NUL, CR, LF, DEL ...
 * end the field, as nghttp2 ignores such fields).  Eight bytes at a time:
 * a word with no byte below 0x20 and none 0x7f passes at once. */
static int hp_h2_value_ok(const char *v, size_t len) {
    if (len >= 8) {                               /* the words, the last one overlapping */
        int ctl = 0;
        for (size_t i = 0; i + 8 <= len; i += 8) ctl |= hp_h2_word_ctl(v + i);
        ctl |= hp_h2_word_ctl(v + len - 8);
        if (!ctl) return 1;
    }
    for (size_t i = 0; i < len; i++) {            /* short, or a control byte seen (HTAB?) */
        unsigned char c = (unsigned char)v[i];
        if ((c < 0x20 && c != '\t') || c == 0x7f) return 0;
    }
    return 1;
}

static int hp_put_header(hp_parser *p, const char *name, size_t name_len, const char *value, size_t value_len,
                         int known) {   /* known: the name is a lowercase token, not checked */
    if (p->hlen + name_len + value_len > HP_PUT_HDR_MAX) {
        p->err = "response header block larger than 256 KiB";
        return HP_ERROR;
    }
    if (name_len == 0) return 1;
    unsigned all = 1;
    for (size_t i = 0; !known && i < name_len; i++) {
        unsigned c = hp_h2_name_class[(unsigned char)name[i]];
        if (c == 2) {
            p->err = "uppercase header field name in an HTTP/2 response";
            return HP_ERROR;
        }
        all &= c;
    }
    if (!all || !hp_h2_value_ok(value, value_len)) return 1;
    if (p->nheaders == p->hdrs_cap) {
        size_t cap = p->hdrs_cap ? p->hdrs_cap * 2 : HP_HDRS_INIT;
        hp_hdr_ref *h = realloc(p->hdrs, cap * sizeof *h);
        if (!h) { p->err = "out of memory"; return HP_ERROR; }
        p->hdrs = h;
        p->hdrs_cap = cap;
    }
    if (grow_reserve(&p->hbuf, &p->hcap, p->hlen + name_len + value_len, HP_HBUF_INIT, SIZE_MAX) < 0) {
        p->err = "out of memory";
        return HP_ERROR;
    }
    hp_hdr_ref *h = &p->hdrs[p->nheaders++];
    char *o = p->hbuf + p->hlen;
    h->name_off = p->hlen;
    h->name_len = name_len;
    h->value_off = p->hlen + name_len;
    h->value_len = value_len;
    memcpy(o, name, name_len);
    if (value_len) memcpy(o + name_len, value, value_len);
    p->hlen += name_len + value_len;
    return 0;
}

int hp_parser_put_header(hp_parser *p, const char *name, size_t name_len, const char *value, size_t value_len) {
    return hp_put_header(p, name, name_len, value, value_len, 0);
}

int hp_parser_put_header_known(hp_parser *p, const char *name, size_t name_len, const char *value,
                               size_t value_len) {
    return hp_put_header(p, name, name_len, value, value_len, 1);
}

int hp_parser_put_body(hp_parser *p, const char *data, size_t len) {
    p->in_body = 1;
    p->body_seen += len;
    if (p->max_body && p->body_seen > p->max_body) {
        p->err = HP_ERR_TOO_BIG;
        return HP_ERROR;
    }
    if (p->discard_body || p->head || len == 0) return 0;
    if (grow_reserve(&p->body, &p->body_cap, p->body_len + len, HP_BODY_INIT, SIZE_MAX) < 0) {
        p->err = "out of memory";
        return HP_ERROR;
    }
    memcpy(p->body + p->body_len, data, len);
    p->body_len += len;
    return 0;
}

void hp_parser_put_end(hp_parser *p) { p->done = 1; }

/* ---- fast path ----
 *
 * Most responses of a load test arrive whole in one read: a plain status
 * line, a few "Name: value" headers and a Content-Length body.  For exactly
 * that shape the response is parsed here in one pass over the buffer, with
 * the results http-parser would give (a differential test in
 * tests/unit/test_http_proto.c checks this against http-parser on
 * generated responses).  Anything else - a split or incomplete response,
 * chunked or EOF-delimited bodies, HEAD, 1xx/204/304, control bytes, bare
 * LFs, obs-folding, duplicate or odd Content-Length or Connection headers -
 * returns 0 without touching the parser state, and http-parser takes it. */

#define HP_FAST_MAX_HEAD (64 * 1024)   /* well below http-parser's 80 KB header limit */

typedef struct hp_fast {
    const char *at, *end;      /* the unparsed rest of the buffer */
    long long clen;            /* Content-Length, -1 while none */
    int conn;                  /* 0 none, 1 close, 2 keep-alive */
} hp_fast;

/* a[0..n) equals the lowercase b[0..n), ignoring the case of a */
static int hp_ieq_n(const char *a, const char *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (hp_lower((unsigned char)a[i]) != b[i]) return 0;
    return 1;
}

/* A value byte http-parser accepts without question (no CTL but HTAB). */
static int hp_fast_vchar(unsigned char c) { return c == '\t' || (c >= 0x20 && c != 0x7f); }

/* "HTTP/1.x SSS[ reason]\r\n", for a status that has a body */
static int hp_fast_status(hp_parser *p, hp_fast *f) {
    const char *a = f->at;
    const char *eol = memchr(a, '\r', (size_t)(f->end - a));
    if (!eol || eol - a < 12 || eol + 1 >= f->end || eol[1] != '\n') return 0;
    if (memcmp(a, "HTTP/1.", 7) != 0 || (a[7] != '0' && a[7] != '1') || a[8] != ' ') return 0;
    for (int i = 9; i < 12; i++)
        if (a[i] < '0' || a[i] > '9') return 0;
    if (eol - a > 12 && a[12] != ' ') return 0;
    for (const char *r = a + 12; r < eol; r++)
        if (!hp_fast_vchar((unsigned char)*r)) return 0;
    p->status = (a[9] - '0') * 100 + (a[10] - '0') * 10 + (a[11] - '0');
    p->http_major = 1;
    p->http_minor = a[7] - '0';
    f->at = eol + 2;
    return p->status >= 200 && p->status != 204 && p->status != 304;
}

/* Content-Length and Connection (name already lowercase); 0 for the headers
 * the fast path leaves to http-parser. */
static int hp_fast_special(hp_fast *f, const char *n, size_t nl, const char *v, size_t vl) {
    switch (nl) {
    case 14:
        if (memcmp(n, "content-length", 14) != 0) return 1;
        if (f->clen >= 0 || vl == 0 || vl > 15) return 0;
        long long x = 0;
        for (size_t i = 0; i < vl; i++) {
            if (v[i] < '0' || v[i] > '9') return 0;
            x = x * 10 + (v[i] - '0');
        }
        f->clen = x;
        return 1;
    case 10:
        if (memcmp(n, "connection", 10) != 0) return 1;
        if (f->conn) return 0;
        f->conn = vl == 5 && hp_ieq_n(v, "close", 5) ? 1 : vl == 10 && hp_ieq_n(v, "keep-alive", 10) ? 2 : 0;
        return f->conn != 0;
    case 17: return memcmp(n, "transfer-encoding", 17) != 0;
    case 16: return memcmp(n, "proxy-connection", 16) != 0;
    case 7: return memcmp(n, "upgrade", 7) != 0;
    default: return 1;
    }
}

/* One "Name: value\r\n" line into hbuf and hdrs. */
static int hp_fast_header(hp_parser *p, hp_fast *f) {
    const char *n = f->at, *c = n, *eol = memchr(n, '\r', (size_t)(f->end - n));
    if (!eol || eol + 1 >= f->end || eol[1] != '\n') return 0;
    if (grow_reserve(&p->hbuf, &p->hcap, p->hlen + (size_t)(eol - n), HP_HBUF_INIT, SIZE_MAX) < 0) return 0;
    char *o = p->hbuf + p->hlen;
    for (; c < eol; c++) {                         /* the name, lowercased as it is copied */
        unsigned char ch = (unsigned char)*c;
        if ((ch >= 'a' && ch <= 'z') || ch == '-' || (ch >= '0' && ch <= '9')) *o++ = (char)ch;
        else if (ch >= 'A' && ch <= 'Z') *o++ = (char)(ch + ('a' - 'A'));
        else if (ch != ':' && hp_tchar(ch)) *o++ = (char)ch;
        else break;
    }
    if (c == n || c == eol || *c != ':') return 0;
    const char *v = c + 1;
    while (v < eol && (*v == ' ' || *v == '\t')) v++;
    for (const char *x = v; x < eol; x++)
        if (!hp_fast_vchar((unsigned char)*x)) return 0;
    size_t nl = (size_t)(c - n), vl = (size_t)(eol - v);
    if (!hp_fast_special(f, p->hbuf + p->hlen, nl, v, vl)) return 0;
    if (p->nheaders == p->hdrs_cap) {
        size_t cap = p->hdrs_cap ? p->hdrs_cap * 2 : HP_HDRS_INIT;
        hp_hdr_ref *h = realloc(p->hdrs, cap * sizeof *h);
        if (!h) return 0;
        p->hdrs = h;
        p->hdrs_cap = cap;
    }
    hp_hdr_ref *h = &p->hdrs[p->nheaders++];
    h->name_off = p->hlen;
    h->name_len = nl;
    h->value_off = p->hlen + nl;
    h->value_len = vl;
    memcpy(o, v, vl);
    p->hlen += nl + vl;
    f->at = eol + 2;
    return 1;
}

/* The Content-Length body after the head; 0 to leave it to http-parser. */
static int hp_fast_body(hp_parser *p, const char *body, size_t avail, size_t clen) {
    if (clen > avail || (p->max_body && clen > p->max_body)) return 0;
    if (!p->discard_body) {
        if (grow_reserve(&p->body, &p->body_cap, clen, HP_BODY_INIT, SIZE_MAX) < 0) return 0;
        if (clen) memcpy(p->body, body, clen);
        p->body_len = clen;
    }
    p->body_seen = clen;
    return 1;
}

/* 1 when the whole response was in data (results set, *used its length),
 * 0 when http-parser must take it (nothing changed that it relies on). */
static int hp_fast_feed(hp_parser *p, const char *data, size_t len, size_t *used) {
    if (p->nbytes != 0 || p->head || len < 16) return 0;
    hp_fast f = {data, data + (len < HP_FAST_MAX_HEAD ? len : HP_FAST_MAX_HEAD), -1, 0};
    int ok = hp_fast_status(p, &f);
    while (ok && !(f.end - f.at >= 2 && f.at[0] == '\r' && f.at[1] == '\n'))
        ok = hp_fast_header(p, &f);
    size_t head_len = ok ? (size_t)(f.at + 2 - data) : 0;
    ok = ok && f.clen >= 0 && hp_fast_body(p, data + head_len, len - head_len, (size_t)f.clen);
    if (!ok) {                                     /* undo: http-parser starts afresh */
        p->status = p->http_major = p->http_minor = 0;
        p->nheaders = p->hlen = p->body_len = p->body_seen = 0;
        return 0;
    }
    p->keep_alive = p->http_minor == 1 ? f.conn != 1 : f.conn == 2;
    p->done = p->started = p->in_body = 1;
    p->fast = 1;
    *used = head_len + (size_t)f.clen;
    p->nbytes = *used;
    return 1;
}

int hp_parser_feed(hp_parser *p, const char *data, size_t len, size_t *used) {
    *used = 0;
    if (p->done) return HP_DONE;
    if (p->err) return HP_ERROR;
    if (len == 0) return HP_NEED_MORE;
    if (hp_fast_feed(p, data, len, used)) return HP_DONE;
    p->started = 1;
    size_t n = http_parser_execute(&p->hp, &hp_settings, data, len);
    if (n > len) n = len;
    *used = n;
    p->nbytes += n;
    if (p->done) return HP_DONE;
    enum http_errno e = HTTP_PARSER_ERRNO(&p->hp);
    if (!p->err && e != HPE_OK) p->err = http_errno_description(e);
    if (!p->err && n != len) p->err = "unexpected bytes after the response";
    return p->err ? HP_ERROR : HP_NEED_MORE;
}

int hp_parser_eof(hp_parser *p) {
    if (p->done) return HP_DONE;
    if (p->err) return HP_ERROR;
    if (p->nbytes == 0) {
        p->err = "connection closed before any response byte";
        return HP_ERROR;
    }
    http_parser_execute(&p->hp, &hp_settings, NULL, 0);
    if (p->done) {
        p->eof_terminated = 1;
        p->keep_alive = 0;
        return HP_DONE;
    }
    enum http_errno e = HTTP_PARSER_ERRNO(&p->hp);
    if (!p->err) p->err = e != HPE_OK && e != HPE_INVALID_EOF_STATE
        ? http_errno_description(e) : "connection closed before the response ended";
    return HP_ERROR;
}

const char *hp_parser_error(const hp_parser *p) { return p->err ? p->err : "no error"; }

int hp_parser_too_big(const hp_parser *p) { return p->err == HP_ERR_TOO_BIG; }

void hp_parser_header(const hp_parser *p, size_t i, const char **name, size_t *name_len,
                      const char **value, size_t *value_len) {
    const hp_hdr_ref *h = &p->hdrs[i];
    *name = p->hbuf + h->name_off;
    *name_len = h->name_len;
    *value = h->value_len ? p->hbuf + h->value_off : "";
    *value_len = h->value_len;
}

const char *hp_parser_find(const hp_parser *p, const char *name, size_t *value_len) {
    size_t ql = strlen(name);
    for (size_t i = 0; i < p->nheaders; i++) {
        if (p->hdrs[i].name_len != ql) continue;
        const char *n, *v;
        size_t nl, vl;
        hp_parser_header(p, i, &n, &nl, &v, &vl);
        if (hp_ieq(n, nl, name)) {
            if (value_len) *value_len = vl;
            return v;
        }
    }
    return NULL;
}

/* Packed headers: per header a uint32 name length, a uint32 value length
 * (native byte order: the block never leaves the process), then the name and
 * the value bytes. */
size_t hp_parser_headers_pack(const hp_parser *p, char *out, size_t cap) {
    size_t need = 0;
    for (size_t i = 0; i < p->nheaders; i++)
        need += 2 * sizeof(uint32_t) + p->hdrs[i].name_len + p->hdrs[i].value_len;
    if (need > cap) return need;
    char *o = out;
    for (size_t i = 0; i < p->nheaders; i++) {
        const hp_hdr_ref *h = &p->hdrs[i];
        uint32_t l[2] = {(uint32_t)h->name_len, (uint32_t)h->value_len};
        memcpy(o, l, sizeof l);
        o += sizeof l;
        if (h->value_off == h->name_off + h->name_len) {   /* name and value adjacent: one copy */
            memcpy(o, p->hbuf + h->name_off, h->name_len + h->value_len);
            o += h->name_len + h->value_len;
            continue;
        }
        memcpy(o, p->hbuf + h->name_off, h->name_len);
        o += h->name_len;
        if (h->value_len) memcpy(o, p->hbuf + h->value_off, h->value_len);
        o += h->value_len;
    }
    return need;
}

int hp_headers_next(const char *blk, size_t len, size_t *pos, const char **name,
                    size_t *name_len, const char **value, size_t *value_len) {
    uint32_t l[2];
    if (*pos + sizeof l > len) return 0;
    memcpy(l, blk + *pos, sizeof l);
    if (l[0] > len - *pos - sizeof l || l[1] > len - *pos - sizeof l - l[0]) return 0;
    *name = blk + *pos + sizeof l;
    *name_len = l[0];
    *value = *name + l[0];
    *value_len = l[1];
    *pos += sizeof l + l[0] + l[1];
    return 1;
}
