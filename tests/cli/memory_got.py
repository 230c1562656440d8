#!/usr/bin/env python3
"""dcutop's memory figures in memory_oracle.py's line format, for test_memory.sh: reads the CSV
report of --view memory (argv[1]) and --export memory (argv[2]); times back on the trace's
clock through the export's ts_ns - t_ns."""
import csv
import io
import sys


def blocks(text):
    out, name, buf = {}, None, []
    for line in text.split("\r\n"):
        if line.startswith("# "):
            name, buf = line[2:], []
        elif line == "" and name:
            out[name] = list(csv.DictReader(io.StringIO("\n".join(buf))))
            name = None
        elif name:
            buf.append(line)
    return out


rep = blocks(open(sys.argv[1], newline="").read())
ev = list(csv.DictReader(open(sys.argv[2], newline="")))
origin = int(ev[0]["ts_ns"]) - int(ev[0]["t_ns"])
largest = {}
for r in rep["memory_largest"]:
    largest.setdefault(r["device"], []).append(r)
for p in rep["memory_peaks"]:
    d = p["device"]
    print("peak\t%s\t%s\t%d\t%s\t%s\t%s" % (d, p["peak_allocated"], int(p["peak_at_ns"]) + origin,
                                         p["reserved_at_peak"] or "-", p["op"] or "-",
                                         p["module"] or "-"))
    print("unused\t%s\t%s" % (d, p["unused_reserved_at_peak"] or "-"))
    print("reserved\t%s\t%s" % (d, p["peak_reserved"] or "-"))
    if p["peak_reserved"]:
        print("rpeak\t%s\t%d\t%s\t%s" % (d, int(p["peak_reserved_at_ns"]) + origin,
                                          p["reserved_op"] or "-", p["reserved_module"] or "-"))
    for a in largest.get(d, []):
        print("largest\t%s\t%s\t%d\t%d\t%s" % (d, a["bytes"], int(a["allocated_ns"]) + origin,
                                             int(a["freed_ns"]) + origin if a["freed_ns"] else -1,
                                             a["op"] or "-"))
