# test_valgrind.sh - headless sessions under valgrind memcheck: no invalid read or write, no
# use of uninitialised memory, no definite leak (issue 9.13). They replay golden key scripts,
# so the output is checked too: the session really ran to its end. Skipped in the ASan pass
# (DCUTOP_SANITIZED=1): valgrind cannot run an ASan binary, and that pass covers the rest.
. tests/cli/lib.sh
if [ -n "${DCUTOP_SANITIZED:-}" ]; then
    echo "# skipped: valgrind does not run sanitized binaries"
    exit 0
fi
if ! command -v valgrind >/dev/null 2>&1; then
    notok "valgrind is installed (scripts/install-deps.sh check)"
    exit 1
fi
# memcheck NAME ARGS...: dcutop ARGS under valgrind; output in $TMP/NAME.out
memcheck() {
    name=$1
    shift
    valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
        --log-file="$TMP/$name.vg" "$DCUTOP" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
    rc=$?
    if [ "$rc" -eq 0 ] && [ ! -s "$TMP/$name.vg" ]; then
        ok "valgrind $name: no memory error, no definite leak"
    else
        notok "valgrind $name: no memory error, no definite leak (exit $rc)"
        head -40 "$TMP/$name.vg" | sed 's/^/#   /'
        head -3 "$TMP/$name.err" | sed 's/^/#   /'
    fi
}
# vg NAME TRACE: tests/screens/NAME.keys on TRACE, compared with NAME.expected
vg() {
    name=$1
    size=$(sed -n 's/^# size: *//p' "tests/screens/$name.keys" | head -1)
    memcheck "$name" --headless --size "${size:-100x30}" --keys "tests/screens/$name.keys" "$2"
    check "valgrind $name: the session ran to its end (screens as $name.expected)" \
        cmp -s "$TMP/$name.out" "tests/screens/$name.expected"
}
vg tour sample-traces/dcu-weather-transformer
vg stacks sample-traces/pytorch-h200-climate-transformer
# a Kineto trace's report: its ranges and launch links (the range pass once tested a bit of
# an unset field, which valgrind reported)
memcheck qwen-report --report "$REAL/pytorch-kineto-mi300-qwen"
check "valgrind qwen-report: it ran to its end" grep -q "^What to optimise first" "$TMP/qwen-report.out"
