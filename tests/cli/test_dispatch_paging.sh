# test_dispatch_paging.sh - a long dispatch list is read a page at a time (dispatch_page.h):
# the screens of a paged list are those of the whole list, row for row, scrolled to its end,
# sorted and filtered; a sort by duration pages through the order SQL gives.
. tests/cli/lib.sh
W=$(pwd)/sample-traces/dcu-weather-transformer
D=$(pwd)/$DCUTOP
case "$DCUTOP" in /*) D=$DCUTOP ;; esac

# the top kernel's list (522 dispatches): paged (DCUTOP_PAGE_MIN=1) and whole
cat >"$TMP/p.keys" <<'KEYS'
2
<Enter>
<Enter>
:dump list
<PgDown><PgDown><PgDown>
:dump pages-down
<End>
:dump end
<Up><Up><PgUp>
:dump back-up
<Home>
>
:dump sorted-index
>>
:dump sorted-duration
<End>
:dump sorted-duration-end
r
:dump reversed
<PgDown>
:dump reversed-page-2
/results
<Enter>
:dump filtered
KEYS
DCUTOP_PAGE_MIN=1 "$D" --headless --size 120x30 --keys "$TMP/p.keys" "$W" >"$TMP/paged.out" 2>&1
DCUTOP_PAGE_MIN=100000000 "$D" --headless --size 120x30 --keys "$TMP/p.keys" "$W" >"$TMP/whole.out" 2>&1
check "the list shows 522 rows" grep -qx '1/522' "$TMP/paged.out"
check "the end of the paged list is the end of the whole list" grep -qx '522/522' "$TMP/paged.out"
check "paged screens are the whole list's, scrolled, sorted, reversed and filtered" \
    cmp "$TMP/paged.out" "$TMP/whole.out"

# the list sorted by duration, its first and its last page (200 rows each), against SQL
printf '2\n<Enter>\n<Enter>\n>>>\n:dump first\n<End>\n:dump last\n' >"$TMP/d.keys"
DCUTOP_PAGE_MIN=1 "$D" --headless --size 120x205 --keys "$TMP/d.keys" "$W" >"$TMP/d.out" 2>&1
rows() { sed -n "/^--- $1 /,/^F1/p" "$TMP/d.out" | sed -n '5,204p' | awk '{ print $1 }'; }
rows first >"$TMP/d.seq"
rows last >>"$TMP/d.seq"
"$D" --sql "SELECT d.seq FROM dispatch d WHERE d.kernel_id = (SELECT kernel_id FROM
    kernel_summary ORDER BY total_ns DESC LIMIT 1) AND d.file_id IN (SELECT file_id FROM
    used_file WHERE layer = 'kernel') ORDER BY d.dur_ns DESC, d.file_id, d.start_ns, d.id" "$W" \
    2>/dev/null | sed -n '3,$p' | awk '$1 ~ /^[0-9]+$/ { print $1 }' >"$TMP/sql.all"
{ head -200 "$TMP/sql.all"; tail -200 "$TMP/sql.all"; } >"$TMP/sql.seq"
same "SQL lists 522 rows" 522 "$(wc -l <"$TMP/sql.all" | tr -d ' ')"
check "sorted by duration: first and last pages in the order of SQL's ORDER BY dur_ns DESC" \
    cmp "$TMP/d.seq" "$TMP/sql.seq"
check "the duration column is marked as sorted" grep -q 'Duration us▼' "$TMP/d.out"

# two copies of the trace (two runs, two files; --run all: both in scope, the default shows
# one run): the list holds both; a filter on one file
# leaves rows out, as the kernel index lists them (the kept rows read apart)
mkdir -p "$TMP/two/a" "$TMP/two/b"
cp -r "$W"/. "$TMP/two/a/"
cp -r "$W"/. "$TMP/two/b/"
printf '2\n<Enter>\n<Enter>\n:dump both\n<End>\n:dump both-end\n>>>\n:dump dur\n/b/\n<Enter>\n:dump b\n<End>\n:dump b-end\n<Home>\n:dump b-top\n' \
    >"$TMP/f.keys"
DCUTOP_PAGE_MIN=1 "$D" --headless --size 120x30 --keys "$TMP/f.keys" --run all "$TMP/two" >"$TMP/fp.out" 2>&1
DCUTOP_PAGE_MIN=100000000 "$D" --headless --size 120x30 --keys "$TMP/f.keys" --run all "$TMP/two" \
    >"$TMP/fw.out" 2>&1
check "two files: 1044 rows, 522 of them in b/" sh -c \
    "grep -qx '1044/1044' '$TMP/fp.out' && grep -qx '522/522' '$TMP/fp.out'"
check "two files, filtered and sorted: the paged list's screens are the whole list's" \
    cmp "$TMP/fp.out" "$TMP/fw.out"

# the two copies sorted, past the first 1024 rows of the order (found by one pass) to its end
# (the lazy quicksort of every row), and back
printf '2\n<Enter>\n<Enter>\n>>>\n<End>\n:dump dur-end\n<PgUp><PgUp><PgUp><PgUp>\n:dump dur-up\nr\n<End>\n:dump dur-rev-end\n' \
    >"$TMP/e.keys"
DCUTOP_PAGE_MIN=1 "$D" --headless --size 120x30 --keys "$TMP/e.keys" --run all "$TMP/two" >"$TMP/ep.out" 2>&1
DCUTOP_PAGE_MIN=100000000 "$D" --headless --size 120x30 --keys "$TMP/e.keys" --run all "$TMP/two" \
    >"$TMP/ew.out" 2>&1
check "two files sorted, at the end of the order: the paged list's screens are the whole list's" \
    cmp "$TMP/ep.out" "$TMP/ew.out"

# rows out of start order (the store's flag unset: the rows are read and put in order): one
# copy shuffled, alone and next to one in order (two files, one of each)
mkdir -p "$TMP/mixed/a" "$TMP/mixed/b" "$TMP/shuf"
cp -r "$W"/. "$TMP/mixed/a/"
cp -r "$W"/. "$TMP/mixed/b/"
{ head -1 "$W/results.csv"; sed 1d "$W/results.csv" | awk 'BEGIN { srand(7) } { print rand() "\t" $0 }' |
    sort -k1,1 | cut -f2-; } >"$TMP/mixed/b/results.csv"
cp -r "$TMP/mixed/b"/. "$TMP/shuf/"
for t in shuf mixed; do
    # one sort from the natural order (the whole list's ties keep the order before: the same)
    printf '2\n<Enter>\n<Enter>\n:dump list\n<End>\n:dump end\n<PgUp>\n:dump up\n>\n:dump seq\n<End>\n:dump seq-end\n' \
        >"$TMP/s.keys"
    DCUTOP_PAGE_MIN=1 "$D" --headless --size 120x30 --keys "$TMP/s.keys" --run all "$TMP/$t" \
        >"$TMP/$t.p.out" 2>&1
    DCUTOP_PAGE_MIN=100000000 "$D" --headless --size 120x30 --keys "$TMP/s.keys" --run all "$TMP/$t" \
        >"$TMP/$t.w.out" 2>&1
    check "rows out of start order ($t): the paged list's screens are the whole list's" \
        cmp "$TMP/$t.p.out" "$TMP/$t.w.out"
done
check "the shuffled copy lists the same rows as the copy in order" sh -c \
    "grep -qx '522/522' '$TMP/shuf.p.out' && grep -qx '1044/1044' '$TMP/mixed.p.out'"
