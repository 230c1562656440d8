#!/bin/sh
# test_abba_evidence.sh - the A-B-B-A on time, memory, numerics and environment together.
# Real runs: tests/data/real/pytorch-h100-abba-numerics (fp32 A against bf16 B on one H100, each
# run with metrics.csv carrying a tolerance and an nvidia-smi log) and pytorch-h100-abba-regress
# (a slower B, metrics.csv without tolerance). Variants are copies of those real runs in $TMP
# with one thing edited, each said where it is made: a tolerance, a metric value, B2's clocks in
# its smi.csv, B2's device name. Every figure is checked against python3 over the raw files.
. tests/cli/lib.sh
XDG_CONFIG_HOME=$TMP/xdg
export XDG_CONFIG_HOME
N=$REAL/pytorch-h100-abba-numerics
G=$REAL/pytorch-h100-abba-regress

# ref DIR RUN...: python3 over each run's raw files: summed kernel time (ns), peak "Total
# Allocated" and "Total Reserved" of the [memory] events on a GPU (bytes), the final_loss of
# metrics.csv, and the median SM clock of the smi.csv samples taken while busy (utilisation
# above 0, no idle reason bit 0x1), "-" without a log
ref() {
    python3 - "$@" <<'EOF'
import csv, glob, gzip, json, os, statistics, sys
d = sys.argv[1]
for r in sys.argv[2:]:
    t = json.load(gzip.open(glob.glob("%s/%s/*.trace.json.gz" % (d, r))[0]))
    ev = t["traceEvents"]
    k = round(sum(e["dur"] for e in ev if e.get("cat") == "kernel") * 1000)
    mem = [e["args"] for e in ev if e.get("name") == "[memory]" and e["args"].get("Device Type") == 1]
    pa = max(a["Total Allocated"] for a in mem)
    pr = max(a["Total Reserved"] for a in mem)
    loss = [row["value"] for row in csv.DictReader(open("%s/%s/metrics.csv" % (d, r)))
            if row["name"] == "final_loss"][0]
    clk = "-"
    p = "%s/%s/smi.csv" % (d, r)
    if os.path.exists(p):
        rows = list(csv.reader(open(p), skipinitialspace=True))[1:]
        busy = [float(x[3].split()[0]) for x in rows
                if float(x[6].split()[0]) > 0 and not int(x[12], 16) & 1]
        clk = "%g" % statistics.median(busy)
    print(r, k, pa, pr, loss, clk)
EOF
}
# field RUN COL: a column of ref's output (2 kernel, 3 allocated, 4 reserved, 5 loss, 6 clock)
field() { awk -v r="$1" -v c="$2" '$1 == r { print $c }' "$TMP/ref"; }
# pct A1 B1 B2 A2: the A-B-B-A effect in % of mean(A), two decimals
pct() { python3 -c "import sys; a1,b1,b2,a2=map(float,sys.argv[1:]); print('%+.2f' % (100*((b1+b2)/2-(a1+a2)/2)/((a1+a2)/2)))" "$@"; }
# eff A1 B1 B2 A2: mean(B) - mean(A), as %.6g
eff() { python3 -c "import sys; a1,b1,b2,a2=map(float,sys.argv[1:]); print('%+.6g' % ((b1+b2)/2-(a1+a2)/2))" "$@"; }
# json FILE EXPR: a Python expression over the JSON report d
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
# copy SRC NAME: a copy of the four real runs of SRC under $TMP/NAME
copy() { mkdir -p "$TMP/$2" && cp -R "$1/A1" "$1/B1" "$1/B2" "$1/A2" "$TMP/$2/"; }
abba() { _runs=$1; shift; $DCUTOP -q --abba "$_runs/A1" "$_runs/B1" "$_runs/B2" "$_runs/A2" "$@"; }

# ------------------------------------------------ real: B faster, the loss moved: reject
ref "$N" A1 B1 B2 A2 >"$TMP/ref"
kp=$(pct $(field A1 2) $(field B1 2) $(field B2 2) $(field A2 2))
le=$(eff $(field A1 5) $(field B1 5) $(field B2 5) $(field A2 5))
abba "$N" --report --width 200 >"$TMP/rep" 2>&1
check "numerics: B saves time ($kp% device kernel time, python) but the loss moved by $le (python) beyond its tolerance: REJECTED" \
    grep -q "^Verdict: REJECTED: B faster by ${kp#-}% (device kernel time) but metric final_loss changed by $le (" "$TMP/rep"
check "numerics: ... the metric line names its tolerance and says reject" \
    grep -q "final_loss .*changed by $le (.*beyond its tolerance 1e-05 (the better way, but not the same result): reject" "$TMP/rep"
exits "numerics: the gate fails it (exit 3) though every time and memory layer is a gain" 3 \
    abba "$N" --report --fail-above 5
check "numerics: ... its last line names the metric first" sh -c \
    "tail -1 '$TMP/out' | grep -q '^gate FAILED: metric final_loss changed by $le '"
exits "numerics: a rejection fails the gate with no --strict and a limit time never reaches" 3 \
    abba "$N" --report --fail-above 500
abba "$N" --report --format json --top 3 >"$TMP/n.json" 2>/dev/null
same "numerics: JSON verdict result is rejected" "rejected" "$(json "$TMP/n.json" "d['verdict'][0]['result']")"
m="d['metrics'][0]"
same "numerics: JSON metric row (values)" "$(field A1 5) $(field B1 5) $(field B2 5) $(field A2 5) 1e-05 lower reject" \
    "$(json "$TMP/n.json" "' '.join(str($m[k]) for k in ('a1','b1','b2','a2')) + ' %g %s %s' % ($m['tolerance'], $m['better'], $m['verdict'])")"
same "numerics: JSON effect and tolerance to the last digit (python's mean(B) - mean(A) of the same doubles)" \
    "$(python3 -c "import sys; a1,b1,b2,a2=map(float,sys.argv[1:]); print(repr((b1+b2)/2-(a1+a2)/2), 1e-05)" $(field A1 5) $(field B1 5) $(field B2 5) $(field A2 5))" \
    "$(json "$TMP/n.json" "repr($m['effect']) + ' ' + repr($m['tolerance'])")"
for r in A1 B1 B2 A2; do
    c=$(echo $r | tr 'AB12' 'ab12')
    same "memory: $r peak allocated and reserved bytes = python's max Total Allocated / Reserved" \
        "$(field $r 3) $(field $r 4)" \
        "$(json "$TMP/n.json" "'%d %d' % (d['memory'][0]['${c}_bytes'], d['memory'][1]['${c}_bytes'])")"
done
mp=$(pct $(field A1 3) $(field B1 3) $(field B2 3) $(field A2 3))
check "memory: peak allocated is a layer judged by the noise rule: B lower by ${mp#-}% (python), trusted" \
    grep -q "peak allocated memory .*B lower by .* (${mp}%), beyond its noise 0 B (drift A2 - A1): TRUSTED" "$TMP/rep"
for r in A1 B1 B2 A2; do
    same "environment: $r median busy SM clock = python over its smi.csv" "$(field $r 6)" \
        "$(json "$TMP/n.json" "'%g' % [e for e in d['environment'] if e['run'] == '$r'][0]['clock_mhz']")"
done
check "environment: the same device, versions and clocks in all four runs" \
    grep -q "^  the same in all four runs, as far as they say" "$TMP/rep"

# the same four runs as the marks of one load (--baseline/--candidate), and on the Diff screen
exits "numerics, marks: --baseline A1,A2 --candidate B1,B2 of one load is rejected too (exit 3)" 3 \
    $DCUTOP -q "$N" --baseline A1,A2 --candidate B1,B2 --report --width 200 --fail-above 5
check "numerics, marks: ... each run's facts read with that run alone in scope (B2: 14 busy samples, as alone)" sh -c \
    "grep -q '^Verdict: REJECTED: B faster by ${kp#-}% ' '$TMP/out' && grep -q '^  B2: .* over 14 samples' '$TMP/out' &&
     grep -q '^  B2: .* over 14 samples' '$TMP/rep'"
printf ':dump diff\n' >"$TMP/diff.keys"
abba "$N" --headless --size 140x30 --keys "$TMP/diff.keys" >"$TMP/screen" 2>&1
check "numerics, Diff screen: its verdict is the report's (REJECTED, the metric named)" \
    grep -q "^ Verdict     REJECTED: B faster by ${kp#-}% (device kernel time) but metric final_loss changed by $le " "$TMP/screen"

# ---------------------------------------- a clean one: the same runs, a looser tolerance
# (copy; each metrics.csv's tolerance 0.00001 -> 0.001, more than the 7.9e-5 the loss moves)
copy "$N" clean
for r in A1 B1 B2 A2; do sed -i 's/,0.00001,/,0.001,/' "$TMP/clean/$r/metrics.csv"; done
abba "$TMP/clean" --report --width 200 >"$TMP/rep" 2>&1
check "clean: within its tolerance the verdict stays TRUSTED" grep -q "^Verdict: TRUSTED: step time decides" "$TMP/rep"
check "clean: ... and says the metric moved within it" \
    grep -q "final_loss .*changed by $le (.*within its tolerance 0.001$" "$TMP/rep"
exits "clean: the gate passes (exit 0)" 0 abba "$TMP/clean" --report --fail-above 5 --strict
check "clean: ... gate passed" sh -c "tail -1 '$TMP/out' | grep -q '^gate passed: '"

# ------------------------------------------ B2 at a lower clock: untrusted, saying why
# (copy of the clean runs; B2's smi.csv: every 1980 MHz SM clock sample set to 1500 MHz)
copy "$TMP/clean" clock
sed -i 's/, 1980 MHz, 2619 MHz,/, 1500 MHz, 2619 MHz,/' "$TMP/clock/B2/smi.csv"
ref "$TMP/clock" B2 >>"$TMP/ref"
b2clk=$(awk '$1 == "B2" { v = $6 } END { print v }' "$TMP/ref")
abba "$TMP/clock" --report --width 300 >"$TMP/rep" 2>&1
check "clock: B2 at $b2clk MHz (python) makes the verdict UNTRUSTED" \
    grep -q "^Verdict: UNTRUSTED: .*UNTRUSTED, the runs' environment differs: the clocks differ: A1 1980, B1 1980, B2 $b2clk, A2 1980 MHz" "$TMP/rep"
check "clock: ... it names the clock noise it was judged against" \
    grep -q "480 MHz apart, beyond the runs' own clock noise 20 MHz" "$TMP/rep"
exits "clock: the gate warns (exit 0)" 0 abba "$TMP/clock" --report --fail-above 5
check "clock: ... with the reason" sh -c \
    "tail -1 '$TMP/out' | grep -q \"^gate passed with a WARNING: the runs' environment differs (the clocks differ\""
exits "clock: with --strict the untrusted verdict fails the gate (exit 4)" 4 \
    abba "$TMP/clock" --report --fail-above 5 --strict

# ------------------------------------------------- only the device name differs: untrusted
# (copy of the clean runs; B2's trace deviceProperties and its smi.csv name a different GPU)
copy "$TMP/clean" device
zcat "$N/B2/B2.trace.json.gz" | sed 's/"name": "NVIDIA H100 80GB HBM3"/"name": "NVIDIA H200"/' |
    gzip >"$TMP/device/B2/B2.trace.json.gz"
sed -i 's/, NVIDIA H100 80GB HBM3,/, NVIDIA H200,/' "$TMP/device/B2/smi.csv"
abba "$TMP/device" --report --width 300 >"$TMP/rep" 2>&1
check "device: only the device name differs: UNTRUSTED, naming the runs" \
    grep -q "UNTRUSTED, the runs' environment differs: the device differs: A1 B1 A2 'NVIDIA H100 80GB HBM3'; B2 'NVIDIA H200'" "$TMP/rep"
check "device: ... nothing else differs" sh -c "! grep -q 'software differs\|driver differs\|clocks differ' '$TMP/rep'"
same "device: JSON result untrusted" "untrusted" \
    "$(abba "$TMP/device" --report --format json 2>/dev/null | python3 -c "import json,sys; print(json.load(sys.stdin)['verdict'][0]['result'])")"
exits "device: --strict gate exits 4" 4 abba "$TMP/device" --report --fail-above 5 --strict

# real runs of one program on two GPUs: A on the H100 (pytorch-h100-abba-sdpa), B on the H200
H1=$REAL/pytorch-h100-abba-sdpa
H2=$REAL/pytorch-h200-abba-sdpa
$DCUTOP -q --abba "$H1/A1" "$H2/S1" "$H2/S2" "$H1/A2" --width 300 >"$TMP/rep" 2>&1
dev() { zcat "$1" | python3 -c "import json,sys; print(json.load(sys.stdin)['deviceProperties'][0]['name'])"; }
check "two GPUs: A on '$(dev "$H1/A1/A1.trace.json.gz")', B on '$(dev "$H2/S1/S1.trace.json.gz")' (python): untrusted, saying so" \
    grep -q "^  UNTRUSTED: the device differs: A1 A2 '$(dev "$H1/A1/A1.trace.json.gz")'; B1 B2 '$(dev "$H2/S1/S1.trace.json.gz")'$" "$TMP/rep"
exits "two GPUs: --strict gate exits 4 (B's 51% kernel gain is not a verdict)" 4 \
    $DCUTOP -q --abba "$H1/A1" "$H2/S1" "$H2/S2" "$H1/A2" --report --fail-above 5 --strict
$DCUTOP -q --abba "$H1/A1" "$H1/S1" "$H1/S2" "$H1/A2" --width 300 >"$TMP/rep" 2>&1
check "one GPU: the H100 runs alone say the same environment" grep -q "^  the same in all four runs, as far as they say" "$TMP/rep"

# ------------------------- the real regression: the same loss, no tolerance, memory B lower
ref "$G" A1 B1 B2 A2 >"$TMP/ref"
abba "$G" --report --width 200 >"$TMP/rep" 2>&1
check "regress: final_loss the same in all four runs ($(field A1 5), python)" \
    grep -q "final_loss .*A1 $(field A1 5), B1 $(field B1 5), B2 $(field B2 5), A2 $(field A2 5): the same in all four runs" "$TMP/rep"
same "regress: peak allocated of each run = python" "$(field A1 3) $(field B1 3) $(field B2 3) $(field A2 3)" \
    "$(sed -n 's/^  peak allocated memory *A1 \([0-9]*\), B1 \([0-9]*\), B2 \([0-9]*\), A2 \([0-9]*\) bytes.*/\1 \2 \3 \4/p' "$TMP/rep")"
check "regress: without a device log the runs say so" grep -q "^  B2: NVIDIA H100 80GB HBM3; .*; no device log" "$TMP/rep"

# (copy of the regression; B1 and B2's metrics.csv: final_loss 8.022427 -> 8.1, no tolerance)
copy "$G" drift
for r in B1 B2; do sed -i 's/^final_loss,.*/final_loss,8.1/' "$TMP/drift/$r/metrics.csv"; done
le=$(eff $(field A1 5) 8.1 8.1 $(field A2 5))
abba "$TMP/drift" --report --width 300 >"$TMP/rep" 2>&1
check "no tolerance: the change ($le, python) is judged against the metric's own repeat noise and reported" \
    grep -q "final_loss .*changed by $le (.*beyond its own repeat noise 0 (.*); no tolerance given, so not a rejection" "$TMP/rep"
check "no tolerance: ... not rejected, a WARNING in the verdict" sh -c \
    "grep -q '^Verdict: INCONCLUSIVE: ' '$TMP/rep' && grep -q 'WARNING: metric final_loss changed by' '$TMP/rep'"
exits "no tolerance: the gate's time verdict decides (a trusted +2.77% regression fails, exit 3)" 3 \
    abba "$TMP/drift" --report --fail-above 1
exits "no tolerance: under a limit time passes, the metric warns (exit 0)" 0 \
    abba "$TMP/drift" --report --fail-above 50
check "no tolerance: ... gate passed with a WARNING naming the metric" sh -c \
    "tail -1 '$TMP/out' | grep -q '^gate passed with a WARNING: metric final_loss changed by'"
exits "no tolerance: --strict counts the warning (exit 4)" 4 abba "$TMP/drift" --report --fail-above 50 --strict
# (the same copy with a tolerance 0.01 in B1 and B2's metrics.csv: B slower and wrong)
for r in B1 B2; do printf 'name,value,tolerance\nfinal_loss,8.1,0.01\n' >"$TMP/drift/$r/metrics.csv"; done
exits "tolerance in B's files only: the strictest tolerance any run gives counts: rejected (exit 3)" 3 \
    abba "$TMP/drift" --report --fail-above 50
check "tolerance in B's files only: ... REJECTED" grep -q "^Verdict: REJECTED: " "$TMP/out"

# ------------- the seed's fc2 + residual case: B faster, its accuracy dropped (the manual's)
# (copy of pytorch-h200-abba-sdpa, fused attention as B; metrics.csv written into each run:
# accuracy 0.913 in A, 0.905 in S, tolerance 0.001, higher is better)
S=$REAL/pytorch-h200-abba-sdpa
mkdir -p "$TMP/seed"
cp -R "$S/A1" "$S/A2" "$TMP/seed/"
cp -R "$S/S1" "$TMP/seed/B1"
cp -R "$S/S2" "$TMP/seed/B2"
for r in A1 A2; do printf 'name,value,tolerance,better\naccuracy,0.913,0.001,higher\n' >"$TMP/seed/$r/metrics.csv"; done
for r in B1 B2; do printf 'name,value,tolerance,better\naccuracy,0.905,0.001,higher\n' >"$TMP/seed/$r/metrics.csv"; done
exits "seed: a fusion that saves time but drops its accuracy fails the gate (exit 3)" 3 \
    abba "$TMP/seed" --report --width 110 --fail-above 5
check "seed: ... REJECTED, the accuracy changed by -0.008 the worse way (as doc/manual.md shows)" \
    grep -q "^Verdict: REJECTED: B faster by 46.36% (device kernel time) but metric accuracy changed by -0.008 (-0.876%),$" "$TMP/out"
check "seed: ... the manual shows this output" grep -qF "  accuracy A1 0.913, B1 0.905, B2 0.905, A2 0.913: changed by -0.008 (-0.876%), beyond its tolerance 0.001" doc/manual.md

# ---------------------------------------------------- metrics files: both forms, bad lines
mkdir -p "$TMP/m"
cp "$N/A1/A1.trace.json.gz" "$TMP/m/"
printf 'name,value,tolerance,better\nloss,1.5,0.01,lower\nacc,abc,,\nx,1,-2,\ny,2,,up\n"a,b",3,,\nloss,2,,\n' >"$TMP/m/metrics.csv"
$DCUTOP --sql "SELECT name || '=' || value || '/' || coalesce(tolerance, '-') || '/' || coalesce(better, '-') FROM run_metric ORDER BY line" --format csv "$TMP/m" >"$TMP/out" 2>"$TMP/err"
same "metrics.csv: the good lines, a quoted name with a comma" "$(printf 'loss=1.5/0.01/lower\na,b=3.0/-/-')" "$(sed -n '2,3p' "$TMP/out" | tr -d '"\r')"
check "metrics.csv: a value that is no number is named by file:line" grep -q "metrics.csv:3: value 'abc' is not a finite number" "$TMP/err"
check "metrics.csv: a negative tolerance" grep -q "metrics.csv:4: tolerance '-2' is not a number >= 0" "$TMP/err"
check "metrics.csv: better neither higher nor lower" grep -q "metrics.csv:5: better 'up' is neither 'higher' nor 'lower'" "$TMP/err"
check "metrics.csv: a name given twice" grep -q "metrics.csv:7: metric 'loss' is given twice" "$TMP/err"
exits "metrics.csv: --strict makes a bad line a load error" 1 $DCUTOP -q --strict --report "$TMP/m"
rm "$TMP/m/metrics.csv"
printf '{"a": 1,\n "b": {"value": 2, "tolerance": 0.1, "better": "higher"},\n "c": {"value": 3, "tolerence": 1},\n "d": "x",\n "e": [1],\n "f": {"tolerance": 1}\n}\n' >"$TMP/m/metrics.json"
$DCUTOP --sql "SELECT name || '=' || value || '/' || coalesce(tolerance, '-') || '/' || coalesce(better, '-') FROM run_metric ORDER BY line" --format csv "$TMP/m" >"$TMP/out" 2>"$TMP/err"
same "metrics.json: both forms read" "$(printf 'a=1.0/-/-\nb=2.0/0.1/higher')" "$(sed -n '2,3p' "$TMP/out" | tr -d '\r')"
check "metrics.json: a misspelt key is a rejected metric, named by file:line" grep -q "metrics.json:3: metric 'c': unknown key \"tolerence\"" "$TMP/err"
check "metrics.json: text for a value" grep -q "metrics.json:4: metric 'd': the value is not a finite number" "$TMP/err"
check "metrics.json: a list for a value" grep -q "metrics.json:5: metric 'e': a list where" "$TMP/err"
check "metrics.json: an object without value" grep -q "metrics.json:6: metric 'f': no \"value\"" "$TMP/err"
printf '{"a": 1,\n "b": 2,\n "c": ' >"$TMP/m/metrics.json"
$DCUTOP --sql "SELECT count(*) FROM run_metric" --format csv "$TMP/m" >"$TMP/out" 2>"$TMP/err"
check "metrics.json cut short: a message with its file and line, the metrics before kept" sh -c \
    "grep -q 'metrics.json:3: not JSON' '$TMP/err' && sed -n 2p '$TMP/out' | grep -q '^2'"
