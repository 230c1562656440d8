#!/bin/sh
# run-fuzz.sh BUILD SECONDS TARGET... - runs each libFuzzer target for SECONDS from its
# committed corpus (tests/fuzz/corpus/TARGET, read only: new inputs go to a temp folder,
# or to $FUZZ_KEEP/TARGET when set), with its dictionary when it has one.
# Prints "ok - ..." / "not ok - ..." per target with the executions and coverage, then
# "N passed, N failed". A crash, leak, UB report or hang (> FUZZ_TIMEOUT s for one input)
# fails the target; the input is kept in $BUILD/artifacts/ to reproduce:
#   $BUILD/fuzz/fuzz_TARGET $BUILD/artifacts/TARGET-crash-...
BUILD=$1
SECONDS_EACH=$2
shift 2
TIMEOUT=${FUZZ_TIMEOUT:-25}
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export TZ=UTC LC_ALL=C.UTF-8
mkdir -p "$BUILD/artifacts"
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Each target runs in a scratch folder of its own, with every path absolute: a key script
# can export a view to a relative file name ("02"), which must not land in the checkout.
root=$(pwd)
case "$BUILD" in /*) ;; *) BUILD="$root/$BUILD" ;; esac
export DCUTOP_FUZZ_ROOT="$root"
export DCUTOP_FUZZ_TRACE="${DCUTOP_FUZZ_TRACE:-$root/sample-traces/rocprofv3-sdk-docs-csv}"
for t in "$@"; do
    bin="$BUILD/fuzz/fuzz_$t"
    seeds="$root/tests/fuzz/corpus/$t"
    if [ -n "${FUZZ_KEEP:-}" ]; then
        case "$FUZZ_KEEP" in /*) work="$FUZZ_KEEP/$t" ;; *) work="$root/$FUZZ_KEEP/$t" ;; esac
    else
        work="$tmp/$t"
    fi
    mkdir -p "$work" "$tmp/cwd-$t"
    set -- -max_total_time="$SECONDS_EACH" -timeout="$TIMEOUT" -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$BUILD/artifacts/$t-"
    [ -f "tests/fuzz/$t.dict" ] && set -- "$@" -dict="$root/tests/fuzz/$t.dict"
    [ -f "tests/fuzz/$t.options" ] && set -- "$@" $(cat "tests/fuzz/$t.options")
    log="${FUZZ_LOGDIR:-$BUILD/fuzz}/fuzz_$t.log"
    # this target's findings only: targets may run side by side (make fuzz-long, two at once)
    before=$(ls "$BUILD/artifacts" | grep -c "^$t-")
    if [ -x "$bin" ]; then
        (cd "$tmp/cwd-$t" && "$bin" "$@" "$work" "$seeds") >"$log" 2>&1
        rc=$?
    else
        echo "$bin: not built" >"$log"
        rc=127
    fi
    after=$(ls "$BUILD/artifacts" | grep -c "^$t-")
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    cov=$(sed -n 's/^#[0-9]*[^c]*cov: \([0-9]*\) ft: \([0-9]*\).*/\1 edges, \2 features/p' "$log" | tail -1)
    what="fuzz $t: ${execs:-0} executions in $SECONDS_EACH s, coverage ${cov:-?}"
    if [ "$rc" -eq 0 ] && [ "$after" -eq "$before" ] &&
        ! grep -qE '^==[0-9]+==ERROR|runtime error:|^SUMMARY: |ALARM: working on the last' "$log"; then
        passed=$((passed + 1))
        echo "ok - $what"
    else
        failed=$((failed + 1))
        echo "not ok - $what (exit $rc)"
        grep -E 'ERROR|runtime error|SUMMARY|ALARM|Test unit written|#[0-9]+ in ' "$log" | head -30
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
