#!/bin/sh
# test_hidden_chars.sh - names with Unicode bidi and format characters (issue 9 point 8):
# RLO U+202E ... PDF U+202C, ZWSP U+200B, ZWJ U+200D, LRM U+200E, FSI/PDI U+2068/2069 and
# the BOM U+FEFF draw nothing but reorder or hide text ("gemm<RLO>lenrek" reads backwards).
# In a CSV and a JSON trace, they must come out as visible \uXXXX text in --report (text,
# json, csv), --export and the headless view; a folder name with ESC and RLO is escaped in
# the report and view titles. Before, every one of these passed through raw.
. tests/cli/lib.sh

RLO=$(printf '\342\200\256')
PDF=$(printf '\342\200\254')
ZWSP=$(printf '\342\200\213')
ZWJ=$(printf '\342\200\215')
LRM=$(printf '\342\200\216')
FSI=$(printf '\342\201\250')
PDI=$(printf '\342\201\251')
BOM=$(printf '\357\273\277')
ESC=$(printf '\033')
# every raw format character above, for grep
RAW="$RLO\\|$PDF\\|$ZWSP\\|$ZWJ\\|$LRM\\|$FSI\\|$PDI\\|$BOM"

D="$TMP/run${ESC}[31m${RLO}evil"
mkdir -p "$D/csv" "$D/json"
printf '"Name","Calls","TotalDurationNs","AverageNs","Percentage"\n"gemm_%skernel%s_a",2,600,300,60\n"k%sz%sw%sx",1,400,400,40\n' \
    "$RLO" "$PDF" "$ZWSP" "$ZWJ" "$LRM" >"$D/csv/results.stats.csv"
printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "j%sfsi%s_%sbom", "pid": 0, "tid": 1, "ts": 1, "dur": 5,' \
    "$FSI" "$PDI" "$BOM" >"$D/json/trace.json"
printf ' "args": {"device": 0, "stream": 7}}, {"ph": "X", "cat": "kernel", "name": "j\\u202eesc\\u200d", "pid": 0, "tid": 1, "ts": 9, "dur": 2, "args": {"device": 0, "stream": 7}}]}\n' \
    >>"$D/json/trace.json"
sums_before=$(cat "$D"/*/* | cksum)

# the names as they must be shown (the two runs added: --run all; the default shows one run)
NAMES='gemm_\u202Ekernel\u202C_a|j\u202Eesc\u200D|j\u2068fsi\u2069_\uFEFFbom|k\u200Bz\u200Dw\u200Ex'

"$DCUTOP" --export hotspots --run all "$D" >"$TMP/hot.csv" 2>"$TMP/hot.err"
same "--export: names escaped" "$NAMES" \
    "$(awk -F, 'NR > 1 { gsub(/"/, "", $1); print $1 }' "$TMP/hot.csv" | LC_ALL=C sort | paste -sd'|')"
for f in text json csv; do
    "$DCUTOP" --report --format "$f" --width 200 --run all "$D" >"$TMP/r.$f" 2>"$TMP/r.err"
    check "--report --format $f: no raw format character" sh -c "! grep -q '$RAW' '$TMP/r.$f'"
    check "--report --format $f: no raw ESC" sh -c "! grep -q '$ESC' '$TMP/r.$f'"
    if [ "$f" = json ]; then # JSON escapes the backslash itself: decode, then compare
        python3 -c 'import json,sys; print("\n".join(r["name"] for r in json.load(open(sys.argv[1]))["hotspots"]))' \
            "$TMP/r.json" >"$TMP/r.names"
    else
        cp "$TMP/r.$f" "$TMP/r.names"
    fi
    check "--report --format $f: RLO in a CSV name shown as \\u202E" grep -qF 'gemm_\u202Ekernel\u202C_a' "$TMP/r.names"
    check "--report --format $f: FSI/PDI/BOM in a JSON name shown escaped" grep -qF 'j\u2068fsi\u2069_\uFEFFbom' "$TMP/r.names"
done
check "--report: the title escapes ESC and RLO in the folder name" \
    grep -qF "report: $TMP/run\\x1B[31m\\u202Eevil" "$TMP/r.text"
for v in hotspots categories files; do
    "$DCUTOP" --export "$v" --run all "$D" >"$TMP/e.csv" 2>/dev/null
    check "--export $v: no raw format character or ESC" sh -c "! grep -q '$RAW\\|$ESC' '$TMP/e.csv'"
done

# the headless view: Summary (title) and Hotspots (names)
printf ':dump summary\n2\n:dump hotspots\n' >"$TMP/k.keys"
"$DCUTOP" --headless --keys "$TMP/k.keys" --size 160x30 --run all "$D" >"$TMP/tui.txt" 2>"$TMP/tui.err"
same "headless: exit 0" 0 $?
check "headless: no raw format character or ESC" sh -c "! grep -q '$RAW\\|$ESC' '$TMP/tui.txt'"
check "headless: the title escapes the folder name" grep -qF 'run\x1B[31m\u202Eevil' "$TMP/tui.txt"
check "headless: hotspot names escaped" grep -qF 'gemm_\u202Ekernel\u202C_a' "$TMP/tui.txt"
check "headless: JSON names escaped" grep -qF 'j\u202Eesc\u200D' "$TMP/tui.txt"

same "inputs unchanged" "$sums_before" "$(cat "$D"/*/* | cksum)"
