#!/usr/bin/env python3
"""Extract every distinct GPU kernel / GPU activity name from the sample traces.

Usage:
    tools/extract_kernel_names.py [TRACE_ROOT] [--by-source] [--sources]

TRACE_ROOT defaults to tests/data/real.

Default output (stdout): the distinct *normalised* names, one per line, sorted
(byte order of the UTF-8 text), no categories.  These are the names that
tests/data/kernel_names_expected.tsv must cover; categories are assigned by hand.

--by-source  prints "<count>\t<source>" for each source (distinct names per source)
--sources    prints "<name>\t<source1,source2,...>" instead of bare names
--missing=TSV  prints only the names that have no line in TSV (expected_category<TAB>name),
             e.g. tests/data/kernel_names_expected.tsv, so new trace names can be labelled

Normalisation is the one dcutop applies before matching (CATEGORIES.md section 2):
    s/\\s*\\[clone \\.kd\\]$//   then   s/\\.kd$//
Names that contain a TAB or newline cannot be written to the TSV; they are
skipped and reported on stderr.

What is read (python3 stdlib only):
  * rocprof v1 results.csv            KernelName column
  * rocprof v1 results.stats.csv       Name column (pre-ROCm-5.3 files are unquoted and
                                      names contain commas: the last 4 fields are numbers)
  * rocprof v1 results.copy_stats.csv  Name column (GPU copy records)
  * rocprof v1 results.json            'X' events of the GPU<n> and COPY processes
  * rocprof v1 results.db              KERN/A.KernelName, OPS.Name, COPY.Name (ROCm 5.3+
                                      files store the name still CSV-quoted; the quotes
                                      are removed before normalising)
  * rocpd DB (rocprofv3)              kernels.name, kernel_symbols.{kernel_name, display_name,
                                      formatted_kernel_name, demangled_kernel_name,
                                      truncated_kernel_name}, memory_copies.name
  * rocprofv3 CSVs                    Kernel_Name column of any CSV; Direction column of
                                      memory_copy_trace.csv
  * PyTorch/Kineto *.json.gz          events with cat kernel, gpu_memcpy, gpu_memset
  * climate_oracle.json               every "name" in the kernel lists
Host-side API tables (HIP/HSA API traces, *hip_stats.csv, rocTX/markers) are not
GPU activity and are not read.
"""
import csv
import gzip
import json
import os
import re
import sqlite3
import sys

DEFAULT_ROOT = "tests/data/real"

_CLONE_KD = re.compile(r"\s*\[clone \.kd\]$")
_KD = re.compile(r"\.kd$")


def normalise(name):
    name = _CLONE_KD.sub("", name)
    name = _KD.sub("", name)
    return name


class Collector:
    def __init__(self, root):
        self.root = root
        self.by_source = {}  # source -> set(names)
        self.skipped = []

    def add(self, path, what, name):
        if name is None:
            return
        if not isinstance(name, str):
            name = str(name)
        name = normalise(name)
        if name == "":
            return
        src = os.path.relpath(path, self.root) + ("" if not what else ":" + what)
        if "\t" in name or "\n" in name or "\r" in name:
            self.skipped.append((src, name))
            return
        self.by_source.setdefault(src, set()).add(name)


# ---------------------------------------------------------------- CSV helpers

def read_csv_rows(path):
    with open(path, newline="", encoding="utf-8", errors="surrogateescape") as f:
        return list(csv.reader(f))


def stats_csv(col, path):
    """rocprof v1 *stats.csv: "Name","Calls","TotalDurationNs","AverageNs","Percentage".

    Old (pre-5.3) files do not quote the name although it contains commas; the
    last four fields are always numbers, so take everything before them.
    """
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        lines = f.read().splitlines()
    if not lines:
        return
    for line in lines[1:]:
        if not line.strip():
            continue
        if line.startswith('"'):
            row = next(csv.reader([line]))
            if len(row) == 5:
                col.add(path, "Name", row[0])
                continue
        parts = line.rsplit(",", 4)
        col.add(path, "Name", parts[0])


def generic_csv(col, path):
    rows = read_csv_rows(path)
    if not rows:
        return
    hdr = rows[0]
    base = os.path.basename(path)
    for colname in ("KernelName", "Kernel_Name"):
        if colname in hdr:
            i = hdr.index(colname)
            for r in rows[1:]:
                if len(r) > i:
                    col.add(path, colname, r[i])
    if base == "memory_copy_trace.csv" and "Direction" in hdr:
        i = hdr.index("Direction")
        for r in rows[1:]:
            if len(r) > i:
                col.add(path, "Direction", r[i])


# ---------------------------------------------------------------- JSON

def rocprof_v1_json(col, path):
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        d = json.load(f)
    ev = d["traceEvents"] if isinstance(d, dict) else d
    gpu_pids = set()
    for e in ev:
        if e.get("ph") == "M" and e.get("name") == "process_name":
            pname = (e.get("args") or {}).get("name", "")
            if re.fullmatch(r"GPU\d+|COPY", pname):
                gpu_pids.add(str(e.get("pid")))
    for e in ev:
        if e.get("ph") == "X" and str(e.get("pid")) in gpu_pids:
            col.add(path, "X", e.get("name"))


def kineto_json(col, path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", errors="surrogateescape") as f:
        d = json.load(f)
    ev = d["traceEvents"] if isinstance(d, dict) else d
    for e in ev:
        cat = e.get("cat")
        if cat in ("kernel", "gpu_memcpy", "gpu_memset"):
            col.add(path, cat, e.get("name"))


def oracle_json(col, path):
    with open(path, encoding="utf-8") as f:
        d = json.load(f)

    def walk(o):
        if isinstance(o, dict):
            for k, v in o.items():
                if k == "kernels" and isinstance(v, list):
                    for it in v:
                        if isinstance(it, dict) and "name" in it:
                            col.add(path, "kernels", it["name"])
                else:
                    walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)

    walk(d)


# ---------------------------------------------------------------- SQLite

def sqlite_db(col, path):
    con = sqlite3.connect("file:" + path + "?mode=ro", uri=True)
    con.text_factory = lambda b: b.decode("utf-8", "surrogateescape")
    objs = {n: t for n, t in con.execute("select name, type from sqlite_master")}

    def cols(tbl):
        return [r[1] for r in con.execute('pragma table_info("%s")' % tbl)]

    def take(tbl, c, unquote=False):
        if tbl in objs and c in cols(tbl):
            for (v,) in con.execute('select distinct "%s" from "%s"' % (c, tbl)):
                if unquote and isinstance(v, str) and len(v) >= 2 and v[0] == '"' and v[-1] == '"':
                    # rocprof v1 (ROCm 5.3+) results.db keeps the CSV quoting:
                    # the stored text is "\"name [clone .kd]\"".  Undo it (and "" -> ").
                    v = v[1:-1].replace('""', '"')
                col.add(path, tbl + "." + c, v)

    if "kernels" in objs and objs["kernels"] == "view":
        # rocpd (rocprofv3) database
        take("kernels", "name")
        for c in ("kernel_name", "display_name", "formatted_kernel_name",
                  "demangled_kernel_name", "truncated_kernel_name"):
            take("kernel_symbols", c)
        take("memory_copies", "name")
    else:
        # rocprof v1 results.db
        take("KERN", "KernelName", unquote=True)
        take("A", "KernelName", unquote=True)
        take("OPS", "Name", unquote=True)
        take("COPY", "Name", unquote=True)
    con.close()


# ---------------------------------------------------------------- driver

SKIP_CSV = re.compile(r"(hip_stats|hsa_stats|kfd_stats|_api_stats|_api_trace|hip_runtime_trace|"
                      r"hip_compile_trace|marker_api_trace)\.csv$")


def collect(root):
    col = Collector(root)
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for fn in sorted(filenames):
            p = os.path.join(dirpath, fn)
            if fn.endswith(".csv"):
                if SKIP_CSV.search(fn):
                    continue
                if fn.endswith("stats.csv"):
                    stats_csv(col, p)
                else:
                    generic_csv(col, p)
            elif fn.endswith(".db"):
                sqlite_db(col, p)
            elif fn.endswith(".json.gz"):
                kineto_json(col, p)
            elif fn == "climate_oracle.json" or fn.endswith("_oracle.json"):
                oracle_json(col, p)
            elif fn.endswith(".json"):
                rocprof_v1_json(col, p)
    return col


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    flags = {a for a in argv[1:] if a.startswith("--")}
    root = args[0] if args else DEFAULT_ROOT
    col = collect(root)
    for src, name in col.skipped:
        sys.stderr.write("skipped (TAB/newline in name) from %s: %r\n" % (src, name))
    out = sys.stdout
    if "--by-source" in flags:
        for src in sorted(col.by_source):
            out.write("%d\t%s\n" % (len(col.by_source[src]), src))
        allnames = set().union(*col.by_source.values()) if col.by_source else set()
        out.write("%d\tTOTAL distinct\n" % len(allnames))
        return 0
    known = None
    for f in flags:
        if f.startswith("--missing="):
            known = set()
            with open(f[len("--missing="):], encoding="utf-8", errors="surrogateescape") as tf:
                for line in tf:
                    line = line.rstrip("\n")
                    if line and not line.startswith("#") and "\t" in line:
                        known.add(line.split("\t", 1)[1])
    where = {}
    for src, names in col.by_source.items():
        for n in names:
            where.setdefault(n, []).append(src)
    for n in sorted(where, key=lambda s: s.encode("utf-8", "surrogateescape")):
        if known is not None and n in known:
            continue
        if "--sources" in flags:
            out.write("%s\t%s\n" % (n, ",".join(sorted(where[n]))))
        else:
            out.write(n + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
