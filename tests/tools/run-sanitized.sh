#!/bin/sh
# run-sanitized.sh BUILD - the whole suite (run-tests.sh: unit tests, CLI tests, headless
# screens, tmux) with the ASan + UBSan build in BUILD (make asan-pass). Every sanitizer
# report is also written to a file in a temp folder, so that a report no test looks at (a
# leak at exit of a run whose status is not checked, a child process) still fails the pass.
# Prints run-tests.sh's lines, one more line for the reports, and the closing line
# "N passed, N failed" with that line counted.
BUILD=${1:-build-asan}
[ $# -gt 0 ] && shift # the rest, when given: the tests to run (default: all of them)
logs=$(mktemp -d)
out=$(mktemp)
trap 'rm -rf "$logs" "$out"' EXIT
export DCUTOP_SANITIZED=1 # tests that cannot run sanitized binaries (valgrind) skip
export ASAN_OPTIONS="detect_leaks=1:log_path=$logs/asan"
export UBSAN_OPTIONS="print_stacktrace=1:log_path=$logs/ubsan"
DCUTOP=${DCUTOP:-$BUILD/dcutop} sh tests/tools/run-tests.sh "$BUILD" "$@" >"$out" 2>&1
sed '$d' "$out"
last=$(tail -1 "$out")
passed=$(echo "$last" | sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed$/\1/p')
failed=$(echo "$last" | sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed$/\2/p')
if [ -z "$passed" ]; then
    echo "$last"
    echo "not ok - the suite printed no closing line"
    passed=0
    failed=1
fi
if [ -n "$(ls "$logs")" ]; then
    failed=$((failed + 1))
    echo "not ok - sanitizer reports in the pass: $(ls "$logs" | wc -l) files"
    for f in $(ls "$logs" | head -5); do # the first few are enough to start from
        echo "# $f"
        head -40 "$logs/$f"
    done
else
    passed=$((passed + 1))
    echo "ok - no ASan/UBSan report anywhere in the pass"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
