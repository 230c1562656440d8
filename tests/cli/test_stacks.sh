#!/bin/sh
# test_stacks.sh - call stacks and ranges from the command line: the real folded stacks of
# the climate transformer (per leaf, dcutop's times equal the sum of the VALUE column
# computed here with awk; self + children == inclusive at every node of the exported tree),
# hand-made kernel-stack dumps attached by launch index against times computed from the
# results.csv, ranges of the real Kokkos results.db against an independent sqlite3 query,
# the report in text / CSV / JSON, and bad input and usage errors.
. tests/cli/lib.sh
. tests/cli/csvlib.inc
XDG_CONFIG_HOME=$TMP/xdg   # never the developer's own categories.rules
export XDG_CONFIG_HOME

CLIMATE=$(sample pytorch-h200-climate-transformer)
KOKKOS=$REAL/kokkos-rocprof-v1-hiptrace-rocm4

# sum_col FILE N: sum of tab-separated column N; nlines FILE: lines
sum_col() { awk -F'\t' -v c="$2" '{ s += $c } END { printf "%.0f\n", s }' "$1"; }
nlines() { awk 'END { print NR }' "$1"; }

# ---------------------------------------------------------------- real folded stacks
# leaf_sums FILE: "leaf<TAB>sum of VALUE * 1000" per leaf frame (the last ';' field before
# the value), VALUE 0 lines left out; sorted
leaf_sums() {
    awk '{ v = $NF; f = $0; sub(/[ \t]+[^ \t]+$/, "", f); n = split(f, a, ";")
           if (v + 0 > 0) s[a[n]] += v * 1000 }
         END { for (k in s) printf "%s\t%.0f\n", k, s[k] }' "$1" | LC_ALL=C sort
}

for run in infer train; do
    F=$CLIMATE/climate_$run.stacks.txt
    if [ ! -f "$F" ]; then
        notok "$run: $F exists"
        continue
    fi
    leaf_sums "$F" >"$TMP/$run.exp"
    total=$(awk '{ s += $NF } END { printf "%.0f\n", s * 1000 }' "$F")
    lines=$(awk 'NF > 0 { n++ } END { print n }' "$F")
    for fold in "" --fold; do
        w="$run${fold:+ $fold}"
        # callees view: every frame is a root, its self time is the time it is the leaf
        if dexp "$run-callees" stacks --tree callees $fold "$F"; then
            ok "$w: --export stacks --tree callees exits 0"
        else
            notok "$w: --export stacks --tree callees exits 0"
        fi
        csvq "$TMP/$run-callees.csv" \
            "select name, cast(self_ns as integer) from t where depth = '0' and cast(self_ns as integer) > 0" |
            LC_ALL=C sort >"$TMP/$run.act"
        same "$w: number of leaves with time" "$(nlines "$TMP/$run.exp")" "$(nlines "$TMP/$run.act")"
        same "$w: sum over leaves = sum of the VALUE column * 1000" "$total" "$(sum_col "$TMP/$run.act" 2)"
        same_text "$w: per leaf, self ns = sum of its VALUE column * 1000 (awk)" \
            "$(cat "$TMP/$run.exp")" "$(cat "$TMP/$run.act")"
        # calls view: roots add up to the total, and self + children == inclusive everywhere
        dexp "$run-calls" stacks $fold "$F" || notok "$w: --export stacks exits 0"
        same "$w: calls view, roots' inclusive ns = sum of VALUE * 1000" "$total" \
            "$(csvq "$TMP/$run-calls.csv" "select sum(cast(incl_ns as integer)) from t where depth = '0'")"
        same "$w: calls view, roots' calls = number of lines" "$lines" \
            "$(csvq "$TMP/$run-calls.csv" "select sum(cast(calls as integer)) from t where depth = '0'")"
        bad=$(csvq "$TMP/$run-calls.csv" "select count(*) from t p where cast(p.self_ns as integer) +
                  coalesce((select sum(cast(c.incl_ns as integer)) from t c where c.parent = p.id), 0)
                  <> cast(p.incl_ns as integer)")
        same "$w: self + children's inclusive = inclusive at all $(nlines "$TMP/$run-calls.csv") nodes" 0 "$bad"
    done
done

# the caller view over the real stacks: torch's _call_impl occurs at every nn.Module level,
# so its callers add up to more than it (what the README explains)
F=$CLIMATE/climate_infer.stacks.txt
if dexp callers stacks --tree callers "$F"; then
    over=$(csvq "$TMP/callers.csv" "select p.name from t p where p.depth = '0' and
              p.name like '%module.py(1783)%' and (select sum(cast(c.incl_ns as integer)) from t c
              where c.parent = p.id) > cast(p.incl_ns as integer)")
    check "callers view: _call_impl's callers add up to more than _call_impl" [ -n "$over" ]
    rsum=$(csvq "$TMP/callers.csv" "select sum(cast(incl_pct as real)) > 100 from t where depth = '0'")
    same "callers view: roots add up to more than 100%" 1 "$rsum"
else
    notok "--export stacks --tree callers exits 0"
fi

# ---------------------------------------------------------------- the report
"$DCUTOP" -q --report --view stacks --fold "$F" >"$TMP/r.txt"
check "--report --view stacks exits 0" [ $? -eq 0 ]
check "text: title names the view and the folding" \
    grep -q '^Call stacks: the code that launched the kernels (calls view, library frames folded)$' "$TMP/r.txt"
check "text: header Incl %Incl Self %Self Calls Name" grep -Eq '^ +Incl\(us\) +%Incl +Self\(us\) +%Self +Calls +Name$' "$TMP/r.txt"
check "text: the root is 100% of 856 lines" grep -Eq '^ +4863\.00 +100\.00 +0\.00 +0\.00 +856 +gen\.py\(128\):_<module>$' "$TMP/r.txt"
check "text: folded, no torch/ frame is shown" sh -c "! grep -q 'torch/nn/modules' '$TMP/r.txt'"
check "text: the note says what 100% is" grep -q '100% = 4.9 ms: the VALUE column of the folded stacks' "$TMP/r.txt"
"$DCUTOP" -q --report --view stacks --tree callers "$F" >"$TMP/rc.txt"
check "text callers view: the help lines on children adding up to more than their parent" \
    grep -q 'children can add up to more than their parent' "$TMP/rc.txt"
"$DCUTOP" -q --report --format csv --view stacks "$F" >"$TMP/r.csv"
check "csv report: one '# stacks' block" sh -c "[ \"\$(grep -c '^# stacks' '$TMP/r.csv')\" -eq 1 ]"
"$DCUTOP" -q --report --format json --view stacks "$F" >"$TMP/r.json"
if command -v python3 >/dev/null 2>&1; then
    check "json report with stacks is valid JSON and rebuilds the tree" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["stacks"]
kids = {}
for r in rows:
    kids.setdefault(r["parent"], []).append(r)
ok = all(r["self_ns"] + sum(c["incl_ns"] for c in kids.get(r["id"], [])) == r["incl_ns"] for r in rows)
sys.exit(not (ok and rows[0]["incl_ns"] == 4863000))' "$TMP/r.json"
else
    ok "json report with stacks is valid JSON - skipped (no python3)"
fi
"$DCUTOP" -q --report "$F" >"$TMP/full.txt"
check "full report: a Call stacks section when the trace has stacks" grep -q '^Call stacks: ' "$TMP/full.txt"
check "full report: the tree is cut to --top nodes" grep -q '^  \.\.\. [0-9]* more nodes' "$TMP/full.txt"
"$DCUTOP" -q --report --view ranges "$F" >"$TMP/nr.txt"
check "--view ranges without ranges says so" grep -q 'no roctx/hiptx ranges in this trace' "$TMP/nr.txt"

# ---------------------------------------------------------------- hand-made kernel stacks
D=$TMP/ks
mkdir -p "$D"
cat >"$D/results.csv" <<'EOF'
"Index","KernelName","gpu-id","queue-id","queue-index","pid","tid","grd","wgr","lds","scr","arch_vgpr","accum_vgpr","sgpr","wave_size","sig","obj","DispatchNs","BeginNs","EndNs","CompleteNs","DurationNs"
0,"Cijk_Ailk_Bljk_HHS_BH_MT128x128x32.kd",0,0,0,100,100,256,256,0,0,16,0,128,64,"0x0","0x0",1000,2000,3000,3100,1000
1,"Cijk_Ailk_Bljk_HHS_BH_MT128x128x32.kd",0,0,0,100,100,256,256,0,0,16,0,128,64,"0x0","0x0",1000,5000,7000,7100,2000
2,"softmax_warp_forward.kd",0,0,0,100,100,256,256,0,0,16,0,128,64,"0x0","0x0",1000,8000,8300,8400,300
EOF
cat >"$D/kernel_stack.txt" <<'EOF'
kernel[0]: Cijk_Ailk_Bljk_HHS_BH_MT128x128x32
#0  0x00007f3a1c2b4e10 in hipModuleLaunchKernel () from /opt/rocm/lib/libamdhip64.so.6
#1  0x00007f3a0a1b2c3d in rocblas_gemm_ex (handle=0x1) from /opt/rocm/lib/librocblas.so.4
#2  0x0000555555555abc in forward (x=0x1) at model.cpp:42
#3  0x0000555555555def in main (argc=1, argv=0x7ffd) at main.cpp:10

index: 1
/opt/rocm/lib/libamdhip64.so.6(hipModuleLaunchKernel+0x1a) [0x7f3a1c2b4e10]
./app(_Z8backwardv+0x40) [0x555555555abc]
./app(main+0x20) [0x555555555def]
EOF
dur() { awk -F, -v i="$1" 'NR > 1 && $1 == i { print $20 - $19 }' "$D/results.csv"; }
dexp ks stacks --fold "$D" || notok "kernel stacks: --export stacks exits 0"
same "gdb stack of launch 0: main;forward;GEMM gets launch 0's EndNs - BeginNs" "$(dur 0)" \
    "$(csvq "$TMP/ks.csv" "select incl_ns from t where path = 'main at main.cpp:10;forward at model.cpp:42;Cijk_Ailk_Bljk_HHS_BH_MT128x128x32'")"
same "backtrace stack of launch 1: gets launch 1's time" "$(dur 1)" \
    "$(csvq "$TMP/ks.csv" "select incl_ns from t where path = 'main from app;_Z8backwardv from app;Cijk_Ailk_Bljk_HHS_BH_MT128x128x32'")"
same "the softmax has no stack: under [no stack]" "$(dur 2)" \
    "$(csvq "$TMP/ks.csv" "select incl_ns from t where path = '[no stack];softmax_warp_forward'")"
same "the export's columns" "id,parent,depth,kind,name,path,self_ns,incl_ns,self_pct,incl_pct,calls" \
    "$(head -1 "$TMP/ks.csv" | tr -d '\r')"
dexp ks-sorted stacks --sort incl_ns:asc "$D" || notok "kernel stacks: --export stacks --sort exits 0"
same "--sort applies to the exported rows" "$(csvq "$TMP/ks-sorted.csv" "select min(cast(incl_ns as integer)) from t")" \
    "$(sed -n 2p "$TMP/ks-sorted.csv" | awk -F, '{ print $8 }')"

# ---------------------------------------------------------------- real Kineto trace with_stack
# independent: python reads the gzip JSON, takes each kernel's "External id" to the cpu_op
# with that id and its "Call stack" (innermost first); per path, kernel ns = sum of dur * 1000
KT=$REAL/pytorch-h200-climate-transformer/climate_infer.trace.json.gz
if [ -f "$KT" ] && command -v python3 >/dev/null 2>&1; then
    python3 -c '
import gzip, json, sys, collections
ev = json.load(gzip.open(sys.argv[1]))["traceEvents"]
ops = {e["args"]["External id"]: e for e in ev if e.get("cat") == "cpu_op" and "External id" in e.get("args", {})}
tot = collections.Counter()
for k in ev:
    if k.get("cat") != "kernel":
        continue
    op = ops.get(k["args"].get("External id"))
    if op is None:
        continue
    frames = [f.strip() for f in op["args"].get("Call stack", "").split(";") if f.strip()]
    path = ";".join(list(reversed(frames)) + [op["name"], k["name"]])
    tot[path] += k["dur"] * 1000
for p, v in sorted(tot.items()):
    print("%s\t%.0f" % (p, v))' "$KT" | LC_ALL=C sort >"$TMP/kt.exp"
    if dexp kt stacks "$KT"; then
        csvq "$TMP/kt.csv" "select path, incl_ns from t where kind = 'kernel'" | LC_ALL=C sort >"$TMP/kt.act"
        same "kineto: kernel paths (python stack, aten op, kernel)" "$(nlines "$TMP/kt.exp")" "$(nlines "$TMP/kt.act")"
        # ns from float microseconds: allow 1 ns of rounding per path
        far=$(join -t "$(printf '\t')" "$TMP/kt.exp" "$TMP/kt.act" | awk -F'\t' '{ d = $2 - $3; if (d < 0) d = -d; if (d > 1) n++ } END { print n + 0 }')
        same "kineto: per path, kernel ns = sum of the kernels' dur (python over the JSON)" 0 "$far"
        same "kineto: every path of python matched" "$(nlines "$TMP/kt.exp")" \
            "$(join -t "$(printf '\t')" "$TMP/kt.exp" "$TMP/kt.act" | awk 'END { print NR }')"
        same "kineto: every kernel has a stack (no [no stack] node)" 0 \
            "$(csvq "$TMP/kt.csv" "select count(*) from t where name = '[no stack]'")"
    else
        notok "kineto: --export stacks exits 0"
    fi
else
    notok "kineto trace with_stack: sample or python3 missing"
fi

# ---------------------------------------------------------------- ranges: real Kokkos results.db
if [ -f "$KOKKOS/results.db" ] && command -v sqlite3 >/dev/null 2>&1; then
    # independent: each kernel (OPS) is launched by the HIP call with the same Index; its
    # range is the innermost rocTX range of that thread open at the launch's BeginNs
    sqlite3 -batch "$KOKKOS/results.db" "
        SELECT coalesce((SELECT trim(r.Name, '\"') FROM rocTX r WHERE r.tid = h.tid
                         AND r.BeginNs <= h.BeginNs AND h.BeginNs < r.EndNs
                         ORDER BY r.BeginNs DESC LIMIT 1), '[outside any range]'),
               sum(o.EndNs - o.BeginNs)
        FROM OPS o JOIN HIP h ON h.\"Index\" = o.\"Index\" GROUP BY 1" | tr '|' '\t' |
        LC_ALL=C sort >"$TMP/kr.exp"
    if dexp kr ranges --tree callees "$KOKKOS/results.db"; then
        csvq "$TMP/kr.csv" "select name, cast(incl_ns as integer) from t where depth = '0'
                            and kind in ('range', 'pseudo')" | LC_ALL=C sort >"$TMP/kr.act"
        if [ -s "$TMP/kr.act" ]; then
            same_text "kokkos results.db: kernel ns per innermost rocTX range (sqlite3 over the raw db)" \
                "$(cat "$TMP/kr.exp")" "$(cat "$TMP/kr.act")"
        else
            ok "kokkos results.db ranges - skipped (this build does not read rocTX from results.db)"
        fi
    else
        notok "kokkos results.db: --export ranges exits 0"
    fi
else
    notok "kokkos results.db ranges: sample or sqlite3 missing"
fi

# ---------------------------------------------------------------- bad input, usage errors
B=$TMP/bad
mkdir -p "$B"
printf 'kernel: k\n#0 f () at a.c:1\nthis is not a frame\n' >"$B/x_stack.txt"
printf 'main;;leaf 3\nmain;ok 2\n' >"$B/y.stacks.txt"
cp "$D/results.csv" "$B/"
exits "a stack file with bad lines still loads (exit 0)" 0 "$DCUTOP" --report --view stacks "$B"
check "stderr names file:line of a bad line and lists the accepted forms" \
    grep -q "x_stack.txt:3: not a stack frame or header: 'this is not a frame' (accepted: gdb frames" "$TMP/err"
check "stderr names file:line of an empty frame" grep -q 'y.stacks.txt:1: frame 2 is empty' "$TMP/err"
check "stderr says a named kernel is not loaded" \
    grep -q "x_stack.txt:1: the stack names kernel 'k', which no loaded kernel file has" "$TMP/err"
rm -f "$B/results.csv" "$B/x_stack.txt"
printf 'main;;leaf 3\n' >"$B/y.stacks.txt"
exits "only an unreadable stack file: nothing loaded, exit 1" 1 "$DCUTOP" --report "$B"
exits "--tree with an unknown mode is a usage error" 2 "$DCUTOP" --report --view stacks --tree up "$F"
exits "--view stacks with a bad regex is a usage error" 2 "$DCUTOP" --report --view stacks --filter 'a(' "$F"
exits "--export with an unknown view lists stacks and ranges" 2 "$DCUTOP" --export stackz "$F"
check "... and the message lists them" grep -q 'files, stacks, ranges, ' "$TMP/err"
