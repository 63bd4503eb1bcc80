/* test_hlog.c - unit tests for src/report/hlog.c (HdrHistogram V2 encoding,
 * interval log writer and reader) and src/cmd/dist.c (redis-benchmark and
 * ab style distributions).
 *
 * The encodings are checked byte by byte against the format (known vectors
 * worked out by hand from HdrHistogram's V2 layout), and random histograms
 * are decoded by a decoder written independently here (zlib's uncompress,
 * big-endian header, ZigZag LEB128-64b9B) and must round-trip every count
 * exactly.  RNG has a fixed seed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "cli.h"
#include "cmd/dist.h"
#include "report/hlog.h"
#include "stats/hist.h"

static hist g_a, g_b, g_c;

/* ---- fixed-seed RNG (xorshift64*) ---- */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng_u64(void) {
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}
static int64_t rng_range(int64_t lo, int64_t hi) { return lo + (int64_t)(rng_u64() % (uint64_t)(hi - lo + 1)); }

/* ---- an independent decoder ---- */

static uint64_t be(const uint8_t *p, int n) {
    uint64_t v = 0;
    while (n--) v = v << 8 | *p++;
    return v;
}

/* One ZigZag LEB128-64b9B word: bytes 1..8 carry 7 bits and a continuation
 * bit, byte 9 carries 8 bits. */
static int64_t zz_read(const uint8_t **pp, const uint8_t *end) {
    const uint8_t *p = *pp;
    uint64_t u = 0;
    int shift = 0;
    for (;;) {
        assert_true(p < end);
        uint8_t byte = *p++;
        if (shift == 56) {
            u |= (uint64_t)byte << 56;
            break;
        }
        u |= (uint64_t)(byte & 0x7f) << shift;
        shift += 7;
        if (!(byte & 0x80)) break;
    }
    *pp = p;
    return (u & 1) ? -(int64_t)(u >> 1) - 1 : (int64_t)(u >> 1);
}

/* Decodes a payload into counts[HIST_COUNTS_LEN]; returns the number of
 * counts the payload covers (index of the last word + 1). */
static int64_t decode_payload(const uint8_t *p, size_t n, int64_t *counts) {
    assert_true(n >= 40);
    assert_int_equal(be(p, 4), 0x1c849313);          /* V2 encoding cookie base 0x1c849303 | 0x10 */
    uint64_t counts_len = be(p + 4, 4);
    assert_int_equal(counts_len, n - 40);
    assert_int_equal(be(p + 8, 4), 0);                /* normalizing index offset */
    assert_int_equal(be(p + 12, 4), 3);               /* significant digits */
    assert_int_equal(be(p + 16, 8), 1);               /* lowest discernible value */
    assert_int_equal(be(p + 24, 8), 3600000000ull);   /* highest trackable value */
    assert_int_equal(be(p + 32, 8), 0x3ff0000000000000ull);   /* 1.0 */
    memset(counts, 0, HIST_COUNTS_LEN * sizeof *counts);
    const uint8_t *q = p + 40, *end = p + n;
    int64_t idx = 0;
    int prev_zero_run = 0;
    while (q < end) {
        int64_t v = zz_read(&q, end);
        if (v < 0) {
            assert_true(v < -1);                      /* a single zero is written as 0 */
            assert_false(prev_zero_run);              /* runs are maximal */
            idx += -v;
            prev_zero_run = 1;
        } else {
            assert_true(idx < HIST_COUNTS_LEN);
            counts[idx++] = v;
            prev_zero_run = v == 0;
        }
    }
    return idx;
}

/* Inflates a compressed encoding (cookie, length, zlib stream). */
static uint8_t *inflate_compressed(const uint8_t *buf, size_t len, size_t *out_len) {
    assert_true(len > 8);
    assert_int_equal(be(buf, 4), 0x1c849314);         /* V2 compressed cookie base 0x1c849304 | 0x10 */
    assert_int_equal(be(buf + 4, 4), len - 8);
    assert_int_equal(buf[8], 0x78);                   /* a zlib (RFC 1950) stream: CMF of deflate, 32K window */
    assert_int_equal(((unsigned)buf[8] << 8 | buf[9]) % 31, 0);
    uLongf n = 40 + (uLongf)HIST_COUNTS_LEN * 9;
    uint8_t *raw = malloc(n);
    assert_non_null(raw);
    assert_int_equal(uncompress(raw, &n, buf + 8, (uLong)(len - 8)), Z_OK);
    *out_len = n;
    return raw;
}

static uint8_t *b64_decode(const char *s, size_t *out_len) {
    static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = strlen(s);
    assert_int_equal(n % 4, 0);
    uint8_t *out = malloc(n / 4 * 3 + 1);
    size_t o = 0;
    for (size_t i = 0; i < n; i += 4) {
        uint32_t v = 0;
        int pad = 0;
        for (int j = 0; j < 4; j++) {
            const char *c = s[i + j] == '=' ? NULL : strchr(al, s[i + j]);
            if (s[i + j] == '=') pad++;
            else assert_true(c != NULL && *c != 0 && pad == 0);
            v = v << 6 | (c ? (uint32_t)(c - al) : 0);
        }
        assert_true(pad == 0 || i + 4 == n);
        out[o++] = (uint8_t)(v >> 16);
        if (pad < 2) out[o++] = (uint8_t)(v >> 8);
        if (pad < 1) out[o++] = (uint8_t)v;
    }
    *out_len = o;
    return out;
}

static int64_t g_counts[HIST_COUNTS_LEN];

/* Same counts at every index (the chunk layouts may differ). */
static void assert_counts_equal(const hist *a, const hist *b) {
    for (int32_t i = 0; i < HIST_COUNTS_LEN; i++)
        if (hist_count_at(a, i) != hist_count_at(b, i))
            fail_msg("count %d: %lld, want %lld", i, (long long)hist_count_at(a, i), (long long)hist_count_at(b, i));
}

/* Checks that the base64 line field holds exactly h's counts. */
static void check_b64_is(const char *b64, const hist *h) {
    size_t n, rn;
    uint8_t *bin = b64_decode(b64, &n);
    uint8_t *raw = inflate_compressed(bin, n, &rn);
    int64_t covered = decode_payload(raw, rn, g_counts);
    assert_int_equal(covered, h->total ? hist_index_of(h->max_us) + 1 : 1);
    for (int i = 0; i < HIST_COUNTS_LEN; i++)
        if (g_counts[i] != hist_count_at(h, i)) fail_msg("count %d: %lld, want %lld", i, (long long)g_counts[i], (long long)hist_count_at(h, i));
    free(raw);
    free(bin);
}

/* ---- payload vectors ---- */

static uint8_t *payload(const hist *h, size_t *n) {
    uint8_t *p;
    assert_int_equal(hlog_encode_payload(h, &p, n), 0);
    return p;
}

static void test_payload_empty(void **state) {
    (void)state;
    static const uint8_t want[] = {
        0x1c, 0x84, 0x93, 0x13, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 3,
        0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0xd6, 0x93, 0xa4, 0x00,
        0x3f, 0xf0, 0, 0, 0, 0, 0, 0,
        0x00,                                      /* HdrHistogram encodes index 0 of an empty histogram */
    };
    hist_free(&g_a);
    size_t n;
    uint8_t *p = payload(&g_a, &n);
    assert_int_equal(n, sizeof want);
    assert_memory_equal(p, want, sizeof want);
    free(p);
}

/* The counts part of the payload of a histogram. */
static void expect_counts(const hist *h, const uint8_t *want, size_t want_len) {
    size_t n;
    uint8_t *p = payload(h, &n);
    assert_int_equal(n, 40 + want_len);
    assert_int_equal(be(p + 4, 4), want_len);
    assert_memory_equal(p + 40, want, want_len);
    free(p);
}

static void test_payload_vectors(void **state) {
    (void)state;
    /* 1 us once, 3 us twice: counts 0,1,0,2 -> a lone zero is 0 (not a run), counts zigzag 2n */
    hist_free(&g_a);
    hist_record_us(&g_a, 1);
    hist_record_n_us(&g_a, 3, 2);
    expect_counts(&g_a, (const uint8_t[]){0x00, 0x02, 0x00, 0x04}, 4);

    /* 100 us once: a run of 100 zeros is -100 -> zigzag 199 -> LEB128 c7 01, then 1 -> 02 */
    hist_free(&g_a);
    hist_record_us(&g_a, 100);
    expect_counts(&g_a, (const uint8_t[]){0xc7, 0x01, 0x02}, 3);

    /* 0 us five times: the histogram ends at index 0 */
    hist_free(&g_a);
    hist_record_n_us(&g_a, 0, 5);
    expect_counts(&g_a, (const uint8_t[]){0x0a}, 1);

    /* 64 at index 0: zigzag 128 needs two bytes */
    hist_free(&g_a);
    hist_record_n_us(&g_a, 0, 64);
    expect_counts(&g_a, (const uint8_t[]){0x80, 0x01}, 2);

    /* 2^40 at 5 us: run of 5 zeros (-5 -> 09), zigzag 2^41 in 6 bytes */
    hist_free(&g_a);
    hist_record_n_us(&g_a, 5, (int64_t)1 << 40);
    expect_counts(&g_a, (const uint8_t[]){0x09, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40}, 7);

    /* 2^62 at index 0: zigzag 2^63 takes all 9 bytes, the 9th holding 8 bits */
    hist_free(&g_a);
    hist_record_n_us(&g_a, 0, (int64_t)1 << 62);
    expect_counts(&g_a, (const uint8_t[]){0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80}, 9);

    /* 2048 us is the first value of bucket 1 (index 2048), 2049 shares it */
    hist_free(&g_a);
    hist_record_us(&g_a, 2048);
    hist_record_us(&g_a, 2049);
    /* run of 2048 zeros: -2048 -> zigzag 4095 -> ff 1f; count 2 -> 04 */
    expect_counts(&g_a, (const uint8_t[]){0xff, 0x1f, 0x04}, 3);

    /* the largest value (1 h, clamped) ends the counts at its index */
    hist_free(&g_a);
    hist_record_us(&g_a, HIST_HIGHEST_US + 5);
    size_t n;
    uint8_t *p = payload(&g_a, &n);
    int64_t covered = decode_payload(p, n, g_counts);
    assert_int_equal(covered, hist_index_of(HIST_HIGHEST_US) + 1);
    assert_int_equal(g_counts[hist_index_of(HIST_HIGHEST_US)], 1);
    free(p);
}

/* ---- random round trips ---- */

static void fill_random(hist *h, int kind) {
    hist_free(h);
    int n = kind == 0 ? 1 : kind == 1 ? 50 : 20000;
    for (int i = 0; i < n; i++) {
        int64_t v;
        switch (rng_u64() % 4) {
        case 0: v = rng_range(0, 2047); break;
        case 1: v = rng_range(2048, 100000); break;
        case 2: v = rng_range(100000, 60000000); break;
        default: v = rng_range(0, HIST_HIGHEST_US + 1000); break;
        }
        hist_record_n_us(h, v, rng_u64() % 8 == 0 ? rng_range(1, 1000000000) : rng_range(1, 3));
    }
}

static void test_round_trip_random(void **state) {
    (void)state;
    for (int round = 0; round < 60; round++) {
        fill_random(&g_a, round % 3);
        /* the compressed encoding, inflated and decoded here */
        uint8_t *bin;
        size_t n, rn;
        assert_int_equal(hlog_encode_compressed(&g_a, &bin, &n), 0);
        uint8_t *raw = inflate_compressed(bin, n, &rn);
        size_t pn;
        uint8_t *p = payload(&g_a, &pn);
        assert_int_equal(rn, pn);                     /* the compressed one holds the payload */
        assert_memory_equal(raw, p, pn);
        int64_t covered = decode_payload(raw, rn, g_counts);
        assert_int_equal(covered, hist_index_of(g_a.max_us) + 1);
        int64_t total = 0;
        for (int i = 0; i < HIST_COUNTS_LEN; i++) {
            if (g_counts[i] != hist_count_at(&g_a, i)) fail_msg("round %d index %d", round, i);
            total += g_counts[i];
        }
        assert_int_equal(total, g_a.total);
        /* the base64 of the same bytes */
        char *b64 = hlog_encode_base64(&g_a);
        assert_non_null(b64);
        assert_memory_equal(b64, "HISTFAAA", 8);     /* what every V2 compressed histogram starts with */
        size_t bn;
        uint8_t *bb = b64_decode(b64, &bn);
        assert_int_equal(bn, n);
        assert_memory_equal(bb, bin, n);
        /* and luamech's own reader gets the same histogram back */
        char err[256];
        hist_free(&g_b);
        assert_int_equal(hlog_decode_base64(b64, strlen(b64), g_a.max_us, &g_b, err, sizeof err), 0);
        assert_int_equal(g_b.total, g_a.total);
        assert_int_equal(g_b.lo_idx, g_a.lo_idx);
        assert_int_equal(g_b.hi_idx, g_a.hi_idx);
        assert_counts_equal(&g_b, &g_a);
        assert_int_equal(g_b.max_us, g_a.max_us);     /* the exact max, given */
        assert_int_equal(g_b.min_us, hist_lowest_equivalent(g_a.min_us));
        for (double pc = 1; pc < 100; pc += 7.3)
            assert_int_equal(hist_percentile_us(&g_b, pc), hist_percentile_us(&g_a, pc));
        /* without the exact max: the top bucket's highest equivalent value */
        hist_free(&g_b);
        assert_int_equal(hlog_decode_compressed(bin, n, -1, &g_b, err, sizeof err), 0);
        assert_int_equal(g_b.max_us, hist_highest_equivalent(g_a.max_us));
        free(bb);
        free(b64);
        free(p);
        free(raw);
        free(bin);
    }
}

static void test_decode_rejects(void **state) {
    (void)state;
    char err[256];
    hist_free(&g_a);
    hist_record_us(&g_a, 42);
    uint8_t *bin;
    size_t n;
    assert_int_equal(hlog_encode_compressed(&g_a, &bin, &n), 0);
    hist_free(&g_b);
    bin[3] ^= 1;                                      /* wrong cookie */
    assert_int_equal(hlog_decode_compressed(bin, n, -1, &g_b, err, sizeof err), -1);
    bin[3] ^= 1;
    assert_int_equal(hlog_decode_compressed(bin, n - 3, -1, &g_b, err, sizeof err), -1);   /* truncated */
    bin[n - 5] ^= 0x55;                               /* corrupt stream (adler32 or data) */
    assert_int_equal(hlog_decode_compressed(bin, n, -1, &g_b, err, sizeof err), -1);
    assert_int_equal(g_b.total, 0);                   /* left unchanged */
    assert_int_equal(hlog_decode_base64("HIST!!!", 7, -1, &g_b, err, sizeof err), -1);
    free(bin);
}

/* A histogram encoded by another implementation: hdr-histogram-js 3.0.1's
 * encodeIntoCompressedBase64 of a histogram (1 us .. 3600000000 us, 3 digits)
 * holding 0 x3, 1, 1500 x7, 3001, 250000 x2 and 3599999999 (it reports p50
 * 1500, p90 250111).  It writes 1 as the normalizing offset and the ratio. */
static void test_decode_other_encoder(void **state) {
    (void)state;
    static const char js[] = "HISTFAAAADN4nJNpmSzMwMDAz8DAwMjAwMDMAAEgNsO1yUsYYHw2ps3ifH/5mdrTWRbfYWQCAJ6NB8s=";
    char err[256];
    hist_free(&g_a);
    hist_record_n_us(&g_a, 0, 3);
    hist_record_us(&g_a, 1);
    hist_record_n_us(&g_a, 1500, 7);
    hist_record_us(&g_a, 3001);
    hist_record_n_us(&g_a, 250000, 2);
    hist_record_us(&g_a, 3599999999);
    hist_free(&g_b);
    if (hlog_decode_base64(js, strlen(js), -1, &g_b, err, sizeof err) != 0) fail_msg("%s", err);
    assert_int_equal(g_b.total, 15);
    assert_counts_equal(&g_b, &g_a);
    assert_int_equal(hist_percentile_us(&g_b, 50), 1500);
    assert_int_equal(hist_percentile_us(&g_b, 90), 250111);
    assert_int_equal(g_b.max_us, hist_highest_equivalent(3599999999));
    assert_int_equal(g_b.min_us, 0);
    /* the independent decoder agrees on the counts (and on its header but for the
     * offset and ratio, which differ) */
    size_t n, rn;
    uint8_t *bin = b64_decode(js, &n);
    uint8_t *raw = inflate_compressed(bin, n, &rn);
    assert_int_equal(be(raw + 8, 4), 1);
    memset(raw + 8, 0, 4);
    memcpy(raw + 32, "\x3f\xf0\0\0\0\0\0\0", 8);
    assert_int_equal(decode_payload(raw, rn, g_counts), hist_index_of(3599999999) + 1);
    for (int32_t i = 0; i < HIST_COUNTS_LEN; i++) assert_int_equal(g_counts[i], hist_count_at(&g_a, i));
    free(raw);
    free(bin);
}

/* ---- tags ---- */

static void test_tags(void **state) {
    (void)state;
    char buf[64];
    assert_int_equal(hlog_tag_escape("All Transactions", buf, sizeof buf), 18);
    assert_string_equal(buf, "All%20Transactions");
    assert_int_equal(hlog_tag_escape("a,b c%\n\x7f", buf, sizeof buf), 18);
    assert_string_equal(buf, "a%2Cb%20c%25%0A%7F");
    assert_string_equal(hlog_tag_unescape(buf), "a,b c%\n\x7f");
    assert_int_equal(hlog_tag_escape("memcached.get_multi", buf, sizeof buf), 19);
    assert_string_equal(buf, "memcached.get_multi");
    char small[6];
    assert_int_equal(hlog_tag_escape("x y z", small, sizeof small), 9);   /* full length, cut output */
    assert_string_equal(small, "x%20y");
}

/* ---- the log file ---- */

static char g_dir[64];

static int setup_dir(void **state) {
    (void)state;
    strcpy(g_dir, "/tmp/test_hlog.XXXXXX");
    return mkdtemp(g_dir) ? 0 : -1;
}

static int teardown_dir(void **state) {
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    return system(cmd) == 0 ? 0 : -1;
}

static char *read_all(const char *path) {
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char *buf = NULL;
    size_t cap = 0;
    ssize_t n = getdelim(&buf, &cap, 0, f);
    fclose(f);
    assert_true(n >= 0);
    return buf;
}

/* Splits s into lines in place. */
static int split_lines(char *s, char **lines, int max) {
    int n = 0;
    for (char *save = NULL, *l = strtok_r(s, "\n", &save); l && n < max; l = strtok_r(NULL, "\n", &save)) lines[n++] = l;
    return n;
}

typedef struct seen {
    int n;
    char tag[8][64];
    double start[8], len[8], max[8];
    int64_t total[8];
} seen;

static int on_line(void *ctx, const char *tag, double start_s, double len_s, double max_us, const hist *h) {
    seen *s = ctx;
    assert_true(s->n < 8);
    snprintf(s->tag[s->n], sizeof s->tag[0], "%s", tag);
    s->start[s->n] = start_s;
    s->len[s->n] = len_s;
    s->max[s->n] = max_us;
    s->total[s->n] = h->total;
    if (s->n == 0) assert_counts_equal(h, &g_a);
    s->n++;
    return 0;
}

static void test_log_file(void **state) {
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/%s", g_dir, HLOG_FILE);
    fill_random(&g_a, 1);
    fill_random(&g_b, 2);
    hist_free(&g_c);
    hlog *l = hlog_open(path, 0);                     /* t = 0 not known yet */
    assert_non_null(l);
    hlog_set_start(l, 1764448296.5);
    hlog_write(l, "All Transactions", 0.0, 1.0, &g_a);
    hlog_set_start(l, 99);                            /* too late: the header is out */
    hlog_write(l, "a,b c%", 0.0, 1.0, &g_b);
    hlog_write(l, "All Transactions", 1.0, 0.25, &g_c);
    /* each line is flushed as written: a killed run leaves whole lines */
    char *early = read_all(path);
    assert_non_null(strstr(early, "Tag=All%20Transactions,1.000,0.250,0.000,"));
    free(early);
    assert_int_equal(hlog_close(l), 0);

    char *text = read_all(path), *lines[16];
    assert_int_equal(text[strlen(text) - 1], '\n');
    int n = split_lines(text, lines, 16);
    assert_int_equal(n, 9);
    assert_string_equal(lines[0], "#[Histogram log format version 1.3]");
    assert_non_null(strstr(lines[2], "microseconds"));
    assert_memory_equal(lines[3], "#[StartTime: 1764448296.500 (seconds since epoch), ", 51);
    assert_string_equal(lines[4], "#[BaseTime: 1764448296.500 (seconds since epoch)]");
    assert_string_equal(lines[5], "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"");
    const char *want_prefix[3] = {"Tag=All%20Transactions,0.000,1.000,", "Tag=a%2Cb%20c%25,0.000,1.000,",
                                  "Tag=All%20Transactions,1.000,0.250,0.000,"};
    const hist *want_h[3] = {&g_a, &g_b, &g_c};
    for (int i = 0; i < 3; i++) {
        char *line = lines[6 + i];
        assert_memory_equal(line, want_prefix[i], strlen(want_prefix[i]));
        /* Tag=..., start, length, max (exact, in us), histogram: 5 fields */
        char *f[6], *save = NULL;
        int nf = 0;
        for (char *t = strtok_r(line, ",", &save); t && nf < 6; t = strtok_r(NULL, ",", &save)) f[nf++] = t;
        assert_int_equal(nf, 5);
        char max[32];
        snprintf(max, sizeof max, "%lld.000", (long long)hist_max_us(want_h[i]));
        assert_string_equal(f[3], max);
        check_b64_is(f[4], want_h[i]);
    }
    free(text);

    seen s = {0};
    char err[256];
    assert_int_equal(hlog_read(path, on_line, &s, err, sizeof err), 0);
    assert_int_equal(s.n, 3);
    assert_string_equal(s.tag[0], "All%20Transactions");
    assert_string_equal(s.tag[1], "a%2Cb%20c%25");
    assert_true(s.start[2] == 1.0 && s.len[2] == 0.25 && s.max[0] == (double)g_a.max_us);
    assert_int_equal(s.total[0], g_a.total);
    assert_int_equal(s.total[1], g_b.total);
    assert_int_equal(s.total[2], 0);

    /* a start given to hlog_open writes the header at once; a bad line is an error naming it */
    l = hlog_open(path, 1000.25);
    assert_non_null(l);
    text = read_all(path);
    assert_non_null(strstr(text, "#[BaseTime: 1000.250 (seconds since epoch)]\n\"StartTimestamp\""));
    free(text);
    assert_int_equal(hlog_close(l), 0);
    FILE *f = fopen(path, "a");
    fputs("Tag=x,0.000,1.000,5.000,HISTFAAAbroken\n", f);
    fclose(f);
    assert_int_equal(hlog_read(path, on_line, &s, err, sizeof err), -1);
    assert_non_null(strstr(err, ":7:"));
    assert_null(hlog_open("/nonexistent-dir/x.hlog", 1));
}

/* Staged lines reach the file only at the commit, all together, in the
 * order staged, byte for byte what hlog_write writes. */
static void test_log_staged(void **state) {
    (void)state;
    char path[] = "/tmp/luamech-hlog-staged-XXXXXX", wpath[] = "/tmp/luamech-hlog-write-XXXXXX";
    int fd = mkstemp(path), wfd = mkstemp(wpath);
    assert_true(fd >= 0 && wfd >= 0);
    close(fd), close(wfd);
    hlog *l = hlog_open(path, 1000), *w = hlog_open(wpath, 1000);
    assert_non_null(l);
    assert_non_null(w);
    hlog_stage(l, "All Transactions", 0.0, 1.0, &g_a);
    hlog_stage(l, "a,b c%", 0.0, 1.0, &g_b);
    char *before = read_all(path);
    assert_null(strstr(before, "Tag="));               /* staged: not in the file yet */
    free(before);
    hlog_commit(l);
    char *after = read_all(path);
    char *a = strstr(after, "Tag=All%20Transactions,0.000,1.000,"), *b = strstr(after, "Tag=a%2Cb%20c%25,0.000,1.000,");
    assert_true(a && b && a < b);
    free(after);
    hlog_stage(l, "All Transactions", 1.0, 0.25, &g_c); /* committed by the close */
    assert_int_equal(hlog_close(l), 0);
    hlog_write(w, "All Transactions", 0.0, 1.0, &g_a);
    hlog_write(w, "a,b c%", 0.0, 1.0, &g_b);
    hlog_write(w, "All Transactions", 1.0, 0.25, &g_c);
    assert_int_equal(hlog_close(w), 0);
    char *staged = read_all(path), *written = read_all(wpath);
    assert_string_equal(staged, written);
    free(staged), free(written);
    unlink(path), unlink(wpath);
}

/* ---- distributions ---- */

static char *capture_redis(const hist *h, double secs) {
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    dist_print_redis(m, "GET", h, secs);
    fclose(m);
    return buf;
}

static void test_dist_redis(void **state) {
    (void)state;
    hist_free(&g_a);
    for (int ms = 1; ms <= 10; ms++) hist_record_us(&g_a, ms * 1000);
    char *s = capture_redis(&g_a, 3);
    assert_string_equal(s,
                        "====== GET ======\n"
                        "  10 requests completed in 3.00 seconds\n\n"
                        "10.00% <= 1 milliseconds\n20.00% <= 2 milliseconds\n30.00% <= 3 milliseconds\n"
                        "40.00% <= 4 milliseconds\n50.00% <= 5 milliseconds\n60.00% <= 6 milliseconds\n"
                        "70.00% <= 7 milliseconds\n80.00% <= 8 milliseconds\n90.00% <= 9 milliseconds\n"
                        "100.00% <= 10 milliseconds\n");
    free(s);

    /* sub-millisecond samples are "<= 1"; the top bucket [3000, 3001] goes by the exact max */
    hist_free(&g_a);
    hist_record_n_us(&g_a, 100, 97);
    hist_record_n_us(&g_a, 1500, 2);
    hist_record_us(&g_a, 3001);
    s = capture_redis(&g_a, 0);
    assert_string_equal(s, "====== GET ======\n  100 requests completed\n\n"
                           "97.00% <= 1 milliseconds\n99.00% <= 2 milliseconds\n100.00% <= 4 milliseconds\n");
    free(s);

    /* percentages are truncated: 99.999% is not 100.00% yet; a bucket counts at or below N ms
     * by its lowest value (HdrHistogram's getPercentileAtOrBelowValue): [3000, 3001] <= 3 */
    hist_free(&g_a);
    hist_record_n_us(&g_a, 500, 99999);
    hist_record_us(&g_a, 3000);
    hist_record_us(&g_a, 5000);
    s = capture_redis(&g_a, 0);
    assert_string_equal(s, "====== GET ======\n  100001 requests completed\n\n"
                           "99.99% <= 1 milliseconds\n99.99% <= 3 milliseconds\n100.00% <= 5 milliseconds\n");
    free(s);

    hist_free(&g_a);
    s = capture_redis(&g_a, 1);
    assert_string_equal(s, "====== GET ======\n  0 requests completed in 1.00 seconds\n\n");
    free(s);
}

static void test_dist_ab(void **state) {
    (void)state;
    hist_free(&g_a);
    for (int ms = 1; ms <= 100; ms++) hist_record_us(&g_a, ms * 1000);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    dist_print_ab(m, &g_a);
    fclose(m);
    /* rank ceil(p% of 100) = p -> p ms, reported as the top of its bucket:
     * 50000 us is in [49984, 50015] (32 us wide), 66000 in [65984, 66047] ... */
    assert_string_equal(buf, "Percentage of the requests served within a certain time (ms)\n"
                             "  50%     50.015\n"
                             "  66%     66.047\n"
                             "  75%     75.007\n"
                             "  80%     80.063\n"
                             "  90%     90.047\n"
                             "  95%     95.039\n"
                             "  98%     98.047\n"
                             "  99%     99.007\n"
                             " 100%    100.000 (longest request)\n");
    free(buf);
}

static void test_dist_cmd(void **state) {
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/%s", g_dir, HLOG_FILE);
    hlog *l = hlog_open(path, 1000);
    hist_free(&g_a);
    hist_record_n_us(&g_a, 400, 90);
    hist_record_n_us(&g_a, 1200, 5);
    hlog_write(l, "GET", 0, 1, &g_a);
    hist_free(&g_b);
    hist_record_n_us(&g_b, 700, 4);
    hist_record_us(&g_b, 2500);
    hlog_write(l, "GET", 1, 1, &g_b);
    hist_free(&g_c);
    hist_record_n_us(&g_c, 10000, 3);
    hlog_write(l, "All Transactions", 0, 1, &g_c);
    hlog_write(l, "All Transactions", 1, 0.5, &g_c);
    assert_int_equal(hlog_close(l), 0);

    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    assert_int_equal(dist_cmd_print(g_dir, "GET", "redis", m), EXIT_OK);
    fclose(m);
    /* both intervals merged: 94 <= 1 ms, 99 <= 2 ms, 100 <= 3 ms */
    assert_string_equal(buf, "====== GET ======\n  100 requests completed in 2.00 seconds\n\n"
                             "94.00% <= 1 milliseconds\n99.00% <= 2 milliseconds\n100.00% <= 3 milliseconds\n");
    free(buf);

    m = open_memstream(&buf, &len);
    assert_int_equal(dist_cmd_print(g_dir, "All Transactions", "ab", m), EXIT_OK);
    assert_int_equal(dist_cmd_print(g_dir, "All%20Transactions", "ab", m), EXIT_OK);   /* the tag as written */
    fclose(m);
    /* 10000 us is in [10000, 10007]; percentiles are capped to the exact max */
    const char *ab = "Percentage of the requests served within a certain time (ms)\n"
                     "  50%     10.000\n  66%     10.000\n  75%     10.000\n  80%     10.000\n"
                     "  90%     10.000\n  95%     10.000\n  98%     10.000\n  99%     10.000\n"
                     " 100%     10.000 (longest request)\n";
    char want[2048];
    snprintf(want, sizeof want, "%s%s", ab, ab);
    assert_string_equal(buf, want);
    free(buf);

    m = open_memstream(&buf, &len);
    assert_int_equal(dist_cmd_print(g_dir, "All Transactions", NULL, m), EXIT_OK);
    fclose(m);
    assert_non_null(strstr(buf, "  6 requests completed in 1.50 seconds\n\n100.00% <= 10 milliseconds\n"));
    free(buf);

    m = open_memstream(&buf, &len);
    assert_int_equal(dist_cmd_print(g_dir, "PUT", "redis", m), EXIT_SCENARIO);
    assert_int_equal(dist_cmd_print(g_dir, "GET", "wrk", m), EXIT_USAGE);
    assert_int_equal(dist_cmd_print("/nonexistent-dir", "GET", "ab", m), EXIT_SCENARIO);
    fclose(m);
    assert_int_equal(len, 0);                         /* errors go to stderr only */
    free(buf);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_payload_empty),
        cmocka_unit_test(test_payload_vectors),
        cmocka_unit_test(test_round_trip_random),
        cmocka_unit_test(test_decode_rejects),
        cmocka_unit_test(test_decode_other_encoder),
        cmocka_unit_test(test_tags),
        cmocka_unit_test(test_log_file),
        cmocka_unit_test(test_log_staged),
        cmocka_unit_test(test_dist_redis),
        cmocka_unit_test(test_dist_ab),
        cmocka_unit_test(test_dist_cmd),
    };
    return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
