/* hlog.h - HdrHistogram interval logs: DIR/histograms.hlog.
 *
 * The file is the text format that HdrHistogram's HistogramLogWriter writes
 * (log format version 1.3), readable by HistogramLogReader, HdrHistogram's
 * HistogramLogProcessor, HistogramLogAnalyzer and hdr-histogram-js:
 *
 *   #[Histogram log format version 1.3]
 *   #[luamech ...: values in microseconds ...]      (comments)
 *   #[StartTime: 1764448296.123 (seconds since epoch), Sat Nov 29 20:31:36 UTC 2025]
 *   #[BaseTime: 1764448296.123 (seconds since epoch)]
 *   "StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"
 *   Tag=All%20Transactions,0.000,1.000,489.000,HISTFAAAA...
 *
 * One line per timer per closed statistics interval: the tag is the timer
 * name (percent-encoded, see hlog_tag_escape), the start is in seconds since
 * the run's t = 0 (StartTime = BaseTime = t = 0 as seconds since the epoch),
 * the length in seconds, the max is the interval's exact largest sample in
 * microseconds (the log's unit), and the histogram is the interval's
 * histogram of successful samples (failures are not in histograms) in
 * HdrHistogram's V2 compressed encoding, base64 (RFC 4648, padded):
 *
 *   compressed: int32 cookie 0x1c849314, int32 n, n bytes of zlib (RFC 1950
 *               DEFLATE) holding the payload;
 *   payload:    int32 cookie 0x1c849313, int32 counts length in bytes,
 *               int32 normalizing index offset (0), int32 significant digits
 *               (3), int64 lowest discernible value (1), int64 highest
 *               trackable value (3600000000), float64 integer-to-double
 *               ratio (1.0), then the counts from index 0 to the index of the
 *               max, each as a ZigZag LEB128-64b9B varint: a count >= 0, or
 *               -n for a run of n > 1 zero counts.
 * All integers are big-endian.  The cookies are HdrHistogram's V2 bases
 * (0x1c849303, 0x1c849304) with 0x10 set, as getEncodingCookie() and
 * getCompressedEncodingCookie() return them.
 *
 * Each interval's lines are flushed together when committed, so a killed run
 * leaves the intervals closed so far.  hlog_read reads such files back (any V2 log whose
 * histograms use 3 significant digits and a lowest discernible value of 1). */
#ifndef LUAMECH_HLOG_H
#define LUAMECH_HLOG_H

#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include "stats/hist.h"

#define HLOG_FILE "histograms.hlog"
#define HLOG_ENCODING_COOKIE 0x1c849313             /* V2 base 0x1c849303 | 0x10 */
#define HLOG_COMPRESSED_COOKIE 0x1c849314           /* V2 base 0x1c849304 | 0x10 */
#define HLOG_PAYLOAD_HEADER_LEN 40

typedef struct hlog hlog;

/* Creates (truncates) path.  start_epoch_s is t = 0 in seconds since the
 * epoch; when it is not known yet (<= 0) the header is written by the first
 * hlog_write or hlog_close, with the time given to hlog_set_start by then.
 * NULL with errno set on failure. */
hlog *hlog_open(const char *path, double start_epoch_s);
/* Sets StartTime/BaseTime if the header is not written yet; else no effect. */
void hlog_set_start(hlog *l, double start_epoch_s);
/* Appends one interval histogram (h may be empty) and flushes.  tag is the
 * timer name, escaped here; start_s is relative to t = 0.  A write error is
 * remembered and reported by hlog_close. */
void hlog_write(hlog *l, const char *tag, double start_s, double len_s, const hist *h);
/* hlog_write in two steps: hlog_stage encodes the line into memory,
 * hlog_commit writes every staged line in one write and flushes (an
 * interval's lines land together: the runner's bus sink "hlog").
 * hlog_close commits what is staged. */
void hlog_stage(hlog *l, const char *tag, double start_s, double len_s, const hist *h);
void hlog_commit(hlog *l);
/* Writes the header if no line was written, closes, frees.  0, or -1 if any
 * write failed.  NULL is a no-op returning 0. */
int hlog_close(hlog *l);

/* Tags cannot hold ',', ' ' or line breaks (HistogramLogWriter rejects them):
 * '%', ',', ' ', control characters and DEL become %XX (upper-case hex), so
 * "All Transactions" is "All%20Transactions".  Writes at most out_len bytes
 * with a NUL; returns the length of the full escaped string. */
size_t hlog_tag_escape(const char *name, char *out, size_t out_len);
/* The reverse (also of any %XX); in place; returns s. */
char *hlog_tag_unescape(char *s);

/* Encodings of a histogram; *out is malloc'ed.  0, or -1 (out of memory,
 * zlib failure). */
int hlog_encode_payload(const hist *h, uint8_t **out, size_t *len);
int hlog_encode_compressed(const hist *h, uint8_t **out, size_t *len);
/* The compressed encoding in base64, NUL-terminated, malloc'ed; NULL on failure. */
char *hlog_encode_base64(const hist *h);

/* Adds the counts of a V2 encoded histogram (compressed, or its base64) to
 * *into.  into's min is set to the lowest equivalent value of the lowest
 * non-empty bucket and its max to the highest equivalent value of the
 * highest (HdrHistogram's getMinValue / getMaxValue), or to max_us if it
 * falls in that bucket (the exact max of a luamech log line); pass -1 when
 * it is not known.  0, or -1 with a message in err. */
int hlog_decode_compressed(const uint8_t *buf, size_t len, int64_t max_us, hist *into,
                           char *err, size_t err_len);
int hlog_decode_base64(const char *b64, size_t len, int64_t max_us, hist *into,
                       char *err, size_t err_len);

/* Reads a log: calls fn for each interval line with its tag as written
 * (escaped; "" when the line has none), start, length and its histogram
 * (valid during the call).  A non-zero return from fn stops the reading and
 * is returned.  -1 with a message in err when the file cannot be read or a
 * line is invalid (the message names the line). */
typedef int (*hlog_line_fn)(void *ctx, const char *tag, double start_s, double len_s,
                            double max_us, const hist *h);
int hlog_read(const char *path, hlog_line_fn fn, void *ctx, char *err, size_t err_len);
/* The same from an open stream (e.g. fmemopen: the hlog fuzz harness reads
 * its input from memory); path only names it in messages; f stays open. */
int hlog_read_stream(FILE *f, const char *path, hlog_line_fn fn, void *ctx, char *err, size_t err_len);
/* hlog_read, giving fn also each line's histogram as written (its base64
 * text, b64_len bytes, valid during the call): a reader that keeps the
 * lines to decode later (luamech merge) keeps that, not the histogram. */
typedef int (*hlog_raw_fn)(void *ctx, const char *tag, double start_s, double len_s, double max_us,
                           const hist *h, const char *b64, size_t b64_len);
int hlog_read_raw(const char *path, hlog_raw_fn fn, void *ctx, char *err, size_t err_len);

#endif
