#!/bin/sh
# test_hostile4.sh - hostile inputs of the third hardening round, second part: names capped
# alike in every format, one message per store failure, SQLite's own reasons, and the smaller
# silent losses. Each case loads what it can and says what it lost.
. tests/cli/lib.sh

# ---- a kernel name of 2 MiB in a CSV and in a JSON trace: cut to 1 MiB, the row kept ------
# A name this long costs every later step (normalising, category rules, sorts) time and memory
# in its length; every format now cuts names at 1 MiB, as rocpd's views already were.
mkdir -p "$TMP/longcsv" "$TMP/longjson"
python3 - "$REAL/rocprofv3-sdk-docs-csv/kernel_trace.csv" "$TMP/longcsv/kernel_trace.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
rows[3][6] = 'k' + 'a' * (2 << 20)           # line 4: 2 MiB + 1 byte
rows[5][6] = 'k' + 'b' * (3 << 20)           # line 6: a second long name, summed up
csv.writer(open(sys.argv[2], 'w', newline=''), lineterminator='\n').writerows(rows)
PY
n=$(grep -c "^KERNEL_DISPATCH," "$TMP/longcsv/kernel_trace.csv")
"$DCUTOP" --sql "SELECT count(*), max(length(k.name)) FROM dispatch d JOIN kernel k ON k.id = d.kernel_id" \
    --format csv "$TMP/longcsv" >"$TMP/longcsv.out" 2>"$TMP/longcsv.err"
same "a 2 MiB CSV name: every row kept, no name past 1 MiB" "$n,1048576" "$(sed -n 2p "$TMP/longcsv.out")"
check "a 2 MiB CSV name: the cut is said with the file and line" \
    grep -q "longcsv/kernel_trace.csv:4: a name of 2097153 bytes cut to its first 1048576 (names are capped at 1 MiB); the row is kept" "$TMP/longcsv.err"
check "a 2 MiB CSV name: the other cut names are summed up" \
    grep -q "longcsv/kernel_trace.csv: 2 names in all were longer than 1 MiB and cut to it" "$TMP/longcsv.err"
exits "a cut name keeps its row: --strict exits 0" 0 "$DCUTOP" --strict --report "$TMP/longcsv"
python3 - "$TMP/longjson/t.json" <<'PY'
import json, sys
ev = [{"ph": "X", "cat": "kernel", "name": "k" + "c" * (2 << 20), "pid": 1, "tid": 7,
       "ts": 10.0, "dur": 5.0, "args": {"device": 0, "stream": 7, "correlation": 1}},
      {"ph": "X", "cat": "kernel", "name": "gemm_small", "pid": 1, "tid": 7,
       "ts": 20.0, "dur": 5.0, "args": {"device": 0, "stream": 7, "correlation": 2}}]
json.dump({"schemaVersion": 1, "traceEvents": ev}, open(sys.argv[1], 'w'))
PY
"$DCUTOP" --sql "SELECT count(*), max(length(k.name)) FROM dispatch d JOIN kernel k ON k.id = d.kernel_id" \
    --format csv "$TMP/longjson" >"$TMP/longjson.out" 2>"$TMP/longjson.err"
same "a 2 MiB JSON name: both kernels kept, no name past 1 MiB" "2,1048576" "$(sed -n 2p "$TMP/longjson.out")"
check "a 2 MiB JSON name: the cut is said, naming the file" \
    grep -q "longjson/t.json: .*a name of 2097153 bytes cut to its first 1048576" "$TMP/longjson.err"

# ---- the temporary folder fills while the dispatch store spills --------------------------
# A file size limit (ulimit -f, SIGXFSZ ignored) makes every write past 1 MB fail as a full
# disk would (EFBIG), only inside this test's folder. Every row after the failure failed
# alike and printed the same line again (thousands of times); now the load stops there with
# one message naming the folder and the remedy.
mkdir -p "$TMP/spill" "$TMP/spilltmp"
python3 - "$TMP/spill/kernel_trace.csv" <<'PY'
import random, sys
head = ('Kind,Agent_Id,Queue_Id,Thread_Id,Dispatch_Id,Kernel_Id,Kernel_Name,Correlation_Id,'
        'Start_Timestamp,End_Timestamp,Private_Segment_Size,Group_Segment_Size,Workgroup_Size_X,'
        'Workgroup_Size_Y,Workgroup_Size_Z,Grid_Size_X,Grid_Size_Y,Grid_Size_Z')
out = [head]
random.seed(1)
R = random.randint
for i in range(80000):                       # random fields: chunks that barely compress
    t = 10**9 + i * 100000 + R(0, 99999)
    out.append('KERNEL_DISPATCH,1,%d,%d,%d,16,k%d,%d,%d,%d,%d,%d,%d,1,1,%d,%d,1' % (
        R(0, 99), R(0, 10**6), R(0, 10**9), i % 7, R(0, 10**9), t, t + R(100, 10**6),
        R(0, 10**6), R(0, 10**6), R(1, 1024), R(1, 10**6), R(1, 10**4)))
open(sys.argv[1], 'w').write('\n'.join(out) + '\n')
PY
for t in 1 2; do
    (trap '' XFSZ; ulimit -f 1000; TMPDIR="$TMP/spilltmp" SQLITE_TMPDIR="$TMP/spilltmp" \
        "$DCUTOP" --threads $t --db-memory 4M --report "$TMP/spill" >"$TMP/spill.out" 2>"$TMP/spill.err")
    same "a full temporary folder, --threads $t: exit 1" 1 $?
    same "a full temporary folder, --threads $t: one message" 1 "$(grep -c . "$TMP/spill.err")"
    check "a full temporary folder, --threads $t: it names the folder, the reason and the remedy" \
        grep -q "spill/kernel_trace.csv: the trace database could not store rows (dispatch store: cannot write its temporary file: File too large): its temporary files in $TMP/spilltmp are out of room; free space there; point SQLITE_TMPDIR or TMPDIR at a larger folder, or raise --db-memory" "$TMP/spill.err"
done
same "a full temporary folder: nothing left in it" "" "$(ls -A "$TMP/spilltmp")"

# ---- a rocpd view SQLite cannot compile: SQLite's own reason, not "no column for name" -----
mkdir -p "$TMP/vcirc" "$TMP/vtrack"
cp "$REAL/llamacpp-rocprofv3-rocpd/32432_results.db" "$TMP/vcirc/"
cp "$REAL/llamacpp-rocprofv3-rocpd/32432_results.db" "$TMP/vtrack/"
python3 - "$TMP/vcirc/32432_results.db" "$TMP/vtrack/32432_results.db" <<'PY'
import sqlite3, sys
d = sqlite3.connect(sys.argv[1])                  # kernels defined over itself
d.executescript("DROP VIEW kernels; CREATE VIEW kernels AS SELECT * FROM kernels2;"
                "CREATE VIEW kernels2 AS SELECT * FROM kernels;")
d = sqlite3.connect(sys.argv[2])                  # kernels over rocpd_track, whose table is gone
t = d.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rocpd_track_%'").fetchone()[0]
d.executescript('DROP VIEW kernels; CREATE VIEW kernels AS SELECT * FROM rocpd_track; DROP TABLE "%s";' % t)
PY
"$DCUTOP" --report "$TMP/vcirc" >/dev/null 2>"$TMP/vcirc.err"
check "a circular rocpd view: SQLite's reason, naming the file" \
    grep -q "vcirc/32432_results.db: rocpd view kernels cannot be read: view kernels is circularly defined; not read" "$TMP/vcirc.err"
"$DCUTOP" --report "$TMP/vtrack" >/dev/null 2>"$TMP/vtrack.err"
check "a rocpd view over a dropped table: SQLite's reason" \
    grep -q "vtrack/32432_results.db: rocpd view kernels cannot be read: no such table: main.rocpd_track_" "$TMP/vtrack.err"
check "a rocpd view SQLite cannot compile: no 'no column for' guess" \
    sh -c '! grep -q "no column for" "$1" "$2"' sh "$TMP/vcirc.err" "$TMP/vtrack.err"
exits "a rocpd view SQLite cannot compile fails --strict" 1 "$DCUTOP" --strict --report "$TMP/vcirc"

# ---- an empty Counter_Name is said as such, not as "counter value not a number" ----------
mkdir -p "$TMP/cname"
cp "$REAL/rocprofv3-sdk-docs-csv/kernel_trace.csv" "$TMP/cname/"
python3 - "$REAL/rocprofv3-sdk-docs-csv/counter_collection.csv" "$TMP/cname/counter_collection.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
rows[2][rows[0].index('Counter_Name')] = ''      # line 3
csv.writer(open(sys.argv[2], 'w', newline=''), lineterminator='\n').writerows(rows)
PY
"$DCUTOP" --report "$TMP/cname" >/dev/null 2>"$TMP/cname.err"
check "an empty Counter_Name: 'empty counter name' with the file and line" \
    grep -q "cname/counter_collection.csv:3: empty counter name" "$TMP/cname.err"
check "an empty Counter_Name: not called a value that is not a number" \
    sh -c '! grep -q "counter value not a number" "$1"' sh "$TMP/cname.err"

# ---- counters only: nothing to attach them to is an empty load, not "0 ns" with exit 0 -----
mkdir -p "$TMP/conly"
cp "$REAL/rocprofv3-sdk-docs-csv/counter_collection.csv" "$TMP/conly/"
"$DCUTOP" --report "$TMP/conly" >"$TMP/conly.out" 2>"$TMP/conly.err"
same "counters only: exit 1" 1 $?
check "counters only: 'nothing could be loaded', and why" \
    grep -q "nothing could be loaded from 1 file" "$TMP/conly.err"
check "counters only: the file's note says its values were not attached" \
    grep -q "counter_collection.csv: rocprofv3 counter collection: 0 of 7 counter values attached" "$TMP/conly.err"
check "counters only: no '0 ns ... (aggregated stats only)'" \
    sh -c '! grep -q "aggregated stats only" "$1"' sh "$TMP/conly.out"
# values no dispatch takes are rejected rows: --strict fails on them
mkdir -p "$TMP/cpart"
cp "$REAL/rocprofv3-sdk-docs-csv/kernel_trace.csv" "$TMP/cpart/"
{ cat "$REAL/rocprofv3-sdk-docs-csv/counter_collection.csv"
  echo '99,99,1,1,19396,19396,1048576,16,"void addition_kernel<float>(float*, float const*, float const*, int, int)",64,0,0,8,16,"TA_BUSY",7'
} >"$TMP/cpart/counter_collection.csv"
same "a counter value no dispatch takes: Rows 7, Rejected 1" "7 1" \
    "$("$DCUTOP" --export files "$TMP/cpart" 2>/dev/null | python3 -c "
import csv, sys
print(*[(r['rows'], r['rejected']) for r in csv.DictReader(sys.stdin) if r['name'] == 'counter_collection.csv'][0])")"
exits "a counter value no dispatch takes fails --strict" 1 "$DCUTOP" --strict --report "$TMP/cpart"

# ---- JSON: a UTF-8 BOM is taken as CSV takes it; error offsets count from 0 ---------------
mkdir -p "$TMP/bom" "$TMP/jerr"
python3 - "$TMP/bom/t.json" "$TMP/jerr/t.json" <<'PY'
import json, sys
ev = [{"ph": "X", "cat": "kernel", "name": "gemm_small", "pid": 1, "tid": 7, "ts": 10.0,
       "dur": 5.0, "args": {"device": 0, "stream": 7, "correlation": 1}}]
open(sys.argv[1], 'wb').write(b'\xef\xbb\xbf' + json.dumps({"traceEvents": ev}).encode())
open(sys.argv[2], 'wb').write(b'{"traceEvents": [x')   # the 'x' is byte 17, counted from 0
PY
"$DCUTOP" --sql "SELECT count(*) FROM dispatch" --format csv "$TMP/bom" >"$TMP/bom.out" 2>"$TMP/bom.err"
same "a JSON trace with a UTF-8 BOM loads (exit 0, its 1 kernel)" "0 1" "$? $(sed -n 2p "$TMP/bom.out")"
"$DCUTOP" --report "$TMP/jerr" >/dev/null 2>"$TMP/jerr.err"
check "a JSON error names the byte it stopped at, counted from 0" \
    grep -q "jerr/t.json: JSON error at byte 17: lexical error" "$TMP/jerr.err"

# ---- messages name the file and the field, never an internal descriptor or SQL -------------
mkdir -p "$TMP/crc" "$TMP/crcj" "$TMP/sqlname"
python3 - "$REAL/rocprofv3-sdk-docs-csv/kernel_trace.csv" "$TMP/crc/kernel_trace.csv.gz" "$TMP/crcj/t.json.gz" <<'PY'
import gzip, json, sys
def damaged(data, path):
    g = bytearray(gzip.compress(data))
    g[-8] ^= 0xff                                  # the member's CRC-32
    open(path, 'wb').write(g)
damaged(open(sys.argv[1], 'rb').read(), sys.argv[2])
ev = [{"ph": "X", "cat": "kernel", "name": "gemm_small", "pid": 1, "tid": 7, "ts": 10.0,
       "dur": 5.0, "args": {"device": 0, "stream": 7, "correlation": 1}}]
damaged(json.dumps({"traceEvents": ev}).encode(), sys.argv[3])
PY
"$DCUTOP" --report "$TMP/crc" >/dev/null 2>"$TMP/crc.err"
"$DCUTOP" --report "$TMP/crcj" >/dev/null 2>>"$TMP/crc.err"
check "a gzip CRC error (CSV): the file and what it means, no '<fd:N>'" \
    grep -q "crc/kernel_trace.csv.gz: gzip error at byte [0-9]*: incorrect data check (the data does not match its CRC: the file is damaged)" "$TMP/crc.err"
check "a gzip CRC error (JSON): the same words" \
    grep -q "crcj/t.json.gz: gzip error at byte [0-9]*: incorrect data check (the data" "$TMP/crc.err"
check "a gzip CRC error: no '<fd:'" sh -c '! grep -q "<fd:" "$1"' sh "$TMP/crc.err"
# a rocpd kernels view whose agent comes from rocpd_info_agent, where it is text
cp "$REAL/llamacpp-rocprofv3-rocpd/32432_results.db" "$TMP/sqlname/"
python3 - "$TMP/sqlname/32432_results.db" <<'PY'
import sqlite3, sys
d = sqlite3.connect(sys.argv[1])
sql = d.execute("SELECT sql FROM sqlite_master WHERE name = 'kernels'").fetchone()[0]
d.execute("DROP VIEW kernels")
d.execute(sql.replace('A.absolute_index AS agent_abs_index,', 'K.agent_id AS agent_id,'))
t = d.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rocpd_info_agent_%'").fetchone()[0]
d.execute('UPDATE "%s" SET absolute_index = \'gpu\' || absolute_index' % t)
d.commit()
PY
"$DCUTOP" --report "$TMP/sqlname" >/dev/null 2>"$TMP/sqlname.err"
check "a rocpd row error names the field" \
    grep -q "sqlname/32432_results.db: table kernels row 1: column agent: not a number 'gpu1'" "$TMP/sqlname.err"
check "a rocpd row error shows no SQL" sh -c '! grep -q "SELECT\|dcutop_v" "$1"' sh "$TMP/sqlname.err"

# ---- rocprofv3 JSON: a repeated kernel_symbols id, a repeated root key, a plain correlation_id
mkdir -p "$TMP/v3db" "$TMP/v3sym" "$TMP/v3root" "$TMP/v3corr"
cp "$REAL/llamacpp-rocprofv3-rocpd/32432_results.db" "$TMP/v3db/x.db"
python3 tests/tools/rocpd_to_v3json.py "$TMP/v3db/x.db" "$TMP/v3db/32432_results.json"
python3 - "$TMP/v3db/32432_results.json" "$TMP" <<'PY'
import copy, json, sys
d = json.load(open(sys.argv[1]))
out = sys.argv[2]
s = copy.deepcopy(d)
p = s["rocprofiler-sdk-tool"][0]
dup = dict(p["kernel_symbols"][0], kernel_name="dup_name")      # the same kernel_id again
p["kernel_symbols"].append(dup)
json.dump(s, open(out + "/v3sym/32432_results.json", "w"))
t = json.dumps(d["rocprofiler-sdk-tool"])                         # the root key twice
open(out + "/v3root/32432_results.json", "w").write(
    '{"rocprofiler-sdk-tool": %s, "rocprofiler-sdk-tool": %s}' % (t, t))
c = copy.deepcopy(d)
c["rocprofiler-sdk-tool"][0]["buffer_records"]["kernel_dispatch"][0]["correlation_id"] = 4242
json.dump(c, open(out + "/v3corr/32432_results.json", "w"))
PY
n=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['rocprofiler-sdk-tool'][0]['buffer_records']['kernel_dispatch']))" "$TMP/v3db/32432_results.json")
"$DCUTOP" --sql "SELECT count(*) FROM kernel WHERE name = 'dup_name'" --format csv "$TMP/v3sym" >"$TMP/v3sym.out" 2>"$TMP/v3sym.err"
same "a kernel_symbols id given twice: the first record is used" 0 "$(sed -n 2p "$TMP/v3sym.out")"
check "a kernel_symbols id given twice: said" \
    grep -q "v3sym/32432_results.json: process 1: kernel_symbols gives 1 kernel_ids a second time (first: [0-9]*): the first record of each is used, 1 not" "$TMP/v3sym.err"
exits "a kernel_symbols id given twice fails --strict" 1 "$DCUTOP" --strict --report "$TMP/v3sym"
"$DCUTOP" --sql "SELECT count(*) FROM dispatch" --format csv "$TMP/v3root" >"$TMP/v3root.out" 2>"$TMP/v3root.err"
same "a repeated root key: the $n dispatches counted once" "$n" "$(sed -n 2p "$TMP/v3root.out")"
check "a repeated root key: said" \
    grep -q "v3root/32432_results.json: a second top-level \"rocprofiler-sdk-tool\" key: not read" "$TMP/v3root.err"
"$DCUTOP" --sql "SELECT corr_id FROM dispatches ORDER BY start_ns, id LIMIT 1" --format csv "$TMP/v3corr" >"$TMP/v3corr.out" 2>/dev/null
same "a correlation_id given as a plain number is kept" 4242 "$(sed -n 2p "$TMP/v3corr.out")"

# ---- a counter_collection.csv without a pid in its name, beside two runs -----------------
# It formed a run of its own and attached nothing ("0 of 7 ... no kernel trace of the run
# holds"); its rows' Process_Id names the run of its folder they belong to.
mkdir -p "$TMP/tworuns"
cp "$REAL/rocprofv3-sdk-docs-csv/kernel_trace.csv" "$TMP/tworuns/19396_kernel_trace.csv"
cp "$REAL/rocprofv3-sdk-docs-csv/kernel_trace.csv" "$TMP/tworuns/5555_kernel_trace.csv"
cp "$REAL/rocprofv3-sdk-docs-csv/counter_collection.csv" "$TMP/tworuns/"
pids=$(python3 -c "
import csv, sys
print(' '.join(sorted({r['Process_Id'] for r in csv.DictReader(open(sys.argv[1]))})))" "$TMP/tworuns/counter_collection.csv")
same "the counter file's rows name one process" 19396 "$pids"
"$DCUTOP" --sql "SELECT f.name, count(*) FROM dispatch_counter c JOIN dispatch d ON d.id = c.dispatch_id
                 JOIN source_file f ON f.id = d.file_id GROUP BY f.name" --format csv "$TMP/tworuns" \
    >"$TMP/tworuns.out" 2>/dev/null
same "no pid in its name, two runs: its 7 values attach to the run of their Process_Id" \
    "19396_kernel_trace.csv,7" "$(sed -n '2,$p' "$TMP/tworuns.out")"
exits "no pid in its name, two runs: nothing rejected (--strict exits 0)" 0 \
    "$DCUTOP" --strict --report "$TMP/tworuns"
