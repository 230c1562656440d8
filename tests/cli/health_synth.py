# health_synth.py FOLDER OUT.csv - an nvidia-smi --query-gpu log (smi.csv's columns) for the
# Kineto trace in FOLDER that a healthy device would give: a sample every 100 ms over the
# trace, the SM clock at its maximum while the trace keeps the device busy and down at
# 345 MHz with reason gpu_idle (0x1) where the interval holds no kernel (power saving, as the
# real log shows before the run), utilisation the trace's own busy share of the 100 ms before
# the sample, memory used a constant 1.9 GiB plus the trace's own reserved bytes.
import bisect, datetime, glob, gzip, json, os, sys

d, out = sys.argv[1], sys.argv[2]
tr = json.load(gzip.open(glob.glob(os.path.join(d, "*.trace.json.gz"))[0], "rt"))
ev = tr["traceEvents"]
base = tr["baseTimeNanoseconds"]
ns = lambda us: int(round(float(us) * 1000))
dev = sorted((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])) for e in ev
             if e.get("cat") in ("kernel", "gpu_memset", "gpu_memcpy"))
def busy(a, b):
    return sum(max(0, min(b, y) - max(a, x)) for x, y in dev if x < b and y > a)
mem = sorted((ns(e["ts"]), e["args"]["Total Reserved"]) for e in ev
             if e.get("name") == "[memory]" and e["args"].get("Device Type") == 1)
mt = [m[0] for m in mem]
def own(t):
    k = bisect.bisect_right(mt, t)
    return mem[k - 1][1] if k > 0 else mem[0][1]
t0, t1 = dev[0][0] - 500 * 10**6, dev[-1][1] + 500 * 10**6
step = 100 * 10**6
with open(out, "w") as f:
    f.write("timestamp, name, driver_version, clocks.current.sm [MHz], clocks.current.memory [MHz], "
            "clocks.max.sm [MHz], utilization.gpu [%], utilization.memory [%], memory.used [MiB], "
            "memory.total [MiB], power.draw [W], temperature.gpu, clocks_event_reasons.active\n")
    for t in range(t0, t1, step):
        wall = datetime.datetime.fromtimestamp((t + base) / 1e9, datetime.timezone.utc)
        b_here = busy(t - step // 2, t + step // 2)
        util = round(100 * busy(t - step, t) / step)
        sm, reason = (1980, 0) if b_here > 0 else (345, 1)
        used = 1900 + own(t) // (1 << 20)
        f.write("%s, NVIDIA H100 80GB HBM3, 580.159.04, %d MHz, 2619 MHz, 1980 MHz, %d %%, 1 %%, "
                "%d MiB, 81559 MiB, 130.00 W, 40, 0x%016x\n" % (
                    wall.strftime("%Y/%m/%d %H:%M:%S.") + "%03d" % (wall.microsecond // 1000),
                    sm, util, used, reason))
