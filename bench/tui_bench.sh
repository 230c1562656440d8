#!/bin/sh
# tui_bench.sh - redraw latency of the interactive view on the big benchmark trace.
# Replays a key script headless with --timing (microseconds to handle one key and draw the
# screen) and prints p50 / p99 / max per action. Target: every sort, filter keystroke and
# screen switch within 50 ms. Called by bench/run.sh with BENCH_TRACE_DIR set.
set -u
cd "$(dirname "$0")/.." || exit 2
dir=${BENCH_TRACE_DIR:-bench/out/trace_${1:-1000000}}
if [ ! -x ./dcutop ] || [ ! -d "$dir" ]; then
    echo "tui_bench: ./dcutop or $dir missing; run make bench"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# each line is one kind of action, repeated so that percentiles mean something
{
    for i in 1 2 3 4 5 6 7 8; do echo "2"; echo "3"; echo "4"; echo "5"; echo "1"; done   # switch
    echo "2"
    for i in 1 2 3 4 5 6 7 8; do echo ">"; echo "r"; echo "<Lt>"; done                      # sort
    echo "/"
    for i in 1 2 3 4 5 6 7 8; do echo "Cijk_"; echo "<Backspace><Backspace><Backspace><Backspace><Backspace>"; done  # filter keys
    echo "<Esc>"
    for i in 1 2 3 4 5 6 7 8; do echo "<Down><Down><Up>"; done                              # move
    echo "<Enter>"                                                                           # kernel detail
    echo "<Enter>"                                                                           # dispatch list
    for i in 1 2 3 4 5 6 7 8; do echo "<PgDown>"; done
    echo "<Esc>"
    echo "<Esc>"
    # the hottest kernels (the first has 20% of the dispatches: 200,000 at 1M): detail, then
    # its dispatch list, sorted three ways, and back
    for i in 1 2 3 4 5 6 7 8; do
        echo "<Home>"; for j in $(seq 2 "$i"); do echo "<Down>"; done
        echo "<Enter>"; echo "<Enter>"; echo ">"; echo "r"; echo "<Lt>"; echo "<Esc>"; echo "<Esc>"
    done
    # the kernel with the most dispatches (203,000 of 1M: a FillFunctor), found by the filter:
    # its detail, its dispatch list and the list sorted (each sort reads the list again)
    echo "/"; echo "FillFunctor.c..::BFloat"; echo "<Enter>"
    for i in 1 2 3; do
        echo "<Enter>"; echo "<Enter>"; echo ">"; echo "r"; echo "<Esc>"; echo "<Esc>"
    done
} >"$tmp/bench.keys"
# the first screen, as a user sees it: the real TUI in tmux with --timing, which records the
# load, the first screen and the Summary's late parts from inside dcutop. (This script used to
# poll the pane every 20 ms and subtract a --report run's time: on 2 CPUs the polling itself,
# a tmux client and a grep 50 times a second, slowed the load it was timing by 0.2-0.6 s.)
# The pane is looked at once a second, only to know when to press q.
if command -v tmux >/dev/null 2>&1; then
    sock="$tmp/tmux.sock"
    # a tmux that cannot start (LD_LIBRARY_PATH with another libtinfo) or a pane that is gone
    # ends the wait at once
    tmux -S "$sock" new-session -d -x 200 -y 50 "./dcutop --timing '$tmp/tui.tsv' '$dir'" 2>"$tmp/tmux.err" ||
        echo "first screen: tmux did not start: $(head -c 200 "$tmp/tmux.err")"
    i=0
    while [ $i -lt 600 ] && tmux -S "$sock" capture-pane -p >"$tmp/pane" 2>/dev/null &&
        ! grep -q "What to optimise first  (" "$tmp/pane"; do
        sleep 1
        i=$((i + 1))
    done
    tmux -S "$sock" send-keys q 2>/dev/null
    i=0
    while [ $i -lt 100 ] && [ ! -s "$tmp/tui.tsv" ] && tmux -S "$sock" has-session 2>/dev/null; do
        sleep 0.1
        i=$((i + 1))
    done
    tmux -S "$sock" kill-server 2>/dev/null
    if [ -s "$tmp/tui.tsv" ]; then
        awk -F '\t' '{ t[$1] = $2 / 1e6 } END {
            printf "first screen (tmux, 200x50, --timing): %.3f s after the load (goal <= 0.1 s) %s; load %.2f s; Summary complete (GPU idle, advice, timeline) %.2f s after the load\n",
                t["first-screen"], (t["first-screen"] <= 0.1 ? "MET" : "MISSED"), t["load"], t["summary-complete"] }' "$tmp/tui.tsv"
    else
        echo "first screen: no --timing file from the tmux run"
    fi
else
    echo "first screen: tmux not installed (install-deps.sh bench) - not measured"
fi
/usr/bin/time -f '%e %M' -o "$tmp/time" ./dcutop --headless --size 200x50 --timing "$tmp/timing" \
    --keys "$tmp/bench.keys" "$dir" >/dev/null 2>"$tmp/err" || { echo "tui_bench: dcutop failed"; cat "$tmp/err"; exit 0; }
read -r wall rss <"$tmp/time"
echo "headless run: ${wall}s wall (load included), peak RSS $((rss / 1024)) MiB, 200x50"
# the same figures from the headless run (where there is no tmux: the 16-core host)
awk -F '\t' '{ t[$1] = $2 / 1e6 } $1 == "summary-complete" { exit } END {
    printf "first screen (headless, --timing): %.3f s after the load (goal <= 0.1 s) %s; load %.2f s; Summary complete %.2f s after the load\n",
        t["first-screen"], (t["first-screen"] <= 0.1 ? "MET" : "MISSED"), t["load"], t["summary-complete"] }' "$tmp/timing"
# classify keys into actions
awk -F'\t' '
function cls(k, scr) {
    if (k ~ /^[1-5]$/) return "screen switch";
    if ((k == ">" || k == "r" || k == "<Lt>") && scr == "dispatches") return "sort dispatch list";
    if (k == ">" || k == "r" || k == "<Lt>") return "sort";
    if (k == "<Backspace>" || k ~ /^[A-Za-z_]$/ && scr == "hotspots") return "filter keystroke";
    if (k == "<Down>" || k == "<Up>" || k == "<PgDown>" || k == "<Home>") return "move";
    if (k == "<Enter>") return "drill in";
    if (k == "<Esc>") return "back";
    return "other";
}
$1 == "load" || $1 == "first-screen" || $1 == "summary-complete" { next } # not keys
{ c = cls($1, $3); n[c]++; v[c, n[c]] = $2 / 1000.0 }
END {
    printf "%-18s %6s %9s %9s %9s\n", "action", "count", "p50 ms", "p99 ms", "max ms";
    worst = 0;
    for (c in n) {
        m = n[c];
        for (i = 1; i <= m; i++) a[i] = v[c, i];
        # insertion sort: small counts
        for (i = 2; i <= m; i++) { x = a[i]; j = i - 1; while (j > 0 && a[j] > x) { a[j + 1] = a[j]; j-- } a[j + 1] = x }
        # nearest rank: the smallest value with at least p of the samples at or below it
        k = m * 0.50; k = (k == int(k)) ? k : int(k) + 1; p50 = a[k < 1 ? 1 : k];
        k = m * 0.99; k = (k == int(k)) ? k : int(k) + 1; p99 = a[k < 1 ? 1 : k];
        printf "%-18s %6d %9.2f %9.2f %9.2f\n", c, m, p50, p99, a[m];
        if (p99 > worst) { worst = p99; wc = c }
    }
    printf "worst p99, every action (drill-in and dispatch-list sorts included): %.2f ms, %s (goal <= 50 ms) %s\n", worst, wc, worst <= 50 ? "MET" : "MISSED";
}' "$tmp/timing"
