# tmuxlib.sh - what every tmux test shares: sourced after lib.sh. The real binary runs in a
# tmux pane of a server of the test's own (socket $SOCK in $TMP), keys go in with send-keys and
# the screen comes back with capture-pane. Without tmux the test passes with a note
# (make check installs tmux).
if ! command -v tmux >/dev/null 2>&1; then
    ok "tmux not installed: skipped (make check installs it)"
    exit 0
fi
D=$(pwd)/$DCUTOP
case "$DCUTOP" in /*) D=$DCUTOP ;; esac
SOCK="$TMP/tmux.sock"
tm() { tmux -S "$SOCK" "$@"; }
screen() { tm capture-pane -p -t dcu; }
# wait_for TEXT [TENTHS]: until the pane shows TEXT (5 s unless told)
wait_for() {
    i=0
    while [ $i -lt "${2:-50}" ]; do
        if screen | grep -qF -- "$1"; then return 0; fi
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}
# wait_gone TEXT [TENTHS]: until the pane no longer shows TEXT
wait_gone() {
    i=0
    while [ $i -lt "${2:-50}" ]; do
        if ! screen | grep -qF -- "$1"; then return 0; fi
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}
