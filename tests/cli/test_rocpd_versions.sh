#!/bin/sh
# test_rocpd_versions.sh - rocpd of any schema version (issue 24). The real rocprofv3 sample
# (schema 3) is migrated into a database built from the rocpd 4.1.0 schema
# (tests/data/rocpd-4.1.0, which renames agent_abs_index, corr_id, lds_size and vgpr_count, moves
# pid/tid/agent/queue/stream behind rocpd_track and writes categories in lower case); both must
# load to the same figures. Before this, 4.1.0 loaded no kernels ("no such column").
. tests/cli/lib.sh
XDG_CONFIG_HOME=$TMP/xdg
export XDG_CONFIG_HOME
V3=$TMP/v3/32432_results.db
V4=$TMP/v4/32432_results.db
mkdir -p "$TMP/v3" "$TMP/v4" "$TMP/v9"
cp "$REAL/llamacpp-rocprofv3-rocpd/32432_results.db" "$V3"
# the sample is kernel-only: add API calls, a marker, copies and PMC values the way rocprofv3
# stores them in schema 3 (tables named with the run's uuid, categories in rocpd_string)
python3 - "$V3" <<'PY'
import sys
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, "tests/tools")
from rocpd_enrich import Rocpd, T0 as t0
r = Rocpd(sys.argv[1])
db, u, g, s, event = r.db, r.u, r.g, r.s, r.event
for i in range(5):
    e = event("HIP_RUNTIME_API_EXT", 100 + i)
    db.execute("INSERT INTO rocpd_region%s(guid, nid, pid, tid, start, end, name_id, event_id) "
               "VALUES(?, 3289078373, 32432, 32432, ?, ?, ?, ?)" % u,
               (g, t0 + 1000 * i, t0 + 1000 * i + 300 + i, s("hipLaunchKernel"), e))
e = event("MARKER_CORE_API", 0)
db.execute("INSERT INTO rocpd_region%s(guid, nid, pid, tid, start, end, name_id, event_id) "
           "VALUES(?, 3289078373, 32432, 32432, ?, ?, ?, ?)" % u,
           (g, t0, t0 + 90000, s("decode step"), e))
for i in range(3):
    e = event("MEMORY_COPY", 200 + i)
    db.execute("INSERT INTO rocpd_memory_copy%s(guid, nid, pid, tid, start, end, name_id, "
               "dst_agent_id, src_agent_id, size, queue_id, stream_id, event_id) "
               "VALUES(?, 3289078373, 32432, 32432, ?, ?, ?, 1, 0, ?, 1, 1, ?)" % u,
               (g, t0 + 5000 * i, t0 + 5000 * i + 2000, s("MEMORY_COPY_HOST_TO_DEVICE"),
                4096 << i, e))
# allocations: 1 MiB at A, 2 MiB at B, free A, 4 MiB at C: 6 MiB live at the peak; a scratch
# block (64 MiB) does not count in the device memory peak
for i, (op, level, addr, size) in enumerate((("ALLOC", "REAL", 0xA000, 1 << 20),
        ("ALLOC", "REAL", 0xB000, 2 << 20), ("FREE", "REAL", 0xA000, 0),
        ("ALLOC", "SCRATCH", 0xD000, 64 << 20), ("ALLOC", "REAL", 0xC000, 4 << 20))):
    e = event("MEMORY_ALLOCATION", 300 + i)
    db.execute("INSERT INTO rocpd_memory_allocate%s(guid, nid, pid, tid, agent_id, type, level, "
               "start, end, address, size, queue_id, stream_id, event_id) "
               "VALUES(?, 3289078373, 32432, 32432, 1, ?, ?, ?, ?, ?, ?, 1, 1, ?)" % u,
               (g, op, level, t0 + 100 * i, t0 + 100 * i + 10, addr, size, e))
for p, name in ((1, "SQ_WAVES"), (2, "GRBM_GUI_ACTIVE")):
    db.execute("INSERT INTO rocpd_info_pmc%s(id, guid, nid, pid, agent_id, name, symbol) "
               "VALUES(?, ?, 3289078373, 32432, 1, ?, ?)" % u, (p, g, name, name))
for ev_id, in db.execute("SELECT event_id FROM rocpd_kernel_dispatch ORDER BY dispatch_id "
                         "LIMIT 3").fetchall():
    for p in (1, 2):
        db.execute("INSERT INTO rocpd_pmc_event%s(guid, event_id, pmc_id, value) "
                   "VALUES(?, ?, ?, ?)" % u, (g, ev_id, p, ev_id * 10 + p + 0.5))
db.commit()
PY
python3 tests/tools/rocpd3to4.py "$V3" tests/data/rocpd-4.1.0/schema.sql "$V4"
same "the migrated database is schema 4.1.0" "4.1.0" \
    "$(sqlite3 "$V4" "SELECT value FROM rocpd_metadata WHERE tag = 'schema_version'")"
same "4.1.0 writes categories in lower case" "hip_runtime_api_ext" \
    "$(sqlite3 "$V4" "SELECT category FROM regions WHERE name = 'hipLaunchKernel' LIMIT 1")"

for v in hotspots api copies; do
    "$DCUTOP" --export $v -o "$TMP/$v.3.csv" "$V3" 2>"$TMP/err3"
    "$DCUTOP" --export $v -o "$TMP/$v.4.csv" "$V4" 2>"$TMP/err4"
    check "--export $v: schema 4.1.0 gives the figures of schema 3" cmp -s "$TMP/$v.3.csv" \
        "$TMP/$v.4.csv"
done
check "api: 5 hipLaunchKernel calls from 4.1.0's lower-case categories" \
    grep -q '^"HIP","hipLaunchKernel",5,1510,' "$TMP/api.4.csv"
check "copies: 3 copies, 28672 bytes from 4.1.0" \
    grep -q '^"MEMORY_COPY_HOST_TO_DEVICE",3,28672,6000,' "$TMP/copies.4.csv"
check "4.1.0 loads without unmapped columns" sh -c '! grep -q "no column\|no such column" "$1"' \
    sh "$TMP/err4"

# per dispatch: agent, queue, stream, pid, tid through rocpd_track; grid in work-items;
# lds as 4.1.0 defines it (the group segment rounded up to 512 bytes)
Q="SELECT seq, gpu, queue, stream, pid, tid, corr_id, start_ns, end_ns, grid, workgroup,
 scratch, vgpr, sgpr, (lds + 511) / 512 * 512 FROM dispatch ORDER BY seq"
"$DCUTOP" --sql "$Q" "$V3" >"$TMP/d3.txt" 2>/dev/null
"$DCUTOP" --sql "$Q" "$V4" >"$TMP/d4.txt" 2>/dev/null
check "every dispatch's figures agree (agent, queue, stream, pid, tid, grid, registers)" \
    cmp -s "$TMP/d3.txt" "$TMP/d4.txt"
same "5687 dispatches with their pid from the track" 5687 \
    "$("$DCUTOP" --sql "SELECT count(*) FROM dispatch WHERE pid = 32432 AND gpu = 1" "$V4" |
        sed -n 3p | tr -d ' ')"

# PMC values per dispatch: schema 3's pmc_events, 4.1.0's kernel_pmc_events
P="SELECT d.seq, c.name, c.value FROM dispatch_counter c JOIN dispatch d ON d.id = c.dispatch_id
 ORDER BY d.seq, c.name"
"$DCUTOP" --sql "$P" "$V3" >"$TMP/p3.txt" 2>/dev/null
"$DCUTOP" --sql "$P" "$V4" >"$TMP/p4.txt" 2>/dev/null
same "schema 3: 6 PMC values (3 dispatches x 2 counters)" 6 "$(grep -c 'SQ_WAVES\|GRBM' "$TMP/p3.txt")"
check "schema 4.1.0: the same PMC values" cmp -s "$TMP/p3.txt" "$TMP/p4.txt"
same "the file is marked as a PMC run" 1 \
    "$("$DCUTOP" --sql "SELECT pmc FROM files" "$V4" | sed -n 3p | tr -d ' ')"

# memory allocations: the peak of live device memory, in the report
for v in 3 4; do
    eval db=\$V$v
    "$DCUTOP" --report "$db" 2>/dev/null | grep '^Device memory' >"$TMP/mem.$v"
done
same "schema 3: device memory peak and allocations" \
    "Device memory 6.0 MiB live at the peak, 4 allocations; scratch 64.0 MiB at its peak (--export allocations lists them)" "$(cat "$TMP/mem.3")"
same "schema 4.1.0: the same (agent and pid through the track)" "$(cat "$TMP/mem.3")" \
    "$(cat "$TMP/mem.4")"
printf ':dump summary\n' >"$TMP/summary.keys"
check "the Summary screen has the memory row" sh -c '"$1" --headless --size 110x70 --keys "$2" "$3" |
    grep -q "Memory  *6.0 MiB live at the peak, 4 allocations"' sh "$DCUTOP" "$TMP/summary.keys" "$V4"
same "4.1.0: every allocation with its agent and pid" "5" \
    "$(sqlite3 "$V4" "SELECT count(*) FROM memory_allocations WHERE agent_absolute_index = 1 AND
        pid = 32432")"

# an unknown version whose kernels view keeps only a track: pid and agent come through
# rocpd_track, and the columns it could not map are said
V9=$TMP/v9/32432_results.db
cp "$V4" "$V9"
sqlite3 "$V9" "UPDATE rocpd_metadata SET value = '9.0.0' WHERE tag = 'schema_version';
DROP VIEW kernel_pmc_events; DROP VIEW kernels;
CREATE VIEW kernels AS SELECT S.display_name AS name, K.dispatch_id, K.track_id, K.start,
 K.end FROM rocpd_kernel_dispatch K JOIN rocpd_info_kernel_symbol S ON S.id = K.kernel_id;"
"$DCUTOP" --export hotspots -o "$TMP/hotspots.9.csv" "$V9" 2>"$TMP/err9"
# without grid and workgroup a kernel is one launch shape: its variability (per shape) may
# differ; every other column is the same
nonvar() { python3 -c "
import csv, sys
for r in csv.DictReader(open(sys.argv[1], newline='')):
    print([v for k, v in r.items() if k not in ('var_ns', 'golden_ns', 'outliers')])" "$1"; }
nonvar "$TMP/hotspots.3.csv" >"$TMP/nv.3"
nonvar "$TMP/hotspots.9.csv" >"$TMP/nv.9"
check "unknown version: the same hotspots (variability apart: no launch shapes)" \
    cmp -s "$TMP/nv.3" "$TMP/nv.9"
check "unknown version: said" grep -q "schema_version 9.0.0" "$TMP/err9"
check "unknown version: the unmapped columns are named" \
    grep -q "rocpd view kernels: no column for .*lds (lds_size|lds_block_size)" "$TMP/err9"
same "unknown version: pid, tid, agent and queue through rocpd_track" "5687" \
    "$("$DCUTOP" --sql "SELECT count(*) FROM dispatch WHERE pid = 32432 AND tid = 32432 AND
        gpu = 1 AND queue > 0" "$V9" | sed -n 3p | tr -d ' ')"

# the profiled program's command line (rocpd_info_process) names the run: the report's header,
# the runs table of a multi-run report, the runs export
ORIG=$REAL/llamacpp-rocprofv3-rocpd
cmd=$(sqlite3 "$ORIG/32432_results.db" "SELECT command FROM rocpd_info_process")
same "command line: in the report header" "Command: $cmd" \
    "$("$DCUTOP" -q --report --view files "$ORIG" | sed -n 2p)"
same "command line: in the runs of a two-run report (JSON)" "$cmd" \
    "$("$DCUTOP" -q --report --format json "$ORIG" sample-traces/dcu-weather-transformer |
        python3 -c "import json, sys
print([r['command'] for r in json.load(sys.stdin)['runs'] if r['command']][0])")"

# the allocation list: every operation, each block's lifetime (ALLOC to the FREE of its
# address), the bytes live after it; checked against the database with the sqlite3 CLI
"$DCUTOP" -q --export allocations -o "$TMP/alloc.csv" "$V3"
same "allocations: one row per operation" \
    "$(sqlite3 "$V3" "SELECT count(*) FROM memory_allocations")" \
    "$(python3 -c "import csv, sys; print(sum(1 for _ in csv.DictReader(open(sys.argv[1]))))" "$TMP/alloc.csv")"
python3 - "$TMP/alloc.csv" >"$TMP/alloc.got" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1], newline='')):
    print(r['op'], r['level'], r['address'], r['bytes'], r['lifetime_ns'], r['live_bytes'])
PY
same "allocations: lifetimes and live bytes (1 MiB at A freed after 200 ns; peak 6 MiB)" \
"ALLOC REAL 40960 1048576 200 1048576
ALLOC REAL 45056 2097152  3145728
FREE REAL 40960 0  2097152
ALLOC SCRATCH 53248 67108864  67108864
ALLOC REAL 49152 4194304  6291456" "$(cat "$TMP/alloc.got")"
