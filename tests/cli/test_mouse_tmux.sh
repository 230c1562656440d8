# test_mouse_tmux.sh - the mouse in a real terminal: tmux writes xterm SGR mouse reports
# (ESC [ < b ; x ; y M/m, what xterm-256color's kmous announces) into the pane, curses
# decodes them, dcutop acts (term_curses.c -> App_mouse); --no-mouse leaves them alone.
. tests/cli/lib.sh
. tests/cli/tmuxlib.sh
W=$(pwd)/sample-traces/dcu-weather-transformer
SOCK="$TMP/tmux-mouse.sock"
# click BUTTON X Y (cells from 0): a press and a release, as SGR reports (cells from 1)
click() {
    tm send-keys -t dcu -l "$(printf '\033[<%d;%d;%dM' "$1" $(($2 + 1)) $(($3 + 1)))"
    tm send-keys -t dcu -l "$(printf '\033[<%d;%d;%dm' "$1" $(($2 + 1)) $(($3 + 1)))"
}
n_start=0
start() { # a server of its own each time: the last one may still be going away
    tm kill-server 2>/dev/null
    n_start=$((n_start + 1))
    SOCK="$TMP/tmux-mouse-$n_start.sock"
    tm new-session -d -s dcu -x 100 -y 30 \
        "cd '$TMP' && env TERM=xterm-256color LC_ALL=C.UTF-8 XDG_CONFIG_HOME='$TMP' '$D' $1 '$W'; echo EXITED=\$?; sleep 30"
    wait_for "Device kernels"
}
check "the Summary screen opens" start ""
# the tab strip is row 1: " 1 Summary  2 Hotspots  3 Categories ..."; column 25 is in "3 Categories"
click 0 25 1
check "a click on the Categories tab opens Categories" wait_for "Ceiling(inf)"
tm send-keys -t dcu 2
wait_for "Total ms"
click 0 10 5
check "a click on the third row selects it" wait_for "3/18 "
click 65 10 10   # wheel down (button 4 + 64 = 65 in SGR)
check "the wheel moves the selection down three rows" wait_for "6/18 "
tm send-keys -t dcu F10
check "F10 quits with status 0" wait_for "EXITED=0"
# --no-mouse: curses never asks the terminal for mouse reports (tmux's pane flags say so)
check "dcutop starts again" start ""
same "by default the pane has mouse reporting on" 1 \
    "$(tm display -p -t dcu '#{?mouse_any_flag,1,#{?mouse_button_flag,1,#{mouse_standard_flag}}}')"
tm send-keys -t dcu F10
wait_for "EXITED=0"
check "dcutop --no-mouse starts" start "--no-mouse"
same "--no-mouse: the pane has mouse reporting off" 0 \
    "$(tm display -p -t dcu '#{?mouse_any_flag,1,#{?mouse_button_flag,1,#{mouse_standard_flag}}}')"
tm send-keys -t dcu F10
check "--no-mouse: F10 quits with status 0" wait_for "EXITED=0"
tm kill-server 2>/dev/null
