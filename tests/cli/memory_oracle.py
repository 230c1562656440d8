#!/usr/bin/env python3
"""Independent figures for tests/cli/test_memory.sh, straight from a Kineto trace's raw events:
per device the peak of 'Total Allocated' (first event reaching it) and of 'Total Reserved',
the aten op live at the peak (the cpu_op on the event's pid/tid with ts inside [ts, ts+dur],
latest start, then earliest end), its module path (the 'nn.Module: X' python_function events
enclosing it on that thread, outermost first, joined by '/'), reserved minus allocated at the
peak, and the largest allocations (Bytes > 0, freed by the next event of the same address and
device with Bytes < 0). Prints tab-separated lines:
  peak DEV ALLOCATED TS_NS RESERVED_AT OP MODULE
  unused DEV RESERVED_AT-ALLOCATED
  reserved DEV RESERVED
  rpeak DEV TS_NS OP MODULE (the first event reaching the peak of 'Total Reserved')
  largest DEV BYTES ALLOC_TS_NS FREED_TS_NS|-1 OP
With a third argument "events": one line per memory event instead, EVENT_NUMBER OP|- MODULE|-
(its number: its 1-based place among the trace's events).
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

    if len(sys.argv) > 3 and sys.argv[3] == "events":
        for m in mem:
            print("%d\t%s\t%s" % (m[1], op_at(m), module_at(m)))
        return
    mem.sort(key=lambda m: (m[0], m[1]))
    for dev in sorted({m[2] for m in mem}):
        ev = [m for m in mem if m[2] == dev]
        peak = max(m[4] for m in ev if m[4] is not None)
        p = next(m for m in ev if m[4] == peak)
        # PyTorch writes Total Reserved 0 for host memory: it has no reserved figure
        res = [m[5] for m in ev if m[5] is not None]
        has_res = bool(res) and max(res) > 0
        print("peak\t%d\t%d\t%d\t%s\t%s\t%s" % (dev, peak, p[0], p[5] if has_res else "-",
                                             op_at(p), module_at(p)))
        print("unused\t%d\t%s" % (dev, p[5] - peak if has_res else "-"))
        print("reserved\t%d\t%s" % (dev, max(res) if has_res else "-"))
        if has_res:
            q = next(m for m in ev if m[5] == max(res))
            print("rpeak\t%d\t%d\t%s\t%s" % (dev, q[0], op_at(q), module_at(q)))
        allocs, pending = [], {}
        for m in ev:
            if m[3] > 0:
                a = [m[3], m[0], None, m]
                allocs.append(a)
                pending.setdefault(m[8], []).append(a)
            elif m[3] < 0:
                for a in pending.pop(m[8], []):
                    a[2] = m[0]
        allocs.sort(key=lambda a: (-a[0], a[1]))
        for a in allocs[:top]:
            print("largest\t%d\t%d\t%d\t%d\t%s" % (dev, a[0], a[1],
                                                   a[2] if a[2] is not None else -1, op_at(a[3])))


main()
