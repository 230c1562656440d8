#!/usr/bin/env python3
"""gen_collectives.py OUTDIR - writes a generated 8-rank job, one Kineto JSON per rank, whose
collectives carry PyTorch's args (record_param_comms and the NCCL kernel), for
tests/cli/test_collectives.sh. Planted:
  group "0" (ranks 0-7): 12 collectives (all_reduce Float, all_gather BFloat16,
    reduce_scatter Float, broadcast Half in turn); rank 5 arrives last at each, 2 ms + 10 us x seq
    after the first rank (rank 0; the others 7 us x rank after it); every rank's kernel ends
    when the transfer ends, so the shortest duration (rank 5's) is the transfer, taken at a bus
    bandwidth of 100 GB/s;
  group "1" (ranks 0-3, "tp_group"): 6 all_reduce; rank 2 arrives last, 500 us after rank 0,
    bus bandwidth 50 GB/s;
  rank 7's kernels carry no collective args: they come from its record_param_comms, joined by
    External id;
  at group 0's collective 11, rank 3 says twice the elements the others say (a mismatch).
Times in us with ns precision (3 decimals)."""
import json, os, sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
N = 8
TYPES = [("allreduce", "Float", 4), ("_allgather_base", "BFloat16", 2),
         ("_reduce_scatter_base", "Float", 4), ("broadcast", "Half", 2)]


def factor(kind, n):
    if kind == "allreduce":
        return 2 * (n - 1) / n
    if kind in ("_allgather_base", "_reduce_scatter_base"):
        return (n - 1) / n
    return 1.0


def plan():
    """(group, ranks, seq, kind, dtype, in, out, arrival offsets ns per rank, transfer ns)"""
    items, t = [], 1_000_000_000  # ns
    for s in range(12):
        kind, dtype, size = TYPES[s % 4]
        elems = 1 << (16 + s)  # 64 Ki elements doubling
        inn, outn = elems, elems
        if kind == "_allgather_base":
            inn, outn = elems // N, elems
        if kind == "_reduce_scatter_base":
            inn, outn = elems, elems // N
        nbytes = max(inn, outn) * size
        transfer = round(nbytes * factor(kind, N) / 100.0)  # ns at 100 GB/s bus bandwidth
        arr = {r: 7_000 * r for r in range(N)}
        arr[5] = 2_000_000 + 10_000 * s
        items.append(("0", "default_pg", list(range(N)), s, kind, dtype, inn, outn, t, arr,
                      transfer))
        t += 10_000_000
        if s % 2 == 1:  # the tensor-parallel group, between
            nbytes = (1 << 20) * 4
            transfer = round(nbytes * factor("allreduce", 4) / 50.0)
            arr = {r: 1_000 * r for r in range(4)}
            arr[2] = 500_000
            items.append(("1", "tp_group", [0, 1, 2, 3], s // 2, "allreduce", "Float", 1 << 20,
                          1 << 20, t, arr, transfer))
            t += 10_000_000
    return items


def us(ns):
    return "%d.%03d" % divmod(ns, 1000)


events = {r: [] for r in range(N)}
ext = 1000
for (pg, desc, ranks, seq, kind, dtype, inn, outn, t, arr, transfer) in plan():
    end = t + max(arr.values()) + transfer
    ext += 10
    args = {"Collective name": kind, "In msg nelems": inn, "Out msg nelems": outn,
            "Group size": len(ranks), "dtype": dtype, "Process Group Name": pg,
            "Process Group Description": desc,
            "Process Group Ranks": "[" + ", ".join(map(str, ranks)) + "]"}
    for r in ranks:
        start = t + arr[r]
        if pg == "0" and seq == 11:  # rank 3 says twice the elements: the ranks disagree
            args = dict(args)
            if r == 3:
                args["In msg nelems"], args["Out msg nelems"] = 2 * inn, 2 * outn
            else:
                args["In msg nelems"], args["Out msg nelems"] = inn, outn
        host = dict(args)
        host.update({"External id": ext, "Rank": r})
        events[r].append('{"ph": "X", "cat": "cpu_op", "name": "record_param_comms", '
                         '"pid": %d, "tid": %d, "ts": %s, "dur": 20.000, "args": %s}'
                         % (100 + r, 100 + r, us(start - 50_000), json.dumps(host)))
        kargs = {"External id": ext, "device": r, "stream": 20, "correlation": ext}
        if r != 7:
            kargs.update(args)
        events[r].append('{"ph": "X", "cat": "kernel", "name": '
                         '"ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)", '
                         '"pid": %d, "tid": 20, "ts": %s, "dur": %s, "args": %s}'
                         % (r, us(start), us(end - start), json.dumps(kargs)))
for r in range(N):
    doc = ('{"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": %d, '
           '"world_size": %d}, "traceEvents": [\n%s\n]}\n' % (r, N, ",\n".join(events[r])))
    with open(os.path.join(out, "rank%d.trace.json" % r), "w") as f:
        f.write(doc)
