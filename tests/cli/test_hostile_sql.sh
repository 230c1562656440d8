#!/bin/sh
# test_hostile_sql.sh - issue 26, user SQL and option parsing: the FTS3 tokenizer is out of
# reach (M3); --sql streams its rows and the ; prompt keeps a bounded window, every statement
# has a time, memory and temp-folder budget (M4); and the low cases: a full temp folder named,
# json_each / dbstat usable, --roi 0 and INT64_MAX ns, --db-memory's real range, empty
# --gap-buckets bounds, hexadecimal times refused, a 100 KB kernel name.
. tests/cli/lib.sh
V3=sample-traces/rocprofv3-sdk-docs-csv
XDG_STATE_HOME=$TMP/state
XDG_CONFIG_HOME=$TMP/xdg
export XDG_STATE_HOME XDG_CONFIG_HOME
mkdir -p "$TMP/state" "$TMP/xdg"
# rows N: a recursive CTE of N rows, x and a 100-character text
rows() {
    echo "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT $1)" \
        "SELECT x, printf('%0100d', x) AS t FROM c"
}

# ------------------------------------------------------------------------------------- M3
exits "M3: fts3_tokenizer('simple') is refused (exit 2)" 2 \
    "$DCUTOP" -q --sql "SELECT hex(fts3_tokenizer('simple'))" "$V3"
check "M3: ... no libsqlite3 address printed" sh -c "! grep -q '[0-9A-F]\{12\}' '$TMP/out'"
check "M3: ... the message names the function" \
    grep -q "not authorized to use function: fts3_tokenizer" "$TMP/err"
exits "M3: the two-argument form (replace the pointer) is refused" 2 \
    "$DCUTOP" -q --sql "SELECT fts3_tokenizer('simple', x'4141414141414141')" "$V3"
exits "M3: ... and through a subquery" 2 \
    "$DCUTOP" -q --sql "SELECT (SELECT fts3_tokenizer('porter'))" "$V3"

# ------------------------------------------------------------------------------------- M4
# 400,000 rows of ~110 bytes: held whole, 87 MB; streamed, 6 MB
mem_kb() { # mem_kb CMD...: the peak RSS of CMD in KiB (its output goes to $TMP/out)
    python3 -c '
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=open("'"$TMP"'/out", "w"), stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"
}
kb=$(mem_kb "$DCUTOP" -q --sql "$(rows 400000)" --format csv "$V3")
same "M4: --sql streams: 400,000 rows written (csv)" 400001 "$(wc -l <"$TMP/out")"
# measured on the plain build: ASan's shadow and quarantine (over 300 MB here) say nothing
# about what the program holds
if [ -n "${DCUTOP_SANITIZED:-}" ] || grep -q __asan_init "$DCUTOP" 2>/dev/null; then
    echo "# M4 memory: measured in the plain pass"
else
    check "M4: ... in bounded memory (peak $kb KiB < 40000 KiB)" test "$kb" -lt 40000
fi
"$DCUTOP" -q --sql "$(rows 3000)" --format csv -o "$TMP/s.csv" "$V3"
same "M4: -o: every row, in order" "3000 3000" \
    "$(awk -F, 'NR > 1 { n++; if ($1 != n) bad = 1 } END { print n, bad ? 0 : n }' "$TMP/s.csv")"
"$DCUTOP" -q --sql "$(rows 2500)" --format json -o "$TMP/s.json" "$V3"
same "M4: json across blocks: one array of every row" "2500 2500" \
    "$(python3 -c "import json; a = json.load(open('$TMP/s.json')); print(len(a), a[-1]['x'])")"
"$DCUTOP" -q --sql "$(rows 2500)" -o "$TMP/s.txt" "$V3"
same "M4: text across blocks: header, rule, rows, count" "2503 (2500 rows)" \
    "$(wc -l <"$TMP/s.txt" | tr -d ' ') $(tail -1 "$TMP/s.txt")"
ENDLESS="WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c"
start=$(date +%s)
DCUTOP_SQL_BUDGET=2s,1G,4G exits "M4: a statement without end stops at its time budget" 2 \
    timeout 60 "$DCUTOP" -q --sql "$ENDLESS" --format csv -o "$TMP/endless.csv" "$V3"
check "M4: ... within a few seconds" test $(($(date +%s) - start)) -lt 30
check "M4: ... with a message that names the budget and how to change it" \
    grep -q "stopped: the statement ran past its time budget (2 s).*DCUTOP_SQL_BUDGET" "$TMP/err"
check "M4: ... and -o is not left half written" test ! -e "$TMP/endless.csv"
SORT="WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 2000000)
      SELECT count(*) FROM (SELECT x, randomblob(64) AS b FROM c ORDER BY b)"
DCUTOP_SQL_BUDGET=0,16M,0 exits "M4: a statement over its memory budget stops" 2 \
    "$DCUTOP" -q --db-memory 0 --sql "$SORT" "$V3"
check "M4: ... and says so" grep -q "needed more memory than its budget (16 MiB)" "$TMP/err"
DCUTOP_SQL_BUDGET=0,0,1M exits "M4: a statement over its temp-folder budget stops" 2 \
    env SQLITE_TMPDIR="$TMP" "$DCUTOP" -q --db-memory 1M --sql "$SORT" "$V3"
check "M4: ... and names the folder" grep -q "temporary files in $TMP grew past its budget (1 MiB)" "$TMP/err"
DCUTOP_SQL_BUDGET=fast exits "M4: a malformed DCUTOP_SQL_BUDGET is a usage error" 2 \
    "$DCUTOP" -q --sql "SELECT 1" "$V3"
DCUTOP_SQL_BUDGET=0,0,0 exits "M4: 0,0,0 lifts every bound" 0 "$DCUTOP" -q --sql "$(rows 10)" "$V3"
# the prompt pages: a window of 10,000 rows, the status line says which; Down past its last
# row loads the next window, Up before its first the previous one
printf ';%s<Enter>\n:dump window\n<End>\n:dump last\n<Down>\n:dump next\n<End><Down>\n:dump third\n<Home><Up>\n:dump back\n' \
    "$(rows 25000)" >"$TMP/w.keys"
"$DCUTOP" --headless --size 120x30 --keys "$TMP/w.keys" "$V3" >"$TMP/w.txt" 2>&1
dump() { sed -n "/^--- $1 /,/^--- /p" "$TMP/w.txt"; }
check "M4: the prompt keeps a window of rows and says how many were shown" \
    sh -c "sed -n '/^--- window /,/^--- /p' '$TMP/w.txt' | grep -q 'Rows 1-10000 shown; Down at the last row: the next ones'"
check "M4: ... End goes to its last row, 10000 of 10000" \
    sh -c "sed -n '/^--- last /,/^--- /p' '$TMP/w.txt' | grep -q '^10000/10000 '"
check "M4: ... Down there loads rows 10001-20000" sh -c \
    "sed -n '/^--- next /,/^--- /p' '$TMP/w.txt' | grep -q 'Rows 10001-20000 shown; Down at the last row: the next ones; Up at the first: the previous ones'"
same "M4: ... the window starts at row 10001" "10001" \
    "$(dump next | grep -oE '^ *[0-9]+ 0+[0-9]+' | head -1 | awk '{print $1}')"
check "M4: ... the last window ends at row 25000 and says nothing follows" sh -c \
    "sed -n '/^--- third /,/^--- /p' '$TMP/w.txt' | grep -q 'Rows 20001-25000 shown; Up at the first: the previous ones'"
check "M4: ... Up at the first row goes back a window" sh -c \
    "sed -n '/^--- back /,\$p' '$TMP/w.txt' | grep -q 'Rows 10001-20000 shown'"

# ------------------------------------------------------------------------------------ low
mkdir -p "$TMP/tmpdir"
exits "low: a temp folder out of room during a query (file-size limit)" 2 sh -c \
    "ulimit -f 256; trap '' XFSZ; SQLITE_TMPDIR='$TMP/tmpdir' exec '$DCUTOP' -q --db-memory 1M \
     --sql \"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 300000)
             SELECT count(*) FROM (SELECT x, randomblob(200) AS b FROM c ORDER BY b)\" '$V3'"
check "low: ... names the folder and what to do" \
    grep -q "temporary files in $TMP/tmpdir are out of room.*point SQLITE_TMPDIR or TMPDIR" "$TMP/err"
same "low: json_each works" "0:1 1:2" \
    "$("$DCUTOP" -q --sql "SELECT key || ':' || value FROM json_each('[1,2]')" --format csv "$V3" |
        sed 1d | tr '\n' ' ' | sed 's/ $//')"
same "low: dbstat works" "1" \
    "$("$DCUTOP" -q --sql "SELECT count(*) > 0 FROM dbstat" --format csv "$V3" | sed 1d)"
same "low: pragma_compile_options works" "1" \
    "$("$DCUTOP" -q --sql "SELECT count(*) > 0 FROM pragma_compile_options" --format csv "$V3" | sed 1d)"
exits "low: --roi 0..1ns: 0 needs no unit" 0 "$DCUTOP" -q --roi 0..1ns --sql "SELECT 1" "$V3"
exits "low: --roi 9223372036854775807ns.. is a time" 0 \
    "$DCUTOP" -q --roi 9223372036854775807ns.. --report --view hotspots "$V3"
exits "low: --roi ..9223372036854775808ns is past the longest time" 2 \
    "$DCUTOP" -q --roi ..9223372036854775808ns --report "$V3"
check "low: ... and says the range" grep -q "past the longest time, 9223372036854775807ns" "$TMP/err"
exits "low: --db-memory 2P is refused" 2 "$DCUTOP" -q --db-memory 2P --report "$V3"
check "low: ... with the real range" grep -q "a size from 1M to 1P" "$TMP/err"
exits "low: --db-memory 1P is in that range" 0 "$DCUTOP" -q --db-memory 1P --sql "SELECT 1" "$V3"
for g in 10us,20us, 10us,,20us ,10us; do
    exits "low: --gap-buckets $g: an empty bound is refused" 2 \
        "$DCUTOP" -q --gap-buckets "$g" --report "$V3"
    check "low: ... and named" grep -q "an empty bound in '$g'" "$TMP/err"
done
exits "low: --roi 0x10ms.. is not 16 ms" 2 "$DCUTOP" -q --roi 0x10ms.. --report "$V3"
exits "low: --gap-buckets 0x10us is not 16 us" 2 "$DCUTOP" -q --gap-buckets 0x10us --report "$V3"
mkdir -p "$TMP/hex"
printf '[{"ph": "X", "cat": "kernel", "name": "k_hex", "pid": 0, "tid": 1, "ts": "0x10", "dur": 1},\n{"ph": "X", "cat": "kernel", "name": "k_ok", "pid": 0, "tid": 1, "ts": 5, "dur": 2}]\n' \
    >"$TMP/hex/results.json"
same "low: JSON ts \"0x10\" is not a number: only k_ok loads" "k_ok" \
    "$("$DCUTOP" -q --sql "SELECT group_concat(kernel) FROM dispatches" --format csv "$TMP/hex" |
        sed 1d)"
"$DCUTOP" --sql "SELECT 1" "$TMP/hex" >/dev/null 2>"$TMP/hex.err"
check "low: ... and the load says why" grep -q "ts is not a number" "$TMP/hex.err"
mkdir -p "$TMP/steps"
printf 'step_ms\n12.5\n0x10\n13\n' >"$TMP/steps/steps.csv"
same "low: a step CSV's 0x10 is not 16 ms" '"2 25.5"' \
    "$("$DCUTOP" -q --sql "SELECT count(*) || ' ' || sum(ms) FROM step_time" --format csv \
        "$TMP/steps" "$V3" 2>/dev/null | sed 1d)"

# a 100 KB kernel name: the detail screen cuts it, its statistics stay on screen (and the
# breadcrumb that holds it is drawn at once)
mkdir -p "$TMP/long"
python3 - "$V3/kernel_trace.csv" "$TMP/long/kernel_trace.csv" <<'EOF'
import sys
head = open(sys.argv[1]).readline()
name = "void big_kernel<" + "x" * 100000 + ">(int)"
open(sys.argv[2], "w").write(head + '"KERNEL_DISPATCH",1,1,69,1,16,"%s",1451,1000,2000,0,0,64,1,1,1024,1024,1\n' % name)
EOF
printf '<Enter>\n<Enter>\n:dump detail\n' >"$TMP/long.keys"
timeout 30 "$DCUTOP" --headless --size 100x30 --keys "$TMP/long.keys" "$TMP/long/kernel_trace.csv" \
    >"$TMP/long.txt" 2>&1
same "low: 100 KB kernel name: the detail screen is drawn" 0 $?
check "low: ... the statistics stay on screen" sh -c \
    "grep -q '^  Calls  *1' '$TMP/long.txt' && grep -q '^  Average' '$TMP/long.txt'"
check "low: ... the name is cut and says how much was left out" \
    grep -q "more bytes (the whole name" "$TMP/long.txt"
