/* lazy_json.c - JSON arrays written element by element (lazy_json.h).
 * lazy_json_array registers the array and returns a string placeholder
 * (a control byte, a per-writer random nonce and the array's number: no
 * escaped name or text can produce it); lazy_json_dumpf dumps the tree into
 * memory (small: every long array is a placeholder), then copies that text
 * to the file, writing each placeholder's array in its place the way
 * jansson writes an array with JSON_INDENT(n): "[", each element on its
 * own line one indent deeper than the line of its key (dumped alone, every
 * line break followed by that indent), "," between them, then "]" on a
 * line at the key's indent.  It does not know what the arrays hold. */
#include "report/lazy_json.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct lazy_array {
    lazy_elem_fn fn;
    const void *data;
    int n;
} lazy_array;

struct lazy_json {
    unsigned long long nonce;
    lazy_array *a;
    int n, cap;
    void **owned;
    int nowned, cap_owned;
};

lazy_json *lazy_json_new(void) {
    lazy_json *lz = calloc(1, sizeof *lz);
    if (lz == NULL) return NULL;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    lz->nonce = ((unsigned long long)ts.tv_nsec << 20) ^ (unsigned long long)ts.tv_sec ^
                ((unsigned long long)getpid() << 40) ^ (unsigned long long)(uintptr_t)lz;
    return lz;
}

void lazy_json_free(lazy_json *lz) {
    if (lz == NULL) return;
    for (int i = 0; i < lz->nowned; i++) free(lz->owned[i]);
    free(lz->owned);
    free(lz->a);
    free(lz);
}

/* Room for one more entry in an array of *cap entries of `size` bytes. */
static int lazy_room(void **p, int n, int *cap, size_t size) {
    if (n < *cap) return 0;
    int ncap = *cap ? *cap * 2 : 16;
    void *q = realloc(*p, (size_t)ncap * size);
    if (q == NULL) return -1;
    *p = q;
    *cap = ncap;
    return 0;
}

int lazy_json_own(lazy_json *lz, void *p) {
    if (lazy_room((void **)&lz->owned, lz->nowned, &lz->cap_owned, sizeof *lz->owned) != 0) return -1;
    lz->owned[lz->nowned++] = p;
    return 0;
}

static json_t *lazy_whole(lazy_elem_fn fn, const void *data, int n) {
    json_t *arr = json_array();
    int64_t carry = 0;
    for (int k = 0; arr && k < n; k++) json_array_append_new(arr, fn(data, k, &carry));
    return arr;
}

json_t *lazy_json_array(lazy_json *lz, lazy_elem_fn fn, const void *data, int n) {
    if (lz == NULL || n <= 0 || lazy_room((void **)&lz->a, lz->n, &lz->cap, sizeof *lz->a) != 0)
        return lazy_whole(fn, data, n);
    char mark[64];
    snprintf(mark, sizeof mark, "\001lm%016llx:%d", lz->nonce, lz->n);
    json_t *s = json_string(mark);
    if (s == NULL) return lazy_whole(fn, data, n);
    lz->a[lz->n++] = (lazy_array){fn, data, n};
    return s;
}

/* n spaces. */
static int lazy_spaces(FILE *f, int n) {
    for (; n > 0; n--)
        if (fputc(' ', f) == EOF) return -1;
    return 0;
}

/* text with each line break followed by `indent` spaces. */
static int lazy_put_indented(FILE *f, const char *text, int indent) {
    for (const char *nl; (nl = strchr(text, '\n')) != NULL; text = nl + 1) {
        size_t len = (size_t)(nl - text) + 1;
        if (fwrite(text, 1, len, f) != len || lazy_spaces(f, indent) != 0) return -1;
    }
    return fputs(text, f) == EOF ? -1 : 0;
}

/* Array x at a key whose line is indented by `indent`: as jansson writes it. */
static int lazy_put_array(FILE *f, const lazy_array *x, int indent, int width, size_t flags) {
    int64_t carry = 0;
    if (fputc('[', f) == EOF) return -1;
    for (int k = 0; k < x->n; k++) {
        json_t *e = x->fn(x->data, k, &carry);
        char *text = e ? json_dumps(e, flags | JSON_ENCODE_ANY) : NULL;
        json_decref(e);
        int rc = text ? 0 : -1;
        if (rc == 0 && (fputc('\n', f) == EOF || lazy_spaces(f, indent + width) != 0)) rc = -1;
        if (rc == 0) rc = lazy_put_indented(f, text, indent + width);
        if (rc == 0 && k + 1 < x->n && fputc(',', f) == EOF) rc = -1;
        free(text);
        if (rc != 0) return -1;
    }
    if (fputc('\n', f) == EOF || lazy_spaces(f, indent) != 0) return -1;
    return fputc(']', f) == EOF ? -1 : 0;
}

/* The indent of the line that holds p. */
static int lazy_line_indent(const char *start, const char *p) {
    while (p > start && p[-1] != '\n') p--;
    int n = 0;
    while (p[n] == ' ') n++;
    return n;
}

int lazy_json_dumpf(lazy_json *lz, const json_t *root, FILE *f, size_t flags) {
    int width = (int)(flags & JSON_MAX_INDENT);
    if (lz == NULL || lz->n == 0 || width == 0) return json_dumpf(root, f, flags);
    char *text = json_dumps(root, flags);
    if (text == NULL) return -1;
    char pat[64];
    int plen = snprintf(pat, sizeof pat, "\"\\u0001lm%016llx:", lz->nonce);
    const char *p = text, *m;
    int rc = 0;
    while (rc == 0 && (m = strstr(p, pat)) != NULL) {
        char *end;
        long id = strtol(m + plen, &end, 10);
        if (*end != '"' || id < 0 || id >= lz->n) {          /* not ours: copied as it is */
            size_t len = (size_t)(m - p) + (size_t)plen;
            if (fwrite(p, 1, len, f) != len) rc = -1;
            p = m + plen;
            continue;
        }
        size_t len = (size_t)(m - p);
        if (fwrite(p, 1, len, f) != len) rc = -1;
        if (rc == 0) rc = lazy_put_array(f, &lz->a[id], lazy_line_indent(text, m), width, flags);
        p = end + 1;
    }
    if (rc == 0 && fputs(p, f) == EOF) rc = -1;
    free(text);
    return rc;
}
