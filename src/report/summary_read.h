/* summary_read.h - summary.json as every reader sees it: schema 2, one
 * timers[] entry per timer family, its top level the default view, the
 * others under "views" (docs/results.md).  A schema-1 file (the twins
 * "X (uncorrected)" and "X (all)" as entries of their own, paired by their
 * uncorrected_of / all_of fields) is turned into that shape in memory here,
 * and only here, so readers are written against schema 2 alone.
 *
 * Not for code that writes a summary.json back (report/files.c, merge's
 * segment table): they must keep the file's own shape. */
#ifndef LUAMECH_SUMMARY_READ_H
#define LUAMECH_SUMMARY_READ_H

#include <jansson.h>
#include <stddef.h>

/* The views of a family, by index: "default" (the timer itself),
 * "uncorrected", "all" (the same strings as Prometheus's view label). */
#define SUMMARY_VIEWS 3
/* View i's name (0 <= i < SUMMARY_VIEWS), NULL otherwise. */
const char *summary_view_name(int i);
/* The index of the view called name, or -1. */
int summary_view_index(const char *name);

/* root (a parsed summary.json) to schema 2, in place.  Schema 1 (no or a
 * smaller schema_version): a twin (an entry with a string uncorrected_of or
 * all_of) is paired with the first other entry of the same kind named by
 * that field that is no twin itself, when that one has no such view yet
 * (else, with duplicate entries of one name and kind, the twin is an
 * orphan); the twin's
 * latency_from, latency_over, summary and intervals become that family's
 * views.uncorrected or views.all, and the twin's entry goes.  A twin that
 * pairs with nothing (an orphan) stays a timer of its own; a file written
 * before these fields existed has no pairs.  Every uncorrected_of and all_of
 * field is then dropped (schema 1 only).  Any schema: an entry's "views"
 * must be an object whose known views are objects; unknown view names are
 * dropped.  The timers array may be replaced by a new one (pointers into
 * the old one are stale).  schema_version is left as read.  Idempotent.
 * Then summary_check.  0, or -1 with a message in err (the root is then
 * partly normalised). */
int summary_normalise(json_t *root, char *err, size_t err_len);

/* A normalised root's names and figures: refused when a name is listed
 * twice in groups, gauges, rates or checks (by "name"), timers and
 * counters (by kind and name), errors or request_errors (by "message") - readers
 * add an entry to its name's, so it would count twice - or when a timer
 * view's summary or interval row holds a figure that is not null nor a
 * finite number from 0 to 10^18 (a whole one for counts), 10^9 for
 * latencies in ms.  0, or -1 with a message naming the field. */
int summary_check(json_t *root, char *err, size_t err_len);

/* path parsed and normalised: the root (the caller's reference), or NULL
 * with a message naming path in err (unreadable, not a regular file,
 * invalid JSON, or what summary_normalise refuses). */
json_t *summary_load(const char *path, char *err, size_t err_len);

/* Family t's view called view: t itself for NULL or "default", else
 * t.views[view], NULL when t has no such view. */
json_t *summary_view(json_t *t, const char *view);
/* The same, except that a missing "all" is the default view (a file lists
 * an "all" view only when it differs from the default). */
json_t *summary_view_eff(json_t *t, const char *view);

#endif
