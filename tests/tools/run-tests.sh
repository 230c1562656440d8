#!/bin/sh
# run-tests.sh BUILD_DIR - runs every unit test binary (cmocka) and every CLI test script,
# then prints one closing line "N passed, N failed". Needs no terminal.
# CLI scripts print TAP-style lines: "ok - what" / "not ok - what".
BUILD=${1:-build}
DCUTOP=${DCUTOP:-./dcutop}
export DCUTOP
export TZ=UTC LC_ALL=C.UTF-8 NO_COLOR=1
export XDG_CONFIG_HOME="$(mktemp -d)"   # never pick up the developer's own rules file
export XDG_STATE_HOME="$(mktemp -d)"    # the ; prompt's history stays in a temp folder
SHARED=${SHARED:-../shared}
export SHARED
passed=0
failed=0
log=$(mktemp)
for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] || continue
    "$t" >"$log" 2>&1
    rc=$?
    p=$(grep -c '^\[       OK \]' "$log")
    # cmocka's closing summary: "[  FAILED  ] N test(s), listed below:"
    f=$(sed -n 's/^\[  FAILED  \] \([0-9][0-9]*\) test(s).*/\1/p' "$log" | head -1)
    f=${f:-0}
    [ "$f" -eq 0 ] && [ "$rc" -ne 0 ] && f=1   # crashed before cmocka could count
    passed=$((passed + p))
    failed=$((failed + f))
    echo "$(basename "$t"): $p passed, $f failed"
    if [ "$f" -ne 0 ]; then
        grep -E 'FAILED|ERROR|error|Assert|Sanitizer|runtime error' "$log" | head -40
    fi
done
for s in tests/cli/test_*.sh; do
    [ -f "$s" ] || continue
    sh "$s" >"$log" 2>&1
    rc=$?
    p=$(grep -c '^ok ' "$log")
    f=$(grep -c '^not ok ' "$log")
    [ "$f" -eq 0 ] && [ "$rc" -ne 0 ] && f=1
    passed=$((passed + p))
    failed=$((failed + f))
    echo "$(basename "$s"): $p passed, $f failed"
    if [ "$f" -ne 0 ]; then
        grep -A8 '^not ok' "$log" | head -60
        [ "$rc" -ne 0 ] && tail -5 "$log"
    fi
done
rm -f "$log"
rm -rf "$XDG_CONFIG_HOME" "$XDG_STATE_HOME"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
