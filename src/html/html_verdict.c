/* html_verdict.c - the headline of report.html: the run's verdict in words
 * and in the colour it deserves (green: completed, no error, every threshold
 * passed, not suspect; amber: some transactions failed, suspect generator,
 * interrupted, a snapshot, no transactions; red: thresholds failed, every
 * transaction failed, aborted), from summary.json alone.  Also the caveat
 * shown once where latency is shown, for closed-loop groups.  It computes no
 * figure: it reads summary.json's fields (status, thresholds, All
 * Transactions' count and errors, fast_failures.text, generator.suspect,
 * groups' models). */
#include "html/html_priv.h"

#include <stdarg.h>
#include <string.h>

enum { HTML_VD_OK, HTML_VD_WARN, HTML_VD_BAD };
static const char *const html_vd_class[] = {"ok", "warn", "bad"};

typedef struct html_vd {
    int level;
    int n;
    char parts[8][520];
} html_vd;

static void html_vd_add(html_vd *v, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void html_vd_add(html_vd *v, int level, const char *fmt, ...) {
    if (v->n >= 8) return;
    if (level > v->level) v->level = level;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->parts[v->n++], sizeof v->parts[0], fmt, ap);
    va_end(ap);
}

/* thresholds[]: n and how many passed. */
static void html_vd_thresholds(html_vd *v, json_t *arr) {
    size_t n = json_is_array(arr) ? json_array_size(arr) : 0, i, passed = 0;
    json_t *th;
    json_array_foreach(arr, i, th) passed += json_is_true(html_get(th, "passed"));
    if (n > 0 && passed < n) html_vd_add(v, HTML_VD_BAD, "thresholds failed (%lld of %lld passed)", (long long)passed, (long long)n);
}

static void html_vd_errors(html_vd *v, long long tx, long long errors) {
    if (tx > 0 && errors >= tx) html_vd_add(v, HTML_VD_BAD, "every transaction failed (%lld of %lld)", errors, tx);
    else if (errors > 0)
        html_vd_add(v, HTML_VD_WARN, "errors: %lld of %lld transactions failed (%.2f%%)", errors, tx,
               100.0 * (double)errors / (double)tx);
}

static void html_vd_status(html_vd *v, const char *status) {
    if (!status) return;
    if (strcmp(status, "aborted") == 0) html_vd_add(v, HTML_VD_BAD, "aborted: no load was generated");
    else if (strcmp(status, "interrupted") == 0)
        html_vd_add(v, HTML_VD_WARN, "interrupted: the figures cover the run up to the signal");
    else if (strcmp(status, "running") == 0)
        html_vd_add(v, HTML_VD_WARN, "running: a snapshot, not the end of the run");
}

/* The words of v: its parts, or the verdict of a clean run. */
static void html_vd_write(FILE *f, const html_vd *v, json_t *root, int has_thresholds) {
    fprintf(f, "<div class=\"verdict %s\" id=\"verdict\" data-verdict=\"%s\" role=\"status\"><strong>",
            html_vd_class[v->level], html_vd_class[v->level]);
    if (v->n == 0) fputs(has_thresholds ? "passed: every threshold held, no error" : "completed: no error", f);
    for (int i = 0; i < v->n; i++) {
        if (i == 1) fputs("</strong>", f);
        if (i > 0) fputs(" &middot; ", f);
        html_esc(f, v->parts[i]);
    }
    if (v->n <= 1) fputs("</strong>", f);
    fputs(" &middot; ", f);
    html_exit_code(f, root);
    fputs("</div>\n", f);
}

static json_t *html_vd_all(json_t *root) {
    size_t i;
    json_t *t;
    json_array_foreach(html_get(root, "timers"), i, t)
        if (html_str(t, "kind") && strcmp(html_str(t, "kind"), "all") == 0) return t;
    return NULL;
}

void html_verdict(FILE *f, json_t *root) {
    html_vd v;
    memset(&v, 0, sizeof v);
    const char *status = html_str(root, "status");
    html_vd_status(&v, status);
    html_vd_thresholds(&v, html_get(root, "thresholds"));
    json_t *sum = html_get(html_vd_all(root), "summary");
    long long tx = html_int(sum, "count");
    html_vd_errors(&v, tx, html_int(sum, "errors"));
    if (tx == 0 && status && strcmp(status, "completed") == 0)
        html_vd_add(&v, HTML_VD_WARN, "no transactions");
    const char *fast = html_str(html_get(root, "fast_failures"), "text");
    if (fast) html_vd_add(&v, HTML_VD_WARN, "%s", fast);
    if (json_is_true(html_get(html_get(root, "generator"), "suspect")))
        html_vd_add(&v, HTML_VD_WARN, "suspect: the load generator may have been the bottleneck");
    html_vd_write(f, &v, root, json_array_size(html_get(root, "thresholds")) > 0);
}

void html_phases_verdict(FILE *f, json_t *root) {
    html_vd v;
    memset(&v, 0, sizeof v);
    html_vd_status(&v, html_str(root, "status"));
    long long planned = html_int(root, "phases_planned"), ran = html_int(root, "phases_run");
    if (ran < planned) html_vd_add(&v, HTML_VD_BAD, "%lld of %lld phases ran", ran, planned);
    html_vd_thresholds(&v, html_get(root, "thresholds"));
    long long tx = 0, errors = 0;
    size_t i;
    json_t *p;
    json_array_foreach(html_get(root, "phases"), i, p) {
        tx += html_int(p, "transactions");
        errors += html_int(p, "errors");
    }
    html_vd_errors(&v, tx, errors);
    if (html_int(root, "exit_code") == 6 && v.level < HTML_VD_BAD)
        html_vd_add(&v, HTML_VD_BAD, "a phase's thresholds failed");
    html_vd_write(f, &v, root, json_array_size(html_get(root, "thresholds")) > 0);
}

void html_closed_caveat(FILE *f, json_t *root) {
    size_t i, n = 0;
    json_t *g;
    json_array_foreach(html_get(root, "groups"), i, g) n += html_str(g, "model") && strcmp(html_str(g, "model"), "closed") == 0;
    if (n == 0) return;
    fputs("<p class=\"warn caveat\" id=\"closed-loop-caveat\">Closed loop: ", f);
    size_t k = 0;
    json_array_foreach(html_get(root, "groups"), i, g) {
        if (!html_str(g, "model") || strcmp(html_str(g, "model"), "closed") != 0) continue;
        if (k++) fputs(", ", f);
        fputs("<strong>", f);
        html_esc(f, html_str(g, "name"));
        fputs("</strong>", f);
    }
    fputs(n == 1 ? " waits" : " wait", f);
    fputs(" for each response before the next request, so a server stall holds the requests back instead of "
          "showing in their latency (a 1 s freeze shows in a handful of samples): these latency figures cannot "
          "show stalls. A group with an arrival rate (<code>rate = N</code>) measures from the intended start "
          "and does (docs/load-models.md, &ldquo;Latency from the intended start&rdquo;).</p>\n", f);
}
