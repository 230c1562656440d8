#!/usr/bin/env python3
"""hta_oracle.py - HTA's launch statistics and queue length over a raw Kineto trace, with
the standard library only, written from HTA 0.5.0's rules (no HTA, no pandas):

  parse   events with "dur" and "cat" (cat "Trace" dropped); a float ts is rounded as HTA's
          parser rounds it: ts up, ts + dur down, dur the difference (whole us);
          stream = args.stream else -1, correlation = args.correlation else -1.
  launch  (get_cuda_kernel_launch_stats, defaults) the correlation ids of the events named
          cudaLaunchKernel, cudaMemsetAsync, cudaMemcpyAsync (HIP's same names too); each CPU
          event (stream -1) of such an id joined with each GPU event (stream != -1) of it:
          cpu_duration, launch_delay = gpu ts - cpu ts + cpu dur (its code); short: cpu
          <= 50 and gpu dur < cpu dur; outliers: cpu > 50, delay > 100. Per GPU op name:
          count, median (pandas), p95 (pandas quantile: linear), max of the delay and of the
          call, short, delay outliers, call outliers; times printed in ns.
  queue   (get_queue_length_time_series) per stream, events in time order: +1 at each call
          of the set that has a GPU event (on that event's stream), -1 at every GPU event's
          ts; calls before GPU events at one instant. Prints: events, events at length 0,
          streams.

usage: hta_oracle.py launch|queue TRACE.json[.gz]
       dcutop --report --view idle --format csv TRACE | hta_oracle.py got
         (dcutop's launch_stats table in the launch mode's lines, for a test to compare)
"""
import gzip
import json
import math
import sys

SET = ("cudaLaunchKernel", "cudaMemsetAsync", "cudaMemcpyAsync",
       "hipLaunchKernel", "hipMemsetAsync", "hipMemcpyAsync")


def events(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as fh:
        raw = json.load(fh)
    raw = raw["traceEvents"] if isinstance(raw, dict) else raw
    out = []
    for e in raw:
        if "dur" not in e or e.get("cat") is None or e.get("dur") is None or e["cat"] == "Trace":
            continue
        ts, dur = e.get("ts"), e["dur"]
        if ts is None:
            continue
        if isinstance(ts, float) or isinstance(dur, float):
            t0 = math.ceil(ts)
            dur = math.floor(ts + dur) - t0
            ts = t0
        a = e.get("args") if isinstance(e.get("args"), dict) else {}
        out.append((e.get("name"), int(ts), int(dur), a.get("stream", -1), a.get("correlation", -1)))
    return out


def median(v):
    v = sorted(v)
    return (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2.0


def p95(v):
    v = sorted(v)
    pos = 0.95 * (len(v) - 1)
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (pos - lo) * (v[hi] - v[lo])


def launch(ev):
    ids = set(c for n, ts, d, s, c in ev if n in SET)
    cpu, gpu = {}, {}
    for n, ts, d, s, c in ev:
        if c in ids:
            (cpu if s == -1 else gpu).setdefault(c, []).append((n, ts, d))
    by = {}
    for c, cs in cpu.items():
        for _, cts, cdur in cs:
            for gname, gts, gdur in gpu.get(c, []):
                by.setdefault(gname, []).append((cdur, gdur, gts - cts + cdur))
    for name in sorted(by):
        rows = by[name]
        delay = [x[2] for x in rows]
        call = [x[0] for x in rows]
        short = sum(1 for c, g, _ in rows if c <= 50 and g < c)
        v = [len(rows), 1000 * median(delay), 1000 * p95(delay), 1000 * max(delay),
             1000 * median(call), 1000 * p95(call), 1000 * max(call), short,
             sum(1 for x in delay if x > 100), sum(1 for x in call if x > 50)]
        print(name + "|" + ",".join("%.3f" % x for x in v))


def queue(ev):
    gpu_stream = {}
    for n, ts, d, s, c in ev:
        if s != -1:
            gpu_stream.setdefault(c, []).append(s)
    steps = []  # (stream, ts, order, step): calls (order 0) before GPU events (1)
    for n, ts, d, s, c in ev:
        if s != -1:
            steps.append((s, ts, 1, -1))
        elif n in SET and c in gpu_stream and c != -1:
            for gs in gpu_stream[c]:
                steps.append((gs, ts, 0, 1))
    steps.sort(key=lambda x: (str(x[0]), x[1], x[2]))
    total = empty = 0
    streams = set()
    cur, length = None, 0
    for s, ts, _, st in steps:
        if s != cur:
            cur, length = s, 0
            streams.add(s)
        length += st
        total += 1
        empty += length == 0
    print(total, empty, len(streams))


def got(stream):
    import csv
    lines = [l for l in stream]
    start = next((i for i, l in enumerate(lines) if l.startswith("# launch_stats")), None)
    if start is None:
        return
    k = ("launches", "median_ns", "p95_ns", "max_ns", "call_median_ns", "call_p95_ns",
         "call_max_ns", "short", "delay_outliers", "call_outliers")
    for r in csv.DictReader(l for l in lines[start + 1:] if l.strip()):
        print(r["kernel"] + "|" + ",".join("%.3f" % float(r[x]) for x in k))


if __name__ == "__main__":
    if sys.argv[1] == "got":
        got(sys.stdin)
    else:
        {"launch": launch, "queue": queue}[sys.argv[1]](events(sys.argv[2]))
