#!/bin/sh
# test_sql.sh - --sql over the stable views (SCHEMA.md): every view against an independent
# count of the real samples (python3 reads the files), the output against the sqlite3 CLI on
# the --save-db file, --format and -o, SQL errors (exit 2), the read-only authorizer, and
# cancelling a slow query with SIGINT.
. tests/cli/lib.sh
. tests/cli/csvlib.inc
XDG_CONFIG_HOME=$TMP/xdg
export XDG_CONFIG_HOME

V3=$(sample rocprofv3-sdk-docs-csv)
LLAMA=$(sample llamacpp-rocprof-v1-stats)
CLIMATE=$(sample pytorch-h200-climate-transformer)
ABBA=$REAL/pytorch-h200-abba-sdpa

# q PATH SQL: the one value of a one-cell query (csv, header dropped)
q() {
    "$DCUTOP" -q --sql "$2" --format csv "$1" | sed -n '2p' | tr -d '\r'
}
# py EXPR...: python3 prints the value of the script on stdin
rows() { # rows CSVFILE [PYCOND on dict r]: data rows of a CSV, optionally filtered
    python3 - "$1" "${2:-True}" <<'EOF'
import csv, sys
with open(sys.argv[1], newline='') as f:
    print(sum(1 for r in csv.DictReader(f) if eval(sys.argv[2])))
EOF
}

# ------------------------------------------------------------ every view, counted apart
same "dispatches = kernel_trace.csv rows" "$(rows "$V3/kernel_trace.csv")" \
    "$(q "$V3" 'SELECT count(*) FROM dispatches')"
same "dispatches (llama.cpp: results.csv used, .db/.json superseded) = results.csv rows" \
    "$(rows "$LLAMA/results.csv")" "$(q "$LLAMA" 'SELECT count(*) FROM dispatches')"
same "dispatches: summed dur_ns = kernel_trace.csv End - Start" \
    "$(python3 -c "
import csv
print(sum(int(r['End_Timestamp']) - int(r['Start_Timestamp'])
          for r in csv.DictReader(open('$V3/kernel_trace.csv'))))")" \
    "$(q "$V3" 'SELECT sum(dur_ns) FROM dispatches')"
same "dispatches: the first starts at 0 when kernels come first in the run" \
    "0" "$(q "$LLAMA" 'SELECT min(start_ns) FROM dispatches')"
same "kernels = distinct Kernel_Name of kernel_trace.csv" \
    "$(python3 -c "
import csv
print(len({r['Kernel_Name'] for r in csv.DictReader(open('$V3/kernel_trace.csv'))}))")" \
    "$(q "$V3" 'SELECT count(*) FROM kernels')"
same "kernels: summed calls = dispatches" "$(rows "$LLAMA/results.csv")" \
    "$(q "$LLAMA" 'SELECT sum(calls) FROM kernels')"
same "kernels: shares add up to 100%" "100.0" \
    "$(q "$LLAMA" 'SELECT round(sum(share_pct), 6) FROM kernels')"
same "kernels: ceiling = 1/(1-share)" "0" \
    "$(q "$LLAMA" 'SELECT count(*) FROM kernels WHERE abs(ceiling - 1/(1 - share_pct/100.0)) > 1e-9')"
n_api=$(($(rows "$V3/hip_runtime_trace.csv") + $(rows "$V3/hsa_api_trace.csv") + \
    $(rows "$V3/hip_compile_trace.csv")))
same "api_calls = rows of the three API trace files" "$n_api" \
    "$(q "$V3" 'SELECT count(*) FROM api_calls')"
same "copies = memory_copy_trace.csv rows" "$(rows "$V3/memory_copy_trace.csv")" \
    "$(q "$V3" 'SELECT count(*) FROM copies')"
same "ranges = marker rows with End > Start (marks are not ranges)" \
    "$(rows "$V3/marker_api_trace.csv" "int(r['End_Timestamp']) > int(r['Start_Timestamp'])")" \
    "$(q "$V3" 'SELECT count(*) FROM ranges')"
same "stack_paths = lines of the two folded stack files" \
    "$(cat "$CLIMATE"/*.stacks.txt | grep -c .)" \
    "$(q "$CLIMATE" 'SELECT count(*) FROM stack_paths')"
same "stack_paths: a path is the folded line's frames" \
    "$(head -1 "$CLIMATE/climate_infer.stacks.txt" | sed 's/ [0-9]*$//')" \
    "$(q "$CLIMATE" "SELECT path FROM stack_paths WHERE line = 1 ORDER BY file_id LIMIT 1" |
        sed 's/^"//; s/"$//')"
same "files = files under the folder" "$(find "$V3" -type f | grep -c .)" \
    "$(q "$V3" 'SELECT count(*) FROM files')"
same "files: one used file per layer in llama.cpp (results.csv)" "results.csv" \
    "$(q "$LLAMA" 'SELECT group_concat(name) FROM files WHERE used')"
same "runs = folders holding a trace (one run each)" \
    "$(find "$ABBA" -name '*.trace.json.gz' -exec dirname {} \; | sort -u | grep -c .)" \
    "$(q "$ABBA" 'SELECT count(*) FROM runs')"
same "runs: dispatches per run = each run's trace (A1 kernel events)" \
    "$(python3 -c "
import gzip, json
t = json.load(gzip.open('$ABBA/A1/A1.trace.json.gz'))
print(sum(1 for e in t['traceEvents'] if e.get('cat') == 'kernel' and e.get('ph') == 'X'))")" \
    "$(q "$ABBA" "SELECT dispatches FROM runs WHERE label = 'A1'")"
same "categories: summed total_ns = summed kernel time" \
    "$(q "$LLAMA" 'SELECT sum(total_ns) FROM kernels')" \
    "$(q "$LLAMA" 'SELECT sum(total_ns) FROM categories')"
same "categories = the categories of --dump-rules, and other" \
    "$({ "$DCUTOP" --dump-rules | awk '$1 !~ /^#/ && NF >= 2 { print $1 }'; echo other; } |
        sort -u | tr '\n' ' ')" \
    "$("$DCUTOP" -q --sql 'SELECT name FROM categories ORDER BY name' --format csv "$LLAMA" |
        sed 1d | tr -d '\r' | tr '\n' ' ')"
same "categories: one row each" \
    "$({ "$DCUTOP" --dump-rules | awk '$1 !~ /^#/ && NF >= 2 { print $1 }'; echo other; } |
        sort -u | grep -c .)" \
    "$(q "$LLAMA" 'SELECT count(*) FROM categories')"
same ".schema lists the nine views" "runs files kernels dispatches api_calls copies ranges stack_paths categories" \
    "$("$DCUTOP" -q --sql .schema --format csv "$V3" | awk -F, 'NR > 1 && !s[$1]++ { printf "%s%s", n++ ? " " : "", $1 }')"

# ------------------------------------------------------------ the same as the sqlite3 CLI
"$DCUTOP" -q --save-db "$TMP/llama.db" "$LLAMA"
"$DCUTOP" -q --sql .ddl "$LLAMA" >"$TMP/views.sql"
# internal tables, then the views (their DDL run in the sqlite3 CLI), with text, NULLs, reals
for sql in \
    "SELECT k.name, count(*), sum(d.dur_ns), avg(d.dur_ns) FROM dispatch d JOIN kernel k ON k.id = d.kernel_id GROUP BY k.name ORDER BY 3 DESC" \
    "SELECT * FROM source_file ORDER BY id" \
    "SELECT * FROM kernels ORDER BY total_ns DESC, name" \
    "SELECT * FROM dispatches ORDER BY id LIMIT 200" \
    "SELECT * FROM files" \
    "SELECT * FROM categories ORDER BY name"; do
    "$DCUTOP" -q --sql "$sql" --format csv "$LLAMA" >"$TMP/ours.csv"
    sqlite3 -batch -init /dev/null -csv -header "$TMP/llama.db" ".read $TMP/views.sql" "$sql" \
        >"$TMP/theirs.csv"
    if [ -s "$TMP/theirs.csv" ] && cmp -s "$TMP/theirs.csv" "$TMP/ours.csv"; then
        ok "--sql --format csv = sqlite3 -csv -header on --save-db: $(echo "$sql" | cut -c1-50)"
    else
        notok "--sql --format csv = sqlite3 -csv -header on --save-db: $sql"
        diff "$TMP/theirs.csv" "$TMP/ours.csv" | head -5
    fi
done
same "--save-db holds no view of ours (they are TEMP)" "0" \
    "$(sqlite3 "$TMP/llama.db" "SELECT count(*) FROM sqlite_master WHERE name IN ('kernels', 'dispatches', 'runs')")"

# ------------------------------------------------------------ formats, -o
"$DCUTOP" -q --sql "SELECT name, calls, avg_ns, NULL AS missing FROM kernels ORDER BY total_ns DESC LIMIT 3" \
    --format json "$LLAMA" >"$TMP/k.json"
same "--format json: objects with numbers as numbers and null" "3 int float None" \
    "$(python3 -c "
import json; d = json.load(open('$TMP/k.json'))
print(len(d), type(d[0]['calls']).__name__, type(d[0]['avg_ns']).__name__, d[0]['missing'])")"
"$DCUTOP" -q --sql "SELECT name, calls FROM kernels ORDER BY total_ns DESC LIMIT 2" "$LLAMA" \
    >"$TMP/k.txt"
same "--format text: header, rule, rows, count" "5 (2 rows)" \
    "$(awk 'END { print NR, $0 }' "$TMP/k.txt")"
"$DCUTOP" -q --sql "SELECT count(*) AS n FROM dispatches" --format csv -o "$TMP/o.csv" "$LLAMA"
same "-o writes the file" "n $(rows "$LLAMA/results.csv")" "$(tr '\n' ' ' <"$TMP/o.csv" | sed 's/ $//')"
exits "-o refuses an existing file without --force (exit 2)" 2 \
    "$DCUTOP" -q --sql "SELECT 1" -o "$TMP/o.csv" "$LLAMA"
exits "-o --force replaces it" 0 "$DCUTOP" -q --sql "SELECT 2" --force -o "$TMP/o.csv" "$LLAMA"

# ------------------------------------------------------------ errors: exit 2, SQLite's message
exits "an SQL error exits 2" 2 "$DCUTOP" -q --sql "SELECT * FROM nope" "$V3"
check "... with SQLite's message" grep -q "no such table: nope" "$TMP/err"
exits "a syntax error exits 2" 2 "$DCUTOP" -q --sql "SELEC 1" "$V3"
check "... with SQLite's message" grep -q 'near "SELEC": syntax error' "$TMP/err"
exits "two statements are refused" 2 "$DCUTOP" -q --sql "SELECT 1; SELECT 2" "$V3"
exits "a trailing comment is fine" 0 "$DCUTOP" -q --sql "SELECT 1; -- done" "$V3"

# ------------------------------------------------------------ the authorizer
for sql in \
    "DELETE FROM dispatch" \
    "UPDATE kernel SET name = 'x'" \
    "INSERT INTO meta VALUES('a', 'b')" \
    "DROP TABLE dispatch" \
    "DROP VIEW kernels" \
    "CREATE TABLE t(x)" \
    "CREATE TEMP VIEW v AS SELECT 1" \
    "ALTER TABLE kernel ADD COLUMN y" \
    "ATTACH DATABASE '$TMP/other.db' AS o" \
    "DETACH DATABASE temp" \
    "SELECT load_extension('$TMP/nothing.so')" \
    "PRAGMA user_version = 7" \
    "PRAGMA writable_schema = 1" \
    "PRAGMA journal_mode = WAL" \
    "PRAGMA query_only = 0" \
    "BEGIN" \
    "VACUUM INTO '$TMP/copy.db'" \
    "REINDEX" \
    "ANALYZE"; do
    "$DCUTOP" -q --sql "$sql" "$V3" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    if [ "$rc" -eq 2 ] && grep -q "not authorized" "$TMP/err"; then
        ok "refused (exit 2): $sql"
    else
        notok "refused (exit 2): $sql"
        echo "#   exit $rc: $(cat "$TMP/err")"
    fi
done
check "ATTACH created nothing" test ! -e "$TMP/other.db"
check "VACUUM INTO wrote nothing" test ! -e "$TMP/copy.db"
exits "a read-only pragma is allowed: table_info" 0 \
    "$DCUTOP" -q --sql "PRAGMA table_info(dispatches)" "$V3"
check "... and lists the columns" grep -q "dur_ns" "$TMP/out"
exits "reading user_version is allowed" 0 "$DCUTOP" -q --sql "PRAGMA user_version" "$V3"

# ------------------------------------------------------------ cancelling
# an endless recursive query; SIGINT after a moment must stop it promptly, with a message
"$DCUTOP" -q --sql "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)
    SELECT count(*) FROM c" "$V3" >"$TMP/out" 2>"$TMP/err" &
pid=$!
sleep 1
kill -INT "$pid"
# the query never ends by itself: a pass needs the interrupt to work
i=0
while kill -0 "$pid" 2>/dev/null && [ "$i" -lt 100 ]; do
    sleep 0.1
    i=$((i + 1))
done
if kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid"
    notok "SIGINT stops a running --sql query within 10 s"
else
    wait "$pid"
    rc=$?
    same "SIGINT stops a running --sql query: exit 1" 1 "$rc"
    check "... saying it was interrupted" grep -q "interrupted" "$TMP/err"
fi

# ------------------------------------------------------------ the ; prompt's history file
mkdir -p "$TMP/state" "$TMP/keys"
printf ';SELECT count(*) FROM dispatches<Enter>\n;SELECT 42 AS answer<Enter>\n' >"$TMP/keys/a.keys"
XDG_STATE_HOME="$TMP/state" "$DCUTOP" --headless --size 100x30 --keys "$TMP/keys/a.keys" "$V3" \
    >/dev/null 2>&1
same "queries go to \$XDG_STATE_HOME/dcutop/sql_history, one a line" \
    "SELECT count(*) FROM dispatches|SELECT 42 AS answer" \
    "$(tr '\n' '|' <"$TMP/state/dcutop/sql_history" | sed 's/|$//')"
printf ';<Up><Up>\n:dump recalled\n' >"$TMP/keys/b.keys"
XDG_STATE_HOME="$TMP/state" "$DCUTOP" --headless --size 100x30 --keys "$TMP/keys/b.keys" "$V3" \
    >"$TMP/b.out" 2>&1
check "a later session recalls them with Up (two Ups: the older one)" \
    grep -q "^SQL: SELECT count(\*) FROM dispatches" "$TMP/b.out"

# ------------------------------------------------------------ e on an SQL result
KQ="SELECT name, calls, total_ns FROM kernels ORDER BY total_ns DESC"
printf ';%s<Enter>\ne<C-u>%s<Enter>\n:dump exported\n' "$KQ" "$TMP/sqlx.csv" >"$TMP/keys/e.keys"
XDG_STATE_HOME="$TMP/state" "$DCUTOP" --headless --size 100x30 --keys "$TMP/keys/e.keys" "$LLAMA" \
    >"$TMP/e.out" 2>&1
"$DCUTOP" -q --sql "$KQ" --format csv "$LLAMA" >"$TMP/sqlq.csv"
same "e exports the SQL result: the same rows as --sql" "equal" \
    "$(python3 -c "
import csv
a = list(csv.reader(open('$TMP/sqlx.csv', newline='')))
b = list(csv.reader(open('$TMP/sqlq.csv', newline='')))
print('equal' if a == b and len(a) > 2 else 'differ: %d vs %d rows' % (len(a), len(b)))")"
