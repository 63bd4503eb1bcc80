/* output.c - the set of live outputs of a run: parses --stream and
 * --dashboard, opens the sinks before any load, and at each closed interval
 * builds the event once (JSON lines, output_json.c) and hands it to every
 * sink (each queues it for its own thread: nothing here waits on I/O).
 * Sinks: sink_json.c, sink_prom.c, sink_dash.c. */
#include "output/output_priv.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"

struct output_set {
    int n;
    output_sink sinks[OUTPUT_MAX_STREAMS + 1];
    char run_id[256];
    const char *phase;
    int next;                /* the next interval to send */
    char *segments;          /* output_segments' latest, or NULL */
};

/* "NAME=VALUE" with a Prometheus label name. */
static int output_parse_label(output_stream_cfg *s, const char *kv, char *err, size_t err_len) {
    const char *eq = strchr(kv, '=');
    size_t n = eq ? (size_t)(eq - kv) : 0;
    int ok = eq && n > 0 && n < sizeof s->labels[0][0] && strlen(eq + 1) < sizeof s->labels[0][1];
    for (size_t i = 0; ok && i < n; i++) {
        char c = kv[i];
        ok = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9');
    }
    if (!ok || s->nlabels >= OUTPUT_MAX_LABELS) {
        snprintf(err, err_len, "--stream prometheus: label=%s: expected label=NAME=VALUE (NAME of letters, digits "
                 "and _, not starting with a digit; at most %d labels)", kv, OUTPUT_MAX_LABELS);
        return -1;
    }
    static const char *const ours[] = {"run_id", "scenario", "phase", "segment", "timer", "kind",
                                       "group", "counter", "le", "quantile", "view"};
    for (size_t i = 0; i < sizeof ours / sizeof ours[0]; i++)
        if ((strlen(ours[i]) == n && memcmp(kv, ours[i], n) == 0) || strncmp(kv, "__", 2) == 0) {
            snprintf(err, err_len, "--stream prometheus: label=%s: luamech sets that label itself (run_id, "
                     "scenario, phase, segment, timer, kind, group, counter, le, quantile; names starting "
                     "with __ are Prometheus's)", kv);
            return -1;
        }
    memcpy(s->labels[s->nlabels][0], kv, n);
    s->labels[s->nlabels][0][n] = 0;
    snprintf(s->labels[s->nlabels][1], sizeof s->labels[0][1], "%s", eq + 1);
    s->nlabels++;
    return 0;
}

/* prometheus=URL[,interval=DUR][,label=NAME=VALUE]...[,histograms=classic|native][,bearer_token_file=PATH] */
static int output_parse_prom(output_stream_cfg *s, const char *spec, char *err, size_t err_len) {
    char buf[2048];
    snprintf(buf, sizeof buf, "%s", spec);
    char *save = NULL, *tok = strtok_r(buf, ",", &save);
    if (!tok || output_prom_check_url(tok, err, err_len) != 0) {
        if (!tok) snprintf(err, err_len, "--stream prometheus=URL: the URL is missing");
        return -1;
    }
    snprintf(s->target, sizeof s->target, "%s", tok);
    while ((tok = strtok_r(NULL, ",", &save)) != NULL) {
        if (strncmp(tok, "interval=", 9) == 0) {
            if (units_parse_duration_ns(tok + 9, &s->push_ns) != 0 || s->push_ns < 0) {
                snprintf(err, err_len, "--stream prometheus: interval=%s: expected a duration such as 5s", tok + 9);
                return -1;
            }
        } else if (strncmp(tok, "label=", 6) == 0) {
            if (output_parse_label(s, tok + 6, err, err_len) != 0) return -1;
        } else if (strcmp(tok, "histograms=native") == 0 || strcmp(tok, "histograms=classic") == 0) {
            s->native_hist = tok[11] == 'n';
        } else if (strncmp(tok, "bearer_token_file=", 18) == 0 && tok[18]) {
            snprintf(s->bearer_file, sizeof s->bearer_file, "%s", tok + 18);
        } else {
            snprintf(err, err_len, "--stream prometheus: unknown option '%s' (expected interval=DUR, "
                     "label=NAME=VALUE, histograms=classic|native or bearer_token_file=PATH)", tok);
            return -1;
        }
    }
    return 0;
}

int output_parse_stream(output_cfg *c, const char *arg, char *err, size_t err_len) {
    if (c->nstreams >= OUTPUT_MAX_STREAMS) {
        snprintf(err, err_len, "--stream: at most %d streams", OUTPUT_MAX_STREAMS);
        return -1;
    }
    output_stream_cfg *s = &c->streams[c->nstreams];
    memset(s, 0, sizeof *s);
    if (strncmp(arg, "json=", 5) == 0 && arg[5]) {
        if (strlen(arg + 5) >= sizeof s->target) {
            snprintf(err, err_len, "--stream json=FILE: the path is too long");
            return -1;
        }
        s->kind = OUTPUT_JSON;
        snprintf(s->target, sizeof s->target, "%s", arg + 5);
    } else if (strncmp(arg, "prometheus=", 11) == 0) {
        s->kind = OUTPUT_PROMETHEUS;
        if (output_parse_prom(s, arg + 11, err, err_len) != 0) return -1;
    } else {
        snprintf(err, err_len, "--stream: expected json=FILE, json=- or prometheus=URL; got '%s'", arg);
        return -1;
    }
    c->nstreams++;
    return 0;
}

int output_parse_dashboard(output_cfg *c, const char *arg, char *err, size_t err_len) {
    const char *colon = strrchr(arg, ':');
    const char *port = colon ? colon + 1 : arg;
    char *end;
    long p = strtol(port, &end, 10);
    if (!*port || *end || p < 0 || p > 65535 || strlen(arg) >= sizeof c->dashboard) {
        snprintf(err, err_len, "--dashboard: expected [ADDRESS:]PORT such as 8080 or 127.0.0.1:8080 (port 0 "
                 "to 65535; 0 picks a free one); got '%s'", arg);
        return -1;
    }
    if (colon) {
        char addr[256];
        size_t n = (size_t)(colon - arg);
        if (n >= sizeof addr) n = sizeof addr - 1;
        memcpy(addr, arg, n);
        addr[n] = 0;
        unsigned char bin[16];
        char *a = addr;
        if (a[0] == '[' && n > 1 && a[n - 1] == ']') a[n - 1] = 0, a++;
        if (inet_pton(AF_INET, a, bin) != 1 && inet_pton(AF_INET6, a, bin) != 1) {
            snprintf(err, err_len, "--dashboard: '%s' is not an IPv4 or IPv6 address (e.g. 127.0.0.1:8080 or "
                     "[::1]:8080)", a);
            return -1;
        }
    }
    snprintf(c->dashboard, sizeof c->dashboard, "%s", arg);
    return 0;
}

int output_check(const output_cfg *c, char *err, size_t err_len) {
    if (c->dashboard_linger && !c->dashboard[0]) {
        snprintf(err, err_len, "--dashboard-linger needs --dashboard");
        return -1;
    }
    if (c->dashboard[0] && !c->dashboard_public && !output_dash_is_loopback(c->dashboard)) {
        snprintf(err, err_len, "--dashboard %s: not a loopback address; the dashboard has no authentication: "
                 "add --dashboard-public to serve it there anyway", c->dashboard);
        return -1;
    }
    int stdout_users = 0;
    for (int i = 0; i < c->nstreams; i++)
        stdout_users += c->streams[i].kind == OUTPUT_JSON && strcmp(c->streams[i].target, "-") == 0;
    if (stdout_users > 1) {
        snprintf(err, err_len, "--stream json=-: given twice");
        return -1;
    }
    return 0;
}

int output_uses_stdout(const output_cfg *c) {
    for (int i = 0; c && i < c->nstreams; i++)
        if (c->streams[i].kind == OUTPUT_JSON && strcmp(c->streams[i].target, "-") == 0) return 1;
    return 0;
}

output_set *output_open(const output_cfg *c, const char *run_id, char *err, size_t err_len) {
    output_set *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, err_len, "out of memory for the outputs");
        return NULL;
    }
    snprintf(s->run_id, sizeof s->run_id, "%s", run_id);
    int rc = 0;
    for (int i = 0; i < c->nstreams && rc == 0; i++) {
        const output_stream_cfg *sc = &c->streams[i];
        rc = sc->kind == OUTPUT_JSON ? output_json_open(&s->sinks[s->n], sc, err, err_len)
                                     : output_prom_open(&s->sinks[s->n], sc, err, err_len);
        if (rc == 0) s->n++;
    }
    if (rc == 0 && c->dashboard[0] && (rc = output_dash_open(&s->sinks[s->n], c, err, err_len)) == 0) s->n++;
    if (rc != 0) {
        output_close(s);
        return NULL;
    }
    return s;
}

static void output_dispatch(output_set *s, const output_run *run, output_ev ev, int k, const char *lines, size_t len) {
    for (int i = 0; i < s->n; i++) s->sinks[i].on_event(s->sinks[i].self, run, ev, k, lines, len);
}

void output_run_start(output_set *s, const scenario *sc, const char *phase) {
    if (!s) return;
    s->phase = phase;
    s->next = 0;
    output_run run = {sc, NULL, s->run_id, phase, NULL, NULL};
    char *buf = NULL;
    size_t len = 0;
    if (output_json_start(&buf, &len, &run) == 0) output_dispatch(s, &run, OUTPUT_EV_START, -1, buf, len);
    free(buf);
}

void output_segments(output_set *s, const char *json) {
    if (!s) return;
    char *copy = json ? strdup(json) : NULL;
    if (json && !copy) return;               /* out of memory: the last state stays */
    free(s->segments);
    s->segments = copy;
}

void output_interval(output_set *s, const scenario *sc, const run_result *r, report_view *v) {
    if (!s) return;
    report_view own;
    if (!v) report_view_init(&own, sc, r), v = &own;
    output_run run = {sc, r, s->run_id, s->phase, s->segments, v};
    for (; s->next < r->agg.nintervals; s->next++) {
        char *buf = NULL;
        size_t len = 0;
        if (output_json_interval(&buf, &len, &run, s->next) == 0)
            output_dispatch(s, &run, OUTPUT_EV_INTERVAL, s->next, buf, len);
        free(buf);
    }
    if (v == &own) report_view_free(&own);
}

void output_run_end(output_set *s, const scenario *sc, const run_result *r, const char *status, int exit_code) {
    if (!s) return;
    report_view v;
    report_view_init(&v, sc, r);
    output_interval(s, sc, r, &v);
    output_run run = {sc, r, s->run_id, s->phase, s->segments, &v};
    char *buf = NULL;
    size_t len = 0;
    if (output_json_end(&buf, &len, &run, status, exit_code) == 0)
        output_dispatch(s, &run, OUTPUT_EV_END, r->agg.nintervals, buf, len);
    free(buf);
    report_view_free(&v);
}

void output_close(output_set *s) {
    if (!s) return;
    for (int i = 0; i < s->n; i++) s->sinks[i].close(s->sinks[i].self);
    free(s->segments);
    free(s);
}
