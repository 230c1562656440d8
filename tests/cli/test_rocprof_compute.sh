#!/bin/sh
# test_rocprof_compute.sh - rocprof-compute outputs (issue 24) on the real roc-optiq sample:
# the workload folder (pmc_perf.csv per dispatch with launch parameters, roofline.csv as
# measured peaks, sysinfo.csv as the device) and the analysis database (kernels, dispatches,
# metric values, roofline points), checked against the files themselves: awk over the CSVs
# and the sqlite3 CLI over the database (read-only).
. tests/cli/lib.sh
S=$REAL/rocprof-compute-optiq
DB=$S/rocprof_compute_23ed6f36.db
W=$S/workload-csv
if [ ! -f "$DB" ] || ! command -v sqlite3 >/dev/null 2>&1; then
    ok "rocprof-compute sample or sqlite3 CLI not found - skipped"
    exit 0
fi
sq() { sqlite3 -readonly -separator '|' "file:$1?immutable=1" "$2"; }
dq() { "$DCUTOP" --sql "$1" --format csv "$S" | tail -n +2 | tr -d '\r"' | tr , '|'; }

# the database and the workload CSVs are two runs: every file listed with --run all
"$DCUTOP" --export files --run all "$S" | tr -d '\r"' >"$TMP/files.csv"
check "pmc_perf.csv loads as per-dispatch PMC data" \
    grep -q 'pmc_perf.csv,rocprof-compute pmc_perf.csv (PMC per dispatch),kernel,8,0' "$TMP/files.csv"
check "roofline.csv loads as measured peaks" \
    grep -q 'roofline.csv,rocprof-compute roofline.csv (measured peaks),agent,8,0,used' "$TMP/files.csv"
check "sysinfo.csv loads as the device" \
    grep -q 'sysinfo.csv,rocprof-compute sysinfo.csv (device),agent,1,0,used' "$TMP/files.csv"
check "the analysis database loads" \
    grep -q 'rocprof_compute_23ed6f36.db,rocprof-compute analysis database,agent+kernel,11,0' "$TMP/files.csv"

# launch parameters of pmc_perf.csv, row by row (grid, workgroup, LDS, VGPR, SGPR; read by
# the sqlite3 CLI: kernel names hold commas)
sqlite3 :memory: ".import --csv $W/pmc_perf.csv p" \
    "SELECT Grid_Size, Workgroup_Size, LDS_Per_Workgroup, Arch_VGPR, SGPR FROM p" |
    sort >"$TMP/launch.want"
dq "SELECT d.grid, d.workgroup, d.lds, d.vgpr, d.sgpr FROM main.dispatch d JOIN main.source_file f
    ON f.id = d.file_id WHERE f.name LIKE '%pmc_perf.csv'" | sort >"$TMP/launch.got"
check "pmc_perf.csv launch parameters per dispatch" cmp -s "$TMP/launch.want" "$TMP/launch.got"

# sysinfo.csv: model, arch, CUs, clocks (read by the sqlite3 CLI: a field holds a comma)
sqlite3 :memory: ".import --csv $W/sysinfo.csv s" \
    "SELECT gpu_model, gpu_arch, cu_per_gpu, max_sclk, max_mclk FROM s" >"$TMP/sys.want"
dq "SELECT model, arch, cus, CAST(sclk_mhz AS INTEGER), CAST(mclk_mhz AS INTEGER)
    FROM main.device_info d JOIN main.source_file f ON f.id = d.file_id
    WHERE f.name LIKE '%sysinfo.csv'" >"$TMP/sys.got"
same "sysinfo.csv names the device" "$(cat "$TMP/sys.want")" "$(cat "$TMP/sys.got")"

# measured peaks: every figure of every device row of roofline.csv (relative error 1e-9)
awk -F, 'NR == 1 { for (i = 2; i <= NF; i++) h[i] = $i; next }
    { for (i = 2; i <= NF; i++) if (h[i] !~ /(Low|High)$/) print $1 "|" h[i] "|" $i }' \
    "$W/roofline.csv" | sort >"$TMP/peaks.want"
dq "SELECT device, metric, value FROM main.measured_peak m JOIN main.source_file f
    ON f.id = m.file_id WHERE f.name LIKE '%roofline.csv'" | sort >"$TMP/peaks.got"
# match A B: every key (all fields but the last) has the same number in both, and no more
match() {
    awk -F'|' 'NR == FNR { k = $0; sub(/\|[^|]*$/, "", k); w[k] = $NF; n++; next }
        { k = $0; sub(/\|[^|]*$/, "", k); if (!(k in w)) exit 1; d = w[k] - $NF; if (d < 0) d = -d
          a = w[k] < 0 ? -w[k] : w[k]; if (d > 1e-9 * a + 1e-12) exit 1; m++ }
        END { exit !(m == n && n > 0) }' "$1" "$2"
}
check "measured peaks equal roofline.csv ($(wc -l <"$TMP/peaks.want") figures)" \
    match "$TMP/peaks.want" "$TMP/peaks.got"

# the analysis database: dispatches per kernel, by the database's own names
sq "$DB" "SELECT hex(k.kernel_name), count(*), sum(d.end_timestamp - d.start_timestamp)
    FROM compute_dispatch d JOIN compute_kernel k USING(kernel_uuid) GROUP BY 1" | sort >"$TMP/k.want"
dq "SELECT hex(k.name), count(*), sum(d.dur_ns) FROM main.dispatch d JOIN main.kernel k
    ON k.id = d.kernel_id JOIN main.source_file f ON f.id = d.file_id
    WHERE f.name LIKE '%.db' GROUP BY k.id" | sort >"$TMP/k.got"
check "database dispatches per kernel" cmp -s "$TMP/k.want" "$TMP/k.got"

# Speed-of-Light metric values per kernel, by the database's metric names
sq "$DB" "SELECT k.kernel_uuid, m.metric_id, m.name, v.value_name, printf('%.9g', v.value)
    FROM compute_kernel_metric_value v JOIN compute_metric_definition m USING(metric_uuid)
    JOIN compute_kernel k ON k.kernel_uuid = v.kernel_uuid
    WHERE m.sub_table_name LIKE '%Speed-of-Light%'" | cut -d'|' -f2- | sort >"$TMP/sol.want"
dq "SELECT metric_id, name, value_name, printf('%.9g', value) FROM main.compute_metric
    WHERE sub_table LIKE '%Speed-of-Light%'" | sort >"$TMP/sol.got"
check "Speed-of-Light values equal the database's ($(wc -l <"$TMP/sol.want") values)" \
    cmp -s "$TMP/sol.want" "$TMP/sol.got"

# the database's roofline benchmark: its measured peaks
sq "$DB" "SELECT j.key, printf('%.6g', j.value) FROM compute_workload w,
    json_each(w.roofline_bench_extdata) j" | sort >"$TMP/bench.want"
dq "SELECT metric, printf('%.6g', value) FROM main.measured_peak m JOIN main.source_file f
    ON f.id = m.file_id WHERE f.name LIKE '%.db'" | sort >"$TMP/bench.got"
check "the database's measured peaks" cmp -s "$TMP/bench.want" "$TMP/bench.got"

# a kernel of the database and the same kernel of pmc_perf.csv are one kernel (by name)
n=$(dq "SELECT count(DISTINCT d.kernel_id) FROM main.dispatch d JOIN main.source_file f
    ON f.id = d.file_id WHERE f.name LIKE '%pmc_perf.csv' AND d.kernel_id IN
    (SELECT kernel_id FROM main.compute_metric)")
same "kernels join across the database and pmc_perf.csv by name" 2 "$n"

# measured peaks win over the table for the device sysinfo.csv names: the Qwen trace (an
# MI300X) beside this roofline.csv, its sysinfo.csv renamed to MI300X; each figure says where
# it came from, and % of peak follows the measured HBM bandwidth
QWEN=$REAL/pytorch-kineto-mi300-qwen
if [ -d "$QWEN" ]; then
    mkdir -p "$TMP/m/rc"
    cp "$QWEN"/*.json.gz "$TMP/m/"
    cp "$W/roofline.csv" "$TMP/m/rc/"
    sed 's/,MI308X,/,MI300X,/' "$W/sysinfo.csv" >"$TMP/m/rc/sysinfo.csv"
    hbm=$(awk -F, 'NR == 2 { print $2 }' "$W/roofline.csv")
    f16=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "MFMAF16Flops") c = i }
        NR == 2 { print $c / 1000 }' "$W/roofline.csv")
    "$DCUTOP" -q --report --view efficiency --width 300 "$TMP/m" >"$TMP/m.txt"
    check "Efficiency: HBM and fp16 from roofline.csv, the rest from the table" \
        grep -q "fp16 $f16,.* $(printf '%g' "$hbm") GB/s (peaks measured by rocprof-compute, rc/roofline.csv: fp16, fp32, HBM; others: built-in line" "$TMP/m.txt"
    "$DCUTOP" -q --export efficiency "$TMP/m" | tr -d '\r' >"$TMP/m.csv"
    check "--export efficiency says where each peak came from" \
        grep -q '"bf16: table (built-in line [0-9]*); HBM: measured (rc/roofline.csv)"' "$TMP/m.csv"
    python3 - "$TMP/m.csv" "$hbm" <<'PY' >"$TMP/check" 2>&1
import csv, sys
hbm = float(sys.argv[2])
r = [x for x in csv.DictReader(open(sys.argv[1])) if x["op"] == "aten::mul" and x["bound"] == "memory"][0]
by, ns = int(r["bytes"]), int(r["kernel_ns"])
assert abs(float(r["pct_peak"]) - 100 * (by / hbm) / ns) < 1e-4, (r["pct_peak"], 100 * by / hbm / ns)
print("fine")
PY
    same "% of peak of a memory-bound op against the measured HBM bandwidth" "fine" "$(cat "$TMP/check")"
    # a device rocprof-compute did not measure, and no table line: no peak known, and how
    zcat "$QWEN"/*.json.gz | sed 's/AMD Instinct MI300X VF/Hygon K100_AI/' | gzip >"$TMP/h.json.gz"
    "$DCUTOP" -q --report --view efficiency --width 300 "$TMP/h.json.gz" >"$TMP/h.txt"
    check "a DCU without figures: no peak known" grep -q "K100_AI: no peak known" "$TMP/h.txt"
    check "... says how to get one (roofline.csv or a peaks line)" \
        grep -q "roofline.csv.*NAME<TAB>bf16 fp16 fp32 fp8 GBps" "$TMP/h.txt"
    check "... and shows achieved TFLOP/s anyway" grep -q "aten::mm .* 466.4" "$TMP/h.txt"
else
    ok "Qwen trace not found - measured peaks on Efficiency skipped"
fi

# the Kernel detail of a database kernel: its roofline point and Speed-of-Light metrics, by
# the database's names, with the database's values (printed %.6g)
printf '# kernel detail\n<Tab>\n/sobol<Enter>\n<Enter>\n:dump kernel\n' >"$TMP/k.keys"
"$DCUTOP" --headless --size 160x200 --keys "$TMP/k.keys" "$S" >"$TMP/k.txt" 2>&1
want=$(sq "$DB" "SELECT printf('%.6g', v.value) FROM compute_kernel_metric_value v
    JOIN compute_metric_definition m USING(metric_uuid) JOIN compute_kernel k USING(kernel_uuid)
    WHERE k.kernel_name LIKE '%generate_sobol%' AND m.name = 'VALU Utilization'
    AND m.sub_table_name = 'System Speed-of-Light' AND v.value_name = 'Avg'")
check "Kernel detail: VALU Utilization Avg $want (the database's value)" \
    grep -q "VALU Utilization  *Avg $want, Peak 100" "$TMP/k.txt"
check "Kernel detail: the sub-tables by their titles" grep -q "^  L2 Speed-of-Light" "$TMP/k.txt"
gf=$(sq "$DB" "SELECT printf('%.4g', r.total_flops) FROM compute_kernel_roofline_data r
    JOIN compute_kernel k USING(kernel_uuid) WHERE k.kernel_name LIKE '%generate_sobol%'")
check "Kernel detail: its point on the measured roofline ($gf GFLOP/s)" \
    grep -q "Roofline  *$gf GFLOP/s at" "$TMP/k.txt"

# --export compute: every Speed-of-Light value and roofline point, per kernel
"$DCUTOP" --export compute "$S" | tr -d '\r' >"$TMP/c.csv"
n_sol=$(sq "$DB" "SELECT count(*) FROM compute_kernel_metric_value v JOIN compute_metric_definition
    m USING(metric_uuid) WHERE m.sub_table_name LIKE '%Speed-of-Light%'")
n_roof=$(sq "$DB" "SELECT 4 * count(*) FROM compute_kernel_roofline_data")
same "--export compute: one row per value and roofline figure" "$((n_sol + n_roof + 1))" \
    "$(python3 -c 'import csv,sys; print(len(list(csv.reader(open(sys.argv[1])))))' "$TMP/c.csv")"

# each database kernel as a point on the measured roofline: the report's table (GFLOP/s and
# HBM intensity from compute_kernel_roofline_data, % of min(FP32, AI x HBM) from the
# database's benchmark) and the Efficiency screen's plot
"$DCUTOP" -q --report --view efficiency --width 200 "$S" >"$TMP/e.txt"
roof=$(sq "$DB" "SELECT printf('%.4g', min(json_extract(w.roofline_bench_extdata, '$.FP32Flops'),
    r.hbm_cache_data * json_extract(w.roofline_bench_extdata, '$.HBMBw')))
    FROM compute_kernel_roofline_data r JOIN compute_kernel k USING(kernel_uuid), compute_workload w
    WHERE k.kernel_name LIKE '%generate_sobol%'")
check "report: generate_sobol on the measured roofline (roof $roof GFLOP/s)" \
    grep -q "generate_sobol_kernel.* 468.1 .* 0.4987 .* $roof " "$TMP/e.txt"
printf '# eff\nF\n:dump eff\n' >"$TMP/e.keys"
"$DCUTOP" --headless --size 100x30 --keys "$TMP/e.keys" "$S" >"$TMP/e.scr" 2>&1
check "Efficiency screen: the database's kernels on its measured roofline" \
    grep -q "rocprof-compute kernels: FP32 137.433 TFLOP/s, HBM" "$TMP/e.scr"

# a hostile analysis database: kernels without names, dispatches without kernels, bad JSON,
# infinite and negative peaks: nothing crashes, the good rows load, the rest is counted
sqlite3 "$TMP/h.db" "CREATE TABLE compute_kernel(kernel_uuid, workload_id, kernel_name);
CREATE TABLE compute_dispatch(dispatch_uuid, kernel_uuid, dispatch_id, gpu_id, start_timestamp,
  end_timestamp);
CREATE TABLE compute_workload(workload_id, name, sub_name, sys_info_extdata, roofline_bench_extdata);
CREATE TABLE compute_kernel_roofline_data(roofline_uuid, kernel_uuid, total_flops, l1_cache_data,
  l2_cache_data, hbm_cache_data);
INSERT INTO compute_kernel VALUES(1, 1, 'k1'), (3, 1, NULL), (5, 1, 123), (7, 1, X'6b0a1b5b3331');
INSERT INTO compute_dispatch VALUES(1, 1, 0, 0, 100, 200), (4, 99, 3, 0, 1, 2), (5, 3, 4, 0, 1, 5),
  (6, 5, 5, 0, 1, 9e300), (7, 7, 6, 'a', 'b', 'c'), (8, 1, 7, 0, 300, 250);
INSERT INTO compute_workload VALUES(1, 'w', 's', '{not json', '[1,2'), (2, 'w', 's',
  '{\"gpu_model\": \"X\", \"cu_per_gpu\": \"lots\"}',
  '{\"HBMBw\": 1e400, \"FP32Flops\": -5, \"L2Bw\": \"fast\", \"LDSBw\": 7}');
INSERT INTO compute_kernel_roofline_data VALUES(1, 1, 'NaN', 1e999, -1e999, NULL), (2, 42, 1, 1, 1, 1);"
"$DCUTOP" --export files "$TMP/h.db" 2>"$TMP/h.err" | tr -d '"' >"$TMP/h.csv"
check "hostile database: loads what is good" grep -q 'rocprof-compute analysis database,agent+kernel,2,' "$TMP/h.csv"
check "... and says what it left out" grep -q '4 dispatches without a named kernel not loaded' "$TMP/h.err"
same "... only the finite, non-negative peak" "LDSBw|7.0" \
    "$("$DCUTOP" --sql 'SELECT metric, value FROM main.measured_peak' --format csv "$TMP/h.db" 2>/dev/null |
        tail -n +2 | tr -d '\r"' | tr , '|')"
