# test_hostile_outputs.sh - issue 26, the cases about output files, the terminal and the SQL
# history: one writer for every output (a temp file beside the target, fsync, then
# renameat2(RENAME_NOREPLACE) unless --force or a yes), FIFOs never waited on by the TUI,
# links that leave their folder, signals during -o, the terminal always restored; and the
# low items of the same family (history lines over 1 KB, an rc file over 64 KB, a folder as a
# theme). Each case is named by its letter. TUI cases run in tmux with their own socket.
. tests/cli/lib.sh
D=$(pwd)/$DCUTOP
case "$DCUTOP" in /*) D=$DCUTOP ;; esac
W=$(pwd)/sample-traces/dcu-weather-transformer
ABBA=$(pwd)/tests/data/real/pytorch-h200-abba-sdpa
# no_temp DIR: no temp file of ours left in DIR
no_temp() { ! ls -A "$1" | grep -q 'dcutop-'; }
# wait_file GLOB: until a file matching GLOB exists (10 s at most)
wait_file() {
    i=0
    while [ $i -lt 200 ]; do
        for f in $1; do [ -e "$f" ] && return 0; done
        sleep 0.05
        i=$((i + 1))
    done
    return 1
}
# reap PID: its exit status, killing it first if it is still running after 90 s
reap() {
    i=0
    while kill -0 "$1" 2>/dev/null && [ $i -lt 900 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    kill -KILL "$1" 2>/dev/null
    wait "$1"
}
# A query that runs for seconds and returns one row: -o's temp file lives that long (SLOW is
# killed once seen; MEDIUM, about a second on an idle machine, must also end).
SLOW="WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 30000000) SELECT count(*) AS n FROM c"
MEDIUM="WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5000000) SELECT count(*) AS n FROM c"

# A trace of 3000 kernels with 150-character names: its Hotspots export is over 1 MB, more
# than a pipe holds.
BIG=$TMP/big
mkdir "$BIG"
head -1 "$W/results.csv" >"$BIG/results.csv"
awk 'BEGIN { pad = sprintf("%0150d", 0); gsub(/0/, "x", pad); t = 5000000000000
    for (i = 0; i < 3000; i++) { b = t + i * 10000
        printf "%d,\"kernel_%05d_%s\",2,0,%d,1,1,256,256,0,0,12,24,0,\"0x0\",\"0x1\",%d,%d,%d,%d,%d\n",
            i, i, pad, i, b, b + 100, b + 5000, b + 5100, 4900 } }' >>"$BIG/results.csv"

# ---------------------------------------------------------------- H5: --diff/--abba -o
# Under a file-size limit with SIGXFSZ ignored the write fails with EFBIG: the old file must
# survive whole (the reports were written in place with fopen("w")).
H5=$TMP/h5
mkdir "$H5"
awk 'BEGIN { for (i = 0; i < 2000; i++) print "line " i " of the precious old report" }' >"$H5/keep.ref"
for m in diff abba; do
    cp "$H5/keep.ref" "$H5/keep.txt"
    if [ $m = diff ]; then set -- --diff "$ABBA/A1" "$ABBA/S1"; else
        set -- --abba "$ABBA/A1" "$ABBA/S1" "$ABBA/S2" "$ABBA/A2"; fi
    (trap '' XFSZ; ulimit -f 4; exec "$D" -q "$@" --report -o "$H5/keep.txt" --force) \
        2>"$H5/err"
    same "H5: --$m --report -o --force past ulimit -f: exit 1" 1 $?
    check "H5: --$m: the message names the file and says it is too large" \
        grep -q "$H5/keep.txt: write error: File too large" "$H5/err"
    check "H5: --$m: the old file is kept whole" cmp -s "$H5/keep.ref" "$H5/keep.txt"
    check "H5: --$m: no temp file left" no_temp "$H5"
    exits "H5: --$m --report -o an existing file without --force: exit 2" 2 \
        "$D" -q "$@" --report -o "$H5/keep.txt"
    check "H5: --$m without --force: the message says to use --force" \
        grep -q "$H5/keep.txt: file exists.*use --force" "$TMP/err"
    check "H5: --$m without --force: the file is kept" cmp -s "$H5/keep.ref" "$H5/keep.txt"
    exits "H5: --$m --report -o --force: exit 0" 0 "$D" -q "$@" --report -o "$H5/keep.txt" --force
    "$D" -q "$@" --report >"$H5/want.txt"
    check "H5: --$m --force: the file holds the new report" cmp -s "$H5/want.txt" "$H5/keep.txt"
    check "H5: --$m --force: no temp file left" no_temp "$H5"
done

# ---------------------------------------------------------------- H6: no silent replace
# B checks -o at its start (no file yet) and is then held between its temp file and the
# move into place (SIGSTOP while its slow query runs); A writes the same name meanwhile.
# B must not replace A's file: RENAME_NOREPLACE refuses, exit 2.
H6=$TMP/h6
mkdir "$H6"
"$D" -q --sql "$MEDIUM" -o "$H6/same.txt" "$W" 2>"$H6/b.err" &
b=$!
if wait_file "$H6/.same.txt.dcutop-*"; then
    kill -STOP $b
    exits "H6: A, --report -o same.txt meanwhile: exit 0" 0 "$D" -q --report -o "$H6/same.txt" "$W"
    cp "$H6/same.txt" "$H6/a.txt"
    kill -CONT $b
    reap $b
    same "H6: B, which started first and ends last: exit 2" 2 $?
    check "H6: B says the file appeared while it wrote" \
        grep -q "$H6/same.txt: file exists: made while dcutop was writing" "$H6/b.err"
    check "H6: A's report is kept" cmp -s "$H6/a.txt" "$H6/same.txt"
    check "H6: no temp file left" no_temp "$H6"
else
    notok "H6: B's temp file appeared"
    reap $b
fi
# the plain race of the issue: two --report -o a moment apart, without --force; whatever the
# timing, one writes and the other says so (exit 2), never both exit 0
"$D" -q --report -o "$H6/two.txt" "$BIG" 2>"$H6/1.err" &
p1=$!
sleep 0.2
"$D" -q --report -o "$H6/two.txt" "$BIG" 2>"$H6/2.err"
r2=$?
reap $p1
r1=$?
same "H6: two --report -o same.txt a moment apart: one exit 0, one exit 2" "0 2" \
    "$(printf '%s\n' $r1 $r2 | sort | tr '\n' ' ' | sed 's/ $//')"
"$D" -q --report "$BIG" >"$H6/two.ref"
check "H6: ... and the file holds one whole report" cmp -s "$H6/two.ref" "$H6/two.txt"

# ---------------------------------------------------------------- H4 (batch): links out
H4=$TMP/h4
mkdir -p "$H4/work"
echo precious >"$H4/victim"
ln -s "$H4/victim" "$H4/work/out.csv"
ln -s "$H4/new.csv" "$H4/work/dangling.csv"
exits "H4: -o a link to a file outside its folder, no --force: exit 2" 2 \
    "$D" -q --export hotspots -o "$H4/work/out.csv" "$W"
check "H4: the message names the target and says it is outside the folder" \
    grep -q "$H4/work/out.csv: a link to $H4/victim, outside its folder (not written; use --force)" "$TMP/err"
same "H4: the victim is kept" precious "$(cat "$H4/victim")"
exits "H4: -o a dangling link that leaves its folder, no --force: exit 2" 2 \
    "$D" -q --export hotspots -o "$H4/work/dangling.csv" "$W"
check "H4: ... and nothing is created at its target" test ! -e "$H4/new.csv"
exits "H4: -o the dangling link with --force: exit 0" 0 \
    "$D" -q --export hotspots -o "$H4/work/dangling.csv" --force "$W"
check "H4: --force: the target is created, the link stays a link" \
    sh -c "test -L '$H4/work/dangling.csv' && test -s '$H4/new.csv'"

# ---------------------------------------------------------------- M6: signals during -o
# kill -SIG while -o's temp file exists (a slow --sql query writes through it): dcutop ends
# with the signal's own status (INT stops the query: exit 1) and no hidden temp file stays.
M6=$TMP/m6
mkdir "$M6"
for sig in INT QUIT TERM HUP PIPE XFSZ; do
    case $sig in INT) want=1 ;; QUIT) want=131 ;; TERM) want=143 ;; HUP) want=129 ;;
        PIPE) want=141 ;; XFSZ) want=153 ;; esac
    # env --default-signal: a background job of sh starts with INT and QUIT ignored
    (ulimit -c 0; exec env --default-signal "$D" -q --sql "$SLOW" -o "$M6/out-$sig.csv" "$W") \
        2>/dev/null &
    p=$!
    if wait_file "$M6/.out-$sig.csv.dcutop-*"; then
        kill -s $sig $p
        reap $p
        same "M6: SIG$sig during -o: exit $want" $want $?
        check "M6: SIG$sig during -o: no temp file left beside the output" no_temp "$M6"
        check "M6: SIG$sig during -o: no output either" test ! -e "$M6/out-$sig.csv"
    else
        notok "M6: SIG$sig: the temp file appeared"
        reap $p
    fi
done
# a real file-size limit (SIGXFSZ not ignored): the kernel's signal ends dcutop mid-write
(ulimit -c 0; ulimit -f 4; exec "$D" -q --report -o "$M6/limited.txt" "$W") 2>/dev/null
same "M6: --report -o past ulimit -f: killed by SIGXFSZ (exit 153)" 153 $?
check "M6: ... no temp file left" no_temp "$M6"
check "M6: ... no output" test ! -e "$M6/limited.txt"

# ---------------------------------------------------------------- low: history, rc, theme
# an SQL history line over 1 KB is one query, not two
LOW=$TMP/low
mkdir -p "$LOW/state/dcutop" "$LOW/cfg/dcutop"
long=$(awk 'BEGIN { s = ""; for (i = 0; i < 1500; i++) s = s "x"; print s }')
printf "SELECT 1 AS short_one\nSELECT '%s' AS long_one\n" "$long" >"$LOW/state/dcutop/sql_history"
printf ';<Up><Enter>\n:dump recalled\n' >"$LOW/up.keys"
XDG_STATE_HOME="$LOW/state" XDG_CONFIG_HOME="$LOW/cfg" "$D" --headless --size 100x30 \
    --keys "$LOW/up.keys" "$W" >"$LOW/up.out" 2>&1
check "low: a 1.5 KB history line is recalled whole by Up and runs" grep -q "long_one" "$LOW/up.out"
check "low: ... (no SQL error from half a line)" sh -c "! grep -q 'SQL error\|syntax error\|unrecognized' '$LOW/up.out'"
# an rc file over 64 KB is read whole: a binding after 70 KB of comments works
awk 'BEGIN { for (i = 0; i < 1000; i++) printf "# %070d\n", i; print "bind generic z sql" }' \
    >"$LOW/cfg/dcutop/dcutoprc"
printf 'z\n:dump rc\n' >"$LOW/rc.keys"
XDG_STATE_HOME="$LOW/state" XDG_CONFIG_HOME="$LOW/cfg" "$D" --headless --size 100x30 \
    --keys "$LOW/rc.keys" "$W" >"$LOW/rc.out" 2>&1
check "low: an rc file of 73 KB is read whole (its last binding works)" grep -q "^SQL:" "$LOW/rc.out"
# one over 1 MiB is not read, and the status line says so, naming the file
awk 'BEGIN { for (i = 0; i < 15000; i++) printf "# %070d\n", i; print "bind generic z sql" }' \
    >"$LOW/cfg/dcutop/dcutoprc"
printf ':dump start\n' >"$LOW/start.keys"
XDG_STATE_HOME="$LOW/state" XDG_CONFIG_HOME="$LOW/cfg" "$D" --headless --size 200x30 \
    --keys "$LOW/start.keys" "$W" >"$LOW/rc2.out" 2>&1
check "low: an rc file over 1 MiB: the status line names it and says it is not read" \
    grep -qF "$LOW/cfg/dcutop/dcutoprc: larger than 1 MiB: not read (default keys)" "$LOW/rc2.out"
# a folder is not a theme
mkdir "$LOW/a-theme"
exits "low: --theme a folder: exit 2" 2 \
    "$D" --headless --size 100x30 --keys "$LOW/rc.keys" --theme "$LOW/a-theme" "$W"
check "low: --theme a folder: the message names it and says it is a directory" \
    grep -q "theme $LOW/a-theme: not a regular file: directory" "$TMP/err"

# ---------------------------------------------------------------- the TUI (tmux)
. tests/cli/tmuxlib.sh
pane() { tm display-message -p -t dcu "$1"; }
# tui NAME DIR TRACE [STATE]: dcutop in a 200x50 pane of a tmux server of its own, in DIR
tui() {
    SOCK="$TMP/tmux-$1.sock"
    rm -f "$TMP/dcutop.pid"
    tm new-session -d -s dcu -x 200 -y 50 \
        "cd '$2' && ulimit -c 0; sh -c 'echo \$\$ > \"$TMP/dcutop.pid\"; exec env TERM=xterm-256color LC_ALL=C.UTF-8 XDG_CONFIG_HOME=\"$TMP\" XDG_STATE_HOME=\"${4:-$TMP/state}\" \"$D\" \"$3\"'; echo EXITED=\$?; sleep 30"
    wait_for "Device kernels" 100
}
# restored TAG: the alternate screen is left and the cursor shown
restored() {
    same "$1: the alternate screen is left" 0 "$(pane '#{alternate_on}')"
    same "$1: the cursor is shown again" 1 "$(pane '#{cursor_flag}')"
}

# H3: a FIFO named like the default export in the working folder
H3=$TMP/h3
mkdir "$H3"
mkfifo "$H3/hotspots.csv"
check "H3: the TUI opens" tui h3a "$H3" "$BIG"
tm send-keys -t dcu 2
wait_for "Total ms"
tm send-keys -t dcu e Enter
check "H3: e, Enter on a FIFO with no reader: an error at once, not a hang" \
    wait_for "Export failed: hotspots.csv: a FIFO with no reader (not waited for)"
tm send-keys -t dcu q
check "H3: the TUI still answers (q quits, exit 0)" wait_for "EXITED=0"
tm kill-server 2>/dev/null
check "H3: the FIFO is still a FIFO" test -p "$H3/hotspots.csv"
check "H3 (reader): the TUI opens" tui h3b "$H3" "$BIG"
tm send-keys -t dcu 2
wait_for "Total ms"
timeout 20 head -c 10 "$H3/hotspots.csv" >"$H3/got" &
reader=$!
sleep 0.3
tm send-keys -t dcu e Enter
check "H3: a reader that takes 10 bytes and leaves: a write error on the status line" \
    wait_for "Export failed: hotspots.csv: write error: Broken pipe"
wait $reader
same "H3: the reader got its 10 bytes" 10 "$(wc -c <"$H3/got" | tr -d ' ')"
check "H3: the TUI survives SIGPIPE (still drawn)" sh -c "tmux -S '$SOCK' capture-pane -p -t dcu | grep -q F1Help"
tm send-keys -t dcu q
check "H3: q quits with status 0" wait_for "EXITED=0"
restored "H3"
tm kill-server 2>/dev/null

# H3 (stalled reader): a reader that opens the FIFO and never reads (a pager left open): the
# pipe fills, the export gives up after 5 s with a message, and the TUI never freezes
check "H3 (stalled): the TUI opens" tui h3c "$H3" "$BIG"
tm send-keys -t dcu 2
wait_for "Total ms"
sh -c 'exec sleep 30' <>"$H3/hotspots.csv" &
sleeper=$!
sleep 0.3
tm send-keys -t dcu e Enter
check "H3 (stalled): the export gives up with the reason on the status line" \
    wait_for "the reader stopped reading" 150
tm send-keys -t dcu 3
check "H3 (stalled): the TUI still answers keys (3 opens Categories)" wait_for "non-GEMM  group"
tm send-keys -t dcu q
check "H3 (stalled): q quits with status 0" wait_for "EXITED=0"
kill $sleeper 2>/dev/null
wait $sleeper 2>/dev/null
tm kill-server 2>/dev/null

# H4: hotspots.csv -> a file outside the working folder
H4T=$TMP/h4t
mkdir -p "$H4T/work"
echo precious >"$H4T/victim"
ln -s "$H4T/victim" "$H4T/work/hotspots.csv"
check "H4: the TUI opens" tui h4 "$H4T/work" "$W"
tm send-keys -t dcu 2
wait_for "Total ms"
tm send-keys -t dcu e Enter
check "H4: the question shows the link's target and that it leaves the folder" \
    wait_for "hotspots.csv -> $H4T/victim is outside its folder and exists. Type yes to write there:"
tm send-keys -t dcu y Enter
check "H4: y is not enough: not exported" wait_for "Not exported (type yes to write outside the folder)."
same "H4: the victim is kept" precious "$(cat "$H4T/victim")"
tm send-keys -t dcu e Enter
wait_for "Type yes to write there:"
tm send-keys -t dcu y e s Enter
check "H4: yes typed out: exported" wait_for "Exported 18 rows to hotspots.csv"
check "H4: ... into the target; the link stays a link" \
    sh -c "test -L '$H4T/work/hotspots.csv' && grep -q Cijk '$H4T/victim'"
# a dangling link out of the folder: asked about too, never followed silently
rm "$H4T/work/hotspots.csv"
ln -s "$H4T/created.csv" "$H4T/work/hotspots.csv"
tm send-keys -t dcu e Enter
check "H4: a dangling link out of the folder: asked, showing its target" \
    wait_for "hotspots.csv -> $H4T/created.csv is outside its folder. Type yes to write there:"
tm send-keys -t dcu Escape
check "H4: Esc: not exported" wait_for "Not exported."
check "H4: ... and nothing created" test ! -e "$H4T/created.csv"
# a link inside the folder: the question names its target
rm "$H4T/work/hotspots.csv"
echo kept >"$H4T/work/real.csv"
ln -s real.csv "$H4T/work/hotspots.csv"
tm send-keys -t dcu e Enter
check "H4: a link in the folder: the question names its target" \
    wait_for "hotspots.csv -> real.csv exists. Overwrite? (y/N)"
tm send-keys -t dcu n
check "H4: n keeps it" wait_for "Not exported: hotspots.csv kept."
same "H4: real.csv is kept" kept "$(cat "$H4T/work/real.csv")"
tm send-keys -t dcu q
check "H4: q quits with status 0" wait_for "EXITED=0"
tm kill-server 2>/dev/null

# H7: a FIFO at the SQL history path
H7=$TMP/h7
mkdir -p "$H7/dcutop"
mkfifo "$H7/dcutop/sql_history"
check "H7: the TUI opens" tui h7 "$TMP" "$W" "$H7"
tm send-keys -t dcu '\;'   # a bare ; ends a tmux command
check "H7: ; opens the SQL prompt at once (the FIFO is not waited on)" wait_for "SQL:"
tm send-keys -t dcu -l "SELECT 6 * 7 AS answer_h7"
tm send-keys -t dcu Enter
check "H7: the query runs" wait_for "answer_h7"
check "H7: the history FIFO is still a FIFO" test -p "$H7/dcutop/sql_history"
tm send-keys -t dcu F10
check "H7: F10 quits with status 0" wait_for "EXITED=0"
tm kill-server 2>/dev/null

# the terminal is always restored: SIGPIPE does not end the TUI; SIGHUP and SIGTERM restore
# the terminal, then end it with their own status
check "SIGPIPE: the TUI opens" tui pipe "$TMP" "$W"
kill -s PIPE "$(cat "$TMP/dcutop.pid")"
sleep 0.5
check "SIGPIPE: the TUI is still there" sh -c "! tmux -S '$SOCK' capture-pane -p -t dcu | grep -q EXITED"
tm send-keys -t dcu q
check "SIGPIPE: ... and quits normally (exit 0)" wait_for "EXITED=0"
restored "SIGPIPE"
tm kill-server 2>/dev/null
for sig in HUP TERM; do
    num=1
    [ $sig = TERM ] && num=15
    check "SIG$sig: the TUI opens" tui "$sig" "$TMP" "$W"
    kill -s $sig "$(cat "$TMP/dcutop.pid")"
    check "SIG$sig: ends with status $((128 + num))" wait_for "EXITED=$((128 + num))"
    restored "SIG$sig"
    tm kill-server 2>/dev/null
done
