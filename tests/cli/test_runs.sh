#!/bin/sh
# test_runs.sh - runs (README "Runs"): a folder of three runs gives per-run iterations and
# cold starts equal to each run loaded alone (sub-folders, and three pids in one folder),
# never one blended figure; --run LABEL picks one run (the same figures as loading it alone);
# an unknown label exits 2 listing the labels; two PATHs keep distinguishable file names.
. tests/cli/lib.sh
XDG_CONFIG_HOME=$TMP/xdg
export XDG_CONFIG_HOME
W=sample-traces/dcu-weather-transformer/results.csv

# Three runs from the weather trace: the first 350 dispatches (warm-up and the first
# iteration) stretched by F around the run's start, the rest shifted by the added time, so
# each run has its own cold start; every run gets its own clock offset too.
mkrun() { # F OFFSET OUT
    # columns from the end: DispatchNs BeginNs EndNs CompleteNs DurationNs
    awk -v f="$1" -v off="$2" -F, 'NR == 1 { print; next }
        { n = NF }
        NR == 2 { t0 = $(n - 4) }
        NR <= 351 { orig = $(n - 1)
                    for (k = 4; k >= 1; k--) $(n - k) = int(t0 + ($(n - k) - t0) * f) + off
                    $(n) = $(n - 2) - $(n - 3); print; next }
        { if (!add) add = int(t0 + (orig - t0) * f) - orig
          for (k = 4; k >= 2; k--) $(n - k) = $(n - k) + add + off
          $(n) = $(n - 2) - $(n - 3); print }' OFS=, "$W" >"$3"
}
mkdir -p "$TMP/sub/r1" "$TMP/sub/r2" "$TMP/sub/r3" "$TMP/pids"
mkrun 1.0 0 "$TMP/sub/r1/results.csv"
mkrun 0.7 1000000000 "$TMP/sub/r2/results.csv"
mkrun 1.3 5000000000 "$TMP/sub/r3/results.csv"
cp "$TMP/sub/r1/results.csv" "$TMP/pids/1001_results.csv"
cp "$TMP/sub/r2/results.csv" "$TMP/pids/1002_results.csv"
cp "$TMP/sub/r3/results.csv" "$TMP/pids/1003_results.csv"

# the figures of one run loaded alone: iterations, first span, steady span, cold ratio
alone() {
    "$DCUTOP" -q --report --format json "$1" | python3 -c '
import json, sys
s = json.load(sys.stdin)["timeline"]["summary"]
print(s["iterations"], s["first_iteration_span_ns"], round(s["steady_iteration_span_ns"]),
      "%.6f" % s["cold_ratio"])'
}
for layout in sub pids; do
    for i in 1 2 3; do
        if [ $layout = sub ]; then f=$TMP/sub/r$i/results.csv; label=r$i
        else f=$TMP/pids/100${i}_results.csv; label=100$i; fi
        a=$(alone "$f")
        b=$("$DCUTOP" -q --report --format json --run all "$TMP/$layout" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for r in d["timeline"]["runs"]:
    if r["run"] == sys.argv[1]:
        print(r["iterations"], r["first_iteration_span_ns"], r["steady_iteration_span_ns"],
              "%.6f" % r["cold_ratio"])' "$label")
        same "$layout: run $label in the folder = run $label alone (iterations, first, steady, cold)" "$a" "$b"
        c=$("$DCUTOP" -q --report --format json --run "$label" "$TMP/$layout" | python3 -c '
import json, sys
s = json.load(sys.stdin)["timeline"]["summary"]
print(s["iterations"], s["first_iteration_span_ns"], round(s["steady_iteration_span_ns"]),
      "%.6f" % s["cold_ratio"])')
        same "$layout: --run $label gives the figures of run $label alone" "$a" "$c"
    done
done
cold() { set -- $1; echo "$4"; }
c1=$(cold "$(alone "$TMP/sub/r1/results.csv")")
c2=$(cold "$(alone "$TMP/sub/r2/results.csv")")
c3=$(cold "$(alone "$TMP/sub/r3/results.csv")")
check "the three runs have different cold starts ($c1, $c2, $c3)" \
    [ "$c1" != "$c2" -a "$c2" != "$c3" -a "$c1" != "$c3" ]
# independent check of one run's first-iteration span: awk over the dispatches the report
# puts in iteration 1 (timeline.iterations rows of that run)
"$DCUTOP" -q --report --format json "$TMP/sub/r2/results.csv" >"$TMP/r2.json"
exp=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
it = [r for r in d["timeline"]["iterations"] if r["iteration"] == 1][0]
w = [r["dispatches"] for r in d["timeline"]["iterations"] if r["phase"] == "warm-up"]
print(it["dispatches"], w[0] if w else 0)' "$TMP/r2.json")
# rows after the warm-up prefix (shown apart, README "Timeline")
span=$(echo "$exp" | { read -r n w; awk -F, -v n="$n" -v w="$w" 'NR == 1 { next }
    NR == w + 2 { s = $(NF - 3) }
    NR >= w + 2 && NR <= w + n + 1 { if ($(NF - 2) > e) e = $(NF - 2) } END { print e - s }' \
    "$TMP/sub/r2/results.csv"; })
exp=${exp% *}
first=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["timeline"]["summary"]["first_iteration_span_ns"])' "$TMP/r2.json")
same "r2 first iteration span = last end - first start of its first $exp dispatches (awk)" "$span" "$first"

# with several runs added (--run all) the whole never shows one blended cold ratio
"$DCUTOP" -q --report --format json --run all "$TMP/sub" >"$TMP/all.json"
same "folder of 3 runs: summary cold_ratio is not blended (0)" "0.000000" \
    "$(python3 -c 'import json,sys; print("%.6f" % json.load(open(sys.argv[1]))["timeline"]["summary"]["cold_ratio"])' "$TMP/all.json")"
"$DCUTOP" -q --report --width 120 --run all "$TMP/sub" >"$TMP/all.txt"
check "text report: one line per run with its cold start" \
    [ "$(grep -Ec '^    r[123]: span .* \(cold start [0-9.]+x\)$' "$TMP/all.txt")" -eq 3 ]
check "text report: no blended 'steady iterations ... on average' line" \
    sh -c "! grep -q 'on average (cold start' '$TMP/all.txt'"
check "text report: the per-run timeline table" grep -q '^Timeline: per run' "$TMP/all.txt"

# --run with an unknown label: exit 2, the labels listed
exits "--run with an unknown label exits 2" 2 "$DCUTOP" --report --run nope "$TMP/sub"
check "--run: the message lists the labels" grep -q "the runs are: r1, r2, r3" "$TMP/err"
# --run: the Files table shows that run's files only; the kernel time is that run's
"$DCUTOP" -q --report --format json --run r2 "$TMP/sub" >"$TMP/r2only.json"
same "--run r2: the kernel time is run r2's alone" \
    "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"]["kernel_ns"])' "$TMP/r2.json")" \
    "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"]["kernel_ns"])' "$TMP/r2only.json")"
same "--run r2: the Files table lists r2's file only" "r2/results.csv" \
    "$(python3 -c 'import json,sys; print(",".join(f["name"] for f in json.load(open(sys.argv[1]))["files"]))' "$TMP/r2only.json")"

# two PATHs: distinguishable names in the Files table, two runs (--run all: both in scope)
"$DCUTOP" -q --report --format json --run all "$TMP/sub/r1" "$TMP/sub/r3" >"$TMP/two.json"
same "two PATHs: file names prefixed by each path's label" "r1/results.csv,r3/results.csv" \
    "$(python3 -c 'import json,sys; print(",".join(f["name"] for f in json.load(open(sys.argv[1]))["files"]))' "$TMP/two.json")"
same "two PATHs: two runs in the timeline" "2" \
    "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["timeline"]["summary"]["runs"])' "$TMP/two.json")"

# the Runs section: every run with its own figures, computed independently from its files
# (kernel names hold commas: fields are counted from the end of the line)
F=tests/data/runs
"$DCUTOP" -q --report --format json "$F" >"$TMP/f.json"
for r in r1 r2 pmc; do
    last=0; [ $r = pmc ] && last=1   # the PMC run has a counter column after DurationNs
    exp=$(awk -F, -v k=$last 'NR > 1 { s += $(NF - k); n++ } END { print s, n }' "$F/$r/results.csv")
    got=$(python3 -c '
import json, sys
for r in json.load(open(sys.argv[1]))["runs"]:
    if r["run"] == sys.argv[2]:
        print(r["kernel_ns"], r["dispatches"])' "$TMP/f.json" "$r")
    same "runs: $r kernel time and dispatches = sum of its DurationNs (awk)" "$exp" "$got"
done
same "runs: stats run kernel time = sum of its TotalDurationNs (awk)" \
    "$(awk -F, 'NR > 1 { s += $(NF - 2) } END { print s }' "$F/stats/results.stats.csv")" \
    "$(python3 -c 'import json,sys; print([r["kernel_ns"] for r in json.load(open(sys.argv[1]))["runs"] if r["run"] == "stats"][0])' "$TMP/f.json")"
same "runs: modes" "pmc,trace,trace,stats" \
    "$(python3 -c 'import json,sys; print(",".join(r["mode"] for r in json.load(open(sys.argv[1]))["runs"]))' "$TMP/f.json")"
# complementary runs: the PMC run gives counters, not time, beside runs with kernel times
"$DCUTOP" -q --report --format json --run all "$F" >"$TMP/fall.json"
same "scope all: kernel time = r1 + r2 + stats (the PMC run's times are not added)" \
    "$(cat "$F/r1/results.csv" "$F/r2/results.csv" | awk -F, '$1 ~ /^[0-9]/ { s += $NF } END { print s }' | \
       awk -v st="$(awk -F, 'NR > 1 { s += $(NF - 2) } END { print s }' "$F/stats/results.stats.csv")" '{ print $1 + st }')" \
    "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"]["kernel_ns"])' "$TMP/fall.json")"
check "scope all: the PMC run's counters are listed" \
    python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["timeline"]["pmc_counters"]; sys.exit(not any(r["counter"] == "SQ_WAVES" for r in c))' "$TMP/f.json"
"$DCUTOP" -q --report --width 120 "$F" >"$TMP/f.txt"
check "text report: a Runs table when several runs are loaded" grep -q '^Runs: 4 loaded' "$TMP/f.txt"
"$DCUTOP" -q --report --width 120 sample-traces/dcu-weather-transformer >"$TMP/w.txt"
check "text report: no Runs table for one run" sh -c "! grep -q '^Runs:' '$TMP/w.txt'"

# the TUI with one run: the Runs tab as every top screen has, U opens the Runs screen
printf 'U\n:dump r\n' >"$TMP/u.keys"
"$DCUTOP" --headless --size 100x30 --keys "$TMP/u.keys" sample-traces/dcu-weather-transformer >"$TMP/u.out"
check "one run: the strip has the 'U Runs' tab" grep -q 'U Runs' "$TMP/u.out"
check "one run: U lists it, named after the PATH, with its own cold start" \
    grep -Eq '^ dcu-weather-transformer +kernel,api +trace +824\.96 .* 6 1\.05x' "$TMP/u.out"
check "one run: the header has no run count" sh -c "! grep -q 'runs, scope' '$TMP/u.out'"
# marks: a run is on one side at most; pressing the same side again unmarks it
printf 'U\n<Down>a\n:dump a\nb\n:dump b\nb\n:dump none\n' >"$TMP/m.keys"
"$DCUTOP" --headless --size 100x30 --keys "$TMP/m.keys" tests/data/runs >"$TMP/m.out"
# (the A/B column is left out when no run is marked)
same "marks: a, then b moves the run to B, then b unmarks it" "A|B|none" \
    "$(awk '/^ [AB-] +r1 / { printf "%s%s", (n++ ? "|" : ""), $1 }
            /^ r1 / { printf "%snone", (n++ ? "|" : "") }' "$TMP/m.out")"
# dispatch start times are relative to their own run's start (r2 is 6 s later on the clock)
printf '2<Enter><Enter>\n:dump d\n' >"$TMP/d.keys"
"$DCUTOP" --headless --size 120x24 --keys "$TMP/d.keys" --run all tests/data/runs >"$TMP/d.out"
same "dispatches: each run's first dispatch starts at 0 (r1, r2)" "0.00 r1/results.csv|0.00 r2/results.csv" \
    "$(awk '$1 == 0 && $NF ~ /results.csv$/ { printf "%s%s %s", (n++ ? "|" : ""), $2, $NF }' "$TMP/d.out")"
# the Summary's run lines are cursor targets (issue 12): Enter on one opens the Runs screen
printf 'G\n<Enter>\n:dump run-line\n' >"$TMP/sr.keys"
"$DCUTOP" --headless --size 100x40 --keys "$TMP/sr.keys" --run all tests/data/runs >"$TMP/sr.out"
check "Summary: Enter on a run's line opens the Runs screen" grep -q "> Summary > Runs" "$TMP/sr.out"
