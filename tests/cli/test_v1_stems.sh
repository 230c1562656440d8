#!/bin/sh
# test_v1_stems.sh - loose rocprof v1 files are runs by stem (issue 21): X.csv supersedes only
# X.stats.csv, never the stats of other stems; a per-dispatch file far below its own stats is
# kept but flagged in Files and in a warning.
. tests/cli/lib.sh
XDG_CONFIG_HOME=$TMP/xdg
export XDG_CONFIG_HOME

HDR='"Index","KernelName","gpu-id","queue-id","queue-index","pid","tid","grd","wgr","lds","scr","vgpr","sgpr","fbar","sig","obj","DispatchNs","BeginNs","EndNs","CompleteNs","DurationNs"'
F=$TMP/loose
mkdir "$F"
# truncated.csv: a 1-row results.csv; seven stats files of other runs
printf '%s\n0,"kern_a",0,0,0,1,1,256,64,0,0,8,8,0,0x0,0x0,100,200,1200,1300,1000\n' "$HDR" >"$F/truncated.csv"
for r in a b c d e f g; do
    printf '"Name","Calls","TotalDurationNs","AverageNs","Percentage"\nkern_%s,10,1000000,100000,100.0\n' $r >"$F/run_$r.stats.csv"
done

# eight runs: added as asked (--run all; the default shows one run of a program)
$DCUTOP --report --run all "$F" >"$TMP/rep" 2>"$TMP/rep.err"
check "truncated.csv + 7 stats of other stems: 7.0 ms of device kernel time, not 1 us" \
    grep -q "Device kernel time 7.0 ms over 71 dispatches of 7 kernels" "$TMP/rep"
n=$($DCUTOP --export files --run all "$F" | grep -c ',"used"')
same "every file is used (no stats superseded by another stem's results)" 8 "$n"
n2=$(grep -c '^  run_[a-g] \|^  truncated ' "$TMP/rep")
same "one run per stem: 8 runs" 8 "$n2"
check "no warning when no stats file of its own stem" sh -c "! grep -q 'far below' '$TMP/rep.err'"

# the stem's own stats: X.csv supersedes X.stats.csv, and is flagged when far below it
printf '"Name","Calls","TotalDurationNs","AverageNs","Percentage"\nkern_a,100,100000,1000,100.0\n' >"$F/truncated.stats.csv"
$DCUTOP --export files "$F" >"$TMP/files.csv" 2>"$TMP/files.err"
check "truncated.stats.csv superseded by its own stem's truncated.csv" \
    grep -q '"truncated.stats.csv".*"superseded by truncated.csv' "$TMP/files.csv"
check "Files flags truncated.csv: far below its stats" \
    grep -q '"truncated.csv".*"used; WARNING: per-dispatch total far below its stats: 1 of the 100 calls' "$TMP/files.csv"
check "a warning on stderr names the file" \
    grep -q "truncated.csv: per-dispatch data far below its own stats" "$TMP/files.err"
n=$($DCUTOP --export files --run all "$F" 2>/dev/null | grep -c '"run_.\.stats.csv".*"used"')
same "the other stems' stats stay used" 7 "$n"

# a complete results.csv beside its stats: no flag (calls and time at least half)
G=$TMP/whole
mkdir "$G"
printf '%s\n0,"kern_a",0,0,0,1,1,256,64,0,0,8,8,0,0x0,0x0,100,200,1200,1300,1000\n1,"kern_a",0,0,0,1,1,256,64,0,0,8,8,0,0x0,0x0,2100,2200,3200,3300,1000\n' "$HDR" >"$G/results.csv"
printf '"Name","Calls","TotalDurationNs","AverageNs","Percentage"\nkern_a,2,2000,1000,100.0\n' >"$G/results.stats.csv"
$DCUTOP --export files "$G" >"$TMP/g.csv" 2>"$TMP/g.err"
check "a whole results.csv: not flagged" sh -c "! grep -q WARNING '$TMP/g.csv' && ! grep -q 'far below' '$TMP/g.err'"
check "a whole results.csv supersedes its stats" grep -q '"results.stats.csv".*"superseded by results.csv' "$TMP/g.csv"
