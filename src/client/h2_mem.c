/* h2_mem.c - a per-session allocator for libnghttp2 (nghttp2_mem): size
 * classes of 64 to 4096 bytes (a 16-byte header holding the class, so the
 * payload keeps malloc's alignment) on free lists of the session, larger
 * blocks straight from malloc.  It knows nothing of HTTP/2 but the
 * nghttp2_mem signature; it never locks (a session lives on one loop). */
#include "client/h2_mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define H2_MEM_HDR 16u                    /* keeps the payload 16-byte aligned */
#define H2_MEM_MIN 64u                    /* the smallest class, header included */
#define H2_MEM_LARGE ((size_t)H2_MEM_CLASSES)

typedef struct h2_mem_hdr {
    size_t cls;                           /* class index, or H2_MEM_LARGE */
    size_t size;                          /* a large block's payload bytes */
} h2_mem_hdr;

_Static_assert(sizeof(h2_mem_hdr) == H2_MEM_HDR, "the header keeps 16-byte alignment");

static size_t h2_mem_class_bytes(size_t cls) { return (size_t)H2_MEM_MIN << cls; }

/* The class whose blocks hold n payload bytes, or H2_MEM_LARGE. */
static size_t h2_mem_class_of(size_t n) {
    if (n > h2_mem_class_bytes(H2_MEM_CLASSES - 1) - H2_MEM_HDR) return H2_MEM_LARGE;
    size_t b = (n + H2_MEM_HDR - 1) / H2_MEM_MIN;      /* 0: the first class; else ceil(log2) */
    return b ? (size_t)(64 - __builtin_clzll((unsigned long long)b)) : 0;
}

static h2_mem_hdr *h2_mem_hdr_of(void *p) { return (h2_mem_hdr *)((char *)p - H2_MEM_HDR); }

static size_t h2_mem_payload(const h2_mem_hdr *h) {
    return h->cls == H2_MEM_LARGE ? h->size : h2_mem_class_bytes(h->cls) - H2_MEM_HDR;
}

static void *h2_mem_malloc(size_t n, void *ud) {
    h2_mem *m = ud;
    size_t cls = h2_mem_class_of(n);
    h2_mem_hdr *h;
    if (cls != H2_MEM_LARGE && m->free[cls]) {
        h = m->free[cls];
        memcpy(&m->free[cls], h, sizeof(void *));
        m->kept -= h2_mem_class_bytes(cls);
    } else {
        size_t bytes = cls == H2_MEM_LARGE ? n + H2_MEM_HDR : h2_mem_class_bytes(cls);
        if (bytes < n || (h = malloc(bytes)) == NULL) return NULL;
    }
    h->cls = cls;
    h->size = n;
    return (char *)h + H2_MEM_HDR;
}

static void h2_mem_release(void *p, void *ud) {
    h2_mem *m = ud;
    if (!p) return;
    h2_mem_hdr *h = h2_mem_hdr_of(p);
    size_t cls = h->cls;
    if (cls == H2_MEM_LARGE || m->kept + h2_mem_class_bytes(cls) > H2_MEM_KEEP_BYTES) {
        free(h);
        return;
    }
    memcpy(h, &m->free[cls], sizeof(void *));
    m->free[cls] = h;
    m->kept += h2_mem_class_bytes(cls);
}

static void *h2_mem_calloc(size_t nmemb, size_t size, void *ud) {
    if (size && nmemb > SIZE_MAX / size) return NULL;
    void *p = h2_mem_malloc(nmemb * size, ud);
    if (p) memset(p, 0, nmemb * size);
    return p;
}

static void *h2_mem_realloc(void *p, size_t n, void *ud) {
    if (!p) return h2_mem_malloc(n, ud);
    h2_mem_hdr *h = h2_mem_hdr_of(p);
    size_t have = h2_mem_payload(h);
    if (n <= have) return p;                              /* the block already holds it */
    void *q = h2_mem_malloc(n, ud);
    if (!q) return NULL;
    memcpy(q, p, have < n ? have : n);
    h2_mem_release(p, ud);
    return q;
}

nghttp2_mem h2_mem_nghttp2(h2_mem *m) {
    nghttp2_mem mem = {m, h2_mem_malloc, h2_mem_release, h2_mem_calloc, h2_mem_realloc};
    return mem;
}

void h2_mem_free(h2_mem *m) {
    for (size_t cls = 0; cls < H2_MEM_CLASSES; cls++) {
        void *b = m->free[cls];
        while (b) {
            void *next;
            memcpy(&next, b, sizeof next);
            free(b);
            b = next;
        }
        m->free[cls] = NULL;
    }
    m->kept = 0;
}
