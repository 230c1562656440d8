# test_summary_tmux.sh - issue 21 in a real terminal at 80x24: Enter on the Summary's first
# opportunity ("GPU idle, host-bound": nearly all of its idle time) opens the Trace at the largest
# host-bound gap; two rank
# files given as two arguments open as one job on the Ranks screen, and 9 shows both ranks;
# Enter on the straggler opportunity (second, after rank 0's GEMM) opens Ranks on the
# straggler.
. tests/cli/lib.sh
. tests/cli/tmuxlib.sh
CLIMATE=$(cd "$REAL/pytorch-h200-climate-transformer" && pwd)
DDP=$(cd "$REAL/pytorch-h200-ddp-2rank" && pwd)
start() { # NAME ARGS...: dcutop in a fresh 80x24 pane, a tmux server of its own (the last
    SOCK="$TMP/tmux-$1.sock" # one may still be going away)
    shift
    tm new-session -d -s dcu -x 80 -y 24 \
        "cd '$TMP' && env TERM=xterm-256color LC_ALL=C.UTF-8 XDG_CONFIG_HOME='$TMP' '$D' $*; echo EXITED=\$?; sleep 30"
}

# the largest idle gap, as the report's timeline lists it: its length in us and the next kernel
# (the folder's inference and training runs added, as asked: --run all; the default shows one)
gap_us=$($DCUTOP -q --report --view timeline --format csv --run all "$CLIMATE" | python3 -c "
import csv, sys
lines = sys.stdin.read().split('\n')
i = lines.index('# gaps\r') if '# gaps\r' in lines else lines.index('# gaps')
row = next(csv.DictReader(lines[i + 1:]))
print('%.2f' % (int(row['gap_ns']) / 1000))")
start gap --run all "'$CLIMATE'"
check "80x24: the Summary opens with GPU idle, host-bound as opportunity 1" wait_for "1.    8.40x   88.1% wall   GPU idle, host-bound"
tm send-keys -t dcu Enter
check "Enter on Summary line 1: the Trace opens" wait_for "> Trace > climate_train.trace.json"
check "Enter on Summary line 1: the largest gap ($gap_us us) is on screen" wait_for " $gap_us "
tm send-keys -t dcu Enter
check "the selected op is the kernel after the largest gap" wait_for "multi_tensor_apply_kernel<TensorListMetadata<1>, BinaryOpScalarFunctor<float,"
tm send-keys -t dcu q q q
check "q quits with status 0" wait_for "EXITED=0"

# two arguments that are two ranks of one job: the job, on the Ranks screen; never a diff
tm kill-server 2>/dev/null
start ranks "'$DDP/rank0.trace.json.gz' '$DDP/rank1.trace.json.gz'"
check "dcutop rank0 rank1: opens on the Ranks screen" wait_for "Compute ms  Comm ms  Exposed ms"
check "dcutop rank0 rank1: the straggler verdict" wait_for "Straggler: rank 0 computes 24.2 ms more per step"
check "dcutop rank0 rank1: not the Diff screen" sh -c "! tmux -S '$SOCK' capture-pane -p -t dcu | grep -q 'Kernel time .* -> '"
tm send-keys -t dcu 1
# on rank 0's wall (the critical rank's): its GEMM first, the straggler second
check "1: the job's Summary, the straggler second, of rank 0's wall" wait_for "2.    1.82x   45.0% wall   straggler rank 0"
tm send-keys -t dcu 9
check "9: Ranks shows rank 0" wait_for " 0     rank0.trace.js"
check "9: Ranks shows rank 1" wait_for " 1     rank1.trace.js"
tm send-keys -t dcu 1 Down Enter
check "Enter on the straggler opportunity: Ranks on rank 0" wait_for "1/2  rank0.trace.json.gz"
check "the crumb says where it came from" wait_for "> Summary > Ranks"
tm send-keys -t dcu q q q
check "rank0 rank1: q quits with status 0" wait_for "EXITED=0"
tm kill-server 2>/dev/null
