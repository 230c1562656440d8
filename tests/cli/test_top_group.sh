#!/bin/sh
# test_top_group.sh - exports keep the user's request (issue 21): --top N cuts every --export
# view and every --report --view; --group GEMM|non-GEMM and --category NAME select kernels by
# the categoriser's verdict (conv kernels named *implicit_gemm* stay non-GEMM), never by a
# regex over the name; an unknown name is a usage error.
. tests/cli/lib.sh
XDG_CONFIG_HOME=$TMP/xdg   # never the developer's own categories.rules
export XDG_CONFIG_HOME

mkdir "$TMP/t"
cat >"$TMP/t/results.stats.csv" <<'CSV'
"Name","Calls","TotalDurationNs","AverageNs","Percentage"
Cijk_Ailk_Bljk_SB_MT128x128x16,10,10000,1000,20
void cudnn::detail::implicit_gemm_kernel<float>(int),5,8000,1600,16
sm80_xmma_fprop_implicit_gemm_f16f16_f16f32_tn_n,4,7000,1750,14
elementwise_kernel_add,20,6000,300,12
softmax_warp_forward,3,5000,1666,10
layer_norm_kernel,3,4000,1333,8
copy_kernel_a,2,3000,1500,6
reduce_kernel_sum,2,2000,1000,4
nvjet_hsh_128x64_gemm,1,1500,1500,3
index_select_kernel,1,1000,1000,2
CSV
T=$TMP/t
rows() { # data rows of CSV on stdin: no header, no "# view" line, no blank line
    tr -d '\r' | grep -v '^#' | grep -v '^$' | grep -vc '^name,\|^category,'
}

# ---- --top in every export and report view
n=$($DCUTOP --export hotspots --filter '!gemm' --top 3 "$T" | rows)
same "--export hotspots --filter '!gemm' --top 3: 3 rows" 3 "$n"
n=$($DCUTOP --export hotspots "$T" | rows)
same "--export hotspots without --top: every kernel" 10 "$n"
n=$($DCUTOP --export categories --top 2 "$T" | rows)
same "--export categories --top 2: the two group rows and 2 categories" 4 "$n"
n=$($DCUTOP --report --view hotspots --format csv --top 2 "$T" | rows)
same "--report --view hotspots --format csv --top 2: 2 rows" 2 "$n"
n=$($DCUTOP --report --view categories --format csv --top 1 "$T" | rows)
same "--report --view categories --format csv --top 1: groups and 1 category" 3 "$n"
n=$($DCUTOP --report --view categories --top 1 "$T" | grep -cE '^  [a-z]+ +(GEMM|non-GEMM) ')
same "--report --view categories --top 1 (text): one category row" 1 "$n"

# ---- --group / --category by the categoriser's verdict
$DCUTOP --export hotspots --group non-GEMM "$T" >"$TMP/ng.csv"
same "--group non-GEMM: the 8 non-GEMM kernels" 8 "$(rows <"$TMP/ng.csv")"
same "--group non-GEMM keeps both implicit_gemm conv kernels" 2 "$(grep -c implicit_gemm "$TMP/ng.csv")"
check "--group non-GEMM has no GEMM kernel" sh -c "! grep -q 'Cijk\|nvjet' '$TMP/ng.csv'"
n=$($DCUTOP --export hotspots --group non-GEMM --top 2 "$T" | grep -c implicit_gemm)
same "--group non-GEMM --top 2: the two conv kernels (the hottest non-GEMM)" 2 "$n"
n=$($DCUTOP --export hotspots --group gemm "$T" | rows)
same "--group gemm (any case): the 2 GEMM kernels" 2 "$n"
n=$($DCUTOP --export hotspots --category conv "$T" | rows)
same "--category conv: 2 kernels" 2 "$n"
c=$($DCUTOP --export categories --group non-GEMM "$T" | awk -F, 'NR > 1 { print $1 }' | tr -d '"' | tr '\n' ' ')
case $c in
"non-GEMM conv elementwise softmax norm copy reduce index other ") ok "--export categories --group non-GEMM: its group row and categories" ;;
*) notok "--export categories --group non-GEMM: its group row and categories"; echo "#   $c" ;;
esac
c=$($DCUTOP --report --view categories --format csv --category conv "$T" | tr -d '\r' |
    awk -F, 'NR > 2 && $1 != "" { print $1 }' | tr -d '"' | tr '\n' ' ')
same "--report --view categories --category conv: its group and itself" "non-GEMM conv " "$c"
n=$($DCUTOP --report --view hotspots --format csv --group non-GEMM "$T" | grep -c 'Cijk')
same "--report --view hotspots --group non-GEMM: no GEMM kernel" 0 "$n"
exits "--category unknown: exit 2" 2 $DCUTOP --export hotspots --category nope "$T"
check "--category unknown: says so" grep -q "unknown category 'nope'" "$TMP/err"
exits "--group bad: exit 2" 2 $DCUTOP --export hotspots --group conv "$T"
exits "--group and --category together: exit 2" 2 $DCUTOP --export hotspots --group GEMM --category conv "$T"
# user text is bound, never pasted into SQL
exits "--category with a quote: a usage error, not an SQL error" 2 \
    $DCUTOP --export hotspots --category "x' OR '1'='1" "$T"

# ---- the TUI starts on the selection's kernels (headless); Esc goes back to the Summary
printf ':dump start\n<Esc>\n:dump back\n' >"$TMP/g.keys"
$DCUTOP --headless --size 100x24 --keys "$TMP/g.keys" --group non-GEMM "$T" >"$TMP/tui"
sed -n '/--- start/,/--- back/p' "$TMP/tui" >"$TMP/start"
check "TUI --group non-GEMM: starts on the non-GEMM kernels" grep -q "> non-GEMM kernels (--group)" "$TMP/start"
same "TUI --group non-GEMM: both implicit_gemm conv kernels, no GEMM kernel" "2 0" \
    "$(grep -c 'implicit_gemm.* conv ' "$TMP/start") $(grep -c 'Cijk\|nvjet' "$TMP/start")"
check "TUI --group: Esc goes back to the Summary" sh -c "sed -n '/--- back/,\$p' '$TMP/tui' | grep -q 'What to optimise first'"
$DCUTOP --headless --size 100x24 --keys "$TMP/g.keys" --category softmax "$T" >"$TMP/tui2"
check "TUI --category softmax: starts on its kernels" grep -q "softmax_warp_forward" "$TMP/tui2"

# ---- --top in a comparison's export too
W=sample-traces/dcu-weather-transformer
n=$($DCUTOP --diff "$W" "$W" --export diff --top 3 2>/dev/null | rows)
same "--diff A B --export diff --top 3: 3 rows" 3 "$n"

# ---- --top in the report views that were whole: each trace lane, the advice, the ranks
DDP=$REAL/pytorch-h200-ddp-2rank
lanes=$($DCUTOP -q --report --view trace --format csv "$DDP" | grep -c '^# lane:')
ops=$($DCUTOP -q --report --view trace --format csv --top 2 "$DDP" | grep -v '^#' | grep -c '^[0-9-]')
same "--view trace --top 2: 2 ops in each of the $lanes lanes" $((2 * lanes)) "$ops"
adv=$($DCUTOP -q --report --view advice --top 1 "$DDP" | grep -c '^  [0-9]*\. at most')
same "--view advice --top 1: one opportunity" 1 "$adv"
rk=$($DCUTOP -q --report --view ranks --format json --top 1 "$DDP" | python3 -c "
import json, sys; print(len(json.load(sys.stdin)['ranks']))")
same "--view ranks --top 1: one rank row" 1 "$rk"
