#!/usr/bin/env node
// hlog_check.js - an independent reader of luamech's DIR/histograms.hlog:
// decodes it with hdr-histogram-js (the TypeScript port of HdrHistogram) and
// prints, per tag, the number of intervals, the total count and p50/p90/p99/
// max of all intervals merged (values as in the log: microseconds).
//
//   node hlog_check.js FILE            a table
//   node hlog_check.js FILE --json     { "start": s, "tags": { NAME: {...} } }:
//       NAME is the tag percent-decoded (the timer name); per tag: intervals,
//       count, interval_counts (one per line, in file order), interval_max
//       (the largest Interval_Max column), and p50/p90/p99/max, each
//       { value, lo, hi }: the value hdr-histogram-js reports and the bounds
//       of its HdrHistogram bucket (lowest and highest equivalent values).
//   node hlog_check.js FILE --redis TAG
//       the redis-benchmark listing of TAG ("X.XX% <= N milliseconds" per
//       millisecond, a bucket at or below N ms when its lowest equivalent
//       value is, the top bucket by the exact max), for comparison with
//       `luamech report DIR --distribution TAG --style redis`.
"use strict";
const fs = require("fs");
const hdr = require("hdr-histogram-js");

process.stdout.on("error", (e) => process.exit(e.code === "EPIPE" ? 0 : 1)); // `| head`

function usage() {
  process.stderr.write("usage: node hlog_check.js FILE [--json | --redis TAG]\n");
  process.exit(2);
}

const args = process.argv.slice(2);
if (args.length < 1) usage();
const file = args[0];
const json = args.includes("--json");
const ri = args.indexOf("--redis");
const redisTag = ri >= 0 ? args[ri + 1] : undefined;
if (ri >= 0 && redisTag === undefined) usage();

const content = fs.readFileSync(file, "utf8");
const reader = new hdr.HistogramLogReader(content);
const tags = new Map(); // name -> { merged, intervals, counts, intervalMax }
let lines = 0;
for (;;) {
  const h = reader.nextIntervalHistogram();
  if (h === null) break;
  lines++;
  const name = decodeURIComponent(h.tag);
  let t = tags.get(name);
  if (!t) {
    t = {
      merged: hdr.build({
        bitBucketSize: 64,
        lowestDiscernibleValue: 1,
        highestTrackableValue: 3600000000,
        numberOfSignificantValueDigits: 3,
      }),
      counts: [],
    };
    tags.set(name, t);
  }
  t.merged.add(h);
  t.counts.push(h.totalCount);
}
// The number of interval lines must match what the reader returned: a line
// it could not parse would make it stop early.
const dataLines = content
  .split(/\r\n|\r|\n/)
  .filter((l) => l !== "" && !l.startsWith("#") && !l.startsWith('"'));
if (dataLines.length !== lines) {
  process.stderr.write(`hlog_check: ${dataLines.length} interval lines, but decoded ${lines}\n`);
  process.exit(1);
}
// The Interval_Max column, per tag.
for (const l of dataLines) {
  const f = l.split(",");
  const name = f[0].startsWith("Tag=") ? decodeURIComponent(f.shift().slice(4)) : "NO TAG";
  const t = tags.get(name);
  if (t) t.intervalMax = Math.max(t.intervalMax || 0, Number.parseFloat(f[2]));
}

function bucket(h, v) {
  return { value: v, lo: h.lowestEquivalentValue(v), hi: h.highestEquivalentValue(v) };
}

function summary(t) {
  const h = t.merged;
  const n = h.totalCount;
  const pc = (p) => (n ? bucket(h, h.getValueAtPercentile(p)) : { value: 0, lo: 0, hi: 0 });
  return {
    intervals: t.counts.length,
    count: n,
    interval_counts: t.counts,
    interval_max: t.intervalMax || 0,
    p50: pc(50),
    p90: pc(90),
    p99: pc(99),
    max: n ? bucket(h, h.maxValue) : { value: 0, lo: 0, hi: 0 },
  };
}

function redis(t) {
  const h = t.merged;
  const n = h.totalCount;
  const out = [];
  if (!n) return out;
  let top = -1;
  for (let i = 0; i < h.countsArrayLength; i++) if (h.getCountAtIndex(i) > 0) top = i;
  let cum = 0;
  let cur = -1;
  const line = () => {
    const p = cum >= n ? 10000 : Math.floor((cum * 10000) / n);
    out.push(`${Math.floor(p / 100)}.${String(p % 100).padStart(2, "0")}% <= ${cur} milliseconds`);
  };
  for (let i = 0; i <= top; i++) {
    const c = h.getCountAtIndex(i);
    if (!c) continue;
    const us = i === top ? t.intervalMax : h.lowestEquivalentValue(h.valueFromIndex(i));
    const ms = Math.ceil(us / 1000);
    if (cur >= 0 && ms !== cur) line();
    cur = ms;
    cum += c;
  }
  line();
  return out;
}

if (redisTag !== undefined) {
  const t = tags.get(redisTag);
  if (!t) {
    process.stderr.write(`hlog_check: no tag ${JSON.stringify(redisTag)}\n`);
    process.exit(1);
  }
  process.stdout.write(redis(t).join("\n") + "\n");
} else if (json) {
  const res = { start: reader.startTimeSec, tags: {} };
  for (const [name, t] of tags) res.tags[name] = summary(t);
  process.stdout.write(JSON.stringify(res, null, 2) + "\n");
} else {
  const pad = (s, w) => String(s).padStart(w);
  process.stdout.write(
    `${"tag".padEnd(32)} ${pad("intervals", 9)} ${pad("count", 10)} ${pad("p50_us", 9)} ` +
      `${pad("p90_us", 9)} ${pad("p99_us", 9)} ${pad("max_us", 10)}\n`
  );
  for (const [name, t] of tags) {
    const s = summary(t);
    process.stdout.write(
      `${name.padEnd(32)} ${pad(s.intervals, 9)} ${pad(s.count, 10)} ${pad(s.p50.value, 9)} ` +
        `${pad(s.p90.value, 9)} ${pad(s.p99.value, 9)} ${pad(s.max.value, 10)}\n`
    );
  }
}
