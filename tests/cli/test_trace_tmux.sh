# test_trace_tmux.sh - issue 22 in a real terminal at 80x24: on the climate-transformer Kineto
# trace, l on the Summary lands on the Summary's largest gap in the device's lane (memsets and
# copies joined it: not a lane of Memset rows), with the host lane, the queue row and the gap's
# cause above the ops.
. tests/cli/lib.sh
if ! command -v tmux >/dev/null 2>&1; then
    ok "tmux not installed: skipped (make check installs it)"
    exit 0
fi
D=$(pwd)/$DCUTOP
case "$DCUTOP" in /*) D=$DCUTOP ;; esac
CLIMATE=$(cd "$REAL/pytorch-h200-climate-transformer" && pwd)
SOCK="$TMP/tmux.sock"
tm() { tmux -S "$SOCK" "$@"; }
screen() { tm capture-pane -p -t dcu; }
wait_for() { # TEXT: until the pane shows it (5 s at most)
    i=0
    while [ $i -lt 50 ]; do
        if screen | grep -qF -- "$1"; then return 0; fi
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

# the Summary's largest gap: its first gap row, as the report's timeline lists it
gap=$($DCUTOP -q --report --view timeline --format csv "$CLIMATE" | python3 -c "
import csv, sys
lines = sys.stdin.read().split('\n')
i = lines.index('# gaps\r') if '# gaps\r' in lines else lines.index('# gaps')
row = next(csv.DictReader(lines[i + 1:]))
print('%.2f %.2f' % (int(row['gap_ns']) / 1000, (int(row['at_ns']) + int(row['gap_ns'])) / 1e6))")
gap_us=${gap% *}
next_ms=${gap#* }
tm new-session -d -s dcu -x 80 -y 24 \
    "cd '$TMP' && env TERM=xterm-256color LC_ALL=C.UTF-8 XDG_CONFIG_HOME='$TMP' '$D' '$CLIMATE'; echo EXITED=\$?; sleep 30"
check "80x24: the Summary opens" wait_for "What to optimise first"
tm send-keys -t dcu l
check "l: the Trace opens on GPU 0's lane" wait_for "> Trace > climate_train.trace.json"
check "l: the Summary's largest gap ($gap_us us, the op at $next_ms ms) is on screen" \
    wait_for " $next_ms $gap_us host-bound "
check "l: not a lane of Memset rows" sh -c "! tmux -S '$SOCK' capture-pane -p -t dcu | grep -q 'Memset (Device)'"
check "the gap line: its cause and host activity" wait_for "Gap before it: GPU idle 1.9 ms, host-bound"
check "the host lane above the device lane" sh -c "tmux -S '$SOCK' capture-pane -p -t dcu | grep -q '^Host .*Optimizer'"
check "the device lane and the queue row" sh -c "tmux -S '$SOCK' capture-pane -p -t dcu | grep -q '^GPU ' && tmux -S '$SOCK' capture-pane -p -t dcu | grep -qE '^Queue .*max 2'"
tm send-keys -t dcu Enter
check "Enter: the selected op is the kernel after the gap" \
    wait_for "multi_tensor_apply_kernel<TensorListMetadata<1>, BinaryOpScalarFunctor<float,"
tm send-keys -t dcu q q q
check "q quits with status 0" wait_for "EXITED=0"
tm kill-server 2>/dev/null
