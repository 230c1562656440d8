#!/bin/sh
# test_hostile3.sh - hostile inputs of the third hardening round: each case must load what
# it can, say what was lost (file, line or byte) and fail --strict on any loss.
. tests/cli/lib.sh

# ---- a .csv.gz cut after a sync flush: no final block, no trailer ----------------------------
# zlib reads such a member as an ordinary end of file; the rows after the cut would be lost
# without a word. The rows before the cut are kept, one message says where it ended.
mkdir -p "$TMP/cut"
python3 - "$REAL/rocprofv3-sdk-docs-csv/kernel_trace.csv" "$TMP/cut/big_kernel_trace.csv.gz" \
    >"$TMP/cut.expect" <<'PY'
import sys, zlib
lines = open(sys.argv[1], 'rb').read().split(b'\n')
head, rows = lines[0], [l for l in lines[1:] if l]
out = [head]
for i in range(20000):                       # the real rows, repeated with new ids
    f = rows[i % len(rows)].split(b',')
    f[4] = str(1000 + i).encode()            # Correlation_Id
    out.append(b','.join(f))
data = b'\n'.join(out) + b'\n'
cut = data.rfind(b'\n', 0, len(data) // 2) + 1
c = zlib.compressobj(6, zlib.DEFLATED, 31)
open(sys.argv[2], 'wb').write(c.compress(data[:cut]) + c.flush(zlib.Z_SYNC_FLUSH))
print(data[:cut].count(b'\n') - 1)           # complete data rows before the cut
PY
want=$(cat "$TMP/cut.expect")
if gzip -t "$TMP/cut/big_kernel_trace.csv.gz" 2>/dev/null; then
    notok "the cut file is really cut (gzip -t fails)"
else
    ok "the cut file is really cut (gzip -t fails)"
fi
"$DCUTOP" --report --width 200 "$TMP/cut" >"$TMP/cut.out" 2>"$TMP/cut.err"
rc=$?
same "a cut .csv.gz: exit 0 without --strict" 0 "$rc"
rows=$(awk '$1 == "big_kernel_trace.csv.gz" {print $(NF - 2); exit}' "$TMP/cut.out")
same "a cut .csv.gz: the $want rows before the cut are kept" "$want" "$rows"
check "a cut .csv.gz: its $want dispatches are in the figures" \
    grep -q "over $want dispatches" "$TMP/cut.out"
check "a cut .csv.gz: the message names the file and says it was cut short" \
    grep -q "big_kernel_trace.csv.gz: gzip data ends inside a member after [0-9]* bytes (the file was cut short" "$TMP/cut.err"
check "a cut .csv.gz: the message says the rows before the cut are kept" \
    grep -q "the $want rows before the cut are kept" "$TMP/cut.err"
exits "a cut .csv.gz fails --strict (exit 1)" 1 "$DCUTOP" --strict --report "$TMP/cut"

# the same cut in a Kineto .json.gz: the events before it kept, named as a cut
mkdir -p "$TMP/cutj"
python3 - "$REAL/pytorch-h200-idle-injected/idle_train.trace.json.gz" "$TMP/cutj/t.trace.json.gz" <<'PY'
import gzip, sys, zlib
d = gzip.open(sys.argv[1]).read()
c = zlib.compressobj(6, zlib.DEFLATED, 31)
open(sys.argv[2], 'wb').write(c.compress(d[:len(d) // 2]) + c.flush(zlib.Z_SYNC_FLUSH))
PY
"$DCUTOP" --report "$TMP/cutj" >/dev/null 2>"$TMP/cutj.err"
check "a cut .json.gz: the message says the file was cut short" \
    grep -q "t.trace.json.gz: gzip data ends inside a member.*cut short" "$TMP/cutj.err"
exits "a cut .json.gz fails --strict" 1 "$DCUTOP" --strict --report "$TMP/cutj"
