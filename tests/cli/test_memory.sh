#!/bin/sh
# test_memory.sh - device memory over time: PyTorch's '[memory]' events (profile_memory=True)
# and rocpd's allocations (mem_event, --view memory, --export memory, the report's section).
# Every figure is compared with memory_oracle.py, which reads the raw trace on its own.
. tests/cli/lib.sh
ORACLE=tests/cli/memory_oracle.py

# peaks, reserved - allocated at the peak, the op and module live at each peak and the 10
# largest allocations per device, dcutop's (memory_got.py puts them in the oracle's form) = the oracle's
compare() { # NAME TRACE_FILE DIR
    python3 "$ORACLE" "$2" 10 >"$TMP/o.txt"
    "$DCUTOP" -q --report --view memory --format csv -o "$TMP/r.csv" --force "$3"
    "$DCUTOP" -q --export memory -o "$TMP/e.csv" --force "$3"
    python3 tests/cli/memory_got.py "$TMP/r.csv" "$TMP/e.csv" >"$TMP/d.txt" 2>&1
    for what in peak unused reserved rpeak largest; do
        same "$1: $what per device = the raw events'" "$(grep "^$what" "$TMP/o.txt")" \
            "$(grep "^$what" "$TMP/d.txt")"
    done
}
# the op and module path of every event = the oracle's (cpu_op / nn.Module spans on its thread)
every_event() { # NAME TRACE_FILE DIR
    python3 "$ORACLE" "$2" 1 events | sort -n >"$TMP/oe.txt"
    "$DCUTOP" -q --export memory "$3" | python3 -c '
import csv, sys
for r in csv.DictReader(sys.stdin):
    print("%s\t%s\t%s" % (r["event"], r["op"] or "-", r["module"] or "-"))' | sort -n >"$TMP/de.txt"
    check "$1: op and module path of each of the $(wc -l <"$TMP/oe.txt") events = the raw events'" \
        cmp -s "$TMP/oe.txt" "$TMP/de.txt"
}

GPT=$REAL/pytorch-h100-gpt-train
compare gpt-train "$GPT/gpt_train.trace.json.gz" "$GPT"
every_event gpt-train "$GPT/gpt_train.trace.json.gz" "$GPT"
same "gpt-train: peak allocated on GPU 0 is its README's 866,446,336 B (reserved 962,592,768)" \
    "866446336 962592768" "$(awk -F'\t' '$1 == "peak" && $2 == 0 {print $3, $5}' "$TMP/d.txt")"
same "gpt-train: one export row per [memory] event (README: 2,442)" 2442 \
    "$(python3 -c 'import csv, sys; print(sum(1 for _ in csv.DictReader(open(sys.argv[1]))))' \
        "$TMP/e.csv")"
# running totals: each row's allocated is the previous one's plus its bytes (PyTorch's own sums)
same "gpt-train: running totals add up per device" "0" "$(python3 - "$TMP/e.csv" <<'PY'
import csv, sys
last, bad = {}, 0
for r in csv.DictReader(open(sys.argv[1])):
    d, a = r["device"], int(r["total_allocated"])
    if d in last and last[d] + int(r["bytes"]) != a:
        bad += 1
    last[d] = a
print(bad)
PY
)"
A1=$REAL/pytorch-h100-abba-regress/A1
compare abba-A1 "$A1/A1.trace.json.gz" "$A1"
every_event abba-A1 "$A1/A1.trace.json.gz" "$A1"
SMI=$REAL/pytorch-h100-smi-contention
compare smi-contention "$SMI/gpt_contention.trace.json.gz" "$SMI"
# a ROCm trace (MI300): its device events say Device Type 6 (HIP), not 1
QWEN=$REAL/pytorch-kineto-mi300-qwen
compare qwen-mi300 "$QWEN/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz" "$QWEN"
every_event qwen-mi300 "$QWEN/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz" "$QWEN"
same "qwen-mi300: its HIP events (Device Type 6) count on device 0" "6 0 2588" \
    "$("$DCUTOP" --sql "SELECT device_type, device, count(*) FROM mem_event WHERE device >= 0
        GROUP BY 1, 2" "$QWEN" | sed -n 3p | tr -s ' ' | sed 's/^ //')"

# each run's own peaks (what the A-B-B-A reads through Memory_peaks): the four runs of an
# A-B-B-A loaded together, each = the oracle over its own trace
"$DCUTOP" -q --run all --report --view memory --format csv "$REAL/pytorch-h100-abba-regress" \
    >"$TMP/runs.csv"
for r in A1 B1 B2 A2; do
    python3 "$ORACLE" "$REAL/pytorch-h100-abba-regress/$r/$r.trace.json.gz" 1 |
        awk -F'\t' '$1 == "peak" || $1 == "reserved" {print $1, $2, $3}' | sort >"$TMP/want.$r"
    python3 - "$TMP/runs.csv" "$r" <<'PY' | sort >"$TMP/got.$r"
import csv, io, sys
t = open(sys.argv[1], newline="").read().split("# memory_peaks\r\n")[1].split("\r\n\r\n")[0]
for p in csv.DictReader(io.StringIO(t)):
    if p["run"] == sys.argv[2]:
        print("peak", p["device"], p["peak_allocated"])
        print("reserved", p["device"], p["peak_reserved"] or "-")
PY
    same "abba-regress run $r: its own peaks per device, all runs loaded together" \
        "$(cat "$TMP/want.$r")" "$(cat "$TMP/got.$r")"
done

# the same events when a plain trace is parsed in chunks by several threads
mkdir -p "$TMP/plain"
gzip -dc "$GPT/gpt_train.trace.json.gz" >"$TMP/plain/gpt_train.trace.json"
"$DCUTOP" -q --threads 1 --export memory "$TMP/plain" >"$TMP/t1.csv"
DCUTOP_JSON_CHUNK_BYTES=20000 "$DCUTOP" -q --threads 4 --export memory "$TMP/plain" >"$TMP/t4.csv"
same "threads: 4 threads over 20 kB chunks give the serial read's 2,442 events" \
    "2443 $(md5sum <"$TMP/t1.csv")" "$(wc -l <"$TMP/t4.csv") $(md5sum <"$TMP/t4.csv")"

# the text report: the section, with what the figures are not
"$DCUTOP" -q --report --width 160 "$GPT" >"$TMP/report.txt"
check "report: a memory section where memory events exist" \
    grep -q "^Peak allocated and reserved bytes per device" "$TMP/report.txt"
check "report: says the allocator's figures are not the device's used memory" \
    grep -q "caching allocator's own figures" "$TMP/report.txt"
check "report: the op at the GPU peak" grep -q " 826.3 MiB .*aten::nll_loss_forward" "$TMP/report.txt"
check "report: the call stack at the GPU peak" \
    grep -q "Call stack at the peak of pytorch-h100-gpt-train device 0 (innermost first): <built-in function" \
    "$TMP/report.txt"
"$DCUTOP" -q --report sample-traces >"$TMP/nomem.txt" 2>&1
check "report: no memory section without memory events" \
    sh -c '! grep -q "Peak allocated and reserved" "$1"' sh "$TMP/nomem.txt"
printf ':dump summary\n' >"$TMP/summary.keys"
"$DCUTOP" --headless --size 110x70 --keys "$TMP/summary.keys" "$GPT" >"$TMP/summary.txt" 2>&1
check "Summary screen: the GPU's peak, reserved and op" grep -q \
    "Memory peak    device 0: 826.3 MiB allocated, 918.0 MiB reserved, in aten::nll_loss_forward" \
    "$TMP/summary.txt"
check "Summary screen: says they are the allocator's figures" \
    grep -q "the allocator's figures; the device's used memory is more" "$TMP/summary.txt"
"$DCUTOP" -q --report --view memory --format json "$GPT" >"$TMP/r.json"
same "json: peaks per device" "-1 105112
0 866446336" "$(python3 -c '
import json, sys
for p in json.load(open(sys.argv[1]))["memory_peaks"]:
    print(p["device"], p["peak_allocated"])' "$TMP/r.json")"

# rocpd allocations on the same timeline: the real rocprofv3 sample (kernel-only) with
# allocations added the way rocprofv3 stores them, on two agents; a FREE names no size; the
# scratch block is not device memory held by allocation calls
V3=$TMP/v3/32432_results.db
mkdir -p "$TMP/v3"
cp "$REAL/llamacpp-rocprofv3-rocpd/32432_results.db" "$V3"
python3 - "$V3" <<'PY'
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, "tests/tools")
from rocpd_enrich import Rocpd, T0 as t0
r = Rocpd(sys.argv[1])
rows = (("ALLOC", "REAL", 1, 0xA000, 1 << 20), ("ALLOC", "REAL", 2, 0xB000, 2 << 20),
        ("ALLOC", "REAL", 1, 0xC000, 8 << 20), ("FREE", "REAL", 1, 0xA000, 0),
        ("ALLOC", "SCRATCH", 1, 0xD000, 64 << 20), ("ALLOC", "REAL", 2, 0xE000, 4 << 20),
        ("FREE", "REAL", 1, 0xC000, 0), ("ALLOC", "REAL", 1, 0xF000, 3 << 20))
for i, (op, level, agent, addr, size) in enumerate(rows):
    e = r.event("MEMORY_ALLOCATION", 300 + i)
    r.db.execute("INSERT INTO rocpd_memory_allocate%s(guid, nid, pid, tid, agent_id, type, level,"
                 " start, end, address, size, queue_id, stream_id, event_id) VALUES(?, 3289078373,"
                 " 32432, 32432, ?, ?, ?, ?, ?, ?, ?, 1, 1, ?)" % r.u,
                 (r.g, agent, op, level, t0 + 100 * i, t0 + 100 * i + 10, addr, size, e))
r.db.commit()
PY
# independent: per agent, the bytes each REAL operation adds or frees and the live bytes after
python3 - "$V3" >"$TMP/rocpd.want" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
live, size = {}, {}
for agent, op, level, addr, n in db.execute(
        "SELECT agent_abs_index, type, level, address, size FROM memory_allocations ORDER BY start"):
    if level != "REAL":
        continue
    d = n if op == "ALLOC" else -size.pop(addr)
    size[addr] = n if op == "ALLOC" else size.get(addr)
    live[agent] = live.get(agent, 0) + d
    print(agent, d, live[agent])
PY
"$DCUTOP" -q --export memory "$V3" | python3 -c '
import csv, sys
for r in csv.DictReader(sys.stdin):
    print(r["device"], r["bytes"], r["total_allocated"])' >"$TMP/rocpd.got"
same "rocpd: each allocation and free on its agent's timeline, with the live bytes after it" \
    "$(cat "$TMP/rocpd.want")" "$(cat "$TMP/rocpd.got")"
"$DCUTOP" -q --report --view memory --format csv "$V3" >"$TMP/rocpd.csv"
same "rocpd: the peak per agent (agent 1: 1 + 8 MiB; agent 2: 2 + 4 MiB), no reserved figure" \
    "1 9437184 
2 6291456 " "$(python3 -c '
import csv, io, sys
t = open(sys.argv[1], newline="").read().split("# memory_peaks\r\n")[1].split("\r\n\r\n")[0]
for r in csv.DictReader(io.StringIO(t)):
    print(r["device"], r["peak_allocated"], r["peak_reserved"])' "$TMP/rocpd.csv")"

# bad and truncated memory events: a message with the file and the event number, the rest loads
mkdir -p "$TMP/bad"
python3 - "$TMP/bad/bad.json" <<'PY'
import json, sys
def mem(ts, b, alloc, **kw):
    a = {"Total Reserved": 2097152, "Total Allocated": alloc, "Bytes": b, "Device Id": 0,
         "Device Type": 1, "Addr": 4096}
    a.update(kw)
    return {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1,
            "tid": 1, "ts": ts, "args": a}
ev = [{"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 1, "tid": 1, "ts": 100,
       "dur": 50},
      mem(110, 1024, 1024),                      # 2: good
      mem(111, "abc", 1024),                     # 3: Bytes not a number
      mem(112, 512, 1536, **{"Device Id": None}),  # 4: no Device Id on a device
      mem(-5, 512, 1536),                        # 5: negative ts
      mem(113, 2 ** 60, 1536),                   # 6: Bytes past 2^53
      mem(160, -1024, 0)]                        # 7: good, after the op
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
"$DCUTOP" -q --export memory "$TMP/bad" >"$TMP/bad.csv" 2>"$TMP/bad.err"
"$DCUTOP" --sql "SELECT message FROM load_message ORDER BY id" "$TMP/bad" >"$TMP/bad.msg" 2>&1
for m in "event 3: \[memory\] event not used: Bytes is not a number" \
    "event 4: \[memory\] event not used: no Device Id" "event 5: ts is negative" \
    "event 6: \[memory\] event not used: Bytes is out of range"; do
    check "bad events: '$m'" grep -q "$m" "$TMP/bad.msg"
done
same "bad events: the good ones load (op aten::empty inside it, none after it)" \
    "2,1024,aten::empty
7,-1024," "$(python3 -c '
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print("%s,%s,%s" % (r["event"], r["bytes"], r["op"]))' "$TMP/bad.csv")"
"$DCUTOP" -q --report "$TMP/bad" 2>&1 | grep -q "bad.json.*event 3" &&
    ok "bad events: the report's load messages name the file and the event" ||
    notok "bad events: the report's load messages name the file and the event"
mkdir -p "$TMP/cut"
head -c "$(($(wc -c <"$TMP/bad/bad.json") - 60))" "$TMP/bad/bad.json" >"$TMP/cut/cut.json"
"$DCUTOP" -q --export memory "$TMP/cut" >"$TMP/cut.csv" 2>/dev/null
same "truncated trace: the memory events before the cut load" "2" \
    "$(python3 -c 'import csv, sys; print(",".join(r["event"] for r in csv.DictReader(open(sys.argv[1]))))' \
        "$TMP/cut.csv")"
"$DCUTOP" --sql "SELECT message FROM load_message" "$TMP/cut" 2>&1 | grep -q "events before it are kept" &&
    ok "truncated trace: the cut is said" || notok "truncated trace: the cut is said"
