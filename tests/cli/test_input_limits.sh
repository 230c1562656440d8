#!/bin/sh
# test_input_limits.sh - hostile JSON inputs (issue 9 point 4), through the dcutop binary:
# a 40 MB kernel name (yajl re-lexed it per 64 KiB block: 64 s and 758 MB before) and a
# 2 MB .json.gz that expands past 2 GiB (it never finished) are rejected quickly and in
# bounded memory; the events around them still load; --max-event-size sets the cap and is
# documented. Bounds are generous (timeout, ulimit -v) and only catch the old behaviour.
. tests/cli/lib.sh

# vlimit KB: caps the address space, except for a sanitizer build (ASan reserves terabytes of
# address space; its run still checks the time bound)
vlimit() {
    grep -q __asan_init "$DCUTOP" 2>/dev/null || ulimit -v "$1"
}

D=$TMP/json
mkdir -p "$D"
# one small kernel (7 us) before the big event, one (3 us) after it; prints the byte
# offset (from 0) of the big name's opening quote
at=$(python3 - "$D/long.json" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write('{"traceEvents": [\n')
    f.write('{"ph": "X", "cat": "kernel", "name": "k_before", "pid": 0, "tid": 1, "ts": 1, "dur": 7},\n')
    at = f.tell() + len('{"ph": "X", "cat": "kernel", "name": ')
    f.write('{"ph": "X", "cat": "kernel", "name": "' + "n" * 40000000 + '", "pid": 0, "tid": 1, "ts": 10, "dur": 5},\n')
    f.write('{"ph": "X", "cat": "kernel", "name": "k_after", "pid": 0, "tid": 1, "ts": 20, "dur": 3}\n]}\n')
print(at)
PY
)
sum_before=$(cksum <"$D/long.json")
# a healthy folder loaded with it
mkdir -p "$TMP/other"
printf '"Name","Calls","TotalDurationNs","AverageNs","Percentage"\n"k_csv",2,900,450,100\n' >"$TMP/other/results.stats.csv"

# the 40 MB name: rejected with its line and byte, in seconds, under 1 GB of address space
(vlimit 1000000; timeout 60 "$DCUTOP" --export hotspots --run all "$D/long.json" "$TMP/other" >"$TMP/long.csv" 2>"$TMP/long.err")
same "40 MB name: exit 0 within 60 s under ulimit -v 1000000" 0 $?
same "40 MB name: the events around it and the other folder load" "k_after 3000|k_before 7000|k_csv 900" \
    "$(awk -F, 'NR > 1 { gsub(/"/, "", $1); print $1, $5 }' "$TMP/long.csv" | sort | paste -sd'|')"
check "40 MB name: the message names file, event, line and byte" \
    grep -q "long.json: event 2 (line 3, byte $at): a token of 40000002 bytes is over the 16 MiB limit (--max-event-size); event rejected" "$TMP/long.err"
same "40 MB name: input unchanged" "$sum_before" "$(cksum <"$D/long.json")"

# --max-event-size sets the cap: a 2 KiB name is over 1K, within 4K
printf '[{"ph": "X", "cat": "kernel", "name": "%s", "pid": 0, "tid": 1, "ts": 1, "dur": 1},\n{"ph": "X", "cat": "kernel", "name": "k_ok", "pid": 0, "tid": 1, "ts": 5, "dur": 2}]\n' \
    "$(python3 -c 'print("a" * 2048)')" >"$TMP/k2.json"
"$DCUTOP" --max-event-size 1K --export hotspots "$TMP/k2.json" >"$TMP/k2.csv" 2>"$TMP/k2.err"
same "--max-event-size 1K: only k_ok loads" "k_ok" "$(awk -F, 'NR > 1 { gsub(/"/, "", $1); print $1 }' "$TMP/k2.csv")"
check "--max-event-size 1K: named in the message" grep -q "a token of 2050 bytes is over the 1024 bytes limit" "$TMP/k2.err"
"$DCUTOP" --max-event-size 4K --export hotspots "$TMP/k2.json" >"$TMP/k4.csv" 2>"$TMP/k4.err"
same "--max-event-size 4K: both load" 2 "$(awk 'NR > 1' "$TMP/k4.csv" | wc -l | tr -d ' ')"
exits "--max-event-size 12Q is a usage error" 2 "$DCUTOP" --max-event-size 12Q --report "$TMP/k2.json"
exits "--max-event-size 0 is a usage error" 2 "$DCUTOP" --max-event-size 0 --report "$TMP/k2.json"
check "--help lists --max-event-size" sh -c "\"$DCUTOP\" --help | grep -q -- '--max-event-size SIZE'"
check "doc/options.md lists --max-event-size" grep -q '^| `--max-event-size SIZE` |' doc/options.md

# a gzip bomb: 2.1 MB on disk, 2.1 GiB inside (one name of 33 x 64 MiB); gzip members are
# concatenated so that making it takes a moment
python3 - "$D/bomb.json.gz" <<'PY'
import gzip, sys
head = gzip.compress(b'{"traceEvents": [\n{"ph": "X", "cat": "kernel", "name": "k_small", "pid": 0, "tid": 1, "ts": 5, "dur": 4},\n'
                     b'{"ph": "X", "cat": "kernel", "name": "', 9)
mid = gzip.compress(b"n" * (64 << 20), 9)
tail = gzip.compress(b'", "pid": 0, "tid": 1, "ts": 1, "dur": 2}]}\n', 9)
with open(sys.argv[1], "wb") as f:
    f.write(head)
    for _ in range(33):
        f.write(mid)
    f.write(tail)
PY
size=$(wc -c <"$D/bomb.json.gz")
check "the bomb is a few MB on disk" test "$size" -lt 4000000
(vlimit 600000; timeout 60 "$DCUTOP" --export hotspots "$D/bomb.json.gz" >"$TMP/bomb.csv" 2>"$TMP/bomb.err")
same "gzip bomb: exit 0 within 60 s under ulimit -v 600000" 0 $?
same "gzip bomb: the event before the limit is kept" "k_small 4000" \
    "$(awk -F, 'NR > 1 { gsub(/"/, "", $1); print $1, $5 }' "$TMP/bomb.csv")"
check "gzip bomb: the message says reading stopped and what is kept" \
    grep -q "bomb.json.gz: gzip data expands past .*, over 200 times its size on disk: reading stopped at byte [0-9]*; the 1 events before it are kept" "$TMP/bomb.err"
