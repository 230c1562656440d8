#!/usr/bin/env python3
"""heldout_mem_oracle.py TRACE.json.gz - from the raw events alone: per device, the peak of PyTorch's
"Total Allocated" over its [memory] events (the first event reaching it), the op live there
(the innermost cpu_op on the event's thread whose span holds it) and "Total Reserved" then.
Prints: peak DEVICE BYTES RESERVED_THEN OP"""
import collections, gzip, json, sys

ev = json.load(gzip.open(sys.argv[1]))["traceEvents"]
ops = collections.defaultdict(list)
for e in ev:
    if e.get("ph") == "X" and e.get("cat") == "cpu_op":
        ops[(e["pid"], e["tid"])].append(e)
best = {}
for e in ev:
    if e.get("ph") != "i" or e.get("name") != "[memory]":
        continue
    a = e.get("args", {})
    if a.get("Device Type", 0) == 0:
        continue
    d = a.get("Device Id")
    t = a.get("Total Allocated")
    if d not in best or t > best[d][0]:
        best[d] = (t, a.get("Total Reserved"), e)
for d, (t, r, e) in sorted(best.items()):
    enc = [o for o in ops[(e["pid"], e["tid"])] if o["ts"] <= e["ts"] <= o["ts"] + o["dur"]]
    op = max(enc, key=lambda o: (o["ts"], -o["dur"]))["name"] if enc else "-"
    print("peak", d, t, r, op)
