#!/bin/sh
# test_gate.sh - a gate a CI can trust, on the real A-B-B-A runs (tests/data/real/
# pytorch-h200-abba-sdpa: A = manual attention, S = fused; taken A1 S1 S2 A2), with baseline
# and candidate swapped both ways: any layer's trusted regression beyond --fail-above fails
# (exit 3); layers that disagree are INCONCLUSIVE (exit 4 with --strict); the text names the
# trusted layer and never speaks of a gain on a regression; JSON always carries the verdict;
# -o with every batch mode; --export abba in ns; a run given twice is refused; run labels with
# commas. Every figure is checked against python3 over the raw traces and step-times.json.
. tests/cli/lib.sh
XDG_CONFIG_HOME=$TMP/xdg
export XDG_CONFIG_HOME
R=$REAL/pytorch-h200-abba-sdpa

# ref KIND RUN...: python3 over the raw files: "kernel" the summed kernel time (ns) of each
# run, "steps" the median of its step-times.json (ms)
ref() {
    python3 - "$R" "$@" <<'EOF'
import gzip, json, statistics, sys
d, kind, runs = sys.argv[1], sys.argv[2], sys.argv[3:]
for r in runs:
    if kind == "kernel":
        ev = json.load(gzip.open("%s/%s/%s.trace.json.gz" % (d, r, r)))["traceEvents"]
        print(round(sum(e["dur"] for e in ev if e.get("cat") == "kernel") * 1000))
    else:
        print(statistics.median(json.load(open("%s/%s/step-times.json" % (d, r)))["step_ms_events"]))
EOF
}
# pct A1 B1 B2 A2 (numbers): the A-B-B-A effect in % of mean(A), two decimals
pct() { python3 -c "import sys; a1,b1,b2,a2=map(float,sys.argv[1:]); print('%+.2f' % (100*((b1+b2)/2-(a1+a2)/2)/((a1+a2)/2)))" "$@"; }

# ---------------------------------------------------------------- the gate on every layer
# S as baseline, A as candidate: device kernel time +86% (trusted: A1, A2 agree to 0.02%), step
# time +44% but untrusted (A1's steps 5.3 ms, A2's 2.1 ms). The untrusted layer used to decide.
set -- $(ref kernel S1 A1 A2 S2)
kpct=$(pct "$@")
exits "gate: S1 A1 A2 S2, a trusted kernel-time regression fails (exit 3)" 3 \
    $DCUTOP -q --abba "$R/S1" "$R/A1" "$R/A2" "$R/S2" --fail-above 1
check "gate: ... the last line names the trusted layer and its effect ($kpct%, python)" sh -c \
    "tail -1 '$TMP/out' | grep -q '^gate FAILED: A-B-B-A device kernel time effect $kpct% (limit +1%), trusted: '"
check "gate: ... and says the untrusted step time cannot clear it" sh -c \
    "tail -1 '$TMP/out' | grep -q 'step time (median) effect .*, untrusted: .*(an untrusted layer cannot clear a trusted one)$'"
exits "gate: ... the same with --strict (exit 3, not 4)" 3 \
    $DCUTOP -q --strict --abba "$R/S1" "$R/A1" "$R/A2" "$R/S2" --fail-above 1
exits "gate: swapped (A1 S1 S2 A2: kernel time trusted faster) passes" 0 \
    $DCUTOP -q --abba "$R/A1" "$R/S1" "$R/S2" "$R/A2" --fail-above 1
check "gate: ... with a warning: the layers disagree" sh -c "tail -1 '$TMP/out' | grep -q '^gate passed with a WARNING: .*the layers disagree (INCONCLUSIVE)'"
# the step time's noise (3.13 ms) reaches past the limit: it cannot rule out a regression
exits "gate: ... INCONCLUSIVE with --strict (exit 4): the untrusted step time could hide a regression" 4 \
    $DCUTOP -q --strict --abba "$R/A1" "$R/S1" "$R/S2" "$R/A2" --fail-above 1
check "gate: ... and says so" sh -c "tail -1 '$TMP/out' | grep -q 'step time (median) effect -30.69% (limit +1%), untrusted: .*: it cannot rule out a regression beyond the limit (at the edge of its noise +53.69%); the layers disagree (INCONCLUSIVE)'"
mkdir -p "$TMP/m"
for r in A1 A2 S1 S2; do cp -r "$R/$r" "$TMP/m/"; done
exits "gate: marks --baseline S1,S2 --candidate A1,A2 fail (exit 3)" 3 \
    $DCUTOP -q "$TMP/m" --baseline S1,S2 --candidate A1,A2 --fail-above 1
exits "gate: marks swapped pass (exit 0)" 0 \
    $DCUTOP -q "$TMP/m" --baseline A1,A2 --candidate S1,S2 --fail-above 1
exits "gate: marks swapped, --strict: INCONCLUSIVE (exit 4)" 4 \
    $DCUTOP -q --strict "$TMP/m" --baseline A1,A2 --candidate S1,S2 --fail-above 1

# The issue's shape: the kernels regress (trusted) while the step time is untrusted and points
# to a gain. The real runs' kernels, with A's step times made S's less 1% (B1 gets S2's, B2
# S1's, so the repeats still disagree): the step layer says "faster, within noise".
mkdir -p "$TMP/x"
for r in S1 S2 A1 A2; do cp -r "$R/$r" "$TMP/x/"; done
python3 - "$R" "$TMP/x" <<'EOF'
import json, sys
src, dst = sys.argv[1:]
for a, s in (("A1", "S2"), ("A2", "S1")):
    j = json.load(open("%s/%s/step-times.json" % (src, s)))
    j["step_ms_events"] = [t * 0.99 for t in j["step_ms_events"]]
    json.dump(j, open("%s/%s/step-times.json" % (dst, a), "w"))
EOF
X=$TMP/x
exits "gate: kernels regress, step time untrusted toward a gain: exit 3 with --strict" 3 \
    $DCUTOP -q --strict --abba "$X/S1" "$X/A1" "$X/A2" "$X/S2" --fail-above 1 --width 1000
cp "$TMP/out" "$TMP/x.txt"
check "gate: ... its last line names device kernel time, trusted" sh -c \
    "tail -1 '$TMP/x.txt' | grep -q '^gate FAILED: A-B-B-A device kernel time effect $kpct% (limit +1%), trusted'"
check "gate: ... the verdict is INCONCLUSIVE (the layers disagree)" grep -q "^Verdict: INCONCLUSIVE: the layers disagree: device kernel time: B slower by" "$TMP/x.txt"
check "gate: ... the advice trusts the kernel regression" grep -q "^  Trust device kernel time: B is slower there by .*, a regression; step time can neither confirm nor rule it out" "$TMP/x.txt"
check "gate: ... never speaks of a gain on a regression" sh -c "! grep -q -e 'claiming a gain' -e 'Believe step time' '$TMP/x.txt'"
exits "gate: swapped, an untrusted step regression where the layers disagree: INCONCLUSIVE, exit 4 with --strict" 4 \
    $DCUTOP -q --strict --abba "$X/A1" "$X/S1" "$X/S2" "$X/A2" --fail-above 1
check "gate: ... its last line says INCONCLUSIVE" sh -c "tail -1 '$TMP/out' | grep -q '^gate FAILED (--strict: untrusted counts): A-B-B-A step time (median) effect +.*untrusted.*the layers disagree (INCONCLUSIVE)'"
exits "gate: ... without --strict exits 0 with the warning" 0 \
    $DCUTOP -q --abba "$X/A1" "$X/S1" "$X/S2" "$X/A2" --fail-above 1
check "gate: ... a gain in kernel time, not yet in step time" grep -q "Trust device kernel time: B is faster there by .*; step time does not confirm it yet" "$TMP/out"

# --diff: every layer too. A2 against A1 (the same code): kernel time +0.02%, within the
# --fail-above 5; step time 2.15 -> 5.28 ms, outside the noise of each run's 20 steps
set -- $(ref steps A2 A1)
spct=$(python3 -c "import sys; a, b = map(float, sys.argv[1:]); print('%+.2f' % (100 * (b - a) / a))" "$@")
exits "diff gate: S1 A1 fails (kernel time)" 3 $DCUTOP -q --diff "$R/S1" "$R/A1" --fail-above 1
exits "diff gate: A1 S1 passes" 0 $DCUTOP -q --diff "$R/A1" "$R/S1" --fail-above 1 --strict
exits "diff gate: A2 A1, a trusted step-time regression fails though kernel time holds" 3 \
    $DCUTOP -q --diff "$R/A2" "$R/A1" --fail-above 5
check "diff gate: ... the last line names the step time ($spct%, python)" sh -c \
    "tail -1 '$TMP/out' | grep -q '^gate FAILED: step time (median) $spct% (limit +5%), outside noise (95% CI of delta '"
exits "diff gate: A1 A2 (swapped) passes" 0 $DCUTOP -q --diff "$R/A1" "$R/A2" --fail-above 5 --strict

# ---------------------------------------------------------------- JSON, -o, ns
$DCUTOP -q --report --abba "$R/S1" "$R/A1" "$R/A2" "$R/S2" --format json >"$TMP/a.json"
same "json: --abba without --fail-above carries the verdict" "inconclusive device kernel time" \
    "$(python3 -c "
import json; v = json.load(open('$TMP/a.json'))['verdict'][0]
print(v['result'], 'device kernel time' if 'Trust device kernel time' in v['advice'] else v['advice'])")"
$DCUTOP -q --report --diff "$R/S1" "$R/A1" --format json >"$TMP/d.json"
same "json: --diff without --fail-above carries the verdict" "trusted" \
    "$(python3 -c "import json; print(json.load(open('$TMP/d.json'))['verdict'][0]['result'])")"
for m in "--diff $R/S1 $R/A1" "--abba $R/S1 $R/A1 $R/A2 $R/S2" "--baseline S1,S2 --candidate A1,A2 $TMP/m"; do
    rm -f "$TMP/o.txt"
    # shellcheck disable=SC2086
    exits "-o: ${m%% *} writes its report to the file (exit 0)" 0 $DCUTOP -q $m -o "$TMP/o.txt"
    # shellcheck disable=SC2086
    $DCUTOP -q $m >"$TMP/stdout.txt"
    check "-o: ... the same report as on standard output" cmp -s "$TMP/o.txt" "$TMP/stdout.txt"
done
$DCUTOP -q --export abba "$R/S1" "$R/A1" "$R/A2" "$R/S2" -o "$TMP/abba.csv"
same "export abba: device kernel time of S1 A1 A2 S2 in ns, as python sums the traces" \
    "$(ref kernel S1 A1 A2 S2 | tr '\n' ' ')" \
    "$(python3 -c "
import csv; r = next(r for r in csv.DictReader(open('$TMP/abba.csv')) if r['name'] == 'device kernel time')
print(' '.join(r[k] for k in ('a1', 'b1', 'b2', 'a2')) + ' ')")"
same "export abba: the step time in ns (A1's median, python x 1e6)" \
    "$(ref steps A1 | python3 -c "import sys; print('%.0f' % (float(sys.stdin.read()) * 1e6))")" \
    "$(python3 -c "
import csv; r = next(r for r in csv.DictReader(open('$TMP/abba.csv')) if r['name'] == 'step time (median)')
print('%.0f' % float(r['b1']))")"
# e on the A-B-B-A screen writes what --export abba writes (ns), the screen's filter applied
mkdir -p "$TMP/e"
printf '/roll<Enter>\ne<Enter>\n' >"$TMP/e/k"
D=$DCUTOP
case $D in /*) ;; *) D=$PWD/$D ;; esac
W=$PWD
(cd "$TMP/e" && "$D" --headless --size 100x30 --keys k --abba "$W/$R/S1" "$W/$R/A1" "$W/$R/A2" "$W/$R/S2" >/dev/null 2>&1)
$DCUTOP -q --export abba --filter roll "$R/S1" "$R/A1" "$R/A2" "$R/S2" >"$TMP/e/batch.csv"
check "export abba: e on the screen writes the same file as --export abba --filter (ns)" \
    cmp -s "$TMP/e/diff.csv" "$TMP/e/batch.csv"

# ---------------------------------------------------------------- the verdicts at 80 columns
printf ':dump s\n' >"$TMP/s.keys"
$DCUTOP --headless --size 80x24 --keys "$TMP/s.keys" --abba "$R/S1" "$R/A1" "$R/A2" "$R/S2" >"$TMP/a80.txt" 2>&1
$DCUTOP --headless --size 80x24 --keys "$TMP/s.keys" "$R/S1" "$R/A1" >"$TMP/d80.txt" 2>&1
# joined: continuation lines (13 spaces, then text) joined to the line above
joined() { awk '/^ {13}[^ ]/ {sub(/^ +/, ""); printf " %s", $0; next} {printf "\n%s", $0} END {print ""}' "$1"; }
joined "$TMP/a80.txt" >"$TMP/a80j.txt"
joined "$TMP/d80.txt" >"$TMP/d80j.txt"
check "80x24: the A-B-B-A verdict is whole (wrapped, not cut)" grep -q \
    "^ Verdict     INCONCLUSIVE: the layers disagree: device kernel time: B slower by 86.42%, beyond its noise (0.003109 ms, B2 - B1); step time: effect +44.27% is within its noise (3.13 ms, B2 - B1)$" "$TMP/a80j.txt"
check "80x24: the diff's kernel-time line is whole" grep -q \
    "^ Kernel time 8.0 ms -> 14.8 ms  delta 6.9 ms (+86.44%)  speedup 0.54x  outside noise$" "$TMP/d80j.txt"
check "80x24: no summary line runs to the last column" sh -c \
    "! sed -n '3,12p' '$TMP/a80.txt' '$TMP/d80.txt' | grep -q '^.\{79\}[^ ]'"

# ---------------------------------------------------------------- a run given twice
exits "twice: --abba P Q Q P is refused (exit 2)" 2 $DCUTOP -q --abba "$R/A1" "$R/S1" "$R/S1" "$R/A1"
check "twice: ... saying why" grep -q "is given twice as a run of the .*: a run repeated measures no noise" "$TMP/err"
exits "twice: --baseline A1,A1 is refused (exit 2)" 2 $DCUTOP -q "$TMP/m" --baseline A1,A1 --candidate S1,S2
exits "twice: --diff A1,A1 S1 is refused (exit 2)" 2 $DCUTOP -q --diff "$R/A1,$R/A1" "$R/S1"
cp -r "$R/A1" "$TMP/A1copy"
cp -r "$R/S1" "$TMP/S1copy"
exits "copies: an A-B-B-A of copies is never trusted: the gate warns (exit 0), not 3" 0 \
    $DCUTOP -q --abba "$R/S1" "$R/A1" "$TMP/A1copy" "$TMP/S1copy" --fail-above 1 --width 1000
check "copies: ... every layer untrusted, saying no noise was measured" sh -c \
    "grep -c 'UNTRUSTED (drift and repeats are both exactly 0: a run given twice measures no noise)' '$TMP/out' | grep -qx 2"

# ---------------------------------------------------------------- a run labelled with a comma
mkdir -p "$TMP/c"
cp -r "$R/A1" "$TMP/c/x,y"
cp -r "$R/S1" "$TMP/c/z"
exits "labels: --baseline names a run labelled 'x,y'" 0 $DCUTOP -q "$TMP/c" --baseline x,y --candidate z
check "labels: ... and compares it" grep -q "^dcutop .* diff: A = x,y, B = z" "$TMP/out"

# ---------------------------------------------------------------- documented
for f in README.md doc/manual.md dcutop.1; do
    check "exit codes 3 and 4 and INCONCLUSIVE documented in $f" sh -c \
        "grep -q 'INCONCLUSIVE' '$f' && grep -q 'any layer' '$f'"
done
