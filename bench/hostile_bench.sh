#!/bin/sh
# bench/hostile_bench.sh - the worst inputs of the hardening rounds must cost work linear in
# their size: each case at 1x, 2x and 4x its base size, with the time and peak memory of each
# and the ratio to the 1x run. Linear growth reads about 2 and 4; quadratic, 4 and 16.
# Reported, never asserted (timings of a shared machine move).
#   DCUTOP=./dcutop sh bench/hostile_bench.sh [BASE_MB]   (default 12)
set -u
DCUTOP=${DCUTOP:-./dcutop}
BASE=${1:-12}
TIME=/usr/bin/time
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# A plain rocprofv3 kernel_trace.csv whose row 5 opens a quoted field that runs to the end of
# the file, the lines inside it starting with '""' (a chunk worker guessing a row start there
# reads on); --threads 1 and 2.
gen_quote() {
    python3 - "$1" "$2" <<'PY'
import sys
head = ('Kind,Agent_Id,Queue_Id,Thread_Id,Dispatch_Id,Kernel_Id,Kernel_Name,Correlation_Id,'
        'Start_Timestamp,End_Timestamp,Private_Segment_Size,Group_Segment_Size,Workgroup_Size_X,'
        'Workgroup_Size_Y,Workgroup_Size_Z,Grid_Size_X,Grid_Size_Y,Grid_Size_Z')
with open(sys.argv[1], 'w') as f:
    f.write(head + '\n')
    size, i = 0, 0
    while size < int(sys.argv[2]) << 20:
        kind = 'KERNEL_DISPATCH' if i < 4 else '"KERNEL_DISPATCH' if i == 4 else '""KERNEL_DISPATCH""'
        t = 1000000 + i * 1000
        l = '%s,1,1,69,%d,16,addition_kernel,%d,%d,%d,0,0,64,1,1,1024,1024,1\n' % (kind, i + 1, i + 1, t, t + 500)
        f.write(l)
        size += len(l)
        i += 1
PY
}
printf '%-34s %6s %9s %10s %7s\n' case MB seconds "peak KB" ratio
for threads in 1 2; do
    first=""
    for k in 1 2 4; do
        mb=$((BASE * k))
        mkdir -p "$out/q$mb"
        [ -f "$out/q$mb/kernel_trace.csv" ] || gen_quote "$out/q$mb/kernel_trace.csv" "$mb"
        r=$($TIME -f '%e %M' "$DCUTOP" --threads "$threads" --report "$out/q$mb" 2>&1 >/dev/null | tail -1)
        set -- $r
        [ -z "$first" ] && first=$1
        printf '%-34s %6s %9s %10s %7s\n' "stray quote, --threads $threads" "$mb" "$1" "$2" \
            "$(awk -v a="$1" -v b="$first" 'BEGIN{printf "%.2f", (b > 0 ? a / b : 0)}')"
    done
done
# Distinct kernel names that share their first word (triton_poi_fused_add_mul_<i>): the short
# names' keys were quadratic in the names of a group. User CPU time: the wall time of a short
# run on a loaded machine says little.
gen_triton() {
    python3 - "$1" "$2" <<'PY'
import sys
head = ('Kind,Agent_Id,Queue_Id,Thread_Id,Dispatch_Id,Kernel_Id,Kernel_Name,Correlation_Id,'
        'Start_Timestamp,End_Timestamp,Private_Segment_Size,Group_Segment_Size,Workgroup_Size_X,'
        'Workgroup_Size_Y,Workgroup_Size_Z,Grid_Size_X,Grid_Size_Y,Grid_Size_Z')
with open(sys.argv[1], 'w') as f:
    f.write(head + '\n')
    for i in range(int(sys.argv[2])):
        t = 1000000 + i * 1000
        f.write('KERNEL_DISPATCH,1,1,69,%d,%d,triton_poi_fused_add_mul_%d,%d,%d,%d,0,0,64,1,1,1024,1024,1\n'
                % (i + 1, i + 1, i, i + 1, t, t + 500))
PY
}
printf '%-34s %6s %9s %10s %7s\n' case names "user s" "peak KB" ratio
first=""
for k in 1 2 4; do
    n=$((20000 * k))
    mkdir -p "$out/t$n"
    gen_triton "$out/t$n/kernel_trace.csv" "$n"
    r=$($TIME -f '%U %M' "$DCUTOP" --report "$out/t$n" 2>&1 >/dev/null | tail -1)
    set -- $r
    [ -z "$first" ] && first=$1
    printf '%-34s %6s %9s %10s %7s\n' "triton names, one first word" "$n" "$1" "$2" \
        "$(awk -v a="$1" -v b="$first" 'BEGIN{printf "%.2f", (b > 0 ? a / b : 0)}')"
done
# One kernel name of 4, 8 and 16 MB in a rocprofv3 kernel_trace.csv: every format cuts a name
# at 1 MiB before the category rules and the rest see it, so the cost past reading the bytes
# stays flat (a 16 MB name took 28-44 s and 600 MB before the cap).
gen_long_name() {
    python3 - "$1" "$2" <<'PY'
import sys
head = ('Kind,Agent_Id,Queue_Id,Thread_Id,Dispatch_Id,Kernel_Id,Kernel_Name,Correlation_Id,'
        'Start_Timestamp,End_Timestamp,Private_Segment_Size,Group_Segment_Size,Workgroup_Size_X,'
        'Workgroup_Size_Y,Workgroup_Size_Z,Grid_Size_X,Grid_Size_Y,Grid_Size_Z')
with open(sys.argv[1], 'w') as f:
    f.write(head + '\n')
    for i in range(4):
        name = 'k' + 'a' * (int(sys.argv[2]) << 20) if i == 1 else 'gemm_small'
        t = 1000000 + i * 1000
        f.write('KERNEL_DISPATCH,1,1,69,%d,16,%s,%d,%d,%d,0,0,64,1,1,1024,1024,1\n'
                % (i + 1, name, i + 1, t, t + 500))
PY
}
printf '%-34s %6s %9s %10s %7s\n' case MB "user s" "peak KB" ratio
first=""
for k in 1 2 4; do
    mb=$((4 * k))
    mkdir -p "$out/n$mb"
    gen_long_name "$out/n$mb/kernel_trace.csv" "$mb"
    r=$($TIME -f '%U %M' "$DCUTOP" --report "$out/n$mb" 2>&1 >/dev/null | tail -1)
    set -- $r
    [ -z "$first" ] && first=$1
    printf '%-34s %6s %9s %10s %7s\n' "one long kernel name" "$mb" "$1" "$2" \
        "$(awk -v a="$1" -v b="$first" 'BEGIN{printf "%.2f", (b > 0 ? a / b : 0)}')"
done
