# test_trace_host.sh - issue 22 on the Trace screen, on the climate-transformer Kineto trace:
# memsets and memcpys join their device's lane (one lane, no "GPU ?"), l lands on the largest
# device idle gap of the idle breakdown with its cause and the host activity that took it, and
# the Summary's "queue empty" share (dcutop's queue depth: from the launch call's start to the
# GPU op's end, time-weighted) equals an independent computation over the raw events, and
# its HTA queue length line (+1 at a call of HTA's set, -1 at a GPU op's start, sampled at
# its events) equals HTA's rules applied to the raw events (hta_oracle.py).
. tests/cli/lib.sh
C="$REAL/pytorch-h200-climate-transformer/climate_train.trace.json.gz"

# the lanes: memsets and copies carry "device" in their args
printf '8\n:dump t\nL\n:dump l\nq\n' >"$TMP/lanes.keys"
"$DCUTOP" --headless --size 100x30 --keys "$TMP/lanes.keys" "$C" >"$TMP/lanes.out"
check "memsets join GPU 0's lane: no 'GPU ?' lane" sh -c "! grep -q 'GPU ?' '$TMP/lanes.out'"
check "L: one GPU/queue (kernels, memsets and copies of stream 7)" \
    grep -q "Only one GPU/queue in this trace." "$TMP/lanes.out"
check "the lane holds the 824 ops (768 kernels, 56 memsets/copies)" grep -q "^1/824 " "$TMP/lanes.out"

# l: the largest device idle gap, as --export idle-gaps gives it
"$DCUTOP" -q --export idle-gaps "$C" >"$TMP/gaps.csv"
want=$(python3 -c "
import csv, sys
rows = list(csv.DictReader(open('$TMP/gaps.csv')))
g = max(rows, key=lambda r: int(r['gap_ns']))
print('%.2f %s' % (int(g['gap_ns']) / 1000, g['cause']))")
printf 'l\n:dump gap\nq\n' >"$TMP/gap.keys"
"$DCUTOP" --headless --size 100x30 --keys "$TMP/gap.keys" "$C" >"$TMP/gap.out"
us=${want% *}
cause=${want#* }
check "l: the selected row is the largest idle gap ($us us, $cause)" \
    grep -q "^403/824 " "$TMP/gap.out"
check "l: its row shows the gap, its device idle (the same) and the cause" \
    grep -qE "^ +21\.50 +$us +$us $cause " "$TMP/gap.out"
check "the gap line names the cause and the host activity with its total in the gap" \
    grep -q "Gap before it: GPU idle 1.9 ms, host-bound; host mostly 1.4 ms in Optimizer.step#AdamW.step" \
    "$TMP/gap.out"
check "the host lane shows the optimizer step in the window" grep -q "^Host .*Optimizer" "$TMP/gap.out"
check "the queue row with its scale" grep -qE "^Queue .* max 2$" "$TMP/gap.out"

# queue empty: an independent computation over the raw events
want=$(python3 -c "
import gzip, json
ev = json.load(gzip.open('$C'))['traceEvents']
rt = {}
for e in ev:
    if e.get('ph') == 'X' and e.get('cat') in ('cuda_runtime', 'cuda_driver'):
        c = e.get('args', {}).get('correlation')
        if c is not None:
            rt[c] = min(rt.get(c, 1e30), e['ts'])
iv = sorted((rt[e['args']['correlation']], e['ts'] + e['dur']) for e in ev
            if e.get('ph') == 'X' and e.get('cat') in ('kernel', 'gpu_memcpy', 'gpu_memset')
            and e['args'].get('correlation') in rt)
lo, hi = iv[0][0], max(b for a, b in iv)
cov, cs, ce = 0, None, None
for a, b in iv:
    if cs is None or a > ce:
        cov += 0 if cs is None else ce - cs
        cs, ce = a, b
    else:
        ce = max(ce, b)
cov += ce - cs
print('%.1f' % (100 * (1 - cov / (hi - lo))))")
printf ':dump s\nq\n' >"$TMP/s.keys"
"$DCUTOP" --headless --size 120x90 --keys "$TMP/s.keys" "$C" >"$TMP/s.out"
check "Summary: queue empty $want% of the time, as computed from the raw events, labelled dcutop's" \
    grep -q "Queue depth    empty $want% of the time (dcutop's: ops launched and not ended, kernels, memsets and copies, 1 stream)" \
    "$TMP/s.out"
set -- $(python3 tests/cli/hta_oracle.py queue "$C")
hta=$(python3 -c "print('%.1f' % (100.0 * $2 / $1))")
check "Summary: HTA's queue length 0 at $hta% of its $1 events, as HTA's rules give" \
    grep -q "Queue length   0 at $hta% of its $1 events (HTA's: +1 at a launch call, -1 when its GPU op starts; 1 stream)" \
    "$TMP/s.out"
