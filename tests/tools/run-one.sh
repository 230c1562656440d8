#!/bin/sh
# run-one.sh TEST - runs one unit test binary or CLI script for run-tests.sh and writes
# "PASSED FAILED SECONDS" to $LOGS/NAME.res and its output to $LOGS/NAME.log.
t=$1
n=$(basename "$t")
log="$LOGS/$n.log"
t0=$(date +%s)
case "$t" in
    *.sh)
        sh "$t" >"$log" 2>&1
        rc=$?
        p=$(grep -c '^ok ' "$log")
        f=$(grep -c '^not ok ' "$log")
        ;;
    *)
        "$t" >"$log" 2>&1
        rc=$?
        p=$(grep -c '^\[       OK \]' "$log")
        # cmocka's closing summary: "[  FAILED  ] N test(s), listed below:"
        f=$(sed -n 's/^\[  FAILED  \] \([0-9][0-9]*\) test(s).*/\1/p' "$log" | head -1)
        f=${f:-0}
        ;;
esac
[ "$f" -eq 0 ] && [ "$rc" -ne 0 ] && f=1 # crashed or stopped before its closing count
echo "$p $f $(($(date +%s) - t0))" >"$LOGS/$n.res"
