#!/bin/sh
# ranks_bench.sh [RANKS] [DISPATCHES] - the multi-rank scale point (README "Multi-rank
# jobs", "Memory and large jobs"): a generated job of RANKS Kineto files (default 64) of
# DISPATCHES kernels each (default 100000; bench/gen_ranks_job.py, rank 0 the straggler) in a
# temp folder. For a quarter, half and all of the ranks (symlinks to the same files) it
# prints the wall time and peak RSS of loading alone (--view files) and of --report --view
# ranks, at the default --db-memory and at 64M: memory that stays flat while the ranks grow
# is the bound at work. Then the verdict. Reported, not enforced.
RANKS=${1:-64}
N=${2:-100000}
DCUTOP=${DCUTOP:-./dcutop}
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
python3 bench/gen_ranks_job.py "$root/job" "$RANKS" "$N" || { echo "generator failed"; exit 1; }
echo "ranks: $RANKS ranks x $N dispatches, $(du -sh "$root/job" | cut -f1) of Kineto JSON"
printf '  %-6s %-11s %-22s %-22s\n' ranks db-memory "load (--view files)" "--report --view ranks"
for part in 4 2 1; do
    n=$((RANKS / part))
    [ "$n" -ge 1 ] || continue
    mkdir -p "$root/r$n"
    i=0
    while [ "$i" -lt "$n" ]; do
        ln -sf "$root/job/rank$i.trace.json" "$root/r$n/rank$i.trace.json"
        i=$((i + 1))
    done
    for mem in default 64M; do
        opt=""
        [ "$mem" = default ] || opt="--db-memory $mem"
        load=$( { /usr/bin/time -f "%e s %M" "$DCUTOP" -q $opt --report --view files "$root/r$n" >/dev/null; } 2>&1 | tail -1)
        rk=$( { /usr/bin/time -f "%e s %M" "$DCUTOP" -q $opt --report --view ranks --width 400 "$root/r$n" >"$root/out.txt"; } 2>&1 | tail -1)
        fmt() { echo "$1" | awk '{printf "%.1f s, %d MiB", $1, $3 / 1024}'; }
        printf '  %-6s %-11s %-22s %-22s\n' "$n" "$mem" "$(fmt "$load")" "$(fmt "$rk")"
    done
done
grep "Straggler\\|No straggler\\|No verdict" "$root/out.txt" | sed 's/^ */  /' | cut -c1-200
