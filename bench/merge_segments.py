#!/usr/bin/env python3
"""bench/merge_segments.py OUTDIR [--intervals N] [--timers T] [--segments S]

Writes S segment results directories (OUTDIR/seg-1 ... seg-S) of one made-up
run, as `luamech run --segment i/S` writes them, for timing `luamech merge`
on long runs: N intervals of 1 s, T timers (one "All Transactions" with its
"all" view, the rest custom timers; summary.json schema 2), each interval's histogram in
histograms.hlog (HdrHistogram V2 compressed, base64) and its row in
summary.json, counts consistent between the two.  Python 3, stdlib only.

  python3 bench/merge_segments.py /tmp/big --intervals 1000 --timers 44
  /usr/bin/time -v luamech merge /tmp/big/seg-* --out /tmp/big/merged
"""
import argparse
import base64
import json
import os
import random
import struct
import zlib


def varint(v):
    """ZigZag LEB128-64b9B, as HdrHistogram encodes counts."""
    z = (v << 1) ^ (v >> 63)
    out = bytearray()
    for _ in range(8):
        if z < 0x80:
            out.append(z)
            return bytes(out)
        out.append((z & 0x7F) | 0x80)
        z >>= 7
    out.append(z & 0xFF)
    return bytes(out)


def encode(counts):
    """counts: {value_us (< 2048, its own index): n} -> the log's base64."""
    body = bytearray()
    top = max(counts) if counts else 0
    zeros = 0
    for i in range(top + 1):
        n = counts.get(i, 0)
        if n == 0:
            zeros += 1
            continue
        if zeros:
            body += varint(-zeros) if zeros > 1 else varint(0)
            zeros = 0
        body += varint(n)
    payload = struct.pack(">iiiiqqd", 0x1C849313, len(body), 0, 3, 1, 3600000000, 1.0) + bytes(body)
    comp = zlib.compress(payload)
    return base64.b64encode(struct.pack(">ii", 0x1C849314, len(comp)) + comp).decode()


def row(counts, errors):
    vals = sorted(v for v, n in counts.items() for _ in range(n))
    count = len(vals) + errors

    def pct(p):
        return vals[min(len(vals) - 1, int(p * len(vals)))] / 1000 if vals else 0

    return {"count": count, "errors": errors, "cancelled": 0, "skipped": 0, "period_s": 1, "rate": count,
            "min_ms": vals[0] / 1000 if vals else 0, "avg_ms": sum(vals) / len(vals) / 1000 if vals else 0,
            "p50_ms": pct(.5), "p80_ms": pct(.8), "p90_ms": pct(.9), "p95_ms": pct(.95), "p99_ms": pct(.99),
            "p99_9_ms": pct(.999), "max_ms": vals[-1] / 1000 if vals else 0, "stdev_ms": 0}


def segment(out, index, nseg, nint, ntimers, t0_ns, rng):
    os.makedirs(out, exist_ok=True)
    names = ["All Transactions"] + ["t%02d" % i for i in range(1, ntimers - 1)]
    rows = {n: [] for n in names}
    rows["All Transactions (all)"] = []
    with open(os.path.join(out, "histograms.hlog"), "w") as log:
        log.write("#[Histogram log format version 1.3]\n#[StartTime: %.3f (seconds since epoch)]\n"
                  "#[BaseTime: %.3f (seconds since epoch)]\n"
                  '"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"\n'
                  % (t0_ns / 1e9, t0_ns / 1e9))
        for k in range(nint):
            for n in names:
                counts = {}
                for _ in range(rng.randint(20, 60)):
                    v = rng.randint(100, 2000)
                    counts[v] = counts.get(v, 0) + 1
                errors = 1 if n == "All Transactions" and k % 7 == 0 else 0
                rows[n].append(row(counts, errors))
                b64 = encode(counts)
                tag = n.replace(" ", "%20")
                log.write("Tag=%s,%.3f,1.000,%d.000,%s\n" % (tag, k, max(counts), b64))
                if n == "All Transactions":      # its failed samples too (at 1.5 ms)
                    every = dict(counts)
                    every[1500] = every.get(1500, 0) + errors
                    rows["All Transactions (all)"].append(dict(row(every, 0), errors=errors))
                    log.write("Tag=%s%%20(all),%.3f,1.000,%d.000,%s\n" % (tag, k, max(every), encode(every)))
    timers = []            # schema 2: one entry per timer family, its "all" view nested
    for n, r in rows.items():
        if n.endswith("(all)"):
            continue
        t = {"name": n, "kind": "all" if n.startswith("All") else "custom", "latency_over": "successes",
             "summary": {"count": sum(x["count"] for x in r), "errors": sum(x["errors"] for x in r)},
             "intervals": r}
        every = rows.get(n + " (all)")
        if every:
            t["views"] = {"all": {"latency_over": "all samples",
                                  "summary": {"count": sum(x["count"] for x in every),
                                              "errors": sum(x["errors"] for x in every)},
                                  "intervals": every}}
        timers.append(t)
    summary = {
        "schema_version": 2, "tool": "luamech", "scenario": "bench_merge", "scenario_file": "bench_merge.lua",
        "exit_code": 0, "status": "completed", "start": "2026-01-01T00:00:00Z", "run_time_s": nint, "seed": 1,
        "settings": {"run_time_s": nint, "rampup_s": 0, "interval_s": 1, "graceful_stop_s": 5, "requests": 0,
                     "workers": 1, "max_timers": 1000},
        "groups": [{"name": "g", "vus": 1, "script": "g_vu.lua", "model": "closed",
                    "schedule": {"staged": False, "start": 1, "stages": []}}],
        "errors": [], "finish": "2026-01-01T00:16:40Z", "span_s": nint, "thresholds": [], "stages": [],
        "request_errors": [], "counters": [], "checks": [], "scenario_hash": "bench0000000000", "rates": [],
        "gauges": [], "start_unix_ns": t0_ns, "segment": {"index": index, "count": nseg, "requests_whole": 0},
        "timers": timers}
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--intervals", type=int, default=1000)
    ap.add_argument("--timers", type=int, default=44)
    ap.add_argument("--segments", type=int, default=2)
    a = ap.parse_args()
    rng = random.Random(7)
    t0 = 1767225600 * 10**9
    for i in range(1, a.segments + 1):
        segment(os.path.join(a.out, "seg-%d" % i), i, a.segments, a.intervals, a.timers, t0, rng)


if __name__ == "__main__":
    main()
