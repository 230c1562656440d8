#!/bin/sh
# test_variab_shapes.sh - variability per launch shape (issue 21): where the grid/workgroup is
# recorded, a kernel's golden is per (kernel, shape), so one kernel run at four sizes (2 us to
# 295 us) is not "97% variability"; its detail lists each shape with its own figures.
. tests/cli/lib.sh
XDG_CONFIG_HOME=$TMP/xdg
export XDG_CONFIG_HOME

F=$TMP/shapes
mkdir "$F"
# direct_copy_kernel at four grids, 20 dispatches each, 0..39 ns of jitter on each; one
# kernel at one shape (plain_kernel) with a slow dispatch, whose variability stays
awk 'BEGIN {
    print "\"Index\",\"KernelName\",\"gpu-id\",\"queue-id\",\"queue-index\",\"pid\",\"tid\",\"grd\",\"wgr\",\"lds\",\"scr\",\"vgpr\",\"sgpr\",\"fbar\",\"sig\",\"obj\",\"DispatchNs\",\"BeginNs\",\"EndNs\",\"CompleteNs\",\"DurationNs\""
    split("1024 4096 65536 262144", g, " "); split("2000 4000 50000 295000", base, " ")
    t = 1000; i = 0
    for (r = 0; r < 20; r++) {
        for (s = 1; s <= 4; s++) {
            d = base[s] + (r * 7 + s) % 40
            printf "%d,\"direct_copy_kernel\",0,0,0,1,1,%d,256,0,0,8,8,0,0x0,0x0,%d,%d,%d,%d,%d\n", i++, g[s], t, t + 100, t + 100 + d, t + 200 + d, d
            t += d + 1000
        }
        d = (r == 0) ? 9000 : 3000
        printf "%d,\"plain_kernel\",0,0,0,1,1,512,64,0,0,8,8,0,0x0,0x0,%d,%d,%d,%d,%d\n", i++, t, t + 100, t + 100 + d, t + 200 + d, d
        t += d + 1000
    }
}' >"$F/results.csv"

$DCUTOP --export hotspots "$F" >"$TMP/hot.csv"
var=$(awk -F, '/^"direct_copy_kernel"/ { print $13 }' "$TMP/hot.csv")
check "direct_copy_kernel at 4 shapes: variability under 5 us (jitter only; was 6.9 ms)" \
    test "${var:-999999999}" -lt 5000
same "direct_copy_kernel: golden = the fastest shape's golden" 2000 \
    "$(awk -F, '/^"direct_copy_kernel"/ { print $14 }' "$TMP/hot.csv")"
same "plain_kernel (one shape): its slow dispatch stays variability" 6000 \
    "$(awk -F, '/^"plain_kernel"/ { print $13 }' "$TMP/hot.csv")"
$DCUTOP --report "$F" >"$TMP/rep"
check "report: variability is no longer most of the time" \
    sh -c "grep '^Variability' '$TMP/rep' | grep -q '= [0-9]\.[0-9]*% of the time'"

printf '2\n<Enter>\n:dump detail\n2<Down><Enter>\n:dump plain\n' >"$TMP/k.keys"
$DCUTOP --headless --size 100x40 --keys "$TMP/k.keys" "$F" >"$TMP/screens"
sed -n '/--- detail/,/--- plain/p' "$TMP/screens" >"$TMP/detail"
check "detail: the kernel says it ran at 4 launch shapes" grep -q "Shapes *4 launch shapes" "$TMP/detail"
for g in 262144 65536 4096 1024; do
    check "detail: shape $g x 256 with its own golden" \
        grep -q "^ *$g x 256 *20 dispatches  golden" "$TMP/detail"
done
check "detail: shape 1024 x 256's golden is 2.0 us" grep -q "1024 x 256 .*golden 2.0 us" "$TMP/detail"
sed -n '/--- plain/,$p' "$TMP/screens" >"$TMP/plain"
check "detail of a one-shape kernel: no Shapes line" sh -c "grep -q 'plain_kernel' '$TMP/plain' && ! grep -q 'launch shapes' '$TMP/plain'"
