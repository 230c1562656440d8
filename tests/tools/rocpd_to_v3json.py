#!/usr/bin/env python3
"""rocpd_to_v3json.py DB OUT.json - writes the run of a rocpd (schema 3) database as rocprofv3
`--output-format json` would (<pid>_results.json; schema: rocprofiler-sdk
source/docs/rocprofv3-schema.json). No public sample of that form exists: the test builds one
from the shared rocpd sample and checks that both load to the same figures.

Written: metadata (pid, init/fini time), agents (id.handle from rocpd_info_agent.extdata,
node_id = absolute_index), strings.buffer_records (each record kind's name and its operation
names, indexed by kind and operation ids: numbered here in order of first use, not by
rocprofiler-sdk's enum values), strings.marker_api (marker messages keyed by the
internal correlation id), kernel_symbols (kernel_id, kernel_name, register counts) and
buffer_records.{kernel_dispatch, hip_api, hsa_api, marker_api, memory_copy}. Empty arrays for
the sections the schema requires that rocpd does not hold here (counters, code_objects,
callback_records)."""
import json
import sqlite3
import sys


def main(db_path, out_path):
    db = sqlite3.connect(db_path)
    pid = db.execute("SELECT pid FROM kernels LIMIT 1").fetchone()[0]
    kinds = {}  # kind name -> (kind index, {operation name -> index})

    def kind_op(kind, op):
        k = kinds.setdefault(kind, (len(kinds), {}))
        return k[0], k[1].setdefault(op, len(k[1]))

    agents, handle = [], {}
    for aid, absidx, ext in db.execute(
            "SELECT id, absolute_index, extdata FROM rocpd_info_agent ORDER BY id"):
        a = json.loads(ext) if ext else {"id": {"handle": 1000 + aid}}
        a["node_id"] = absidx
        handle[absidx] = a["id"]["handle"]
        agents.append(a)

    def h(absidx):
        return {"handle": handle.get(absidx, absidx)}

    symbols, dispatches = {}, []
    kd = kind_op("KERNEL_DISPATCH", "KERNEL_DISPATCH_COMPLETE")
    for (kid, name, vgpr, sgpr, agent, queue, stream, seq, tid, corr, start, end, gx, gy, gz,
         wx, wy, wz, lds, scratch) in db.execute(
            "SELECT kernel_id, name, vgpr_count, sgpr_count, agent_abs_index, queue_id, "
            "stream_id, dispatch_id, tid, corr_id, start, end, grid_x, grid_y, grid_z, "
            "workgroup_x, workgroup_y, workgroup_z, lds_size, scratch_size FROM kernels "
            "ORDER BY id"):
        symbols.setdefault(kid, {"size": 0, "kernel_id": kid, "code_object_id": 1,
                                 "kernel_name": name, "kernel_object": 0,
                                 "kernarg_segment_size": 0, "kernarg_segment_alignment": 8,
                                 "group_segment_size": lds, "private_segment_size": scratch,
                                 "sgpr_count": sgpr, "arch_vgpr_count": vgpr,
                                 "formatted_kernel_name": name,
                                 "demangled_kernel_name": name,
                                 "truncated_kernel_name": name})
        dispatches.append({
            "size": 0, "kind": kd[0], "operation": kd[1], "thread_id": tid,
            "correlation_id": {"internal": corr, "external": 0},
            "start_timestamp": start, "end_timestamp": end, "stream_id": {"handle": stream},
            "dispatch_info": {"size": 0, "agent_id": h(agent), "queue_id": {"handle": queue},
                              "kernel_id": kid, "dispatch_id": seq,
                              "private_segment_size": scratch, "group_segment_size": lds,
                              "workgroup_size": {"x": wx, "y": wy, "z": wz},
                              "grid_size": {"x": gx, "y": gy, "z": gz}}})

    apis = {"hip_api": [], "hsa_api": [], "marker_api": []}
    messages = []
    for cat, name, tid, corr, start, end in db.execute(
            "SELECT category, name, tid, corr_id, start, end FROM regions ORDER BY id"):
        if cat.upper().startswith("MARKER"):
            arr, op = "marker_api", "roctxRangePushA"
            messages.append({"key": corr, "value": name})
        else:
            arr = "hsa_api" if cat.upper().startswith("HSA") else "hip_api"
            op = name
        k, o = kind_op(cat, op)
        apis[arr].append({"size": 0, "kind": k, "operation": o, "thread_id": tid,
                          "correlation_id": {"internal": corr, "external": 0},
                          "start_timestamp": start, "end_timestamp": end})

    copies = []
    for name, src, dst, size, stream, corr, tid, start, end in db.execute(
            "SELECT name, src_agent_abs_index, dst_agent_abs_index, size, stream_id, corr_id, "
            "tid, start, end FROM memory_copies ORDER BY id"):
        k, o = kind_op("MEMORY_COPY", name)
        copies.append({"size": 0, "kind": k, "operation": o, "thread_id": tid,
                       "correlation_id": {"internal": corr, "external": 0},
                       "start_timestamp": start, "end_timestamp": end,
                       "stream_id": {"handle": stream},
                       "src_agent_id": h(src), "dst_agent_id": h(dst), "bytes": size})

    strings_kinds = [None] * len(kinds)
    for name, (k, ops) in kinds.items():
        names = [None] * len(ops)
        for op, i in ops.items():
            names[i] = op
        strings_kinds[k] = {"kind": name, "operations": names}
    starts = [d["start_timestamp"] for d in dispatches] or [0]
    ends = [d["end_timestamp"] for d in dispatches] or [0]
    proc = {
        "metadata": {"pid": pid, "init_time": min(starts), "fini_time": max(ends)},
        "agents": agents,
        "counters": [],
        "strings": {"callback_records": [], "buffer_records": strings_kinds,
                    "marker_api": messages, "counters": {"dimension_ids": []}},
        "code_objects": [],
        "kernel_symbols": list(symbols.values()),
        "host_functions": [],
        "callback_records": {},
        "buffer_records": dict(kernel_dispatch=dispatches, memory_copy=copies, **apis),
    }
    with open(out_path, "w") as f:
        json.dump({"rocprofiler-sdk-tool": [proc]}, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
