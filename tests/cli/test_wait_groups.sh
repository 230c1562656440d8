#!/bin/sh
# test_wait_groups.sh - waiting is never an opportunity (issue 21): on the 2-rank job, where
# the Ranks verdict marks the comm time as waiting for the straggler, the GEMM / non-GEMM group
# rows (Categories and its exports, the what-if, the Summary, the timeline's Amdahl table) take
# no ceiling from that time; and the Summary's launch-bound opportunity opens Hotspots sorted
# shortest average first, not filtered.
. tests/cli/lib.sh
XDG_CONFIG_HOME=$TMP/xdg
export XDG_CONFIG_HOME
D=$REAL/pytorch-h200-ddp-2rank

$DCUTOP --export categories --what-if non-gemm=2 "$D" >"$TMP/cat.csv"
tr -d '\r"' <"$TMP/cat.csv" >"$TMP/cat"
total=$(awk -F, '$1 == "GEMM" || $1 == "non-GEMM" { t += $5 } END { print t }' "$TMP/cat")
ng=$(awk -F, '$1 == "non-GEMM" { print $5 }' "$TMP/cat")
comm=$(awk -F, '$1 == "comm" { print $5 }' "$TMP/cat")
same "comm is marked wait, with no ceiling" "wait," "$(awk -F, '$1 == "comm" { print $2 "," $7 }' "$TMP/cat")"
want=$(awk -v t="$total" -v n="$ng" -v c="$comm" 'BEGIN { printf "%.4f", 1 / (1 - (n - c) / t) }')
got=$(awk -F, '$1 == "non-GEMM" { printf "%.4f", $7 }' "$TMP/cat")
near "non-GEMM group ceiling over its work only: 1/(1 - (non-GEMM - comm)/total)" "$want" "$got" 0.0001
check "non-GEMM group ceiling is no longer the one with the wait in it (3.18x)" \
    awk -v g="$got" 'BEGIN { exit !(g < 2) }'
sp=$(awk -F, '$1 == "non-GEMM" { printf "%.2f", $9 }' "$TMP/cat")
proj=$($DCUTOP --report --view categories --what-if non-gemm=2 "$D" |
    sed -n 's/.*whole program at most \([0-9.]*\)x faster.*/\1/p')
same "what-if non-gemm=2: the group's speedup = the whole program's bound (waiting gains nothing)" \
    "$proj" "$sp"

printf '1\n:dump summary\n' >"$TMP/s.keys"
$DCUTOP --headless --size 100x30 --keys "$TMP/s.keys" "$D" >"$TMP/summary"
check "Summary: the non-GEMM ceiling leaves its waiting out, and says so" \
    grep -q "non-GEMM .*ceiling $(printf '%.2f' "$want")x (without its 39.64% waiting)" "$TMP/summary"

$DCUTOP --report --view timeline --format csv "$D" | tr -d '\r"' |
    sed -n '/^# amdahl/,/^$/p' >"$TMP/amdahl"
same "timeline Amdahl table: comm is wait, no ceilings" "wait,,," \
    "$(awk -F, '$1 == "comm" { print $2 "," $5 "," $7 "," $8 }' "$TMP/amdahl")"
near "timeline Amdahl table: the non-GEMM group's ceiling over its work only" "$want" \
    "$(awk -F, '$1 == "non-GEMM" { printf "%.4f", $5 }' "$TMP/amdahl")" 0.0001

# the Summary's launch-bound opportunity (tiny kernels 0.2 us apart: launches take most of
# the wall): Hotspots sorted shortest average first, every kernel
F=$TMP/launch
mkdir "$F"
awk 'BEGIN {
    print "\"Index\",\"KernelName\",\"gpu-id\",\"queue-id\",\"queue-index\",\"pid\",\"tid\",\"grd\",\"wgr\",\"lds\",\"scr\",\"vgpr\",\"sgpr\",\"fbar\",\"sig\",\"obj\",\"DispatchNs\",\"BeginNs\",\"EndNs\",\"CompleteNs\",\"DurationNs\""
    t = 1000
    for (i = 0; i < 200; i++) {
        n = (i % 3 == 0) ? "long_kernel" : (i % 3 == 1) ? "tiny_a" : "tiny_b"
        d = (n == "long_kernel") ? 5000 : (n == "tiny_a") ? 2000 : 3000
        printf "%d,\"%s\",0,0,0,1,1,256,64,0,0,8,8,0,0x0,0x0,%d,%d,%d,%d,%d\n", i, n, t, t + 100, t + 100 + d, t + 200 + d, d
        t += d + 200
    }
}' >"$F/results.csv"
printf '1\n:dump s\n' >"$TMP/l0.keys"
$DCUTOP --headless --size 100x30 --keys "$TMP/l0.keys" "$F" >"$TMP/l0"
# its place among the list's rows (kernels nested under their category are rows too)
n=$(awk '/^What to optimise first/ { on = 1; next } on && /^  [0-9]\. |^     of which/ { r++ }
    on && /launch-bound: kernels/ { print r; exit }' "$TMP/l0")
keys=""
i=1
while [ "$i" -lt "${n:-1}" ]; do keys="$keys<Down>"; i=$((i + 1)); done
printf '1\n%s<Enter>\n:dump hot\n' "$keys" >"$TMP/l.keys"
$DCUTOP --headless --size 100x30 --keys "$TMP/l.keys" "$F" >"$TMP/l"
check "launch-bound opportunity listed" test -n "$n"
check "Enter on it opens Hotspots, shortest average first" \
    sh -c "grep -q 'Summary > short kernels' '$TMP/l' && grep -q 'Avg [nu]s▲' '$TMP/l'"
order=$(sed -n '/--- hot/,$p' "$TMP/l" | grep -o "^ *\(tiny_a\|tiny_b\|long_kernel\)" | tr -d ' ' | tr '\n' ' ')
same "every kernel shown (not filtered), shortest first" "tiny_a tiny_b long_kernel " "$order"
