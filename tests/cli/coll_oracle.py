#!/usr/bin/env python3
"""coll_oracle.py DCUTOP_EXPORT.csv TRACE... - recomputes every collective of a multi-rank
PyTorch (Kineto) job from the raw JSON, independently of dcutop, and compares it with dcutop's
--export collectives: bytes, first and last arrival, skew, last rank, latency, algbw, busbw,
end spread.
Prints one line per difference and "ok N" when all agree (exit 0), else exits 1.
Also writes, with --buckets, per (type, power-of-two size) the median bus bandwidth and with
--last the count of last arrivals per rank, for the test to compare with dcutop's report.

The oracle's own reading of the rules (collectives.h): rank = distributedInfo.rank; the args
from the kernel, else from the record_param_comms with the same External id; bytes =
max(In, Out msg nelems) x dtype size; a collective = the k-th of its process group on each
rank, by kernel start; latency = the shortest duration; busbw = bytes / latency x the
nccl-tests factor of its Group size."""
import csv, gzip, json, statistics, sys
from decimal import Decimal

SIZES = {"float": 4, "bfloat16": 2, "half": 2, "double": 8, "int": 4, "long": 8}


def typ(name):
    n = name.lower().replace("_", "")
    for key, t in (("reducescatter", "reduce_scatter"), ("allreduce", "all_reduce"),
                   ("allgather", "all_gather"), ("alltoall", "all_to_all"),
                   ("broadcast", "broadcast"), ("reduce", "reduce")):
        if key in n:
            return t
    return "other"


def factor(t, n):
    if t == "all_reduce":
        return 2.0 * (n - 1) / n
    if t in ("all_gather", "reduce_scatter", "all_to_all"):
        return (n - 1) / n
    return 1.0


def ns(x):
    return int(Decimal(str(x)) * 1000)


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        return json.load(f, parse_float=Decimal)


def rows(paths):
    out = []
    for p in paths:
        d = load(p)
        rank = int(d["distributedInfo"]["rank"])
        host = {}
        for e in d["traceEvents"]:
            if e.get("cat") == "cpu_op" and e.get("name") == "record_param_comms":
                host.setdefault(e["args"]["External id"], e["args"])
        for e in d["traceEvents"]:
            a = e.get("args", {})
            if e.get("cat") != "kernel" or not (
                    "Collective name" in a or e["name"].lower().startswith("nccl")):
                continue
            if "Collective name" not in a:
                a = host[a["External id"]]
            start = ns(e["ts"])
            out.append(dict(rank=rank, pg=a["Process Group Name"], type=typ(a["Collective name"]),
                            bytes=max(a["In msg nelems"], a["Out msg nelems"]) *
                            SIZES[a["dtype"].lower()], n=a["Group size"], start=start,
                            end=start + ns(e["dur"])))
    inst = {}
    for pg in sorted({r["pg"] for r in out}):
        for rank in sorted({r["rank"] for r in out if r["pg"] == pg}):
            mine = sorted((r for r in out if r["pg"] == pg and r["rank"] == rank),
                          key=lambda r: r["start"])
            for k, r in enumerate(mine):
                inst.setdefault((pg, k), []).append(r)
    res = {}
    for key, rs in inst.items():
        first = min(r["start"] for r in rs)
        last = max(r["start"] for r in rs)
        lat = min(r["end"] - r["start"] for r in rs)
        b = rs[0]["bytes"]
        alg = b / lat
        res[key] = dict(type=rs[0]["type"], bytes=b, first=first, last=last, skew=last - first,
                        last_rank=min(r["rank"] for r in rs if r["start"] == last)
                        if last > first else "", latency=lat,
                        algbw=alg, busbw=alg * factor(rs[0]["type"], rs[0]["n"]),
                        ranks=[r["rank"] for r in rs],
                        end_spread=max(r["end"] for r in rs) - min(r["end"] for r in rs))
    return res


def main():
    args = sys.argv[1:]
    mode = None
    if args[0] in ("--buckets", "--last"):
        mode = args.pop(0)
    res = rows(args[1:])
    if mode == "--buckets":
        b = {}
        for v in res.values():
            b.setdefault((v["type"], v["bytes"].bit_length() - 1), []).append(v["busbw"])
        for (t, k), v in sorted(b.items()):
            print("%s %d %d %.2f" % (t, k, len(v), statistics.median(v)))
        return 0
    if mode == "--last":
        c = {}
        for v in res.values():
            if v["last_rank"] != "":
                c[v["last_rank"]] = c.get(v["last_rank"], 0) + 1
        for r, k in sorted(c.items()):
            print(r, k)
        return 0
    bad = 0
    seen = 0
    with open(args[0], newline="") as f:
        for row in csv.DictReader(f):
            seen += 1
            v = res.get((row["process_group"], int(row["seq"])))
            if v is None:
                print("dcutop has %s/%s, the oracle does not" % (row["process_group"], row["seq"]))
                bad += 1
                continue
            want = dict(type=v["type"], bytes=str(v["bytes"]), first_arrival_ns=str(v["first"]),
                        last_arrival_ns=str(v["last"]), skew_ns=str(v["skew"]),
                        last_rank=str(v["last_rank"]), latency_ns=str(v["latency"]),
                        ranks=str(len(v["ranks"])), end_spread_ns=str(v["end_spread"]))
            for k, w in want.items():
                if row[k] != w:
                    print("%s/%s %s: dcutop %s, oracle %s" % (row["process_group"], row["seq"],
                                                              k, row[k], w))
                    bad += 1
            for k in ("algbw", "busbw"):
                got = float(row[k + "_gbps"])
                if abs(got - v[k]) > 1e-6 * max(1.0, v[k]):
                    print("%s/%s %s: dcutop %s, oracle %.6f" % (row["process_group"], row["seq"],
                                                                k, row[k + "_gbps"], v[k]))
                    bad += 1
    if seen != len(res):
        print("dcutop has %d collectives, the oracle %d" % (seen, len(res)))
        bad += 1
    if bad:
        return 1
    print("ok %d" % seen)
    return 0


sys.exit(main())
