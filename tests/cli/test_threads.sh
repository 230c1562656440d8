#!/bin/sh
# test_threads.sh - --threads N (issue 23): a CSV large enough to be parsed in chunks by
# several threads gives the same report, exports and SQL answers with 1, 2, 3 and 16
# threads, kernel names holding quoted newlines and CRLF line ends included; bad counts are
# usage errors (exit 2).
. tests/cli/lib.sh
${CC:-cc} -O2 -o "$TMP/gen" bench/gen_results_csv.c -lm || exit 2
mkdir "$TMP/t"
"$TMP/gen" 30000 "$TMP/t/results.csv" >/dev/null 2>&1 || exit 2
# 400 rows in the middle of the file get a newline inside their quoted kernel name and a
# CRLF line end (the file, about 14 MB, is over the 8 MiB from which a read goes in chunks)
awk 'NR > 15000 && NR <= 15400 {
         n = split($0, a, "\""); a[2] = a[2] "\n(row " NR ")"; s = a[1]
         for (i = 2; i <= n; i++) s = s "\"" a[i]
         printf "%s\r\n", s; next }
     { print }' "$TMP/t/results.csv" >"$TMP/t/r.csv"
mv "$TMP/t/r.csv" "$TMP/t/results.csv"
for t in 1 2 3 16; do
    "$DCUTOP" -q --threads "$t" --report --width 160 "$TMP/t/" >"$TMP/report.$t" 2>&1
    same "--threads $t: the report exits 0" 0 "$?"
    "$DCUTOP" -q --threads "$t" --export hotspots -o - "$TMP/t/" >"$TMP/hot.$t" 2>&1
    "$DCUTOP" -q --threads "$t" --sql "SELECT count(*), sum(d.dur_ns), sum(length(k.name)) FROM dispatch d JOIN kernel k ON k.id = d.kernel_id" --format csv "$TMP/t/" >"$TMP/sql.$t" 2>&1
    "$DCUTOP" -q --threads "$t" --sql "SELECT count(*) FROM dispatch d JOIN kernel k ON k.id = d.kernel_id WHERE instr(k.name, '(row ') > 0" --format csv "$TMP/t/" | tail -n 1 >"$TMP/nl.$t"
done
for t in 2 3 16; do
    check "--threads $t: the same report as one thread" cmp -s "$TMP/report.1" "$TMP/report.$t"
    check "--threads $t: the same hotspots export" cmp -s "$TMP/hot.1" "$TMP/hot.$t"
    check "--threads $t: the same dispatches and names" cmp -s "$TMP/sql.1" "$TMP/sql.$t"
done
check "every dispatch was read, the names with newlines as one field each" grep -q "^30000," "$TMP/sql.1"
check "... and the 400 names that held a newline are whole" grep -q "^400$" "$TMP/nl.1"
for bad in 0 -1 abc 1025 ""; do
    exits "--threads '$bad' is a usage error" 2 "$DCUTOP" -q --threads "$bad" --report sample-traces/dcu-weather-transformer
    check "--threads '$bad': the message names the option" grep -q -- "--threads needs" "$TMP/err"
done

# Rows the parser threads cannot convert (csv_reader.h's CsvPrepare) fall back to the loading
# thread's checked path: a bad number, a negative time, an end before the start, a missing
# field, a name with unquoted commas (merged fields), a Total row. The same rows are stored
# and the same messages given, with the same line numbers, for every thread count.
mkdir "$TMP/m"
"$TMP/gen" 30000 "$TMP/m/results.csv" >/dev/null 2>&1 || exit 2
awk -F, 'BEGIN { OFS = "," }
     NR == 2000 { $1 = "12x" }
     NR == 4000 { $(NF-3) = "-5" }
     NR == 6000 { t = $(NF-3); $(NF-3) = $(NF-2); $(NF-2) = t - 1 }
     NR == 8000 { NF = NF - 1 }
     NR == 9000 { $(NF-2) = "" }
     NR == 11000 { sub(/"/, ""); sub(/"/, "") }
     NR == 12000 { $2 = "\"Total\"" }
     { print }' "$TMP/m/results.csv" >"$TMP/m/r.csv"
mv "$TMP/m/r.csv" "$TMP/m/results.csv"
for t in 1 2 3 16; do
    "$DCUTOP" --threads "$t" --report --width 160 "$TMP/m/" >"$TMP/mreport.$t" 2>"$TMP/mmsg.$t"
    "$DCUTOP" -q --threads "$t" --sql "SELECT count(*), sum(d.dur_ns), sum(d.start_ns % 1000), sum(coalesce(d.grid, 7)), sum(length(k.name)) FROM dispatch d JOIN kernel k ON k.id = d.kernel_id" --format csv "$TMP/m/" >"$TMP/msql.$t" 2>&1
done
for t in 2 3 16; do
    check "rows the parser threads leave: --threads $t, the same report" cmp -s "$TMP/mreport.1" "$TMP/mreport.$t"
    check "... the same messages, lines included" cmp -s "$TMP/mmsg.1" "$TMP/mmsg.$t"
    check "... the same dispatches" cmp -s "$TMP/msql.1" "$TMP/msql.$t"
done
for line in 2000 4000 6000 8000 9000; do
    check "the rejected row of line $line is named with its line" grep -q "results.csv:$line: " "$TMP/mmsg.16"
done
# 30,000 rows less the five rejected and the Total row; the row whose name lost its quotes
# is stored with its whole name (its commas split it into fields, merged back)
check "every other row is stored" grep -q "^29994," "$TMP/msql.16"
name=$(sed -n 11000p "$TMP/m/results.csv" | awk -F, '{ n = NF - 22; s = $2; for (i = 3; i <= 2 + n; i++) s = s "," $i; print s }')
"$DCUTOP" -q --threads 16 --sql "SELECT length(k.name_raw) - length(replace(k.name_raw, ',', '')) FROM dispatch d JOIN kernel k ON k.id = d.kernel_id WHERE d.seq = 10998" \
    --format csv "$TMP/m/" 2>/dev/null | tail -n 1 >"$TMP/merged"
same "the unquoted name with commas is stored whole (its commas)" "$(printf %s "$name" | tr -cd , | wc -c | tr -d ' ')" "$(cat "$TMP/merged")"
