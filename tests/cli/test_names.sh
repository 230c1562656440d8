# test_names.sh - one shortener for every screen: on every bundled and shared sample, at 80,
# 120 and 200 columns, no two different kernels show the same text in Hotspots, a
# Categories drill-in, the Summary or the text report, and no name is a lone keyword.
. tests/cli/lib.sh

# names.awk: the name column of a table whose header line starts with HEAD; a name ends
# where two spaces begin (names are padded; the next column follows after a gap)
# names.awk: the name column of the table under the line that starts with HEAD. With NEXT
# (the title of the column after the names) the column ends where NEXT starts in the header
# line; in the Summary the share and ceiling that follow a name are cut off instead.
cat >"$TMP/names.awk" <<'A'
index($0, head) == 1 {
    on = 1
    lead = match($0, /[^ ]/)
    w = next_title != "" ? index($0, next_title) - lead : 0
    next
}
on && /^ *$/ { on = 0 }
on && /^[0-9]+\/[0-9]+ / { on = 0 }
on && /^--- / { on = 0 }
on {
    s = w > 0 ? substr($0, lead, w) : substr($0, lead)
    if (w == 0) sub(/ +[^ ]+ +[0-9.]+% +[0-9.]+x *$/, "", s)
    sub(/ +$/, "", s)
    if (s != "" && s !~ /^\.\.\. [0-9]+ more rows/) print s
}
A
# dupes FILE: the repeated lines and the lone keywords among the names in FILE
dupes() {
    sort "$1" | uniq -d
    grep -xE 'void|static|inline|int|float|const|unsigned|__global__|operator' "$1"
}
check_names() { # DESC FILE MIN_ROWS
    n=$(wc -l <"$2")
    bad=$(dupes "$2")
    if [ -z "$bad" ] && [ "$n" -ge "$3" ]; then
        ok "$1 ($n names)"
    else
        notok "$1 ($n names, wanted $3)"
        echo "$bad" | head -5 | sed 's/^/#   /'
    fi
}

for d in sample-traces/*/ "$REAL"/*/; do
    [ -d "$d" ] || continue
    "$DCUTOP" -q --export hotspots -o "$TMP/h.csv" "$d" >/dev/null 2>&1 || continue
    nk=$(python3 -c 'import csv,sys; print(sum(1 for _ in csv.DictReader(open(sys.argv[1]))))' "$TMP/h.csv")
    rm -f "$TMP/h.csv"
    [ "$nk" -ge 2 ] || continue
    s=$(basename "$d")
    ncat=$("$DCUTOP" -q --report --view categories --format csv "$d" | awk 'END { print NR - 1 }')
    for w in 80 120 200; do
        "$DCUTOP" -q --report --view hotspots --top 0 --width "$w" "$d" |
            awk -v head="  Kernel " -v next_title=Category -f "$TMP/names.awk" >"$TMP/rep"
        check_names "$s at $w: report hotspots" "$TMP/rep" "$nk"
        long=$({ "$DCUTOP" -q --report --width "$w" "$d"
                 "$DCUTOP" -q --report --view stacks --width "$w" "$d"; } 2>/dev/null |
               awk -v w="$w" 'length($0) > w' | wc -l)
        same "$s at $w: the whole report and its stacks fit --width $w" "0" "$long"
        {
            printf '2\n:dump hot\n3\n'
            i=0
            while [ "$i" -lt "$ncat" ]; do
                printf '<Enter>\n:dump cat%d\n<Esc>\n<Down>\n' "$i"
                i=$((i + 1))
            done
            printf '1\n:dump summary\n'
        } >"$TMP/k.keys"
        "$DCUTOP" -q --headless --size "${w}x$((nk + 60))" --keys "$TMP/k.keys" "$d" >"$TMP/scr"
        awk '/^--- hot /,/^--- cat0 /' "$TMP/scr" | awk -v head=" Kernel " -v next_title=Category -f "$TMP/names.awk" >"$TMP/hot"
        check_names "$s at $w: Hotspots screen" "$TMP/hot" "$nk"
        : >"$TMP/cat"
        i=0
        while [ "$i" -lt "$ncat" ]; do # each drill-in on its own (GEMM and non-GEMM repeat)
            awk -v c="--- cat$i " 'index($0, c) == 1 { on = 1; print; next } /^--- / { on = 0 } on' \
                "$TMP/scr" | awk -v head=" Kernel " -v next_title=Category -f "$TMP/names.awk" >"$TMP/c1"
            [ -z "$(dupes "$TMP/c1")" ] || { echo "# drill-in $i:"; dupes "$TMP/c1" | head -3; }
            [ -z "$(dupes "$TMP/c1")" ] || echo dup >>"$TMP/cat"
            i=$((i + 1))
        done
        same "$s at $w: no repeated name in any of the $ncat Categories drill-ins" "" "$(cat "$TMP/cat")"
        awk '/^--- summary /,0' "$TMP/scr" | awk -v head="Top kernels" -f "$TMP/names.awk" >"$TMP/sum"
        check_names "$s at $w: Summary top kernels" "$TMP/sum" 2
    done
done

# the exports' short_name column: unique, never a keyword, the same as the kernel table's
"$DCUTOP" -q --export hotspots -o "$TMP/c.csv" "$REAL/pytorch-h200-climate-transformer"
python3 - "$TMP/c.csv" >"$TMP/short" <<'P'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print(r["short_name"])
P
check_names "export short_name column" "$TMP/short" 50
check "softmax_warp_forward keeps its name (was 'void')" grep -q '^softmax_warp_forward<' "$TMP/short"
