#!/bin/sh
# check-all.sh - the stages of `make check` and `make check-full`, each printing its own
# lines and its own closing line "N passed, N failed":
#   suite      make test            unit, CLI, headless screens, tmux (run-tests.sh)
#   unit-asan  make unit-asan-pass  the unit tests built with ASan + UBSan
#   asan       make asan-pass       the whole suite built with ASan + UBSan (run-sanitized.sh)
#   valgrind   make valgrind-pass   headless sessions under valgrind memcheck
#   scale      make scale-pass      the plain build's scale checks (100,000 files)
#   cluster    make cluster-pass    the Debian package (lintian, apt install on a fresh root)
#                                   and the Slurm map/reduce on a single-node Slurm
#   fuzz       make fuzz-smoke      every libFuzzer target for FUZZ_SECONDS (tests/fuzz/run-fuzz.sh)
# Builds run JOBS at a time (default: the number of cores), and so do the tests.
# then one line per stage with its time, and the overall closing line, last, summed over
# the stages. A stage that stops before its closing line (a build error) counts as failed.
# CHECK_STAGES="suite asan" runs a subset.
MAKE=${MAKE:-make}
stages=${CHECK_STAGES:-suite unit-asan asan valgrind scale cluster fuzz}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
export JOBS
total_p=0
total_f=0
summary=""
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for st in $stages; do
    case "$st" in
        suite) target=test ;;
        unit-asan) target=unit-asan-pass ;;
        asan) target=asan-pass ; export CHECK_FULL=1 ;;
        valgrind) target=valgrind-pass ;;
        scale) target=scale-pass ;;
        cluster) target=cluster-pass ;;
        fuzz) target=fuzz-smoke ;;
        *) echo "check-all: unknown stage $st" >&2; exit 2 ;;
    esac
    echo "=== $st: make $target"
    t0=$(date +%s)
    $MAKE --no-print-directory -j"$JOBS" "$target" >"$log" 2>&1
    rc=$?
    cat "$log"
    secs=$(($(date +%s) - t0))
    last=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -1)
    p=${last%% passed*}
    f=${last#*passed, }
    f=${f%% failed}
    if [ -z "$last" ]; then
        p=0
        f=1
    elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        f=1 # make failed after the closing line
    fi
    total_p=$((total_p + p))
    total_f=$((total_f + f))
    summary="$summary
stage $st: $p passed, $f failed in ${secs} s (exit $rc)"
done
echo "$summary" | sed '/^$/d'
echo "$total_p passed, $total_f failed"
[ "$total_f" -eq 0 ]
