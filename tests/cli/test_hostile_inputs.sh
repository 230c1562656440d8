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
