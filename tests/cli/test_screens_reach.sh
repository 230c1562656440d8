# test_screens_reach.sh - every screen reachable and the same keys everywhere, in a real
# terminal of 80x24: Tab and S-Tab cycle through every top screen, each named in the tab strip;
# on a top screen Esc clears the filter, then the region of interest, then does nothing, and q
# quits; from any pushed screen (help, kernel, dispatches, SQL, a run's files, the trace at a
# gap, an efficiency op) Esc and q go back one level.
. tests/cli/lib.sh
. tests/cli/tmuxlib.sh
W=$(pwd)/sample-traces/dcu-weather-transformer
Q=$(pwd)/tests/data/real/pytorch-kineto-mi300-qwen
SOCK="$TMP/tmux-reach.sock"
strip_has() { screen | sed -n 2p | grep -qF -- "$1"; }   # the tab strip, row 2
running() { ! screen | grep -q 'EXITED='; }
roi_shown() { screen | sed -n 1p | grep -q 'ROI'; }        # the header, row 1
n_start=0
start() { # start TRACE: dcutop at 80x24 in a tmux server of its own
    tm kill-server 2>/dev/null
    n_start=$((n_start + 1))
    SOCK="$TMP/tmux-reach-$n_start.sock"
    tm new-session -d -s dcu -x 80 -y 24 \
        "cd '$TMP' && env TERM=xterm-256color LC_ALL=C.UTF-8 XDG_CONFIG_HOME='$TMP' XDG_STATE_HOME='$TMP' ESCDELAY=25 '$D' --no-mouse '$1'; echo EXITED=\$?; sleep 30"
    wait_for "Device kernels"
}
key() { tm send-keys -t dcu "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$TMP"' EXIT

# Each top screen in strip order: its key, its name, a text only its body shows.
TOPS='1|Summary|Device kernels
2|Hotspots|Total ms▼ Avg us
3|Categories|Ceiling(inf)
4|API|Domain
5|Copies|%Copy
6|Stacks|Call stacks |
7|Diff|No comparison loaded
8|Trace|Gap us
9|Ranks|Step mean
F|Efficiency|no recorded shapes
U|Runs|Wall span
0|Files|Format'

# --- Tab and S-Tab: every top screen in turn, named in the strip -----------------------
check "dcutop starts at 80x24" start "$W"
printf '%s\n' "$TOPS" >"$TMP/tops"
first=1
while IFS='|' read -r k name body; do
    if [ $first = 0 ]; then key Tab; fi
    first=0
    check "Tab reaches $name (its body shows '$body')" wait_for "$body"
    check "the strip names $name with its key $k" strip_has " $k $name"
done <"$TMP/tops"
key Tab
check "Tab after Files comes back to Summary" wait_for "Device kernels"
key BTab
check "S-Tab from Summary goes to Files" wait_for "Format"
key BTab
check "S-Tab from Files goes to Runs" wait_for "Wall span"
key F10
check "F10 quits" wait_for "EXITED=0"

# --- on each top screen: Esc stays (no filter, no ROI), help opens and Esc/q close it, q quits
while IFS='|' read -r k name body; do
    start "$W" >/dev/null
    key "$k"
    wait_for "$body"
    key Escape
    key '?'
    check "$name: Esc with no filter or ROI stays (then ? opens the help)" wait_for "dcutop keys"
    key Escape
    check "$name: Esc on the help goes back to $name" wait_for "$body"
    key '?'
    wait_for "dcutop keys"
    key q
    check "$name: q on the help goes back to $name" wait_for "$body"
    check "$name: still running after Esc and q on the help" running
    key q
    check "$name: q on a top screen quits" wait_for "EXITED=0"
done <"$TMP/tops"

# --- a top screen's Esc: the filter first, then the region of interest, then nothing ------
start "$W" >/dev/null
key 2
wait_for "Total ms"
key I
wait_for "ROI"
key -l "/copy"
key Enter
check "Hotspots: the filter is set (and the ROI, I)" wait_for "filter /copy/"
key Escape
check "Esc clears the filter first" wait_gone "filter /copy/"
check "the ROI stays after the first Esc" roi_shown
key Escape
check "the second Esc clears the ROI" wait_for "Region of interest cleared"
key Escape
key '?'
wait_for "dcutop keys"
key Escape
check "a third Esc leaves Hotspots where it was" wait_for "Total ms"

# --- pushed screens: Esc and q go back one level --------------------------------------------
back_test() { # back_test NAME OPEN-COMMAND OPENED-TEXT BACK-TEXT
    name=$1 open=$2 opened=$3 back=$4
    for leave in Escape q; do
        eval "$open"
        check "$name opens" wait_for "$opened"
        key "$leave"
        check "$leave on $name goes back one level" wait_for "$back"
        check "$leave on $name does not quit" running
    done
}
key 2
wait_for "Total ms"
back_test "the kernel detail" 'key Enter' "Full name" "Total ms▼"
key Enter
wait_for "Full name"
back_test "the dispatches" 'key Enter' "Duration us" "Full name"
key q
wait_for "Total ms"
back_test "an SQL result" 'key -l ";select 42 as answer"; key Enter' "answer" "Total ms▼"
key U
wait_for "Wall span"
back_test "a run's files" 'key Enter' "> Files" "Wall span"
key 1
wait_for "Device kernels"
back_test "the trace at the largest gap" 'key l' "Gap us" "Device kernels"
key q
check "q on the Summary quits" wait_for "EXITED=0"
start "$Q" >/dev/null
key F
wait_for "aten::mm"
back_test "an efficiency op" 'key Enter' "Achieved" "%Peak"
key q
check "q on Efficiency quits" wait_for "EXITED=0"
