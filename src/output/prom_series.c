/* prom_series.c - the samples luamech sends by remote write (metric names
 * and labels in docs/outputs.md), from the merged run data of one closed
 * interval, and their packing into a prometheus.WriteRequest with the C
 * code protoc-c generated from remote_write.proto.  Latency is a classic
 * histogram (fixed bucket bounds, a factor 1.25 apart) or, with
 * histograms=native, a native one (luamech's HdrHistogram buckets mapped to
 * exponential buckets of schema prom_native_schema()), plus exact
 * percentiles as gauges; counts are cumulative counters.  A timer and its
 * twins are one `timer` label told apart by `view`, and only the timer's
 * own view carries the counts (a sum() counts each sample once).  Label values
 * are escaped as the result files escape names (common/text.c): remote
 * write requires UTF-8, and a name then reads as in summary.json.  No I/O. */
#include "output/sink_prom.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "output/remote_write.pb-c.h"
#include "report/view.h"

#define PROM_NBOUNDS 70

/* 20 us * 1.25^i, i = 0..69: 20 us to about 97 s. */
int prom_bucket_bounds(double *bounds, int max) {
    int n = max < PROM_NBOUNDS ? max : PROM_NBOUNDS;
    for (int i = 0; i < n; i++) bounds[i] = 20e-6 * pow(1.25, i);
    return n;
}

void prom_base64(const char *in, char *out, size_t len) {
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = strlen(in), o = 0;
    for (size_t i = 0; i < n && o + 5 < len; i += 3) {
        uint32_t v = (uint32_t)(unsigned char)in[i] << 16;
        if (i + 1 < n) v |= (uint32_t)(unsigned char)in[i + 1] << 8;
        if (i + 2 < n) v |= (unsigned char)in[i + 2];
        out[o++] = tab[(v >> 18) & 63];
        out[o++] = tab[(v >> 12) & 63];
        out[o++] = i + 1 < n ? tab[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < n ? tab[v & 63] : '=';
    }
    if (len) out[o] = 0;
}

void prom_batch_init(prom_batch *b, const output_run *run, const output_stream_cfg *c, int64_t dropped) {
    memset(b, 0, sizeof *b);
    b->dropped = dropped;
    b->native_hist = c->native_hist;
    b->sc = run->sc;
    b->bname[b->nbase] = "run_id", b->bval[b->nbase++] = run->run_id;
    b->bname[b->nbase] = "scenario", b->bval[b->nbase++] = run->sc->name;
    if (run->phase) b->bname[b->nbase] = "phase", b->bval[b->nbase++] = run->phase;
    if (run->sc->seg_count > 0) {             /* --segment i/N: the merged runs' parts told apart */
        snprintf(b->segment, sizeof b->segment, "%d/%d", run->sc->seg_index, run->sc->seg_count);
        b->bname[b->nbase] = "segment", b->bval[b->nbase++] = b->segment;
    }
    for (int i = 0; i < c->nlabels; i++) b->bname[b->nbase] = c->labels[i][0], b->bval[b->nbase++] = c->labels[i][1];
}

/* A new series with the base labels and up to 4 more (name, value pairs;
 * NULL ends them); NULL when out of memory. */
static prom_series *prom_add(prom_batch *b, const char *metric, double v, const char *n1, const char *v1,
                             const char *n2, const char *v2, const char *n3, const char *v3) {
    if (b->n == b->cap) {
        int cap = b->cap ? b->cap * 2 : 256;
        prom_series *s = realloc(b->s, (size_t)cap * sizeof *s);
        if (!s) return NULL;
        b->s = s;
        b->cap = cap;
    }
    prom_series *s = &b->s[b->n++];
    memset(s, 0, sizeof *s);
    snprintf(s->metric, sizeof s->metric, "%s", metric);
    s->v = v;
    for (int i = 0; i < b->nbase; i++) s->lname[s->nl] = b->bname[i], s->lval[s->nl++] = b->bval[i];
    const char *nv[6] = {n1, v1, n2, v2, n3, v3};
    for (int i = 0; i < 6 && nv[i]; i += 2) s->lname[s->nl] = nv[i], s->lval[s->nl++] = nv[i + 1];
    return s;
}

/* A group timer's group: its index into the scenario's groups (its name
 * is not parsed). */
static const char *prom_group_of(const prom_batch *b, const agg_timer *t) {
    return t->group >= 0 && t->group < b->sc->ngroups ? b->sc->groups[t->group].name : t->name;
}

/* A timer and its twins are one timer seen three ways: the label `timer`
 * is its family's head's name, `view` which way (stats/agg.h: "default";
 * "uncorrected": latency from the actual start; "all": latency over every
 * sample), known from the data, never from the name.  Timer labels: timer,
 * kind, view and, for a group's transactions, group. */
#define PROM_TIMER_LABELS(b, t) "timer", agg_head(t)->name, "kind", timer_kind_name((t)->kind), "view", \
                                  timer_view_name(agg_view_of(t))

/* A timer's series: its labels, and its group's for a group's timer. */
static prom_series *prom_timer_add(prom_batch *b, const char *metric, double v, const agg_timer *t) {
    prom_series *s = prom_add(b, metric, v, PROM_TIMER_LABELS(b, t));
    if (s && t->kind == TK_GROUP) s->lname[s->nl] = "group", s->lval[s->nl++] = prom_group_of(b, t);
    return s;
}

int prom_native_schema(void) {
    double resolution = pow(10.0, -HIST_SIG_DIGITS);           /* 0.001 */
    int s = (int)floor(log2(log(2.0) / resolution));           /* bucket width ~ ln 2 / 2^s */
    return s > 8 ? 8 : s;
}

int32_t prom_native_index(double v, int schema) {
    if (!(v > 0)) return INT32_MIN;                             /* not a bucket: the zero bucket's */
    return (int32_t)ceil(log2(v) * ldexp(1.0, schema) - 1e-9);  /* an exact bound stays in its bucket */
}

/* One more bucket (index idx, count c; indexes increasing) into n. */
static int prom_native_add(prom_native *n, int32_t idx, int64_t c, int32_t *last, int64_t *prev, int *cap) {
    if (n->ndeltas == *cap) {
        int nc = *cap ? *cap * 2 : 64;
        int64_t *d = realloc(n->deltas, (size_t)nc * sizeof *d);
        int32_t *o = d ? realloc(n->span_off, (size_t)nc * sizeof *o) : NULL;
        uint32_t *l = o ? realloc(n->span_len, (size_t)nc * sizeof *l) : NULL;
        if (d) n->deltas = d;
        if (o) n->span_off = o;
        if (l) n->span_len = l;
        if (!l) return -1;
        *cap = nc;
    }
    if (n->nspans > 0 && idx == *last + 1) n->span_len[n->nspans - 1]++;
    else {
        n->span_off[n->nspans] = n->nspans ? idx - *last - 1 : idx;
        n->span_len[n->nspans++] = 1;
    }
    n->deltas[n->ndeltas++] = c - *prev;
    *last = idx, *prev = c;
    return 0;
}

/* t's whole-run histogram as a native histogram series (metric
 * luamech_latency_seconds); each HdrHistogram bucket goes whole into the
 * native bucket of its median-equivalent value; 0 us (a sub-microsecond
 * time) into the zero bucket (threshold 0: exact zeros only). */
static void prom_native_hist(prom_batch *b, const agg_timer *t) {
    const hist *h = &t->total;
    if (b->nnh == b->nh_cap) {
        int cap = b->nh_cap ? b->nh_cap * 2 : 32;
        prom_native *nh = realloc(b->nh, (size_t)cap * sizeof *nh);
        if (!nh) return;
        b->nh = nh, b->nh_cap = cap;
    }
    prom_native *n = &b->nh[b->nnh];
    memset(n, 0, sizeof *n);
    n->schema = prom_native_schema();
    n->count = h->total;
    n->sum = hist_mean_us(h) * (double)h->total / 1e6;
    int32_t cur = 0, last = 0;
    int64_t acc = 0, prev = 0;
    int cap = 0, ok = 1;
    for (int32_t idx = h->total ? h->lo_idx : 1; ok && h->total && idx <= h->hi_idx; idx++) {
        int64_t c = hist_count_at(h, idx);
        if (!c) continue;
        if (hist_median_equivalent(hist_value_at_index(idx)) <= 0) {
            n->zero += c;
            continue;
        }
        int32_t ni = prom_native_index((double)hist_median_equivalent(hist_value_at_index(idx)) / 1e6, n->schema);
        if (acc && ni != cur) ok = prom_native_add(n, cur, acc, &last, &prev, &cap) == 0, acc = 0;
        cur = ni;
        acc += c;
    }
    if (ok && acc) ok = prom_native_add(n, cur, acc, &last, &prev, &cap) == 0;
    prom_series *s = ok ? prom_timer_add(b, "luamech_latency_seconds", 0, t) : NULL;
    if (!s) {
        free(n->deltas), free(n->span_off), free(n->span_len);
        return;
    }
    s->native = ++b->nnh;
}

/* Cumulative bucket counts of t's whole-run histogram (or the native
 * histogram), _sum and _count. */
static void prom_histogram(prom_batch *b, const agg_timer *t) {
    const hist *h = &t->total;
    if (b->native_hist) {
        prom_native_hist(b, t);
        prom_timer_add(b, "luamech_latency_seconds_count", (double)h->total, t);
        prom_timer_add(b, "luamech_latency_seconds_sum", hist_mean_us(h) * (double)h->total / 1e6, t);
        return;
    }
    double bounds[PROM_NBOUNDS];
    int nb = prom_bucket_bounds(bounds, PROM_NBOUNDS);
    int64_t cum[PROM_NBOUNDS] = {0};
    for (int32_t idx = h->total ? h->lo_idx : 1, j = 0; h->total && idx <= h->hi_idx; idx++) {
        int64_t c = hist_count_at(h, idx);
        if (!c) continue;
        double v_s = (double)hist_median_equivalent(hist_value_at_index(idx)) / 1e6;
        while (j < nb && bounds[j] < v_s) j++;
        if (j < nb) cum[j] += c;
    }
    for (int j = 0; j < nb; j++) {
        if (j > 0) cum[j] += cum[j - 1];
        prom_series *s = prom_timer_add(b, "luamech_latency_seconds_bucket", (double)cum[j], t);
        if (!s) return;
        snprintf(s->own, sizeof s->own, "%.9g", bounds[j]);
        s->lname[s->nl] = "le", s->lval[s->nl++] = NULL;       /* own[]: the array may move */
    }
    prom_series *s = prom_timer_add(b, "luamech_latency_seconds_bucket", (double)h->total, t);
    if (s) s->lname[s->nl] = "le", s->lval[s->nl++] = "+Inf";
    prom_timer_add(b, "luamech_latency_seconds_count", (double)h->total, t);
    prom_timer_add(b, "luamech_latency_seconds_sum", hist_mean_us(h) * (double)h->total / 1e6, t);
}

/* Percentiles as gauges: of the interval and of the run so far (absent
 * while there is no latency sample). */
static void prom_quantiles(prom_batch *b, const agg_timer *t, const agg_row *iv) {
    /* the figures carrying FIG_OUT_PROM (stats/figures.h), each a quantile;
     * no latency sample (every one failed, or none): no gauge at all, which
     * Prometheus shows as no data, rather than a 0 that reads as fast */
    for (int i = 0; i < FIG_N; i++) {
        const figure *f = figure_get((fig_id)i);
        if (!(f->outputs & FIG_OUT_PROM) || !f->prom_q) continue;
        int has;
        double ms = figure_value(f, iv, &has);
        prom_series *s = has ? prom_timer_add(b, "luamech_interval_latency_seconds", ms / 1e3, t) : NULL;
        if (s) s->lname[s->nl] = "quantile", s->lval[s->nl++] = f->prom_q;
        s = t->total.total > 0 ? prom_timer_add(b, "luamech_run_latency_seconds",
                                                figure_of_hist_us(f, &t->total) / 1e6, t)
                               : NULL;
        if (s) s->lname[s->nl] = "quantile", s->lval[s->nl++] = f->prom_q;
    }
}

static void prom_timers(prom_batch *b, const run_result *r, int k) {
    for (int i = 0; i < r->agg.n; i++) {
        const agg_timer *t = r->agg.timers[i];
        if (!agg_timer_reported(t)) continue;
        prom_histogram(b, t);
        if (k < t->nrows) prom_quantiles(b, t, &t->rows[k]);
        /* counts: the timer's own (view "default") only, its twins count the
         * same samples, so that a sum() over the counters counts each once */
        if (agg_view_of(t) != TV_DEFAULT) continue;
        prom_timer_add(b, "luamech_samples_total", (double)(t->total.total + t->total_errors + t->total_cancelled), t);
        prom_timer_add(b, "luamech_errors_total", (double)t->total_errors, t);
        if (k < t->nrows) prom_timer_add(b, "luamech_interval_rate_per_second", t->rows[k].rate, t);
    }
}

static void prom_run(prom_batch *b, const output_run *run, int k) {
    const run_result *r = run->r;
    prom_add(b, "luamech_vus", (double)(k < r->agg.nrows_vus ? r->agg.vus_rows[k] : r->agg.active_vus),
             NULL, NULL, NULL, NULL, NULL, NULL);
    double t_s = (double)(k + 1) * (double)r->agg.interval_ns / 1e9;   /* the schedule's, at the nominal end */
    for (int g = 0; g < run->sc->ngroups; g++) {
        const group_cfg *gc = &run->sc->groups[g];
        prom_add(b, gc->model == MODEL_RATE ? "luamech_target_rate_per_second" : "luamech_target_vus",
                 sched_target(&gc->sched, (int64_t)(t_s * 1e9)), "group", gc->name, NULL, NULL, NULL, NULL);
    }
    for (int i = 0; i < r->agg.ncounters; i++)
        prom_add(b, "luamech_counter_total", (double)r->agg.counters[i]->total, "counter", r->agg.counters[i]->name,
                 NULL, NULL, NULL, NULL);
    int n = 0;
    const health_row *h = run->view ? report_view_health(run->view, &n, NULL, NULL) : NULL;
    if (h && k < n) {
        prom_add(b, "luamech_generator_cpu_percent", h[k].cpu_pct, NULL, NULL, NULL, NULL, NULL, NULL);
        prom_add(b, "luamech_generator_cpu_wait_percent", h[k].cpu_wait_pct, NULL, NULL, NULL, NULL, NULL, NULL);
        prom_add(b, "luamech_generator_loop_lag_p99_seconds", h[k].lag_p99_ms / 1e3, NULL, NULL, NULL, NULL, NULL, NULL);
        prom_add(b, "luamech_generator_late_starts", (double)h[k].late, NULL, NULL, NULL, NULL, NULL, NULL);
    }
    prom_add(b, "luamech_output_dropped_samples_total", (double)b->dropped, NULL, NULL, NULL, NULL, NULL, NULL);
}

void prom_batch_fill(prom_batch *b, const output_run *run, int k) {
    const run_result *r = run->r;
    double start_s, end_s;                  /* the last one ends with sampling */
    agg_interval_bounds(&r->agg, k, &start_s, &end_s);
    b->ts_ms = (int64_t)llround(output_wall_s(r, end_s) * 1000.0);
    prom_timers(b, r, k);
    prom_run(b, run, k);
}

/* Labels sorted by name, as remote write requires. */
static void prom_sort_labels(Prometheus__Label **l, int n) {
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && strcmp(l[j - 1]->name, l[j]->name) > 0; j--) {
            Prometheus__Label *x = l[j];
            l[j] = l[j - 1];
            l[j - 1] = x;
        }
}

/* v, or an escaped copy of it added to *esc (freed by the caller) when it
 * is not clean; v when out of memory (Prometheus may then refuse it). */
static char *prom_label_value(const char *v, char ***esc, size_t *nesc, size_t *cap) {
    if (text_is_clean(v, strlen(v))) return (char *)v;
    if (*nesc == *cap) {
        size_t c = *cap ? *cap * 2 : 16;
        char **e = realloc(*esc, c * sizeof *e);
        if (!e) return (char *)v;
        *esc = e, *cap = c;
    }
    char *copy = text_escape_dup(v);
    if (!copy) return (char *)v;
    (*esc)[(*nesc)++] = copy;
    return copy;
}

/* n as a protobuf-c Histogram into hp (spans from sp/spp, n->nspans of
 * them), stamped ts_ms. */
static void prom_pack_native(const prom_native *n, int64_t ts_ms, Prometheus__Histogram *hp,
                             Prometheus__BucketSpan *sp, Prometheus__BucketSpan **spp) {
    prometheus__histogram__init(hp);
    hp->count_case = PROMETHEUS__HISTOGRAM__COUNT_COUNT_INT;
    hp->count_int = (uint64_t)n->count;
    hp->sum = n->sum;
    hp->schema = n->schema;
    hp->zero_count_case = PROMETHEUS__HISTOGRAM__ZERO_COUNT_ZERO_COUNT_INT;   /* zero_threshold 0 */
    hp->zero_count_int = (uint64_t)n->zero;
    for (int i = 0; i < n->nspans; i++) {
        prometheus__bucket_span__init(&sp[i]);
        sp[i].offset = n->span_off[i], sp[i].length = n->span_len[i];
        spp[i] = &sp[i];
    }
    hp->n_positive_spans = (size_t)n->nspans, hp->positive_spans = spp;
    hp->n_positive_deltas = (size_t)n->ndeltas, hp->positive_deltas = n->deltas;
    hp->reset_hint = PROMETHEUS__HISTOGRAM__RESET_HINT__UNKNOWN;
    hp->timestamp = ts_ms;
}

uint8_t *prom_batch_pack(const prom_batch *b, size_t *len) {
    int per = PROM_MAX_LABELS + 1;
    char **esc = NULL;
    size_t nesc = 0, esc_cap = 0;
    size_t nspans = 0;
    for (int i = 0; i < b->nnh; i++) nspans += (size_t)b->nh[i].nspans;
    Prometheus__Histogram *hs = calloc((size_t)b->nnh + 1, sizeof *hs);
    Prometheus__Histogram **hsp = calloc((size_t)b->nnh + 1, sizeof *hsp);
    Prometheus__BucketSpan *sp = calloc(nspans + 1, sizeof *sp);
    Prometheus__BucketSpan **spp = calloc(nspans + 1, sizeof *spp);
    size_t span_at = 0;
    Prometheus__TimeSeries *ts = calloc((size_t)b->n + 1, sizeof *ts);
    Prometheus__TimeSeries **tsp = calloc((size_t)b->n + 1, sizeof *tsp);
    Prometheus__Label *lab = calloc(((size_t)b->n + 1) * (size_t)per, sizeof *lab);
    Prometheus__Label **labp = calloc(((size_t)b->n + 1) * (size_t)per, sizeof *labp);
    Prometheus__Sample *smp = calloc((size_t)b->n + 1, sizeof *smp);
    Prometheus__Sample **smpp = calloc((size_t)b->n + 1, sizeof *smpp);
    uint8_t *out = NULL;
    if (ts && tsp && lab && labp && smp && smpp && hs && hsp && sp && spp) {
        for (int i = 0; i < b->n; i++) {
            const prom_series *s = &b->s[i];
            Prometheus__Label *l = &lab[i * per], **lp = &labp[i * per];
            prometheus__label__init(&l[0]);
            l[0].name = "__name__", l[0].value = (char *)s->metric, lp[0] = &l[0];
            for (int j = 0; j < s->nl; j++) {
                prometheus__label__init(&l[j + 1]);
                l[j + 1].name = (char *)s->lname[j];
                l[j + 1].value = prom_label_value(s->lval[j] ? s->lval[j] : s->own, &esc, &nesc, &esc_cap);
                lp[j + 1] = &l[j + 1];
            }
            prom_sort_labels(lp, s->nl + 1);
            prometheus__sample__init(&smp[i]);
            smp[i].value = s->v;
            smp[i].timestamp = b->ts_ms;
            smpp[i] = &smp[i];
            prometheus__time_series__init(&ts[i]);
            ts[i].n_labels = (size_t)s->nl + 1, ts[i].labels = lp;
            ts[i].n_samples = 1, ts[i].samples = &smpp[i];
            if (s->native > 0) {
                const prom_native *n = &b->nh[s->native - 1];
                prom_pack_native(n, b->ts_ms, &hs[s->native - 1], &sp[span_at], &spp[span_at]);
                span_at += (size_t)n->nspans;
                hsp[s->native - 1] = &hs[s->native - 1];
                ts[i].n_samples = 0;
                ts[i].n_histograms = 1, ts[i].histograms = &hsp[s->native - 1];
            }
            tsp[i] = &ts[i];
        }
        Prometheus__WriteRequest wr;
        prometheus__write_request__init(&wr);
        wr.n_timeseries = (size_t)b->n;
        wr.timeseries = tsp;
        *len = prometheus__write_request__get_packed_size(&wr);
        out = malloc(*len ? *len : 1);
        if (out) prometheus__write_request__pack(&wr, out);
    }
    free(ts), free(tsp), free(lab), free(labp), free(smp), free(smpp);
    free(hs), free(hsp), free(sp), free(spp);
    for (size_t i = 0; i < nesc; i++) free(esc[i]);
    free(esc);
    return out;
}

void prom_batch_free(prom_batch *b) {
    for (int i = 0; i < b->nnh; i++) free(b->nh[i].deltas), free(b->nh[i].span_off), free(b->nh[i].span_len);
    free(b->nh);
    free(b->s);
    memset(b, 0, sizeof *b);
}
