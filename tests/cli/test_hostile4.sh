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
