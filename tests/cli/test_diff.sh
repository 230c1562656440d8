#!/bin/sh
# test_diff.sh - comparison (issue 8): --diff, --abba, --export diff, --fail-above/--gate,
# --match short, plain step times, and layers that cannot be compared. Pairs are generated here
# from a small per-dispatch CSV (rocprof v1 results.csv) with known injected changes; every
# figure is checked against python3 over the same files.
. tests/cli/lib.sh
XDG_CONFIG_HOME=$TMP/xdg
export XDG_CONFIG_HOME
ABBA=$REAL/pytorch-h200-abba-sdpa

# gen DIR SPEC...: SPEC is NAME:COUNT:BASE_NS:SCALE[:JITTER_SEED]; durations are
# BASE + 7*i mod 50 (a fixed spread), times SCALE, plus +-3% jitter from python's seeded random
gen() {
    python3 - "$@" <<'EOF'
import os, random, sys
d = sys.argv[1]
os.makedirs(d, exist_ok=True)
t = 1000
with open(os.path.join(d, "results.csv"), "w") as f:
    f.write('"Index","KernelName","gpu-id","queue-id","pid","tid","BeginNs","EndNs","DurationNs"\n')
    idx = 0
    for spec in sys.argv[2:]:
        p = spec.split(":")
        name, n, base, scale = p[0], int(p[1]), int(p[2]), float(p[3])
        rnd = random.Random(int(p[4])) if len(p) > 4 else None
        for i in range(n):
            dur = (base + (7 * i) % 50) * scale
            if rnd:
                dur *= 1 + rnd.uniform(-0.03, 0.03)
            dur = int(round(dur))
            f.write('%d,"%s",0,0,1,1,%d,%d,%d\n' % (idx, name, t, t + dur, dur))
            t += dur + 100
            idx += 1
EOF
}
# col CSV KEYCOL KEY COL: the value of column COL in the row whose KEYCOL is KEY
col() {
    python3 - "$@" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
for r in rows:
    if r[sys.argv[2]] == sys.argv[3]:
        print(r[sys.argv[4]]); break
EOF
}

G='void gemm_k(float*, int)'
E='void add_k(float*, int)'
gen "$TMP/base" "$G:40:1000:1" "$E:40:500:1"
gen "$TMP/slow" "$G:40:1000:2" "$E:40:500:1"
gen "$TMP/newgone" "$G:40:1000:1" "void new_k(int):10:300:1"
gen "$TMP/jit" "$G:200:1000:1:1" "$E:200:500:1:2"
gen "$TMP/jit2" "$G:200:1000:1:3" "$E:200:500:1:4"

# ---------------------------------------------------------------- a trace against itself
exits "self: --diff A A exits 0 with --fail-above 0" 0 $DCUTOP -q --diff "$TMP/base" "$TMP/base" --fail-above 0
same "self: last line says the gate passed" "gate passed: device kernel time +0.00% (limit +0%), within noise" "$(tail -1 "$TMP/out")"
$DCUTOP -q --export diff "$TMP/base" "$TMP/base" -o "$TMP/self.csv"
same "self: every delta is 0" "0" "$(python3 -c "
import csv; print(sum(abs(int(r['delta'])) for r in csv.DictReader(open('$TMP/self.csv'))))")"
same "self: every kernel is 'both' and within noise" "both within;both within;" "$(python3 -c "
import csv; print(''.join(r['status'] + ' ' + r['noise'] + ';' for r in csv.DictReader(open('$TMP/self.csv'))))")"
$DCUTOP -q --diff "$ABBA/A1" "$ABBA/A1" --export diff -o "$TMP/selfreal.csv"
same "self (real Kineto trace): every delta is 0" "0" "$(python3 -c "
import csv; print(sum(abs(int(r['delta'])) for r in csv.DictReader(open('$TMP/selfreal.csv'))))")"

# ---------------------------------------------------------------- one kernel 2x slower
$DCUTOP -q --export diff "$TMP/base" "$TMP/slow" -o "$TMP/slow.csv"
same "2x: export header" "name,status,match,category,before,after,delta,delta_pct,ratio,calls_before,calls_after,share_pct,noise,ci_lo,ci_hi" "$(head -1 "$TMP/slow.csv" | tr -d '\r')"
want=$(python3 -c "print(sum(1000 + (7*i) % 50 for i in range(40)))")
same "2x: gemm delta = its whole baseline time" "$want" "$(col "$TMP/slow.csv" name "$G" delta)"
near "2x: gemm ratio 2" 2 "$(col "$TMP/slow.csv" name "$G" ratio)" 0
near "2x: gemm delta_pct 100" 100 "$(col "$TMP/slow.csv" name "$G" delta_pct)" 0
same "2x: gemm is outside noise" "outside" "$(col "$TMP/slow.csv" name "$G" noise)"
same "2x: add unchanged" "0" "$(col "$TMP/slow.csv" name "$E" delta)"
same "2x: gemm is the first row (largest |delta|)" "$G" "$(python3 -c "
import csv; print(next(csv.DictReader(open('$TMP/slow.csv')))['name'])")"
near "2x: gemm's share of the total delta is 100%" 100 "$(col "$TMP/slow.csv" name "$G" share_pct)" 0
exits "2x: --fail-above 10 fails the gate (exit 3)" 3 $DCUTOP -q --diff "$TMP/base" "$TMP/slow" --fail-above 10
check "2x: the last line says why" grep -q "^gate FAILED: device kernel time +[0-9.]*% (limit +10%), outside noise" "$TMP/out"
exits "2x: the gate on category 'elementwise' passes" 0 $DCUTOP -q --diff "$TMP/base" "$TMP/slow" --fail-above 10 --gate elementwise
exits "2x: the gate on a regex matching gemm fails" 3 $DCUTOP -q --diff "$TMP/base" "$TMP/slow" --fail-above 10 --gate 'gemm_'
check "2x: the gated part is named" grep -q "kernels matching 'gemm_'" "$TMP/out"
exits "2x: reversed (B faster) passes the gate" 0 $DCUTOP -q --diff "$TMP/slow" "$TMP/base" --fail-above 10
exits "a bad --gate pattern is a usage error" 2 $DCUTOP -q --diff "$TMP/base" "$TMP/slow" --fail-above 10 --gate '(['
$DCUTOP -q --report --diff "$TMP/base" "$TMP/slow" --format json --fail-above 10 >"$TMP/slow.json" 2>"$TMP/slow.err"
same "2x: JSON report parses, gate result inside" "failed 2" "$(python3 -c "
import json; d = json.load(open('$TMP/slow.json')); print(d['gate'][0]['result'], len(d['kernels']))")"
check "2x: JSON mode also says the verdict on stderr" grep -q "gate FAILED" "$TMP/slow.err"

# ---------------------------------------------------------------- a kernel new, a kernel gone
$DCUTOP -q --export diff "$TMP/base" "$TMP/newgone" -o "$TMP/ng.csv"
same "new/gone: add_k gone" "gone" "$(col "$TMP/ng.csv" name "$E" status)"
same "new/gone: new_k new" "new" "$(col "$TMP/ng.csv" name 'void new_k(int)' status)"
same "new/gone: new_k calls 0 -> 10" "0 10" "$(col "$TMP/ng.csv" name 'void new_k(int)' calls_before) $(col "$TMP/ng.csv" name 'void new_k(int)' calls_after)"
same "new/gone: gemm_k unchanged" "both 0" "$(col "$TMP/ng.csv" name "$G" status) $(col "$TMP/ng.csv" name "$G" delta)"
$DCUTOP -q --diff "$TMP/base" "$TMP/newgone" >"$TMP/ng.txt"
check "new/gone: unmatched kernels listed" grep -q "Unmatched kernels: 1 gone (only in A), 1 new (only in B)" "$TMP/ng.txt"

# ---------------------------------------------------------------- jitter only
$DCUTOP -q --export diff "$TMP/jit" "$TMP/jit2" -o "$TMP/jit.csv"
same "jitter: both kernels within noise" "within within" "$(col "$TMP/jit.csv" name "$G" noise) $(col "$TMP/jit.csv" name "$E" noise)"
check "jitter: the interval contains the observed delta and 0" python3 -c "
import csv, sys
for r in csv.DictReader(open('$TMP/jit.csv')):
    lo, hi, d = int(r['ci_lo']), int(r['ci_hi']), int(r['delta'])
    if not (lo <= 0 <= hi and lo <= d <= hi): sys.exit(1)"
exits "jitter: --fail-above 0 passes (within noise)" 0 $DCUTOP -q --diff "$TMP/jit" "$TMP/jit2" --fail-above 0
check "jitter: the gate line says within noise (a warning: +0.13% is beyond +0% but untrusted)" grep -q "^gate passed with a WARNING: .*within noise" "$TMP/out"
$DCUTOP -q --export diff "$TMP/jit" "$TMP/jit2" -o "$TMP/jit_b.csv"
check "jitter: the bootstrap is deterministic (same CSV twice)" cmp -s "$TMP/jit.csv" "$TMP/jit_b.csv"

# ---------------------------------------------------------------- repeats per side
$DCUTOP -q --export diff "$TMP/base,$TMP/jit" "$TMP/slow,$TMP/jit2" -o "$TMP/rep.csv"
check "repeats: median/min/max columns" sh -c "head -1 '$TMP/rep.csv' | grep -q 'before_median,before_min,before_max,after_median,after_min,after_max'"
same "repeats: gemm before = mean of the two runs" "$(python3 -c "
print(round((sum(1000 + (7*i) % 50 for i in range(40)) + $(col "$TMP/jit.csv" name "$G" before)) / 2))")" "$(col "$TMP/rep.csv" name "$G" before)"

# ---------------------------------------------------------------- --match short
gen "$TMP/reb" 'void gemm_k(float*, long):40:1000:1' "$E:40:500:1"
$DCUTOP -q --export diff "$TMP/base" "$TMP/reb" -o "$TMP/full.csv"
same "match full: the rebuilt kernel is new and gone" "gone new" "$(col "$TMP/full.csv" name "$G" status) $(col "$TMP/full.csv" name 'void gemm_k(float*, long)' status)"
$DCUTOP -q --export diff --match short "$TMP/base" "$TMP/reb" -o "$TMP/short.csv"
same "match short: one row, fuzzy, delta 0" "both fuzzy 0" "$(col "$TMP/short.csv" name gemm_k status) $(col "$TMP/short.csv" name gemm_k match) $(col "$TMP/short.csv" name gemm_k delta)"
same "match short: an exact match is not fuzzy" "exact" "$(col "$TMP/short.csv" name add_k match)"

# ---------------------------------------------------------------- layers that cannot be compared
mkdir -p "$TMP/stats"
python3 - "$TMP/stats/results.stats.csv" <<'EOF'
import sys
g = sum(1000 + (7*i) % 50 for i in range(40)); e = sum(500 + (7*i) % 50 for i in range(40))
open(sys.argv[1], "w").write('"Name","Calls","TotalDurationNs","AverageNs","Percentage"\n'
    '"void gemm_k(float*, int)",40,%d,%d,60\n"void add_k(float*, int)",40,%d,%d,40\n' % (g, g // 40, e, e // 40))
EOF
$DCUTOP -q --diff "$TMP/stats" "$TMP/base" >"$TMP/layers.txt"
check "stats vs dispatch trace: a note says what compares" grep -q "the baseline (A) has per-kernel statistics only, the candidate (B) per-dispatch data: totals and calls compare; per-dispatch noise, wall span and timelines cannot be compared" "$TMP/layers.txt"
check "stats vs dispatch trace: totals still compare (delta 0)" grep -q "Device kernel time .* delta 0 ns (+0.00%)" "$TMP/layers.txt"
check "stats vs dispatch trace: wall span not comparable" grep -q "Wall span           not comparable" "$TMP/layers.txt"
exits "stats only, one run a side: the gate counts unjudgeable noise as real" 3 $DCUTOP -q --diff "$TMP/stats" "$TMP/slow" --fail-above 10
check "stats only: the gate says noise cannot be judged" grep -q "noise cannot be judged: counted as a real change\|outside noise" "$TMP/out"

# ---------------------------------------------------------------- plain step times
mkdir -p "$TMP/steps"
printf 'step_ms\n2.0\n4.0\nbad\n3.0\n' >"$TMP/steps/steps.csv"
cp "$TMP/base/results.csv" "$TMP/steps/"
$DCUTOP --report --view files "$TMP/steps" >"$TMP/steps.txt" 2>"$TMP/steps.err"
check "step CSV: read as the steps layer, 3 rows, 1 rejected" grep -q "steps.csv *step times (CSV) *steps *3 *1 *used" "$TMP/steps.txt"
check "step CSV: the bad line is named" grep -q "steps.csv:4: expected a step time in ms, found 'bad'" "$TMP/steps.err"
$DCUTOP --report --view files "$ABBA/A1" >"$TMP/a1files.txt"
check "step-times.json: read as the steps layer (was: skipped, JSON without trace events)" grep -q "step-times.json *step times (JSON) *steps *20 *0 *used" "$TMP/a1files.txt"

# ---------------------------------------------------------------- the real A-B-B-A runs
$DCUTOP -q --export abba "$ABBA/A1" "$ABBA/S1" "$ABBA/S2" "$ABBA/A2" -o "$TMP/abba.csv"
python3 - "$ABBA" >"$TMP/abba_ref.txt" <<'EOF'
import gzip, json, statistics, sys
d = sys.argv[1]
k, s = {}, {}
for r in ("A1", "S1", "S2", "A2"):
    ev = json.load(gzip.open("%s/%s/%s.trace.json.gz" % (d, r, r)))["traceEvents"]
    k[r] = sum(e["dur"] for e in ev if e.get("cat") == "kernel") / 1000.0   # us -> ms
    s[r] = statistics.median(json.load(open("%s/%s/step-times.json" % (d, r)))["step_ms_events"])
for name, v in (("kernel", k), ("steps", s)):
    eff = (v["S1"] + v["S2"]) / 2 - (v["A1"] + v["A2"]) / 2
    drift = v["A2"] - v["A1"]
    print(name, "%.6f %.6f %.6f %s" % (eff, drift, 100 * drift / v["A1"],
                                       "trusted" if abs(eff) > abs(drift) else "untrusted"))
EOF
ours() { python3 - "$TMP/abba.csv" "$1" <<'EOF'
import csv, sys
r = next(r for r in csv.DictReader(open(sys.argv[1])) if r["layer"] == sys.argv[2] and r["name"] in ("device kernel time", "step time (median)"))
print("%s %.6f %.6f %.6f %s" % (sys.argv[2], float(r["effect"]) / 1e6, float(r["drift"]) / 1e6, float(r["drift_pct"]), r["verdict"]))
EOF
}
ref_k=$(grep '^kernel' "$TMP/abba_ref.txt")
ref_s=$(grep '^steps' "$TMP/abba_ref.txt")
near "abba real: kernel-time effect equals python's (ms)" "$(echo "$ref_k" | cut -d' ' -f2)" "$(ours kernel | cut -d' ' -f2)" 0.001
near "abba real: kernel-time drift equals python's (ms)" "$(echo "$ref_k" | cut -d' ' -f3)" "$(ours kernel | cut -d' ' -f3)" 0.001
check "abba real: A1 ~ A2 to 0.02% on kernel time" awk -v p="$(ours kernel | cut -d' ' -f4)" 'BEGIN{if(p<0)p=-p; exit !(p<=0.025)}'
same "abba real: kernel time trusted" "trusted" "$(ours kernel | cut -d' ' -f5)"
same "abba real: step-time effect, drift, verdict equal python's" "$ref_s" "$(ours steps)"
same "abba real: step time untrusted (drift larger than the effect)" "untrusted" "$(ours steps | cut -d' ' -f5)"
$DCUTOP -q --abba "$ABBA/A1" "$ABBA/S1" "$ABBA/S2" "$ABBA/A2" >"$TMP/abba.txt"
check "abba real: the report says the step time is untrusted" grep -q "step time (median)   effect .*UNTRUSTED" "$TMP/abba.txt"
check "abba real: the report says the kernel time is trusted" grep -q "device kernel time   effect .*TRUSTED" "$TMP/abba.txt"

# ---------------------------------------------------------------- an A-B-B-A with injected drift
gen "$TMP/d_a1" "$G:40:1000:1" "$E:40:500:1"
gen "$TMP/d_b1" "$G:40:1000:0.9" "$E:40:500:1"
gen "$TMP/d_b2" "$G:40:1000:0.9" "$E:40:500:1"
gen "$TMP/d_a2" "$G:40:1000:1.3" "$E:40:500:1.3"
$DCUTOP -q --export abba "$TMP/d_a1" "$TMP/d_b1" "$TMP/d_b2" "$TMP/d_a2" -o "$TMP/drift.csv"
exp=$(python3 - <<'EOF'
def run(gs, es):
    return (sum(int(round((1000 + (7*i) % 50) * gs)) for i in range(40)) +
            sum(int(round((500 + (7*i) % 50) * es)) for i in range(40))) / 1e6
a1, b1, b2, a2 = run(1, 1), run(0.9, 1), run(0.9, 1), run(1.3, 1.3)
eff = (b1 + b2) / 2 - (a1 + a2) / 2
print("kernel %.6f %.6f %.6f %s" % (eff, a2 - a1, 100 * (a2 - a1) / a1, "trusted" if abs(eff) > abs(a2 - a1) else "untrusted"))
EOF
)
TMPCSV=$TMP/drift.csv
same "injected drift: effect, drift and verdict exact" "$exp" "$(python3 - "$TMPCSV" <<'EOF'
import csv, sys
r = next(r for r in csv.DictReader(open(sys.argv[1])) if r["name"] == "device kernel time")
print("kernel %.6f %.6f %.6f %s" % (float(r["effect"]) / 1e6, float(r["drift"]) / 1e6, float(r["drift_pct"]), r["verdict"]))
EOF
)"
same "injected drift: untrusted" "untrusted" "$(echo "$exp" | cut -d' ' -f5)"

# ---------------------------------------------------------------- verdicts that weigh every source of noise (issue 21)
# noise = max(|drift A2 - A1|, |repeats B2 - B1|); trusted only when |effect| > noise, per layer;
# one verdict, resting on the step time when every run has it; the layers' disagreement said.
$DCUTOP -q --export abba "$ABBA/A1" "$ABBA/S1" "$ABBA/S2" "$ABBA/A2" -o "$TMP/abba2.csv"
$DCUTOP -q --abba "$ABBA/A1" "$ABBA/S1" "$ABBA/S2" "$ABBA/A2" --width 1000 >"$TMP/abba2.txt"
# verdict_check DIR_A1 DIR_B1 DIR_B2 DIR_A2 CSV REPORT: python3 over the raw step-times.json
verdict_check() {
    python3 - "$@" <<'EOF'
import csv, json, statistics, sys
dirs, csvf, rep = sys.argv[1:5], sys.argv[5], open(sys.argv[6]).read()
m = [statistics.median(json.load(open(d + "/step-times.json"))["step_ms_events"]) for d in dirs]
a1, b1, b2, a2 = m
eff, drift, repeats = (b1 + b2) / 2 - (a1 + a2) / 2, a2 - a1, b2 - b1
trusted = abs(eff) > max(abs(drift), abs(repeats))
rows = {r["name"]: r for r in csv.DictReader(open(csvf))}
st, kt = rows["step time (median)"], rows["device kernel time"]
bad = []
for key, want in (("effect", eff), ("drift", drift), ("repeats", repeats),
                  ("noise", max(abs(drift), abs(repeats)))):
    if abs(float(st[key]) / 1e6 - want) > 1e-6:   # --export writes ns
        bad.append("step %s %s != %.6f" % (key, st[key], want))
if st["verdict"] != ("trusted" if trusted else "untrusted"):
    bad.append("step verdict %s, python says trusted=%s" % (st["verdict"], trusted))
# the layer lines of the report agree with the table, and never two opposite TRUSTED lines
lines = {n: l for l in rep.split("\n") for n in ("device kernel time", "step time (median)")
         if l.startswith("  " + n) and " effect " in l}
for n, r in (("device kernel time", kt), ("step time (median)", st)):
    if (": TRUSTED" in lines[n]) != (r["verdict"] == "trusted"):
        bad.append("report line of %s disagrees with its row" % n)
if kt["verdict"] == st["verdict"] == "trusted" and float(kt["effect"]) * float(st["effect"]) < 0:
    bad.append("two contradictory trusted layers")
v = [l for l in rep.split("\n") if l.startswith("Verdict: ")]
disagree = kt["verdict"] != st["verdict"] or (
    st["verdict"] == "trusted" and float(kt["effect"]) * float(st["effect"]) < 0)
# layers that disagree: INCONCLUSIVE, the trusted layer named; else the step time decides
want = ("Verdict: INCONCLUSIVE: the layers disagree" if disagree else
        "Verdict: %s: step time decides" % ("TRUSTED" if trusted else "UNTRUSTED"))
if len(v) != 1 or not v[0].startswith(want):
    bad.append("verdict line %r, want %r" % (v, want))
said = "Verdict: INCONCLUSIVE: the layers disagree" in rep and "\n  Trust " in rep
if disagree != said:
    bad.append("disagreement said: %s, expected: %s" % (said, disagree))
print("\n".join(bad) if bad else "consistent")
EOF
}
same "abba real: verdict lines consistent with the repeats (B1 vs B2, A1 vs A2 medians of step-times.json)" \
    consistent "$(verdict_check "$ABBA/A1" "$ABBA/S1" "$ABBA/S2" "$ABBA/A2" "$TMP/abba2.csv" "$TMP/abba2.txt")"
# crafted: the kernels 3% faster in both B runs (trusted); the steps' repeats disagree by
# 0.369 ms (B1 4.948, B2 5.317) while A1 and A2 agree: step time untrusted, and it decides
gen "$TMP/r_a1" "$G:40:1000:1:41" "$E:40:500:1:42"     # separate runs: jittered
gen "$TMP/r_b1" "$G:40:1000:0.97:43" "$E:40:500:1:44"
gen "$TMP/r_b2" "$G:40:1000:0.97:45" "$E:40:500:1:46"
gen "$TMP/r_a2" "$G:40:1000:1:47" "$E:40:500:1:48"
for r in "a1 5.000" "b1 4.948" "b2 5.317" "a2 5.002"; do
    set -- $r
    printf '{"step_ms_events": [%s, %s, %s]}' "$2" "$2" "$2" >"$TMP/r_$1/step-times.json"
done
$DCUTOP -q --export abba "$TMP/r_a1" "$TMP/r_b1" "$TMP/r_b2" "$TMP/r_a2" -o "$TMP/rep2.csv"
$DCUTOP -q --abba "$TMP/r_a1" "$TMP/r_b1" "$TMP/r_b2" "$TMP/r_a2" --width 1000 >"$TMP/rep.txt"
same "repeats that disagree: verdict lines consistent with step-times.json" \
    consistent "$(verdict_check "$TMP/r_a1" "$TMP/r_b1" "$TMP/r_b2" "$TMP/r_a2" "$TMP/rep2.csv" "$TMP/rep.txt")"
check "repeats that disagree: step time untrusted, the repeats named" grep -q "step time (median) .*UNTRUSTED (the repeats B2 - B1 disagree by 0.369 ms" "$TMP/rep.txt"
check "repeats that disagree: one verdict, inconclusive, each layer in its words" grep -q "^Verdict: INCONCLUSIVE: the layers disagree: device kernel time: B faster by .*; step time: effect .* within its noise" "$TMP/rep.txt"
check "repeats that disagree: the trusted layer named, a gain not yet claimed" grep -q "^  Trust device kernel time: B is faster there by .*; step time does not confirm it yet (take more steps or repeats before claiming a gain in step time)" "$TMP/rep.txt"
# crafted: the kernels' B repeats disagree (B1 0.95, B2 0.75 of A: effect -15%, repeats -20%)
gen "$TMP/k_b1" "$G:40:1000:0.95" "$E:40:500:0.95"
gen "$TMP/k_b2" "$G:40:1000:0.75" "$E:40:500:0.75"
cp -r "$TMP/d_a1" "$TMP/d_a1c"   # a copy: drift exactly 0, the repeats still measured
$DCUTOP -q --export abba "$TMP/d_a1" "$TMP/k_b1" "$TMP/k_b2" "$TMP/d_a1c" -o "$TMP/krep.csv"
same "kernel repeats that disagree more than the effect: untrusted (drift 0)" "untrusted" "$(col "$TMP/krep.csv" name "device kernel time" verdict)"
same "kernel repeats: the gemm row untrusted too" "untrusted" "$(col "$TMP/krep.csv" name "$G" verdict)"
$DCUTOP -q --abba "$TMP/d_a1" "$TMP/k_b1" "$TMP/k_b2" "$TMP/d_a1c" >"$TMP/krep.txt"
check "no steps: device kernel time decides" grep -q "^Verdict: UNTRUSTED: device kernel time decides (no step timing in every run)" "$TMP/krep.txt"

# ---------------------------------------------------------------- a CI gate on every comparison (issue 21)
# exit 3 only for a trusted regression beyond the limit; an untrusted one exits 0 with a warning
# on the last line, or 4 with --strict; the last line says which, and why
gen "$TMP/g_a" "$G:40:1000:1:21" "$E:40:500:1:22"
gen "$TMP/g_a2" "$G:40:1000:1:23" "$E:40:500:1:24"
gen "$TMP/g_slow" "$G:40:1000:1.2:25" "$E:40:500:1.2:26"
gen "$TMP/g_slow2" "$G:40:1000:1.2:27" "$E:40:500:1.2:28"
gen "$TMP/g_b1" "$G:40:1000:1.05:29" "$E:40:500:1.05:30"
gen "$TMP/g_b2" "$G:40:1000:1.4:31" "$E:40:500:1.4:32"
exits "abba gate: a trusted 20% regression fails (exit 3)" 3 $DCUTOP -q --abba "$TMP/g_a" "$TMP/g_slow" "$TMP/g_slow2" "$TMP/g_a2" --fail-above 1
check "abba gate: the last line says FAILED, trusted, and why" sh -c "tail -1 '$TMP/out' | grep -Eq '^gate FAILED: A-B-B-A device kernel time effect \+(19|20|21)\.[0-9]{2}% \(limit \+1%\), trusted: \|effect\| .* > noise .* ms'"
exits "abba gate: --gate on the gemm kernels fails too (exit 3)" 3 $DCUTOP -q --abba "$TMP/g_a" "$TMP/g_slow" "$TMP/g_slow2" "$TMP/g_a2" --fail-above 1 --gate gemm_
exits "abba gate: B faster passes (exit 0)" 0 $DCUTOP -q --abba "$TMP/g_slow" "$TMP/g_a" "$TMP/g_a2" "$TMP/g_slow2" --fail-above 1
check "abba gate: the last line says passed" sh -c "tail -1 '$TMP/out' | grep -Eq '^gate passed: A-B-B-A device kernel time effect -1[67]\.[0-9]{2}% \(limit \+1%\), trusted'"
exits "abba gate: beyond the limit but the repeats disagree more: exit 0" 0 $DCUTOP -q --abba "$TMP/g_a" "$TMP/g_b1" "$TMP/g_b2" "$TMP/g_a2" --fail-above 1
check "abba gate: untrusted: the last line warns and says why" sh -c "tail -1 '$TMP/out' | grep -q '^gate passed with a WARNING: A-B-B-A device kernel time effect +2[0-9].[0-9][0-9]% (limit +1%), untrusted: |effect| .* <= noise .* (repeats B2 - B1): an untrusted regression beyond the limit, not counted (exit 0; --strict exits 4)$'"
exits "abba gate: untrusted with --strict exits 4" 4 $DCUTOP -q --strict --abba "$TMP/g_a" "$TMP/g_b1" "$TMP/g_b2" "$TMP/g_a2" --fail-above 1
check "abba gate: --strict: the last line says FAILED, untrusted" sh -c "tail -1 '$TMP/out' | grep -q '^gate FAILED (--strict: untrusted counts): A-B-B-A device kernel time .* (exit 4)$'"
exits "abba gate: --export abba keeps the exit code" 3 $DCUTOP -q --export abba "$TMP/g_a" "$TMP/g_slow" "$TMP/g_slow2" "$TMP/g_a2" --fail-above 1 -o "$TMP/gate.csv"
check "abba gate: --export says the verdict on stderr" grep -q "gate FAILED: A-B-B-A" "$TMP/err"
exits "abba gate: a --gate that names nothing is a usage error" 2 $DCUTOP -q --abba "$TMP/g_a" "$TMP/g_slow" "$TMP/g_slow2" "$TMP/g_a2" --fail-above 1 --gate nosuchkernel
exits "diff gate: within noise beyond the limit: exit 0 with a warning" 0 $DCUTOP -q --diff "$TMP/jit" "$TMP/jit2" --fail-above 0 --gate add_k
check "diff gate: the last line warns" sh -c "tail -1 '$TMP/out' | grep -q '^gate passed with a WARNING: kernels matching .* within noise: an untrusted regression beyond the limit, not counted'"
exits "diff gate: the same with --strict exits 4" 4 $DCUTOP -q --strict --diff "$TMP/jit" "$TMP/jit2" --fail-above 0 --gate add_k

# ---------------------------------------------------------------- usage
exits "--diff needs two paths" 2 $DCUTOP --diff "$TMP/base"
exits "--abba needs four paths" 2 $DCUTOP --abba "$TMP/base" "$TMP/base"
exits "--fail-above needs --diff or --abba" 2 $DCUTOP --fail-above 3 "$TMP/base"
exits "--gate needs --fail-above" 2 $DCUTOP --diff --gate gemm "$TMP/base" "$TMP/base"
exits "--match takes full or short" 2 $DCUTOP --diff --match fuzzy "$TMP/base" "$TMP/base"
exits "a missing side is a runtime error" 1 $DCUTOP -q --diff "$TMP/base" "$TMP/nope"

# ---------------------------------------------------------------- filters, formats, documentation
$DCUTOP -q --export abba --filter gemm_ "$TMP/d_a1" "$TMP/d_b1" "$TMP/d_b2" "$TMP/d_a2" -o "$TMP/abf.csv"
same "abba --filter: the total stays, one kernel row" "device kernel time;$G;" "$(python3 -c "
import csv; print(''.join(r['name'] + ';' for r in csv.DictReader(open('$TMP/abf.csv'))))")"
exits "abba: a bad --filter is a usage error" 2 $DCUTOP -q --export abba --filter '([' "$TMP/d_a1" "$TMP/d_b1" "$TMP/d_b2" "$TMP/d_a2"
$DCUTOP -q --report --diff --format csv --fail-above 10 "$TMP/base" "$TMP/slow" >"$TMP/rep.csv.txt" 2>/dev/null
same "--format csv: one block per table, the verdict second, the gate last" "# summary # verdict # matching # notes # kernels # categories # gate" "$(grep '^# ' "$TMP/rep.csv.txt" | tr -d '\r' | tr '\n' ' ' | sed 's/ $//')"
$DCUTOP -q --diff "$TMP/base" "$TMP/slow" --sort name:asc --filter _k >"$TMP/sorted.txt"
check "--sort and --filter apply to the kernel table" sh -c "grep -A3 '^Kernels' '$TMP/sorted.txt' | sed -n 3p | grep -q 'add_k'"
for o in --diff --abba --match --fail-above --gate; do
    check "$o is in --help and in the option table of doc/options.md" sh -c \
        "$DCUTOP --help | grep -q -- '$o ' && grep -q '^| \`$o' doc/options.md"
done

# ---------------------------------------------------------------- bad step files, a side without kernels
mkdir -p "$TMP/sbad" "$TMP/strunc"
printf '{"step_ms_events": [1.0, "x", 2.0, -1]}' >"$TMP/sbad/step-times.json"
printf '{"step_ms_events": [1.0, 2.0' >"$TMP/strunc/step-times.json"
$DCUTOP --report --view files "$TMP/sbad" >"$TMP/sbad.txt" 2>"$TMP/sbad.err"
check "step JSON: 2 steps kept, 2 elements rejected" grep -q "step-times.json *step times (JSON) *steps *2 *2 *used" "$TMP/sbad.txt"
check "step JSON: the bad element is named" grep -q "step-times.json: element 1 of the step list is not a time in ms" "$TMP/sbad.err"
exits "truncated step JSON alone: nothing loaded (exit 1)" 1 $DCUTOP --report "$TMP/strunc"
check "truncated step JSON: one line naming the parse error" grep -q "step-times.json: skipped: step times JSON that cannot be read: parse error: premature EOF$" "$TMP/err"
$DCUTOP -q --diff "$TMP/sbad" "$TMP/base" >"$TMP/nokern.txt"
check "steps only vs kernels: the note says kernel times cannot be compared" grep -q "no device kernel times in the baseline (A): kernel times cannot be compared" "$TMP/nokern.txt"
check "steps only vs kernels: no percentage against a zero baseline" grep -q "delta 61.9 us (no baseline time), speedup -" "$TMP/nokern.txt"
check "steps on one side only: plain timing cannot be compared" grep -q "step times only in the baseline (A): plain timing cannot be compared" "$TMP/nokern.txt"
$DCUTOP -q --report --diff --format json "$TMP/base" "$TMP/slow" >"$TMP/sum.json"
check "JSON summary: speedup = before / after of device kernel time" python3 -c "
import json, sys
s = json.load(open('$TMP/sum.json'))['summary'][0]
sys.exit(not (s['metric'] == 'device kernel time' and abs(s['speedup'] - s['before'] / s['after']) < 1e-6))"

# the manual's sessions are this binary's real output (title line aside: it names the paths)
$DCUTOP -q --diff "$ABBA/A1" "$ABBA/S1" --top 6 --width 110 --fail-above 5 >"$TMP/readme_diff.txt"
$DCUTOP -q --abba "$ABBA/A1" "$ABBA/S1" "$ABBA/S2" "$ABBA/A2" --top 4 --width 110 >"$TMP/readme_abba.txt"
for f in readme_diff readme_abba; do
    check "doc/manual.md shows the current $f output" python3 - "$TMP/$f.txt" <<'PYEOF'
import sys
out = open(sys.argv[1]).read().rstrip("\n").split("\n")[1:]
block = "\n".join(("    " + l) if l else "" for l in out)
sys.exit(block not in open("doc/manual.md").read())
PYEOF
done

# ---------------------------------------------------------------- `dcutop A B` (interactive, headless)
printf ':dump start\n' >"$TMP/start.keys"
$DCUTOP --headless --keys "$TMP/start.keys" "$TMP/base" "$TMP/slow" >"$TMP/ab.txt" 2>"$TMP/ab.err"
check "dcutop A B, one run each: opens on the Diff screen" grep -q "^ Kernel time 61.9 us -> 102.9 us" "$TMP/ab.txt"
mkdir -p "$TMP/multi/r1" "$TMP/multi/r2"
cp "$TMP/base/results.csv" "$TMP/multi/r1/"
cp "$TMP/slow/results.csv" "$TMP/multi/r2/"
$DCUTOP --headless --keys "$TMP/start.keys" "$TMP/multi" "$TMP/base" >"$TMP/multi.txt" 2>&1
check "dcutop A B, A holds two runs: no comparison, the Summary as before" sh -c \
    "grep -q 'Device kernels' '$TMP/multi.txt' && ! grep -q '^ Kernel time' '$TMP/multi.txt'"
$DCUTOP --headless --keys "$TMP/start.keys" "$TMP/steps" "$TMP/nothere" >"$TMP/bad.txt" 2>"$TMP/bad.err"
same "dcutop A B, B missing: one error, as without the comparison" "1" "$(grep -c 'nothere' "$TMP/bad.err")"
