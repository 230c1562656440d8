#!/bin/sh
# ranks_bench.sh [RANKS] [DISPATCHES] - the multi-rank scale point (README "Multi-rank
# jobs"): a generated job of RANKS Kineto files (default 64) of DISPATCHES kernels each
# (default 100000; bench/gen_ranks_job.py, rank 0 the straggler) in a temp folder; prints
# the wall time and peak RSS of loading alone (--view files) and of --report --view ranks,
# and the verdict. Reported, not enforced.
RANKS=${1:-64}
N=${2:-100000}
DCUTOP=${DCUTOP:-./dcutop}
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
python3 bench/gen_ranks_job.py "$root/job" "$RANKS" "$N" || { echo "generator failed"; exit 1; }
echo "ranks: $RANKS ranks x $N dispatches, $(du -sh "$root/job" | cut -f1) of Kineto JSON"
/usr/bin/time -f "  load alone (--view files): %e s wall, peak RSS %M KiB" \
    "$DCUTOP" -q --report --view files "$root/job" >/dev/null
/usr/bin/time -f "  --report --view ranks: %e s wall, peak RSS %M KiB" \
    "$DCUTOP" -q --report --view ranks --width 400 "$root/job" >"$root/out.txt"
grep "Straggler\\|No straggler\\|No verdict" "$root/out.txt" | sed 's/^ */  /'
