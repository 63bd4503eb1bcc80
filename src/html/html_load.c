/* html_load.c - reads a summary.json for report.html in memory bounded
 * independently of the run's length.  A run's per-interval arrays (each
 * timer's "intervals" rows, the generator's, the counters', rates' and
 * gauges' "intervals", load's "active_vus" and each group's "targets") grow
 * with the run; the rest does not.  When the longest of them has at most
 * HTML_MAX_POINTS elements the file is loaded whole, as it always was (the
 * page is the same, byte for byte).  Longer, the file is read twice as a
 * stream of characters, never whole: the first pass finds the longest
 * array, the second copies the text and merges every K consecutive
 * elements of each such array into one (K the same for all, so the arrays
 * stay aligned), holding one element at a time; jansson then parses the
 * shortened text.  How a merged element is formed is in html_merge_*
 * (and docs/results.md "report.html").
 *
 * Not here: rendering (html*.c); the JSON grammar beyond what finding the
 * arrays needs: an invalid file is found invalid by jansson afterwards. */
#include "html/html_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define HTML_DEPTH_TRACKED 8          /* the arrays sit at depth 2 to 4 */
#define HTML_KEY_MAX 32
#define HTML_ELEM_MAX (1 << 20)       /* one interval row's text (about 300 bytes) */

enum { HL_PASS_SCAN, HL_PASS_COPY };
/* How numbers merge, by the array's top-level key. */
enum { HL_NUM_LAST, HL_NUM_SUM, HL_NUM_MINMAX };

typedef struct hl_level {
    int is_obj, expect_key, series, num_rule, nonempty;
    size_t ncomma;                    /* series: its elements are ncomma + nonempty */
    char key[HTML_KEY_MAX];           /* object: the current key */
} hl_level;

typedef struct hl_state {
    int pass, depth, in_str, esc, in_key, key_len, fail;
    size_t maxlen, k;
    hl_level lv[HTML_DEPTH_TRACKED];
    int series_at;                    /* copy pass: depth of the series array being merged, or -1 */
    char *elem;                       /* copy pass: the current element's text */
    size_t elem_len, bucket_n, bucket_first;
    json_t *acc;                      /* the merged element so far */
    json_t *lo, *hi;                  /* gauges: the bucket's lowest and highest */
    FILE *out;
    char err[JSON_ERROR_TEXT_LENGTH];
} hl_state;

/* ---- merging one bucket ---- */

/* Figures merge by the table's rule (stats/figures.h); of the generator
 * health's, the counts add. */
static int html_merge_sum_key(const char *k) {
    const figure *f = figure_find(k, strlen(k), 0);
    if (f) return f->merge == FIG_MERGE_SUM;
    static const char *const sum[] = {"late_starts", "skipped_starts", "dispatch_count"};
    for (size_t i = 0; i < sizeof sum / sizeof *sum; i++)
        if (strcmp(k, sum[i]) == 0) return 1;
    return 0;
}

/* The merge rule of the figure keyed k; FIG_MERGE_MAX for any other number. */
static fig_merge html_merge_rule(const char *k) {
    const figure *f = figure_find(k, strlen(k), 0);
    return f ? f->merge : FIG_MERGE_MAX;
}

static json_t *html_merge_num(json_t *a, json_t *b, int rule) {
    double x = json_number_value(a), y = json_number_value(b);
    if (rule == HL_NUM_SUM && json_is_integer(a) && json_is_integer(b))
        return json_integer(json_integer_value(a) + json_integer_value(b));
    if (rule == HL_NUM_SUM) return json_real(x + y);
    if (rule == HL_NUM_LAST) return json_copy(b);
    return json_copy((rule < 0 ? y < x : y > x) ? b : a);      /* -1 min, else max */
}

/* A row (object): counts and periods summed, min the lowest, avg weighted
 * by count, rate recomputed at the flush, every other number the highest
 * (the worst interval's percentiles, lags, CPU). */
static int html_merge_obj(json_t *acc, json_t *e) {
    double ca = json_number_value(json_object_get(acc, "count")), ce = json_number_value(json_object_get(e, "count"));
    const char *key;
    json_t *v;
    json_object_foreach(e, key, v) {
        json_t *a = json_object_get(acc, key), *m;
        if (!a || (json_is_null(a) && json_is_number(v))) m = json_copy(v);   /* null: no latency yet */
        else if (!json_is_number(a) || !json_is_number(v)) continue;
        else if (html_merge_rule(key) == FIG_MERGE_WEIGHTED)
            m = json_real(ca + ce > 0 ? (json_number_value(a) * ca + json_number_value(v) * ce) / (ca + ce) : 0.0);
        else m = html_merge_num(a, v, html_merge_sum_key(key) ? HL_NUM_SUM : html_merge_rule(key) == FIG_MERGE_MIN ? -1 : 2);
        if (!m || json_object_set_new(acc, key, m) != 0) return -1;
    }
    return 0;
}

/* Element-wise sums (a rate's [true, false]). */
static int html_merge_arr(json_t *acc, json_t *e) {
    for (size_t i = 0; i < json_array_size(acc) && i < json_array_size(e); i++) {
        json_t *a = json_array_get(acc, i), *v = json_array_get(e, i);
        if (!json_is_number(a) || !json_is_number(v)) continue;
        if (json_array_set_new(acc, i, html_merge_num(a, v, HL_NUM_SUM)) != 0) return -1;
    }
    return 0;
}

static int html_merge_into(hl_state *s, json_t *e, int rule) {
    if (rule == HL_NUM_MINMAX && json_is_number(e)) {
        if (!s->lo || json_number_value(e) < json_number_value(s->lo)) json_decref(s->lo), s->lo = json_incref(e);
        if (!s->hi || json_number_value(e) > json_number_value(s->hi)) json_decref(s->hi), s->hi = json_incref(e);
        return 0;
    }
    if (!s->acc) {
        s->acc = json_incref(e);
        if (json_is_object(e) && json_object_set_new(e, "first_interval", json_integer((json_int_t)s->bucket_first + 1)))
            return -1;
        return 0;
    }
    if (json_is_object(s->acc) && json_is_object(e)) return html_merge_obj(s->acc, e);
    if (json_is_array(s->acc) && json_is_array(e)) return html_merge_arr(s->acc, e);
    if (json_is_number(s->acc) && json_is_number(e)) {
        json_t *m = html_merge_num(s->acc, e, rule);
        json_decref(s->acc);
        s->acc = m;
        return m ? 0 : -1;
    }
    return 0;                          /* mixed types: the first element stands */
}

static void html_dump_one(hl_state *s, json_t *v, int *first) {
    if (!*first) fputc(',', s->out);
    *first = 0;
    if (json_dumpf(v, s->out, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(17)) != 0) s->fail = 1;
}

/* Writes the bucket's merged element(s). */
static void html_flush(hl_state *s) {
    int first = s->bucket_first == 0;
    if (json_is_object(s->acc)) {
        json_t *c = json_object_get(s->acc, "count"), *p = json_object_get(s->acc, "period_s");
        if (json_object_get(s->acc, "rate") && json_is_number(c) && json_is_number(p) && json_number_value(p) > 0)
            s->fail |= json_object_set_new(s->acc, "rate", json_real(json_number_value(c) / json_number_value(p))) != 0;
        s->fail |= json_object_set_new(s->acc, "intervals_merged", json_integer((json_int_t)s->bucket_n)) != 0;
    }
    if (s->acc) html_dump_one(s, s->acc, &first);
    if (s->lo) html_dump_one(s, s->lo, &first);
    if (s->hi) html_dump_one(s, s->hi, &first);
    json_decref(s->acc), json_decref(s->lo), json_decref(s->hi);
    s->acc = s->lo = s->hi = NULL;
    s->bucket_first += s->bucket_n;
    s->bucket_n = 0;
}

/* The element just read (s->elem) joins the bucket. */
static void html_elem_end(hl_state *s, int rule) {
    if (s->elem_len == 0) return;
    json_error_t je;
    json_t *e = json_loadb(s->elem, s->elem_len, JSON_DECODE_ANY, &je);
    s->elem_len = 0;
    if (!e) {
        snprintf(s->err, sizeof s->err, "invalid JSON in an interval array: %.100s", je.text);
        s->fail = 1;
        return;
    }
    if (html_merge_into(s, e, rule) != 0) s->fail = 1;
    json_decref(e);
    if (++s->bucket_n == s->k) html_flush(s);
}

/* ---- the character stream ---- */

static int html_series_key(const hl_state *s, int d) {
    if (d < 1 || d > HTML_DEPTH_TRACKED || !s->lv[d - 1].is_obj) return 0;
    const char *k = s->lv[d - 1].key;
    return strcmp(k, "intervals") == 0 || strcmp(k, "active_vus") == 0 || strcmp(k, "targets") == 0;
}

static int html_num_rule(const hl_state *s) {
    if (s->depth < 1 || !s->lv[0].is_obj) return HL_NUM_LAST;
    if (strcmp(s->lv[0].key, "counters") == 0) return HL_NUM_SUM;
    if (strcmp(s->lv[0].key, "gauges") == 0) return HL_NUM_MINMAX;
    return HL_NUM_LAST;
}

static void html_emit(hl_state *s, int c) {
    if (s->pass != HL_PASS_COPY) return;
    if (s->series_at < 0 || s->depth < s->series_at) {
        fputc(c, s->out);
        return;
    }
    if (s->elem_len >= HTML_ELEM_MAX) {
        snprintf(s->err, sizeof s->err, "an interval row longer than %d bytes", HTML_ELEM_MAX);
        s->fail = 1;
        return;
    }
    s->elem[s->elem_len++] = (char)c;
}

static void html_open(hl_state *s, int c) {
    int d = s->depth;                           /* the new container's level index */
    if (d > 0 && d <= HTML_DEPTH_TRACKED) s->lv[d - 1].nonempty = 1;
    if (d < HTML_DEPTH_TRACKED) {
        hl_level *l = &s->lv[d];
        *l = (hl_level){.is_obj = c == '{', .expect_key = c == '{'};
        l->series = c == '[' && s->series_at < 0 && html_series_key(s, d);
        l->num_rule = html_num_rule(s);
    }
    html_emit(s, c);
    s->depth++;
    if (s->pass == HL_PASS_COPY && d < HTML_DEPTH_TRACKED && s->lv[d].series) {
        s->series_at = s->depth;
        s->bucket_first = s->bucket_n = 0;
    }
}

static void html_close(hl_state *s, int c) {
    int d = s->depth - 1;
    if (d < 0) {
        html_emit(s, c);
        return;
    }
    if (d < HTML_DEPTH_TRACKED && s->lv[d].series) {
        if (s->series_at == s->depth) {
            html_elem_end(s, s->lv[d].num_rule);
            if (s->bucket_n) html_flush(s);
            s->series_at = -1;
        }
        size_t n = s->lv[d].ncomma + (size_t)s->lv[d].nonempty;
        if (n > s->maxlen) s->maxlen = n;
    }
    s->depth--;
    html_emit(s, c);
}

/* A ',' at depth d: the end of an element (array) or of a member (object). */
static void html_comma(hl_state *s) {
    int d = s->depth - 1;
    if (d >= 0 && d < HTML_DEPTH_TRACKED) {
        hl_level *l = &s->lv[d];
        if (l->is_obj) l->expect_key = 1;
        if (l->series && s->series_at == s->depth) {
            html_elem_end(s, l->num_rule);
            return;
        }
        if (l->series) l->ncomma++;
    }
    html_emit(s, ',');
}

static void html_key_char(hl_state *s, int c) {
    hl_level *l = &s->lv[s->depth - 1];
    if (s->key_len < HTML_KEY_MAX - 1) l->key[s->key_len++] = (char)c;
    else l->key[0] = 0, s->key_len = HTML_KEY_MAX;   /* too long: no key of ours */
    if (s->key_len < HTML_KEY_MAX) l->key[s->key_len] = 0;
}

static void html_string_char(hl_state *s, int c) {
    html_emit(s, c);
    if (s->esc) s->esc = 0;
    else if (c == '\\') s->esc = 1;
    else if (c == '"') {
        s->in_str = 0;
        if (s->in_key) s->in_key = 0, s->lv[s->depth - 1].expect_key = 0;
        return;
    }
    if (s->in_key) html_key_char(s, c);
}

static void html_char(hl_state *s, int c) {
    if (s->in_str) {
        html_string_char(s, c);
        return;
    }
    switch (c) {
    case '{': case '[': html_open(s, c); return;
    case '}': case ']': html_close(s, c); return;
    case ',': html_comma(s); return;
    case ' ': case '\n': case '\r': case '\t':
        if (s->series_at < 0 || s->depth != s->series_at) html_emit(s, c);
        return;
    case '"': {
        int d = s->depth - 1;
        s->in_str = 1;
        s->in_key = d >= 0 && d < HTML_DEPTH_TRACKED && s->lv[d].is_obj && s->lv[d].expect_key;
        if (s->in_key) s->key_len = 0, s->lv[d].key[0] = 0;
        break;
    }
    default: break;
    }
    if (s->depth > 0 && s->depth <= HTML_DEPTH_TRACKED) s->lv[s->depth - 1].nonempty = 1;
    html_emit(s, c);
}

/* One pass over the file; 0, or -1 with s->err. */
static int html_pass(hl_state *s, const char *path) {
    FILE *in = fopen(path, "r");
    if (!in) {
        snprintf(s->err, sizeof s->err, "%s: %s", path, strerror(errno));
        return -1;
    }
    s->depth = s->in_str = s->esc = s->in_key = 0;
    s->series_at = -1;
    int c;
    while (!s->fail && (c = getc_unlocked(in)) != EOF) html_char(s, c);
    int bad = ferror(in);
    fclose(in);
    if (bad) snprintf(s->err, sizeof s->err, "%s: read error", path);
    return bad || s->fail ? -1 : 0;
}

/* Copies path into a string with every long array merged by s->k. */
static char *html_shrink(hl_state *s, const char *path, size_t *len) {
    char *buf = NULL;
    s->elem = malloc(HTML_ELEM_MAX);
    s->out = s->elem ? open_memstream(&buf, len) : NULL;
    if (!s->out) {
        free(s->elem);
        snprintf(s->err, sizeof s->err, "out of memory");
        return NULL;
    }
    s->pass = HL_PASS_COPY;
    int rc = html_pass(s, path);
    if (fclose(s->out) != 0) rc = -1;
    free(s->elem);
    json_decref(s->acc), json_decref(s->lo), json_decref(s->hi);
    if (rc != 0) {
        if (!s->err[0]) snprintf(s->err, sizeof s->err, "out of memory");
        free(buf);
        return NULL;
    }
    return buf;
}

json_t *html_load_summary(const char *path, json_error_t *je, size_t *merged) {
    hl_state s = {.pass = HL_PASS_SCAN};
    *merged = 1;
    if (html_pass(&s, path) != 0 || s.maxlen <= HTML_MAX_POINTS) return json_load_file(path, 0, je);
    s.k = (s.maxlen + HTML_MAX_POINTS - 1) / HTML_MAX_POINTS;
    size_t len = 0;
    char *text = html_shrink(&s, path, &len);
    if (!text) {
        snprintf(je->text, sizeof je->text, "%.*s", (int)sizeof je->text - 1, s.err);
        je->line = je->column = -1;
        return NULL;
    }
    json_t *root = json_loadb(text, len, 0, je);
    free(text);
    *merged = s.k;
    return root;
}
