# test_timing.sh - --timing FILE: the load, the first screen and each key, measured inside
# dcutop, in a headless run and in the terminal view (tmux); `--timing -` refused on a terminal.
. tests/cli/lib.sh
S=$REAL/pytorch-h200-climate-transformer
printf '2\n>\n1\n' >"$TMP/keys"
exits "headless --timing: exit 0" 0 $DCUTOP --headless --keys "$TMP/keys" --timing "$TMP/t.tsv" "$S"
same "headless: the lines, in order" "load first-screen summary-complete 2 > 1" \
    "$(cut -f1 "$TMP/t.tsv" | tr '\n' ' ' | sed 's/ $//')"
same "headless: the screen each left the user on" "- summary Summary hotspots hotspots summary" \
    "$(cut -f3 "$TMP/t.tsv" | tr '\n' ' ' | sed 's/ $//')"
check "headless: every time is a whole number of microseconds" \
    awk -F '\t' 'NF != 3 || $2 !~ /^[0-9]+$/ { bad = 1 } END { exit bad }' "$TMP/t.tsv"
# the Summary's late parts are measured from the same instant as the first screen, later
check "headless: summary-complete comes no sooner than the first screen" \
    awk -F '\t' '$1 == "first-screen" { f = $2 } $1 == "summary-complete" { c = $2 } END { exit !(c >= f) }' "$TMP/t.tsv"
# a view without late parts (aggregated stats only): complete when first drawn
printf 'q\n' >"$TMP/q"
exits "stats-only trace: exit 0" 0 $DCUTOP --headless --keys "$TMP/q" --timing "$TMP/s.tsv" sample-traces/llamacpp-rocprof-v1-stats
same "stats-only trace: the lines" "load first-screen summary-complete q" \
    "$(cut -f1 "$TMP/s.tsv" | tr '\n' ' ' | sed 's/ $//')"
# two runs (the Diff screen): the load ends with the second run's
exits "dcutop A B --timing: exit 0" 0 $DCUTOP --headless --keys "$TMP/q" --timing "$TMP/d.tsv" "$S" "$S"
same "dcutop A B: the first screen is the Diff" "diff" "$(awk -F '\t' '$1 == "first-screen" { print $3 }' "$TMP/d.tsv")"
check "dcutop A B: every time is a whole number of microseconds, none from before the start" \
    awk -F '\t' 'NF != 3 || $2 !~ /^[0-9]+$/ { bad = 1 } END { exit bad }' "$TMP/d.tsv"
# a key script that fails leaves no file
printf '<Bogus>\n' >"$TMP/bad.keys"
exits "a failing key script with --timing: exit 2" 2 $DCUTOP --headless --keys "$TMP/bad.keys" --timing "$TMP/b.tsv" "$S"
check "a failing key script leaves no --timing file" test ! -e "$TMP/b.tsv"
# an existing file is kept without --force, as -o does
echo keep >"$TMP/k.tsv"
exits "an existing --timing file without --force: exit 2" 2 $DCUTOP --headless --keys "$TMP/q" --timing "$TMP/k.tsv" "$S"
same "the existing file is untouched" keep "$(cat "$TMP/k.tsv")"

. tests/cli/tmuxlib.sh
tm new-session -d -s dcu -x 100 -y 30 \
    "cd '$TMP' && env TERM=xterm-256color LC_ALL=C.UTF-8 XDG_CONFIG_HOME='$TMP' '$D' --timing tui.tsv '$(pwd)/$S'; echo EXITED=\$?; sleep 30"
check "terminal: the Summary shows" wait_for "What to optimise first" 100
tm send-keys -t dcu 2
check "terminal: 2 opens Hotspots" wait_for "Total us" 50
tm send-keys -t dcu q q
check "terminal: q quits with status 0" wait_for "EXITED=0"
same "terminal: the lines, in order" "load first-screen summary-complete 2" \
    "$(cut -f1 "$TMP/tui.tsv" 2>/dev/null | grep -v '^q$' | tr '\n' ' ' | sed 's/ $//')"
tm kill-server 2>/dev/null
SOCK="$TMP/tmux2.sock"
tm new-session -d -s dcu -x 100 -y 30 \
    "cd '$TMP' && env TERM=xterm-256color '$D' --timing - '$(pwd)/$S' 2>err.txt; echo EXITED=\$?; sleep 30"
check "terminal: --timing - exits 2 (standard output is the screen)" wait_for "EXITED=2"
check "terminal: --timing - says why" grep -q "standard output is the screen" "$TMP/err.txt"
tm kill-server 2>/dev/null
