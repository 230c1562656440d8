#!/usr/bin/env python3
"""Independent figures for tests/cli/test_memory.sh, straight from a Kineto trace's raw events:
per device the peak of 'Total Allocated' (first event reaching it) and of 'Total Reserved',
the aten op live at the peak (the cpu_op on the event's pid/tid with ts inside [ts, ts+dur],
latest start, then earliest end), its module path (the 'nn.Module: X' python_function events
enclosing it on that thread, outermost first, joined by '/'), reserved minus allocated at the
peak, and the largest allocations (Bytes > 0, freed by the next event of the same address and
device with Bytes < 0). Prints tab-separated lines:
  peak DEV ALLOCATED TS_NS RESERVED_AT OP MODULE
  reserved DEV RESERVED
  largest DEV BYTES ALLOC_TS_NS FREED_TS_NS|- OP
"""
import gzip
import json
import sys
from decimal import Decimal


def ns(ts):
    return int((Decimal(str(ts)) * 1000).to_integral_value())


def main():
    path, top = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 5
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        # parse_float keeps the text of ts exact (5815698867397.362 us)
        events = json.load(f, parse_float=Decimal)["traceEvents"]
    mem, ops, mods = [], {}, {}
    for i, e in enumerate(events, 1):
        if e.get("ph") == "i" and e.get("name") == "[memory]":
            a = e["args"]
            dev = -1 if a.get("Device Type") == 0 else a["Device Id"]
            mem.append((ns(e["ts"]), i, dev, a["Bytes"], a.get("Total Allocated"),
                        a.get("Total Reserved"), e["pid"], e["tid"], a.get("Addr")))
        elif e.get("ph") == "X" and e.get("cat") in ("cpu_op", "operator"):
            s = ns(e["ts"])
            ops.setdefault((e["pid"], e["tid"]), []).append((s, s + ns(e.get("dur", 0)), e["name"]))
        elif (e.get("ph") == "X" and e.get("cat") == "python_function"
              and e["name"].startswith("nn.Module: ")):
            s = ns(e["ts"])
            mods.setdefault((e["pid"], e["tid"]), []).append(
                (s, s + ns(e.get("dur", 0)), e["name"][len("nn.Module: "):]))

    def op_at(m):
        live = [o for o in ops.get((m[6], m[7]), []) if o[0] <= m[0] <= o[1]]
        if not live:
            return "-"
        return max(live, key=lambda o: (o[0], -o[1]))[2]

    def module_at(m):
        live = sorted((o for o in mods.get((m[6], m[7]), []) if o[0] <= m[0] <= o[1]),
                      key=lambda o: (o[0], -o[1]))
        return "/".join(o[2] for o in live) or "-"

    mem.sort(key=lambda m: (m[0], m[1]))
    for dev in sorted({m[2] for m in mem}):
        ev = [m for m in mem if m[2] == dev]
        peak = max(m[4] for m in ev if m[4] is not None)
        p = next(m for m in ev if m[4] == peak)
        print("peak\t%d\t%d\t%d\t%s\t%s\t%s" % (dev, peak, p[0], p[5] if p[5] is not None else "-",
                                             op_at(p), module_at(p)))
        res = [m[5] for m in ev if m[5] is not None]
        print("reserved\t%d\t%s" % (dev, max(res) if res else "-"))
        allocs = []
        for k, m in enumerate(ev):
            if m[3] <= 0:
                continue
            freed = next((x for x in ev[k + 1:] if x[8] == m[8] and x[3] < 0), None)
            allocs.append((m[3], m[0], freed[0] if freed else None, op_at(m)))
        allocs.sort(key=lambda a: (-a[0], a[1]))
        for a in allocs[:top]:
            print("largest\t%d\t%d\t%d\t%s\t%s" % (dev, a[0], a[1],
                                                 a[2] if a[2] is not None else -1, a[3]))


main()
