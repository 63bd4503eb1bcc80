/* summary_read.c - the one place that knows summary.json's schema 1: a
 * parsed file is brought to schema 2 in memory (summary_normalise), each
 * timer family one timers[] entry with its other views under "views", so
 * that report.html, compare and merge read one shape.  Also the lookup of a
 * family's view by name.
 *
 * The pairing rule of schema 1 (a twin names its timer in uncorrected_of or
 * all_of and has the same kind; names are never parsed, so a group called
 * "a (uncorrected)" stays a timer) lives here and nowhere else.
 *
 * Also the checks every reader shares (summary_check): no timer, group,
 * counter, gauge, rate, check or error message listed twice, and every
 * timer row's figures finite and in range, so that report, compare and
 * merge refuse the same files.
 *
 * Not here: reading the file as a stream (html_load.c), writing a
 * summary.json (results.c; the writers that copy a file back, files.c and
 * merge's segment table, must not normalise), what any figure means. */
#include "report/summary_read.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/text.h"
#include "stats/figures.h"

/* The ranges of a timer row's figures (as merge's: docs/distributed.md). */
#define SUMMARY_MAX_COUNT 1e18    /* a count (transactions, errors ...), a rate, a period */
#define SUMMARY_MAX_MS 1e9        /* a latency, in ms */

static const char *const summary_views[SUMMARY_VIEWS] = {"default", "uncorrected", "all"};

/* The twin fields of schema 1 and the view each makes, in pairing order. */
static const struct {
    const char *field, *view;
} summary_twin_fields[] = {{"uncorrected_of", "uncorrected"}, {"all_of", "all"}};
#define SUMMARY_TWIN_FIELDS (sizeof summary_twin_fields / sizeof summary_twin_fields[0])

/* What a view carries: the rest of a family's fields are the family's. */
static const char *const summary_view_keys[] = {"latency_from", "latency_over", "summary", "intervals"};

const char *summary_view_name(int i) { return i >= 0 && i < SUMMARY_VIEWS ? summary_views[i] : NULL; }

int summary_view_index(const char *name) {
    for (int i = 0; name && i < SUMMARY_VIEWS; i++)
        if (strcmp(name, summary_views[i]) == 0) return i;
    return -1;
}

json_t *summary_view(json_t *t, const char *view) {
    if (!json_is_object(t)) return NULL;
    if (!view || strcmp(view, summary_views[0]) == 0) return t;
    json_t *views = json_object_get(t, "views"), *v = json_is_object(views) ? json_object_get(views, view) : NULL;
    return json_is_object(v) ? v : NULL;
}

json_t *summary_view_eff(json_t *t, const char *view) {
    json_t *v = summary_view(t, view);
    if (!v && view && strcmp(view, "all") == 0) return summary_view(t, NULL);
    return v;
}

/* ---- normalising ---- */

static const char *summary_str(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }

/* Entry i's "views": absent, or an object whose known views are objects;
 * unknown names (and "default": the top level is the default) dropped. */
static int summary_check_views(json_t *t, size_t i, char *err, size_t err_len) {
    json_t *views = json_object_get(t, "views"), *v, *tmp;
    const char *k;
    if (!views) return 0;
    if (!json_is_object(views)) return text_errf(err, err_len, "timers[%zu]: \"views\" is not an object", i);
    json_object_foreach_safe(views, tmp, k, v) {
        int idx = summary_view_index(k);
        if (idx <= 0) json_object_del(views, k);
        else if (!json_is_object(v))
            return text_errf(err, err_len, "timers[%zu]: views.%s is not an object", i, summary_views[idx]);
    }
    return 0;
}

/* The key of a family in the index: the kind's length, the kind, the name
 * (kind and name may hold any byte, so the length keeps them apart; no
 * kind is "-").  Into *buf (grown); its length, or 0 when out of memory. */
static size_t summary_key(char **buf, size_t *cap, json_t *kind, json_t *name) {
    size_t kl = json_is_string(kind) ? json_string_length(kind) : 0, nl = json_string_length(name);
    size_t need = kl + nl + 32;
    if (need > *cap) {
        char *p = realloc(*buf, need);
        if (!p) return 0;
        *buf = p;
        *cap = need;
    }
    int head = json_is_string(kind) ? snprintf(*buf, *cap, "%zu:", kl) : snprintf(*buf, *cap, "-");
    size_t n = (size_t)head;
    if (kl) memcpy(*buf + n, json_string_value(kind), kl);
    memcpy(*buf + n + kl, json_string_value(name), nl);
    return n + kl + nl;
}

/* 1 when t is a schema-1 twin (a string uncorrected_of or all_of). */
static int summary_is_twin(json_t *t) {
    for (size_t f = 0; f < SUMMARY_TWIN_FIELDS; f++)
        if (summary_str(t, summary_twin_fields[f].field)) return 1;
    return 0;
}

/* The families (entries that are no twin), by kind and name, the first of
 * each into idx.  0, or -1 when out of memory. */
static int summary_index(json_t *timers, json_t *idx, char **buf, size_t *cap) {
    size_t i;
    json_t *t;
    json_array_foreach(timers, i, t) {
        json_t *name = json_object_get(t, "name");
        if (!json_is_string(name) || summary_is_twin(t)) continue;
        size_t kl = summary_key(buf, cap, json_object_get(t, "kind"), name);
        if (!kl) return -1;
        if (!json_object_getn(idx, *buf, kl) && json_object_setn_nocheck(idx, *buf, kl, t) != 0) return -1;
    }
    return 0;
}

/* The twin's view fields into family.views[view].  0, or -1 when out of
 * memory. */
static int summary_move_view(json_t *family, json_t *twin, const char *view) {
    json_t *views = json_object_get(family, "views"), *v = json_object();
    if (!v) return -1;
    for (size_t k = 0; k < sizeof summary_view_keys / sizeof summary_view_keys[0]; k++) {
        json_t *x = json_object_get(twin, summary_view_keys[k]);
        if (x && json_object_set(v, summary_view_keys[k], x) != 0) goto fail;
    }
    if (!views) {
        if (!(views = json_object()) || json_object_set_new(family, "views", views) != 0) goto fail;
    }
    return json_object_set_new(views, view, v);
fail:
    json_decref(v);
    return -1;
}

/* Twin t into its family (found in idx), when it has one without that
 * view yet.  1 paired, 0 not (an orphan), -1 out of memory. */
static int summary_pair(json_t *t, json_t *idx, char **buf, size_t *cap) {
    for (size_t f = 0; f < SUMMARY_TWIN_FIELDS; f++) {
        json_t *of = json_object_get(t, summary_twin_fields[f].field);
        if (!json_is_string(of)) continue;
        size_t kl = summary_key(buf, cap, json_object_get(t, "kind"), of);
        if (!kl) return -1;
        json_t *family = json_object_getn(idx, *buf, kl);
        if (!family || summary_view(family, summary_twin_fields[f].view)) continue;
        return summary_move_view(family, t, summary_twin_fields[f].view) == 0 ? 1 : -1;
    }
    return 0;
}

/* Schema 1 -> 2 of root's timers: the twins folded into their families
 * (a new array replaces the old), the *_of fields dropped. */
static int summary_fold_twins(json_t *root, json_t *timers, char *err, size_t err_len) {
    json_t *idx = json_object(), *keep = json_array(), *t;
    char *buf = NULL;
    size_t cap = 0, i;
    int rc = -1;
    if (!idx || !keep || summary_index(timers, idx, &buf, &cap) != 0) goto done;
    json_array_foreach(timers, i, t) {
        int paired = json_is_object(t) && summary_is_twin(t) ? summary_pair(t, idx, &buf, &cap) : 0;
        if (paired < 0) goto done;
        if (!paired && json_array_append(keep, t) != 0) goto done;
    }
    json_array_foreach(keep, i, t) {
        for (size_t f = 0; f < SUMMARY_TWIN_FIELDS; f++) json_object_del(t, summary_twin_fields[f].field);
    }
    rc = json_object_set(root, "timers", keep);
done:
    if (rc != 0) text_errf(err, err_len, "out of memory reading the timers");
    free(buf);
    json_decref(idx);
    json_decref(keep);
    return rc;
}

/* ---- checking ---- */

/* The lists keyed by a name, and the field that names an entry: a reader
 * adds an entry's figures to its name's, so a name listed twice would count
 * twice.  Timers and counters by kind and name (a run keeps a group and a
 * custom timer of one name apart, a plain and an engine counter too). */
static const struct {
    const char *list, *key, *kind;
} summary_keyed[] = {
    {"timers", "name", "kind"},      {"groups", "name", NULL},  {"counters", "name", "kind"},
    {"gauges", "name", NULL},      {"rates", "name", NULL},   {"checks", "name", NULL},
    {"errors", "message", NULL},   {"request_errors", "message", NULL},
};

/* No name twice in root[list] (entries without a string name are the
 * readers' to judge).  0, or -1 with a message. */
static int summary_check_list_unique(json_t *root, size_t w, char *err, size_t err_len) {
    json_t *arr = json_object_get(root, summary_keyed[w].list), *seen = NULL, *e;
    char *buf = NULL;
    size_t cap = 0, i;
    int rc = 0;
    if (!json_is_array(arr) || json_array_size(arr) < 2) return 0;
    if (!(seen = json_object())) return text_errf(err, err_len, "out of memory reading %s", summary_keyed[w].list);
    json_array_foreach(arr, i, e) {
        json_t *name = json_object_get(e, summary_keyed[w].key);
        if (!json_is_string(name)) continue;
        json_t *kind = summary_keyed[w].kind ? json_object_get(e, summary_keyed[w].kind) : NULL;
        size_t kl = summary_key(&buf, &cap, kind, name);
        if (!kl) {
            rc = text_errf(err, err_len, "out of memory reading %s", summary_keyed[w].list);
            break;
        }
        json_t *first = json_object_getn(seen, buf, kl);
        if (first) {
            char shown[128];
            text_errf(shown, sizeof shown, "%s", json_string_value(name));
            for (char *p = shown; *p; p++)
                if ((unsigned char)*p < 0x20) *p = '?';
            rc = text_errf(err, err_len, "%s[%zu] and %s[%zu] are both called \"%s\"%s (an entry "
                           "is listed once: its figures would count twice)", summary_keyed[w].list,
                           (size_t)json_integer_value(first), summary_keyed[w].list, i, shown,
                           kind ? " of the same kind" : "");
            break;
        }
        if (json_object_setn_new_nocheck(seen, buf, kl, json_integer((json_int_t)i)) != 0) {
            rc = text_errf(err, err_len, "out of memory reading %s", summary_keyed[w].list);
            break;
        }
    }
    free(buf);
    json_decref(seen);
    return rc;
}

/* Figure f of row (a timer's summary or interval row) at where: absent or
 * null (no data), or a finite number within its unit's range, whole for a
 * count.  0, or -1 with a message. */
static int summary_check_fig(json_t *row, const figure *f, const char *where, char *err, size_t err_len) {
    json_t *v = json_object_get(row, f->key);
    if (!v || json_is_null(v)) return 0;
    double x = json_number_value(v), hi = f->unit == FIG_UNIT_MS ? SUMMARY_MAX_MS : SUMMARY_MAX_COUNT;
    int whole = f->unit == FIG_UNIT_COUNT;
    if (json_is_number(v) && isfinite(x) && x >= 0 && x <= hi && (!whole || x == floor(x))) return 0;
    char num[64], *text = json_is_number(v) ? NULL : json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    snprintf(num, sizeof num, "%.10g", x);
    text_errf(err, err_len, "%s.%s = %.40s: expected a %s from 0 to %.15g", where, f->key, text ? text : num,
              whole ? "whole number" : "number", hi);
    free(text);
    return -1;
}

/* A row's figures (those summary.json carries). */
static int summary_check_row(json_t *row, const char *where, char *err, size_t err_len) {
    if (!row || json_is_null(row)) return 0;
    if (!json_is_object(row)) return text_errf(err, err_len, "%s: not an object", where);
    for (int i = 0; i < FIG_N; i++) {
        const figure *f = figure_get((fig_id)i);
        if ((f->outputs & FIG_OUT_SUMMARY) && summary_check_fig(row, f, where, err, err_len) != 0) return -1;
    }
    return 0;
}

/* Every view's summary and interval rows of timer i. */
static int summary_check_timer(json_t *t, size_t i, char *err, size_t err_len) {
    char where[160];
    for (int v = 0; v < SUMMARY_VIEWS; v++) {
        json_t *view = summary_view(t, v ? summary_views[v] : NULL), *rows, *row;
        if (!view) continue;
        int n = v ? snprintf(where, sizeof where, "timers[%zu].views.%s", i, summary_views[v])
                  : snprintf(where, sizeof where, "timers[%zu]", i);
        snprintf(where + n, sizeof where - (size_t)n, ".summary");
        if (summary_check_row(json_object_get(view, "summary"), where, err, err_len) != 0) return -1;
        rows = json_object_get(view, "intervals");
        if (rows && !json_is_array(rows)) {
            snprintf(where + n, sizeof where - (size_t)n, ".intervals");
            return text_errf(err, err_len, "%s: not an array", where);
        }
        size_t k;
        json_array_foreach(rows, k, row) {
            snprintf(where + n, sizeof where - (size_t)n, ".intervals[%zu]", k);
            if (summary_check_row(row, where, err, err_len) != 0) return -1;
        }
    }
    return 0;
}

int summary_check(json_t *root, char *err, size_t err_len) {
    json_t *timers = json_object_get(root, "timers"), *t;
    size_t i;
    for (size_t w = 0; w < sizeof summary_keyed / sizeof summary_keyed[0]; w++)
        if (summary_check_list_unique(root, w, err, err_len) != 0) return -1;
    json_array_foreach(timers, i, t) {
        if (json_is_object(t) && summary_check_timer(t, i, err, err_len) != 0) return -1;
    }
    return 0;
}

int summary_normalise(json_t *root, char *err, size_t err_len) {
    json_t *timers = json_object_get(root, "timers"), *t, *ver = json_object_get(root, "schema_version");
    size_t i;
    if (!json_is_array(timers)) return 0;               /* a phased run's top, or no summary: the caller's */
    json_array_foreach(timers, i, t) {
        if (json_is_object(t) && summary_check_views(t, i, err, err_len) != 0) return -1;
    }
    if (!(json_is_integer(ver) && json_integer_value(ver) >= 2) && summary_fold_twins(root, timers, err, err_len) != 0)
        return -1;
    return summary_check(root, err, err_len);
}

json_t *summary_load(const char *path, char *err, size_t err_len) {
    json_error_t je;
    char msg[512];
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {    /* a directory would read as "'[' or '{' expected" */
        text_errf(err, err_len, "%s: not a regular file", path);
        return NULL;
    }
    json_t *root = json_load_file(path, 0, &je);
    if (!root && je.line < 0) {                         /* not opened: the text names path */
        text_errf(err, err_len, "%s", je.text);
        return NULL;
    }
    if (!root) {
        text_errf(err, err_len, "%s: invalid JSON: %s (line %d, column %d)", path, je.text, je.line, je.column);
        return NULL;
    }
    if (summary_normalise(root, msg, sizeof msg) != 0) {
        text_errf(err, err_len, "%s: %s", path, msg);
        json_decref(root);
        return NULL;
    }
    return root;
}
