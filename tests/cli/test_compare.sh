#!/bin/sh
# test_compare.sh - comparisons read right (issue 21): kernel names unique across both sides
# of a diff, the gate on runs marked in batch, and jobs compared rank by rank. Runs are
# generated here as small rocprof v1 results.csv files.
. tests/cli/lib.sh
XDG_CONFIG_HOME=$TMP/xdg
export XDG_CONFIG_HOME

# gen DIR SPEC...: SPEC is NAME:COUNT:BASE_NS; durations BASE + 7*i mod 50
gen() {
    python3 - "$@" <<'EOF'
import os, sys
d = sys.argv[1]
os.makedirs(d, exist_ok=True)
t = 1000
with open(os.path.join(d, "results.csv"), "w") as f:
    f.write('"Index","KernelName","gpu-id","queue-id","pid","tid","BeginNs","EndNs","DurationNs"\n')
    idx = 0
    for spec in sys.argv[2:]:
        name, n, base = spec.rsplit(":", 2)
        for i in range(int(n)):
            dur = int(base) + (7 * i) % 50
            f.write('%d,"%s",0,0,1,1,%d,%d,%d\n' % (idx, name, t, t + dur, dur))
            t += dur + 100
            idx += 1
EOF
}

# ---------------------------------------------------------------- names across both sides
# The GEMM under test changed from a bias epilogue to gelu+bias: each side holds one of the
# two look-alikes, so each side alone keeps keys (coopA, TNT) that do not tell them apart.
P=nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_
gen "$TMP/bias" "${P}bias_TNT:40:2000" "${P}TNN:40:1000" "void add_k(float*, int):40:500"
gen "$TMP/gelu" "${P}gelubias_TNT:40:2300" "${P}TNN:40:1000" "void add_k(float*, int):40:500"
# second runs of each, a nanosecond apart (a run given twice is refused)
gen "$TMP/bias2" "${P}bias_TNT:40:2001" "${P}TNN:40:1001" "void add_k(float*, int):40:501"
gen "$TMP/gelu2" "${P}gelubias_TNT:40:2301" "${P}TNN:40:1001" "void add_k(float*, int):40:501"
# names DIFFTEXT: the first column of the kernel rows (Kernels: or A-B-B-A table)
names() { awk '/^(Kernels|A-B-B-A per)/{on=1; getline; next} on && NF == 0 {on=0} on {print $1}' "$1"; }
$DCUTOP -q --diff "$TMP/bias" "$TMP/gelu" --width 80 >"$TMP/d.txt"
same "names: the diff's kernel rows at 80 columns are all different" "" \
    "$(names "$TMP/d.txt" | sort | uniq -d)"
check "names: the new kernel reads gelubias" grep -q "gelubias_TNT  new" "$TMP/d.txt"
check "names: the gone kernel reads bias" grep -q "[^u]bias_TNT  gone" "$TMP/d.txt"
$DCUTOP -q --abba "$TMP/bias" "$TMP/gelu" "$TMP/gelu2" "$TMP/bias2" --width 80 >"$TMP/ab.txt"
same "names: the A-B-B-A report's rows at 80 columns are all different" "" \
    "$(names "$TMP/ab.txt" | sort | uniq -d)"
check "names: the A-B-B-A report shows gelubias" grep -q "gelubias_TNT " "$TMP/ab.txt"
# the Diff screen at 80x24
printf ':dump d\n' >"$TMP/d.keys"
$DCUTOP --headless --size 80x24 --keys "$TMP/d.keys" --diff "$TMP/bias" "$TMP/gelu" >"$TMP/scr.txt" 2>/dev/null
check "names: the Diff screen at 80x24 shows gelubias" grep -q "gelubias" "$TMP/scr.txt"
check "names: the Diff screen at 80x24 shows the bias kernel" grep -q "[^u]bias_T" "$TMP/scr.txt"

# ---------------------------------------------------------------- Enter on new and gone kernels
# row 1 is the new gelubias kernel (candidate's detail), row 2 the gone bias kernel: its detail
# is the baseline's (81.0 us in A; B never ran it)
printf '<Down>\n<Enter>\n:dump gone\n<Esc>\n<Home>\n<Enter>\n:dump new\n' >"$TMP/g.keys"
$DCUTOP --headless --size 80x24 --keys "$TMP/g.keys" --diff "$TMP/bias" "$TMP/gelu" >"$TMP/g.txt" 2>&1
sed -n '/^--- gone/,/^--- new/p' "$TMP/g.txt" >"$TMP/gone.txt"
sed -n '/^--- new/,$p' "$TMP/g.txt" >"$TMP/new.txt"
check "Enter on a gone kernel opens the baseline's kernel detail" grep -q "^    ${P}bias_TNT" "$TMP/gone.txt"
check "... with the baseline's figures" grep -q "Total        81.0 us" "$TMP/gone.txt"
check "Enter on a new kernel opens the candidate's kernel detail" grep -q "^    ${P}gelubias_TNT" "$TMP/new.txt"
check "... with the candidate's figures" grep -q "Total        93.0 us" "$TMP/new.txt"
# the same on the A-B-B-A table (rows: the layer, then the kernels by |effect|)
printf '<Down><Down>\n<Enter>\n:dump gone\n' >"$TMP/ga.keys"
$DCUTOP --headless --size 80x24 --keys "$TMP/ga.keys" --abba "$TMP/bias" "$TMP/gelu" "$TMP/gelu2" "$TMP/bias2" >"$TMP/ga.txt" 2>&1
check "A-B-B-A: Enter on a gone kernel opens the baseline's detail" grep -q "Total        81.0 us" "$TMP/ga.txt"
# v on the A-B-B-A table: per category, and back
printf 'v\n:dump cats\nv\n:dump kernels\n' >"$TMP/v.keys"
$DCUTOP --headless --size 80x24 --keys "$TMP/v.keys" --abba "$TMP/bias" "$TMP/gelu" "$TMP/gelu2" "$TMP/bias2" >"$TMP/v.txt" 2>&1
check "A-B-B-A: v shows the categories" sh -c "sed -n '/^--- cats/,/^--- kernels/p' '$TMP/v.txt' | grep -q '^ gemm '"
check "A-B-B-A: v again shows the kernels" sh -c "sed -n '/^--- kernels/,\$p' '$TMP/v.txt' | grep -q '^ add_k '"

# ---------------------------------------------------------------- the gate on marks in batch
# Runs of one folder marked A and B on the command line (--baseline / --candidate: the Runs
# screen's a / b marks); two and two are an A-B-B-A in the order given: A1 B1 B2 A2.
G='void gemm_k(float*, int)'
gen "$TMP/m/A1" "$G:40:1000"
gen "$TMP/m/A2" "$G:40:1001"   # separate runs differ a little
gen "$TMP/m/S1" "$G:40:1200"
gen "$TMP/m/S2" "$G:40:1202"
gen "$TMP/m/S0" "$G:40:1000"   # S0, N1: two repeats of B that disagree more than the effect
gen "$TMP/m/N1" "$G:40:1300"
exits "marks: a trusted A-B-B-A regression fails the gate (exit 3)" 3 \
    $DCUTOP -q "$TMP/m" --baseline A1,A2 --candidate S1,S2 --fail-above 5
check "marks: the last line says FAILED and why" sh -c "tail -1 '$TMP/out' | grep -q '^gate FAILED: A-B-B-A device kernel time effect +[0-9.]*% (limit +5%), trusted'"
check "marks: the report is the A-B-B-A of the marked runs, in the order given" \
    grep -q "A-B-B-A: A1 = A1, B1 = S1, B2 = S2, A2 = A2" "$TMP/out"
exits "marks: B faster passes (exit 0)" 0 $DCUTOP -q "$TMP/m" --baseline S1,S2 --candidate A1,A2 --fail-above 5
check "marks: the last line says passed" sh -c "tail -1 '$TMP/out' | grep -q '^gate passed: '"
exits "marks: an untrusted regression (repeats disagree) exits 0" 0 \
    $DCUTOP -q "$TMP/m" --baseline A1,A2 --candidate S0,N1 --fail-above 5
check "marks: ... with a warning on the last line" sh -c "tail -1 '$TMP/out' | grep -q '^gate passed with a WARNING: .*untrusted.*repeats B2 - B1.*--strict exits 4'"
exits "marks: the untrusted regression exits 4 with --strict" 4 \
    $DCUTOP -q --strict "$TMP/m" --baseline A1,A2 --candidate S0,N1 --fail-above 5
check "marks: ... and says why" sh -c "tail -1 '$TMP/out' | grep -q '^gate FAILED (--strict: untrusted counts): '"
exits "marks: one run a side is a diff with the gate (exit 3)" 3 \
    $DCUTOP -q "$TMP/m" --baseline A1 --candidate S1 --fail-above 5
check "marks: ... its last line says FAILED" sh -c "tail -1 '$TMP/out' | grep -q '^gate FAILED: device kernel time +'"
exits "marks: --gate on the kernels of a category" 3 \
    $DCUTOP -q "$TMP/m" --baseline A1,A2 --candidate S1,S2 --fail-above 5 --gate gemm_k
exits "marks: an unknown run label is a usage error" 2 \
    $DCUTOP -q "$TMP/m" --baseline A1,X9 --candidate S1 --fail-above 5
check "marks: ... that lists the runs" grep -q "no run labelled 'X9'; the runs are: " "$TMP/err"
exits "marks: --baseline without --candidate is a usage error" 2 $DCUTOP -q "$TMP/m" --baseline A1
$DCUTOP -q "$TMP/m" --baseline A1,A2 --candidate S1,S2 --export abba -o "$TMP/m.csv"
$DCUTOP -q --export abba "$TMP/m/A1" "$TMP/m/S1" "$TMP/m/S2" "$TMP/m/A2" -o "$TMP/p.csv"
check "marks: --export abba equals --abba's over the same runs" cmp -s "$TMP/m.csv" "$TMP/p.csv"

# ---------------------------------------------------------------- two jobs: rank by rank
# gen_ranks.py: 8 ranks; in the straggler job rank 3 computes 6 ms more in step 2 and the
# others wait for it in the AllReduce
python3 tests/cli/gen_ranks.py "$TMP/jobA" even >/dev/null
python3 tests/cli/gen_ranks.py "$TMP/jobB" straggler >/dev/null
$DCUTOP -q --diff "$TMP/jobA" "$TMP/jobB" >"$TMP/jobs.txt"
check "jobs: --diff of two jobs compares them rank by rank" grep -q "^Jobs: A has 8 ranks, B has 8; ranks matched by number" "$TMP/jobs.txt"
same "jobs: one line per rank, 0 to 7" "0 1 2 3 4 5 6 7" "$(awk '/^  Rank /{on=1; next} on && $1 ~ /^[0-9]+$/ {printf "%s%s", sep, $1; sep=" "} /Critical/{on=0}' "$TMP/jobs.txt")"
check "jobs: rank 3's kernel time 44 -> 50 ms" grep -q "^     3       44.000       50.000  +13.64%" "$TMP/jobs.txt"
check "jobs: B's critical rank is the straggler, rank 3" grep -q "Critical (slowest) rank: A rank 0, B rank 3" "$TMP/jobs.txt"
check "jobs: the comparison below is of the critical ranks" grep -q "diff: A = $TMP/jobA, rank 0, B = $TMP/jobB, rank 3" "$TMP/jobs.txt"
check "jobs: the critical ranks' GEMM time 40 -> 46 ms" grep -q "gemm_bf16_tn .* 40.00      46.00" "$TMP/jobs.txt"
exits "jobs: the gate judges the critical ranks (untrusted: exit 0)" 0 $DCUTOP -q --diff "$TMP/jobA" "$TMP/jobB" --fail-above 5
check "jobs: ... and says so on the last line" sh -c "tail -1 '$TMP/out' | grep -q '^gate passed with a WARNING: device kernel time +13.64%'"
$DCUTOP -q --diff "$TMP/jobA" "$TMP/jobA" >"$TMP/self.txt"
check "jobs: a job against itself: every rank +0.00%" sh -c "! awk '/^  Rank /{on=1; next} /Critical/{on=0} on' '$TMP/self.txt' | grep -v '+0.00%' | grep -q ."
# two ranks of one job: an explicit --diff still diffs them, a plain `dcutop r0 r1` is the job
D=$REAL/pytorch-h200-ddp-2rank
$DCUTOP -q --diff "$D/rank0.trace.json.gz" "$D/rank1.trace.json.gz" >"$TMP/r01.txt"
check "ranks: an explicit --diff rank0 rank1 still diffs them" grep -q "^dcutop .* diff: A = .*rank0.trace.json.gz, B = .*rank1.trace.json.gz" "$TMP/r01.txt"
check "ranks: ... as two runs (no per-rank section)" sh -c "! grep -q '^Jobs:' '$TMP/r01.txt'"
printf ':dump s\n' >"$TMP/s.keys"
$DCUTOP --headless --size 80x24 --keys "$TMP/s.keys" "$D/rank0.trace.json.gz" "$D/rank1.trace.json.gz" >"$TMP/r01s.txt" 2>/dev/null
check "ranks: plain dcutop rank0 rank1 opens the Ranks screen" grep -q "^ Rank  Run " "$TMP/r01s.txt"
# the Diff screen of two jobs compares the same critical ranks as the report
$DCUTOP --headless --size 120x24 --keys "$TMP/s.keys" --diff "$TMP/jobA" "$TMP/jobB" >"$TMP/jobs_s.txt" 2>/dev/null
check "jobs: the Diff screen compares the critical ranks (44.0 -> 50.0 ms)" grep -q "^ Kernel time 44.0 ms -> 50.0 ms" "$TMP/jobs_s.txt"
check "jobs: its header names them" grep -q "critical ranks A 0, B 3" "$TMP/jobs_s.txt"
