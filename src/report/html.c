/* html.c - report.html: one self-contained page rendered FROM THE FILES of a
 * results directory (summary.json, read with jansson), never from the run's
 * memory, so `luamech report DIR` re-renders any saved run.  No network: the
 * CSS and a small JavaScript that draws SVG line charts are inline, the data
 * is an embedded copy of summary.json, and a Content-Security-Policy forbids
 * every fetch.  The tables are static HTML (all numbers are readable without
 * JavaScript); the script only draws the charts.  Every string taken from the
 * files is HTML-escaped; the embedded JSON has <, > and & as \u escapes, so
 * no data can close the <script> element.
 *
 * Page order: a warning banner when the generator is suspect, the
 * thresholds (pass/FAIL, exit code), the summary, All Transactions, groups,
 * stages (one table of the "stage" timers), custom timers, primitives, the
 * generator health (its per-interval table and charts, and the "engine"
 * timers), checks, counters (without the check.pass/check.fail counters)
 * and the error tallies.  A timer "X (uncorrected)" is shown right after X;
 * X's response time chart draws both p99 lines (intended and actual start). */
#include "report/report.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- JSON access: missing or mistyped fields read as 0 / NULL ---- */

static json_t *hj(json_t *o, const char *k) { return json_is_object(o) ? json_object_get(o, k) : NULL; }

static double hnum(json_t *o, const char *k) {
    json_t *v = hj(o, k);
    return json_is_number(v) ? json_number_value(v) : 0;
}

static long long hint(json_t *o, const char *k) {
    json_t *v = hj(o, k);
    if (json_is_integer(v)) return (long long)json_integer_value(v);
    if (json_is_real(v)) return (long long)json_real_value(v);
    return 0;
}

static const char *hstr(json_t *o, const char *k) {
    json_t *v = hj(o, k);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* ---- output helpers ---- */

/* Text and attribute values. */
static void hesc(FILE *f, const char *s) {
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*s, f);
        }
    }
}

/* A relative link: percent-encoded path, safe inside an attribute. */
static void hhref(FILE *f, const char *s) {
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("-._~/", *p))
            fputc(*p, f);
        else
            fprintf(f, "%%%02X", *p);
    }
}

/* The JSON copy inside <script type="application/json">: '<', '>' and '&'
 * can only occur inside JSON strings, where \u escapes mean the same. */
static void hjson(FILE *f, json_t *root) {
    char *s = json_dumps(root, JSON_COMPACT | JSON_REAL_PRECISION(10));
    for (const char *p = s ? s : "{}"; *p; p++) {
        if (*p == '<') fputs("\\u003c", f);
        else if (*p == '>') fputs("\\u003e", f);
        else if (*p == '&') fputs("\\u0026", f);
        else fputc(*p, f);
    }
    free(s);
}

static void herr(char *err, size_t len, const char *fmt, ...) {
    if (!err || !len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
}

/* ---- the page's CSS and chart code ---- */

static const char html_css[] =
":root{--fg:#1d2330;--muted:#5b6475;--bg:#fff;--panel:#f3f5f9;--line:#d9dee7;--accent:#2456a6;"
"--bad:#b3261e;--ok:#1e7b34;--grid:#e8ebf0}\n"
"@media (prefers-color-scheme:dark){:root{--fg:#e3e6ec;--muted:#9aa3b2;--bg:#15181e;--panel:#1e222a;"
"--line:#353b47;--accent:#86aef2;--bad:#f2877e;--ok:#7fd18f;--grid:#2a2f3a}}\n"
"*{box-sizing:border-box}\n"
"html{-webkit-text-size-adjust:100%;text-size-adjust:100%}\n"
"body{margin:0;font:14px/1.45 system-ui,-apple-system,\"Segoe UI\",Roboto,\"Helvetica Neue\",Arial,sans-serif;"
"color:var(--fg);background:var(--bg)}\n"
"main{max-width:1280px;margin:0 auto;padding:12px 16px 40px}\n"
"h1{font-size:1.5em;margin:.3em 0 .1em}\n"
"h2{font-size:1.25em;margin:1.6em 0 .5em;padding-bottom:.2em;border-bottom:2px solid var(--line)}\n"
"h3{font-size:1.08em;margin:1.4em 0 .3em}\n"
"h4{font-size:.95em;margin:.8em 0 .3em}\n"
".sub{color:var(--muted);margin:0 0 .7em}\n"
"a{color:var(--accent)}\n"
"nav.toc{display:flex;flex-wrap:wrap;gap:2px 14px;padding:6px 10px;background:var(--panel);border-radius:6px;"
"font-size:.92em;margin:.6em 0}\n"
".scroll{overflow-x:auto;-webkit-overflow-scrolling:touch;margin:.3em 0;max-width:100%}\n"
"table{border-collapse:collapse;font-variant-numeric:tabular-nums}\n"
"th,td{padding:3px 8px;border-bottom:1px solid var(--line);text-align:right;white-space:nowrap}\n"
"th{background:var(--panel);font-weight:600}\n"
"th.l,td.l{text-align:left}\n"
"td.msg{text-align:left;white-space:normal;overflow-wrap:anywhere;min-width:14em}\n"
"tr.total td{font-weight:600}\n"
"td.err{color:var(--bad);font-weight:600}\n"
"table.kv td{text-align:left;white-space:normal;overflow-wrap:anywhere}\n"
"table.kv td:first-child{color:var(--muted);white-space:nowrap}\n"
".cols{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,340px),1fr));gap:4px 28px}\n"
".charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,320px),1fr));gap:12px;margin:.7em 0}\n"
"figure.chart-box{margin:0;padding:8px 8px 6px;border:1px solid var(--line);border-radius:6px;min-width:0}\n"
"figcaption{font-weight:600;font-size:.9em;margin-bottom:2px}\n"
".chart{min-height:220px}\n"
".chart svg{display:block;width:100%;height:auto;overflow:visible}\n"
".chart svg text{fill:var(--muted);font-size:11px}\n"
".chart .axis{stroke:var(--muted);stroke-width:1}\n"
".chart .gridl{stroke:var(--grid);stroke-width:1}\n"
".chart .nodata{fill:var(--muted);font-size:13px}\n"
".legend{display:flex;flex-wrap:wrap;gap:0 12px;font-size:.82em;color:var(--muted)}\n"
".legend i{display:inline-block;width:16px;height:3px;margin-right:4px;vertical-align:middle;border-radius:2px}\n"
".badge{display:inline-block;padding:0 8px;border-radius:10px;font-weight:600;background:var(--panel)}\n"
".badge.completed{color:var(--ok)}\n"
".badge.interrupted,.badge.aborted,.badge.running,.badge.error{color:var(--bad)}\n"
".badge.pass{color:var(--ok)}\n"
".badge.fail{color:#fff;background:var(--bad)}\n"
".warn{border-left:4px solid var(--bad);background:var(--panel);padding:6px 10px;margin:.6em 0}\n"
".banner{border:2px solid var(--bad);border-left-width:6px;font-size:1.05em}\n"
".lf{font-weight:400;font-size:.78em;color:var(--muted);margin-left:.6em}\n"
"pre.notes{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--panel);padding:8px 10px;"
"border-radius:6px;font:inherit;margin:.3em 0}\n"
"details>summary{cursor:pointer;color:var(--accent);margin:.4em 0}\n"
".render-errors{background:#fde7e6;color:#8a1c14;padding:6px 10px;border:1px solid #b3261e;margin:.6em 0}\n"
"footer{color:var(--muted);font-size:.85em;margin-top:3em;border-top:1px solid var(--line);padding-top:.6em}\n"
"@media (max-width:600px){body{font-size:13px}main{padding:8px 8px 28px}th,td{padding:2px 5px}"
"h1{font-size:1.3em}}\n"
"@media print{nav.toc{display:none}figure.chart-box{break-inside:avoid}}\n";

/* Draws every <div class="chart" data-kind=...> from the embedded JSON.
 * Each drawn series is a <path class="series" data-kind data-series
 * data-points>; when all are drawn, <div id="render-ok" data-charts=N
 * data-viewport=W data-page-width=W> is appended (the page is narrower than
 * the window: only tables scroll sideways); any script error is written into
 * <div id="render-errors">. */
static const char html_js[] =
"(function () {\n"
"'use strict';\n"
"function fail(msg) {\n"
"  var d = document.getElementById('render-errors');\n"
"  if (!d) {\n"
"    d = document.createElement('div'); d.id = 'render-errors'; d.className = 'render-errors';\n"
"    var m = document.querySelector('main') || document.body; m.insertBefore(d, m.firstChild);\n"
"  }\n"
"  var p = document.createElement('p'); p.textContent = 'chart error: ' + msg; d.appendChild(p);\n"
"}\n"
"window.onerror = function (msg, src, line) { fail(msg + (line ? ' (line ' + line + ')' : '')); };\n"
"var D = JSON.parse(document.getElementById('summary-data').textContent);\n"
"var PCTS = [[50, 'p50_ms'], [80, 'p80_ms'], [90, 'p90_ms'], [95, 'p95_ms'], [99, 'p99_ms'],\n"
"            [99.9, 'p99_9_ms'], [100, 'max_ms']];\n"
"var COL = {avg: '#1f77b4', p50: '#2ca02c', p90: '#ff7f0e', p95: '#ff7f0e', p99: '#d62728',\n"
"           max: '#9467bd', rate: '#1f77b4', errors: '#d62728', ms: '#1f77b4', actual: '#17becf'};\n"
"var LOG10 = Math.LN10;\n"
"function esc(s) {\n"
"  return String(s).replace(/[&<>\"']/g, function (c) {\n"
"    return {'&': '&amp;', '<': '&lt;', '>': '&gt;', '\"': '&quot;', \"'\": '&#39;'}[c];\n"
"  });\n"
"}\n"
"function num(v) { return typeof v === 'number' && isFinite(v) ? v : 0; }\n"
"function niceStep(raw) {\n"
"  if (!(raw > 0) || !isFinite(raw)) return 1;\n"
"  var e = Math.pow(10, Math.floor(Math.log(raw) / LOG10)), f = raw / e;\n"
"  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10) * e;\n"
"}\n"
"function decimals(step) {\n"
"  var d = 0;\n"
"  while (d < 6 && Math.abs(Math.round(step * Math.pow(10, d)) - step * Math.pow(10, d)) > 1e-6) d++;\n"
"  return d;\n"
"}\n"
"function tick(v, step) {\n"
"  var a = Math.abs(v);\n"
"  if (a >= 1e6 && step >= 1e4) return +(v / 1e6).toFixed(2) + 'M';\n"
"  if (a >= 1e4 && step >= 100) return +(v / 1e3).toFixed(1) + 'k';\n"
"  return v.toFixed(decimals(step));\n"
"}\n"
"function fmt(v) { return Math.abs(v) >= 1000 ? v.toFixed(0) : +v.toPrecision(4) + ''; }\n"
"/* percentile p on a log axis: -log10(1 - p/100); 100 (the max) sits at 99.99 */\n"
"function ptx(p) { return p >= 100 ? 4 : -Math.log(1 - p / 100) / LOG10; }\n"
"\n"
"function draw(el, s) {\n"
"  var W = Math.max(240, Math.floor(el.clientWidth || 560)), H = 230;\n"
"  var m = {l: 54, r: 16, t: 12, b: 40}, pw = W - m.l - m.r, ph = H - m.t - m.b;\n"
"  var xs = s.xs.map(s.xt || function (v) { return v; }), n = xs.length;\n"
"  var x0 = s.x0 !== undefined ? s.x0 : Math.min.apply(null, xs);\n"
"  var x1 = s.x1 !== undefined ? s.x1 : Math.max.apply(null, xs);\n"
"  if (!isFinite(x0) || !isFinite(x1)) { x0 = 0; x1 = 1; }\n"
"  if (!(x1 > x0)) { x0 -= 0.5; x1 += 0.5; }\n"
"  var ymax = 0;\n"
"  s.series.forEach(function (se) { se.ys.forEach(function (v) { if (num(v) > ymax) ymax = v; }); });\n"
"  if (s.ymax && ymax < s.ymax) ymax = s.ymax;\n"
"  var ny = Math.max(2, Math.floor(ph / 38)), ystep = niceStep(ymax / ny);\n"
"  var nyt = ymax > 0 ? Math.max(1, Math.ceil(ymax / ystep - 1e-9)) : ny, ytop = nyt * ystep;\n"
"  function X(v) { return m.l + (v - x0) / (x1 - x0) * pw; }\n"
"  function Y(v) { return m.t + ph - num(v) / ytop * ph; }\n"
"  var o = ['<svg width=\"' + W + '\" height=\"' + H + '\" viewBox=\"0 0 ' + W + ' ' + H +\n"
"           '\" role=\"img\" aria-label=\"' + esc(s.title || '') + '\">'];\n"
"  for (var i = 0; i <= nyt; i++) {\n"
"    var y = Y(i * ystep).toFixed(1);\n"
"    o.push('<line class=\"gridl\" x1=\"' + m.l + '\" x2=\"' + (m.l + pw) + '\" y1=\"' + y + '\" y2=\"' + y + '\"/>');\n"
"    o.push('<text x=\"' + (m.l - 6) + '\" y=\"' + y + '\" dy=\"0.32em\" text-anchor=\"end\">' +\n"
"           tick(i * ystep, ystep) + '</text>');\n"
"  }\n"
"  var ticks = s.ticks;\n"
"  if (!ticks) {\n"
"    var xstep = niceStep((x1 - x0) / Math.max(2, Math.floor(pw / 70)));\n"
"    ticks = [];\n"
"    for (var k = Math.ceil(x0 / xstep - 1e-9); k * xstep <= x1 + 1e-9; k++)\n"
"      ticks.push({v: k * xstep, label: tick(k * xstep, xstep)});\n"
"  }\n"
"  var lastx = -1e9, yb = m.t + ph;\n"
"  ticks.forEach(function (t) {\n"
"    var x = X(t.v), w = String(t.label).length * 6.5 + 8;\n"
"    if (x < m.l - 1 || x > m.l + pw + 1 || x - lastx < w) return;\n"
"    lastx = x;\n"
"    o.push('<line class=\"axis\" x1=\"' + x.toFixed(1) + '\" x2=\"' + x.toFixed(1) + '\" y1=\"' + yb +\n"
"           '\" y2=\"' + (yb + 4) + '\"/>');\n"
"    o.push('<text x=\"' + x.toFixed(1) + '\" y=\"' + (yb + 15) + '\" text-anchor=\"middle\">' +\n"
"           esc(t.label) + '</text>');\n"
"  });\n"
"  o.push('<line class=\"axis\" x1=\"' + m.l + '\" x2=\"' + m.l + '\" y1=\"' + m.t + '\" y2=\"' + yb + '\"/>');\n"
"  o.push('<line class=\"axis\" x1=\"' + m.l + '\" x2=\"' + (m.l + pw) + '\" y1=\"' + yb + '\" y2=\"' + yb + '\"/>');\n"
"  o.push('<text x=\"' + (m.l + pw / 2) + '\" y=\"' + (H - 4) + '\" text-anchor=\"middle\">' + esc(s.xlabel) + '</text>');\n"
"  o.push('<text transform=\"translate(12,' + (m.t + ph / 2) + ') rotate(-90)\" text-anchor=\"middle\">' +\n"
"         esc(s.unit) + '</text>');\n"
"  if (!n) o.push('<text class=\"nodata\" x=\"' + (m.l + pw / 2) + '\" y=\"' + (m.t + ph / 2) +\n"
"                 '\" text-anchor=\"middle\">no data</text>');\n"
"  var legend = [];\n"
"  s.series.forEach(function (se) {\n"
"    var d = '', pts = 0, marks = [];\n"
"    for (var i = 0; i < n; i++) {\n"
"      var v = se.ys[i];\n"
"      if (typeof v !== 'number' || !isFinite(v)) continue;\n"
"      var px = X(xs[i]).toFixed(1), py = Y(v).toFixed(1);\n"
"      d += (pts ? 'L' : 'M') + px + ',' + py;\n"
"      pts++;\n"
"      if (n <= 60) marks.push('<circle cx=\"' + px + '\" cy=\"' + py + '\" r=\"2.3\" fill=\"' + se.color + '\"><title>' +\n"
"                              esc(s.xname(i) + ': ' + se.name + ' ' + fmt(v) + ' ' + s.unit) + '</title></circle>');\n"
"    }\n"
"    o.push('<path class=\"series\" data-kind=\"' + esc(s.kind) + '\" data-series=\"' + esc(se.name) +\n"
"           '\" data-points=\"' + pts + '\" d=\"' + d + '\" fill=\"none\" stroke=\"' + se.color +\n"
"           '\" stroke-width=\"1.8\" stroke-linejoin=\"round\"' + (se.dash ? ' stroke-dasharray=\"5 3\"' : '') + '/>');\n"
"    o.push(marks.join(''));\n"
"    legend.push('<span><i style=\"background:' + se.color + '\"></i>' + esc(se.name) + '</span>');\n"
"  });\n"
"  o.push('</svg><div class=\"legend\">' + legend.join('') + '</div>');\n"
"  el.innerHTML = o.join('');\n"
"  el.setAttribute('data-width', W);\n"
"}\n"
"\n"
"function ends(t) {\n"
"  var xs = [], acc = 0;\n"
"  (t.intervals || []).forEach(function (r) { acc += num(r.period_s); xs.push(+acc.toFixed(3)); });\n"
"  return xs;\n"
"}\n"
"function ivname(i) { return 'interval ' + (i + 1); }\n"
"/* tw: the timer's \"(uncorrected)\" twin: its p99 (from the actual start) is drawn next to the\n"
" * timer's own (from the intended start), so the coordinated-omission gap shows */\n"
"function rtSpec(t, tw) {\n"
"  var iv = t.intervals || [];\n"
"  var series = [['avg', 'avg_ms'], ['p50', 'p50_ms'], ['p90', 'p90_ms'], ['p99', 'p99_ms'], ['max', 'max_ms']]\n"
"    .map(function (a) {\n"
"      return {name: a[0] === 'p99' && tw ? 'p99 intended start' : a[0], color: COL[a[0]], dash: a[0] === 'max',\n"
"              ys: iv.map(function (r) { return num(r[a[1]]); })};\n"
"    });\n"
"  if (tw) {\n"
"    var tiv = tw.intervals || [];\n"
"    series.push({name: 'p99 actual start', color: COL.actual, dash: true,\n"
"                 ys: iv.map(function (r, i) { return tiv[i] ? num(tiv[i].p99_ms) : null; })});\n"
"  }\n"
"  return {kind: 'rt', title: 'response time per interval', unit: 'ms', xlabel: 'elapsed (s)', xs: ends(t),\n"
"          x0: 0, xname: ivname, series: series};\n"
"}\n"
"/* generator.intervals[]: x = elapsed time when a timer has as many intervals, else the interval number */\n"
"function healthSpec(kind) {\n"
"  var iv = (D.generator && D.generator.intervals) || [], xs = null, cpu = kind === 'health-cpu';\n"
"  (D.timers || []).some(function (t) {\n"
"    if (iv.length && (t.intervals || []).length === iv.length) { xs = ends(t); return true; }\n"
"    return false;\n"
"  });\n"
"  function col(k) { return iv.map(function (r) { return num(r[k]); }); }\n"
"  return {kind: kind, title: cpu ? 'generator CPU per interval' : 'event loop lag per interval',\n"
"          unit: cpu ? '% CPU' : 'ms', xlabel: xs ? 'elapsed (s)' : 'interval', ymax: cpu ? 100 : 0,\n"
"          xs: xs || iv.map(function (r, i) { return i + 1; }), x0: xs ? 0 : 0.5,\n"
"          x1: xs ? undefined : iv.length + 0.5, xname: ivname,\n"
"          series: cpu ? [{name: 'CPU %', color: COL.rate, ys: col('cpu_percent')}]\n"
"                      : [{name: 'loop lag p99', color: COL.p99, ys: col('loop_lag_p99_ms')},\n"
"                         {name: 'loop lag max', color: COL.max, dash: true, ys: col('loop_lag_max_ms')},\n"
"                         {name: 'schedule lag p99', color: COL.p50, ys: col('schedule_lag_p99_ms')}]};\n"
"}\n"
"function tputSpec(t) {\n"
"  var iv = t.intervals || [];\n"
"  return {kind: 'tput', title: 'throughput per interval', unit: 'per second', xlabel: 'elapsed (s)',\n"
"          xs: ends(t), x0: 0, xname: ivname,\n"
"          series: [{name: 'samples/s', color: COL.rate, ys: iv.map(function (r) { return num(r.rate); })},\n"
"                   {name: 'errors/s', color: COL.errors, ys: iv.map(function (r) {\n"
"                     return num(r.period_s) > 0 ? num(r.errors) / r.period_s : 0; })}]};\n"
"}\n"
"function distSpec(t) {\n"
"  var su = t.summary || {};\n"
"  return {kind: 'dist', title: 'latency distribution', unit: 'ms', xlabel: 'percentile (log scale)',\n"
"          xs: PCTS.map(function (p) { return p[0]; }), xt: ptx, x0: ptx(50) - 0.15, x1: 4.15,\n"
"          ticks: PCTS.map(function (p) { return {v: ptx(p[0]), label: String(p[0])}; }),\n"
"          xname: function (i) { return 'p' + PCTS[i][0]; },\n"
"          series: [{name: 'response time (whole run)', color: COL.ms,\n"
"                    ys: PCTS.map(function (p) { return num(su[p[1]]); })}]};\n"
"}\n"
"function phaseSpec(kind) {\n"
"  var ph = D.phases || [], rate = kind === 'phases-rate';\n"
"  return {kind: kind, title: rate ? 'throughput per phase' : 'p95 per phase', unit: rate ? 'per second' : 'ms',\n"
"          xlabel: 'phase', xs: ph.map(function (p, i) { return i; }), x0: -0.5, x1: ph.length - 0.5,\n"
"          ticks: ph.map(function (p, i) { return {v: i, label: (i + 1) + ' ' + p.name}; }),\n"
"          xname: function (i) { return 'phase ' + (i + 1) + ' ' + ph[i].name; },\n"
"          series: [rate ? {name: 'transactions/s', color: COL.rate, ys: ph.map(function (p) { return num(p.rate); })}\n"
"                        : {name: 'p95', color: COL.p95, ys: ph.map(function (p) { return num(p.p95_ms); })}]};\n"
"}\n"
"function renderAll(onlyResized) {\n"
"  var els = document.querySelectorAll('div.chart[data-kind]'), n = 0;\n"
"  for (var i = 0; i < els.length; i++) {\n"
"    var el = els[i], k = el.getAttribute('data-kind');\n"
"    if (onlyResized && String(Math.max(240, Math.floor(el.clientWidth))) === el.getAttribute('data-width')) continue;\n"
"    try {\n"
"      var spec;\n"
"      if (k === 'phases-rate' || k === 'phases-p95') spec = phaseSpec(k);\n"
"      else if (k === 'health-cpu' || k === 'health-lag') spec = healthSpec(k);\n"
"      else {\n"
"        var t = (D.timers || [])[+el.getAttribute('data-timer')], tw = null;\n"
"        if (!t) throw new Error('no timer ' + el.getAttribute('data-timer'));\n"
"        if (el.hasAttribute('data-twin')) {\n"
"          tw = (D.timers || [])[+el.getAttribute('data-twin')];\n"
"          if (!tw) throw new Error('no twin timer ' + el.getAttribute('data-twin'));\n"
"        }\n"
"        spec = k === 'rt' ? rtSpec(t, tw) : k === 'tput' ? tputSpec(t) : distSpec(t);\n"
"      }\n"
"      draw(el, spec);\n"
"      n++;\n"
"    } catch (e) { fail(k + ': ' + (e && e.message ? e.message : e)); }\n"
"  }\n"
"  return n;\n"
"}\n"
"var drawn = renderAll(false);\n"
"var ok = document.createElement('div');\n"
"ok.id = 'render-ok'; ok.hidden = true; ok.setAttribute('data-charts', drawn);\n"
"ok.setAttribute('data-viewport', window.innerWidth);\n"
"ok.setAttribute('data-page-width', document.documentElement.scrollWidth);\n"
"document.body.appendChild(ok);\n"
"var timer = 0;\n"
"window.addEventListener('resize', function () {\n"
"  clearTimeout(timer); timer = setTimeout(function () { renderAll(true); }, 150);\n"
"});\n"
"})();\n";

/* ---- page pieces ---- */

static void html_head(FILE *f, const char *title) {
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
          "<meta name=\"generator\" content=\"luamech " LUAMECH_VERSION "\">\n<title>", f);
    hesc(f, title);
    fputs("</title>\n<style>\n", f);
    fputs(html_css, f);
    fputs("</style>\n</head>\n<body>\n<main>\n", f);
}

static void html_tail(FILE *f, json_t *root) {
    fprintf(f, "<footer>Rendered by luamech %s from summary.json (schema %lld): ", LUAMECH_VERSION,
            hint(root, "schema_version"));
    fputs("<a href=\"summary.json\">summary.json</a>", f);
    if (!hj(root, "phases"))
        fputs(", <a href=\"intervals.csv\">intervals.csv</a>, <a href=\"counters.csv\">counters.csv</a>, "
              "<a href=\"errors.csv\">errors.csv</a>, <a href=\"scenario/\">scenario/</a>", f);
    else
        fputs(", <a href=\"phases.csv\">phases.csv</a>", f);
    fputs(". Times in milliseconds; rates per second.</footer>\n</main>\n", f);
    fputs("<noscript><p class=\"warn\">The charts need JavaScript; the tables have every number.</p></noscript>\n", f);
    fputs("<script type=\"application/json\" id=\"summary-data\">", f);
    hjson(f, root);
    fputs("</script>\n<script>\n", f);
    fputs(html_js, f);
    fputs("</script>\n</body>\n</html>\n", f);
}

static void html_kv(FILE *f, const char *key, const char *fmt, ...) {
    va_list ap;
    fprintf(f, "<tr><td>%s</td><td>", key);
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputs("</td></tr>\n", f);
}

static void html_kv_text(FILE *f, const char *key, const char *text) {
    fprintf(f, "<tr><td>%s</td><td>", key);
    hesc(f, text);
    fputs("</td></tr>\n", f);
}

static void html_badge(FILE *f, const char *status) {
    fputs("<span class=\"badge ", f);
    hesc(f, status);
    fputs("\">", f);
    hesc(f, status);
    fputs("</span>", f);
}

static const char *const html_ms_keys[] = {"min_ms", "avg_ms", "p50_ms", "p80_ms", "p90_ms",
                                           "p95_ms", "p99_ms", "p99_9_ms", "max_ms", "stdev_ms"};
static const char *const html_ms_heads[] = {"min", "avg", "p50", "p80", "p90", "p95", "p99", "p99.9", "max", "stdev"};

static void html_row_head(FILE *f) {
    fputs("<th>count</th><th>rate/s</th><th>errors</th>", f);
    for (size_t i = 0; i < sizeof html_ms_heads / sizeof *html_ms_heads; i++)
        fprintf(f, "<th>%s</th>", html_ms_heads[i]);
}

static void html_row_cells(FILE *f, json_t *row) {
    long long errors = hint(row, "errors");
    fprintf(f, "<td>%lld</td><td>%.2f</td><td%s>%lld</td>", hint(row, "count"), hnum(row, "rate"),
            errors > 0 ? " class=\"err\"" : "", errors);
    for (size_t i = 0; i < sizeof html_ms_keys / sizeof *html_ms_keys; i++)
        fprintf(f, "<td>%.3f</td>", hnum(row, html_ms_keys[i]));
}

/* ---- timers: kinds and "(uncorrected)" twins ---- */

enum { HK_ALL, HK_GROUP, HK_CUSTOM, HK_PRIMITIVE, HK_STAGE, HK_ENGINE, HK_N };
static const char *const html_kinds[HK_N] = {"all", "group", "custom", "primitive", "stage", "engine"};

/* Which part of the page a timer goes to: primitives also take any kind
 * this version does not know. */
static int html_cat(json_t *t) {
    const char *kind = hstr(t, "kind");
    for (int i = 0; kind && i < HK_N; i++)
        if (strcmp(kind, html_kinds[i]) == 0) return i;
    return HK_PRIMITIVE;
}

static const char html_twin_suffix[] = " (uncorrected)";
#define HTML_TWIN_LEN (sizeof html_twin_suffix - 1)

static int html_str_eq(const char *a, const char *b) { return a && b ? strcmp(a, b) == 0 : a == b; }

/* Index of the timer named NAME (its first LEN bytes, then SUFFIX) of kind
 * KIND, other than SKIP; -1 if none. */
static long html_find_timer(json_t *timers, const char *name, size_t len, const char *suffix, const char *kind,
                            size_t skip) {
    size_t j, sl = strlen(suffix);
    json_t *u;
    json_array_foreach(timers, j, u) {
        const char *un = hstr(u, "name");
        if (j == skip || !un || strlen(un) != len + sl) continue;
        if (strncmp(un, name, len) == 0 && strcmp(un + len, suffix) == 0 && html_str_eq(hstr(u, "kind"), kind))
            return (long)j;
    }
    return -1;
}

static int html_twin_named(const char *name) {
    size_t n = name ? strlen(name) : 0;
    return n > HTML_TWIN_LEN && strcmp(name + n - HTML_TWIN_LEN, html_twin_suffix) == 0;
}

/* The "X (uncorrected)" twin of timer i (same kind): -1 when it has none. */
static long html_twin_of(json_t *timers, size_t i) {
    json_t *t = json_array_get(timers, i);
    const char *name = hstr(t, "name");
    if (!name || html_twin_named(name)) return -1;
    return html_find_timer(timers, name, strlen(name), html_twin_suffix, hstr(t, "kind"), i);
}

/* 1 when timer i is the twin of another timer (shown right after it). */
static int html_is_twin(json_t *timers, size_t i) {
    json_t *t = json_array_get(timers, i);
    const char *name = hstr(t, "name");
    if (!html_twin_named(name)) return 0;
    return html_find_timer(timers, name, strlen(name) - HTML_TWIN_LEN, "", hstr(t, "kind"), i) >= 0;
}

/* The timers of category c in file order, each followed by its twin.
 * out has room for every timer; returns how many were written. */
static size_t html_order(json_t *timers, int c, size_t *out) {
    size_t i, n = 0;
    json_t *t;
    json_array_foreach(timers, i, t) {
        if (html_cat(t) != c || html_is_twin(timers, i)) continue;
        out[n++] = i;
        long tw = html_twin_of(timers, i);
        if (tw >= 0) out[n++] = (size_t)tw;
    }
    return n;
}

/* What a timer is called in headings and the contents: groups without their
 * "group " prefix. */
static const char *html_timer_label(json_t *t) {
    const char *name = hstr(t, "name"), *kind = hstr(t, "kind");
    if (!name) name = "(unnamed)";
    if (kind && strcmp(kind, "group") == 0 && strncmp(name, "group ", 6) == 0) name += 6;
    return name;
}

/* The label; a twin's without " (uncorrected)" (its heading says so). */
static void html_heading_name(FILE *f, json_t *t, int is_twin) {
    const char *label = html_timer_label(t);
    size_t n = strlen(label);
    if (is_twin && html_twin_named(label)) n -= HTML_TWIN_LEN;
    for (size_t k = 0; k < n; k++) {
        char c[2] = {label[k], 0};
        hesc(f, c);
    }
}

static const char html_lf_intended[] = "latency from the intended start";
static const char html_lf_actual[] = "uncorrected: from the actual start";

/* twin: index of t's twin (its rt chart draws the twin's p99 too), or -1;
 * is_twin: t is the twin of the timer shown just before. */
static void html_timer(FILE *f, json_t *t, size_t idx, const char *heading_tag, int open_intervals, long twin,
                       int is_twin) {
    const char *kind = hstr(t, "kind"), *name = hstr(t, "name");
    json_t *iv = hj(t, "intervals");
    size_t niv = json_is_array(iv) ? json_array_size(iv) : 0;
    fprintf(f, "<section class=\"timer%s\" id=\"t%zu\">\n<%s>", is_twin ? " twin" : "", idx, heading_tag);
    html_heading_name(f, t, is_twin);
    if (twin >= 0) fprintf(f, "<span class=\"lf intended\">%s</span>", html_lf_intended);
    if (is_twin) fprintf(f, "<span class=\"lf actual\">%s</span>", html_lf_actual);
    fprintf(f, "</%s>\n", heading_tag);
    if (kind && strcmp(kind, "all") == 0)
        fputs("<p class=\"sub\">Every transaction of every group; think time excluded. Latency over successful "
              "samples; count and rate include failures.</p>\n", f);
    else if (kind && strcmp(kind, "group") == 0)
        fputs("<p class=\"sub\">Transactions of this group; think time excluded.</p>\n", f);
    else if (kind && strcmp(kind, "custom") == 0)
        fputs("<p class=\"sub\">Custom timer (luamech.timer / luamech.record).</p>\n", f);
    else if (kind && strcmp(kind, "primitive") == 0)
        fputs("<p class=\"sub\">Client calls, from the call to the last reply.</p>\n", f);
    else if (html_str_eq(name, "engine.loop_lag"))
        fputs("<p class=\"sub\">How late a 100 ms repeating timer fires on each worker's event loop (a firing "
              "that is not late records nothing).</p>\n", f);
    else if (html_str_eq(name, "engine.schedule_lag"))
        fputs("<p class=\"sub\">Lateness of every paced or rate start (0 when on time).</p>\n", f);
    if (twin >= 0)
        fputs("<p class=\"sub\">Latency from the intended start (the transaction's slot or arrival time): a late "
              "start counts, so a stall shows in every sample it delayed. The response time chart also draws the "
              "p99 of the uncorrected twin (from the actual start); the gap between the two p99 lines is what a "
              "closed-loop tool would not see (coordinated omission).</p>\n", f);
    if (is_twin) {
        fputs("<p class=\"sub\">Timer &ldquo;", f);
        hesc(f, name);
        fputs("&rdquo;: the same samples measured from the actual start, as closed-loop tools report them.</p>\n",
              f);
    }
    fputs("<h4>Response summary (ms)</h4>\n<div class=\"scroll\"><table class=\"summary\"><thead><tr>", f);
    html_row_head(f);
    fputs("</tr></thead><tbody><tr>", f);
    html_row_cells(f, hj(t, "summary"));
    fputs("</tr></tbody></table></div>\n<div class=\"charts\">\n", f);
    if (twin >= 0)
        fprintf(f, "<figure class=\"chart-box\"><figcaption>Response time per interval (ms; p99 from the intended "
                   "and from the actual start)</figcaption><div class=\"chart\" data-kind=\"rt\" data-timer=\"%zu\" "
                   "data-twin=\"%ld\"></div></figure>\n", idx, twin);
    else
        fprintf(f, "<figure class=\"chart-box\"><figcaption>Response time per interval (ms)</figcaption>"
                   "<div class=\"chart\" data-kind=\"rt\" data-timer=\"%zu\"></div></figure>\n", idx);
    fprintf(f, "<figure class=\"chart-box\"><figcaption>Throughput and errors per interval (per second)"
               "</figcaption><div class=\"chart\" data-kind=\"tput\" data-timer=\"%zu\"></div></figure>\n", idx);
    fprintf(f, "<figure class=\"chart-box\"><figcaption>Latency distribution, whole run (ms)</figcaption>"
               "<div class=\"chart\" data-kind=\"dist\" data-timer=\"%zu\"></div></figure>\n</div>\n", idx);
    fprintf(f, "<details%s><summary>Interval details (%zu interval%s, ms)</summary>\n", open_intervals ? " open" : "",
            niv, niv == 1 ? "" : "s");
    fputs("<div class=\"scroll\"><table class=\"intervals\"><thead><tr><th>interval</th><th>start (s)</th>"
          "<th>end (s)</th>", f);
    html_row_head(f);
    fputs("</tr></thead><tbody>\n", f);
    double start = 0;
    for (size_t k = 0; k < niv; k++) {
        json_t *row = json_array_get(iv, k);
        double end = start + hnum(row, "period_s");
        fprintf(f, "<tr class=\"ivrow\"><td>%zu</td><td>%.3f</td><td>%.3f</td>", k + 1, start, end);
        html_row_cells(f, row);
        fputs("</tr>\n", f);
        start = end;
    }
    fputs("</tbody></table></div>\n</details>\n</section>\n", f);
}

/* The timers of category c, each followed by its twin. */
static void html_timers(FILE *f, json_t *timers, int c, const char *heading_tag, int open_intervals) {
    size_t n = json_array_size(timers), *ord = calloc(n ? n : 1, sizeof *ord);
    if (!ord) return;
    size_t m = html_order(timers, c, ord);
    for (size_t k = 0; k < m; k++) {
        long tw = html_twin_of(timers, ord[k]);
        int is_twin = k > 0 && tw < 0 && html_twin_of(timers, ord[k - 1]) == (long)ord[k];
        html_timer(f, json_array_get(timers, ord[k]), ord[k], heading_tag, open_intervals, tw, is_twin);
    }
    free(ord);
}

static void html_tally(FILE *f, json_t *arr, const char *id, const char *title, const char *what) {
    size_t n = json_is_array(arr) ? json_array_size(arr) : 0, shown = n < 100 ? n : 100;
    fprintf(f, "<section id=\"%s\"><h2>%s</h2>\n", id, title);
    if (n == 0) {
        fprintf(f, "<p>No %s.</p></section>\n", what);
        return;
    }
    fputs("<div class=\"scroll\"><table class=\"tally\"><thead><tr><th>count</th><th class=\"l\">message</th>"
          "</tr></thead><tbody>\n", f);
    for (size_t i = 0; i < shown; i++) {
        json_t *e = json_array_get(arr, i);
        fprintf(f, "<tr><td>%lld</td><td class=\"msg\">", hint(e, "count"));
        hesc(f, hstr(e, "message"));
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
    if (n > shown) fprintf(f, "<p class=\"sub\">%zu more messages in errors.csv.</p>\n", n - shown);
    fputs("</section>\n", f);
}

static void html_checks(FILE *f, json_t *arr) {
    size_t n = json_is_array(arr) ? json_array_size(arr) : 0;
    if (n == 0) return;
    fputs("<section id=\"checks\"><h2>Checks</h2>\n<div class=\"scroll\"><table><thead><tr><th class=\"l\">name"
          "</th><th>passes</th><th>failures</th><th>pass rate</th></tr></thead><tbody>\n", f);
    for (size_t i = 0; i < n; i++) {
        json_t *c = json_array_get(arr, i);
        long long p = hint(c, "passes"), x = hint(c, "fails");
        fputs("<tr><td class=\"l\">", f);
        hesc(f, hstr(c, "name"));
        fprintf(f, "</td><td>%lld</td><td%s>%lld</td><td>%.2f%%</td></tr>\n", p, x > 0 ? " class=\"err\"" : "", x,
                p + x > 0 ? 100.0 * (double)p / (double)(p + x) : 0.0);
    }
    fputs("</tbody></table></div></section>\n", f);
}

/* ---- stages: "stage <k> <group>" timers, one table ---- */

typedef struct html_stage {
    size_t idx;
    long gpos, k;
    const char *group;   /* points into the name */
    size_t glen;
    int twin, has_twin;
} html_stage;

static int html_stage_cmp(const void *pa, const void *pb) {
    const html_stage *a = pa, *b = pb;
    if (a->gpos != b->gpos) return a->gpos < b->gpos ? -1 : 1;
    size_t l = a->glen < b->glen ? a->glen : b->glen;
    int c = strncmp(a->group, b->group, l);
    if (c) return c;
    if (a->glen != b->glen) return a->glen < b->glen ? -1 : 1;
    if (a->k != b->k) return a->k < b->k ? -1 : 1;
    if (a->twin != b->twin) return a->twin - b->twin;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static void html_stages(FILE *f, json_t *root, json_t *timers) {
    size_t n = json_array_size(timers), m = 0, i;
    html_stage *st = calloc(n ? n : 1, sizeof *st);
    if (!st) return;
    json_t *t, *groups = hj(root, "groups");
    int any_twin = 0;
    json_array_foreach(timers, i, t) {
        if (html_cat(t) != HK_STAGE) continue;
        html_stage *s = &st[m++];
        const char *name = hstr(t, "name");
        if (!name) name = "";
        s->idx = i;
        s->twin = html_is_twin(timers, i);
        s->has_twin = html_twin_of(timers, i) >= 0;
        any_twin |= s->twin | s->has_twin;
        size_t len = strlen(name) - (s->twin ? HTML_TWIN_LEN : 0);
        char *end = NULL;
        s->k = strncmp(name, "stage ", 6) == 0 ? strtol(name + 6, &end, 10) : 0;
        if (end && end > name + 6 && *end == ' ' && (size_t)(end + 1 - name) <= len) {
            s->group = end + 1;
            s->glen = len - (size_t)(end + 1 - name);
        } else {
            s->k = 0;
            s->group = name;
            s->glen = len;
        }
        s->gpos = (long)json_array_size(groups);
        size_t gi;
        json_t *g;
        json_array_foreach(groups, gi, g) {
            const char *gn = hstr(g, "name");
            if (gn && strlen(gn) == s->glen && strncmp(gn, s->group, s->glen) == 0) {
                s->gpos = (long)gi;
                break;
            }
        }
    }
    if (m == 0) {
        free(st);
        return;
    }
    qsort(st, m, sizeof *st, html_stage_cmp);
    fputs("<section id=\"stages\"><h2>Stages</h2>\n<p class=\"sub\">Transactions of each staged group by the stage "
          "they started in (the stage after the last one is the hold). Rates are over the whole run "
          "(summary.json does not give the stages' lengths; the console's table has rates over each stage); "
          "&ldquo;intervals&rdquo; are those with samples. Times in ms.</p>\n", f);
    fputs("<div class=\"scroll\"><table class=\"stages\"><thead><tr><th class=\"l\">group</th><th>stage</th>", f);
    if (any_twin) fputs("<th class=\"l\">latency</th>", f);
    fputs("<th>count</th><th>errors</th><th>rate/s (run)</th><th>p50</th><th>p95</th><th>p99</th><th>max</th>"
          "<th>intervals</th></tr></thead><tbody>\n", f);
    for (size_t k = 0; k < m; k++) {
        html_stage *s = &st[k];
        json_t *tm = json_array_get(timers, s->idx), *sum = hj(tm, "summary"), *iv = hj(tm, "intervals"), *r;
        fprintf(f, "<tr class=\"stage%s\"><td class=\"l\">", s->twin ? " twin" : "");
        for (size_t c = 0; c < s->glen; c++) {
            char ch[2] = {s->group[c], 0};
            hesc(f, ch);
        }
        if (s->k > 0) fprintf(f, "</td><td>%ld</td>", s->k);
        else fputs("</td><td></td>", f);
        if (any_twin)
            fprintf(f, "<td class=\"l\">%s</td>", s->twin ? html_lf_actual : s->has_twin ? html_lf_intended : "");
        long long e = hint(sum, "errors");
        fprintf(f, "<td>%lld</td><td%s>%lld</td><td>%.2f</td><td>%.3f</td><td>%.3f</td><td>%.3f</td><td>%.3f</td>",
                hint(sum, "count"), e > 0 ? " class=\"err\"" : "", e, hnum(sum, "rate"), hnum(sum, "p50_ms"),
                hnum(sum, "p95_ms"), hnum(sum, "p99_ms"), hnum(sum, "max_ms"));
        size_t first = 0, last = 0, j;
        json_array_foreach(iv, j, r) {
            if (hint(r, "count") <= 0) continue;
            if (!first) first = j + 1;
            last = j + 1;
        }
        if (!first) fputs("<td></td></tr>\n", f);
        else if (first == last) fprintf(f, "<td>%zu</td></tr>\n", first);
        else fprintf(f, "<td>%zu&ndash;%zu</td></tr>\n", first, last);
    }
    fputs("</tbody></table></div></section>\n", f);
    free(st);
}

/* ---- thresholds and generator health ---- */

static const char *html_exit_meaning(long long code) {
    switch (code) {
    case -1: return "still running";
    case 0: return "completed";
    case 3: return "scenario error";
    case 4: return "aborted";
    case 5: return "interrupted";
    case 6: return "a threshold failed";
    default: return NULL;
    }
}

static void html_exit_code(FILE *f, json_t *root) {
    long long code = hint(root, "exit_code");
    const char *why = html_exit_meaning(code);
    fprintf(f, "exit code %lld", code);
    if (why) fprintf(f, " (%s)", why);
}

static void html_result_badge(FILE *f, int passed) {
    fputs(passed ? "<span class=\"badge pass\">pass</span>" : "<span class=\"badge fail\">FAIL</span>", f);
}

static void html_measured(FILE *f, json_t *th) {
    json_t *v = hj(th, "measured");
    const char *unit = hstr(th, "unit");
    if (!json_is_number(v)) {
        fputs("no data", f);
        return;
    }
    double x = json_number_value(v);
    if (html_str_eq(unit, "ms")) fprintf(f, "%.3f ms", x);
    else if (html_str_eq(unit, "%")) fprintf(f, "%.3f%%", x);
    else if (html_str_eq(unit, "/s")) fprintf(f, "%.2f/s", x);
    else {
        if (x == (double)(long long)x && x > -1e15 && x < 1e15) fprintf(f, "%lld", (long long)x);
        else fprintf(f, "%.3f", x);
        if (unit && *unit) {
            fputc(' ', f);
            hesc(f, unit);
        }
    }
}

static void html_thresholds(FILE *f, json_t *root) {
    json_t *arr = hj(root, "thresholds"), *th;
    size_t n = json_is_array(arr) ? json_array_size(arr) : 0, i, passed = 0;
    if (n == 0) return;
    json_array_foreach(arr, i, th) passed += json_is_true(hj(th, "passed"));
    fputs("<section id=\"thresholds\"><h2>Thresholds</h2>\n<p class=\"th-result\">", f);
    html_result_badge(f, passed == n);
    fprintf(f, " %zu of %zu passed%s &middot; ", passed, n,
            html_str_eq(hstr(root, "status"), "running") ? " so far" : "");
    html_exit_code(f, root);
    fputs("</p>\n<div class=\"scroll\"><table class=\"thresholds\"><thead><tr><th class=\"l\">criterion</th>"
          "<th class=\"l\">subject</th><th>measured</th><th class=\"l\">result</th></tr></thead><tbody>\n", f);
    json_array_foreach(arr, i, th) {
        int ok = json_is_true(hj(th, "passed"));
        fprintf(f, "<tr class=\"%s\"><td class=\"l\">", ok ? "pass" : "fail");
        hesc(f, hstr(th, "criterion"));
        fputs("</td><td class=\"l\">", f);
        hesc(f, hstr(th, "timer"));
        fputs("</td><td>", f);
        html_measured(f, th);
        fputs("</td><td class=\"l\">", f);
        html_result_badge(f, ok);
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody></table></div></section>\n", f);
}

/* As in health.c: an interval above either makes the results suspect. */
#define HTML_CPU_SUSPECT 90.0
#define HTML_LAG_SUSPECT_MS 20.0

static void html_suspect_banner(FILE *f, json_t *root) {
    json_t *gen = hj(root, "generator");
    if (!json_is_true(hj(gen, "suspect"))) return;
    const char *why = hstr(gen, "reasons");
    fputs("<div class=\"warn banner\" id=\"suspect-warning\" role=\"alert\"><strong>Suspect results: the load "
          "generator may have been the bottleneck.</strong> ", f);
    if (why && *why) {
        hesc(f, why);
        fputs(". ", f);
    }
    fputs("Its own delays count in the latencies; see <a href=\"#generator\">Generator health</a>.</div>\n", f);
}

static int html_has_generator(json_t *root) {
    size_t i;
    json_t *t;
    if (json_is_object(hj(root, "generator"))) return 1;
    json_array_foreach(hj(root, "timers"), i, t) if (html_cat(t) == HK_ENGINE) return 1;
    return 0;
}

static void html_generator(FILE *f, json_t *root) {
    if (!html_has_generator(root)) return;
    json_t *gen = hj(root, "generator"), *iv = hj(gen, "intervals"), *r;
    size_t niv = json_is_array(iv) ? json_array_size(iv) : 0, k;
    fputs("<section id=\"generator\"><h2>Generator health</h2>\n<p class=\"sub\">How the load generator itself "
          "did: its workers' CPU, how late their event loops ran, how late paced and rate starts were. The results "
          "are suspect when in some interval the CPU was above 90% or the loop lag p99 above 20 ms; schedule lag, "
          "late and skipped starts do not make them suspect but show a generator falling behind its schedule."
          "</p>\n<p>", f);
    if (json_is_true(hj(gen, "suspect"))) {
        fputs("<span class=\"badge fail\">suspect</span> ", f);
        hesc(f, hstr(gen, "reasons"));
    } else if (json_is_object(gen)) {
        fputs("<span class=\"badge pass\">not suspect</span>", f);
    } else {
        fputs("No generator health figures in summary.json.", f);
    }
    fputs("</p>\n", f);
    if (niv > 0) {
        fputs("<div class=\"charts\">\n<figure class=\"chart-box\"><figcaption>Generator CPU per interval (% of the "
              "workers' CPUs)</figcaption><div class=\"chart\" data-kind=\"health-cpu\"></div></figure>\n"
              "<figure class=\"chart-box\"><figcaption>Event loop and schedule lag per interval (ms)</figcaption>"
              "<div class=\"chart\" data-kind=\"health-lag\"></div></figure>\n</div>\n", f);
        fputs("<div class=\"scroll\"><table class=\"health\"><thead><tr><th>interval</th><th>CPU %</th>"
              "<th>loop lag p99</th><th>loop lag max</th><th>schedule lag p99</th><th>late starts</th>"
              "<th>skipped starts</th></tr></thead><tbody>\n", f);
        json_array_foreach(iv, k, r) {
            double cpu = hnum(r, "cpu_percent"), lag = hnum(r, "loop_lag_p99_ms");
            long long late = hint(r, "late_starts"), skipped = hint(r, "skipped_starts");
            fprintf(f, "<tr class=\"hrow\"><td>%zu</td><td%s>%.1f</td><td%s>%.3f</td><td>%.3f</td><td>%.3f</td>"
                       "<td>%lld</td><td%s>%lld</td></tr>\n", k + 1,
                    cpu > HTML_CPU_SUSPECT ? " class=\"err\"" : "", cpu,
                    lag > HTML_LAG_SUSPECT_MS ? " class=\"err\"" : "", lag, hnum(r, "loop_lag_max_ms"),
                    hnum(r, "schedule_lag_p99_ms"), late, skipped > 0 ? " class=\"err\"" : "", skipped);
        }
        fputs("</tbody></table></div>\n<p class=\"sub\">Lags in ms. CPU % is the workers' CPU time over the "
              "interval's length times the workers (the first interval includes the preflight).</p>\n", f);
    }
    html_timers(f, hj(root, "timers"), HK_ENGINE, "h3", 0);
    fputs("</section>\n", f);
}

/* The check counters "check.pass NAME" / "check.fail NAME" belong to the
 * checks table: not listed as counters when summary.json has "checks". */
static int html_counter_shown(json_t *c, int have_checks) {
    const char *name = hstr(c, "name");
    if (!have_checks || !name) return 1;
    return strncmp(name, "check.pass ", 11) != 0 && strncmp(name, "check.fail ", 11) != 0;
}

static size_t html_counters_shown(json_t *root) {
    size_t i, n = 0;
    json_t *c;
    int have_checks = json_is_array(hj(root, "checks"));
    json_array_foreach(hj(root, "counters"), i, c) n += html_counter_shown(c, have_checks);
    return n;
}

static void html_counters(FILE *f, json_t *root) {
    json_t *arr = hj(root, "counters");
    int have_checks = json_is_array(hj(root, "checks"));
    if (html_counters_shown(root) == 0) return;
    fputs("<section id=\"counters\"><h2>Counters</h2>\n<div class=\"scroll\"><table><thead><tr><th class=\"l\">"
          "name</th><th>total</th><th>per second</th></tr></thead><tbody>\n", f);
    size_t i;
    json_t *c;
    json_array_foreach(arr, i, c) {
        if (!html_counter_shown(c, have_checks)) continue;
        fputs("<tr><td class=\"l\">", f);
        hesc(f, hstr(c, "name"));
        fprintf(f, "</td><td>%lld</td><td>%.2f</td></tr>\n", hint(c, "total"), hnum(c, "rate"));
    }
    fputs("</tbody></table></div></section>\n", f);
}

static const char *const html_sections[] = {NULL, "Groups", "Custom timers", "Primitives"};

static void html_toc(FILE *f, json_t *root) {
    json_t *timers = hj(root, "timers");
    size_t n = json_array_size(timers), *ord = calloc(n ? n : 1, sizeof *ord);
    fputs("<nav class=\"toc\"><a href=\"#summary\">Summary</a>", f);
    if (json_array_size(hj(root, "thresholds"))) fputs("<a href=\"#thresholds\">Thresholds</a>", f);
    for (int k = 0; ord && k <= HK_PRIMITIVE; k++) {
        size_t m = html_order(timers, k, ord);
        if (k > 0 && m) fprintf(f, "<span>%s:</span>", html_sections[k]);
        for (size_t j = 0; j < m; j++) {
            fprintf(f, "<a href=\"#t%zu\">", ord[j]);
            hesc(f, html_timer_label(json_array_get(timers, ord[j])));
            fputs("</a>", f);
        }
        if (k == HK_GROUP && html_order(timers, HK_STAGE, ord)) fputs("<a href=\"#stages\">Stages</a>", f);
    }
    free(ord);
    if (html_has_generator(root)) fputs("<a href=\"#generator\">Generator health</a>", f);
    if (json_array_size(hj(root, "checks"))) fputs("<a href=\"#checks\">Checks</a>", f);
    if (html_counters_shown(root)) fputs("<a href=\"#counters\">Counters</a>", f);
    fputs("<a href=\"#errors\">Errors</a><a href=\"#request-errors\">Request errors</a></nav>\n", f);
}

static json_t *html_timer_of_kind(json_t *root, const char *kind) {
    size_t i;
    json_t *t;
    json_array_foreach(hj(root, "timers"), i, t) {
        const char *k = hstr(t, "kind");
        if (k && strcmp(k, kind) == 0) return t;
    }
    return NULL;
}

static void html_run(FILE *f, json_t *root, int depth) {
    const char *scen = hstr(root, "scenario"), *status = hstr(root, "status");
    char title[512];
    snprintf(title, sizeof title, "luamech report: %s", scen ? scen : "(unnamed)");
    html_head(f, title);
    fputs("<h1>", f);
    hesc(f, title);
    fputs("</h1>\n<p class=\"sub\">", f);
    html_badge(f, status ? status : "unknown");
    fputs(" &middot; ", f);
    hesc(f, hstr(root, "start"));
    fprintf(f, " &middot; %.3f s &middot; ", hnum(root, "run_time_s"));
    hesc(f, hstr(root, "scenario_file"));
    fputs("</p>\n", f);
    html_suspect_banner(f, root);
    if (status && strcmp(status, "running") == 0)
        fputs("<p class=\"warn\">A snapshot written while the run was going on: the last interval is not closed "
              "yet and the summary's rates are 0.</p>\n", f);
    if (hstr(root, "error")) {
        fputs("<p class=\"warn\">Aborted: ", f);
        hesc(f, hstr(root, "error"));
        fputs("</p>\n", f);
    }
    if (hint(root, "schema_version") > RESULTS_SCHEMA_VERSION)
        fprintf(f, "<p class=\"warn\">summary.json has schema version %lld; this luamech knows %d: some fields "
                   "may be missing from this report.</p>\n", hint(root, "schema_version"), RESULTS_SCHEMA_VERSION);
    if (depth > 0) fputs("<p><a href=\"../report.html\">&larr; all phases</a></p>\n", f);
    html_toc(f, root);
    html_thresholds(f, root);

    /* summary and workload */
    json_t *all = html_timer_of_kind(root, "all"), *sum = hj(all, "summary"), *set = hj(root, "settings");
    fputs("<section id=\"summary\"><h2>Summary</h2>\n<div class=\"cols\"><div class=\"scroll\">"
          "<table class=\"kv\"><tbody>\n", f);
    fputs("<tr><td>scenario</td><td>", f);
    hesc(f, scen);
    fputs(" (", f);
    hesc(f, hstr(root, "scenario_file"));
    fputs(")</td></tr>\n<tr><td>status</td><td>", f);
    html_badge(f, status ? status : "unknown");
    fputs(" (", f);
    html_exit_code(f, root);
    fputs(")</td></tr>\n", f);
    html_kv(f, "transactions", "%lld", hint(sum, "count"));
    html_kv(f, "errors", "%lld", hint(sum, "errors"));
    html_kv(f, "throughput", "%.2f transactions/s", hnum(sum, "rate"));
    html_kv(f, "p50 / p95 / p99", "%.3f / %.3f / %.3f ms", hnum(sum, "p50_ms"), hnum(sum, "p95_ms"),
            hnum(sum, "p99_ms"));
    html_kv(f, "run time", "%.3f s", hnum(root, "run_time_s"));
    html_kv_text(f, "test start", hstr(root, "start"));
    html_kv_text(f, "test finish", hstr(root, "finish"));
    fputs("</tbody></table></div><div class=\"scroll\"><table class=\"kv\"><tbody>\n", f);
    if (hnum(set, "run_time_s") > 0) html_kv(f, "run time (set)", "%g s", hnum(set, "run_time_s"));
    else html_kv(f, "run time (set)", "no time limit");
    html_kv(f, "rampup", "%g s", hnum(set, "rampup_s"));
    html_kv(f, "time-series interval", "%g s", hnum(set, "interval_s"));
    html_kv(f, "graceful stop", "%g s", hnum(set, "graceful_stop_s"));
    if (hint(set, "requests") > 0) html_kv(f, "transaction budget", "%lld", hint(set, "requests"));
    html_kv(f, "workers", "%lld", hint(set, "workers"));
    html_kv(f, "seed", "%lld", hint(root, "seed"));
    html_kv_text(f, "luamech version", hstr(root, "version"));
    fputs("</tbody></table></div></div>\n", f);

    json_t *groups = hj(root, "groups"), *g;
    size_t i;
    fputs("<h3>Workload configuration</h3>\n<div class=\"scroll\"><table class=\"workload\"><thead><tr>"
          "<th class=\"l\">group name</th><th>vus</th><th class=\"l\">script name</th></tr></thead><tbody>\n", f);
    json_array_foreach(groups, i, g) {
        fputs("<tr><td class=\"l\">", f);
        hesc(f, hstr(g, "name"));
        fprintf(f, "</td><td>%lld</td><td class=\"l\">", hint(g, "vus"));
        hesc(f, hstr(g, "script"));
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
    if (hstr(root, "notes")) {
        fputs("<h3>Notes</h3>\n<pre class=\"notes\">", f);
        hesc(f, hstr(root, "notes"));
        fputs("</pre>\n", f);
    }
    fputs("</section>\n", f);

    /* timers: All Transactions, groups, stages, custom timers, primitives;
     * each "(uncorrected)" twin right after its timer */
    json_t *timers = hj(root, "timers");
    size_t nt = json_array_size(timers), *ord = calloc(nt ? nt : 1, sizeof *ord);
    if (html_order(timers, HK_ALL, ord) == 0)
        fputs("<section id=\"t-none\"><h2>All Transactions</h2><p>No transactions.</p></section>\n", f);
    for (int k = 0; ord && k <= HK_PRIMITIVE; k++) {
        if (k > 0 && html_order(timers, k, ord)) fprintf(f, "<h2>%s</h2>\n", html_sections[k]);
        html_timers(f, timers, k, k == 0 ? "h2" : "h3", k == 0);
        if (k == HK_GROUP) html_stages(f, root, timers);
    }
    free(ord);
    html_generator(f, root);
    html_checks(f, hj(root, "checks"));
    html_counters(f, root);
    html_tally(f, hj(root, "errors"), "errors", "Top errors (failed transactions)", "errors");
    html_tally(f, hj(root, "request_errors"), "request-errors",
               "Request errors (failed requests, whether or not the script raised them)", "request errors");
    html_tail(f, root);
}

/* A phase directory from the file: relative, without "..". */
static int html_safe_dir(const char *d) {
    if (!d || !*d || d[0] == '/' || strlen(d) > 1024) return 0;
    for (const char *p = d; *p; p++) {
        if (*p == '.' && p[1] == '.' && (p == d || p[-1] == '/') && (p[2] == 0 || p[2] == '/')) return 0;
        if (*p == '\\') return 0;
    }
    return 1;
}

static int html_render(const char *dir, int depth, char *err, size_t err_len);

static void html_phases(FILE *f, const char *dir, json_t *root, int depth, int *rc, char *err, size_t err_len) {
    const char *scen = hstr(root, "scenario"), *status = hstr(root, "status");
    json_t *phases = hj(root, "phases"), *p;
    size_t i, n = json_array_size(phases);
    char title[512];
    snprintf(title, sizeof title, "luamech report: %s (phases)", scen ? scen : "(unnamed)");
    html_head(f, title);
    fputs("<h1>", f);
    hesc(f, title);
    fputs("</h1>\n<p class=\"sub\">", f);
    html_badge(f, status ? status : "unknown");
    fprintf(f, " &middot; %lld of %lld phases ran &middot; ", hint(root, "phases_run"), hint(root, "phases_planned"));
    hesc(f, hstr(root, "scenario_file"));
    fputs("</p>\n<section id=\"summary\"><h2>Phases</h2>\n<p class=\"sub\">The phases ran one after another; each "
          "has its own full report. Times in ms.</p>\n", f);
    fputs("<div class=\"scroll\"><table class=\"phases\"><thead><tr><th>#</th><th class=\"l\">phase</th>"
          "<th class=\"l\">status</th><th>transactions</th><th>errors</th><th>time (s)</th><th>per second</th>"
          "<th>p50</th><th>p95</th><th>p99</th><th>max</th></tr></thead><tbody>\n", f);
    long long tx = 0, errors = 0;
    double secs = 0;
    json_array_foreach(phases, i, p) {
        const char *pd = hstr(p, "dir");
        int linked = 0;
        if (html_safe_dir(pd)) {
            char sub[4200];
            snprintf(sub, sizeof sub, "%s/%s", dir, pd);
            char perr[1024] = "";
            int prc = depth == 0 ? html_render(sub, depth + 1, perr, sizeof perr) : -1;
            if (prc == 0) linked = 1;
            else if (prc == -2 && *rc == 0) {
                *rc = -2;
                herr(err, err_len, "%s", perr);
            }
        }
        fprintf(f, "<tr><td>%zu</td><td class=\"l\">", i + 1);
        if (linked) {
            fputs("<a href=\"", f);
            hhref(f, pd);
            fputs("/report.html\">", f);
        }
        hesc(f, hstr(p, "name"));
        fputs(linked ? "</a>" : " (no report: summary.json missing or invalid)", f);
        fputs("</td><td class=\"l\">", f);
        html_badge(f, hstr(p, "status") ? hstr(p, "status") : "unknown");
        long long e = hint(p, "errors");
        fprintf(f, "</td><td>%lld</td><td%s>%lld</td><td>%.3f</td><td>%.2f</td><td>%.3f</td><td>%.3f</td>"
                   "<td>%.3f</td><td>%.3f</td></tr>\n", hint(p, "transactions"), e > 0 ? " class=\"err\"" : "", e,
                hnum(p, "run_time_s"), hnum(p, "rate"), hnum(p, "p50_ms"), hnum(p, "p95_ms"), hnum(p, "p99_ms"),
                hnum(p, "max_ms"));
        tx += hint(p, "transactions");
        errors += e;
        secs += hnum(p, "run_time_s");
    }
    fprintf(f, "<tr class=\"total\"><td></td><td class=\"l\">all phases</td><td></td><td>%lld</td><td>%lld</td>"
               "<td>%.3f</td><td>%.2f</td><td></td><td></td><td></td><td></td></tr>\n", tx, errors, secs,
            secs > 0 ? (double)tx / secs : 0.0);
    fputs("</tbody></table></div>\n", f);
    if (n > 0)
        fputs("<div class=\"charts\">\n<figure class=\"chart-box\"><figcaption>Throughput per phase (transactions "
              "per second)</figcaption><div class=\"chart\" data-kind=\"phases-rate\"></div></figure>\n"
              "<figure class=\"chart-box\"><figcaption>p95 per phase (ms)</figcaption>"
              "<div class=\"chart\" data-kind=\"phases-p95\"></div></figure>\n</div>\n", f);
    fputs("</section>\n", f);
    html_tail(f, root);
}

/* 0; -1 summary.json missing or invalid; -2 report.html not written. */
static int html_render(const char *dir, int depth, char *err, size_t err_len) {
    char path[4200], tmp[4200], out[4200];
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        herr(err, err_len, "%s: %s", dir, stat(dir, &st) != 0 ? strerror(errno) : "not a directory");
        return -1;
    }
    snprintf(path, sizeof path, "%s/summary.json", dir);
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    if (!root) {
        if (access(path, F_OK) != 0) herr(err, err_len, "%s: %s", path, strerror(errno));
        else herr(err, err_len, "%s: invalid JSON: %s (line %d, column %d)", path, je.text, je.line, je.column);
        return -1;
    }
    int phased = json_is_array(hj(root, "phases"));
    if (!json_is_object(root) || (!phased && !json_is_array(hj(root, "timers")))) {
        herr(err, err_len, "%s: not a luamech summary (no \"timers\" or \"phases\" array)", path);
        json_decref(root);
        return -1;
    }
    snprintf(tmp, sizeof tmp, "%s/.report.html.tmp", dir);
    snprintf(out, sizeof out, "%s/report.html", dir);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        herr(err, err_len, "cannot write %s: %s", tmp, strerror(errno));
        json_decref(root);
        return -2;
    }
    int rc = 0;
    if (phased) html_phases(f, dir, root, depth, &rc, err, err_len);
    else html_run(f, root, depth);
    json_decref(root);
    int bad = ferror(f);
    if (fclose(f) != 0) bad = 1;
    if (bad || rename(tmp, out) != 0) {
        herr(err, err_len, "cannot write %s: %s", out, strerror(errno));
        unlink(tmp);
        return -2;
    }
    return rc;
}

int report_write_html_err(const char *dir, char *err, size_t err_len) {
    if (err && err_len) err[0] = 0;
    return html_render(dir, 0, err, err_len);
}

int report_write_html(const char *dir) { return report_write_html_err(dir, NULL, 0); }
