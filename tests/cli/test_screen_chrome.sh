# test_screen_chrome.sh - the frame around the screens at 80x24, headless: the empty Diff
# says how to compare the runs loaded and lists them; the help wraps its descriptions; the
# sort menu (F6) names every column once; the filter has its own place in the header; the
# Dispatches list keeps trace time under a region of interest.
. tests/cli/lib.sh
W=sample-traces/dcu-weather-transformer
RUNS=tests/data/runs
# dump NAME: the lines of dump NAME in $TMP/out
dump() { sed -n "/^--- $1 (/,/^--- /p" "$TMP/out" | sed '1d;/^--- /d'; }

# --- the empty Diff: how to compare what is loaded, and the runs it could compare ---------
printf '7\n:dump diff\n' >"$TMP/d.keys"
"$DCUTOP" --headless --size 80x24 --keys "$TMP/d.keys" "$RUNS" >"$TMP/out" 2>&1
dump diff >"$TMP/diff"
check "empty Diff: says U opens the Runs screen" grep -q 'U opens the Runs screen' "$TMP/diff"
check "empty Diff: says a and b mark the baseline and the candidate" \
    grep -q 'a marks' "$TMP/diff"
check "empty Diff: says 7 then shows the comparison" grep -q '7 shows the comparison' "$TMP/diff"
check "empty Diff: lists the runs loaded" grep -q 'Runs loaded (4): pmc, r1, r2, stats' "$TMP/diff"
"$DCUTOP" --headless --size 80x24 --keys "$TMP/d.keys" "$W" >"$TMP/out" 2>&1
check "empty Diff, one run: says there is nothing to compare it with" \
    sh -c "sed -n '/--- diff/,\$p' '$TMP/out' | grep -q 'One run is loaded'"

# --- help at 80 columns: descriptions wrapped, not cut ---------------------------------------
printf '?\n:dump help\n<PgDown>\n:dump help2\n<PgDown>\n:dump help3\n' >"$TMP/h.keys"
"$DCUTOP" --headless --size 80x24 --keys "$TMP/h.keys" "$W" >"$TMP/out" 2>&1
{ dump help; dump help2; dump help3; } | sed '1,2d;$d' >"$TMP/help"
same "help at 80 columns: no description cut with …" 0 \
    "$(sed '/^ dcutop |/d;/^[ ‹] *[0-9] /d' "$TMP/help" | grep -ac '…$')"
check "help at 80 columns: the back action's description continues on the next line" \
    sh -c "awk '/ back  /{getline n; print n; exit}' '$TMP/help' | grep -Eaq '^ {48}[a-z(]'"

# --- F6: every column once ----------------------------------------------------------------
printf '2\n<F6>\n:dump menu\n' >"$TMP/s.keys"
"$DCUTOP" --headless --size 80x24 --keys "$TMP/s.keys" "$W" >"$TMP/out" 2>&1
dump menu | sed -n '3,22p' | sed -n 's/^│ \(.*\)│ *$/\1/p' | sed 's/ *$//' >"$TMP/menu"
same "F6: no column named twice" "" "$(sort "$TMP/menu" | uniq -d)"
same "F6: no bare 'Kernel' beside another Kernel column" 0 "$(grep -c '^Kernel$' "$TMP/menu")"
check "F6: the shown kernel column says it is the short name" grep -q '^Kernel (short name)' "$TMP/menu"

# --- the filter has its own place in the header: no figure cut in the middle ---------------
printf '2\n/copy<Enter>\n:dump filtered\n' >"$TMP/f.keys"
"$DCUTOP" --headless --size 80x24 --keys "$TMP/f.keys" "$W" >"$TMP/out" 2>&1
head=$(dump filtered | sed -n 1p)
check "the filter shows as a field of its own: '| filter /copy/'" \
    sh -c "printf '%s' '$head' | grep -aq '| filter /copy/: 4 rows'"
check "the header keeps whole fields beside the filter (no 'GEMM 21.' cut)" \
    sh -c "printf '%s' '$head' | grep -Eaq '^ dcutop \\| kernels 825\\.0 ms( \\| GEMM 21\\.94% \\(ceiling 1\\.28x\\))? +\\| filter'"

# --- the Dispatches list under a region of interest: times stay in trace time ---------------
printf '2\n<Enter><Enter>\n:dump before\n<Down><Down><Down>[\n:dump after\n' >"$TMP/r.keys"
"$DCUTOP" --headless --size 80x24 --keys "$TMP/r.keys" "$W" >"$TMP/out" 2>&1
row() { dump "$1" | awk '$1 == 14 {print $2; exit}'; }
same "Dispatches: dispatch 14 starts at 9.12 ms" "9.12" "$(row before)"
check "the ROI starts at dispatch 14" sh -c "sed -n '/--- after/,\$p' '$TMP/out' | sed -n 2p | grep -aq 'ROI 9.123 ms'"
same "Dispatches under the ROI: dispatch 14 still starts at 9.12 ms (trace time)" "9.12" "$(row after)"

# --- the breadcrumb: a kernel name's own "> >" is no step of its own ---------------------------
# (reduce_kernel<..., ReduceOp<...>, 4> > ends with "> >"; cut, it read "… > > dispatches")
printf '2\n/reduce<Enter><Enter><Enter>\n:dump crumb\n' >"$TMP/c.keys"
"$DCUTOP" --headless --size 80x24 --keys "$TMP/c.keys" "$W" >"$TMP/out" 2>&1
strip=$(dump crumb | sed -n 2p)
check "the breadcrumb reaches the dispatches" sh -c "printf '%s' '$strip' | grep -aq ' > dispatches\$'"
check "the breadcrumb has no empty step ('> >')" sh -c "! printf '%s' '$strip' | grep -aq '> >'"
