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
