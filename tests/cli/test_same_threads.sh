#!/bin/sh
# test_same_threads.sh - the same-results outputs of the generated traces (tests/golden/same:
# a 50,000-dispatch CSV of 24 MB, cut into chunks for parser threads from 3 threads on, and a
# 20,000-kernel Kineto JSON) with --threads 1 (everything on the calling thread) and
# --threads 16 (15 chunk parsers making the dispatch rows, csv_reader.h's CsvPrepare): every
# view equal, cell for cell, to the golden files the default thread count is checked against.
# "3p": 3 threads with DCUTOP_PART_MIN=1 (parallel.h), so that the analyses' passes over the
# dispatch arrays (timeline gaps, variability) run in parts even on these small traces.
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for t in 1 16 3p; do
    min=
    [ "$t" = 3p ] && min=1
    DCUTOP_PART_MIN=$min SAME_TAGS="gen kin" DCUTOP="${DCUTOP:-./dcutop} --threads ${t%p}" \
        sh tests/tools/same-results.sh check |
        grep -v '^[0-9]* passed, [0-9]* failed$' | sed "s/same results: /same results at --threads $t: /"
done >"$out"
cat "$out"
echo "$(grep -c '^ok' "$out") passed, $(grep -c '^not ok' "$out") failed"
