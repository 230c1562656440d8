#!/usr/bin/env python3
"""raptor_oracle.py FILE... - RAPTOR's VarSum (ROCm rocmProfileData raptor_parser.py,
get_top_df with its defaults) from the raw trace alone, for tests/cli/test_variab.sh. Prints
"NAME VARSUM COMM" per file. An RPD file is read through its own `op` view, as RAPTOR reads
it (opType KernelExecution, CopyDeviceToDevice or Task, ordered by start; RAPTOR's default
region, start between the first API start and the last API end); a Kineto .json(.gz) file
gives its kernels and "Memcpy DtoD" copies (ns as dcutop converts them, ties in file order,
kernels first). Each op is grouped with the names of the two ops before it; the first two
ops are in no group; a group's VarSum is int((mean - min) * calls); COMM sums the groups whose
own op is an NCCL/RCCL kernel."""
import gzip
import json
import os
import sqlite3
import sys


def rpd_ops(path):
    con = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    first, last = con.execute("SELECT min(start), max(end) FROM rocpd_api").fetchone()
    rows = con.execute("SELECT opType, description, start, end FROM op WHERE start >= ? AND"
                       " start <= ? ORDER BY start ASC", (first, last)).fetchall()
    return [(d, max(0, e - s)) for t, d, s, e in rows
            if t in ("KernelExecution", "CopyDeviceToDevice", "Task")]


def kineto_ops(path):
    d = json.load(gzip.open(path) if path.endswith(".gz") else open(path))
    ops = []
    for n, e in enumerate(d["traceEvents"]):
        if e.get("cat") == "kernel" or (e.get("cat") == "gpu_memcpy" and "DtoD" in e["name"]):
            s = round(e["ts"] * 1000)
            ops.append((s, e.get("cat") != "kernel", n, e["name"],
                        max(0, round(e["ts"] * 1000 + e["dur"] * 1000) - s)))
    return [(name, dur) for s, c, n, name, dur in sorted(ops)]


def comm(name):
    low = name.lower()
    return "nccl" in low or "rccl" in low


def varsum(ops):
    groups = {}
    for i in range(2, len(ops)):
        groups.setdefault((ops[i][0], ops[i - 1][0], ops[i - 2][0]), []).append(ops[i][1])
    total = com = 0
    for key, v in groups.items():
        s = int((sum(v) / len(v) - min(v)) * len(v))
        total += s
        com += s if comm(key[0]) else 0
    return total, com


for p in sys.argv[1:]:
    ops = rpd_ops(p) if p.endswith(".rpd") else kineto_ops(p)
    print(os.path.basename(p), *varsum(ops))
