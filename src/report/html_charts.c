/* html_charts.c - the charts of report.html: the inline JavaScript that draws
 * them as SVG line charts in the browser, the embedded copy of summary.json
 * it reads, and the empty <div class="chart" data-kind=...> placeholders (in
 * their <figure>s) that it fills.  The C side draws no chart itself and
 * writes no figure: the tables, which hold every number, are written by
 * html.c and html_tables.c. */
#include "report/html_priv.h"

#include <stdlib.h>
#include <string.h>

/* Draws every <div class="chart" data-kind=...> from the embedded JSON.
 * Each drawn series is a <path class="series" data-kind data-series
 * data-points>; a timer's views other than the first are hidden behind its
 * switch (.view-switch, shown by the script) and their charts drawn when
 * first shown; when all visible charts are drawn, <div id="render-ok" data-charts=N
 * data-viewport=W data-page-width=W data-verdict-colour=C> is appended (the page is narrower than
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
"/* the figures table (stats/figures.h): keys, names, percentiles, and which outputs carry each */\n"
"var F = LM_FIGURES;\n"
"function fk(name) { for (var i = 0; i < F.length; i++) if (F[i].name === name) return F[i].key; return name; }\n"
"function fout(o) { return F.filter(function (f) { return f.outputs.indexOf(o) >= 0; }); }\n"
"var PCTS = fout('summary').filter(function (f) { return f.q > 0; }).map(function (f) { return [f.q, f.key]; });\n"
"var COL = {avg: '#1f77b4', p50: '#2ca02c', p90: '#ff7f0e', p95: '#ff7f0e', p99: '#d62728',\n"
"           max: '#9467bd', rate: '#1f77b4', errors: '#d62728', ms: '#1f77b4', actual: '#17becf'};\n"
"var LOG10 = Math.LN10;\n"
"function esc(s) {\n"
"  return String(s).replace(/[&<>\"']/g, function (c) {\n"
"    return {'&': '&amp;', '<': '&lt;', '>': '&gt;', '\"': '&quot;', \"'\": '&#39;'}[c];\n"
"  });\n"
"}\n"
"function num(v) { return typeof v === 'number' && isFinite(v) ? v : 0; }\n"
"/* a latency: null (no sample in that interval) stays null, drawn as a gap, never as 0 */\n"
"function lat(v) { return typeof v === 'number' && isFinite(v) ? v : null; }\n"
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
"  var drawn = s.series.some(function (se) {\n"
"    return se.ys.some(function (v) { return typeof v === 'number' && isFinite(v); }); });\n"
"  if (!n || !drawn) o.push('<text class=\"nodata\" x=\"' + (m.l + pw / 2) + '\" y=\"' + (m.t + ph / 2) +\n"
"                 '\" text-anchor=\"middle\">no data</text>');\n"
"  var legend = [];\n"
"  s.series.forEach(function (se) {\n"
"    var d = '', pts = 0, marks = [], gap = true;\n"
"    for (var i = 0; i < n; i++) {\n"
"      var v = se.ys[i];\n"
"      if (typeof v !== 'number' || !isFinite(v)) { gap = true; continue; }\n"
"      var px = X(xs[i]).toFixed(1), py = Y(v).toFixed(1);\n"
"      d += (gap ? 'M' : 'L') + px + ',' + py;\n"
"      gap = false;\n"
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
"/* tw: the timer's \"(uncorrected)\" view: its p99 (from the actual start) is drawn next to the\n"
" * timer's own (from the intended start), so the coordinated-omission gap shows */\n"
"function rtSpec(t, tw) {\n"
"  var iv = t.intervals || [];\n"
"  var series = fout('html_chart').map(function (f) { return [f.name, f.key]; })\n"
"    .map(function (a) {\n"
"      return {name: a[0] === 'p99' && tw ? 'p99 intended start' : a[0], color: COL[a[0]], dash: a[0] === 'max',\n"
"              ys: iv.map(function (r) { return lat(r[a[1]]); })};\n"
"    });\n"
"  if (tw) {\n"
"    var tiv = tw.intervals || [];\n"
"    series.push({name: 'p99 actual start', color: COL.actual, dash: true,\n"
"                 ys: iv.map(function (r, i) { return tiv[i] ? lat(tiv[i][fk('p99')]) : null; })});\n"
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
"          series: cpu ? [{name: 'CPU %', color: COL.rate, ys: col('cpu_percent')},\n"
"                         {name: 'CPU wait %', color: COL.errors, dash: true, ys: col('cpu_wait_percent')}]\n"
"                      : [{name: 'loop lag p99', color: COL.p99, ys: col('loop_lag_p99_ms')},\n"
"                         {name: 'loop lag max', color: COL.max, dash: true, ys: col('loop_lag_max_ms')},\n"
"                         {name: 'schedule lag p99', color: COL.p50, ys: col('schedule_lag_p99_ms')},\n"
"                         {name: 'dispatch delay p99', color: COL.actual, ys: col('dispatch_delay_p99_ms')}]};\n"
"}\n"
"/* D.load: active VUs and the groups' targets per interval; kind load-vus: VUs and their\n"
" * targets; load-rate: each rate group's target and achieved rate (its group timer's) */\n"
"function loadSpec(kind) {\n"
"  var L = D.load || {}, vus = L.active_vus || [], gs = L.groups || [], xs = null, series = [];\n"
"  (D.timers || []).some(function (t) {\n"
"    if (vus.length && (t.intervals || []).length === vus.length) { xs = ends(t); return true; }\n"
"    return false;\n"
"  });\n"
"  var pal = [COL.p90, COL.p50, COL.max, COL.actual];\n"
"  if (kind === 'load-vus') {\n"
"    series.push({name: 'active VUs', color: COL.rate, ys: vus.map(num)});\n"
"    gs.filter(function (g) { return g.target === 'vus'; }).forEach(function (g, i) {\n"
"      series.push({name: 'target ' + g.name, color: pal[i % pal.length], dash: true, ys: (g.targets || []).map(num)});\n"
"    });\n"
"  } else {\n"
"    gs.filter(function (g) { return g.target === 'rate'; }).forEach(function (g, i) {\n"
"      var t = (D.timers || []).filter(function (x) { return x.kind === 'group' && x.name === 'group ' + g.name; })[0];\n"
"      series.push({name: 'target ' + g.name, color: pal[i % pal.length], dash: true, ys: (g.targets || []).map(num)});\n"
"      series.push({name: 'achieved ' + g.name, color: i ? COL.errors : COL.rate,\n"
"                   ys: (t ? t.intervals || [] : []).map(function (r) { return num(r.rate); })});\n"
"    });\n"
"  }\n"
"  var n = Math.max.apply(null, [vus.length].concat(series.map(function (se) { return se.ys.length; })));\n"
"  return {kind: kind, title: kind === 'load-vus' ? 'VUs per interval' : 'rate per interval',\n"
"          unit: kind === 'load-vus' ? 'VUs' : 'per second', xlabel: xs ? 'elapsed (s)' : 'interval',\n"
"          xs: xs || Array.apply(null, Array(n)).map(function (v, i) { return i + 1; }), x0: xs ? 0 : 0.5,\n"
"          xname: ivname, series: series};\n"
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
"                    ys: PCTS.map(function (p) { return lat(su[p[1]]); })}]};\n"
"}\n"
"function phaseSpec(kind) {\n"
"  var ph = D.phases || [], rate = kind === 'phases-rate';\n"
"  return {kind: kind, title: rate ? 'throughput per phase' : 'p95 per phase', unit: rate ? 'per second' : 'ms',\n"
"          xlabel: 'phase', xs: ph.map(function (p, i) { return i; }), x0: -0.5, x1: ph.length - 0.5,\n"
"          ticks: ph.map(function (p, i) { return {v: i, label: (i + 1) + ' ' + p.name}; }),\n"
"          xname: function (i) { return 'phase ' + (i + 1) + ' ' + ph[i].name; },\n"
"          series: [rate ? {name: 'transactions/s', color: COL.rate, ys: ph.map(function (p) { return num(p.rate); })}\n"
"                        : {name: 'p95', color: COL.p95, ys: ph.map(function (p) { return lat(p[fk('p95')]); })}]};\n"
"}\n"
"/* a timer's view by name (summary.json schema 2: t.views[v]; the page's data is normalised) */\n"
"function viewOf(t, v) {\n"
"  var w = (t.views || {})[v];\n"
"  if (!w) throw new Error('no ' + v + ' view of timer ' + t.name);\n"
"  return w;\n"
"}\n"
"/* root: only its charts (a view just shown); a chart in a hidden view is drawn when shown */\n"
"function renderAll(onlyResized, root) {\n"
"  var els = (root || document).querySelectorAll('div.chart[data-kind]'), n = 0;\n"
"  for (var i = 0; i < els.length; i++) {\n"
"    var el = els[i], k = el.getAttribute('data-kind');\n"
"    if (el.closest('div.view[hidden]')) continue;\n"
"    if (onlyResized && String(Math.max(240, Math.floor(el.clientWidth))) === el.getAttribute('data-width')) continue;\n"
"    try {\n"
"      var spec;\n"
"      if (k === 'phases-rate' || k === 'phases-p95') spec = phaseSpec(k);\n"
"      else if (k === 'health-cpu' || k === 'health-lag') spec = healthSpec(k);\n"
"      else if (k === 'load-vus' || k === 'load-rate') spec = loadSpec(k);\n"
"      else {\n"
"        var tm = (D.timers || [])[+el.getAttribute('data-timer')], t = tm, tw = null;\n"
"        if (!tm) throw new Error('no timer ' + el.getAttribute('data-timer'));\n"
"        if (el.hasAttribute('data-timer-view')) t = viewOf(tm, el.getAttribute('data-timer-view'));\n"
"        if (el.hasAttribute('data-twin-view')) tw = viewOf(tm, el.getAttribute('data-twin-view'));\n"
"        spec = k === 'rt' ? rtSpec(t, tw) : k === 'tput' ? tputSpec(t) : distSpec(t);\n"
"      }\n"
"      if (el.getAttribute('data-view') === 'overview') spec.kind = 'overview-' + spec.kind;\n"
"      draw(el, spec);\n"
"      n++;\n"
"    } catch (e) { fail(k + ': ' + (e && e.message ? e.message : e)); }\n"
"  }\n"
"  return n;\n"
"}\n"
"/* a timer's views (corrected / uncorrected / all): the switch shows one, hides the others */\n"
"function showView(sec, v) {\n"
"  var shown = null;\n"
"  Array.prototype.forEach.call(sec.querySelectorAll(':scope > div.view'), function (p) {\n"
"    p.hidden = p.getAttribute('data-view') !== v;\n"
"    if (!p.hidden) shown = p;\n"
"  });\n"
"  Array.prototype.forEach.call(sec.querySelectorAll(':scope > .view-switch button'), function (b) {\n"
"    b.setAttribute('aria-pressed', b.getAttribute('data-view') === v ? 'true' : 'false');\n"
"  });\n"
"  sec.setAttribute('data-shown', v);\n"
"  return shown;\n"
"}\n"
"Array.prototype.forEach.call(document.querySelectorAll('section.timer'), function (sec) {\n"
"  var sw = sec.querySelector(':scope > .view-switch'), first = sec.querySelector(':scope > div.view');\n"
"  if (!sw || !first) return;\n"
"  sw.hidden = false;\n"
"  showView(sec, first.getAttribute('data-view'));\n"
"  sw.addEventListener('click', function (e) {\n"
"    var b = e.target.closest('button[data-view]');\n"
"    if (!b) return;\n"
"    var p = showView(sec, b.getAttribute('data-view'));\n"
"    if (p) renderAll(true, p);\n"
"  });\n"
"});\n"
"var drawn = renderAll(false);\n"
"var ok = document.createElement('div');\n"
"ok.id = 'render-ok'; ok.hidden = true; ok.setAttribute('data-charts', drawn);\n"
"ok.setAttribute('data-viewport', window.innerWidth);\n"
"ok.setAttribute('data-page-width', document.documentElement.scrollWidth);\n"
"var vd = document.getElementById('verdict');\n"
"if (vd) ok.setAttribute('data-verdict-colour', getComputedStyle(vd).backgroundColor);\n"
"document.body.appendChild(ok);\n"
"var timer = 0;\n"
"window.addEventListener('resize', function () {\n"
"  clearTimeout(timer); timer = setTimeout(function () { renderAll(true); }, 150);\n"
"});\n"
"})();\n";

/* A chart's data attributes: timer idx, its view when not the default. */
static void html_chart_of(FILE *f, const char *kind, size_t idx, const char *view) {
    fprintf(f, "<div class=\"chart\" data-kind=\"%s\" data-timer=\"%zu\"", kind, idx);
    if (view) fprintf(f, " data-timer-view=\"%s\"", view);
}

/* With twin, the rt chart draws the p99 of the uncorrected view too. */
void html_timer_charts(FILE *f, size_t idx, const char *view, int twin) {
    fputs("<div class=\"charts\">\n", f);
    fprintf(f, "<figure class=\"chart-box\"><figcaption>Response time per interval (ms%s)</figcaption>",
            twin ? "; p99 from the intended and from the actual start" : "");
    html_chart_of(f, "rt", idx, view);
    fputs(twin ? " data-twin-view=\"uncorrected\"></div></figure>\n" : "></div></figure>\n", f);
    fputs("<figure class=\"chart-box\"><figcaption>Throughput and errors per interval (per second)</figcaption>", f);
    html_chart_of(f, "tput", idx, view);
    fputs("></div></figure>\n<figure class=\"chart-box\"><figcaption>Latency distribution, whole run (ms)"
          "</figcaption>", f);
    html_chart_of(f, "dist", idx, view);
    fputs("></div></figure>\n</div>\n", f);
}

/* Two parts with their own titles: CPU, then the loops' lag. */
void html_health_charts(FILE *f) {
    fputs("<h3 id=\"generator-cpu\">Generator CPU</h3>\n<div class=\"charts\">\n<figure class=\"chart-box\">"
          "<figcaption>Generator CPU per interval (% of the workers' CPUs, and time waiting for one)</figcaption>"
          "<div class=\"chart\" data-kind=\"health-cpu\"></div></figure>\n</div>\n"
          "<h3 id=\"loop-lag\">Event loop lag</h3>\n<p class=\"sub\">How late the workers' event loops ran (loop "
          "lag), how late paced and rate starts were (schedule lag), how long completions waited for their VU "
          "(dispatch delay).</p>\n<div class=\"charts\">\n<figure class=\"chart-box\"><figcaption>Event loop lag, "
          "schedule lag and dispatch delay per interval (ms)</figcaption><div class=\"chart\" data-kind=\"health-lag\">"
          "</div></figure>\n</div>\n", f);
}

/* Active VUs and their targets; with rate groups, target and achieved rate. */
void html_load_charts(FILE *f, int has_rate) {
    fputs("<div class=\"charts\">\n<figure class=\"chart-box\"><figcaption>Active VUs per interval (and each "
          "group's target VUs, dashed)</figcaption><div class=\"chart\" data-kind=\"load-vus\"></div></figure>\n", f);
    if (has_rate)
        fputs("<figure class=\"chart-box\"><figcaption>Rate groups: target and achieved transactions per second"
              "</figcaption><div class=\"chart\" data-kind=\"load-rate\"></div></figure>\n", f);
    fputs("</div>\n", f);
}

/* The first screen's three charts (data-view="overview": their series are
 * tagged overview-<kind>): All Transactions' throughput and errors and its
 * latency percentiles over time (idx; with twin, its uncorrected view's
 * p99 too), active VUs and
 * their targets. */
void html_overview_charts(FILE *f, size_t idx, int twin, int has_load) {
    fprintf(f, "<div class=\"charts overview\">\n<figure class=\"chart-box\"><figcaption>Throughput and errors "
               "(per second)</figcaption><div class=\"chart\" data-view=\"overview\" data-kind=\"tput\" "
               "data-timer=\"%zu\"></div></figure>\n", idx);
    fprintf(f, "<figure class=\"chart-box\"><figcaption>Latency percentiles over time (ms%s)</figcaption>"
               "<div class=\"chart\" data-view=\"overview\" data-kind=\"rt\" data-timer=\"%zu\"", 
            twin ? "; p99 from the intended and from the actual start" : "", idx);
    if (twin) fputs(" data-twin-view=\"uncorrected\"", f);
    fputs("></div></figure>\n", f);
    if (has_load)
        fputs("<figure class=\"chart-box\"><figcaption>Active VUs and target</figcaption>"
              "<div class=\"chart\" data-view=\"overview\" data-kind=\"load-vus\"></div></figure>\n", f);
    fputs("</div>\n", f);
}

void html_phase_charts(FILE *f) {
    fputs("<div class=\"charts\">\n<figure class=\"chart-box\"><figcaption>Throughput per phase (transactions "
          "per second)</figcaption><div class=\"chart\" data-kind=\"phases-rate\"></div></figure>\n"
          "<figure class=\"chart-box\"><figcaption>p95 per phase (ms)</figcaption>"
          "<div class=\"chart\" data-kind=\"phases-p95\"></div></figure>\n</div>\n", f);
}

/* The JSON copy inside <script type="application/json">: '<', '>' and '&'
 * can only occur inside JSON strings, where \u escapes mean the same. */
static void html_json(FILE *f, json_t *root) {
    char *s = json_dumps(root, JSON_COMPACT | JSON_REAL_PRECISION(10));
    for (const char *p = s ? s : "{}"; *p; p++) {
        if (*p == '<') fputs("\\u003c", f);
        else if (*p == '>') fputs("\\u003e", f);
        else if (*p == '&') fputs("\\u0026", f);
        else fputc(*p, f);
    }
    free(s);
}

/* The script; with merged rows a chart point names the intervals it holds. */
static void html_js_write(FILE *f, size_t merged) {
    static const char ivname[] = "function ivname(i) { return 'interval ' + (i + 1); }\n";
    const char *at = merged > 1 ? strstr(html_js, ivname) : NULL;
    if (!at) {
        fputs(html_js, f);
        return;
    }
    fwrite(html_js, 1, (size_t)(at - html_js), f);
    fprintf(f, "function ivname(i) { return 'intervals ' + (i * %zu + 1) + '-' + (i + 1) * %zu + ' (merged)'; }\n",
            merged, merged);
    fputs(at + sizeof ivname - 1, f);
}

void html_charts_script(FILE *f, json_t *root, size_t merged) {
    fputs("<noscript><p class=\"warn\">The charts need JavaScript; the tables have every number.</p></noscript>\n", f);
    fputs("<script type=\"application/json\" id=\"summary-data\">", f);
    html_json(f, root);
    fputs("</script>\n<script>\n", f);
    char *figs = figures_json();              /* the figures table, as JavaScript's data */
    fprintf(f, "var LM_FIGURES = %s;\n", figs ? figs : "[]");
    free(figs);
    html_js_write(f, merged);
    fputs("</script>\n", f);
}
