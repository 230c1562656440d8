#!/bin/sh
# test_bounded_memory.sh - --db-memory (README "Memory and large jobs"). With the database
# bounded to 1 MiB, so that its pages, sorts, temp tables and the timeline's gap median all
# spill to temp files, every output that tests/tools/same-results.sh compares is the same,
# cell for cell, as the golden files (taken with everything in memory); so is the 2-rank
# report with no bound (--db-memory 0, :memory:). The temp files are unlinked: the folder
# SQLite was given (SQLITE_TMPDIR, which it reads before TMPDIR) is
# empty afterwards. Bad bounds are usage errors (exit 2).
. tests/cli/lib.sh
mkdir "$TMP/tmpdir" "$TMP/tmpdir/same"
# make check: the outputs of the traces large enough to spill at 1M (the generated 50,000-row
# CSV and the 2-rank job); make check-full (CHECK_FULL=1): all of them
[ -n "${CHECK_FULL:-}" ] || SAME_TAGS="gen ddp"
export SAME_TAGS
SQLITE_TMPDIR="$TMP/tmpdir/same" DCUTOP="$DCUTOP --db-memory 1M" sh tests/tools/same-results.sh check |
    sed 's/same results: /same results at --db-memory 1M: /'
same "nothing left in SQLITE_TMPDIR after the bounded runs" "" "$(ls -A "$TMP/tmpdir/same")"

DDP=$REAL/pytorch-h200-ddp-2rank
if [ -d "$DDP" ]; then
    "$DCUTOP" -q --report --view ranks --width 160 "$DDP" >"$TMP/default.txt"
    "$DCUTOP" -q --db-memory 0 --report --view ranks --width 160 "$DDP" >"$TMP/unbounded.txt"
    check "the ranks report is the same with no bound" cmp -s "$TMP/default.txt" "$TMP/unbounded.txt"
fi

for bad in abc 512 -1 2P 2Q; do
    exits "--db-memory $bad is a usage error" 2 "$DCUTOP" -q --db-memory "$bad" --report sample-traces/dcu-weather-transformer
    check "--db-memory $bad: the message names the option" grep -q -- "--db-memory needs" "$TMP/err"
done
exits "--db-memory 64M runs" 0 "$DCUTOP" -q --db-memory 64M --report sample-traces/dcu-weather-transformer

# A temp folder too small for what spills (here a file size limit, as a full disk would be):
# the load stops with a message that names the folder and what to do, exit 1, and the
# unlinked temp files leave nothing behind. The limit (256 blocks: 128 KiB under dash) is
# below what the dispatch store spills of this job while loading (its chunks compressed,
# about 16 bytes a row here).
python3 bench/gen_ranks_job.py "$TMP/job" 4 20000 >/dev/null
mkdir "$TMP/small"
sh -c "trap '' XFSZ; ulimit -f 256; SQLITE_TMPDIR='$TMP/small' exec $DCUTOP -q --db-memory 1M --report '$TMP/job'" >"$TMP/out" 2>"$TMP/err"
same "a temp folder out of room: exit 1" 1 "$?"
check "... the message names the folder and what to do" grep -q "temporary files in $TMP/small are out of room; free space there; point SQLITE_TMPDIR" "$TMP/err"
check "... and the file that was loading" grep -q "^dcutop: $TMP/job/rank[0-9]*.trace.json: the trace database could not store rows" "$TMP/err"
same "... nothing left in the folder" "" "$(ls -A "$TMP/small")"
"$DCUTOP" -q --db-memory 1M --report --view ranks "$TMP/job" >"$TMP/roomy.txt" 2>&1
check "the same job with room loads" grep -q "Straggler: rank 0" "$TMP/roomy.txt"
