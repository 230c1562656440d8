#!/bin/sh
# bench/hostile_bench.sh - the worst inputs of the hardening rounds must cost work linear in
# their size: each case at 1x, 2x and 4x its base size, with the time and peak memory of each
# and the ratio to the 1x run. Linear growth reads about 2 and 4; quadratic, 4 and 16 (a case
# whose cost is capped reads about 1).
# Reported, never asserted (timings of a shared machine move).
#   DCUTOP=./dcutop sh bench/hostile_bench.sh [BASE_MB]   (default 12)
set -u
DCUTOP=${DCUTOP:-./dcutop}
BASE=${1:-12}
TIME=/usr/bin/time
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# gen KIND FILE SIZE: a rocprofv3 kernel_trace.csv of one hostile kind
#   quote: SIZE MB whose row 5 opens a quoted field that runs to the end of the file, the lines
#          inside it starting with '""' (a chunk worker guessing a row start there reads on)
#   triton: SIZE distinct names sharing their first word (triton_poi_fused_add_mul_<i>)
#   long: one kernel name of SIZE MB among four rows
gen() {
    python3 - "$@" <<'PY'
import sys
kind, path, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
head = ('Kind,Agent_Id,Queue_Id,Thread_Id,Dispatch_Id,Kernel_Id,Kernel_Name,Correlation_Id,'
        'Start_Timestamp,End_Timestamp,Private_Segment_Size,Group_Segment_Size,Workgroup_Size_X,'
        'Workgroup_Size_Y,Workgroup_Size_Z,Grid_Size_X,Grid_Size_Y,Grid_Size_Z')
row = '%s,1,1,69,%d,%d,%s,%d,%d,%d,0,0,64,1,1,1024,1024,1\n'
with open(path, 'w') as f:
    f.write(head + '\n')
    written, i = 0, 0
    while (written < size << 20) if kind == 'quote' else (i < (size if kind == 'triton' else 4)):
        t = 1000000 + i * 1000
        k = 'KERNEL_DISPATCH'
        if kind == 'quote' and i >= 4:
            k = '"KERNEL_DISPATCH' if i == 4 else '""KERNEL_DISPATCH""'
        if kind == 'triton':
            name = 'triton_poi_fused_add_mul_%d' % i
        elif kind == 'long' and i == 1:
            name = 'k' + 'a' * (size << 20)
        else:
            name = 'addition_kernel' if kind == 'quote' else 'gemm_small'
        line = row % (k, i + 1, i + 1, name, i + 1, t, t + 500)
        f.write(line)
        written += len(line)
        i += 1
PY
}

# measure LABEL KIND BASE UNIT FIELD ARGS...: the case at 1x, 2x, 4x BASE, one line each
# (FIELD: GNU time's %e wall or %U user CPU seconds)
measure() {
    label=$1 kind=$2 base=$3 unit=$4 field=$5
    shift 5
    first=""
    for k in 1 2 4; do
        n=$((base * k))
        mkdir -p "$out/$kind$n"
        [ -f "$out/$kind$n/kernel_trace.csv" ] || gen "$kind" "$out/$kind$n/kernel_trace.csv" "$n"
        r=$($TIME -f "$field %M" "$DCUTOP" "$@" --report "$out/$kind$n" 2>&1 >/dev/null | tail -1)
        t=${r% *}
        [ -z "$first" ] && first=$t
        printf '%-34s %8s %9s %10s %7s\n' "$label" "$n $unit" "$t" "${r#* }" \
            "$(awk -v a="$t" -v b="$first" 'BEGIN{printf "%.2f", (b > 0 ? a / b : 0)}')"
    done
}

printf '%-34s %8s %9s %10s %7s\n' case size seconds "peak KB" ratio
measure "stray quote, --threads 1 (wall)" quote "$BASE" MB '%e' --threads 1
measure "stray quote, --threads 2 (wall)" quote "$BASE" MB '%e' --threads 2
# user CPU time below: the wall time of a short run on a loaded machine says little
measure "triton names, one first word (CPU)" triton 20000 names '%U'
measure "one long kernel name (CPU)" long 4 MB '%U'
