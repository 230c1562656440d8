#!/usr/bin/env python3
"""idle_gap_compare.py - compares dcutop's idle gap tables with idle_gap_oracle.py's output,
for test_idle_one.sh. Usage:
  idle_gap_compare.py gaps ORACLE.tsv IDLE_GAPS.csv   every row of --export idle-gaps: one per
      gap and activity, its total, the gap's start from the trace start and abs_start_ns
  idle_gap_compare.py top ORACLE.tsv TOP.csv          the largest-gaps rows (--view idle's
      idle_top_gaps, the report's idle_causes_top_gaps): start, gap, cause, main activity
      and its time
Prints the first differences (at most 5) and exits 1 when there are any."""
import csv
import sys


def oracle(path):
    gaps, host = {}, {}
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if f[0] == "gap":
            gaps[int(f[1])] = (int(f[2]), int(f[3]), f[4], f[5], int(f[6]))
        else:
            host.setdefault(int(f[1]), {})[f[2]] = int(f[3])
    return gaps, host


def main():
    mode, opath, dpath = sys.argv[1:4]
    gaps, host = oracle(opath)
    rows = list(csv.DictReader(open(dpath, newline="")))
    bad = []
    if mode == "gaps":
        got = {}
        for r in rows:
            a = int(r["abs_start_ns"])
            key = (a, r["host_activity"])
            if key in got:
                bad.append(f"two rows for {key}")
            got[key] = int(r["host_ns"])
            g = gaps.get(a)
            if not g or int(r["gap_start_ns"]) != g[0] or int(r["gap_ns"]) != g[1] \
                    or r["cause"] != g[2]:
                bad.append(f"gap at {a}: {r['gap_start_ns']} {r['gap_ns']} {r['cause']} vs {g}")
        want = {(a, n): t for a, d in host.items() for n, t in d.items()}
        for k in sorted(set(want) | set(got)):
            if want.get(k) != got.get(k):
                bad.append(f"{k}: dcutop {got.get(k)}, oracle {want.get(k)}")
    else:
        order = sorted(gaps.items(), key=lambda kv: (-kv[1][1], kv[0]))
        for r, (a, g) in zip(rows, order):
            d = (int(r["gap_start_ns"]), int(r["gap_ns"]), r["cause"], r["host_activity"],
                 int(r["host_ns"]))
            if d != g or int(r["abs_start_ns"]) != a:
                bad.append(f"row {d} abs {r['abs_start_ns']} vs oracle {g} abs {a}")
        if not rows:
            bad.append("no rows")
    for b in bad[:5]:
        print("#  ", b)
    sys.exit(1 if bad else 0)


main()
