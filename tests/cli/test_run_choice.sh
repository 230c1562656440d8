#!/bin/sh
# test_run_choice.sh - runs of one program are never added together (README "Runs"): an
# isolated collection (a plain trace run, a stats run, a stack run and a PMC run of one
# program, each in its own folder) shows ONE run - the most complete timed run, named with
# why - and lists the others; every absolute figure under the headline is that run's (an awk
# recount of its own file); a total over runs only with --run all / the R picker, labelled;
# the ranks of one job stay together.
. tests/cli/lib.sh
XDG_CONFIG_HOME=$TMP/xdg
export XDG_CONFIG_HOME
W=sample-traces/dcu-weather-transformer
I=$TMP/iso
mkdir -p "$I/plain" "$I/stats" "$I/stack" "$I/pmc"
cp "$W/results.csv" "$I/plain/"
cp "$W/weather.hipkernel.csv" "$W/weather.hiptrace.csv" "$I/stats/"
printf 'main;forward;attention;softmax 1200\nmain;forward;mlp;gemm 3400\n' \
    >"$I/stack/weather.stacks.txt"
# a counter run: the same dispatches with an SQ_WAVES column (rocprof --pmc)
awk 'NR == 1 { print $0 ",\"SQ_WAVES\""; next } { print $0 ",64" }' "$W/results.csv" \
    >"$I/pmc/results.csv"
j() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# the plain run's own figures, recounted from its file (names hold commas: fields from the end)
P=$I/plain/results.csv
exp_ns=$(awk -F, 'NR > 1 { s += $NF; n++ } END { print s, n }' "$P")
"$DCUTOP" -q --report --format json "$I" >"$TMP/d.json"
same "iso: the headline is one run's kernel time and dispatches (awk over plain/results.csv)" \
    "$exp_ns" "$(j "$TMP/d.json" 'd["totals"]["kernel_ns"], d["totals"]["dispatches"]' | tr -d '(),')"
"$DCUTOP" -q --report --width 200 "$I" >"$TMP/d.txt"
check "iso: text headline 825.0 ms over 2090 dispatches (not 1.65 s over 4180)" \
    grep -q '^Device kernel time 825.0 ms over 2090 dispatches' "$TMP/d.txt"
check "iso: the report names the run shown and why" \
    grep -q '^Scope: run plain, the most complete timed run (a per-dispatch timeline, 2090 dispatches; stats has aggregates only)' "$TMP/d.txt"
check "iso: the report lists the run not added and the runs beside it" \
    grep -Eq '^Scope: .*; with (stack|pmc) .*; not added: stats$' "$TMP/d.txt"
same "iso: JSON run_scope (kind, run, not added, total over runs)" "default plain stats False" \
    "$(j "$TMP/d.json" '" ".join(str(x) for x in (d["run_scope"]["kind"], d["run_scope"]["run"], d["run_scope"]["not_added"], d["run_scope"]["total_over_runs"]))')"
# absolute figures under the headline: categories and hotspots are the plain run's alone
exp_gemm=$(awk -F'"' 'NR > 1 && $2 ~ /^Cijk_/ { n = split($0, f, ","); s += f[n] } END { print s }' "$P")
"$DCUTOP" -q --view categories --format json "$I" >"$TMP/cat.json"
same "iso: the gemm category's total = the plain run's Cijk_ dispatches (awk)" "$exp_gemm" \
    "$(j "$TMP/cat.json" '[r["total_ns"] for r in d["categories"] if r["category"] == "gemm"][0]')"
"$DCUTOP" -q --view hotspots --format json "$I" >"$TMP/hot.json"
top=$(j "$TMP/hot.json" 'd["hotspots"][0]["name"]')
exp_top=$(awk -F'"' -v k="$top" 'NR > 1 { n = $2; sub(/ \[clone \.kd\]$/, "", n); sub(/\.kd$/, "", n)
    if (n == k) { m = split($0, f, ","); s += f[m]; c++ } } END { print c, s }' "$P")
same "iso: the top hotspot's calls and time = its dispatches in plain/results.csv (awk)" \
    "$exp_top" "$(j "$TMP/hot.json" 'd["hotspots"][0]["calls"], d["hotspots"][0]["total_ns"]' | tr -d '(),')"
# the Summary: the run, why, the runs not added; its figures are the run's
printf ':dump s\n' >"$TMP/s.keys"
"$DCUTOP" --headless --size 100x30 --keys "$TMP/s.keys" "$I" >"$TMP/s.out"
check "iso Summary: 'Run plain, the most complete timed run'" \
    grep -Eq '^  Run +plain, the most complete timed run: a per-dispatch timeline' "$TMP/s.out"
check "iso Summary: the runs not added are listed" grep -Eq '^  Not added +stats ' "$TMP/s.out"
check "iso Summary: device kernels 825.0 ms in 2090 dispatches" \
    grep -Eq '^  Device kernels +825\.0 ms in 2090 dispatches' "$TMP/s.out"
check "iso header: the scope is the run shown" grep -q '4 runs, scope: plain' "$TMP/s.out"

# a total over runs only when asked, and labelled as one
exp_all=$(awk -F, 'FNR == 1 || /^"Total"/ { next } FILENAME ~ /results/ { s += $NF; next } { s += $(NF - 2) }
    END { print s }' "$P" "$I/stats/weather.hipkernel.csv")
"$DCUTOP" -q --report --format json --run all "$I" >"$TMP/a.json"
same "--run all: kernel time = plain + stats (awk; the PMC run's times stay out)" "$exp_all" \
    "$(j "$TMP/a.json" 'd["totals"]["kernel_ns"]')"
same "--run all: JSON says it is a total over runs" "all True" \
    "$(j "$TMP/a.json" 'd["run_scope"]["kind"], d["run_scope"]["total_over_runs"]' | tr -d "(),'")"
"$DCUTOP" -q --report --width 200 --run all "$I" >"$TMP/a.txt"
check "--run all: the headline is labelled a total over runs" \
    grep -Eq '^Device kernel time 1\.65 s over 4180 dispatches .*, a total over runs$' "$TMP/a.txt"
printf 'R\n<Down><Enter>\n:dump all\n' >"$TMP/r.keys"
"$DCUTOP" --headless --size 100x30 --keys "$TMP/r.keys" "$I" >"$TMP/r.out"
check "R picker: 'All runs added' gives the total, labelled in the Summary" \
    grep -Eq '^  Runs +all 4 runs added together: a total over runs, as asked' "$TMP/r.out"

# a comparison side that holds several runs of one program compares the run shown, not a sum
"$DCUTOP" -q --diff "$I" "$P" >"$TMP/diff.txt"
check "--diff: the collection against its own trace run: 825.0 ms -> 825.0 ms, speedup 1.00x" \
    grep -q '^  Device kernel time  825.0 ms -> 825.0 ms, delta 0 ns (+0.00%), speedup 1.00x' "$TMP/diff.txt"

# the choice: more dispatches first; alike runs by label
mkdir -p "$TMP/two/a" "$TMP/two/b"
head -n 1001 "$W/results.csv" >"$TMP/two/a/results.csv"
cp "$W/results.csv" "$TMP/two/b/results.csv"
"$DCUTOP" -q --report --format json "$TMP/two" >"$TMP/t.json"
same "two repeats: the run with more dispatches is shown, and why" \
    "b|a per-dispatch timeline, 2090 dispatches; a has fewer dispatches (1000)" \
    "$(j "$TMP/t.json" 'd["run_scope"]["run"] + "|" + d["run_scope"]["why"]')"
"$DCUTOP" -q --report --format json tests/data/runs >"$TMP/f.json"
same "fixture: r1 and r2 alike: r1 by label; pmc beside it for its counters; r2, stats not added" \
    "r1|pmc (PMC counters; its times left out)|r2, stats" \
    "$(j "$TMP/f.json" 'd["run_scope"]["run"] + "|" + d["run_scope"]["with"] + "|" + d["run_scope"]["not_added"]')"
same "fixture: the kernel time is r1's (awk)" \
    "$(awk -F, 'NR > 1 { s += $NF } END { print s }' tests/data/runs/r1/results.csv)" \
    "$(j "$TMP/f.json" 'd["totals"]["kernel_ns"]')"

# the ranks of one job are not repeats: every rank stays in scope
D=$REAL/pytorch-h200-ddp-2rank
"$DCUTOP" -q --report --format json "$D" >"$TMP/ddp.json"
same "2-rank job: the scope is the job (both ranks)" "job 2" \
    "$(j "$TMP/ddp.json" 'd["run_scope"]["kind"], d["run_scope"]["runs_in_scope"]' | tr -d "(),'")"
"$DCUTOP" -q --report --width 200 "$D" >"$TMP/ddp.txt"
check "2-rank job: no 'Scope:' line (nothing left out)" sh -c "! grep -q '^Scope:' '$TMP/ddp.txt'"
