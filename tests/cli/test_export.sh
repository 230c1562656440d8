#!/bin/sh
# test_export.sh - --export: round trip (export, reload the CSV alone, export again), --filter,
# --sort, RFC 4180 output, --save-db, and the exit codes of usage errors.
. tests/cli/lib.sh
. tests/cli/csvlib.inc
XDG_CONFIG_HOME=$TMP/xdg   # never the developer's own categories.rules
export XDG_CONFIG_HOME

W=sample-traces/dcu-weather-transformer
LLAMA=$(sample llamacpp-rocprof-v1-stats)
KOKKOS=$(sample kokkos-rocprof-v1-hiptrace-rocm4)
V3=$(sample rocprofv3-sdk-docs-csv)

# a kernel name with double quotes and commas (C++ literal operator), to exercise "" escaping
mkdir "$TMP/quote"
cat >"$TMP/quote/results.stats.csv" <<'EOF'
"Name","Calls","TotalDurationNs","AverageNs","Percentage"
void k<operator"" _km>(int, float),2,300,150,75.0
plain_kernel,1,100,100,25.0
EOF
QNAME='void k<operator"" _km>(int, float)'

# ---------------------------------------------------------------- round trip
# roundtrip VIEW LABEL PATH EXACT-COLS NUMERIC-COLS: export PATH, reload that CSV alone, export again;
# EXACT-COLS (SQL list, first = key) must be identical, NUMERIC-COLS equal within 1e-6.
roundtrip() {
    _v=$1
    _p=rt_$1_$2
    if ! dexp "${_p}_a" "$_v" "$3"; then
        notok "round trip $_v $2: first export exits 0"
        return
    fi
    if ! dexp "${_p}_b" "$_v" "$TMP/${_p}_a.csv"; then
        notok "round trip $_v $2: the exported CSV loads alone (exit 0)"
        return
    fi
    csvq "$TMP/${_p}_a.csv" "select $4 from t" | LC_ALL=C sort >"$TMP/rt_xa"
    csvq "$TMP/${_p}_b.csv" "select $4 from t" | LC_ALL=C sort >"$TMP/rt_xb"
    _d="round trip $_v $2: ($4) identical, $(awk 'END { print NR }' "$TMP/rt_xa") rows"
    if [ -s "$TMP/rt_xa" ] && cmp -s "$TMP/rt_xa" "$TMP/rt_xb"; then
        ok "$_d"
    else
        notok "$_d"
        diff "$TMP/rt_xa" "$TMP/rt_xb" | head -8 | sed 's/^/#   /'
    fi
    csvq "$TMP/${_p}_a.csv" "select $5 from t" | LC_ALL=C sort >"$TMP/rt_na"
    csvq "$TMP/${_p}_b.csv" "select $5 from t" | LC_ALL=C sort >"$TMP/rt_nb"
    if awk -F'\t' 'FNR == NR { a[FNR] = $0; n = FNR; next }
            { split(a[FNR], x, "\t"); for (i = 2; i <= NF; i++) { d = x[i] - $i; if (d < 0) d = -d; if (d > 1e-6 || x[1] != $1) bad = 1 } }
            END { exit bad || FNR != n }' "$TMP/rt_na" "$TMP/rt_nb"; then
        ok "round trip $_v $2: ($5) equal"
    else
        notok "round trip $_v $2: ($5) equal"
        diff "$TMP/rt_na" "$TMP/rt_nb" | head -8 | sed 's/^/#   /'
    fi
}
HOT_EXACT='name, category, calls, total_ns, min_ns, max_ns'
HOT_NUM='name, pct, cum_pct, ceiling'
roundtrip hotspots weather "$W" "$HOT_EXACT" "$HOT_NUM"
roundtrip hotspots llamacpp "$LLAMA" "$HOT_EXACT" "$HOT_NUM"
roundtrip hotspots kokkos "$KOKKOS" "$HOT_EXACT" "$HOT_NUM"
roundtrip hotspots rocprofv3 "$V3" "$HOT_EXACT" "$HOT_NUM"
roundtrip hotspots quoted-name "$TMP/quote" "$HOT_EXACT" "$HOT_NUM"
same "round trip keeps the name with embedded quotes" "$QNAME" \
    "$(csvq "$TMP/rt_hotspots_quoted-name_b.csv" "select name from t where name like 'void k%'")"
API_EXACT="domain || ':' || name, calls, total_ns, min_ns, max_ns"
API_NUM="name, pct"
roundtrip api weather "$W" "$API_EXACT" "$API_NUM"
roundtrip api kokkos "$KOKKOS" "$API_EXACT" "$API_NUM"
roundtrip api rocprofv3 "$V3" "$API_EXACT" "$API_NUM"
CP_EXACT='name, calls, bytes, total_ns, min_ns, max_ns'
CP_NUM='name, pct'
roundtrip copies kokkos "$KOKKOS" "$CP_EXACT" "$CP_NUM"
roundtrip copies rocprofv3 "$V3" "$CP_EXACT" "$CP_NUM"
dexp rtf files "$TMP/rt_hotspots_weather_a.csv"
same "a reloaded export is listed as a used kernel file" "kernel	used" "$(csvq "$TMP/rtf.csv" 'select layer, status from t')"

# ---------------------------------------------------------------- --filter
nrows() { csvq "$1" 'select count(*) from t'; }
dexp all hotspots "$W"
total=$(nrows "$TMP/all.csv")
dexp fpos hotspots --filter 'Cijk' "$W"
dexp fneg hotspots --filter '!Cijk' "$W"
pos=$(nrows "$TMP/fpos.csv")
neg=$(nrows "$TMP/fneg.csv")
check "--filter Cijk keeps some rows and drops some ($pos of $total)" test "$pos" -gt 0 -a "$pos" -lt "$total"
same "--filter Cijk + --filter '!Cijk' rows = all rows ($total)" "$total" "$((pos + neg))"
same "--filter Cijk: every row matches" "0" "$(csvq "$TMP/fpos.csv" "select count(*) from t where instr(name, 'Cijk') = 0")"
same "--filter '!Cijk': no row matches" "0" "$(csvq "$TMP/fneg.csv" "select count(*) from t where instr(name, 'Cijk') > 0")"
dexp flow hotspots --filter 'cijk' "$W"
same "--filter smart case: all-lowercase pattern ignores case" "$pos" "$(nrows "$TMP/flow.csv")"
dexp fup hotspots --filter 'CIJK' "$W"
same "--filter smart case: a capital letter makes it case-sensitive" "0" "$(nrows "$TMP/fup.csv")"
dexp fre hotspots --filter '^void at::native::(vectorized|elementwise)_' "$W"
dexp frn hotspots --filter '!^void at::native::(vectorized|elementwise)_' "$W"
same "--filter with anchors/alternation + its negation = all rows" "$total" "$(($(nrows "$TMP/fre.csv") + $(nrows "$TMP/frn.csv")))"
dexp aall api "$W"
dexp apos api --filter '^hipMem' "$W"
dexp aneg api --filter '!^hipMem' "$W"
same "--filter on the api view: '^hipMem' + '!^hipMem' = all rows" "$(nrows "$TMP/aall.csv")" \
    "$(($(nrows "$TMP/apos.csv") + $(nrows "$TMP/aneg.csv")))"
same "--filter on the api view: '^hipMem' rows" "hipMemcpy hipMemcpyAsync" \
    "$(csvq "$TMP/apos.csv" 'select name from t order by name' | tr '\n' ' ' | sed 's/ $//')"

# ---------------------------------------------------------------- --sort
# sorted COL DIR(asc|desc) FILE: numeric order check with awk
sorted() {
    csvq "$3" "select $1 from t" | awk -v d="$2" 'NR > 1 && ((d == "asc" && $1 + 0 < p) || (d == "desc" && $1 + 0 > p)) { bad = 1 } { p = $1 + 0 } END { exit bad }'
}
dexp sca hotspots --sort calls:asc "$W"
check "--sort calls:asc: calls non-decreasing" sorted calls asc "$TMP/sca.csv"
same "--sort calls:asc: same rows as unsorted" "$(csvq "$TMP/all.csv" 'select name from t' | LC_ALL=C sort)" \
    "$(csvq "$TMP/sca.csv" 'select name from t' | LC_ALL=C sort)"
dexp scd hotspots --sort calls:desc "$W"
check "--sort calls:desc: calls non-increasing" sorted calls desc "$TMP/scd.csv"
check "default order: total_ns non-increasing" sorted total_ns desc "$TMP/all.csv"
dexp sav hotspots --sort avg_ns:asc "$LLAMA"
check "--sort avg_ns:asc (llamacpp): avg_ns non-decreasing" sorted avg_ns asc "$TMP/sav.csv"
dexp sna hotspots --sort name:asc "$LLAMA"
check "--sort name:asc: names in byte order" sh -c "sqlite3 -batch -init /dev/null :memory: \".import --csv '$TMP/sna.csv' t\" 'select name from t' | LC_ALL=C sort -c"
dexp aca api --sort calls:asc "$W"
check "--sort calls:asc on the api view" sorted calls asc "$TMP/aca.csv"
exits "--sort with an unknown column exits 2" 2 "$DCUTOP" -q --export hotspots --sort nosuchcol "$W"
missing=""
for c in name short_name category calls total_ns avg_ns min_ns max_ns stddev_ns pct cum_pct ceiling; do
    grep -q "$c" "$TMP/err" || missing="$missing $c"
done
same "--sort unknown column: message lists the hotspots columns" "" "$missing"
exits "--sort with a bad direction exits 2" 2 "$DCUTOP" -q --export hotspots --sort calls:sideways "$W"
exits "--filter '(' (bad regex) exits 2" 2 "$DCUTOP" -q --export hotspots --filter '(' "$W"
check "--filter '(': message mentions the offset" grep -q offset "$TMP/err"

# ---------------------------------------------------------------- RFC 4180
# every record ends in CRLF, no bare LF, and the file ends with CRLF
crlf() { awk '!/\r$/ { bad = 1 } END { exit bad || NR == 0 }' "$1" && [ "$(tail -c 2 "$1" | od -An -c | tr -d ' ')" = '\r\n' ]; }
for v in hotspots categories api files; do
    dexp "rfc_$v" "$v" "$W"
    check "--export $v: every line ends in CRLF" crlf "$TMP/rfc_$v.csv"
done
dexp rfc_copies copies "$V3"
check "--export copies: every line ends in CRLF" crlf "$TMP/rfc_copies.csv"
dexp rfc_q hotspots "$TMP/quote"
check "--export: embedded quotes are doubled" grep -qF '"void k<operator"""" _km>(int, float)"' "$TMP/rfc_q.csv"
same "--export: header row is the column keys" "name,short_name,category,calls,total_ns,avg_ns,min_ns,max_ns,stddev_ns,pct,cum_pct,ceiling,var_ns,golden_ns,outliers,name_raw" \
    "$(head -1 "$TMP/rfc_q.csv" | tr -d '\r')"
if command -v python3 >/dev/null 2>&1; then
    for f in rfc_hotspots rfc_categories rfc_api rfc_files rfc_copies rfc_q; do
        check "$f.csv parses with python csv (strict, same field count on every row)" python3 -c '
import csv, sys
with open(sys.argv[1], newline="") as fh:
    raw = fh.read()
rows = list(csv.reader(raw.splitlines(True), strict=True))
sys.exit(not rows or any(len(r) != len(rows[0]) for r in rows))' "$TMP/$f.csv"
    done
    same "python csv reads the quoted name back" "$QNAME" "$(python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
print([r[0] for r in rows if r[0].startswith("void k")][0])' "$TMP/rfc_q.csv")"
else
    for f in rfc_hotspots rfc_categories rfc_api rfc_files rfc_copies rfc_q; do
        same "$f.csv imports with sqlite3 .import --csv (no python3)" \
            "$(awk 'END { print NR - 1 }' "$TMP/$f.csv")" "$(csvq "$TMP/$f.csv" 'select count(*) from t')"
    done
    same "sqlite3 reads the quoted name back" "$QNAME" "$(csvq "$TMP/rfc_q.csv" "select name from t where name like 'void k%'")"
fi

# ---------------------------------------------------------------- --save-db
rm -f "$TMP/out.db"
"$DCUTOP" -q --save-db "$TMP/out.db" "$W"
check "--save-db exits 0 and writes the file" test $? -eq 0 -a -s "$TMP/out.db"
same "--save-db: sum(kernel_summary.total_ns) = exported hotspots total" \
    "$(csvq "$TMP/all.csv" 'select sum(cast(total_ns as integer)) from t')" \
    "$(sqlite3 -batch -init /dev/null "$TMP/out.db" 'select sum(total_ns) from kernel_summary')"
same "--save-db: kernel_summary rows = exported hotspot rows" "$total" \
    "$(sqlite3 -batch -init /dev/null "$TMP/out.db" 'select count(*) from kernel_summary')"
"$DCUTOP" -q --force --save-db "$TMP/out.db" "$W"
check "--save-db --force over an existing file exits 0" [ $? -eq 0 ]
same "--save-db over an existing file: no duplicated rows" "$total" \
    "$(sqlite3 -batch -init /dev/null "$TMP/out.db" 'select count(*) from kernel_summary')"
exits "--save-db into a missing folder exits 1" 1 "$DCUTOP" -q --save-db "$TMP/no/such/dir/x.db" "$W"

# ---------------------------------------------------------------- exit codes
exits "no path: usage error (2)" 2 "$DCUTOP"
exits "unknown option: usage error (2)" 2 "$DCUTOP" --no-such-option "$W"
exits "--export nosuchview: usage error (2)" 2 "$DCUTOP" --export nosuchview "$W"
check "--export nosuchview: message names the views" grep -q hotspots "$TMP/err"
exits "--export without a view: usage error (2)" 2 "$DCUTOP" --export
exits "--format nosuch: usage error (2)" 2 "$DCUTOP" --report --format nosuch "$W"
exits "missing path: exit 1" 1 "$DCUTOP" --export hotspots "$TMP/does-not-exist"
check "missing path: message on stderr" [ -s "$TMP/err" ]
mkdir "$TMP/empty"
exits "empty folder: exit 1" 1 "$DCUTOP" --export hotspots "$TMP/empty"
check "empty folder: message on stderr" [ -s "$TMP/err" ]
same "empty folder: nothing on stdout" "" "$(cat "$TMP/out")"
exits "-o into a missing folder: exit 1" 1 "$DCUTOP" -q --export hotspots -o "$TMP/no/such/dir/x.csv" "$W"
exits "--help exits 0" 0 "$DCUTOP" --help
check "--help shows the usage" grep -q -- '--export' "$TMP/out"
exits "--version exits 0" 0 "$DCUTOP" --version
check "--version prints 'dcutop X.Y.Z'" grep -Eq '^dcutop [0-9]+\.[0-9]+' "$TMP/out"
