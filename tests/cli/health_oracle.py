# health_oracle.py FOLDER - what the health verdict must say about a Kineto trace and the
# nvidia-smi --query-gpu log (smi.csv) beside it, computed from the raw files alone (not from
# dcutop): the Trace screen's time zero (the first kernel), each sample on the trace's clock
# (epoch ns = baseTimeNanoseconds + ts_us * 1000), the memory step of another process (memory
# used minus the trace's own reserved bytes, '[memory]' events, above its lower quartile by
# 512 MiB or 1% of the total) with its edges half-way between samples, the low clocks (below
# 95% of clocks.max.sm, reason not idle) of the samples whose interval holds kernel time, and
# the active reasons then, and the busy-weighted shares of both. Prints "key value" lines.
import bisect, calendar, csv, datetime, glob, gzip, json, os, sys

d = sys.argv[1]
tr = json.load(gzip.open(glob.glob(os.path.join(d, "*.trace.json.gz"))[0], "rt"))
ev = tr["traceEvents"]
base = tr["baseTimeNanoseconds"]
ns = lambda us: int(round(float(us) * 1000))
dev = [e for e in ev if e.get("cat") in ("kernel", "gpu_memset", "gpu_memcpy")]
origin = min(ns(e["ts"]) for e in ev if e.get("cat") == "kernel")
api = [e for e in ev if e.get("cat") in ("cuda_runtime", "cuda_driver")]
span0 = min([ns(e["ts"]) for e in dev + api])
span1 = max([ns(e["ts"]) + ns(e.get("dur", 0)) for e in dev + api])
# busy: union of device activity
iv = sorted((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])) for e in dev)
merged = []
for a, b in iv:
    if merged and a <= merged[-1][1]:
        merged[-1][1] = max(merged[-1][1], b)
    else:
        merged.append([a, b])
def busy(a, b):
    return sum(max(0, min(b, y) - max(a, x)) for x, y in merged if x < b and y > a)
mem = sorted((ns(e["ts"]), e["args"]["Total Reserved"]) for e in ev
             if e.get("name") == "[memory]" and e["args"].get("Device Type") == 1)
mt = [m[0] for m in mem]
def own(t):
    k = bisect.bisect_right(mt, t)
    return mem[k - 1][1] if k > 0 else mem[0][1]
rows = list(csv.reader(open(os.path.join(d, "smi.csv"))))
head = [h.strip() for h in rows[0]]
S = []
for r in rows[1:]:
    f = dict(zip(head, (x.strip() for x in r)))
    t = datetime.datetime.strptime(f["timestamp"], "%Y/%m/%d %H:%M:%S.%f")
    wall = calendar.timegm(t.timetuple()) * 10**9 + t.microsecond * 1000
    S.append({"t": wall - base, "used": int(f["memory.used [MiB]"].split()[0]) << 20,
              "total": int(f["memory.total [MiB]"].split()[0]) << 20,
              "sm": float(f["clocks.current.sm [MHz]"].split()[0]),
              "max": float(f["clocks.max.sm [MHz]"].split()[0]),
              "reason": int(f["clocks_event_reasons.active"], 16)})
J = [i for i, s in enumerate(S) if span0 <= s["t"] <= span1]
resid = sorted(S[i]["used"] - own(S[i]["t"]) for i in J)
level = resid[len(resid) // 4]
thr = max(512 << 20, S[J[0]]["total"] // 100)
flag = [i for i in J if S[i]["used"] - own(S[i]["t"]) - level >= thr]
i0, i1 = flag[0], flag[-1]
print("origin_ns", origin)
print("window_start_ns", (S[i0 - 1]["t"] + S[i0]["t"]) // 2 - origin)
print("window_end_ns", (S[i1]["t"] + S[i1 + 1]["t"]) // 2 - origin)
print("window_edge_ns", max(S[i0]["t"] - S[i0 - 1]["t"], S[i1 + 1]["t"] - S[i1]["t"]) // 2)
print("window_excess_bytes", max(S[i]["used"] - own(S[i]["t"]) - level for i in flag))
sp = json.load(open(os.path.join(d, "second-process.json")))
print("second_start_ns", sp["start_time_ns"] - base - origin)
print("second_end_ns", sp["end_time_ns"] - base - origin)
# busy-weighted shares: each sample's reading holds from half-way to its neighbours; the
# busy time of the samples whose interval reaches into the span
low_ns = thr_ns = all_ns = 0
for i in range(1, len(S) - 1):
    lo, hi = (S[i - 1]["t"] + S[i]["t"]) // 2, (S[i]["t"] + S[i + 1]["t"]) // 2
    if hi <= span0 or lo > span1:
        continue
    b = busy(lo, hi)
    all_ns += b
    low_ns += b if S[i]["sm"] < 0.95 * S[i]["max"] and S[i]["reason"] != 0x1 else 0
    thr_ns += b if S[i]["reason"] & ~0x1 else 0
print("low_share_pct", "%.0f" % (100.0 * low_ns / all_ns))
print("throttle_share_pct", "%.0f" % (100.0 * thr_ns / all_ns))
# low clocks over samples whose interval holds busy time
low, reasons = [], set()
names = {0x4: "sw_power_cap", 0x8: "hw_slowdown", 0x20: "sw_thermal_slowdown",
         0x40: "hw_thermal_slowdown", 0x80: "hw_power_brake_slowdown"}
for i in J:
    lo = (S[i - 1]["t"] + S[i]["t"]) // 2 if i > 0 else S[i]["t"]
    hi = (S[i]["t"] + S[i + 1]["t"]) // 2 if i + 1 < len(S) else S[i]["t"]
    b = busy(lo, hi)
    if b > 0 and S[i]["sm"] < 0.95 * S[i]["max"] and S[i]["reason"] != 0x1:
        low.append(S[i]["sm"])
    if b > 0:
        reasons |= {n for bit, n in names.items() if S[i]["reason"] & bit}
print("low_clock_min", "%.0f" % min(low))
print("low_clock_max", "%.0f" % max(low))
print("max_clock", "%.0f" % S[0]["max"])
print("reasons", ",".join(sorted(reasons)))
