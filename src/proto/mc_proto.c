/* mc_proto.c - memcached text and meta protocols: command encoders and an
 * incremental reply parser (one VALUE item, one meta reply (VA with its data,
 * HD, EN, NF, NS, EX, MN) or one status line per call).
 * Pure functions over caller buffers: no sockets, no allocation, no blocking,
 * no reads past `len`.  It does not validate that a reply matches the command
 * that was sent (the connection layer owns that); of the meta commands it
 * encodes only mg (the binding sends the others as text commands); no binary
 * protocol. */
#include "proto/mc_proto.h"

#include <string.h>

/* A reply line longer than this without "\r\n" is garbage: the longest real
 * one is a VALUE header (~ 6 + 250 + 3 * 21 bytes) or a short error text. */
#define MC_PARSE_LINE_MAX 2048

typedef struct mc_w {
    char *p;
    size_t cap;
    size_t len;
    int overflow;
} mc_w;

/* ---- small helpers ---------------------------------------------------- */

static int mc_is_digit(char ch) { return ch >= '0' && ch <= '9'; }

static int mc_eq(const char *p, size_t n, const char *lit) {
    size_t m = strlen(lit);
    return n == m && memcmp(p, lit, m) == 0;
}

static int mc_starts(const char *p, size_t n, const char *lit) {
    size_t m = strlen(lit);
    return n >= m && memcmp(p, lit, m) == 0;
}

/* Decimal digits only, 1..20 of them, no overflow. */
static int mc_parse_u64(const char *p, size_t n, uint64_t *out) {
    uint64_t v = 0;
    if (n == 0 || n > 20) return -1;
    for (size_t i = 0; i < n; i++) {
        if (!mc_is_digit(p[i])) return -1;
        uint64_t d = (uint64_t)(p[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

/* Next space-separated token of line[*pos..n); 0 when there is none. */
static int mc_next_tok(const char *line, size_t n, size_t *pos, const char **tp,
                       size_t *tn) {
    size_t i = *pos;
    while (i < n && line[i] == ' ') i++;
    size_t start = i;
    while (i < n && line[i] != ' ') i++;
    *pos = i;
    *tp = line + start;
    *tn = i - start;
    return *tn > 0;
}

int mc_key_valid(const char *key, size_t len) {
    if (key == NULL || len == 0 || len > MC_KEY_MAX) return 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)key[i];
        if (ch <= 0x20 || ch == 0x7f) return 0;
    }
    return 1;
}

/* ---- parser ----------------------------------------------------------- */

static size_t mc_bad(mc_reply *r) {
    r->kind = MC_R_BAD;
    return 0;
}

static size_t mc_need(mc_reply *r, size_t need) {
    r->kind = MC_R_NEED_MORE;
    r->need_bytes = need;
    return 0;
}

/* Keywords a reply line may start with; `open` ones may be followed by more. */
static const struct { const char *kw; int open; } mc_line_starts[] = {
    {"VALUE ", 1}, {"END", 0},     {"STORED", 0},       {"NOT_STORED", 0},
    {"EXISTS", 0}, {"NOT_FOUND", 0}, {"DELETED", 0},    {"TOUCHED", 0},
    {"ERROR", 1},  {"CLIENT_ERROR", 1}, {"SERVER_ERROR", 1},
};

/* Two-letter codes of the meta replies, in mc_kind order from MC_R_VA. */
static const char mc_meta_codes[][3] = {"VA", "HD", "EN", "NF", "NS", "EX", "MN"};
#define MC_META_NCODES (sizeof mc_meta_codes / sizeof mc_meta_codes[0])

/* The meta code line[0..2) stands for, when line[0..n) starts with it and
 * then ends or has a space; else MC_R_BAD. */
static mc_kind mc_meta_code(const char *line, size_t n) {
    if (n < 2 || (n > 2 && line[2] != ' ')) return MC_R_BAD;
    for (size_t i = 0; i < MC_META_NCODES; i++)
        if (line[0] == mc_meta_codes[i][0] && line[1] == mc_meta_codes[i][1])
            return (mc_kind)(MC_R_VA + (int)i);
    return MC_R_BAD;
}

/* Could line[0..n) (n > 0, no '\n' yet) still become a meta reply line? */
static int mc_meta_prefix_ok(const char *line, size_t n) {
    for (size_t i = 0; i < MC_META_NCODES; i++) {
        if (line[0] != mc_meta_codes[i][0]) continue;
        if (n == 1) return 1;
        if (line[1] == mc_meta_codes[i][1]) return n == 2 || line[2] == ' ';
    }
    return 0;
}

/* Could buf[0..n) (no '\n' yet) still become a valid reply line? */
static int mc_prefix_ok(const char *buf, size_t n) {
    if (n > 0 && buf[n - 1] == '\r') n--;
    if (n == 0) return 1;
    if (mc_meta_prefix_ok(buf, n)) return 1;
    if (mc_is_digit(buf[0])) {
        for (size_t i = 0; i < n; i++)
            if (!mc_is_digit(buf[i]) && buf[i] != ' ') return 0;
        return 1;
    }
    for (size_t i = 0; i < sizeof mc_line_starts / sizeof mc_line_starts[0]; i++) {
        const char *kw = mc_line_starts[i].kw;
        size_t m = strlen(kw);
        size_t k = n < m ? n : m;
        if (memcmp(buf, kw, k) != 0) continue;
        if (n <= m || mc_line_starts[i].open) return 1;
    }
    return 0;
}

/* "VALUE <key> <flags> <bytes> [<cas>]"; hdr = bytes up to and incl. "\r\n". */
static size_t mc_parse_value(const char *buf, size_t len, const char *line,
                             size_t n, size_t hdr, mc_reply *r) {
    const char *t[5];
    size_t tn[5], pos = 6, nt = 0;
    uint64_t flags, bytes, cas = 0;
    while (nt < 5 && mc_next_tok(line, n, &pos, &t[nt], &tn[nt])) nt++;
    if (nt < 3 || nt > 4) return mc_bad(r);
    if (!mc_key_valid(t[0], tn[0])) return mc_bad(r);
    if (mc_parse_u64(t[1], tn[1], &flags) || flags > UINT32_MAX) return mc_bad(r);
    if (mc_parse_u64(t[2], tn[2], &bytes)) return mc_bad(r);
    if (nt == 4 && mc_parse_u64(t[3], tn[3], &cas)) return mc_bad(r);
    if (bytes > (uint64_t)(SIZE_MAX - hdr - 2)) return mc_bad(r);
    size_t total = hdr + (size_t)bytes + 2;
    if (len < total) return mc_need(r, total);
    if (buf[total - 2] != '\r' || buf[total - 1] != '\n') return mc_bad(r);
    r->kind = MC_R_VALUE;
    r->key = t[0];
    r->key_len = tn[0];
    r->flags = (uint32_t)flags;
    r->cas = cas;
    r->data = buf + hdr;
    r->data_len = (size_t)bytes;
    return total;
}

/* "CLIENT_ERROR msg" / "SERVER_ERROR msg" / "ERROR [msg]" */
static int mc_parse_error(const char *line, size_t n, mc_reply *r) {
    static const struct { const char *kw; mc_kind kind; } errs[] = {
        {"CLIENT_ERROR", MC_R_CLIENT_ERROR},
        {"SERVER_ERROR", MC_R_SERVER_ERROR},
        {"ERROR", MC_R_ERROR},
    };
    for (size_t i = 0; i < sizeof errs / sizeof errs[0]; i++) {
        size_t m = strlen(errs[i].kw);
        if (!mc_starts(line, n, errs[i].kw) || (n > m && line[m] != ' ')) continue;
        r->kind = errs[i].kind;
        r->msg = line + (n > m ? m + 1 : m);
        r->msg_len = n > m ? n - m - 1 : 0;
        return 1;
    }
    return 0;
}

/* incr/decr reply: digits, optionally followed by spaces. */
static int mc_parse_number(const char *line, size_t n, mc_reply *r) {
    size_t d = 0;
    while (d < n && mc_is_digit(line[d])) d++;
    for (size_t i = d; i < n; i++)
        if (line[i] != ' ') return 0;
    if (mc_parse_u64(line, d, &r->number)) return 0;
    r->kind = MC_R_NUMBER;
    return 1;
}

static int mc_parse_status(const char *line, size_t n, mc_reply *r) {
    static const struct { const char *kw; mc_kind kind; } st[] = {
        {"END", MC_R_END},         {"STORED", MC_R_STORED},
        {"NOT_STORED", MC_R_NOT_STORED}, {"EXISTS", MC_R_EXISTS},
        {"NOT_FOUND", MC_R_NOT_FOUND},   {"DELETED", MC_R_DELETED},
        {"TOUCHED", MC_R_TOUCHED},
    };
    for (size_t i = 0; i < sizeof st / sizeof st[0]; i++) {
        if (mc_eq(line, n, st[i].kw)) {
            r->kind = st[i].kind;
            return 1;
        }
    }
    return 0;
}

/* One meta flag token ("f5", "c123", "kkey", "O1", "t-1", "W", ...):
 * a letter, then bytes that are not controls.  f, c and k fill r; the
 * others are accepted and ignored.  0, or -1 when it is malformed. */
static int mc_meta_flag(const char *t, size_t n, mc_reply *r) {
    uint64_t v;
    char f = t[0];
    if (!((f >= 'a' && f <= 'z') || (f >= 'A' && f <= 'Z'))) return -1;
    for (size_t i = 1; i < n; i++)
        if ((unsigned char)t[i] < 0x20 || t[i] == 0x7f) return -1;
    if (f == 'f') {
        if (mc_parse_u64(t + 1, n - 1, &v) || v > UINT32_MAX) return -1;
        r->flags = (uint32_t)v;
    } else if (f == 'c') {
        if (mc_parse_u64(t + 1, n - 1, &r->cas)) return -1;
    } else if (f == 'k') {
        if (!mc_key_valid(t + 1, n - 1)) return -1;
        r->key = t + 1;
        r->key_len = n - 1;
    }
    return 0;
}

/* A meta reply line line[0..n) of kind k (its code checked), hdr bytes with
 * "\r\n"; VA's data follows in buf. */
static size_t mc_meta_parse(const char *buf, size_t len, const char *line, size_t n,
                            size_t hdr, mc_kind k, mc_reply *r) {
    const char *t;
    size_t tn, pos = 2;
    uint64_t bytes = 0;
    if (k == MC_R_VA) {
        if (!mc_next_tok(line, n, &pos, &t, &tn) || mc_parse_u64(t, tn, &bytes)) return mc_bad(r);
        if (bytes > (uint64_t)(SIZE_MAX - hdr - 2)) return mc_bad(r);
    }
    while (mc_next_tok(line, n, &pos, &t, &tn))
        if (mc_meta_flag(t, tn, r) != 0) return mc_bad(r);
    if (k != MC_R_VA) {
        r->kind = k;
        return hdr;
    }
    size_t total = hdr + (size_t)bytes + 2;
    if (len < total) return mc_need(r, total);
    if (buf[total - 2] != '\r' || buf[total - 1] != '\n') return mc_bad(r);
    r->kind = MC_R_VA;
    r->data = buf + hdr;
    r->data_len = (size_t)bytes;
    return total;
}

size_t mc_parse(const char *buf, size_t len, mc_reply *r) {
    memset(r, 0, sizeof *r);
    if (buf == NULL || len == 0) return mc_need(r, 0);
    size_t scan = len < MC_PARSE_LINE_MAX ? len : MC_PARSE_LINE_MAX;
    const char *lf = memchr(buf, '\n', scan);
    if (lf == NULL) {
        if (len >= MC_PARSE_LINE_MAX || !mc_prefix_ok(buf, len)) return mc_bad(r);
        return mc_need(r, 0);
    }
    size_t hdr = (size_t)(lf - buf) + 1;
    if (hdr < 2 || buf[hdr - 2] != '\r') return mc_bad(r);
    size_t n = hdr - 2;
    mc_kind meta = mc_meta_code(buf, n);
    if (meta != MC_R_BAD) return mc_meta_parse(buf, len, buf, n, hdr, meta, r);
    if (mc_starts(buf, n, "VALUE ")) return mc_parse_value(buf, len, buf, n, hdr, r);
    if (n > 0 && mc_is_digit(buf[0])) return mc_parse_number(buf, n, r) ? hdr : mc_bad(r);
    if (mc_parse_status(buf, n, r) || mc_parse_error(buf, n, r)) return hdr;
    return mc_bad(r);
}

/* ---- names ------------------------------------------------------------ */

const char *mc_kind_name(mc_kind k) {
    static const char *const names[] = {
        "NEED_MORE", "VALUE",     "END",     "STORED", "NOT_STORED",
        "EXISTS",    "NOT_FOUND", "DELETED", "TOUCHED", "NUMBER",
        "ERROR",     "CLIENT_ERROR", "SERVER_ERROR", "BAD",
        "VA", "HD", "EN", "NF", "NS", "EX", "MN",
    };
    if ((unsigned)k >= sizeof names / sizeof names[0]) return "UNKNOWN";
    return names[k];
}

int mc_kind_is_meta(mc_kind k) { return k >= MC_R_VA && k <= MC_R_MN; }

const char *mc_cmd_name(mc_cmd c) {
    static const char *const names[] = {"set", "add", "replace", "append", "prepend", "cas"};
    if ((unsigned)c >= sizeof names / sizeof names[0]) return "unknown";
    return names[c];
}

/* ---- encoders --------------------------------------------------------- */

static void mc_w_bytes(mc_w *w, const char *p, size_t n) {
    if (n == 0) return;
    if (w->overflow || n > w->cap - w->len) {
        w->overflow = 1;
        return;
    }
    memcpy(w->p + w->len, p, n);
    w->len += n;
}

static void mc_w_str(mc_w *w, const char *s) { mc_w_bytes(w, s, strlen(s)); }

static void mc_w_u64(mc_w *w, uint64_t v) {
    char tmp[24];
    size_t i = sizeof tmp;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    mc_w_bytes(w, tmp + i, sizeof tmp - i);
}

static void mc_w_i64(mc_w *w, int64_t v) {
    if (v < 0) {
        mc_w_bytes(w, "-", 1);
        mc_w_u64(w, (uint64_t)0 - (uint64_t)v);
    } else {
        mc_w_u64(w, (uint64_t)v);
    }
}

/* "<verb> <key>" */
static void mc_w_head(mc_w *w, const char *verb, const char *key, size_t key_len) {
    mc_w_str(w, verb);
    mc_w_bytes(w, " ", 1);
    mc_w_bytes(w, key, key_len);
}

static size_t mc_w_end(mc_w *w) {
    mc_w_bytes(w, "\r\n", 2);
    return w->overflow ? 0 : w->len;
}

size_t mc_encode_storage(char *out, size_t cap, mc_cmd cmd, const char *key,
                         size_t key_len, uint32_t flags, int64_t exptime,
                         size_t value_len, uint64_t cas) {
    mc_w w = {out, cap, 0, 0};
    if ((unsigned)cmd > MC_CAS) return 0;
    mc_w_head(&w, mc_cmd_name(cmd), key, key_len);
    mc_w_bytes(&w, " ", 1);
    mc_w_u64(&w, flags);
    mc_w_bytes(&w, " ", 1);
    mc_w_i64(&w, exptime);
    mc_w_bytes(&w, " ", 1);
    mc_w_u64(&w, (uint64_t)value_len);
    if (cmd == MC_CAS) {
        mc_w_bytes(&w, " ", 1);
        mc_w_u64(&w, cas);
    }
    return mc_w_end(&w);
}

size_t mc_encode_retrieval(char *out, size_t cap, int with_cas,
                           const char *const *keys, const size_t *key_lens,
                           size_t nkeys) {
    mc_w w = {out, cap, 0, 0};
    if (nkeys == 0) return 0;
    mc_w_str(&w, with_cas ? "gets" : "get");
    for (size_t i = 0; i < nkeys; i++) {
        mc_w_bytes(&w, " ", 1);
        mc_w_bytes(&w, keys[i], key_lens[i]);
    }
    return mc_w_end(&w);
}

size_t mc_encode_delete(char *out, size_t cap, const char *key, size_t key_len) {
    mc_w w = {out, cap, 0, 0};
    mc_w_head(&w, "delete", key, key_len);
    return mc_w_end(&w);
}

size_t mc_encode_arith(char *out, size_t cap, int incr, const char *key,
                       size_t key_len, uint64_t delta) {
    mc_w w = {out, cap, 0, 0};
    mc_w_head(&w, incr ? "incr" : "decr", key, key_len);
    mc_w_bytes(&w, " ", 1);
    mc_w_u64(&w, delta);
    return mc_w_end(&w);
}

size_t mc_encode_touch(char *out, size_t cap, const char *key, size_t key_len,
                       int64_t exptime) {
    mc_w w = {out, cap, 0, 0};
    mc_w_head(&w, "touch", key, key_len);
    mc_w_bytes(&w, " ", 1);
    mc_w_i64(&w, exptime);
    return mc_w_end(&w);
}

size_t mc_encode_meta_get(char *out, size_t cap, const char *key, size_t key_len,
                          int with_cas, int with_key) {
    mc_w w = {out, cap, 0, 0};
    mc_w_head(&w, "mg", key, key_len);
    mc_w_str(&w, " v f");
    if (with_cas) mc_w_str(&w, " c");
    if (with_key) mc_w_str(&w, " k");
    return mc_w_end(&w);
}
