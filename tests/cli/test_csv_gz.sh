#!/bin/sh
# test_csv_gz.sh - every CSV input may be .csv.gz (issue 24): each bundled CSV sample
# (sample-traces/ and tests/data/real/), with every .csv gzipped in $TMP, gives the same
# report as the plain files, byte for byte once the names are mapped back (.csv.gz -> .csv;
# runs of blanks squeezed, since a longer name widens the Files column). Also: a .gz
# holding binary is not loaded.
. tests/cli/lib.sh
D=$(cd "$(dirname "$DCUTOP")" && pwd)/$(basename "$DCUTOP")
n=0
for dir in sample-traces/* "$REAL"/*; do
    [ -d "$dir" ] || continue
    ls "$dir"/*.csv >/dev/null 2>&1 || continue
    name=$(basename "$(dirname "$dir")")-$(basename "$dir")
    mkdir -p "$TMP/plain/$name" "$TMP/gz/$name"
    cp "$dir"/*.csv "$TMP/plain/$name/"
    cp "$dir"/*.csv "$TMP/gz/$name/"
    gzip -n "$TMP/gz/$name"/*.csv
    (cd "$TMP/plain" && "$D" --report --width 400 "$name" 2>"$TMP/plain.err") | tr -s ' ' >"$TMP/plain.txt"
    if grep -q 'nothing could be loaded' "$TMP/plain.err"; then
        # CSVs beside a trace that dcutop does not read (a metrics file); device-state logs load
        echo "# $name: its CSVs are not a format dcutop reads; not compared"
        continue
    fi
    (cd "$TMP/gz" && "$D" --report --width 400 "$name") | sed 's/\.csv\.gz/.csv/g' |
        tr -s ' ' >"$TMP/gz.txt" 2>&1
    if cmp -s "$TMP/plain.txt" "$TMP/gz.txt" && grep -q 'Hotspots\|Files' "$TMP/plain.txt"; then
        ok "$name: .csv.gz gives the same report"
    else
        notok "$name: .csv.gz gives the same report"
        diff "$TMP/plain.txt" "$TMP/gz.txt" | head -10 | sed 's/^/#   /'
    fi
    n=$((n + 1))
done
[ "$n" -ge 4 ] && ok "$n CSV samples compared" || notok "only $n CSV samples found"

printf '\000\001\002binary' | gzip >"$TMP/bin.csv.gz"
exits "a .gz holding binary loads nothing" 1 "$DCUTOP" --export files "$TMP/bin.csv.gz"
check "... and says so" grep -q 'skipped' "$TMP/err"

# the line readers too: a one-column step-time CSV and folded call stacks, gzipped, give the
# same report as plain (the Files table aside: the names end in .gz)
mkdir "$TMP/lp" "$TMP/lg"
printf 'step_ms\n5.1\n5.3\n4.9\n5.0\n' >"$TMP/lp/steps.csv"
cp sample-traces/dcu-weather-transformer/results.csv \
    sample-traces/pytorch-h200-climate-transformer/climate_train.stacks.txt "$TMP/lp/"
cp "$TMP/lp/"* "$TMP/lg/"
gzip "$TMP/lg/steps.csv" "$TMP/lg/climate_train.stacks.txt"
for d in lp lg; do
    # (the idle-causes section names the run by its folder: RUN)
    "$DCUTOP" -q --report --width 200 "$TMP/$d" | sed '/^Files/,/^$/d; 1d' |
        sed "s/^  $d  /  RUN /" >"$TMP/$d.txt"
done
check "gzipped step times and call stacks: the same report" cmp -s "$TMP/lp.txt" "$TMP/lg.txt"
check "... with the steps and the stacks in it" sh -c "grep -q 'Call stacks' '$TMP/lg.txt' && \
    '$DCUTOP' -q --report --view files '$TMP/lg' | grep -q 'steps.csv.gz .*step times (CSV) .*used'"
