/* hlog.c - HdrHistogram interval logs (see hlog.h for the format): the V2
 * encoding of a hist, its zlib compression and base64, the log writer, and a
 * reader for `luamech report --distribution`. */
#include "report/hlog.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "common/grow.h"
#include "common/text.h"

#ifndef LUAMECH_VERSION
#define LUAMECH_VERSION "?"
#endif

#define HIGHEST_TRACKABLE HIST_HIGHEST_US
#define LEB_MAX 9                        /* LEB128-64b9B: at most 9 bytes a word */

struct hlog {
    FILE *f;
    double start_epoch_s;                /* <= 0: not known yet */
    int header_done;
    int failed;
    struct bbuf *staged;                 /* lines staged, not written yet (NULL: none yet) */
};

/* ---- byte buffer ---- */

typedef struct bbuf {
    char *p;                             /* bytes (char: common/grow.h's buffers) */
    size_t len, cap;
    int oom;
} bbuf;

static int bb_reserve(bbuf *b, size_t more) {
    if (b->oom) return -1;
    if (grow_room(&b->p, &b->cap, b->len, more, 256, SIZE_MAX) == 0) return 0;
    b->oom = 1;
    return -1;
}

static void bb_u8(bbuf *b, uint8_t v) {
    if (bb_reserve(b, 1) == 0) b->p[b->len++] = (char)v;
}

static void bb_be(bbuf *b, uint64_t v, int nbytes) {
    if (bb_reserve(b, (size_t)nbytes) != 0) return;
    for (int i = nbytes - 1; i >= 0; i--) b->p[b->len++] = (char)(uint8_t)(v >> (8 * i));
}

static void put_be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static uint64_t get_be(const uint8_t *p, int nbytes) {
    uint64_t v = 0;
    for (int i = 0; i < nbytes; i++) v = (v << 8) | p[i];
    return v;
}

/* ZigZag, then LEB128 with at most 9 bytes: 8 bytes of 7 bits with a
 * continuation bit, a 9th holding the last 8 bits (HdrHistogram's
 * ZigZagEncoding.putLong). */
static void put_zigzag(bbuf *b, int64_t value) {
    uint64_t u = ((uint64_t)value << 1) ^ (uint64_t)(value >> 63);
    for (int i = 0; i < LEB_MAX - 1; i++) {
        if ((u >> 7) == 0) {
            bb_u8(b, (uint8_t)u);
            return;
        }
        bb_u8(b, (uint8_t)((u & 0x7f) | 0x80));
        u >>= 7;
    }
    bb_u8(b, (uint8_t)u);
}

/* Returns the number of bytes read, 0 if the buffer ends mid-word. */
static size_t get_zigzag(const uint8_t *p, size_t n, int64_t *out) {
    uint64_t u = 0;
    size_t i = 0;
    for (; i < LEB_MAX - 1; i++) {
        if (i >= n) return 0;
        u |= (uint64_t)(p[i] & 0x7f) << (7 * i);
        if (!(p[i] & 0x80)) break;
    }
    if (i == LEB_MAX - 1) {
        if (i >= n) return 0;
        u |= (uint64_t)p[i] << 56;
    }
    *out = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
    return i + 1;
}

/* ---- encoding ---- */

int hlog_encode_payload(const hist *h, uint8_t **out, size_t *len) {
    bbuf b = {0};
    union {
        double d;
        uint64_t u;
    } ratio = {.d = 1.0};
    bb_be(&b, HLOG_ENCODING_COOKIE, 4);
    bb_be(&b, 0, 4);                          /* counts length, set below */
    bb_be(&b, 0, 4);                          /* normalizing index offset */
    bb_be(&b, HIST_SIG_DIGITS, 4);
    bb_be(&b, 1, 8);                          /* lowest discernible value */
    bb_be(&b, (uint64_t)HIGHEST_TRACKABLE, 8);
    bb_be(&b, ratio.u, 8);                    /* integer to double value ratio */
    /* Counts up to the max's index (index 0 alone when empty: HdrHistogram
     * encodes countsArrayIndex(maxValue) + 1 counts, and maxValue is 0). */
    int32_t limit = h->total > 0 ? hist_index_of(h->max_us) + 1 : 1;
    if (h->total > 0 && h->hi_idx + 1 > limit) limit = h->hi_idx + 1;
    for (int32_t i = 0; i < limit;) {
        int64_t c = hist_count_at(h, i++);
        if (c == 0) {
            int64_t zeros = 1;
            while (i < limit && hist_count_at(h, i) == 0) zeros++, i++;
            put_zigzag(&b, zeros > 1 ? -zeros : 0);
        } else {
            put_zigzag(&b, c);
        }
    }
    if (b.oom) {
        free(b.p);
        return -1;
    }
    put_be32((uint8_t *)b.p + 4, (uint32_t)(b.len - HLOG_PAYLOAD_HEADER_LEN));
    *out = (uint8_t *)b.p;
    *len = b.len;
    return 0;
}

int hlog_encode_compressed(const hist *h, uint8_t **out, size_t *len) {
    uint8_t *raw;
    size_t raw_len;
    if (hlog_encode_payload(h, &raw, &raw_len) != 0) return -1;
    uLongf zlen = compressBound((uLong)raw_len);
    uint8_t *buf = malloc(8 + (size_t)zlen);
    if (!buf || compress2(buf + 8, &zlen, raw, (uLong)raw_len, Z_DEFAULT_COMPRESSION) != Z_OK) {
        free(buf);
        free(raw);
        return -1;
    }
    free(raw);
    put_be32(buf, HLOG_COMPRESSED_COOKIE);
    put_be32(buf + 4, (uint32_t)zlen);
    *out = buf;
    *len = 8 + (size_t)zlen;
    return 0;
}

static const char b64_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *hlog_encode_base64(const hist *h) {
    uint8_t *bin;
    size_t n;
    if (hlog_encode_compressed(h, &bin, &n) != 0) return NULL;
    char *s = malloc((n + 2) / 3 * 4 + 1), *o = s;
    if (!s) {
        free(bin);
        return NULL;
    }
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)bin[i] << 16;
        if (i + 1 < n) v |= (uint32_t)bin[i + 1] << 8;
        if (i + 2 < n) v |= bin[i + 2];
        *o++ = b64_chars[(v >> 18) & 63];
        *o++ = b64_chars[(v >> 12) & 63];
        *o++ = i + 1 < n ? b64_chars[(v >> 6) & 63] : '=';
        *o++ = i + 2 < n ? b64_chars[v & 63] : '=';
    }
    *o = 0;
    free(bin);
    return s;
}

/* ---- decoding ---- */

/* Adds the counts of an uncompressed payload to *into. */
static int decode_payload(const uint8_t *p, size_t n, int64_t max_us, hist *into, char *err,
                          size_t err_len) {
    if (n < HLOG_PAYLOAD_HEADER_LEN) return text_errf(err, err_len, "histogram payload too short");
    uint32_t cookie = (uint32_t)get_be(p, 4);
    if ((cookie & ~0xf0u) != (HLOG_ENCODING_COOKIE & ~0xf0u))
        return text_errf(err, err_len, "not a V2 histogram encoding (cookie 0x%08x)", cookie);
    uint32_t counts_len = (uint32_t)get_be(p + 4, 4);
    /* The normalizing index offset (p + 8) and the integer-to-double ratio
     * (p + 32) only matter for shifted double histograms: ignored, as
     * hdr-histogram-js does (it writes 1 for both). */
    uint32_t digits = (uint32_t)get_be(p + 12, 4);
    uint64_t lowest = get_be(p + 16, 8);
    if (digits != HIST_SIG_DIGITS || lowest != 1)
        return text_errf(err, err_len,
                      "unsupported histogram layout (%u significant digits, lowest value %llu; "
                      "luamech reads 3 and 1)",
                      digits, (unsigned long long)lowest);
    if (counts_len > n - HLOG_PAYLOAD_HEADER_LEN)
        return text_errf(err, err_len, "histogram counts truncated");
    const uint8_t *c = p + HLOG_PAYLOAD_HEADER_LEN, *end = c + counts_len;
    int64_t idx = 0, total = 0;
    int32_t lo = -1, hi = -1;
    /* Validate first, then add: a bad payload leaves *into unchanged. */
    for (int pass = 0; pass < 2; pass++) {
        idx = 0;
        for (const uint8_t *q = c; q < end;) {
            int64_t v;
            size_t k = get_zigzag(q, (size_t)(end - q), &v);
            if (k == 0) return text_errf(err, err_len, "histogram counts truncated mid-word");
            q += k;
            if (v < 0) {
                if (v < -(int64_t)HIST_COUNTS_LEN) return text_errf(err, err_len, "histogram counts out of range");
                idx -= v;
                continue;
            }
            if (v > 0) {
                if (idx >= HIST_COUNTS_LEN)
                    return text_errf(err, err_len, "histogram values beyond luamech's range (1 h)");
                if (pass == 0) {
                    if (v > INT64_MAX - total) return text_errf(err, err_len, "histogram count overflows");
                    total += v;
                    if (lo < 0) lo = (int32_t)idx;
                    hi = (int32_t)idx;
                } else if (hist_add_at_index(into, (int32_t)idx, v) != 0) {
                    return text_errf(err, err_len, "out of memory");
                }
            }
            idx++;
        }
        if (pass == 0 && total > INT64_MAX - into->total)
            return text_errf(err, err_len, "histogram count overflows");
    }
    if (total == 0) return 0;
    into->total += total;
    if (lo < into->lo_idx) into->lo_idx = lo;
    if (hi > into->hi_idx) into->hi_idx = hi;
    int64_t min = hist_value_at_index(lo);
    int64_t top = hist_value_at_index(hi);
    int64_t max = max_us >= 0 && hist_index_of(max_us) == hi ? max_us : hist_highest_equivalent(top);
    if (min < into->min_us) into->min_us = min;
    if (max > into->max_us) into->max_us = max;
    return 0;
}

/* Inflates into out[0..*n) (*n: its room; then the bytes written); with
 * drain, goes on into a scratch buffer once out is full.  *total counts
 * every byte inflated, up to cap.  zlib's code: Z_STREAM_END when the
 * payload ended, else Z_BUF_ERROR when out is full (without drain), the
 * payload longer than cap or truncated, or zlib's error. */
static int hlog_inflate(z_stream *z, uint8_t *out, size_t *n, size_t cap, size_t *total, int drain) {
    uint8_t scratch[4096];
    z->next_out = out;
    z->avail_out = (uInt)*n;
    int rc = inflate(z, Z_FINISH);
    *n -= z->avail_out;
    *total += *n;
    while (drain && rc == Z_BUF_ERROR && z->avail_out == 0 && *total < cap) {
        size_t room = cap - *total < sizeof scratch ? cap - *total : sizeof scratch;
        z->next_out = scratch;
        z->avail_out = (uInt)room;
        rc = inflate(z, Z_FINISH);
        *total += room - z->avail_out;
    }
    return rc;
}

/* The payload is inflated into a buffer of the size its header announces
 * (header and counts), not of the largest possible payload: the bytes past
 * the counts are inflated (checked) but not kept, as decode_payload would
 * not read them. */
int hlog_decode_compressed(const uint8_t *buf, size_t len, int64_t max_us, hist *into,
                           char *err, size_t err_len) {
    if (len < 8) return text_errf(err, err_len, "compressed histogram too short");
    uint32_t cookie = (uint32_t)get_be(buf, 4);
    if ((cookie & ~0xf0u) != (HLOG_COMPRESSED_COOKIE & ~0xf0u))
        return text_errf(err, err_len, "not a V2 compressed histogram (cookie 0x%08x)", cookie);
    uint32_t zlen = (uint32_t)get_be(buf + 4, 4);
    if (zlen > len - 8) return text_errf(err, err_len, "compressed histogram truncated");
    /* The payload is at most the header and 9 bytes per count. */
    size_t cap = HLOG_PAYLOAD_HEADER_LEN + (size_t)HIST_COUNTS_LEN * LEB_MAX;
    uint8_t head[HLOG_PAYLOAD_HEADER_LEN], *raw = NULL;
    size_t nhead = sizeof head, nrest = 0, total = 0;
    z_stream z;
    memset(&z, 0, sizeof z);
    int rc = inflateInit(&z);
    if (rc == Z_OK) {
        z.next_in = (Bytef *)(uintptr_t)(buf + 8);
        z.avail_in = zlen;
        rc = hlog_inflate(&z, head, &nhead, cap, &total, 0);
        if (rc == Z_BUF_ERROR && nhead == sizeof head) {
            /* the header is in, maybe more: room for the counts it announces */
            size_t want = sizeof head + (size_t)get_be(head + 4, 4);
            nrest = (want < cap ? want : cap) - sizeof head;
            raw = malloc(sizeof head + nrest);
            if (!raw) {
                rc = Z_MEM_ERROR;
            } else {
                memcpy(raw, head, sizeof head);
                rc = hlog_inflate(&z, raw + sizeof head, &nrest, cap, &total, 1);
            }
        }
        inflateEnd(&z);
    }
    if (rc != Z_STREAM_END) {
        free(raw);
        return text_errf(err, err_len, "cannot inflate the histogram (zlib: %s)",
                      rc == Z_BUF_ERROR ? "too large or truncated" : zError(rc));
    }
    rc = decode_payload(raw ? raw : head, raw ? sizeof head + nrest : nhead, max_us, into, err, err_len);
    free(raw);
    return rc;
}

static int b64_value(unsigned char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;
    if (c == '/' || c == '_') return 63;
    return -1;
}

int hlog_decode_base64(const char *b64, size_t len, int64_t max_us, hist *into, char *err,
                       size_t err_len) {
    uint8_t *bin = malloc(len / 4 * 3 + 3);
    if (!bin) return text_errf(err, err_len, "out of memory");
    size_t n = 0;
    uint32_t acc = 0;
    int bits = 0, pad = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)b64[i];
        if (ch == '=') {
            pad = 1;
            continue;
        }
        if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n') continue;
        int v = b64_value(ch);
        if (v < 0 || pad) {
            free(bin);
            return text_errf(err, err_len, "invalid base64");
        }
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            bin[n++] = (uint8_t)(acc >> bits);
        }
    }
    int rc = hlog_decode_compressed(bin, n, max_us, into, err, err_len);
    free(bin);
    return rc;
}

/* ---- tags ---- */

static int tag_must_escape(unsigned char c) {
    return c == '%' || c == ',' || c == ' ' || c < 0x20 || c == 0x7f;
}

size_t hlog_tag_escape(const char *name, char *out, size_t out_len) {
    static const char hex[] = "0123456789ABCDEF";
    size_t n = 0, keep = 0, len = strlen(name);
    for (const unsigned char *s = (const unsigned char *)name; *s; s++) {
        char e[3] = {(char)*s, 0, 0};
        int k = 1;
        /* bytes of a character text_safe_len keeps (valid UTF-8) stay */
        if (keep == 0 && *s >= 0x80) keep = text_safe_len((const char *)s, len - (size_t)(s - (const unsigned char *)name));
        int unsafe = *s >= 0x80 && keep == 0;
        if (keep) keep--;
        if (tag_must_escape(*s) || unsafe) {
            e[0] = '%';
            e[1] = hex[*s >> 4];
            e[2] = hex[*s & 15];
            k = 3;
        }
        for (int j = 0; j < k; j++, n++)
            if (out && n + 1 < out_len) out[n] = e[j];
    }
    if (out && out_len) out[n < out_len ? n : out_len - 1] = 0;
    return n;
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

char *hlog_tag_unescape(char *s) {
    char *o = s;
    for (const char *p = s; *p; p++) {
        if (p[0] == '%' && hexval(p[1]) >= 0 && hexval(p[2]) >= 0) {
            *o++ = (char)(hexval(p[1]) * 16 + hexval(p[2]));
            p += 2;
        } else {
            *o++ = *p;
        }
    }
    *o = 0;
    return s;
}

/* ---- writer ---- */

static void hlog_header(hlog *l) {
    if (l->header_done) return;
    l->header_done = 1;
    double t = l->start_epoch_s > 0 ? l->start_epoch_s : 0;
    time_t sec = (time_t)floor(t);
    struct tm tm;
    char date[64] = "";
    if (localtime_r(&sec, &tm)) strftime(date, sizeof date, "%a %b %d %H:%M:%S %Z %Y", &tm);
    if (fprintf(l->f,
                "#[Histogram log format version 1.3]\n"
                "#[luamech " LUAMECH_VERSION " interval log: one histogram per timer per statistics "
                "interval, of its successful samples]\n"
                "#[Values and Interval_Max in microseconds; tags are timer names with '%%', ',', "
                "spaces, control characters and bytes that are not valid UTF-8 percent-encoded]\n"
                "#[StartTime: %.3f (seconds since epoch), %s]\n"
                "#[BaseTime: %.3f (seconds since epoch)]\n"
                "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
                "\"Interval_Compressed_Histogram\"\n",
                t, date, t) < 0 ||
        fflush(l->f) != 0)
        l->failed = 1;
}

hlog *hlog_open(const char *path, double start_epoch_s) {
    hlog *l = calloc(1, sizeof *l);
    if (!l) return NULL;
    l->f = fopen(path, "w");
    if (!l->f) {
        int e = errno;
        free(l);
        errno = e;
        return NULL;
    }
    l->start_epoch_s = start_epoch_s;
    if (start_epoch_s > 0) hlog_header(l);
    return l;
}

void hlog_set_start(hlog *l, double start_epoch_s) {
    if (l && !l->header_done) l->start_epoch_s = start_epoch_s;
}

/* Appends n bytes to b; -1 when out of memory. */
static int bb_bytes(bbuf *b, const void *p, size_t n) {
    if (bb_reserve(b, n) != 0) return -1;
    memcpy(b->p + b->len, p, n);
    b->len += n;
    return 0;
}

void hlog_stage(hlog *l, const char *tag, double start_s, double len_s, const hist *h) {
    if (!l) return;
    if (!l->staged && !(l->staged = calloc(1, sizeof *l->staged))) {
        l->failed = 1;
        return;
    }
    bbuf *b = l->staged;
    char *b64 = hlog_encode_base64(h);
    size_t n = hlog_tag_escape(tag ? tag : "", NULL, 0);
    char *esc = malloc(n + 1);
    if (esc) hlog_tag_escape(tag ? tag : "", esc, n + 1);
    char head[96];
    size_t mark = b->len;                /* a line fails whole: no half line is written */
    int hn = snprintf(head, sizeof head, "%.3f,%.3f,%.3f,", start_s, len_s, (double)hist_max_us(h));
    if (!b64 || !esc || hn < 0 || (size_t)hn >= sizeof head ||
        (tag && (bb_bytes(b, "Tag=", 4) != 0 || bb_bytes(b, esc, n) != 0 || bb_bytes(b, ",", 1) != 0)) ||
        bb_bytes(b, head, (size_t)hn) != 0 || bb_bytes(b, b64, strlen(b64)) != 0 || bb_bytes(b, "\n", 1) != 0) {
        b->len = mark;
        b->oom = 0;                      /* the next line may fit */
        l->failed = 1;
    }
    free(esc);
    free(b64);
}

void hlog_commit(hlog *l) {
    if (!l) return;
    hlog_header(l);
    bbuf *b = l->staged;
    if (b && b->len && fwrite(b->p, 1, b->len, l->f) != b->len) l->failed = 1;
    if (fflush(l->f) != 0) l->failed = 1;
    if (b) b->len = 0;
}

void hlog_write(hlog *l, const char *tag, double start_s, double len_s, const hist *h) {
    hlog_stage(l, tag, start_s, len_s, h);
    hlog_commit(l);
}

int hlog_close(hlog *l) {
    if (!l) return 0;
    hlog_commit(l);
    int rc = l->failed ? -1 : 0;
    if (fclose(l->f) != 0) rc = -1;
    if (l->staged) free(l->staged->p);
    free(l->staged);
    free(l);
    return rc;
}

/* ---- reader ---- */

int hlog_read(const char *path, hlog_line_fn fn, void *ctx, char *err, size_t err_len) {
    FILE *f = fopen(path, "r");
    if (!f) return text_errf(err, err_len, "%s: %s", path, strerror(errno));
    int rc = hlog_read_stream(f, path, fn, ctx, err, err_len);
    fclose(f);
    return rc;
}

/* hlog_read_stream, with each line's base64 text to raw when it is set. */
static int hlog_read_lines(FILE *f, const char *path, hlog_line_fn fn, hlog_raw_fn raw, void *ctx, char *err,
                           size_t err_len) {
    hist *h = malloc(sizeof *h);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    long lineno = 0;
    int rc = 0;
    if (!h) return text_errf(err, err_len, "out of memory");
    hist_init(h);
    while (rc == 0 && (n = getline(&line, &cap, f)) >= 0) {
        lineno++;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = 0;
        if (n == 0 || line[0] == '#' || line[0] == '"') continue;
        char *p = line, *tag = "";
        if (strncmp(p, "Tag=", 4) == 0) {
            tag = p + 4;
            char *comma = strchr(tag, ',');
            if (!comma) {
                rc = text_errf(err, err_len, "%s:%ld: a tag without an interval", path, lineno);
                break;
            }
            *comma = 0;
            p = comma + 1;
        }
        char *fields[4], *save = NULL;
        int nf = 0;
        for (char *tok = strtok_r(p, ",", &save); tok && nf < 4; tok = strtok_r(NULL, ",", &save))
            fields[nf++] = tok;
        char *e0, *e1, *e2;
        double start = nf == 4 ? strtod(fields[0], &e0) : 0;
        double len = nf == 4 ? strtod(fields[1], &e1) : 0;
        double max = nf == 4 ? strtod(fields[2], &e2) : 0;
        if (nf != 4 || *e0 || *e1 || *e2 || e0 == fields[0] || e1 == fields[1] || e2 == fields[2]) {
            rc = text_errf(err, err_len, "%s:%ld: not an interval line (expected "
                        "[Tag=...,]start,length,max,histogram)", path, lineno);
            break;
        }
        char derr[256];
        hist_free(h);                           /* empty, chunks released */
        /* Interval_Max is the exact max only in our unit: accept it if it is
         * a whole number in the histogram's top bucket (decode checks). */
        int64_t max_us = max >= 0 && max < 9e15 && max == floor(max) ? (int64_t)max : -1;
        if (hlog_decode_base64(fields[3], strlen(fields[3]), max_us, h, derr, sizeof derr) != 0) {
            rc = text_errf(err, err_len, "%s:%ld: %s", path, lineno, derr);
            break;
        }
        rc = raw ? raw(ctx, tag, start, len, max, h, fields[3], strlen(fields[3])) : fn(ctx, tag, start, len, max, h);
    }
    if (rc == 0 && ferror(f)) rc = text_errf(err, err_len, "%s: read error", path);
    free(line);
    hist_free(h);
    free(h);
    return rc;
}

int hlog_read_stream(FILE *f, const char *path, hlog_line_fn fn, void *ctx, char *err, size_t err_len) {
    return hlog_read_lines(f, path, fn, NULL, ctx, err, err_len);
}

int hlog_read_raw(const char *path, hlog_raw_fn fn, void *ctx, char *err, size_t err_len) {
    FILE *f = fopen(path, "r");
    if (!f) return text_errf(err, err_len, "%s: %s", path, strerror(errno));
    int rc = hlog_read_lines(f, path, NULL, fn, ctx, err, err_len);
    fclose(f);
    return rc;
}
