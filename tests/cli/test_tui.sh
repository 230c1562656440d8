# test_tui.sh - headless behaviour that golden screens do not show: export files, the
# overwrite question, byte-identical batch export, key rebinding, themes, exit codes.
. tests/cli/lib.sh
W=$(pwd)/sample-traces/dcu-weather-transformer
D=$(pwd)/$DCUTOP
case "$DCUTOP" in /*) D=$DCUTOP ;; esac

# e exports the view as shown (filter and sort applied); same bytes as --export
cat >"$TMP/exp.keys" <<'K'
2/elementwise|copy<Enter><F6><Up><Enter>
e<Enter>
:dump after-export
K
(cd "$TMP" && "$D" --headless --size 100x30 --keys exp.keys "$W" >exp.out 2>exp.err)
check "e writes hotspots.csv in the current folder" test -f "$TMP/hotspots.csv"
"$D" --export hotspots --filter 'elementwise|copy' --sort calls:desc -o "$TMP/batch.csv" "$W"
check "TUI export is byte-identical to --export with the same filter and sort" \
    cmp -s "$TMP/hotspots.csv" "$TMP/batch.csv"
check "the status line reports the export (kernels whose name or category matches)" grep -q "Exported 9 rows to hotspots.csv" "$TMP/exp.out"

# an existing file is never overwritten without a yes
echo "precious" >"$TMP/keep.csv"
printf '2\ne<C-u>keep.csv<Enter>n\n:dump refused\n' >"$TMP/no.keys"
(cd "$TMP" && "$D" --headless --size 100x30 --keys no.keys "$W" >no.out 2>&1)
same "answering n keeps the existing file" "precious" "$(cat "$TMP/keep.csv")"
check "the question was asked" grep -q "Not exported: keep.csv kept" "$TMP/no.out"
printf '2\ne<C-u>keep.csv<Enter>y\n' >"$TMP/yes.keys"
(cd "$TMP" && "$D" --headless --size 100x30 --keys yes.keys "$W" >yes.out 2>&1)
check "answering y overwrites it" grep -q '^name,short_name' "$TMP/keep.csv"
check "no temp file is left behind" sh -c "! ls '$TMP'/keep.csv.* '$TMP'/.keep.csv.dcutop-* >/dev/null 2>&1"

# categories export carries the what-if columns as shown
printf '3<Down><Down>+\ne<Enter>\n' >"$TMP/cat.keys"
(cd "$TMP" && "$D" --headless --size 100x30 --keys cat.keys "$W" >/dev/null 2>&1)
check "categories.csv has the what-if factor of copy" grep -q '^"copy","non-GEMM",.*,1.250000,' "$TMP/categories.csv"

# rebinding from $XDG_CONFIG_HOME/dcutop/dcutoprc
mkdir -p "$TMP/cfg/dcutop"
printf '# test rc\nbind generic x screen-categories\nbind hotspots s sort-next\n' >"$TMP/cfg/dcutop/dcutoprc"
printf 'x\n:dump rebound\n' >"$TMP/rc.keys"
XDG_CONFIG_HOME="$TMP/cfg" "$D" --headless --size 100x30 --keys "$TMP/rc.keys" "$W" >"$TMP/rc.out" 2>&1
check "bind generic x screen-categories switches to Categories" grep -q "Ceiling(inf)" "$TMP/rc.out"
printf '?\n:dump help\n' >"$TMP/h.keys"
XDG_CONFIG_HOME="$TMP/cfg" "$D" --headless --size 120x60 --keys "$TMP/h.keys" "$W" >"$TMP/h.out" 2>&1
check "the help screen lists the new binding" grep -q "x .*screen-categories" "$TMP/h.out"
printf 'bind nowhere x quit\n' >"$TMP/cfg/dcutop/dcutoprc"
printf ':dump start\n' >"$TMP/start.keys"
exits "a bad rc line is a warning, not a refusal to start" 0 env XDG_CONFIG_HOME="$TMP/cfg" "$D" --headless --keys "$TMP/start.keys" "$W"
check "the status line names file and line" grep -q "dcutoprc:1: unknown screen 'nowhere'" "$TMP/out"
rm -f "$TMP/cfg/dcutop/dcutoprc"

# themes
for t in default mono light high-contrast; do
    exits "--theme $t loads" 0 "$D" --headless --theme "$t" --keys "$TMP/h.keys" "$W"
done
printf 'color header nosuchcolor default\n' >"$TMP/bad.theme"
exits "a bad theme file is a usage error" 2 "$D" --headless --theme "$TMP/bad.theme" --keys "$TMP/h.keys" "$W"
check "the theme error names file and line" grep -q "bad.theme:1: unknown color" "$TMP/err"
exits "an unknown theme name is a usage error" 2 "$D" --headless --theme nosuch --keys "$TMP/h.keys" "$W"

# headless usage errors
exits "--headless without --keys is a usage error" 2 "$D" --headless "$W"
printf ':nosuch\n' >"$TMP/bad.keys"
exits "an unknown script directive is a usage error" 2 "$D" --headless --keys "$TMP/bad.keys" "$W"
exits "--size must be WxH" 2 "$D" --headless --size 100 --keys "$TMP/h.keys" "$W"

# not a terminal: the report instead of a broken screen
"$D" "$W" </dev/null >"$TMP/pipe.out" 2>&1
check "without a terminal dcutop prints the report" grep -q "^Hotspots" "$TMP/pipe.out"

# control characters in names never reach the screen
mkdir -p "$TMP/esc"
printf '"Name","Calls","TotalDurationNs","AverageNs","Percentage"\n"evil\033[31mred\007kernel",1,100,100,100.0\n' \
    >"$TMP/esc/results.stats.csv"
printf '2\n:dump evil\n' >"$TMP/e.keys"
"$D" --headless --size 100x24 --keys "$TMP/e.keys" "$TMP/esc" >"$TMP/e.out" 2>&1
check "no escape byte in the screen dump" sh -c "! grep -q \"$(printf '\033')\" '$TMP/e.out'"
check "the escape is shown as \\x1B" grep -q 'evil\\x1B\[31mred\\x07kernel' "$TMP/e.out"

# API / Copies: i splits totals at the first iteration (cold start), from the timeline
CT="$REAL/pytorch-h200-climate-transformer/climate_train.trace.json.gz"
if [ -f "$CT" ]; then
    mkdir -p "$TMP/ct" && cp "$CT" "$TMP/ct/"
    printf '4i\n:dump api-split\n5i\n:dump copies-split\n' >"$TMP/split.keys"
    "$D" --headless --size 130x24 --keys "$TMP/split.keys" "$TMP/ct" >"$TMP/split.out" 2>&1
    check "i on API shows first-iteration and steady-state columns" grep -q "1stCalls .*SteadyCalls" "$TMP/split.out"
    if [ -x /usr/bin/python3 ]; then
        want=$(/usr/bin/python3 -c "import gzip,json,sys; t=json.load(gzip.open(sys.argv[1])); print(sum(1 for e in t['traceEvents'] if e.get('cat')=='cuda_runtime' and e.get('name')=='cudaLaunchKernel' and e.get('ph')=='X'))" "$CT")
        check "cudaLaunchKernel calls equal a python count over the JSON ($want)" \
            grep -q "cudaLaunchKernel  *$want " "$TMP/split.out"
    else
        ok "python3 missing: cudaLaunchKernel count check skipped"
    fi
    check "i on Copies shows the steady-state copies" grep -q "SteadyCalls  *SteadyBytes" "$TMP/split.out"
else
    notok "climate_train trace missing from tests/data/real"
fi
