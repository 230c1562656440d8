#!/bin/sh
# test_sqlite_inputs.sh - hostile SQLite inputs (issue 9, point 5). A database is a program as
# much as data: before these fixes an 8 KB file whose "kernels" was a view over a recursive CTE
# or a cross join hung the load or ate gigabytes, a view named like a results.db table was
# read as one, and a WAL-mode database left -wal and -shm files in the trace folder.
# Every run is under `timeout` and a memory cap (ulimit -v, in KiB).
. tests/cli/lib.sh
XDG_CONFIG_HOME=$TMP/xdg
export XDG_CONFIG_HOME
STATS=sample-traces/llamacpp-rocprof-v1-stats/results.stats.csv
RESULTS_DB=$REAL/llamacpp-rocprof-v1-stats/results.db

# capped DIR: --report under 30 s and 2 GB of address space; stdout/stderr in $TMP/cap.*
# (A sanitizer build reserves terabytes of shadow address space and cannot start under a
# ulimit -v: it runs with the time limit only.)
VCAP=2000000
# (probing a sanitizer build under the cap would itself leave a sanitizer report: ask first)
if [ -n "${DCUTOP_SANITIZED:-}" ] || grep -q __asan_init "$DCUTOP" 2>/dev/null; then
    VCAP=unlimited
else
    sh -c 'ulimit -v '$VCAP' && exec "$0" --version' "$DCUTOP" >/dev/null 2>&1 || VCAP=unlimited
fi
[ "$VCAP" = unlimited ] && echo "# $DCUTOP cannot run under ulimit -v (sanitizer build): time limit only"
capped() {
    (ulimit -v $VCAP && timeout 30 "$DCUTOP" --report "$@" >"$TMP/cap.out" 2>"$TMP/cap.err")
}
# kernel_ns ARGS...: kernel time of a JSON report
kernel_ns() {
    timeout 30 "$DCUTOP" --report --format json "$@" 2>/dev/null |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["totals"]["kernel_ns"])'
}
SHARED_SUM=$(sha256sum "$RESULTS_DB")
STATS_NS=$(python3 -c 'import csv, sys
print(sum(int(r["TotalDurationNs"]) for r in csv.DictReader(open(sys.argv[1]))))' "$STATS")

# a rocpd-looking database: the metadata view and a "kernels" view over FROM_SQL
ROCPD_COLS="'k' AS name, i AS dispatch_id, 0 AS agent_abs_index, 0 AS queue_id, 0 AS stream_id,
 1 AS pid, 1 AS tid, i AS corr_id, i AS start, i + 10 AS end, 1 AS grid_x, 1 AS grid_y,
 1 AS grid_z, 1 AS workgroup_x, 1 AS workgroup_y, 1 AS workgroup_z, 0 AS lds_size,
 0 AS scratch_size, 0 AS vgpr_count, 0 AS sgpr_count"
rocpd_db() {
    sqlite3 "$1" "CREATE VIEW rocpd_metadata AS SELECT 'schema_version' AS tag, '3' AS value;
        CREATE TABLE n(i); WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c
        LIMIT 100) INSERT INTO n SELECT i FROM c;
        CREATE VIEW kernels AS $2"
}

# ------------------------------------------------------------ views that never end
H=$TMP/hostile
mkdir -p "$H"
cp "$STATS" "$H/results.stats.csv"
sqlite3 "$H/results.db" "CREATE TABLE t(x); CREATE VIEW KERN AS WITH RECURSIVE c(i) AS
    (SELECT 1 UNION ALL SELECT i + 1 FROM c) SELECT 'k' AS KernelName, i AS BeginNs,
    i + 1 AS EndNs FROM c"
capped "$H"
same "results.db whose KERN is an endless view: the report finishes" 0 $?
check "... saying the view is not read" grep -q \
    'results.db: KERN is a view, not a table: not read' "$TMP/cap.err"
same "... the rest of the folder loads" "$STATS_NS" "$(kernel_ns "$H")"
rm "$H/results.db"

rocpd_db "$H/rec_results.db" "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c)
    SELECT $ROCPD_COLS FROM c"
capped "$H"
same "rocpd database whose kernels view is a recursive CTE: finishes" 0 $?
check "... with the read budget named in a message" grep -q \
    'rec_results.db: table kernels: over the read budget of [0-9]* SQLite steps' "$TMP/cap.err"
same "... the rest of the folder loads" "$STATS_NS" "$(kernel_ns "$H")"
rm "$H/rec_results.db"

rocpd_db "$H/silent_results.db" "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c)
    SELECT $ROCPD_COLS FROM c WHERE i < 0"
capped "$H"
same "a recursive view that yields no row at all: finishes" 0 $?
check "... over the budget" grep -q 'silent_results.db: table kernels: over the read budget' \
    "$TMP/cap.err"
rm "$H/silent_results.db"

rocpd_db "$H/cross_results.db" "SELECT $ROCPD_COLS FROM (SELECT a.i * 100000000 + b.i * 1000000
    + c.i * 10000 + d.i * 100 + e.i AS i FROM n a, n b, n c, n d, n e)"
capped "$H"
same "a cross join of 10^10 rows in 8 KB: finishes within the memory cap" 0 $?
check "... over the budget" grep -q 'cross_results.db: table kernels: over the read budget' \
    "$TMP/cap.err"
same "... the rest of the folder loads" "$STATS_NS" "$(kernel_ns "$H")"
rm "$H/cross_results.db"

# 10,000 rows are cheap to sort, but no 8 KB file holds 10,000 rows: the row cap stops it
rocpd_db "$H/rows_results.db" "SELECT $ROCPD_COLS FROM (SELECT a.i * 100 + b.i AS i FROM n a, n b)"
BYTES=$(wc -c <"$H/rows_results.db")
capped "$H"
same "a view with more rows than its file can hold: finishes" 0 $?
check "... stopped by the row cap, with the reason" grep -q \
    "rows_results.db: table kernels: more rows than a $BYTES-byte database can hold" "$TMP/cap.err"
rm "$H/rows_results.db"

# a string longer than the length cap is refused, not allocated
BIG_COLS=$(echo "$ROCPD_COLS" | sed "s/'k' AS name/hex(zeroblob(20000000)) AS name/")
rocpd_db "$H/big_results.db" "SELECT $BIG_COLS FROM n"
capped "$H"
same "a view that makes a 40 MB name: finishes" 0 $?
check "... refused by the length cap" grep -q 'big_results.db: table kernels: .*too big' \
    "$TMP/cap.err"
rm "$H/big_results.db"

# ------------------------------------------------------------ immutable: WAL, read-only folder
W=$TMP/wal
mkdir -p "$W"
cp "$RESULTS_DB" "$W/results.db"
sqlite3 "$W/results.db" "PRAGMA journal_mode=WAL;" >/dev/null
same "the copy is a WAL-mode database" 2 "$(od -A n -t u1 -j 18 -N 1 "$W/results.db" | tr -d ' ')"
SUM=$(sha256sum "$W/results.db")
chmod 555 "$W"
EXP=$(kernel_ns "$RESULTS_DB")
same "a WAL-mode database in a read-only folder loads, figures unchanged" "$EXP" \
    "$(kernel_ns "$W")"
timeout 30 "$DCUTOP" --report "$W" >/dev/null 2>&1
same "... no -wal or -shm file left behind" "results.db" "$(ls "$W")"
same "... its bytes unchanged" "$SUM" "$(sha256sum "$W/results.db")"
chmod 755 "$W"

# a folder name with URI characters: %, ?, # are escaped in the file: URI
U="$TMP/we%25ird?mode=rw#frag"
mkdir -p "$U"
cp "$RESULTS_DB" "$U/results.db"
same "a database under a folder named with % ? #: loads" "$EXP" "$(kernel_ns "$U")"
same "... left as it was" "results.db" "$(ls "$U")"
same "the shared sample database read directly is byte-identical" "$SHARED_SUM" \
    "$(sha256sum "$RESULTS_DB")"
