# test_sql_tmux.sh - the ; prompt in a real terminal (tmux): Esc and Ctrl-C stop a query that
# never ends by itself (the progress handler polls the keyboard through Term_pollCancel), and
# dcutop stays usable afterwards.
. tests/cli/lib.sh
. tests/cli/tmuxlib.sh
W=$(pwd)/sample-traces/dcu-weather-transformer
SOCK="$TMP/tmux.sock"
ENDLESS="WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
tm new-session -d -s dcu -x 120 -y 30 \
    "cd '$TMP' && env TERM=xterm-256color LC_ALL=C.UTF-8 XDG_CONFIG_HOME='$TMP' XDG_STATE_HOME='$TMP' '$D' '$W'; echo EXITED=\$?; sleep 30"
check "the Summary screen opens" wait_for "Device kernels"
for stop in Escape C-c; do
    tag=$(echo "$stop" | tr -dc a-z)
    tm send-keys -t dcu '\;'   # a bare ; ends a tmux command
    tm send-keys -t dcu -l "$ENDLESS"
    tm send-keys -t dcu Enter
    check "the status line says the query runs and how to stop it" wait_for "Esc or Ctrl-C stops it"
    sleep 0.5
    tm send-keys -t dcu "$stop"
    check "$stop stops a running query (status line says so)" wait_for "query stopped" 100
    tm send-keys -t dcu '\;'   # a bare ; ends a tmux command
    tm send-keys -t dcu -l "SELECT 6 * 7 AS answer_$tag"
    tm send-keys -t dcu Enter
    check "... and the next query runs" wait_for "answer_$tag"
    check "... with its result" sh -c "tmux -S '$SOCK' capture-pane -p -t dcu | grep -q ' 42'"
done
tm send-keys -t dcu F10   # q would go back a level: each query result is a screen on the stack
check "F10 quits with status 0" wait_for "EXITED=0"
tm kill-server 2>/dev/null
