#!/bin/sh
# test_report.sh - the report on the DCU weather-transformer case (PRODUCT.md section 1):
# GEMM share 21.94 %, GEMM ceiling 1.28x (text and JSON), non-GEMM > 73 %, --what-if arithmetic,
# --gemm-like grouping, --format csv blocks, --format json validity, golden text report.
. tests/cli/lib.sh
. tests/cli/csvlib.inc
XDG_CONFIG_HOME=$TMP/xdg   # never the developer's own categories.rules
export XDG_CONFIG_HOME

W=sample-traces/dcu-weather-transformer
GOLDEN=tests/golden/weather-report.txt

# ---------------------------------------------------------------- independent GEMM share
# Tensile kernels (Cijk_*) over all kernels, from the per-dispatch results.csv (EndNs - BeginNs)
share=$(awk "$AWKCSV"'
    NR == 1 { n = csvsplit($0, h); for (i = 1; i <= n; i++) col[h[i]] = i; next }
    { csvsplit($0, f); d = bigsub(f[col["EndNs"]], f[col["BeginNs"]]); t += d
      if (norm(f[col["KernelName"]]) ~ /^Cijk_/) g += d }
    END { printf "%.2f %.2f\n", 100 * g / t, 1 / (1 - g / t) }' "$W/results.csv")
set -- $share
same "results.csv: Cijk_* kernels are 21.94% of device time (published figure)" "21.94" "$1"
same "results.csv: GEMM Amdahl ceiling 1/(1-p) is 1.28x" "1.28" "$2"

# ---------------------------------------------------------------- text report
"$DCUTOP" -q --report --width 120 "$W" >"$TMP/r.txt"
check "text report exits 0" [ $? -eq 0 ]
check "text headline: 'GEMM 21.94% ... at most 1.28x'" \
    grep -q '^GEMM 21\.94% of device kernel time.* at most 1\.28x' "$TMP/r.txt"
check "text categories: GEMM group row 21.94 / 1.28x" \
    grep -Eq '^  GEMM +group +6 +516 +181\.00 +21\.94 +1\.28x +[0-9.]+$' "$TMP/r.txt"
ng=$(sed -n 's/^GEMM .*non-GEMM \([0-9.]*\)%.*/\1/p' "$TMP/r.txt")
check "text headline: non-GEMM share > 73% (got '$ng')" awk -v x="$ng" 'BEGIN { exit !(x != "" && x + 0 > 73) }'

# ---------------------------------------------------------------- JSON totals
"$DCUTOP" -q --report --format json "$W" >"$TMP/r.json"
check "json report exits 0" [ $? -eq 0 ]
gp=$(json_num "$TMP/r.json" gemm_pct)
gc=$(json_num "$TMP/r.json" gemm_ceiling)
near "json totals.gemm_pct = 21.94" "$gp" 21.94 0.005
near "json totals.gemm_ceiling = 1.28" "$gc" 1.28 0.005
near "json gemm_ceiling = 1/(1 - gemm_pct/100)" "$gc" "$(awk -v p="$gp" 'BEGIN { printf "%.6f", 1 / (1 - p / 100) }')" 0.000002
near "json gemm_pct = gemm_ns/kernel_ns" "$gp" \
    "$(awk -v g="$(json_num "$TMP/r.json" gemm_ns)" -v t="$(json_num "$TMP/r.json" kernel_ns)" 'BEGIN { printf "%.6f", 100 * g / t }')" 0.000002
if command -v python3 >/dev/null 2>&1; then
    check "json report is valid JSON (python3 -m json.tool)" sh -c "python3 -m json.tool '$TMP/r.json' >/dev/null"
    "$DCUTOP" -q --report --format json --what-if gemm=2,copy=4 --gemm-like "$W" >"$TMP/r2.json"
    check "json report with --what-if/--gemm-like is valid JSON" sh -c "python3 -m json.tool '$TMP/r2.json' >/dev/null"
    check "json report has the keys totals, files, hotspots, categories, api, copies" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(not all(k in d for k in ("totals", "files", "hotspots", "categories", "api", "copies")))' "$TMP/r.json"
else
    ok "json report is valid JSON - skipped (no python3)"
    ok "json report with --what-if/--gemm-like is valid JSON - skipped (no python3)"
    ok "json report has the keys - skipped (no python3)"
fi

# ---------------------------------------------------------------- categories export
dexp cat categories "$W"
check "--export categories exits 0" [ $? -eq 0 ]
csvq "$TMP/cat.csv" 'select category, "group", pct, ceiling from t' >"$TMP/cat.tsv"
pct_of() { awk -F'\t' -v c="$1" '$1 == c { print $3 }' "$TMP/cat.tsv"; }
near "categories: GEMM group pct 21.94" "$(pct_of GEMM)" 21.94 0.005
check "categories: non-GEMM group pct > 73" awk -v x="$(pct_of non-GEMM)" 'BEGIN { exit !(x != "" && x + 0 > 73) }'
near "categories: GEMM + non-GEMM = 100%" "$(awk -v a="$(pct_of GEMM)" -v b="$(pct_of non-GEMM)" 'BEGIN { print a + b }')" 100 0.00001
near "categories: member categories add up to 100%" \
    "$(awk -F'\t' '$2 != "group" { s += $3 } END { print s }' "$TMP/cat.tsv")" 100 0.0001

# ---------------------------------------------------------------- --what-if
pg=$(pct_of gemm)
pc=$(pct_of copy)
want=$(awk -v g="$pg" -v c="$pc" 'BEGIN { g /= 100; c /= 100; printf "%.6f", 1 / ((1 - g - c) + g / 2 + c / 4) }')
"$DCUTOP" -q --report --width 120 --what-if gemm=2,copy=4 "$W" >"$TMP/wi.txt"
check "--what-if gemm=2,copy=4 exits 0" [ $? -eq 0 ]
got=$(sed -n 's/^ *What-if gemm=2,copy=4:.* \([0-9][0-9.]*\)x .*/\1/p' "$TMP/wi.txt")
near "--what-if gemm=2,copy=4 footer = 1/((1-pg-pc)+pg/2+pc/4) = $want (got '$got')" "${got:-nan}" "$want" 0.0051
dexp wic categories --what-if gemm=2,copy=4 "$W"
csvq "$TMP/wic.csv" 'select category, what_if, speedup from t' >"$TMP/wic.tsv"
near "--what-if: categories gemm row speedup = 1/((1-pg)+pg/2)" \
    "$(awk -F'\t' '$1 == "gemm" { print $3 }' "$TMP/wic.tsv")" \
    "$(awk -v g="$pg" 'BEGIN { g /= 100; printf "%.6f", 1 / ((1 - g) + g / 2) }')" 0.000002
near "--what-if: categories copy row speedup = 1/((1-pc)+pc/4)" \
    "$(awk -F'\t' '$1 == "copy" { print $3 }' "$TMP/wic.tsv")" \
    "$(awk -v c="$pc" 'BEGIN { c /= 100; printf "%.6f", 1 / ((1 - c) + c / 4) }')" 0.000002
same_text "--what-if: factors shown only on the gemm and copy rows" "copy	4
gemm	2" "$(awk -F'\t' '$2 != "" { printf "%s\t%g\n", $1, $2 }' "$TMP/wic.tsv" | LC_ALL=C sort)"

"$DCUTOP" -q --report --width 120 --what-if gemm=inf "$W" >"$TMP/inf.txt"
got=$(sed -n 's/^ *What-if gemm=inf:.* \([0-9][0-9.]*\)x .*/\1/p' "$TMP/inf.txt")
same "--what-if gemm=inf footer equals the GEMM ceiling" "$(awk -v c="$gc" 'BEGIN { printf "%.2f", c }')" "$got"
dexp inf categories --what-if gemm=inf "$W"
same "--what-if gemm=inf: categories gemm row speedup equals its ceiling" \
    "$(csvq "$TMP/inf.csv" "select ceiling from t where category = 'gemm'")" \
    "$(csvq "$TMP/inf.csv" "select speedup from t where category = 'gemm'")"
"$DCUTOP" -q --report --width 120 --what-if gemm-group=inf "$W" >"$TMP/ginf.txt"
got=$(sed -n 's/^ *What-if gemm-group=inf:.* \([0-9][0-9.]*\)x .*/\1/p' "$TMP/ginf.txt")
same "--what-if gemm-group=inf footer equals the GEMM ceiling" "$(awk -v c="$gc" 'BEGIN { printf "%.2f", c }')" "$got"
exits "--what-if with an unknown category is a usage error (2)" 2 "$DCUTOP" -q --export categories --what-if nosuchcat=2 "$W"
exits "--what-if with a bad factor is a usage error (2)" 2 "$DCUTOP" -q --export categories --what-if gemm=abc "$W"
# an invalid --what-if must be rejected before anything is written, whatever the output
for f in text json csv; do
    "$DCUTOP" -q --report --format $f --what-if nosuchcat=2 "$W" >"$TMP/bad.out" 2>/dev/null
    rc=$?
    same "--report --format $f --what-if nosuchcat=2: exit 2 and nothing on stdout (exit, bytes)" "2 0" \
        "$rc $(wc -c <"$TMP/bad.out" | tr -d ' ')"
done
exits "--export hotspots --what-if nosuchcat=2 is a usage error (2)" 2 "$DCUTOP" -q --export hotspots --what-if nosuchcat=2 "$W"

# ---------------------------------------------------------------- --gemm-like
# weather has no conv/attention kernels: the GEMM group must not change
dexp gl categories --gemm-like "$W"
same "--gemm-like on weather (no conv/attention): GEMM group unchanged" \
    "$(csvq "$TMP/cat.csv" "select kernels, calls, total_ns from t where category = 'GEMM'")" \
    "$(csvq "$TMP/gl.csv" "select kernels, calls, total_ns from t where category = 'GEMM'")"
# synthetic: 1 GEMM, 1 conv, 1 attention, 1 elementwise kernel (hipprof kernel stats)
mkdir "$TMP/syn"
cat >"$TMP/syn/syn.hipkernel.csv" <<'EOF'
"Name","Calls","TotalDurationNs","AverageNs","Percentage"
"Cijk_Ailk_Bljk_SB_MT64x64x16_MI32x32x2x1_SN_K1",10,1000000,100000,50.0
"naive_conv_fwd_nchw_float(float const*, float const*, float*)",5,500000,100000,25.0
"void flash_attn_fwd_kernel<128>(Flash_fwd_params)",4,300000,75000,15.0
"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)",20,200000,10000,10.0
EOF
dexp sy0 categories "$TMP/syn"
dexp sy1 categories --gemm-like "$TMP/syn"
grp() { csvq "$TMP/$1.csv" "select category || ':' || \"group\" || ':' || kernels || ':' || total_ns from t where category in ('GEMM', 'non-GEMM', 'conv', 'attention') order by category"; }
same "without --gemm-like: conv/attention are non-GEMM; GEMM group = the GEMM kernel only" \
    "GEMM:group:1:1000000 attention:non-GEMM:1:300000 conv:non-GEMM:1:500000 non-GEMM:group:3:1000000" \
    "$(grp sy0 | tr '\n' ' ' | sed 's/ $//')"
same "with --gemm-like: conv/attention move into the GEMM group" \
    "GEMM:group:3:1800000 attention:GEMM:1:300000 conv:GEMM:1:500000 non-GEMM:group:1:200000" \
    "$(grp sy1 | tr '\n' ' ' | sed 's/ $//')"
"$DCUTOP" -q --report --format json --gemm-like "$TMP/syn" >"$TMP/sy1.json"
near "with --gemm-like: json totals.gemm_pct = 90" "$(json_num "$TMP/sy1.json" gemm_pct)" 90 0.000001
near "with --gemm-like: json totals.gemm_ceiling = 10" "$(json_num "$TMP/sy1.json" gemm_ceiling)" 10 0.000001

# ---------------------------------------------------------------- --format csv blocks
"$DCUTOP" -q --report --format csv "$W" >"$TMP/r.csv"
check "csv report exits 0" [ $? -eq 0 ]
for v in files hotspots categories api copies; do
    same "csv report has exactly one '# $v' block" 1 \
        "$(awk -v v="# $v" '{ sub(/\r$/, "") } $0 == v { n++ } END { print n + 0 }' "$TMP/r.csv")"
    awk -v v="# $v" '{ sub(/\r$/, "") } $0 == v { on = 1; next } on && $0 == "" { exit } on' "$TMP/r.csv" >"$TMP/blk"
    dexp "x$v" "$v" "$W"
    tr -d '\r' <"$TMP/x$v.csv" >"$TMP/xv"
    check "csv report '# $v' block equals --export $v" cmp -s "$TMP/blk" "$TMP/xv"
done

# ---------------------------------------------------------------- golden text report
if [ -f "$GOLDEN" ]; then
    "$DCUTOP" --report --width 120 "$W" 2>/dev/null >"$TMP/golden.out"
    if cmp -s "$GOLDEN" "$TMP/golden.out"; then
        ok "text report equals $GOLDEN"
    else
        notok "text report equals $GOLDEN"
        diff "$GOLDEN" "$TMP/golden.out" | head -20 | sed 's/^/#   /'
    fi
else
    notok "golden file $GOLDEN exists"
fi
