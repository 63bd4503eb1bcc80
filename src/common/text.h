/* text.h - untrusted text made safe for every text output.  Error messages
 * (a server's SERVER_ERROR or -ERR text, a script's error()) and names that
 * scripts make at run time reach errors.csv, summary.json, the console,
 * report.html, junit.xml and the HdrHistogram log; there they must be valid
 * UTF-8 and carry no control bytes (a raw ESC would drive the terminal).
 *
 * The escaping: each byte that is a C0 control, DEL, part of a C1 control
 * (U+0080..U+009F) or of a bidirectional override (U+202A..U+202E,
 * U+2066..U+2069), or that is not part of valid UTF-8, becomes the four
 * characters \xHH (lowercase hex); tab, line feed and carriage return become
 * \t, \n and \r.  Everything else (printable ASCII, valid UTF-8) is kept,
 * backslashes included, so clean text comes out unchanged and escaping twice
 * changes nothing.  Pure functions; UTF-8 is decoded by libunistring.
 *
 * Also the one helper that formats an error message into a caller's
 * buffer (text_errf), for every layer's `char *err, size_t err_len`. */
#ifndef LUAMECH_TEXT_H
#define LUAMECH_TEXT_H

#include <stddef.h>

/* An escaped byte takes at most this many output bytes. */
#define TEXT_ESC_MAX 4

/* The length (>= 1) of the character at s[0..n) when it is kept as it is,
 * 0 when its first byte must be escaped (n must be > 0). */
size_t text_safe_len(const char *s, size_t n);

/* 1 when s[0..len) has nothing to escape. */
int text_is_clean(const char *s, size_t len);

/* The escaped in[0..len) into out[0..cap), NUL-terminated (cap > 0).  A
 * character or escape that would not fit whole is left out, with all that
 * follows: truncated text stays valid.  Returns the bytes written (without
 * the NUL). */
size_t text_escape(const char *in, size_t len, char *out, size_t cap);

/* The string s itself when it is clean, else its escaped form in
 * buf[0..cap) (truncated to fit).  For printing names without allocating. */
const char *text_clean(const char *s, char *buf, size_t cap);

/* A malloc'd escaped copy of the string s, or NULL when out of memory. */
char *text_escape_dup(const char *s);

/* printf into err[0..err_len), truncated to fit (nothing when err is NULL
 * or err_len 0); returns -1, for `return text_errf(err, err_len, ...);`. */
int text_errf(char *err, size_t err_len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Levenshtein distance between a and b (bytes); (size_t)-1 when either is
 * longer than 255 bytes. */
size_t text_distance(const char *a, const char *b);

/* The nearest of candidates to `want`, for "did you mean" hints: init, try
 * each candidate, then best is the nearest within a third of want's length
 * (at least 2 edits), or "" when none is that near. */
typedef struct text_near {
    const char *want;
    size_t d;
    char best[256];
} text_near;
void text_near_init(text_near *n, const char *want);
void text_near_try(void *near, const char *candidate);   /* near: a text_near * */

/* A usage error on stderr: "PREFIX: " then fmt with arg, then hint on a
 * line of its own; returns EXIT_USAGE (common/exit_codes.h).  The commands'
 * one way to refuse their arguments. */
int text_usage_error(const char *prefix, const char *fmt, const char *arg, const char *hint);

#endif
