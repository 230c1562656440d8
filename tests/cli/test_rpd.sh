#!/bin/sh
# test_rpd.sh - rocmProfileData (.rpd) databases (FORMATS.md 4.4).
# 1. The real matmul_result.rpd against its own views, queried with the sqlite3 CLI (read-only):
#    `top` (per name: calls and total/1000, kernels and copies together) and `busy` (GPU time
#    per gpuId); the file stays byte-identical.
# 2. An RPD written here from the schema in FORMATS.md, with ops of every type (KernelExecution,
#    Task, empty descriptions, the three copies, FillBuffer, a barrier), API calls, a roctx
#    range, launch links, kernel and copy parameters and one bad row: every stored row checked.
# 3. Partial and unknown schemas: skipped with a note, no crash, the rest of the folder loaded.
. tests/cli/lib.sh
. tests/cli/csvlib.inc
XDG_CONFIG_HOME=$TMP/xdg
export XDG_CONFIG_HOME

sq() { sqlite3 -batch -init /dev/null -readonly "$1" '.mode tabs' "$2"; }

# ================================================================ 1. the real file
R=$REAL/rpd-matmul/matmul_result.rpd
if [ -f "$R" ]; then
    sha256sum "$R" >"$TMP/sha.before"
    # the file's own top view: Name, TotalCalls, TotalDuration (= sum(end - start) / 1000)
    sq "$R" 'SELECT Name, TotalCalls, TotalDuration FROM top' | LC_ALL=C sort >"$TMP/top.exp"
    dexp rhot hotspots "$R" || notok "rpd: --export hotspots exits 0"
    dexp rcopy copies "$R" || notok "rpd: --export copies exits 0"
    { csvq "$TMP/rhot.csv" 'select name, calls, cast(total_ns as integer) / 1000 from t'
      csvq "$TMP/rcopy.csv" 'select name, calls, cast(total_ns as integer) / 1000 from t'; } |
        LC_ALL=C sort >"$TMP/top.act"
    same "rpd matmul: names in dcutop = names in the top view" "$(wc -l <"$TMP/top.exp")" \
        "$(wc -l <"$TMP/top.act")"
    cmp_keyed "rpd matmul: top view calls,total_us of" "$TMP/top.exp" "$TMP/top.act"
    # busy: GpuTime per gpuId = kernel + copy time that dcutop put on that GPU
    "$DCUTOP" -q --save-db "$TMP/r.db" "$R" || notok "rpd: --save-db exits 0"
    sq "$R" 'SELECT gpuId, GpuTime FROM busy' >"$TMP/busy.exp"
    sq "$TMP/r.db" 'SELECT gpu, sum(dur_ns) FROM (SELECT gpu, dur_ns FROM dispatch
        UNION ALL SELECT gpu, dur_ns FROM copy) GROUP BY gpu' >"$TMP/busy.act"
    cmp_keyed "rpd matmul: busy view GpuTime of gpu" "$TMP/busy.exp" "$TMP/busy.act"
    # the KernelExecution ops are the dispatches; the API calls all come through
    same "rpd matmul: dispatches = KernelExecution + Task ops" \
        "$(sq "$R" "SELECT count(*) FROM rocpd_op o JOIN rocpd_string s ON s.id = o.opType_id
            WHERE s.string IN ('KernelExecution', 'Task')")" \
        "$(sq "$TMP/r.db" 'SELECT count(*) FROM dispatch')"
    same "rpd matmul: API calls = rocpd_api rows" "$(sq "$R" 'SELECT count(*) FROM rocpd_api')" \
        "$(sq "$TMP/r.db" 'SELECT count(*) FROM api_call')"
    # launch parameters through rocpd_api_ops + rocpd_kernelapi (the file's kernel view)
    sq "$R" 'SELECT start, gridX * gridY * gridZ, workgroupX * workgroupY * workgroupZ,
        groupSegmentSize, privateSegmentSize FROM kernel' | LC_ALL=C sort >"$TMP/kp.exp"
    sq "$TMP/r.db" 'SELECT start_ns, grid, workgroup, lds, scratch FROM dispatch
        WHERE grid IS NOT NULL' | LC_ALL=C sort >"$TMP/kp.act"
    same "rpd matmul: grid, workgroup, LDS, scratch = the kernel view" \
        "$(cat "$TMP/kp.exp")" "$(cat "$TMP/kp.act")"
    sha256sum "$R" >"$TMP/sha.after"
    check "rpd matmul: the file is byte-identical after loading" cmp -s "$TMP/sha.before" \
        "$TMP/sha.after"
else
    ok "rpd: $R not found - skipped"
fi

# ================================================================ 2. an RPD written from FORMATS.md 4.4
mkdir -p "$TMP/syn"
S=$TMP/syn/trace.rpd
sqlite3 -batch -init /dev/null "$S" "
CREATE TABLE rocpd_string(id integer PRIMARY KEY, string varchar(4096) NOT NULL);
CREATE TABLE rocpd_metadata(id integer PRIMARY KEY, tag varchar(4096), value varchar(4096));
CREATE TABLE rocpd_op(id integer PRIMARY KEY, gpuId integer, queueId integer, sequenceId integer,
  completionSignal varchar(18), start integer, \"end\" integer, description_id integer,
  opType_id integer);
CREATE TABLE rocpd_api(id integer PRIMARY KEY, pid integer, tid integer, start integer,
  \"end\" integer, apiName_id integer, args_id integer);
CREATE TABLE rocpd_api_ops(id integer PRIMARY KEY, api_id integer, op_id integer);
CREATE TABLE rocpd_kernelapi(api_ptr_id integer PRIMARY KEY, stream varchar(18), gridX integer,
  gridY integer, gridZ integer, workgroupX integer, workgroupY integer, workgroupZ integer,
  groupSegmentSize integer, privateSegmentSize integer, kernelArgAddress varchar(18),
  aquireFence varchar(8), releaseFence varchar(8), codeObject_id integer, kernelName_id integer);
CREATE TABLE rocpd_copyapi(api_ptr_id integer PRIMARY KEY, stream varchar(18), size integer,
  width integer, height integer, kind integer, dst varchar(18), src varchar(18),
  dstDevice integer, srcDevice integer, sync bool, pinned bool);
INSERT INTO rocpd_metadata(tag, value) VALUES('schema_version', '2');
INSERT INTO rocpd_string VALUES(1, ''), (2, 'KernelExecution'), (3, 'Task'),
  (4, 'CopyHostToDevice'), (5, 'CopyDeviceToHost'), (6, 'CopyDeviceToDevice'), (7, 'FillBuffer'),
  (8, 'BarrierAnd'), (9, 'gemm_kernel'), (10, 'vllm_task'), (11, 'hipLaunchKernel'),
  (12, 'hipMemcpyAsync'), (13, 'UserMarker'), (14, 'step 1'), (15, 'hipMemsetAsync'),
  (16, 'roctxMarkA'), (17, 'mark!');
INSERT INTO rocpd_op VALUES
  (1, 0, 0, 1, '0x0', 1000, 3000, 9, 2),
  (2, 0, 1, 2, '0x0', 2000, 2500, 10, 3),
  (3, 1, 0, 3, '0x0', 4000, 4700, 1, 3),
  (4, 0, 0, 4, '0x0', 5000, 5900, 1, 4),
  (5, 0, 0, 5, '0x0', 6000, 6100, 1, 5),
  (6, 1, 2, 6, '0x0', 7000, 7300, 1, 6),
  (7, 0, 0, 7, '0x0', 8000, 8050, 1, 7),
  (8, 0, 0, 8, '0x0', 9000, 9000, 1, 8),
  (9, 0, 0, 9, '0x0', 'x', 9500, 9, 2),
  (10, 0, 0, 10, '0x0', 9600, 9900, 9, 2);
INSERT INTO rocpd_api VALUES
  (1, 77, 78, 900, 950, 11, 1),
  (2, 77, 78, 4900, 4990, 12, 1),
  (3, 77, 79, 500, 9950, 13, 14),
  (4, 77, 78, 7950, 7990, 15, 1),
  (5, 77, 79, 6000, 6000, 16, 17);
INSERT INTO rocpd_api_ops(api_id, op_id) VALUES(1, 1), (2, 4), (4, 7);
INSERT INTO rocpd_kernelapi VALUES(1, '0x0', 256, 2, 1, 64, 1, 1, 1024, 16, '0x0', '', '', 0, 9);
INSERT INTO rocpd_copyapi VALUES(2, '0x0', 4096, 0, 0, 1, '0x1', '0x2', 0, 0, 0, 0);
"
sha256sum "$S" >"$TMP/syn.before"
"$DCUTOP" -q --save-db "$TMP/s.db" "$S"
check "rpd written here: --save-db exits 0" test $? -eq 0
same "rpd written here: dispatches (KernelExecution, Task, Task with an empty description)" \
"gemm_kernel	0	0	1	1000	3000	1	512	64	1024	16
vllm_task	0	1	2	2000	2500
Task	1	0	3	4000	4700
gemm_kernel	0	0	10	9600	9900" \
    "$(sq "$TMP/s.db" 'SELECT k.name, d.gpu, d.queue, d.seq, d.start_ns, d.end_ns, d.corr_id,
        d.grid, d.workgroup, d.lds, d.scratch FROM dispatch d JOIN kernel k ON k.id = d.kernel_id
        ORDER BY d.seq' | sed 's/\t*$//')"
same "rpd written here: copies (names from opType, bytes from rocpd_copyapi, device and queue)" \
"CopyDeviceToDevice	1	2		7000	7300
CopyDeviceToHost	0	0		6000	6100
CopyHostToDevice	0	0	4096	5000	5900
FillBuffer	0	0		8000	8050" \
    "$(sq "$TMP/s.db" 'SELECT name, gpu, queue, bytes, start_ns, end_ns FROM copy ORDER BY name')"
same "rpd written here: API calls with pid, tid and their id as correlation" \
"HIP	hipLaunchKernel	77	78	1	900	950
HIP	hipMemcpyAsync	77	78	2	4900	4990
HIP	hipMemsetAsync	77	78	4	7950	7990" \
    "$(sq "$TMP/s.db" 'SELECT domain, name, pid, tid, corr_id, start_ns, end_ns FROM api_call
        ORDER BY start_ns')"
same "rpd written here: UserMarker and roctx rows are roctx ranges named by their args" \
    "MARKER	step 1	77	79	500	9950
MARKER	mark!	77	79	6000	6000" \
    "$(sq "$TMP/s.db" 'SELECT domain, name, pid, tid, start_ns, end_ns FROM range ORDER BY start_ns')"
same "rpd written here: the launch links the kernel to hipLaunchKernel" "hipLaunchKernel" \
    "$(sq "$TMP/s.db" "SELECT a.name FROM dispatch d JOIN api_call a ON a.corr_id = d.corr_id
        JOIN kernel k ON k.id = d.kernel_id WHERE k.name = 'gemm_kernel' AND d.seq = 1")"
same "rpd written here: the bad row is rejected with its table and row" "1" \
    "$(sq "$TMP/s.db" "SELECT rows_rejected FROM source_file")"
check "rpd written here: the message names rocpd_op id 9 and its column" \
    sh -c "sqlite3 -readonly '$TMP/s.db' 'SELECT message FROM load_message' | grep -q 'rocpd_op id 9: column start: not an integer'"
check "rpd written here: the barrier op is counted in a message, not stored" \
    sh -c "sqlite3 -readonly '$TMP/s.db' 'SELECT message FROM load_message' | grep -q '1 ops of other types not read (BarrierAnd)'"
sha256sum "$S" >"$TMP/syn.after"
check "rpd written here: the file is byte-identical after loading" cmp -s "$TMP/syn.before" \
    "$TMP/syn.after"
# kernels per name: Task time counts as kernel time
dexp shot hotspots "$S" || notok "rpd written here: --export hotspots exits 0"
same "rpd written here: kernel time includes the Task ops" "3500" \
    "$(csvq "$TMP/shot.csv" 'select sum(total_ns) from t')"

# ================================================================ 3. partial and unknown schemas
mkdir -p "$TMP/bad"
cp "$S" "$TMP/bad/ok.rpd"
sqlite3 -batch -init /dev/null "$TMP/bad/partial.rpd" "
CREATE TABLE rocpd_string(id integer PRIMARY KEY, string text);
CREATE TABLE rocpd_op(id integer PRIMARY KEY, gpuId integer, begin integer, finish integer);
INSERT INTO rocpd_op VALUES(1, 0, 10, 20);"
sqlite3 -batch -init /dev/null "$TMP/bad/noapi.rpd" "
CREATE TABLE rocpd_string(id integer PRIMARY KEY, string text);
CREATE TABLE rocpd_op(id integer PRIMARY KEY, gpuId integer, queueId integer, sequenceId integer,
  start integer, \"end\" integer, description_id integer, opType_id integer);
INSERT INTO rocpd_string VALUES(1, 'k_only'), (2, 'KernelExecution');
INSERT INTO rocpd_op VALUES(1, 3, 0, 1, 10, 30, 1, 2);"
sha256sum "$TMP/bad/partial.rpd" "$TMP/bad/noapi.rpd" >"$TMP/bad.before"
"$DCUTOP" -q --export files -o "$TMP/bf.csv" "$TMP/bad"
check "rpd partial schema: the folder loads (exit 0)" test $? -eq 0
check "rpd partial schema: skipped with a note naming the schema" \
    sh -c "grep 'partial.rpd' '$TMP/bf.csv' | grep -q 'unknown or partial schema'"
check "rpd without rocpd_api: its kernel is loaded" \
    sh -c "grep 'noapi.rpd' '$TMP/bf.csv' | grep -q 'rocmProfileData'"
"$DCUTOP" -q --save-db "$TMP/b.db" "$TMP/bad"
same "rpd without rocpd_api: the kernel from the op table" "k_only	3	20" \
    "$(sq "$TMP/b.db" "SELECT k.name, d.gpu, d.dur_ns FROM dispatch d JOIN kernel k
        ON k.id = d.kernel_id JOIN source_file f ON f.id = d.file_id WHERE f.name LIKE '%noapi%'")"
check "rpd without rocpd_api: a message says the API table is absent" \
    sh -c "sqlite3 -readonly '$TMP/b.db' 'SELECT message FROM load_message' | grep -q 'rocpd_api absent'"
sha256sum "$TMP/bad/partial.rpd" "$TMP/bad/noapi.rpd" >"$TMP/bad.after"
check "rpd partial schema: files byte-identical" cmp -s "$TMP/bad.before" "$TMP/bad.after"
