# test_wait.sh - waiting is never an opportunity (issue 21): once the Ranks verdict says the
# comm time is waiting for a straggler, Hotspots, Categories and the Summary give it no ceiling
# and mark it `wait`; a single rank, with nobody to wait for, keeps its ceiling.
. tests/cli/lib.sh
DDP=$REAL/pytorch-h200-ddp-2rank
# col CSV KEYCOL KEY COL: the value of column COL in the row whose KEYCOL is KEY
col() {
    python3 - "$@" <<'PYEOF'
import csv, sys
for r in csv.DictReader(open(sys.argv[1], newline="")):
    if r[sys.argv[2]] == sys.argv[3]:
        print(r[sys.argv[4]]); break
PYEOF
}
N=ncclDevKernel_AllReduce_Sum_f32_RING_LL
$DCUTOP -q --export hotspots "$DDP" -o "$TMP/hot.csv"
same "job: the AllReduce kernel (waiting) has no ceiling" "" "$(col "$TMP/hot.csv" short_name $N ceiling)"
check "job: a compute kernel keeps its ceiling" sh -c "[ -n \"$(col "$TMP/hot.csv" category gemm ceiling)\" ]"
$DCUTOP -q --export categories "$DDP" -o "$TMP/cat.csv"
same "job: the comm category is marked wait, without a ceiling" "wait;" "$(col "$TMP/cat.csv" category comm group);$(col "$TMP/cat.csv" category comm ceiling)"
$DCUTOP -q --report --view hotspots "$DDP" >"$TMP/hot.txt"
check "job: the hotspots say why" grep -q "comm kernels: waiting for a straggler rank (Ranks, 9), not work: no ceiling" "$TMP/hot.txt"
$DCUTOP -q --export categories --what-if comm=2 "$DDP" -o "$TMP/wi.csv"
same "job: a what-if on the waiting time gains nothing" "1.000000" "$(col "$TMP/wi.csv" category comm speedup)"
$DCUTOP -q --export hotspots "$DDP/rank1.trace.json.gz" -o "$TMP/one.csv"
check "one rank alone: its AllReduce keeps a ceiling" sh -c "[ -n \"$(col "$TMP/one.csv" short_name $N ceiling)\" ]"
printf '1\n:dump s\n' >"$TMP/s.keys"
$DCUTOP --headless --size 100x50 --keys "$TMP/s.keys" "$DDP/rank0.trace.json.gz" "$DDP/rank1.trace.json.gz" >"$TMP/s.txt"
check "Summary: the waiting kernel's ceiling reads wait" grep -q "ncclDevKernel_AllReduce_Sum_f32_RING_LL .* comm .*39.64%    wait" "$TMP/s.txt"
check "Summary: the comm category's ceiling reads wait" grep -q "^  comm         39.64%    wait" "$TMP/s.txt"
$DCUTOP -q --report --view categories --what-if comm=2 "$DDP" >"$TMP/wi.txt"
check "job: the whole-program what-if on the waiting time gains nothing" grep -q "What-if comm=2: whole program at most 1.00x faster" "$TMP/wi.txt"
