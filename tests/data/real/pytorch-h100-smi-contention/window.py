# Independent figures for this recording: where the second process's load falls on the trace's
# clock, and the trace's kernels inside and outside it.   python3 window.py [FOLDER]
# Kineto's wall clock: epoch ns = baseTimeNanoseconds + ts(us) * 1000; trace start = earliest ts.
import gzip, json, os, sys

d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
tr = json.load(gzip.open(os.path.join(d, "gpt_contention.trace.json.gz"), "rt"))
sp = json.load(open(os.path.join(d, "second-process.json")))
wc = json.load(open(os.path.join(d, "wallclock.json")))
ns = lambda v: int(round(float(v) * 1000))
ev = tr["traceEvents"]
base = tr["baseTimeNanoseconds"]
t0 = min(ns(e["ts"]) for e in ev if "ts" in e and e.get("ph") != "M")
start_epoch = base + t0
rel = lambda epoch_ns: (epoch_ns - start_epoch) / 1e6
w0, w1 = rel(sp["start_time_ns"]), rel(sp["end_time_ns"])
print("trace start (epoch ns)            %d" % start_epoch)
print("second process load (trace ms)    %.3f .. %.3f  (%.3f ms)" % (w0, w1, w1 - w0))
print("time_ns before profiling (ms)     %.3f" % rel(wc["time_ns_before_profile"]))
steps = sorted((e for e in ev if e.get("cat") == "user_annotation" and e.get("name", "").startswith("ProfilerStep#")),
               key=lambda e: e["ts"])
host = {s["i"]: s["start_time_ns"] for s in wc["profiled_steps"]}
off = [rel(base + ns(e["ts"])) - rel(host[int(e["name"].split("#")[1])]) for e in steps
       if int(e["name"].split("#")[1]) in host]
print("ProfilerStep ts - host step start (ms): max |diff| %.3f over %d steps" % (max(abs(x) for x in off), len(off)))
k = [e for e in ev if e.get("cat") == "kernel"]
last = max(ns(e["ts"]) + ns(e["dur"]) for e in k)
inside = [e for e in k if w0 <= (ns(e["ts"]) - t0) / 1e6 < w1]
outside = [e for e in k if not (w0 <= (ns(e["ts"]) - t0) / 1e6 < w1)]
tin, tout = sum(ns(e["dur"]) for e in inside), sum(ns(e["dur"]) for e in outside)
span = (last - t0) / 1e6
print("trace start .. last kernel end    %.3f ms" % span)
print("kernels: %d, %d ns in all" % (len(k), tin + tout))
print("inside the load : %d kernels, %d ns, %.2f us each, %.3f ms kernel time per 100 ms" % (
    len(inside), tin, tin / len(inside) / 1e3, tin / 1e6 / (w1 - w0) * 100))
print("outside the load: %d kernels, %d ns, %.2f us each, %.3f ms kernel time per 100 ms" % (
    len(outside), tout, tout / len(outside) / 1e3, tout / 1e6 / (span - (w1 - w0)) * 100))
in_steps = [e["name"] for e in steps if w0 <= (ns(e["ts"]) - t0) / 1e6 and (ns(e["ts"]) + ns(e["dur"]) - t0) / 1e6 < w1]
print("profiler steps wholly inside the load: %s .. %s (%d)" % (in_steps[0], in_steps[-1], len(in_steps)))
mem = [e for e in ev if e.get("name") == "[memory]" and e.get("args", {}).get("Device Type") == 1]
pk = max(mem, key=lambda e: e["args"]["Total Allocated"])
print("peak Total Allocated on the GPU: %d bytes (reserved %d) at %.3f ms" % (
    pk["args"]["Total Allocated"], pk["args"]["Total Reserved"], (ns(pk["ts"]) - t0) / 1e6))
