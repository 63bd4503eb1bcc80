/* fuzz_hlog.c - fuzz harness for the HdrHistogram log decoder: the input is
 * decoded as a compressed V2 histogram, as its base64 form, and as a whole
 * histograms.hlog file (read from memory with hlog_read_stream, the reader
 * hlog_read runs on the opened file).  Properties: no crash, no leak, and a decoded histogram
 * re-encodes and decodes to the same counts (hlog_encode_compressed is the
 * inverse of hlog_decode_compressed on everything the decoder accepts); a
 * refused file says why. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/hlog.h"
#include "stats/hist.h"

/* Two histograms made once and reset per input (their chunks are reused). */
static hist *fz_hlog_hist(int which) {
    static hist *h[2];
    if (!h[which]) {
        if (!(h[which] = malloc(sizeof(hist)))) abort();
        hist_init(h[which]);
    }
    hist_reset(h[which]);             /* empty; its chunks are kept for the next input */
    return h[which];
}

static void fz_hlog_roundtrip(const hist *h) {
    uint8_t *enc = NULL;
    size_t len = 0;
    char err[256];
    if (hlog_encode_compressed(h, &enc, &len) != 0) return;   /* out of memory */
    hist *back = fz_hlog_hist(1);
    if (hlog_decode_compressed(enc, len, -1, back, err, sizeof err) != 0) abort();
    if (back->total != h->total) abort();
    free(enc);
}

static int fz_hlog_line(void *ctx, const char *tag, double start_s, double len_s, double max_us,
                        const hist *h) {
    (void)ctx, (void)tag, (void)start_s, (void)len_s, (void)max_us;
    fz_hlog_roundtrip(h);
    return 0;
}

/* The input as a whole histograms.hlog, read from memory (hlog_read_stream,
 * what hlog_read does with the opened file). */
static void fz_hlog_file(const uint8_t *data, size_t size) {
    if (size == 0) return;
    FILE *f = fmemopen((void *)(uintptr_t)data, size, "r");
    if (!f) abort();
    char err[512];
    err[0] = 0;
    if (hlog_read_stream(f, "histograms.hlog", fz_hlog_line, NULL, err, sizeof err) != 0 && !err[0]) abort();
    fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char err[256];
    hist *h = fz_hlog_hist(0);
    if (hlog_decode_compressed(data, size, -1, h, err, sizeof err) == 0) fz_hlog_roundtrip(h);
    hist_reset(h);
    if (hlog_decode_base64((const char *)data, size, -1, h, err, sizeof err) == 0)
        fz_hlog_roundtrip(h);
    fz_hlog_file(data, size);
    return 0;
}
