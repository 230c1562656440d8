# test_tmux.sh - the real binary in a real terminal: tmux panes at 80x24 and 200x50, keys
# sent with send-keys, the screen read back with capture-pane. Covers key decoding, curses
# drawing, resize, export, a clean exit, and the terminal restored when a fatal signal ends it.
. tests/cli/lib.sh
. tests/cli/tmuxlib.sh
W=$(pwd)/sample-traces/dcu-weather-transformer
SOCK="$TMP/tmux.sock"
run_size() {
    w=$1
    h=$2
    tm kill-server 2>/dev/null
    tm new-session -d -s dcu -x "$w" -y "$h" \
        "cd '$TMP' && env TERM=xterm-256color LC_ALL=C.UTF-8 XDG_CONFIG_HOME='$TMP' '$D' '$W'; echo EXITED=\$?; sleep 30"
    check "${w}x${h}: the Summary screen opens" wait_for "Device kernels"
    tm send-keys -t dcu 2
    check "${w}x${h}: 2 shows Hotspots with the sort column marked" wait_for "Total ms▼"
    tm send-keys -t dcu F6
    check "${w}x${h}: F6 opens the sort picker" wait_for "Sort by"
    tm send-keys -t dcu Up Enter
    check "${w}x${h}: sorted by Calls" wait_for "Calls▼"
    tm send-keys -t dcu / C i j k
    check "${w}x${h}: the filter applies as you type" wait_for "filter /Cijk/"
    tm send-keys -t dcu Enter Enter
    check "${w}x${h}: Enter drills into a kernel" wait_for "Full name"
    tm send-keys -t dcu Escape
    check "${w}x${h}: Esc comes back to the filtered hotspots" wait_for "filter /Cijk/"
    tm send-keys -t dcu e C-u "exp-$w.csv" Enter
    check "${w}x${h}: e exports" wait_for "Exported 6 rows to exp-$w.csv"
    check "${w}x${h}: the exported file holds the 6 GEMM kernels" \
        sh -c "[ \$(grep -c Cijk '$TMP/exp-$w.csv') -eq 6 ]"
    tm resize-window -t dcu -x 100 -y 30 2>/dev/null || tm resize-pane -t dcu -x 100 -y 30
    sleep 0.3
    check "${w}x${h}: still drawn after a resize to 100x30" wait_for "F1Help"
    if [ "$w" = 80 ]; then
        tm send-keys -t dcu q
        check "${w}x${h}: q quits with status 0" wait_for "EXITED=0"
    else
        tm send-keys -t dcu C-c
        check "${w}x${h}: Ctrl-C quits with status 0" wait_for "EXITED=0"
        check "${w}x${h}: the terminal is restored (no screen left behind)" \
            sh -c "! tmux -S '$SOCK' capture-pane -p -t dcu | grep -q F1Help"
    fi
    tm kill-server 2>/dev/null
}
run_size 80 24
run_size 200 50

# ---------------------------------------------------------------- fatal signals
# kill -SIG the running dcutop: the terminal is restored (alternate screen left, cursor shown,
# no curses screen left in the pane), then the signal's default action still ends it (the
# shell sees 128 + the signal number). tmux reports the pane's modes as #{alternate_on} and
# #{cursor_flag}. No core file: ulimit -c 0.
pane() { tm display-message -p -t dcu "$1"; }
signal_case() {
    sig=$1
    num=$2
    SOCK="$TMP/tmux-$sig.sock" # a server of its own: a dying one may still hold the last socket
    rm -f "$TMP/dcutop.pid"
    tm new-session -d -s dcu -x 100 -y 30 \
        "cd '$TMP' && ulimit -c 0; sh -c 'echo \$\$ > dcutop.pid; exec env TERM=xterm-256color LC_ALL=C.UTF-8 XDG_CONFIG_HOME=\"$TMP\" \"$D\" \"$W\"'; echo EXITED=\$?; sleep 30"
    check "SIG$sig: the Summary screen opens" wait_for "Device kernels"
    check "SIG$sig: curses is on the alternate screen before the signal" \
        [ "$(pane '#{alternate_on}')" = 1 ]
    kill -s "$sig" "$(cat "$TMP/dcutop.pid")"
    check "SIG$sig: dcutop ends with the signal's own status $((128 + num))" \
        wait_for "EXITED=$((128 + num))"
    same "SIG$sig: the alternate screen is left" 0 "$(pane '#{alternate_on}')"
    same "SIG$sig: the cursor is shown again" 1 "$(pane '#{cursor_flag}')"
    check "SIG$sig: no curses screen left in the pane" sh -c "! tmux -S '$SOCK' capture-pane -p -t dcu | grep -q F1Help"
    tm kill-server 2>/dev/null
}
signal_case QUIT 3
signal_case BUS 7
signal_case FPE 8
signal_case ILL 4
signal_case TERM 15
signal_case SEGV 11
# `dcutop A B` (two runs) opens on the Diff screen; 1 leaves it, 7 comes back (issue 8)
ABBA=$(cd "$REAL/pytorch-h200-abba-sdpa" && pwd)
tm kill-server 2>/dev/null
tm new-session -d -s dcu -x 120 -y 30 \
    "cd '$TMP' && env TERM=xterm-256color LC_ALL=C.UTF-8 XDG_CONFIG_HOME='$TMP' '$D' '$ABBA/A1' '$ABBA/S1'; echo EXITED=\$?; sleep 30"
check "dcutop A B: opens on the Diff screen" wait_for "Kernel time 14.8 ms -> 8.0 ms"
tm send-keys -t dcu 1
check "dcutop A B: 1 shows the Summary" wait_for "Device kernels"
tm send-keys -t dcu 7
check "dcutop A B: 7 shows the Diff screen again" wait_for "kernels 3 gone, 1 new"
tm send-keys -t dcu v
check "dcutop A B: v shows the categories" wait_for "Per category (v: per kernel)."
tm send-keys -t dcu q
check "dcutop A B: q quits with status 0" wait_for "EXITED=0"
tm kill-server 2>/dev/null

# the Runs screen's marks: U, a on A1, b on S1, 7 compares them (issue 8)
SOCK="$TMP/tmux-runs.sock" # a server of its own: the last one may still be going away
tm new-session -d -s dcu -x 120 -y 30 \
    "cd '$TMP' && env TERM=xterm-256color LC_ALL=C.UTF-8 XDG_CONFIG_HOME='$TMP' '$D' '$ABBA'; echo EXITED=\$?; sleep 30"
check "4 runs: the header says so, and names the run shown" wait_for "4 runs, scope: A1"
tm send-keys -t dcu U
check "U: the Runs screen" wait_for "Wall span"
tm send-keys -t dcu a Down Down b
check "a, b: A1 baseline, S1 candidate" wait_for "marked: 1 baseline (A), 1 candidate (B)"
tm send-keys -t dcu 7
check "7: the marked runs compared" wait_for "Kernel time 14.8 ms -> 8.0 ms"
tm send-keys -t dcu q
check "runs diff: q quits with status 0" wait_for "EXITED=0"
tm kill-server 2>/dev/null
