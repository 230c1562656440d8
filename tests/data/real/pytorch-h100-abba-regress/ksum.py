# Independent figures from a Kineto chrome trace (.json or .json.gz): kernel count and the sum of
# kernel durations (events with cat "kernel"), memcpy/memset, time span, the wall-clock base.
import gzip, json, sys

def load(p):
    op = gzip.open if p.endswith(".gz") else open
    with op(p, "rt") as f:
        return json.load(f)

def summary(p):
    d = load(p)
    ev = [e for e in d.get("traceEvents", []) if isinstance(e, dict)]
    k = [e for e in ev if e.get("cat") == "kernel"]
    ns = lambda v: int(round(float(v) * 1000))
    kts = [ns(e["ts"]) for e in k]
    kend = [ns(e["ts"]) + ns(e.get("dur", 0)) for e in k]
    tsall = [ns(e["ts"]) for e in ev if "ts" in e and e.get("ph") != "M"]
    r = {"file": p, "kernels": len(k), "kernel_ns": sum(ns(e.get("dur", 0)) for e in k),
         "memcpy": sum(1 for e in ev if e.get("cat") == "gpu_memcpy"),
         "memcpy_ns": sum(ns(e.get("dur", 0)) for e in ev if e.get("cat") == "gpu_memcpy"),
         "memset": sum(1 for e in ev if e.get("cat") == "gpu_memset"),
         "memset_ns": sum(ns(e.get("dur", 0)) for e in ev if e.get("cat") == "gpu_memset"),
         "events": len(ev), "cpu_op": sum(1 for e in ev if e.get("cat") == "cpu_op"),
         "python_function": sum(1 for e in ev if e.get("cat") == "python_function"),
         "cpu_instant_event": sum(1 for e in ev if e.get("cat") == "cpu_instant_event"),
         "fwdbwd": sum(1 for e in ev if e.get("cat") == "fwdbwd"),
         "baseTimeNanoseconds": d.get("baseTimeNanoseconds"),
         "min_ts_ns": min(tsall) if tsall else None,
         "first_kernel_ts_ns": min(kts) if kts else None, "last_kernel_end_ns": max(kend) if kend else None,
         "profiler_steps": sorted(e["name"] for e in ev if e.get("name", "").startswith("ProfilerStep#")
                                  and e.get("cat") == "user_annotation")}
    return r

if __name__ == "__main__":
    for p in sys.argv[1:]:
        print(json.dumps(summary(p)))
