#!/usr/bin/env python3
"""idle_oracle_raw.py - an independent reading of the idle causes for test_idle.sh on traces
that are SQLite files: an RPD (rocpd_op / rocpd_api / rocpd_api_ops) and a rocprof v1
results.db (OPS / HIP / COPY, the call and its op sharing an Index). It reads the raw tables
with Python's sqlite3 module, none of dcutop's code. Per device: the idle intervals of the run
span (the first start to the last end of the kernels, copies and fills) outside the union over
its queues of the kernels and, in an RPD, of the copies and fills the device ran
(CopyHostToDevice, CopyDeviceToHost, CopyDeviceToDevice, FillBuffer: busy as HTA counts it;
those of no length left out; a device that ran only copies is listed; rocprof's zero-length barrier packets, "Unknown command type", are not kernels, and
a results.db's COPY rows have no device: left out), each classified by the next such event's
launch call: sync (a synchronising call on the launching thread overlaps the interval
and ended by the launch: the *Synchronize calls, hipMemcpyDtoH, or a blocking hipMemcpy /
hipMemcpyWithStream whose copy is device to host or not traced), host-bound (launch started
after the device went idle), launch-overhead (launched before), unknown (no next event, or
no launch call). Prints "device<TAB>cause<TAB>gaps<TAB>ns", then "idle<TAB>device<TAB>ns".
Usage: idle_oracle_raw.py FILE.rpd|results.db"""
import collections
import sqlite3
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from idle_causes import print_causes  # noqa: E402 (beside this file)

SYNC = {"hipDeviceSynchronize", "hipStreamSynchronize", "hipEventSynchronize",
        "hipCtxSynchronize", "hipMemcpyDtoH"}
BLOCKING = {"hipMemcpy", "hipMemcpyWithStream"}
COPIES = {"CopyHostToDevice", "CopyDeviceToHost", "CopyDeviceToDevice", "FillBuffer"}


def rpd(db):
    """kernels (device, start, end, call), calls [(name, start, end, tid, copy kind)]"""
    s = dict(db.execute("SELECT id, string FROM rocpd_string"))
    ops = {i: (g, b, e, s[t]) for i, g, b, e, t in
           db.execute("SELECT id, gpuId, start, end, opType_id FROM rocpd_op")}
    api = {i: (s[n], b, e, t) for i, n, b, e, t in
           db.execute("SELECT id, apiName_id, start, end, tid FROM rocpd_api")}
    op_call, call_ops = {}, collections.defaultdict(list)
    for a, o in db.execute("SELECT api_id, op_id FROM rocpd_api_ops ORDER BY api_id"):
        op_call.setdefault(o, a)
        call_ops[a].append(ops[o][3])
    kern = [(g, b, e, api.get(op_call.get(i))) for i, (g, b, e, t) in ops.items()
            if t == "KernelExecution"]
    busy = [(g, b, e, api.get(op_call.get(i))) for i, (g, b, e, t) in ops.items()
            if t in COPIES]
    calls = [(n, b, e, t, call_ops.get(i)) for i, (n, b, e, t) in api.items()]
    return kern, busy, calls


def rocprof_v1(db):
    hip = {}
    for n, b, e, t, ix in db.execute('SELECT Name, BeginNs, EndNs, tid, "Index" FROM HIP'):
        hip.setdefault(ix, (n, b, e, t))
    copies = collections.defaultdict(list)
    for ix, n in db.execute('SELECT "Index", Name FROM COPY'):
        copies[ix].append(n)
    kern = [(d, b, e, hip.get(ix)) for d, b, e, ix, n in
            db.execute('SELECT "dev-id", BeginNs, EndNs, "Index", Name FROM OPS')
            if n != "Unknown command type"]
    calls = [(n, b, e, t, copies.get(ix)) for n, b, e, t, ix in
             db.execute('SELECT Name, BeginNs, EndNs, tid, "Index" FROM HIP')]
    return kern, [], calls


def main():
    db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
    kern, busy, calls = rpd(db) if "rocpd_op" in tables else rocprof_v1(db)
    syncs = collections.defaultdict(list)
    for n, b, e, t, ops in calls:
        d2h = n in BLOCKING and (not ops or any("DeviceToHost" in o for o in ops))
        if n in SYNC or d2h:
            syncs[t].append((b, e))
    # the call is (name, start, end, tid); syncs are per tid
    print_causes(kern, busy, lambda k: (k[1], k[3]) if k else None, lambda t: syncs[t])


main()
