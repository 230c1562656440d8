#!/usr/bin/env python3
"""smi_oracle.py - independent reading of the real nvidia-smi logs of a recording folder
(smi.csv from --query-gpu --format=csv -lms, dmon.txt from dmon -o DT) and of the Kineto
trace's wall anchor, for tests/cli/test_device_state.sh.

    python3 smi_oracle.py samples FOLDER OFFSET_S   one line per sample, as dcutop's
                                                     --export device-state projects it
    python3 smi_oracle.py summary FOLDER             per file: samples, SM min/median/max,
                                                     below-max share, util mean/max, memory
                                                     used max, power mean/max, temp max,
                                                     throttle reasons with counts

Timestamps are the recording machine's local time; SOURCE.txt says it was UTC. OFFSET_S is
the zone the test tells dcutop to read them in (TZ), in seconds east of UTC: wall = the
clock reading taken as UTC minus OFFSET_S. ts on the trace's clock = wall - baseTimeNanoseconds.
"""
import calendar
import gzip
import json
import os
import statistics
import sys

REASONS = ["gpu_idle", "applications_clocks_setting", "sw_power_cap", "hw_slowdown",
           "sync_boost", "sw_thermal_slowdown", "hw_thermal_slowdown",
           "hw_power_brake_slowdown", "display_clock_setting"]


def epoch_ns(y, mo, d, h, mi, s, frac_ms, offset_s):
    secs = calendar.timegm((y, mo, d, h, mi, s, 0, 0, 0)) - offset_s
    return secs * 1000000000 + frac_ms * 1000000


def num(text):
    return float(text.strip().split()[0])


def smi_csv(path, offset_s):
    rows = []
    with open(path) as f:
        header = [h.strip() for h in f.readline().split(",")]
        for lineno, line in enumerate(f, start=2):
            v = dict(zip(header, [x.strip() for x in line.rstrip("\n").split(",")]))
            date, time = v["timestamp"].split(" ")
            y, mo, d = (int(x) for x in date.split("/"))
            hms, ms = time.split(".")
            h, mi, s = (int(x) for x in hms.split(":"))
            mask = int(v["clocks_event_reasons.active"], 16)
            thr = ",".join(r for b, r in enumerate(REASONS) if mask >> b & 1)
            rows.append({
                "line": lineno, "device": 0, "wall": epoch_ns(y, mo, d, h, mi, s, int(ms), offset_s),
                "sm": num(v["clocks.current.sm [MHz]"]), "memclk": num(v["clocks.current.memory [MHz]"]),
                "maxsm": num(v["clocks.max.sm [MHz]"]), "util": num(v["utilization.gpu [%]"]),
                "memutil": num(v["utilization.memory [%]"]),
                "used": int(num(v["memory.used [MiB]"])) * 1048576,
                "total": int(num(v["memory.total [MiB]"])) * 1048576,
                "power": num(v["power.draw [W]"]), "temp": num(v["temperature.gpu"]),
                "throttle": thr, "name": v["name"], "driver": v["driver_version"]})
    return rows


def dmon(path, offset_s):
    rows = []
    cols = None
    with open(path) as f:
        for lineno, line in enumerate(f, start=1):
            if line.startswith("#"):
                w = line[1:].split()
                if "gpu" in w:
                    cols = w
                continue
            v = dict(zip(cols, line.split()))
            d, t = v["Date"], v["Time"]
            h, mi, s = (int(x) for x in t.split(":"))
            rows.append({
                "line": lineno, "device": int(v["gpu"]),
                "wall": epoch_ns(int(d[:4]), int(d[4:6]), int(d[6:]), h, mi, s, 0, offset_s),
                "sm": float(v["pclk"]), "memclk": float(v["mclk"]), "maxsm": None,
                "util": float(v["sm"]), "memutil": float(v["mem"]),
                "used": int(v["fb"]) * 1048576, "total": None, "power": float(v["pwr"]),
                "temp": float(v["gtemp"]), "throttle": None, "name": None, "driver": None})
    return rows


def base_ns(folder):
    for n in os.listdir(folder):
        if n.endswith(".json.gz"):
            with gzip.open(os.path.join(folder, n), "rt") as f:
                return json.load(f)["baseTimeNanoseconds"]
    return None


def fmt(x):
    return "" if x is None else ("%.6f" % x if isinstance(x, float) else str(x))


def main():
    mode, folder = sys.argv[1], sys.argv[2]
    offset = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    logs = {"dmon.txt": dmon(os.path.join(folder, "dmon.txt"), offset),
            "smi.csv": smi_csv(os.path.join(folder, "smi.csv"), offset)}
    if mode == "samples":
        base = base_ns(folder)
        for name in sorted(logs):
            for r in logs[name]:
                print(",".join([name] + [fmt(r[k]) for k in ("line", "device", "wall")] +
                               [fmt(r["wall"] - base)] +
                               [fmt(r[k]) for k in ("sm", "memclk", "maxsm", "util", "memutil",
                                                    "used", "total", "power", "temp",
                                                    "throttle", "name", "driver")]))
        return
    for name in sorted(logs):
        rs = logs[name]
        sm = [r["sm"] for r in rs]
        maxes = [r["maxsm"] for r in rs if r["maxsm"] is not None]
        top = max(maxes) if maxes else max(sm)
        counts = {}
        for r in rs:
            for t in (r["throttle"] or "").split(","):
                if t:
                    counts[t] = counts.get(t, 0) + 1
        said = any(r["throttle"] is not None for r in rs)
        thr = ", ".join("%s (%d)" % (k, counts[k]) for k in sorted(counts, key=lambda k: min(
            i for i, r in enumerate(rs) if k in (r["throttle"] or "").split(","))))
        print(",".join([name, str(len(rs)), "%.6f" % min(sm), "%.6f" % statistics.median(sm),
                        "%.6f" % max(sm), "%.6f" % (100.0 * sum(1 for x in sm if x < top) / len(sm)),
                        "%.6f" % statistics.mean(r["util"] for r in rs),
                        "%.6f" % max(r["util"] for r in rs), str(max(r["used"] for r in rs)),
                        "%.6f" % statistics.mean(r["power"] for r in rs),
                        "%.6f" % max(r["power"] for r in rs), "%.6f" % max(r["temp"] for r in rs),
                        (thr or "none") if said else ""]))


main()
