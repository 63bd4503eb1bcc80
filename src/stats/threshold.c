/* threshold.c - parse "SUBJECT STAT OP VALUE[UNIT]" criteria and evaluate
 * them on a run's totals.  SUBJECT is a timer name (may contain spaces),
 * "transactions" (All Transactions), "checks", a custom metric, or empty;
 * STAT is min, avg, p50, p80, p90, p95, p99, p99.9, max, stdev, count,
 * rate, errors, "errors rate" or value; "rate" with a percentage is a
 * custom rate metric's share of true.  On a counter (a custom one, or one
 * luamech makes: "http.status_5xx") count and value are its total and rate
 * its total per second of the run; a stat that does not apply to the
 * subject fails as TH_NOT_APPLICABLE, saying which do.  A subject "BASE{k=v,...}" (or k6's
 * "BASE{k:v}") is a tag selector: every tagged timer of BASE (a glob, or a
 * family: "http" is every HTTP call, named or not) whose tags include
 * those (threshold_tags_match; report/thresholds.c merges them).  SUBJECT
 * may end in a view of its timer family (stats/agg.h), " (uncorrected)",
 * " (all)" or " (default)", also after a selector ("http{flow:shop} (all)");
 * none is the default view.  The suffix is parsed, not matched as part of
 * a name, except that a timer named the whole subject wins (a group called
 * "a (uncorrected)").  No I/O. */
#include "stats/threshold.h"

#include <ctype.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check_names.h"
#include "stats/figures.h"

/* The stat of a figure of the table (FIG_THRESHOLD): its latency, or count,
 * rate and errors, which also apply to custom metrics. */
static th_stat th_fig_stat(const figure *f) {
    if (f->unit == FIG_UNIT_MS) return TH_LATENCY;
    return f->id == FIG_RATE ? TH_RATE : f->id == FIG_ERRORS ? TH_ERRORS : TH_COUNT;
}

static int th_op_parse(const char *s, th_op *op) {
    static const struct { const char *s; th_op op; } ops[] = {
        {"<", TH_LT}, {"<=", TH_LE}, {">", TH_GT}, {">=", TH_GE}, {"==", TH_EQ}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(s, ops[i].s) == 0) { *op = ops[i].op; return 0; }
    return -1;
}

static int th_is_time(th_stat s) { return s == TH_LATENCY; }
static int th_is_percent(th_stat s) { return s == TH_ERROR_RATE || s == TH_CHECKS_RATE || s == TH_FRACTION; }

/* "5ms", "0.2s", "300us", "99.9%", "1000/s", "12" -> value in the stat's unit */
static int th_value_parse(const char *s, th_stat stat, double *out) {
    char *end;
    double v = strtod(s, &end);
    if (end == s || !isfinite(v)) return -1;
    if (th_is_time(stat)) {
        if (strcmp(end, "ms") == 0 || *end == 0) *out = v;
        else if (strcmp(end, "s") == 0) *out = v * 1000;
        else if (strcmp(end, "us") == 0) *out = v / 1000;
        else return -1;
        return 0;
    }
    if (th_is_percent(stat)) {
        if (strcmp(end, "%") != 0) return -1;
        *out = v;
        return 0;
    }
    if (stat == TH_RATE && strcmp(end, "/s") != 0 && *end) return -1;
    if (stat != TH_RATE && *end) return -1;
    *out = v;
    return 0;
}

/* Split on spaces into at most 32 tokens (modifies buf). */
static int th_tokens(char *buf, char **tok) {
    int n = 0;
    char *save;
    for (char *p = strtok_r(buf, " \t", &save); p && n < 32; p = strtok_r(NULL, " \t", &save)) tok[n++] = p;
    return n;
}

static int th_fail(char *err, size_t len, const char *text, const char *why) {
    snprintf(err, len, "threshold \"%s\": %s (expected e.g. \"GET p95 < 5ms\", \"errors rate < 0.1%%\", "
             "\"checks rate > 99.9%%\", \"transactions rate >= 1000/s\")", text, why);
    return -1;
}

static int th_stat_parse(char **tok, int *n, threshold *t) {
    const char *s = tok[*n - 1];
    if (strcmp(s, "rate") == 0 && *n >= 2 && strcmp(tok[*n - 2], "errors") == 0) {
        t->stat = TH_ERROR_RATE;
        *n -= 2;
        return 0;
    }
    const figure *f = strcmp(s, "p99_9") && strcmp(s, "p999") ? figure_find(s, strlen(s), FIG_THRESHOLD) : NULL;
    if (f && strcmp(s, f->name) == 0) {        /* by name ("p95"), not by key ("p95_ms") */
        t->stat = th_fig_stat(f), t->fig = (int)f->id;
        (*n)--;
        return 0;
    }
    if (strcmp(s, "value") == 0) {             /* a custom counter's or gauge's */
        t->stat = TH_VALUE;
        (*n)--;
        return 0;
    }
    return -1;
}

/* 1 when s[0..n) is a tag name (lm_http_opts.c's rule: 1..64 of A-Z a-z
 * 0-9 _ . : -) or, name 0, a tag value (0..64 printable ASCII bytes; the
 * selector's split already excluded , = { }). */
static int th_tag_ok(const char *s, size_t n, int name) {
    if (n > TH_TAG_LEN || (name && n == 0)) return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        int alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (name && !(alnum || c == '_' || c == '.' || c == ':' || c == '-')) return 0;
        if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') return 0;
    }
    return 1;
}

/* One "k=v" (or "k:v": the name ends at the first colon) of a selector. */
static int th_tag_pair(const char *p, size_t n, threshold *t) {
    const char *eq = memchr(p, '=', n);
    if (!eq) eq = memchr(p, ':', n);
    if (!eq || t->ntags >= TH_MAX_TAGS) return -1;
    size_t kl = (size_t)(eq - p), vl = n - kl - 1;
    if (!th_tag_ok(p, kl, 1) || !th_tag_ok(eq + 1, vl, 0) || memchr(eq + 1, '=', vl)) return -1;
    memcpy(t->tag_k[t->ntags], p, kl);
    t->tag_k[t->ntags][kl] = 0;
    memcpy(t->tag_v[t->ntags], eq + 1, vl);
    t->tag_v[t->ntags][vl] = 0;
    t->ntags++;
    return 0;
}

/* A subject ending in "{k=v,...}" is a tag selector; anything else (e.g.
 * "http /users/{id}", no pairs) is a plain timer name. */
static void th_selector(threshold *t) {
    const char *f = t->family;
    size_t l = strlen(f);
    const char *brace = strrchr(f, '{');
    if (l < 3 || f[l - 1] != '}' || !brace || (size_t)(brace - f) >= sizeof t->base) return;
    for (const char *p = brace + 1; p < f + l - 1;) {
        const char *end = memchr(p, ',', (size_t)(f + l - 1 - p));
        if (!end) end = f + l - 1;
        if (th_tag_pair(p, (size_t)(end - p), t) != 0) {
            t->ntags = 0;
            return;
        }
        p = end + 1;
    }
    memcpy(t->base, f, (size_t)(brace - f));
    t->base[brace - f] = 0;
}

/* 1 when a selector's BASE selects the tagged timer of tagged_of: empty
 * BASE, a glob that matches, the same name, or a family (one word: no
 * space, dot or wildcard, e.g. "http") whose member tagged_of is: it
 * continues with "." or " " ("http.get", "http login"), so "http{k:v}"
 * selects every tagged HTTP call, named or not. */
static int th_base_match(const char *base, const char *tagged_of) {
    if (!base[0]) return 1;
    if (strpbrk(base, "*?")) return fnmatch(base, tagged_of, 0) == 0;
    if (strcmp(base, tagged_of) == 0) return 1;
    size_t n = strlen(base);
    return !strpbrk(base, " .") && strncmp(base, tagged_of, n) == 0 && (tagged_of[n] == '.' || tagged_of[n] == ' ');
}

int threshold_tags_match(const threshold *t, const char *tagged_of,
                         const char *(*tag)(void *ctx, const char *name), void *ctx) {
    if (t->ntags == 0 || !tagged_of || !th_base_match(t->base, tagged_of)) return 0;
    for (int i = 0; i < t->ntags; i++) {
        const char *v = tag(ctx, t->tag_k[i]);
        if (!v || strcmp(v, t->tag_v[i]) != 0) return 0;
    }
    return 1;
}

/* A subject ending in " (VIEW)" (timer_view_parse's words): *view, and the
 * length of what precedes it; else TV_DEFAULT and the whole length. */
static size_t th_view_split(const char *s, timer_view *view) {
    size_t l = strlen(s);
    const char *open = strrchr(s, '(');
    *view = TV_DEFAULT;
    if (l < 4 || s[l - 1] != ')' || !open || (open != s && open[-1] != ' ')) return l;
    char word[16];
    size_t wl = (size_t)(s + l - 1 - (open + 1));
    if (wl >= sizeof word) return l;
    memcpy(word, open + 1, wl);
    word[wl] = 0;
    timer_view v = timer_view_parse(word);
    if (v == TV_N) return l;
    *view = v;
    return open == s ? 0 : (size_t)(open - 1 - s);   /* "(all)" alone: All Transactions' view */
}

static void th_subject(char **tok, int n, threshold *t) {
    char subject[sizeof t->timer] = "";
    for (int i = 0; i < n; i++) {
        if (i) strncat(subject, " ", sizeof subject - strlen(subject) - 1);
        strncat(subject, tok[i], sizeof subject - strlen(subject) - 1);
    }
    size_t fl = th_view_split(subject, &t->view);
    snprintf(t->family, sizeof t->family, "%.*s", (int)fl, subject);
    if (t->family[0] == 0 || strcmp(t->family, "transactions") == 0)
        snprintf(t->family, sizeof t->family, "All Transactions");
    /* the subject as written, "transactions" named as the timer is */
    const char *sep = fl == 0 && subject[0] ? " " : "";   /* "(all)" alone: "All Transactions (all)" */
    if (snprintf(t->timer, sizeof t->timer, "%s%s%s", t->family, sep, subject + fl) >= (int)sizeof t->timer)
        t->timer[sizeof t->timer - 1] = 0;      /* cut at 199 bytes, as the subject itself is */
    if (strcmp(t->timer, "checks") == 0 && t->stat == TH_RATE) t->stat = TH_CHECKS_RATE;
    th_selector(t);
}

int threshold_parse(const char *text, threshold *t, char *err, size_t err_len) {
    char buf[256], *tok[32];
    memset(t, 0, sizeof *t);
    t->fig = -1;
    if (strlen(text) >= sizeof buf) return th_fail(err, err_len, text, "too long");
    snprintf(t->text, sizeof t->text, "%s", text);
    snprintf(buf, sizeof buf, "%s", text);
    int n = th_tokens(buf, tok);
    if (n < 3) return th_fail(err, err_len, text, "too short");
    const char *value = tok[n - 1];
    if (th_op_parse(tok[n - 2], &t->op) != 0) return th_fail(err, err_len, text, "no comparison operator (<, <=, >, >=, ==)");
    n -= 2;
    if (th_stat_parse(tok, &n, t) != 0) return th_fail(err, err_len, text, "unknown statistic");
    th_subject(tok, n, t);
    size_t vl = strlen(value);
    if (t->stat == TH_RATE && vl > 0 && value[vl - 1] == '%') t->stat = TH_FRACTION;   /* a rate metric */
    if (th_value_parse(value, t->stat, &t->limit) != 0)
        return th_fail(err, err_len, text, th_is_time(t->stat) ? "bad time value (use ms, s or us)"
                                          : th_is_percent(t->stat) ? "bad percentage (end it with %)"
                                                                   : "bad number");
    return 0;
}

int threshold_is_latency(const threshold *t) { return th_is_time(t->stat); }

void threshold_checks_add(const agg *a, int64_t *pass, int64_t *all) {
    for (int i = 0; i < a->ncounters; i++) {
        const agg_counter *c = a->counters[i];
        if (c->kind == CK_CHECK_PASS) *pass += c->total, *all += c->total;
        else if (c->kind == CK_CHECK_FAIL) *all += c->total;
    }
}

void threshold_metrics_add(const threshold *t, const agg *a, th_input *in) {
    char name[256];
    const agg_counter *c = agg_find_counter(a, t->timer);
    snprintf(name, sizeof name, "%s%s", LM_GAUGE, t->timer);
    if (!c) c = agg_find_counter(a, name);
    if (c) in->has_metric = 1, in->metric_gauge |= c->kind == CK_GAUGE, in->metric += c->total;
    snprintf(name, sizeof name, "%s%s", LM_RATE_TRUE, t->timer);
    if ((c = agg_find_counter(a, name))) in->rate_true += c->total, in->rate_all += c->total;
    snprintf(name, sizeof name, "%s%s", LM_RATE_FALSE, t->timer);
    if ((c = agg_find_counter(a, name))) in->rate_all += c->total;
}

/* The first family head of a named name, or NULL. */
static const agg_timer *th_head(const agg *a, const char *name) {
    for (int i = 0; i < a->n; i++)
        if (agg_head(a->timers[i]) == a->timers[i] && strcmp(a->timers[i]->name, name) == 0) return a->timers[i];
    return NULL;
}

/* With a view suffix, a head named the whole subject; else NULL. */
static const agg_timer *th_exact_head(const threshold *t, const agg *a) {
    return strcmp(t->timer, t->family) != 0 ? th_head(a, t->timer) : NULL;
}

int threshold_exact(const threshold *t, const agg *a) { return th_exact_head(t, a) != NULL; }

const agg_timer *threshold_family(const threshold *t, const agg *a, timer_view *view) {
    const agg_timer *h = th_exact_head(t, a);
    if (h) {
        *view = TV_DEFAULT;
        return h;
    }
    *view = t->view;
    return th_head(a, t->family);
}

const agg_timer *threshold_timer(const threshold *t, const agg *a) {
    timer_view v;
    const agg_timer *h = threshold_family(t, a, &v);
    return h ? threshold_view_of(h, v) : NULL;
}

const agg_timer *threshold_view_of(const agg_timer *head, timer_view v) {
    const agg_timer *x = agg_view(head, v);
    return x || v != TV_ALL ? x : head;     /* no "all" view (engine timers): the default, as everywhere */
}

/* A latency figure of h in ms (the table's definition of it). */
static double th_latency_ms(int fig, const hist *h) {
    const figure *f = figure_get((fig_id)fig);
    return f ? figure_of_hist_us(f, h) / 1000 : 0;
}

/* A counter's or gauge's figure (a counter luamech makes that never moved
 * is one at 0): count and value are its total (a gauge's value), rate
 * (per second) a counter's total over the runs' spans. */
static th_state th_eval_metric(const threshold *t, const th_input *in, double *value) {
    if (t->stat == TH_VALUE || t->stat == TH_COUNT) {
        *value = (double)in->metric;
        return TH_MEASURED;
    }
    if (t->stat != TH_RATE || in->metric_gauge) return TH_NOT_APPLICABLE;
    *value = in->run_span_s > 0 ? (double)in->metric / in->run_span_s : 0;
    return TH_MEASURED;
}

int threshold_counter_stat(const threshold *t) {
    return t->stat == TH_COUNT || t->stat == TH_VALUE || t->stat == TH_RATE;
}

const char *threshold_applies(const threshold *t, const th_input *in) {
    int timer = (in && in->h) || (t->subject_kind == TH_SUBJ_TIMER && !(in && in->has_metric));
    if (!timer && in && in->rate_all > 0 && !in->has_metric)
        return "a rate metric: rate with a percentage applies (NAME rate > 95%)";
    if (!timer && in && in->metric_gauge) return "a gauge: value (or count: its value at the end) applies";
    if (!timer) return "a counter: count, value (its total) and rate (its total per second of the run) apply";
    return "a timer: min, avg, p50 ... max, stdev, count, rate (per second), errors and errors rate apply";
}

th_state threshold_eval(const threshold *t, const th_input *in, double *value) {
    *value = 0;
    int any = in->h || in->has_metric || in->rate_all > 0 || t->subject_kind != TH_SUBJ_UNKNOWN;
    if (t->stat == TH_CHECKS_RATE) {
        if (in->checks_all <= 0) return TH_NO_DATA;
        *value = 100.0 * (double)in->checks_pass / (double)in->checks_all;
        return TH_MEASURED;
    }
    if (t->stat == TH_FRACTION) {
        if (in->rate_all <= 0) return any ? TH_NOT_APPLICABLE : TH_NO_DATA;
        *value = 100.0 * (double)in->rate_true / (double)in->rate_all;
        return TH_MEASURED;
    }
    if (!in->h && (in->has_metric || t->subject_kind == TH_SUBJ_COUNTER)) return th_eval_metric(t, in, value);
    if (!in->h && in->rate_all > 0) return TH_NOT_APPLICABLE;     /* a rate metric's stat other than % */
    if (!in->h) return TH_NO_DATA;
    if (t->stat == TH_VALUE) return TH_NOT_APPLICABLE;             /* a timer's */
    /* an "(all)" view's histogram holds its failed samples too (not_ok) */
    int64_t sampled = in->h->total, all = sampled + in->errors, errors = in->errors + in->h->not_ok;
    if (th_is_time(t->stat)) {
        if (sampled == 0) return TH_NO_SUCCESS;      /* no latency to judge: never a pass */
        *value = th_latency_ms(t->fig, in->h);
        return TH_MEASURED;
    }
    switch (t->stat) {
    case TH_COUNT: *value = (double)all; break;
    case TH_RATE: *value = in->span_s > 0 ? (double)all / in->span_s : 0; break;
    case TH_ERRORS: *value = (double)errors; break;
    default: *value = all ? 100.0 * (double)errors / (double)all : 0; break;   /* TH_ERROR_RATE */
    }
    return TH_MEASURED;
}

const char *threshold_subject_kind_name(th_subject_kind k) {
    return k == TH_SUBJ_TIMER ? "timer" : k == TH_SUBJ_COUNTER ? "counter" : NULL;
}

th_subject_kind threshold_subject_kind_parse(const char *s) {
    if (s && strcmp(s, "timer") == 0) return TH_SUBJ_TIMER;
    return s && strcmp(s, "counter") == 0 ? TH_SUBJ_COUNTER : TH_SUBJ_UNKNOWN;
}

int threshold_passes(const threshold *t, double v) {
    switch (t->op) {
    case TH_LT: return v < t->limit;
    case TH_LE: return v <= t->limit;
    case TH_GT: return v > t->limit;
    case TH_GE: return v >= t->limit;
    default: return v == t->limit;
    }
}

const char *threshold_unit(const threshold *t) {
    if (th_is_time(t->stat)) return "ms";
    if (th_is_percent(t->stat)) return "%";
    return t->stat == TH_RATE ? "/s" : "";
}
