#!/bin/sh
# test_walk.sh - hostile trace folders (issue 9, points 1-3): special files never opened or
# waited on, every file loaded once however many links lead to it, deep folders reported,
# and a folder of 100,000 small files loaded in bounded (linear) time.
# Every run is under `timeout`: before these fixes a FIFO hung the load forever, ten links to
# "." made the walk exponential, and 100,000 files took quadratic time.
. tests/cli/lib.sh
XDG_CONFIG_HOME=$TMP/xdg
export XDG_CONFIG_HOME
V3=sample-traces/rocprofv3-sdk-docs-csv
STATS=sample-traces/llamacpp-rocprof-v1-stats/results.stats.csv

# figures DIR...: the report's numbers without the Files table (which lists the skipped entries)
figures() {
    timeout 60 "$DCUTOP" --report --format json "$@" 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
d.pop("files")
d.pop("dcutop")
def strip(x):  # file names and run labels name the PATHs given; the figures must not change
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in ("file", "run")}
    return [strip(v) for v in x] if isinstance(x, list) else x
print(json.dumps(strip(d), sort_keys=True))'
}
# figsame DESC FIGURES: FIGURES equal $REF (on a difference, only the totals are shown)
figsame() {
    if [ "$REF" = "$2" ]; then
        ok "$1"
    else
        notok "$1"
        echo "#   expected totals: $(echo "$REF" | python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"])')"
        echo "#   actual totals:   $(echo "$2" | python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"])')"
    fi
}
# files_col DIR COLUMN NAME: one column of the Files export for the row of NAME
files_col() {
    timeout 60 "$DCUTOP" --export files -o - "$1" 2>/dev/null |
        python3 -c 'import csv, sys
for r in csv.DictReader(sys.stdin):
    if r["name"] == sys.argv[2]:
        print(r[sys.argv[1]])' "$2" "$3"
}

# ------------------------------------------------------------ 1. FIFO, socket, device node
SP=$TMP/special
mkdir -p "$SP"
cp "$STATS" "$SP/results.stats.csv"
mkfifo "$SP/pipe.csv"
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$SP/sock.csv"
have_dev=0
mknod "$SP/nulldev" c 1 3 2>/dev/null && have_dev=1
timeout 20 "$DCUTOP" --report "$SP" >"$TMP/sp.out" 2>"$TMP/sp.err"
same "a FIFO, a socket and a device in the folder: the report finishes" 0 $?
EXP=$(python3 -c 'import csv, sys
print(sum(int(r["TotalDurationNs"]) for r in csv.DictReader(open(sys.argv[1]))))' "$STATS")
same "the real file beside them is loaded" "$(figures "$STATS" | python3 -c \
    'import json,sys; print(json.load(sys.stdin)["totals"]["kernel_ns"])')" \
    "$(figures "$SP" | python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"]["kernel_ns"])')"
check "kernel time is the file's own sum" [ "$(figures "$SP" | python3 -c \
    'import json,sys; print(json.load(sys.stdin)["totals"]["kernel_ns"])')" = "$EXP" ]
same "the FIFO is listed as skipped, with the reason" "skipped: not a regular file: FIFO" \
    "$(files_col "$SP" status pipe.csv)"
same "the socket is listed as skipped" "skipped: not a regular file: socket" \
    "$(files_col "$SP" status sock.csv)"
if [ "$have_dev" = 1 ]; then
    same "the device node is listed as skipped" "skipped: not a regular file: character device" \
        "$(files_col "$SP" status nulldev)"
    check "the device node is still a device node" [ -c "$SP/nulldev" ]
else
    ok "the device node is listed as skipped # SKIP mknod not permitted"
    ok "the device node is still a device node # SKIP mknod not permitted"
fi
check "the FIFO is still a FIFO" [ -p "$SP/pipe.csv" ]
# FIFOs where the default rc, rules and peaks files are looked for: the start never waits
CF=$TMP/fifo-config
mkdir -p "$CF/dcutop"
mkfifo "$CF/dcutop/dcutoprc" "$CF/dcutop/categories.rules" "$CF/dcutop/peaks"
XDG_CONFIG_HOME=$CF timeout 20 "$DCUTOP" --report "$STATS" >"$TMP/cf.out" 2>"$TMP/cf.err"
same "FIFOs as the default rc, rules and peaks files: the report finishes" 0 $?
printf 'q\n' >"$TMP/cf.keys"
XDG_CONFIG_HOME=$CF timeout 20 "$DCUTOP" --headless --keys "$TMP/cf.keys" "$STATS" \
    >"$TMP/cf2.out" 2>"$TMP/cf2.err"
same "... and the headless view finishes" 0 $?
mkdir -p "$TMP/steps-fifo"
mkfifo "$TMP/steps-fifo/step-times.json"
cp "$STATS" "$TMP/steps-fifo/results.stats.csv"
timeout 20 "$DCUTOP" --report "$TMP/steps-fifo" >"$TMP/sf.out" 2>"$TMP/sf.err"
same "a FIFO named step-times.json: the report finishes" 0 $?
timeout 20 "$DCUTOP" --report "$SP/pipe.csv" >"$TMP/fifo1.out" 2>"$TMP/fifo1.err"
same "a FIFO given alone: exit 1, no hang" 1 $?
check "... with the reason" grep -q 'pipe.csv: skipped: not a regular file: FIFO' "$TMP/fifo1.err"
printf '# size: 100x30\n0\n:dump files\nq\n' >"$TMP/files.keys"
timeout 20 "$DCUTOP" --headless --size 100x30 --keys "$TMP/files.keys" "$SP" >"$TMP/sp.screen" 2>&1
same "the interactive view (headless) on the folder finishes" 0 $?
check "its Files screen shows the FIFO as skipped" grep -q 'pipe.csv.*not a regular file: FIFO' \
    "$TMP/sp.screen"

# ------------------------------------------------------------ 2. links and duplicates
LK=$TMP/links
PL=$TMP/plain
mkdir -p "$LK/run1" "$PL/run1"
cp "$V3"/*.csv "$LK/run1/"
cp "$V3"/*.csv "$PL/run1/"
ln -s run1 "$LK/latest"
ln -s . "$LK/loop"
for i in 0 1 2 3 4 5 6 7 8 9; do ln -s . "$LK/run1/dot$i"; done
ln "$LK/run1/kernel_trace.csv" "$LK/run1/zz_hardlink_trace.csv"
ln -s kernel_trace.csv "$LK/run1/alias.csv"
REF=$(figures "$PL")
check "reference figures computed" [ -n "$REF" ]
timeout 20 "$DCUTOP" --report "$LK" >/dev/null 2>&1
same "ten links to . and a loop: the walk finishes" 0 $?
figsame "loop, latest, ten dot links, a hard link, a file link: figures equal one load" \
    "$(figures "$LK")"
figsame "the same folder given twice: figures equal one load" "$(figures "$PL" "$PL")"
figsame "a folder and one of its files: figures equal one load" \
    "$(figures "$PL" "$PL/run1/kernel_trace.csv")"
same "the same file given twice: kernel time of one load" "$EXP" "$(figures "$STATS" "$STATS" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"]["kernel_ns"])')"
same "... the second listed as the same file" "used|skipped: same file as $STATS" \
    "$(timeout 20 "$DCUTOP" --report --format json "$STATS" "$STATS" 2>/dev/null |
        python3 -c 'import json,sys; print("|".join(f["status"] for f in json.load(sys.stdin)["files"]))')"
same "the latest link is listed, not loaded" "skipped: same folder as run1" \
    "$(files_col "$LK" status latest)"
same "the loop link is listed, not loaded" "skipped: same folder as $LK" \
    "$(files_col "$LK" status loop)"
same "a link to . inside run1 is listed" "skipped: same folder as run1" \
    "$(files_col "$LK" status run1/dot3)"
same "a hard link is listed as the same file" "skipped: same file as run1/kernel_trace.csv" \
    "$(files_col "$LK" status run1/zz_hardlink_trace.csv)"
same "a file symlink is listed as the same file" "skipped: same file as run1/kernel_trace.csv" \
    "$(files_col "$LK" status run1/alias.csv)"
same "the real file is the one loaded" "used (PMC counters)" "$(files_col "$LK" status run1/kernel_trace.csv)"
# a link leading out of the folder is followed, once
mkdir -p "$TMP/outside" "$TMP/viaout"
cp "$V3"/*.csv "$TMP/outside/"
ln -s ../outside "$TMP/viaout/a"
ln -s ../outside "$TMP/viaout/b"
mv "$PL/run1" "$PL/a"   # the same names as through the link "a"
REF=$(figures "$PL")
figsame "a folder outside reached by two links: loaded once" "$(figures "$TMP/viaout")"
same "... through the first link" "used (PMC counters)" "$(files_col "$TMP/viaout" status a/kernel_trace.csv)"
same "... the second listed" "skipped: same folder as a" "$(files_col "$TMP/viaout" status b)"

# ------------------------------------------------------------ 3. depth
DP=$TMP/deep
mkdir -p "$DP/1/2/3/4/5/6/7/8/9/10"
cp "$STATS" "$DP/1/2/3/4/5/6/7/8/results.stats.csv"
cp "$STATS" "$DP/1/2/3/4/5/6/7/8/9/10/results.stats.csv"
timeout 20 "$DCUTOP" --report "$DP" >"$TMP/deep.out" 2>"$TMP/deep.err"
same "a folder nested too deep: the rest still loads" 0 $?
check "the report's messages name the folder not read" grep -q \
    "deep/1/2/3/4/5/6/7/8/9: folder nested deeper than 8 levels: not read" "$TMP/deep.err"
same "the Files table lists it" "skipped: folder nested deeper than 8 levels: not read" \
    "$(files_col "$DP" status 1/2/3/4/5/6/7/8/9)"
same "the file at depth 8 is loaded" "used" \
    "$(files_col "$DP" status 1/2/3/4/5/6/7/8/results.stats.csv)"

# ------------------------------------------------------------ 3. 100,000 files, bounded time
# a sanitizer build runs several times slower: the bound is for the plain build (the ASan pass
# still runs every other check of this script)
if [ -z "${CHECK_FULL:-}" ]; then
    echo "# 100,000 files: make check-full (its scale stage); M5 below checks linearity here"
elif [ -n "${DCUTOP_SANITIZED:-}" ] || grep -q __asan_init "$DCUTOP" 2>/dev/null; then
    echo "# 100,000 files: timed on the plain build only (make check-full's scale stage)"
else
    MANY=$TMP/many
    python3 - "$MANY" <<'EOF'
import os, sys
root = sys.argv[1]
for i in range(100000):
    d = os.path.join(root, "d%03d" % (i // 1000))
    if i % 1000 == 0:
        os.makedirs(d)
    with open(os.path.join(d, "r%06d.stats.csv" % i), "w") as f:
        f.write('"Name","Calls","TotalDurationNs","AverageNs","Percentage"\n'
                '"k%d",2,%d,%d,100.0\n' % (i % 50, 1000 + i, (1000 + i) // 2))
EOF
    t0=$(date +%s)
    # 100,000 runs added together, as asked (the default shows one run)
    timeout 120 "$DCUTOP" --report --format json --run all "$MANY" >"$TMP/many.json" 2>"$TMP/many.err"
    rc=$?
    t1=$(date +%s)
    echo "# 100,000 files: --report took $((t1 - t0)) s (issue 9 target: under 10 s)"
    same "100,000 small files load in bounded time (linear, not quadratic)" 0 $rc
    same "... every file loaded" 100000 "$(python3 -c 'import json,sys
print(sum(1 for f in json.load(open(sys.argv[1]))["files"] if f["status"] == "used"))' "$TMP/many.json")"
    same "... kernel time is the sum of the files" \
        "$(python3 -c 'print(sum(1000 + i for i in range(100000)))')" \
        "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"]["kernel_ns"])' \
            "$TMP/many.json")"
fi

# ------------------------------------------------------------ M5: the rest stays linear too
# Issue 26 M5: with N one-run traces (timestamped dispatches, so every run has a timeline)
# the load was linear and the rest was not: a test of every pair of runs for overlap, a
# scan of every run's iterations per run, a row search per run, statements prepared per
# run. 2,000 -> 20,000 runs took 35x the CPU time for --report and 25x for the first
# screen. Measured as CPU time (tests run side by side: wall time would be noise) on the
# plain build, the least of two runs (on a busy virtual machine one run's CPU time varied
# by up to 1.9x: the 2,000-run first screen took 770 to 1,431 ms); linear is 10x at most,
# quadratic was 25-35x, the bound is 16x. It was 13x until the small case got cheaper
# (freed blocks kept for reuse cut its page faults): alone the first screen then measured
# 7-10x, but beside the suite's other tests 20,000 runs took 10.8-11.6 s of CPU against
# 7.5-8.5 s alone, 13.4-14.6x, with the same 7.5 s as before the change when alone.
if [ -z "${DCUTOP_SANITIZED:-}" ] && ! grep -q __asan_init "$DCUTOP" 2>/dev/null; then
    python3 tests/cli/gen_runs.py "$TMP/r2k" 2000
    python3 tests/cli/gen_runs.py "$TMP/r20k" 20000
    printf ':dump first\n' >"$TMP/first.keys"
    cpu() { # CPU milliseconds of a command (user + system), the least of two runs
        python3 -c 'import resource, subprocess, sys
best = None
for i in range(2):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = (r.ru_utime - r0.ru_utime) + (r.ru_stime - r0.ru_stime)
    best = t if best is None else min(best, t)
print(int(best * 1000))' "$@"
    }
    r2=$(cpu "$DCUTOP" -q --report "$TMP/r2k")
    r20=$(cpu "$DCUTOP" -q --report "$TMP/r20k")
    s2=$(cpu "$DCUTOP" -q --headless --size 100x30 --keys "$TMP/first.keys" "$TMP/r2k")
    s20=$(cpu "$DCUTOP" -q --headless --size 100x30 --keys "$TMP/first.keys" "$TMP/r20k")
    l20=$(cpu "$DCUTOP" -q --sql "SELECT 1" "$TMP/r20k")
    echo "# M5: 2,000 / 20,000 runs: --report $r2 / $r20 ms CPU, first screen $s2 / $s20 ms; the load alone of 20,000: $l20 ms"
    check "M5: 10x the runs, --report within 16x the CPU ($r2 -> $r20 ms)" test "$r20" -le $((16 * r2))
    check "M5: 10x the runs, the first screen within 16x the CPU ($s2 -> $s20 ms)" test "$s20" -le $((16 * s2))
    same "M5: every one of the 20,000 runs is in the report" 20000 \
        "$("$DCUTOP" -q --report --format json "$TMP/r20k" | python3 -c 'import json, sys
print(len(json.load(sys.stdin)["runs"]))')"
fi
