#!/bin/sh
# test_hostile_inputs.sh - hostile inputs met while loading (issue 26, second hardening pass):
# each case by its letter. Every file is written here, in $TMP; inputs are checked unchanged.
. tests/cli/lib.sh

REAL=tests/data/real

# ---------------------------------------------------------------- H1: deep JSON nesting
# {"step_ms_events":[1],"x": then 10^6 '[' and 10^6 ']': a stack overflow in a recursive tree
# free on main. Every JSON input stops at the documented depth (128) with a message.
mkdir -p "$TMP/h1" "$TMP/h1k"
python3 -c '
import sys
open(sys.argv[1], "w").write("{\"step_ms_events\":[1],\"x\":" + "[" * 10**6 + "]" * 10**6 + "}")
open(sys.argv[2], "w").write("{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k_ok\", \"pid\": 0, \"tid\": 1, \"ts\": 1, \"dur\": 5},"
    + "{\"args\": " + "[" * 10**6 + "]" * 10**6 + "}]}")
' "$TMP/h1/step-times.json" "$TMP/h1k/trace.json"
"$DCUTOP" --report --view files "$TMP/h1" >"$TMP/h1.out" 2>"$TMP/h1.err"
rc=$?
if [ $rc -lt 128 ]; then ok "H1: 10^6 nested '[' in step-times.json: no crash (exit $rc)"; else notok "H1: 10^6 nested '[' in step-times.json: no crash (exit $rc)"; fi
check "H1: the step file names the depth limit and the byte" \
    grep -q "h1/step-times.json: step times JSON that cannot be read: JSON nested deeper than 128 levels at byte 153 (line 1)" "$TMP/h1.err"
"$DCUTOP" --export hotspots "$TMP/h1k" >"$TMP/h1k.csv" 2>"$TMP/h1k.err"
rc=$?
same "H1: 10^6 nested '[' in a Kineto trace: exit 0, the event before it loads" "0 \"k_ok\"" \
    "$rc $(awk -F, 'NR > 1 { print $1 }' "$TMP/h1k.csv")"
check "H1: the Kineto trace names the depth limit" \
    grep -q "h1k/trace.json: JSON nested deeper than 128 levels at byte [0-9]* (line 1): reading stopped" "$TMP/h1k.err"
# 128 levels are read: a list nested 126 deep inside the top object and the step list
mkdir -p "$TMP/h1ok"
python3 -c '
import sys
open(sys.argv[1], "w").write("{\"step_ms_events\":[1,2],\"x\":" + "[" * 127 + "]" * 127 + "}")
' "$TMP/h1ok/step-times.json"
"$DCUTOP" --report --view files "$TMP/h1ok" >"$TMP/h1ok.out" 2>&1
check "H1: 128 levels still load (2 steps)" grep -q "step-times.json *step times (JSON) *steps *2 *0 *used" "$TMP/h1ok.out"

# ---------------------------------------------------------------- H2: a database with its -wal
# A WAL-mode RPD copied with its -wal while the writer had it open: the committed delete of
# all but a few ops lives in the -wal alone. SQLite sees those few; dcutop must too.
mkdir -p "$TMP/h2" "$TMP/h2work"
cp "$REAL/rpd-matmul/matmul_result.rpd" "$TMP/h2work/w.rpd"
python3 - "$TMP/h2work/w.rpd" "$TMP/h2/w.rpd" <<'PY'
import shutil, sqlite3, sys
src, dst = sys.argv[1], sys.argv[2]
c = sqlite3.connect(src)
c.execute("PRAGMA journal_mode=WAL")
c.execute("PRAGMA wal_autocheckpoint=0")
c.execute("DELETE FROM rocpd_op WHERE id NOT IN (SELECT id FROM rocpd_op ORDER BY id LIMIT 12)")
c.commit()
shutil.copy(src, dst)
shutil.copy(src + "-wal", dst + "-wal")
shutil.copy(src + "-shm", dst + "-shm")
PY
sums_h2=$(cat "$TMP/h2/w.rpd" "$TMP/h2/w.rpd-wal" "$TMP/h2/w.rpd-shm" | cksum)
mkdir -p "$TMP/h2sq" && cp "$TMP/h2/w.rpd" "$TMP/h2/w.rpd-wal" "$TMP/h2sq/"
want=$(python3 -c '
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
print(c.execute("SELECT count(*) FROM rocpd_op o JOIN rocpd_string t ON t.id = o.opType_id WHERE t.string IN (\"KernelExecution\", \"Task\")").fetchone()[0])
' "$TMP/h2sq/w.rpd")
"$DCUTOP" --sql "SELECT count(*) FROM dispatch" "$TMP/h2" >"$TMP/h2.out" 2>"$TMP/h2.err"
same "H2: dispatches read through the -wal equal what SQLite sees ($want)" "$want" "$(sed -n 3p "$TMP/h2.out" | tr -dc 0-9)"
"$DCUTOP" --report --view files "$TMP/h2" >"$TMP/h2f.out" 2>&1
check "H2: the -wal is part of the database in the Files list, not a binary file" \
    grep -q "w.rpd-wal *part of a SQLite database .*the -wal file of w.rpd" "$TMP/h2f.out"
check "H2: the -shm too" grep -q "w.rpd-shm *part of a SQLite database" "$TMP/h2f.out"
same "H2: no file says binary" "" "$(grep 'binary file' "$TMP/h2f.out")"
same "H2: inputs unchanged, nothing left beside them" "$sums_h2 3" \
    "$(cat "$TMP/h2/w.rpd" "$TMP/h2/w.rpd-wal" "$TMP/h2/w.rpd-shm" | cksum) $(ls "$TMP/h2" | wc -l)"
# the copy cannot be made (TMPDIR not a folder): a warning that rows may be missing
TMPDIR="$TMP/nowhere" "$DCUTOP" --report --view files "$TMP/h2" >/dev/null 2>"$TMP/h2w.err"
check "H2: no private copy possible: a warning naming the file" \
    grep -q "h2/w.rpd: has a -wal file of [0-9]* bytes that could not be read (.*): committed rows may be missing" "$TMP/h2w.err"

# ---------------------------------------------------------------- M7: a step CSV over 64 MiB
# main read the first 64 MiB and cut the last step mid-number, without a word. Every line
# loads: 280,000 steps of 244 bytes (the number padded with blanks) = 68 MB.
mkdir -p "$TMP/m7"
awk 'BEGIN { pad = sprintf("%240s", ""); print "step_ms"; for (i = 0; i < 280000; i++) printf "1.5%s\n", pad }' \
    >"$TMP/m7/steps.csv"
"$DCUTOP" --report --view files "$TMP/m7" >"$TMP/m7.out" 2>&1
check "M7: all 280000 steps of a 68 MB step CSV load, none rejected" \
    grep -q "steps.csv *step times (CSV) *steps *280000 *0 *used" "$TMP/m7.out"
rm -f "$TMP/m7/steps.csv"
printf 'step_ms\n1.5\n%0300d\n2.5\n' 1 >"$TMP/m7/steps.csv"
"$DCUTOP" --report --view files "$TMP/m7" >"$TMP/m7b.out" 2>&1
check "M7: a line too long to be a step is named by file and line" \
    grep -q "m7/steps.csv:3: line of 300 bytes: not a step time in ms" "$TMP/m7b.out"
check "M7: the steps around it load" grep -q "steps.csv *step times (CSV) *steps *2 *1 *used" "$TMP/m7b.out"

# ---------------------------------------------------------------- M9: absurd step times
mkdir -p "$TMP/m9a" "$TMP/m9b" "$TMP/m9c"
printf '{"step_ms_events": [1e308, 1e308, 2.0]}' >"$TMP/m9a/step-times.json"
printf '{"step_ms_events": [1.0, 2.0, 3.0]}' >"$TMP/m9b/step-times.json"
printf 'step_ms\n1e308\n2.0\n9007199254.75\n' >"$TMP/m9c/steps.csv"
"$DCUTOP" --diff "$TMP/m9a" "$TMP/m9b" >"$TMP/m9d.out" 2>"$TMP/m9d.err"
check "M9: a step of 1e308 ms is rejected by the 2^53 rule, naming the file and element" \
    grep -q "m9a/step-times.json: element 0 of the step list: 1e+308 ms is out of range (over 2^53 ns, 104 days)" "$TMP/m9d.err"
check "M9: --diff compares the sane steps (2 ms -> 2 ms)" grep -q "Step time (median)  2 ms -> 2 ms" "$TMP/m9d.out"
same "M9: --diff prints no inf, nan or 60-digit number" "" \
    "$(grep -Ei 'inf |nan|[0-9]{20}' "$TMP/m9d.out")"
"$DCUTOP" --report --view files "$TMP/m9c" >"$TMP/m9c.out" 2>&1
check "M9: a step CSV row over 2^53 ns is named by file and line" \
    grep -q "m9c/steps.csv:2: step time 1e+308 ms is out of range (over 2^53 ns, 104 days)" "$TMP/m9c.out"
check "M9: 2^53 ns + a little is out too" grep -q "m9c/steps.csv:4: step time 9.0072e+09 ms is out of range" "$TMP/m9c.out"

# ---------------------------------------------------------------- M8: duplicate rocpd_string ids
# rocpd_string rebuilt without its key and every string held three times: main turned each
# op into up to 9 dispatches (two joins on the string table), silently.
mkdir -p "$TMP/m8"
cp "$REAL/rpd-matmul/matmul_result.rpd" "$TMP/m8/dup.rpd"
python3 - "$TMP/m8/dup.rpd" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
for (v,) in c.execute("SELECT name FROM sqlite_master WHERE type = 'view'").fetchall():
    c.execute('DROP VIEW "%s"' % v)
c.executescript("""
CREATE TABLE s2 (id integer, string varchar(4096));
INSERT INTO s2 SELECT id, string FROM rocpd_string;
INSERT INTO s2 SELECT id, string FROM rocpd_string;
INSERT INTO s2 SELECT id, string FROM rocpd_string;
DROP TABLE rocpd_string;
ALTER TABLE s2 RENAME TO rocpd_string;
""")
c.commit()
PY
want=$("$DCUTOP" --sql "SELECT count(*) FROM dispatch" "$REAL/rpd-matmul/matmul_result.rpd" 2>/dev/null | sed -n 3p | tr -dc 0-9)
"$DCUTOP" --sql "SELECT count(*) FROM dispatch" "$TMP/m8/dup.rpd" >"$TMP/m8.out" 2>"$TMP/m8.err"
same "M8: duplicate string ids: each op is one dispatch ($want, as without duplicates)" "$want" \
    "$(sed -n 3p "$TMP/m8.out" | tr -dc 0-9)"
check "M8: the duplicate ids are named in a message" \
    grep -q "m8/dup.rpd: RPD: table rocpd_string holds [0-9]* ids more than once (the first: id [0-9]*): each op takes the first string of its id, once" "$TMP/m8.err"

# ---------------------------------------------------------------- Low: one 17 MB string in an RPD
# main lost the whole op table ("after 0 rows"); now only that op is left out, by its id.
mkdir -p "$TMP/low"
cp "$REAL/rpd-matmul/matmul_result.rpd" "$TMP/low/big.rpd"
oid=$(python3 - "$TMP/low/big.rpd" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
oid = c.execute("SELECT o.id FROM rocpd_op o JOIN rocpd_string t ON t.id = o.opType_id"
                " WHERE t.string = 'KernelExecution' ORDER BY o.id LIMIT 1").fetchone()[0]
c.execute("INSERT INTO rocpd_string(string) VALUES (?)", ("k" * (17 << 20),))
c.execute("UPDATE rocpd_op SET description_id = (SELECT max(id) FROM rocpd_string) WHERE id = ?", (oid,))
c.commit()
print(oid)
PY
)
"$DCUTOP" --sql "SELECT count(*) FROM dispatch" "$TMP/low" >"$TMP/low.out" 2>"$TMP/low.err"
same "Low: a 17 MB string costs its op alone ($want - 1 dispatches)" "$((want - 1))" \
    "$(sed -n 3p "$TMP/low.out" | tr -dc 0-9)"
check "Low: the op is named by file, table and id" \
    grep -q "low/big.rpd: table rocpd_op id $oid: description_id (rocpd_string id [0-9]*): string longer than the 16 MiB a value may hold: row not read" "$TMP/low.err"

# ---------------------------------------------------------------- M1, M2: the SQLite read budget
ROCPD_COLS="i AS dispatch_id, 0 AS agent_abs_index, 0 AS queue_id, 0 AS stream_id, 1 AS pid,
 1 AS tid, i AS corr_id, i AS start, i + 10 AS end, 1 AS grid_x, 1 AS grid_y, 1 AS grid_z,
 1 AS workgroup_x, 1 AS workgroup_y, 1 AS workgroup_z, 0 AS lds_size, 0 AS scratch_size,
 0 AS vgpr_count, 0 AS sgpr_count"
rocpd_db() {
    python3 - "$1" "$2" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.executescript("CREATE VIEW rocpd_metadata AS SELECT 'schema_version' AS tag, '3' AS value;"
                "CREATE VIEW kernels AS " + sys.argv[2])
c.close()
PY
}
# M1: 40 distinct names of 16 MB from an 8 KB file: main sorted them in a temporary file
# (640 MB; 5.4 GB when the view never ends) and died here of the file size limit (SIGXFSZ).
# Names computed by a view are now cut to 1 MiB in the query and sorts stay in memory:
# nothing is written.
mkdir -p "$TMP/m1" "$TMP/m1tmp"
rocpd_db "$TMP/m1/a_results.db" "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c
    LIMIT 40) SELECT printf('%d', i) || hex(zeroblob(8000000)) AS name, $ROCPD_COLS FROM c"
(ulimit -f 20000; TMPDIR="$TMP/m1tmp" SQLITE_TMPDIR="$TMP/m1tmp" timeout 120 "$DCUTOP" \
    --sql "SELECT count(*), max(length(k.name)) FROM dispatch d JOIN kernel k ON k.id = d.kernel_id" \
    "$TMP/m1" >"$TMP/m1.out" 2>"$TMP/m1.err")
same "M1: 40 names of 16 MB: load under a 20 MB file size limit (nothing written to TMPDIR)" \
    "0 40|1048576" "$? $(sed -n 3p "$TMP/m1.out" | tr -s ' ' | sed 's/^ //; s/ /|/')"
check "M1: the cut is said, naming the file" \
    grep -q "m1/a_results.db: 40 names or texts longer than 1048576 bytes cut to that length" "$TMP/m1.err"
same "M1: nothing left in TMPDIR" "" "$(ls -A "$TMP/m1tmp")"

# M2: the budget's base (10^7 SQLite steps, 30 s) is shared by the whole load: 4 endless views
# cost it once. main gave each file the whole base again.
mkdir -p "$TMP/m2"
for k in 1 2 3 4; do
    rocpd_db "$TMP/m2/r${k}_results.db" "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL
        SELECT i + 1 FROM c) SELECT 'k' AS name, $ROCPD_COLS FROM c WHERE i < 0"
done
timeout 120 "$DCUTOP" --report "$TMP/m2" >/dev/null 2>"$TMP/m2.err"
same "M2: 4 endless views: each stopped by the budget, named" 4 \
    "$(grep -c 'r[1-4]_results.db: table kernels: over the read budget of [0-9]* SQLite steps' "$TMP/m2.err")"
budgets=$(sed -n 's/.*over the read budget of \([0-9]*\) SQLite steps.*/\1/p' "$TMP/m2.err" |
    awk '{ t += $1 } END { print t + 0 }')
check "M2: the 4 budgets add up to one base and 4 shares (<= 10^7 + 4 x 100 x 8 KB), not 4 bases ($budgets)" \
    test "$budgets" -le $((10000000 + 4 * 100 * 8192))

# ---------------------------------------------------------------- M9: --abba with absurd steps
# main: "effect -inf ms (-nan%) ... TRUSTED" for steps of 1e308 ms, and "+nan%" for the device
# kernel time of runs without kernels. The absurd steps are rejected; a layer missing from a
# run is left out of the comparison.
mkdir -p "$TMP/m9ab"
for r in a1 b1 b2 a2; do
    mkdir -p "$TMP/m9ab/$r"
    printf '{"step_ms_events": [1.0, 2.0, 3.0]}' >"$TMP/m9ab/$r/step-times.json"
done
printf '{"step_ms_events": [1e308, 2.0, 1e308, 1e308]}' >"$TMP/m9ab/b1/step-times.json"
"$DCUTOP" --abba "$TMP/m9ab/a1" "$TMP/m9ab/b1" "$TMP/m9ab/b2" "$TMP/m9ab/a2" >"$TMP/m9ab.out" 2>"$TMP/m9ab.err"
same "M9: --abba prints no inf or nan" "" "$(grep -Ei 'inf |nan' "$TMP/m9ab.out")"
check "M9: --abba judges the sane step times (median 2 ms everywhere)" \
    grep -q "step time (median) *effect +0 ms (+0.00%), drift +0 ms (+0.00%)" "$TMP/m9ab.out"
same "M9: --abba leaves out device kernel time when the runs have none" "" \
    "$(grep 'device kernel time *effect' "$TMP/m9ab.out")"
check "M9: ... and the notes say why" grep -q "run .*m9ab/a1 has no device kernel times" "$TMP/m9ab.out"
