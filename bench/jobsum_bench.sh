#!/bin/sh
# jobsum_bench.sh [RANKS] [DISPATCHES] - the map/reduce scale point (manual "A job of many
# ranks"): a generated job of RANKS Kineto files (default 1024) of DISPATCHES kernels each
# (default 2000; bench/gen_ranks_job.py, rank 0 the straggler).
#   map      --summarize of 32 ranks with --threads 1, against the plain load of the same 32
#            ranks (--report --view files --threads 1): CPU time (user + system, what a core
#            spends), the ratio (goal <= 1.2);
#            then every rank, 32 per call, its wall time and the largest peak RSS of a call
#   reduce   --report --view ranks of the RANKS summaries: wall time and peak RSS (goal
#            <= 1 GB), and the interactive view's first screen after the load (--headless
#            --timing; goal <= 2 s)
# Reported, not enforced.
RANKS=${1:-1024}
N=${2:-2000}
DCUTOP=${DCUTOP:-./dcutop}
TIME=${TIME_BIN:-/usr/bin/time}
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
python3 bench/gen_ranks_job.py "$root/job" "$RANKS" "$N" || { echo "generator failed"; exit 1; }
echo "job: $RANKS ranks x $N dispatches, $(du -sh "$root/job" | cut -f1) of Kineto JSON"
mkdir "$root/p32"
i=0
while [ "$i" -lt 32 ] && [ "$i" -lt "$RANKS" ]; do
    ln -s "$root/job/rank$i.trace.json" "$root/p32/"
    i=$((i + 1))
done
best() { # best of 2: CPU seconds (user + system) of "$@", the per-core cost
    b=""
    for k in 1 2; do
        $TIME -f "%U %S" -o "$root/time.txt" "$@" >/dev/null 2>"$root/err.txt"
        t=$(tail -1 "$root/time.txt" | awk '{ print $1 + $2 }')
        if [ -z "$b" ]; then b=$t; else b=$(echo "$b $t" | awk '{ print ($2 < $1) ? $2 : $1 }'); fi
    done
    echo "$b"
}
plain=$(best "$DCUTOP" -q --threads 1 --report --view files "$root/p32")
mapt=$(best sh -c "rm -rf '$root/m32'; '$DCUTOP' -q --threads 1 --summarize '$root'/p32/*.json -o '$root/m32'")
echo "map, 32 ranks, one thread, CPU time: plain load $plain s, --summarize $mapt s" \
    "($(echo "$mapt $plain" | awk '{ printf "%.2f", $1 / $2 }')x the plain load; goal <= 1.2x)"
ls "$root"/job/*.json | sort -V >"$root/list"
t0=$(date +%s.%N)
maxrss=0
split -l 32 "$root/list" "$root/part."
for p in "$root"/part.*; do
    $TIME -f "%M" -o "$root/time.txt" xargs "$DCUTOP" -q --summarize -o "$root/sum" <"$p" >/dev/null
    r=$(tail -1 "$root/time.txt")
    [ "$r" -gt "$maxrss" ] && maxrss=$r
done
t1=$(date +%s.%N)
echo "map, all $RANKS ranks, 32 per call: $(echo "$t0 $t1" | awk '{ printf "%.1f", $2 - $1 }') s," \
    "largest call $((maxrss / 1024)) MiB; summaries $(du -sh "$root/sum" | cut -f1)"
$TIME -f "%e %M" -o "$root/time.txt" "$DCUTOP" -q --report --view ranks --width 200 "$root/sum" >"$root/red.txt"
red=$(tail -1 "$root/time.txt")
echo "reduce, --report --view ranks of $RANKS summaries: $(echo "$red" | awk '{ printf "%.2f s, %d MiB", $1, $2 / 1024 }') (goal <= 1 GB)"
printf 'q\n' >"$root/q.keys"
"$DCUTOP" --headless --size 160x40 --keys "$root/q.keys" --timing "$root/t.json" "$root/sum" \
    >/dev/null 2>"$root/tui.err"
awk -F'\t' '$1 == "load" { l = $2 } $1 == "first-screen" { f = $2 }
    END { printf "reduce, interactive: load %.2f s, first screen %.3f s after it (goal: first screen <= 2 s)\n", l / 1e6, f / 1e6 }' "$root/t.json"
grep "^ *Straggler:" "$root/red.txt" | cut -c1-160
