#!/bin/sh
# test_rocprofv3_json.sh - rocprofv3 --output-format json (<pid>_results.json, top key
# "rocprofiler-sdk-tool"; issue 24). No public sample exists: tests/tools/rocpd_to_v3json.py
# writes the shared rocpd sample (plus API calls, a marker and copies added the way rocprofv3
# stores them in rocpd) in that form, and both must load to the same figures. Before this,
# the JSON was skipped as "JSON without trace events".
. tests/cli/lib.sh
XDG_CONFIG_HOME=$TMP/xdg
export XDG_CONFIG_HOME
DB=$TMP/db/32432_results.db
JS=$TMP/js/32432_results.json
mkdir -p "$TMP/db" "$TMP/js" "$TMP/gz" "$TMP/bad"
cp "$REAL/llamacpp-rocprofv3-rocpd/32432_results.db" "$DB"
python3 - "$DB" <<'PY'
import sys
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, "tests/tools")
from rocpd_enrich import Rocpd, T0 as t0
r = Rocpd(sys.argv[1])
db, u, g, s, event = r.db, r.u, r.g, r.s, r.event
def region(cat, corr, name, start, end):
    db.execute("INSERT INTO rocpd_region%s(guid, nid, pid, tid, start, end, name_id, event_id) "
               "VALUES(?, 3289078373, 32432, 32432, ?, ?, ?, ?)" % u,
               (g, start, end, s(name), event(cat, corr)))
for i in range(5):
    region("HIP_RUNTIME_API_EXT", 100 + i, "hipLaunchKernel", t0 + 1000 * i,
           t0 + 1000 * i + 300 + i)
for i in range(2):
    region("HIP_RUNTIME_API_EXT", 110 + i, "hipMemcpyAsync", t0 + 9000 + i, t0 + 9500 + 7 * i)
region("HSA_CORE_API", 120, "hsa_signal_wait_scacquire", t0 + 20, t0 + 70)
region("MARKER_CORE_API", 130, "decode step", t0, t0 + 90000)
for i in range(3):
    db.execute("INSERT INTO rocpd_memory_copy%s(guid, nid, pid, tid, start, end, name_id, "
               "dst_agent_id, src_agent_id, size, queue_id, stream_id, event_id) "
               "VALUES(?, 3289078373, 32432, 32432, ?, ?, ?, 1, 0, ?, 1, 1, ?)" % u,
               (g, t0 + 5000 * i, t0 + 5000 * i + 2000,
                s("MEMORY_COPY_HOST_TO_DEVICE" if i < 2 else "MEMORY_COPY_DEVICE_TO_HOST"),
                4096 << i, event("MEMORY_COPY", 200 + i)))
db.commit()
PY
python3 tests/tools/rocpd_to_v3json.py "$DB" "$JS"
check "the written file follows the schema's top level" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = d["rocprofiler-sdk-tool"][0]
for k in ("metadata", "agents", "strings", "kernel_symbols", "buffer_records"):
    assert k in p, k
assert len(p["buffer_records"]["kernel_dispatch"]) == 5687
' "$JS"

same "the JSON is read as rocprofv3 JSON with every dispatch and agent" \
    "rocprofv3 JSON|5687|5|0" \
    "$("$DCUTOP" --sql "SELECT f.format || '|' || (SELECT count(*) FROM dispatch) || '|' ||
        (SELECT count(*) FROM agent) || '|' || f.rejected FROM files f" "$JS" |
        grep '^rocprofv3' | sed 's/ *$//')"
for v in hotspots api copies; do
    "$DCUTOP" --export $v -o "$TMP/$v.db.csv" "$DB" 2>"$TMP/err.db"
    "$DCUTOP" --export $v -o "$TMP/$v.js.csv" "$JS" 2>"$TMP/err.js"
    check "--export $v: the JSON gives the rocpd database's figures" cmp -s "$TMP/$v.db.csv" \
        "$TMP/$v.js.csv"
done
check "api: 5 hipLaunchKernel calls named through strings.buffer_records" \
    grep -q '^"HIP","hipLaunchKernel",5,1510,' "$TMP/api.js.csv"
check "api: the HSA call" grep -q '^"HSA","hsa_signal_wait_scacquire",1,50,' "$TMP/api.js.csv"
check "copies: 2 host-to-device copies, 12288 bytes" \
    grep -q '^"MEMORY_COPY_HOST_TO_DEVICE",2,12288,' "$TMP/copies.js.csv"
check "no load message for the well-formed file" sh -c '! test -s "$1"' sh "$TMP/err.js"

Q="SELECT seq, gpu, queue, stream, pid, tid, corr_id, start_ns, end_ns, grid, workgroup,
 scratch, vgpr, sgpr, lds FROM dispatch ORDER BY seq"
"$DCUTOP" --sql "$Q" "$DB" >"$TMP/d.db" 2>/dev/null
"$DCUTOP" --sql "$Q" "$JS" >"$TMP/d.js" 2>/dev/null
check "every dispatch agrees (agent by node, queue, stream, pid, tid, grid, registers, lds)" \
    cmp -s "$TMP/d.db" "$TMP/d.js"
R="SELECT domain, name, start_ns, end_ns, pid, tid FROM range ORDER BY start_ns"
"$DCUTOP" --sql "$R" "$DB" >"$TMP/m.db" 2>/dev/null
"$DCUTOP" --sql "$R" "$JS" >"$TMP/m.js" 2>/dev/null
check "the marker is a range named by strings.marker_api" grep -q "decode step" "$TMP/m.js"
check "markers agree" cmp -s "$TMP/m.db" "$TMP/m.js"
# (file names are cut to the column's width: each path token becomes FILE; the files table,
# whose columns fit the width by the format's name, is the one table left out)
# (the JSON's command line is not read: the database's Command: line is left out too)
# (the idle-causes section names each run by its file: RUN)
"$DCUTOP" --report "$DB" 2>&1 | sed 's#[^ ]*/db/[^ ]*#FILE#; s#rocpd database (rocprofv3)#FORMAT#; s#32432_results\.db #RUN #' |
    grep -v ' FORMAT \|^ *File  *Format\|^Command: ' | tr -s ' ' >"$TMP/r.db"
"$DCUTOP" --report "$JS" 2>&1 | sed 's#[^ ]*/js/[^ ]*#FILE#; s#rocprofv3 JSON#FORMAT#; s#32432_results\.json #RUN #' |
    grep -v ' FORMAT \|^ *File  *Format' | tr -s ' ' >"$TMP/r.js"
check "--report: the same report apart from the file's name and format" \
    cmp -s "$TMP/r.db" "$TMP/r.js"
check "--report: the report is whole (kernels, idle, copies)" \
    sh -c 'test "$(wc -l <"$1")" -gt 80' sh "$TMP/r.js"

# the sections in another order (buffer_records first): records wait for their names
mkdir -p "$TMP/ord"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = d["rocprofiler-sdk-tool"][0]
d["rocprofiler-sdk-tool"][0] = dict(reversed(list(p.items())))
assert list(d["rocprofiler-sdk-tool"][0])[0] == "buffer_records"
json.dump(d, open(sys.argv[2], "w"))' "$JS" "$TMP/ord/32432_results.json"
for v in hotspots api copies; do
    "$DCUTOP" --export $v -o "$TMP/$v.ord.csv" "$TMP/ord/32432_results.json" 2>/dev/null
    check "sections in any order: the same --export $v" cmp -s "$TMP/$v.db.csv" "$TMP/$v.ord.csv"
done

gzip -c "$JS" >"$TMP/gz/32432_results.json.gz"
"$DCUTOP" --export hotspots -o "$TMP/hotspots.gz.csv" "$TMP/gz/32432_results.json.gz" 2>/dev/null
check "gzip: the same hotspots" cmp -s "$TMP/hotspots.db.csv" "$TMP/hotspots.gz.csv"

# bad input: a message naming the file, never a crash, what can be read is kept
head -c 2000000 "$JS" >"$TMP/bad/trunc_results.json"
"$DCUTOP" --export hotspots -o "$TMP/trunc.csv" "$TMP/bad/trunc_results.json" 2>"$TMP/err.trunc"
check "truncated: said, naming the file" \
    grep -q "trunc_results.json: JSON error at byte 2000000: .*records before it are kept" \
    "$TMP/err.trunc"
check "truncated: the dispatches read before the cut are kept" \
    sh -c 'test "$(wc -l <"$1")" -gt 3' sh "$TMP/trunc.csv"
python3 - "$JS" "$TMP/bad/types_results.json" "$TMP/bad/ops_results.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = d["rocprofiler-sdk-tool"][0]
k = p["buffer_records"]["kernel_dispatch"]
k[0]["start_timestamp"] = "soon"
k[1]["dispatch_info"]["grid_size"] = [1, 2]
k[2]["end_timestamp"] = {"ns": 5}
k[3]["dispatch_info"]["kernel_id"] = 987654
p["kernel_symbols"][0]["kernel_id"] = "four"
json.dump(d, open(sys.argv[2], "w"))
p = json.load(open(sys.argv[1]))["rocprofiler-sdk-tool"][0]
p["buffer_records"]["hip_api"][0]["operation"] = 99999
json.dump({"rocprofiler-sdk-tool": [p]}, open(sys.argv[3], "w"))
PY
"$DCUTOP" --sql "SELECT count(*) FROM dispatch" "$TMP/bad/types_results.json" \
    >"$TMP/types.out" 2>"$TMP/err.types"
rc=$?
same "wrong types: no crash" 0 "$rc"
F=types_results.json
check "wrong types: a string timestamp rejected" \
    grep -q "$F: kernel_dispatch\[0\]: a value of the wrong type" "$TMP/err.types"
check "wrong types: an array grid rejected" \
    grep -q "$F: kernel_dispatch\[1\]: a value of the wrong type" "$TMP/err.types"
check "missing kernel symbol: said" \
    grep -q "$F: kernel_dispatch\[3\]: kernel_id 987654 has no kernel_symbols record" "$TMP/err.types"
"$DCUTOP" --sql "SELECT count(*) FROM api_call" "$TMP/bad/ops_results.json" \
    >/dev/null \
    2>"$TMP/err.ops"
check "unnamed operation: said" \
    grep -q "ops_results.json: hip_api\[0\]: kind [0-9]* operation 99999 not named" "$TMP/err.ops"
check "bad kernel symbol: said" grep -q "$F: kernel_symbols record .*wrong type" "$TMP/err.types"
printf '{"rocprofiler-sdk-tool": 5}' >"$TMP/bad/scalar_results.json"
printf '{"rocprofiler-sdk-tool": [{"buffer_records": {"kernel_dispatch": [[], 3, {"x": {}}]}}]}' \
    >"$TMP/bad/nested_results.json"
for b in scalar nested; do
    "$DCUTOP" --sql "SELECT format, note FROM files" "$TMP/bad/${b}_results.json" \
        >"$TMP/$b.out" 2>&1
    same "$b: nothing loaded, said (exit 1), no crash" 1 "$?"
done
check "no process record: skipped with a note" \
    grep -q "rocprofv3 JSON without a complete process" "$TMP/scalar.out"
check "records of the wrong shape: rejected, said" \
    grep -q "kernel_dispatch\[0\]: a value of the wrong type" "$TMP/nested.out"
# a dispatch in a process with no agents, symbols or markers: every lookup meets an empty table
# (the fuzzer found qsort handed a NULL array there; the ASan/UBSan pass runs this file too)
printf '%s' '{"rocprofiler-sdk-tool": [{"metadata": {"pid": 1}, "agents": [], "strings": {},
 "kernel_symbols": [], "buffer_records": {"kernel_dispatch": [{"start_timestamp": 1,
 "end_timestamp": 5, "agent_id": {"handle": 3}, "queue_id": {"handle": 1}, "correlation_id":
 {"internal": 7}, "dispatch_info": {"kernel_id": 4, "agent_id": {"handle": 3}}}]}}]}' \
    >"$TMP/bad/empty_results.json"
"$DCUTOP" --sql "SELECT count(*) FROM dispatch" "$TMP/bad/empty_results.json" >"$TMP/empty.out" 2>&1
same "empty tables: nothing loaded, said (exit 1), no crash" 1 "$?"
check "empty tables: the missing symbol named" \
    grep -q "empty_results.json: kernel_dispatch\[0\]: kernel_id 4 has no kernel_symbols record" \
    "$TMP/empty.out"

# the same process as a rocpd database and as JSON in one folder: one run, counted once (the
# database supersedes the JSON, as a database supersedes a JSON trace of its run)
mkdir "$TMP/both"
cp "$DB" "$JS" "$TMP/both/"
n_db=$("$DCUTOP" -q --sql "SELECT count(*) FROM dispatches" "$DB" --format csv | tail -1 | tr -d '\r')
n_both=$("$DCUTOP" -q --sql "SELECT count(*) FROM dispatches" "$TMP/both" --format csv | tail -1 | tr -d '\r')
same "rocpd + JSON of one process: the dispatches counted once" "$n_db" "$n_both"
check "... the JSON superseded by the database" sh -c "'$DCUTOP' -q --report --width 200 --view files '$TMP/both' | grep -q 'superseded by 32432_results.db'"
