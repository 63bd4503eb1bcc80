(function () {
'use strict';
function fail(msg) {
  var d = document.getElementById('render-errors');
  if (!d) {
    d = document.createElement('div'); d.id = 'render-errors'; d.className = 'render-errors';
    var m = document.querySelector('main') || document.body; m.insertBefore(d, m.firstChild);
  }
  var p = document.createElement('p'); p.textContent = 'chart error: ' + msg; d.appendChild(p);
}
window.onerror = function (msg, src, line) { fail(msg + (line ? ' (line ' + line + ')' : '')); };
var D = JSON.parse(document.getElementById('summary-data').textContent);
/* the figures table (stats/figures.h): keys, names, percentiles, and which outputs carry each */
var F = LM_FIGURES;
function fk(name) { for (var i = 0; i < F.length; i++) if (F[i].name === name) return F[i].key; return name; }
function fout(o) { return F.filter(function (f) { return f.outputs.indexOf(o) >= 0; }); }
var PCTS = fout('summary').filter(function (f) { return f.q > 0; }).map(function (f) { return [f.q, f.key]; });
var COL = {avg: '#1f77b4', p50: '#2ca02c', p90: '#ff7f0e', p95: '#ff7f0e', p99: '#d62728',
           max: '#9467bd', rate: '#1f77b4', errors: '#d62728', ms: '#1f77b4', actual: '#17becf'};
var LOG10 = Math.LN10;
function esc(s) {
  return String(s).replace(/[&<>"']/g, function (c) {
    return {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}[c];
  });
}
function num(v) { return typeof v === 'number' && isFinite(v) ? v : 0; }
/* a latency: null (no sample in that interval) stays null, drawn as a gap, never as 0 */
function lat(v) { return typeof v === 'number' && isFinite(v) ? v : null; }
function niceStep(raw) {
  if (!(raw > 0) || !isFinite(raw)) return 1;
  var e = Math.pow(10, Math.floor(Math.log(raw) / LOG10)), f = raw / e;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10) * e;
}
function decimals(step) {
  var d = 0;
  while (d < 6 && Math.abs(Math.round(step * Math.pow(10, d)) - step * Math.pow(10, d)) > 1e-6) d++;
  return d;
}
function tick(v, step) {
  var a = Math.abs(v);
  if (a >= 1e6 && step >= 1e4) return +(v / 1e6).toFixed(2) + 'M';
  if (a >= 1e4 && step >= 100) return +(v / 1e3).toFixed(1) + 'k';
  return v.toFixed(decimals(step));
}
function fmt(v) { return Math.abs(v) >= 1000 ? v.toFixed(0) : +v.toPrecision(4) + ''; }
/* percentile p on a log axis: -log10(1 - p/100); 100 (the max) sits at 99.99 */
function ptx(p) { return p >= 100 ? 4 : -Math.log(1 - p / 100) / LOG10; }

function draw(el, s) {
  var W = Math.max(240, Math.floor(el.clientWidth || 560)), H = 230;
  var m = {l: 54, r: 16, t: 12, b: 40}, pw = W - m.l - m.r, ph = H - m.t - m.b;
  var xs = s.xs.map(s.xt || function (v) { return v; }), n = xs.length;
  var x0 = s.x0 !== undefined ? s.x0 : Math.min.apply(null, xs);
  var x1 = s.x1 !== undefined ? s.x1 : Math.max.apply(null, xs);
  if (!isFinite(x0) || !isFinite(x1)) { x0 = 0; x1 = 1; }
  if (!(x1 > x0)) { x0 -= 0.5; x1 += 0.5; }
  var ymax = 0;
  s.series.forEach(function (se) { se.ys.forEach(function (v) { if (num(v) > ymax) ymax = v; }); });
  if (s.ymax && ymax < s.ymax) ymax = s.ymax;
  var ny = Math.max(2, Math.floor(ph / 38)), ystep = niceStep(ymax / ny);
  var nyt = ymax > 0 ? Math.max(1, Math.ceil(ymax / ystep - 1e-9)) : ny, ytop = nyt * ystep;
  function X(v) { return m.l + (v - x0) / (x1 - x0) * pw; }
  function Y(v) { return m.t + ph - num(v) / ytop * ph; }
  var o = ['<svg width="' + W + '" height="' + H + '" viewBox="0 0 ' + W + ' ' + H +
           '" role="img" aria-label="' + esc(s.title || '') + '">'];
  for (var i = 0; i <= nyt; i++) {
    var y = Y(i * ystep).toFixed(1);
    o.push('<line class="gridl" x1="' + m.l + '" x2="' + (m.l + pw) + '" y1="' + y + '" y2="' + y + '"/>');
    o.push('<text x="' + (m.l - 6) + '" y="' + y + '" dy="0.32em" text-anchor="end">' +
           tick(i * ystep, ystep) + '</text>');
  }
  var ticks = s.ticks;
  if (!ticks) {
    var xstep = niceStep((x1 - x0) / Math.max(2, Math.floor(pw / 70)));
    ticks = [];
    for (var k = Math.ceil(x0 / xstep - 1e-9); k * xstep <= x1 + 1e-9; k++)
      ticks.push({v: k * xstep, label: tick(k * xstep, xstep)});
  }
  var lastx = -1e9, yb = m.t + ph;
  ticks.forEach(function (t) {
    var x = X(t.v), w = String(t.label).length * 6.5 + 8;
    if (x < m.l - 1 || x > m.l + pw + 1 || x - lastx < w) return;
    lastx = x;
    o.push('<line class="axis" x1="' + x.toFixed(1) + '" x2="' + x.toFixed(1) + '" y1="' + yb +
           '" y2="' + (yb + 4) + '"/>');
    o.push('<text x="' + x.toFixed(1) + '" y="' + (yb + 15) + '" text-anchor="middle">' +
           esc(t.label) + '</text>');
  });
  o.push('<line class="axis" x1="' + m.l + '" x2="' + m.l + '" y1="' + m.t + '" y2="' + yb + '"/>');
  o.push('<line class="axis" x1="' + m.l + '" x2="' + (m.l + pw) + '" y1="' + yb + '" y2="' + yb + '"/>');
  o.push('<text x="' + (m.l + pw / 2) + '" y="' + (H - 4) + '" text-anchor="middle">' + esc(s.xlabel) + '</text>');
  o.push('<text transform="translate(12,' + (m.t + ph / 2) + ') rotate(-90)" text-anchor="middle">' +
         esc(s.unit) + '</text>');
  var drawn = s.series.some(function (se) {
    return se.ys.some(function (v) { return typeof v === 'number' && isFinite(v); }); });
  if (!n || !drawn) o.push('<text class="nodata" x="' + (m.l + pw / 2) + '" y="' + (m.t + ph / 2) +
                 '" text-anchor="middle">no data</text>');
  var legend = [];
  s.series.forEach(function (se) {
    var d = '', pts = 0, marks = [], gap = true;
    for (var i = 0; i < n; i++) {
      var v = se.ys[i];
      if (typeof v !== 'number' || !isFinite(v)) { gap = true; continue; }
      var px = X(xs[i]).toFixed(1), py = Y(v).toFixed(1);
      d += (gap ? 'M' : 'L') + px + ',' + py;
      gap = false;
      pts++;
      if (n <= 60) marks.push('<circle cx="' + px + '" cy="' + py + '" r="2.3" fill="' + se.color + '"><title>' +
                              esc(s.xname(i) + ': ' + se.name + ' ' + fmt(v) + ' ' + s.unit) + '</title></circle>');
    }
    o.push('<path class="series" data-kind="' + esc(s.kind) + '" data-series="' + esc(se.name) +
           '" data-points="' + pts + '" d="' + d + '" fill="none" stroke="' + se.color +
           '" stroke-width="1.8" stroke-linejoin="round"' + (se.dash ? ' stroke-dasharray="5 3"' : '') + '/>');
    o.push(marks.join(''));
    legend.push('<span><i style="background:' + se.color + '"></i>' + esc(se.name) + '</span>');
  });
  o.push('</svg><div class="legend">' + legend.join('') + '</div>');
  el.innerHTML = o.join('');
  el.setAttribute('data-width', W);
}

function ends(t) {
  var xs = [], acc = 0;
  (t.intervals || []).forEach(function (r) { acc += num(r.period_s); xs.push(+acc.toFixed(3)); });
  return xs;
}
function ivname(i) { return 'interval ' + (i + 1); }
/* tw: the timer's "(uncorrected)" view: its p99 (from the actual start) is drawn next to the
 * timer's own (from the intended start), so the coordinated-omission gap shows */
function rtSpec(t, tw) {
  var iv = t.intervals || [];
  var series = fout('html_chart').map(function (f) { return [f.name, f.key]; })
    .map(function (a) {
      return {name: a[0] === 'p99' && tw ? 'p99 intended start' : a[0], color: COL[a[0]], dash: a[0] === 'max',
              ys: iv.map(function (r) { return lat(r[a[1]]); })};
    });
  if (tw) {
    var tiv = tw.intervals || [];
    series.push({name: 'p99 actual start', color: COL.actual, dash: true,
                 ys: iv.map(function (r, i) { return tiv[i] ? lat(tiv[i][fk('p99')]) : null; })});
  }
  return {kind: 'rt', title: 'response time per interval', unit: 'ms', xlabel: 'elapsed (s)', xs: ends(t),
          x0: 0, xname: ivname, series: series};
}
/* generator.intervals[]: x = elapsed time when a timer has as many intervals, else the interval number */
function healthSpec(kind) {
  var iv = (D.generator && D.generator.intervals) || [], xs = null, cpu = kind === 'health-cpu';
  (D.timers || []).some(function (t) {
    if (iv.length && (t.intervals || []).length === iv.length) { xs = ends(t); return true; }
    return false;
  });
  function col(k) { return iv.map(function (r) { return num(r[k]); }); }
  return {kind: kind, title: cpu ? 'generator CPU per interval' : 'event loop lag per interval',
          unit: cpu ? '% CPU' : 'ms', xlabel: xs ? 'elapsed (s)' : 'interval', ymax: cpu ? 100 : 0,
          xs: xs || iv.map(function (r, i) { return i + 1; }), x0: xs ? 0 : 0.5,
          x1: xs ? undefined : iv.length + 0.5, xname: ivname,
          series: cpu ? [{name: 'CPU %', color: COL.rate, ys: col('cpu_percent')},
                         {name: 'CPU wait %', color: COL.errors, dash: true, ys: col('cpu_wait_percent')}]
                      : [{name: 'loop lag p99', color: COL.p99, ys: col('loop_lag_p99_ms')},
                         {name: 'loop lag max', color: COL.max, dash: true, ys: col('loop_lag_max_ms')},
                         {name: 'schedule lag p99', color: COL.p50, ys: col('schedule_lag_p99_ms')},
                         {name: 'dispatch delay p99', color: COL.actual, ys: col('dispatch_delay_p99_ms')}]};
}
/* D.load: active VUs and the groups' targets per interval; kind load-vus: VUs and their
 * targets; load-rate: each rate group's target and achieved rate (its group timer's) */
function loadSpec(kind) {
  var L = D.load || {}, vus = L.active_vus || [], gs = L.groups || [], xs = null, series = [];
  (D.timers || []).some(function (t) {
    if (vus.length && (t.intervals || []).length === vus.length) { xs = ends(t); return true; }
    return false;
  });
  var pal = [COL.p90, COL.p50, COL.max, COL.actual];
  if (kind === 'load-vus') {
    series.push({name: 'active VUs', color: COL.rate, ys: vus.map(num)});
    gs.filter(function (g) { return g.target === 'vus'; }).forEach(function (g, i) {
      series.push({name: 'target ' + g.name, color: pal[i % pal.length], dash: true, ys: (g.targets || []).map(num)});
    });
  } else {
    gs.filter(function (g) { return g.target === 'rate'; }).forEach(function (g, i) {
      var t = (D.timers || []).filter(function (x) { return x.kind === 'group' && x.name === 'group ' + g.name; })[0];
      series.push({name: 'target ' + g.name, color: pal[i % pal.length], dash: true, ys: (g.targets || []).map(num)});
      series.push({name: 'achieved ' + g.name, color: i ? COL.errors : COL.rate,
                   ys: (t ? t.intervals || [] : []).map(function (r) { return num(r.rate); })});
    });
  }
  var n = Math.max.apply(null, [vus.length].concat(series.map(function (se) { return se.ys.length; })));
  return {kind: kind, title: kind === 'load-vus' ? 'VUs per interval' : 'rate per interval',
          unit: kind === 'load-vus' ? 'VUs' : 'per second', xlabel: xs ? 'elapsed (s)' : 'interval',
          xs: xs || Array.apply(null, Array(n)).map(function (v, i) { return i + 1; }), x0: xs ? 0 : 0.5,
          xname: ivname, series: series};
}
function tputSpec(t) {
  var iv = t.intervals || [];
  return {kind: 'tput', title: 'throughput per interval', unit: 'per second', xlabel: 'elapsed (s)',
          xs: ends(t), x0: 0, xname: ivname,
          series: [{name: 'samples/s', color: COL.rate, ys: iv.map(function (r) { return num(r.rate); })},
                   {name: 'errors/s', color: COL.errors, ys: iv.map(function (r) {
                     return num(r.period_s) > 0 ? num(r.errors) / r.period_s : 0; })}]};
}
function distSpec(t) {
  var su = t.summary || {};
  return {kind: 'dist', title: 'latency distribution', unit: 'ms', xlabel: 'percentile (log scale)',
          xs: PCTS.map(function (p) { return p[0]; }), xt: ptx, x0: ptx(50) - 0.15, x1: 4.15,
          ticks: PCTS.map(function (p) { return {v: ptx(p[0]), label: String(p[0])}; }),
          xname: function (i) { return 'p' + PCTS[i][0]; },
          series: [{name: 'response time (whole run)', color: COL.ms,
                    ys: PCTS.map(function (p) { return lat(su[p[1]]); })}]};
}
function phaseSpec(kind) {
  var ph = D.phases || [], rate = kind === 'phases-rate';
  return {kind: kind, title: rate ? 'throughput per phase' : 'p95 per phase', unit: rate ? 'per second' : 'ms',
          xlabel: 'phase', xs: ph.map(function (p, i) { return i; }), x0: -0.5, x1: ph.length - 0.5,
          ticks: ph.map(function (p, i) { return {v: i, label: (i + 1) + ' ' + p.name}; }),
          xname: function (i) { return 'phase ' + (i + 1) + ' ' + ph[i].name; },
          series: [rate ? {name: 'transactions/s', color: COL.rate, ys: ph.map(function (p) { return num(p.rate); })}
                        : {name: 'p95', color: COL.p95, ys: ph.map(function (p) { return lat(p[fk('p95')]); })}]};
}
/* a timer's view by name (summary.json schema 2: t.views[v]; the page's data is normalised) */
function viewOf(t, v) {
  var w = (t.views || {})[v];
  if (!w) throw new Error('no ' + v + ' view of timer ' + t.name);
  return w;
}
/* root: only its charts (a view just shown); a chart in a hidden view is drawn when shown */
function renderAll(onlyResized, root) {
  var els = (root || document).querySelectorAll('div.chart[data-kind]'), n = 0;
  for (var i = 0; i < els.length; i++) {
    var el = els[i], k = el.getAttribute('data-kind');
    if (el.closest('div.view[hidden]')) continue;
    if (onlyResized && String(Math.max(240, Math.floor(el.clientWidth))) === el.getAttribute('data-width')) continue;
    try {
      var spec;
      if (k === 'phases-rate' || k === 'phases-p95') spec = phaseSpec(k);
      else if (k === 'health-cpu' || k === 'health-lag') spec = healthSpec(k);
      else if (k === 'load-vus' || k === 'load-rate') spec = loadSpec(k);
      else {
        var tm = (D.timers || [])[+el.getAttribute('data-timer')], t = tm, tw = null;
        if (!tm) throw new Error('no timer ' + el.getAttribute('data-timer'));
        if (el.hasAttribute('data-timer-view')) t = viewOf(tm, el.getAttribute('data-timer-view'));
        if (el.hasAttribute('data-twin-view')) tw = viewOf(tm, el.getAttribute('data-twin-view'));
        spec = k === 'rt' ? rtSpec(t, tw) : k === 'tput' ? tputSpec(t) : distSpec(t);
      }
      if (el.getAttribute('data-view') === 'overview') spec.kind = 'overview-' + spec.kind;
      draw(el, spec);
      n++;
    } catch (e) { fail(k + ': ' + (e && e.message ? e.message : e)); }
  }
  return n;
}
/* a timer's views (corrected / uncorrected / all): the switch shows one, hides the others */
function showView(sec, v) {
  var shown = null;
  Array.prototype.forEach.call(sec.querySelectorAll(':scope > div.view'), function (p) {
    p.hidden = p.getAttribute('data-view') !== v;
    if (!p.hidden) shown = p;
  });
  Array.prototype.forEach.call(sec.querySelectorAll(':scope > .view-switch button'), function (b) {
    b.setAttribute('aria-pressed', b.getAttribute('data-view') === v ? 'true' : 'false');
  });
  sec.setAttribute('data-shown', v);
  return shown;
}
Array.prototype.forEach.call(document.querySelectorAll('section.timer'), function (sec) {
  var sw = sec.querySelector(':scope > .view-switch'), first = sec.querySelector(':scope > div.view');
  if (!sw || !first) return;
  sw.hidden = false;
  showView(sec, first.getAttribute('data-view'));
  sw.addEventListener('click', function (e) {
    var b = e.target.closest('button[data-view]');
    if (!b) return;
    var p = showView(sec, b.getAttribute('data-view'));
    if (p) renderAll(true, p);
  });
});
var drawn = renderAll(false);
var ok = document.createElement('div');
ok.id = 'render-ok'; ok.hidden = true; ok.setAttribute('data-charts', drawn);
ok.setAttribute('data-viewport', window.innerWidth);
ok.setAttribute('data-page-width', document.documentElement.scrollWidth);
var vd = document.getElementById('verdict');
if (vd) ok.setAttribute('data-verdict-colour', getComputedStyle(vd).backgroundColor);
document.body.appendChild(ok);
var timer = 0;
window.addEventListener('resize', function () {
  clearTimeout(timer); timer = setTimeout(function () { renderAll(true); }, 150);
});
})();
