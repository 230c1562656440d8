#!/bin/sh
# same-results.sh check|write - every view of a few mid-size traces, compared cell for cell
# with tests/golden/same/ (issue 11: results stay identical across storage and speed work).
#   check  prints "ok - ..." / "not ok - ..." per output (the diff's first lines on a change)
#   write  rewrites the golden files from the current build (make update-golden)
# Traces: a generated 50,000-dispatch rocprof v1 CSV and a 20,000-kernel Kineto JSON (the
# bench generators, compiled here), and the real samples that reach the other views: runs
# (A-B-B-A), ranks (2-rank DDP), shapes (Qwen), RPD, stacks and hipprof (DCU sample).
mode=${1:-check}
DCUTOP=${DCUTOP:-./dcutop}
REAL=tests/data/real   # the real profiler outputs the tests read, copied in with their SOURCE.txt
GOLD=tests/golden/same # gzip -9n: 20 MB of text, 2 MB stored
export TZ=UTC LC_ALL=C.UTF-8 NO_COLOR=1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export XDG_CONFIG_HOME="$TMP/config" XDG_STATE_HOME="$TMP/state"
passed=0 failed=0

${CC:-cc} -O2 -o "$TMP/gen_csv" bench/gen_results_csv.c -lm || exit 2
${CC:-cc} -O2 -o "$TMP/gen_kineto" bench/gen_kineto_json.c -lm || exit 2
mkdir -p "$TMP/gen" "$TMP/kin"
"$TMP/gen_csv" 50000 "$TMP/gen/results.csv" >/dev/null 2>&1 || exit 2
"$TMP/gen_kineto" 20000 "$TMP/kin/trace.json" >/dev/null 2>&1 || exit 2

# one NAME CMD...: the output (stdout, then the exit status) under NAME; with SAME_TAGS set
# (words), only the outputs whose NAME starts with one of those tags
one() {
    name=$1
    shift
    if [ -n "${SAME_TAGS:-}" ]; then
        case " $SAME_TAGS " in *" ${name%%.*} "*) ;; *) return ;; esac
    fi
    out="$TMP/out"
    "$@" >"$out.raw" 2>/dev/null
    echo "exit $?" >>"$out.raw"
    sed "s|$TMP/|TMP/|g" "$out.raw" >"$out" # the temp folder's name changes every run
    if [ "$mode" = write ]; then
        gzip -9nc "$out" >"$GOLD/$name.gz"
    elif gzip -dc "$GOLD/$name.gz" 2>/dev/null | cmp -s - "$out"; then
        passed=$((passed + 1))
        echo "ok - same results: $name"
    else
        failed=$((failed + 1))
        echo "not ok - same results: $name"
        gzip -dc "$GOLD/$name.gz" | diff - "$out" 2>&1 | head -8 | sed 's/^/#   /'
    fi
}

# every report view (text and JSON), the whole report, and every CSV export of a trace
views() {
    tag=$1 path=$2
    shift 2
    one "$tag.report.txt" $DCUTOP --report --width 160 "$@" "$path"
    one "$tag.report.json" $DCUTOP --report --format json "$@" "$path"
    for v in files hotspots categories api copies timeline advice efficiency ranks stacks ranges; do
        one "$tag.$v.txt" $DCUTOP --report --width 160 --view "$v" "$@" "$path"
        [ "$tag.$v" = qwen.stacks ] && continue
        one "$tag.$v.json" $DCUTOP --report --format json --view "$v" "$@" "$path"
    done
    for v in hotspots categories api copies files stacks ranges efficiency; do
        [ "$tag.$v" = qwen.stacks ] && continue # 4 MB; its text view is above
        one "$tag.$v.csv" $DCUTOP --export "$v" -o - "$@" "$path"
    done
}

views gen "$TMP/gen/"
one gen.trace.txt $DCUTOP --report --width 160 --view trace --roi 0ms..2ms "$TMP/gen/"
one gen.sql.csv $DCUTOP --sql "SELECT * FROM kernel_summary ORDER BY kernel_id" --format csv "$TMP/gen/"
views kin "$TMP/kin/trace.json"
one kin.trace.txt $DCUTOP --report --width 160 --view trace --roi 0ms..1ms "$TMP/kin/trace.json"
views weather sample-traces/dcu-weather-transformer
views climate sample-traces/pytorch-h200-climate-transformer
views qwen "$REAL/pytorch-kineto-mi300-qwen"
views abba "$REAL/pytorch-h200-abba-sdpa"
views ddp "$REAL/pytorch-h200-ddp-2rank"
views rpd "$REAL/rpd-matmul"
one rpd.trace.txt $DCUTOP --report --width 160 --view trace "$REAL/rpd-matmul"
one abba.run-S1.txt $DCUTOP --report --width 160 --run S1 "$REAL/pytorch-h200-abba-sdpa"
one abba.abba.txt $DCUTOP --abba "$REAL/pytorch-h200-abba-sdpa/A1" "$REAL/pytorch-h200-abba-sdpa/S1" \
    "$REAL/pytorch-h200-abba-sdpa/S2" "$REAL/pytorch-h200-abba-sdpa/A2"
one gen.roi-top.txt $DCUTOP --report --width 160 --roi auto-top "$TMP/gen/"
one weather.roi-steady.txt $DCUTOP --report --width 160 --roi steady sample-traces/dcu-weather-transformer

if [ "$mode" = write ]; then
    echo "same-results: $(ls "$GOLD" | wc -l) golden files written to $GOLD"
else
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
fi
