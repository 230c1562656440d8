# test_names.sh - one shortener for every screen: on every bundled and shared sample, at 80 and
# 200 columns (120 too in make check-full), no two different kernels show the same text in Hotspots, a
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
/^--- / { on = 0; cur = $2 }
on {
    s = w > 0 ? substr($0, lead, w) : substr($0, lead)
    if (w == 0) sub(/ +[^ ]+ +[0-9.]+% +[0-9.]+x *$/, "", s)
    sub(/ +$/, "", s)
    if (s != "" && s !~ /^\.\.\. [0-9]+ more rows/) print (sect ? cur "\t" : "") s
}
A
# (with sect=1, each name comes after its dump's name and a tab: one pass over every dump)
# dupes FILE: the repeated lines and the lone keywords among the names in FILE
# (one awk: a process costs milliseconds here, and this runs hundreds of times)
dupes() {
    awk 'seen[$0]++ == 1 { print } /^(void|static|inline|int|float|const|unsigned|__global__|operator)$/ { print }' "$1"
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
    # make check: the narrowest and the widest; make check-full (CHECK_FULL=1): 120 too
    for w in 80 200 ${CHECK_FULL:+120}; do
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
        # each drill-in on its own (GEMM and non-GEMM repeat): names keyed by their dump
        awk -v head=" Kernel " -v next_title=Category -v sect=1 -f "$TMP/names.awk" "$TMP/scr" |
            awk -F '\t' '$1 ~ /^cat[0-9]+$/' >"$TMP/c1"
        bad=$(awk -F '\t' 'seen[$0]++ == 1 { print "# drill-in " $0 }
              $2 ~ /^(void|static|inline|int|float|const|unsigned|__global__|operator)$/ { print "# drill-in " $0 }' "$TMP/c1")
        [ -z "$bad" ] || echo "$bad" | head -3
        same "$s at $w: no repeated name in any of the $ncat Categories drill-ins" "" "$bad"
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
