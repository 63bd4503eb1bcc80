/* lazy_json.h - JSON arrays written element by element (report/lazy_json.c):
 * a long array (one element per interval) is left out of the jansson tree
 * as a placeholder and each element is built, written and freed in turn
 * while the tree is dumped, so writing a file holds one element's tree at a
 * time, not the whole run's.  The text is the same, byte for byte, as
 * jansson's dump of the whole tree with the same flags. */
#ifndef LUAMECH_LAZY_JSON_H
#define LUAMECH_LAZY_JSON_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

/* Element k (0 .. n-1) of an array, a new reference; called in order, k =
 * 0 first, each k once.  *carry starts at 0 and is kept between the calls
 * of one array (e.g. a running sum). */
typedef json_t *(*lazy_elem_fn)(const void *data, int k, int64_t *carry);

typedef struct lazy_json lazy_json;

lazy_json *lazy_json_new(void);
void lazy_json_free(lazy_json *lz);
/* The array fn(data, 0 .. n-1): built whole when lz is NULL (or out of
 * memory); else a placeholder that lazy_json_dumpf writes out.  data must
 * stay valid until lazy_json_dumpf has run (see lazy_json_own). */
json_t *lazy_json_array(lazy_json *lz, lazy_elem_fn fn, const void *data, int n);
/* p (from malloc) is freed by lazy_json_free: 0, or -1 (out of memory: p
 * is not taken; build whole arrays instead). */
int lazy_json_own(lazy_json *lz, void *p);
/* Writes root to f as json_dumpf(root, f, flags) would with every
 * placeholder's array in place.  flags must have JSON_INDENT(n), n > 0.
 * 0 or -1. */
int lazy_json_dumpf(lazy_json *lz, const json_t *root, FILE *f, size_t flags);

#endif
