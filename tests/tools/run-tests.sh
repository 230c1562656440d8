#!/bin/sh
# run-tests.sh BUILD_DIR [TEST...] - runs every unit test binary (cmocka) and every CLI test
# script, JOBS at a time (default: the number of cores), then prints each test's line in a
# fixed order and one closing line "N passed, N failed". Needs no terminal.
# CLI scripts print TAP-style lines: "ok - what" / "not ok - what".
# Tests are independent (each keeps its files in its own mktemp folder, tmux ones their own
# socket), so they run side by side; TESTS_SKIP="test_valgrind.sh ..." leaves some out.
BUILD=${1:-build}
[ $# -gt 0 ] && shift
DCUTOP=${DCUTOP:-./dcutop}
export DCUTOP BUILD
export TZ=UTC LC_ALL=C.UTF-8 NO_COLOR=1
# Debian's own tools first (install-deps.sh installs them): a python3 found earlier on PATH
# through a version manager's shim can take ten times as long to start, hundreds of times
PATH=/usr/bin:/bin:$PATH
export PATH
export XDG_CONFIG_HOME="$(mktemp -d)"   # never pick up the developer's own rules file
export XDG_STATE_HOME="$(mktemp -d)"    # the ; prompt's history stays in a temp folder
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
logs=$(mktemp -d)
trap 'rm -rf "$logs" "$XDG_CONFIG_HOME" "$XDG_STATE_HOME"' EXIT

if [ $# -gt 0 ]; then
    list="$*"
else
    list="$(ls "$BUILD"/tests/test_* 2>/dev/null) $(ls tests/cli/test_*.sh)"
fi
todo=""
for t in $list; do
    case " $TESTS_SKIP " in *" $(basename "$t") "*) continue ;; esac
    todo="$todo $t"
done

# The slowest tests first, so that the last job to start is a short one.
slow="test_valgrind.sh test_same_results.sh test_walk.sh test_bounded_memory.sh test_hostile_outputs.sh test_names.sh test_screens_reach.sh test_tmux.sh test_diff.sh"
ordered=""
for s in $slow; do
    for t in $todo; do [ "$(basename "$t")" = "$s" ] && ordered="$ordered $t"; done
done
for t in $todo; do
    case " $slow " in *" $(basename "$t") "*) ;; *) ordered="$ordered $t" ;; esac
done

for t in $ordered; do echo "$t"; done |
    LOGS="$logs" xargs -P "$JOBS" -n 1 sh tests/tools/run-one.sh

passed=0
failed=0
for t in $todo; do
    n=$(basename "$t")
    res=$(cat "$logs/$n.res" 2>/dev/null)
    [ -n "$res" ] || res="0 1 0"
    set -- $res
    passed=$((passed + $1))
    failed=$((failed + $2))
    echo "$n: $1 passed, $2 failed (${3} s)"
    if [ "$2" -ne 0 ]; then
        case "$n" in
            *.sh) grep -A8 '^not ok' "$logs/$n.log" | head -60; tail -5 "$logs/$n.log" ;;
            *) grep -E 'FAILED|ERROR|error|Assert|Sanitizer|runtime error' "$logs/$n.log" | head -40 ;;
        esac
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
