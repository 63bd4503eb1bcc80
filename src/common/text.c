/* text.c - escaping of untrusted text for the outputs (see text.h): decides
 * character by character what is kept, using libunistring's UTF-8 decoder
 * (u8_mbtoucr rejects overlong forms, surrogates, code points past U+10FFFF
 * and cut sequences), and writes \xHH, \t, \n, \r for the rest.  It does not
 * quote for any format: CSV, JSON, XML and HTML writers still do their own.
 * Also text_errf, the error-message formatter every layer shares, and
 * text_usage_error, the commands' usage-error message. */
#include "common/text.h"

#include "common/exit_codes.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistr.h>

/* Code points that are valid UTF-8 but must not reach a terminal or a page
 * as they are: C1 controls and the bidirectional overrides and isolates. */
static int text_unsafe_cp(ucs4_t c) {
    return (c >= 0x80 && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

size_t text_safe_len(const char *s, size_t n) {
    unsigned char c = (unsigned char)s[0];
    if (c < 0x80) return c >= 0x20 && c != 0x7f ? 1 : 0;
    ucs4_t cp;
    int k = u8_mbtoucr(&cp, (const uint8_t *)s, n);
    if (k <= 0 || text_unsafe_cp(cp)) return 0;
    return (size_t)k;
}

int text_is_clean(const char *s, size_t len) {
    size_t i = 0;
    while (i < len) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7f) {           /* the common case: printable ASCII */
            i++;
            continue;
        }
        size_t k = text_safe_len(s + i, len - i);
        if (k == 0) return 0;
        i += k;
    }
    return 1;
}

/* The escape of byte c into e (not NUL-terminated); returns its length. */
static size_t text_escape_byte(unsigned char c, char e[TEXT_ESC_MAX]) {
    static const char hex[] = "0123456789abcdef";
    e[0] = '\\';
    switch (c) {
    case '\t': e[1] = 't'; return 2;
    case '\n': e[1] = 'n'; return 2;
    case '\r': e[1] = 'r'; return 2;
    default:
        e[1] = 'x';
        e[2] = hex[c >> 4];
        e[3] = hex[c & 15];
        return 4;
    }
}

size_t text_escape(const char *in, size_t len, char *out, size_t cap) {
    size_t i = 0, o = 0;
    if (cap == 0) return 0;
    while (i < len) {
        char e[TEXT_ESC_MAX];
        const char *piece = in + i;
        size_t k = text_safe_len(in + i, len - i), adv = k;
        if (k == 0) {
            k = text_escape_byte((unsigned char)in[i], e);
            piece = e;
            adv = 1;
        }
        if (k >= cap - o) break;              /* keep room for the NUL */
        memcpy(out + o, piece, k);
        o += k;
        i += adv;
    }
    out[o] = 0;
    return o;
}

const char *text_clean(const char *s, char *buf, size_t cap) {
    size_t len = strlen(s);
    if (text_is_clean(s, len)) return s;
    text_escape(s, len, buf, cap);
    return buf;
}

char *text_escape_dup(const char *s) {
    size_t len = strlen(s), cap = len * TEXT_ESC_MAX + 1;
    char *out = malloc(cap);
    if (out) text_escape(s, len, out, cap);
    return out;
}

size_t text_distance(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b), row[256];
    if (la > 255 || lb > 255) return (size_t)-1;
    for (size_t j = 0; j <= lb; j++) row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

void text_near_init(text_near *n, const char *want) {
    size_t l = strlen(want);
    n->want = want;
    n->d = (l / 3 > 2 ? l / 3 : 2) + 1;     /* farther than that: no hint */
    n->best[0] = 0;
}

void text_near_try(void *near, const char *candidate) {
    text_near *n = near;
    size_t d = text_distance(n->want, candidate);
    if (d == 0 || d >= n->d || strlen(candidate) >= sizeof n->best) return;
    n->d = d;
    snprintf(n->best, sizeof n->best, "%s", candidate);
}

int text_errf(char *err, size_t err_len, const char *fmt, ...) {
    if (err && err_len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, err_len, fmt, ap);
        va_end(ap);
    }
    return -1;
}

int text_usage_error(const char *prefix, const char *fmt, const char *arg, const char *hint) {
    fprintf(stderr, "%s: ", prefix);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n%s\n", hint);
    return EXIT_USAGE;
}
