#!/bin/sh
# test_rpd_names.sh - names on the real RPD sample (issue 21): the API view qualifies
# rocmProfileData's own calls (OpTable::writeRows, not five rows of writeRows) and lists them
# apart, out of host API time; mangled kernel names (rocprof/RPD write HIP code-object
# symbols) are demangled by binutils' demangler (libiberty), the symbol kept in name_raw and
# in Kernel detail.
. tests/cli/lib.sh
. tests/cli/csvlib.inc
XDG_CONFIG_HOME=$TMP/xdg
export XDG_CONFIG_HOME

R=$REAL/rpd-matmul/matmul_result.rpd
sq() { sqlite3 -batch -init /dev/null -readonly "$1" '.mode tabs' "$2"; }

# ---- API names and the profiler's own calls
"$DCUTOP" -q --report --view api --width 120 "$R" >"$TMP/api.txt"
for t in OpTable KernelApiTable CopyApiTable MonitorTable; do
    check "API view: $t::writeRows listed under its qualified name" \
        grep -qE "^  PROFILER +$t::writeRows " "$TMP/api.txt"
done
check "API view: no row is a bare writeRows" sh -c "! grep -qE ' writeRows ' '$TMP/api.txt'"
check "API view: hcc_activity_callback (rpd_tracer's callback) is the profiler's" \
    grep -qE '^  PROFILER +hcc_activity_callback ' "$TMP/api.txt"
check "API view: the profiler's rows come after every application call" sh -c \
    "awk '/^  (HIP|HSA|OTHER|PROFILER) /{print \$1}' '$TMP/api.txt' | uniq | tail -1 | grep -qx PROFILER"
check "API view: a line says why they are apart" grep -q 'not host API time' "$TMP/api.txt"
dexp api api "$R" || notok "rpd: --export api exits 0"
dexp apis api --sort calls:asc "$R" || notok "rpd: --export api --sort exits 0"
same "API export sorted by calls: the profiler's rows stay last" "HIP PROFILER" \
    "$(csvq "$TMP/apis.csv" "select domain from t" | uniq | tr '\n' ' ' | sed 's/ $//')"
same "API export: five profiler rows, none with a share of host API time" "5 0" \
    "$(csvq "$TMP/api.csv" "select count(*) || ' ' || sum(pct <> '') from t where domain = 'PROFILER'")"
same "API export: the application's shares add up to 100%" "100" \
    "$(csvq "$TMP/api.csv" "select cast(round(sum(pct)) as integer) from t where domain <> 'PROFILER'")"
# host API time = the file's own API rows that are not rpd_tracer's overhead records
exp=$(sq "$R" "SELECT count(*) || ' ' || sum(\"end\" - start) FROM api WHERE apiName NOT LIKE '%Table::writeRows' AND apiName <> 'hcc_activity_callback'")
same "host API calls and time leave the profiler's own work out" "$exp" \
    "$(csvq "$TMP/api.csv" "select sum(calls) || ' ' || sum(cast(total_ns as integer)) from t where domain <> 'PROFILER'")"
check "report: Host API time is the application's (120 calls)" sh -c \
    "'$DCUTOP' -q --report '$R' | grep -q 'Host API time 456.5 ms in 120 calls'"

# ---- mangled kernel names, demangled (a copy of the sample whose two kernel names are the
#      symbols hipcc writes for them; checked with c++filt)
PA='_Z32paged_attention_ll4mi_QKV_kernelI14__hip_bfloat16S0_Li16ELi128ELi256ELb0ELi8EEvPKT_PKT0_S6_ifPKiPS1_'
CK='_ZN7ck_tile6kentryILi256ELi1ENS_12Rmsnorm2dFwdILi128EfEEJifEEEvDpT2_'
cp "$R" "$TMP/m.rpd"
sqlite3 -batch -init /dev/null "$TMP/m.rpd" \
    "UPDATE rocpd_string SET string = '$PA' WHERE id = 18; UPDATE rocpd_string SET string = '$CK' WHERE id = 19;"
dexp mh hotspots "$TMP/m.rpd" || notok "mangled rpd: --export hotspots exits 0"
same "demangled: paged attention's name, raw symbol and category" \
    "void paged_attention_ll4mi_QKV_kernel<__hip_bfloat16, __hip_bfloat16, 16, 128, 256, false, 8>(__hip_bfloat16 const*, __hip_bfloat16 const*, __hip_bfloat16 const*, int, float, int const*, __hip_bfloat16*)|$PA|attention" \
    "$(csvq "$TMP/mh.csv" "select name || '|' || name_raw || '|' || category from t where name_raw = '$PA'")"
same "demangled: the ck_tile kernel's name and category" \
    "void ck_tile::kentry<256, 1, ck_tile::Rmsnorm2dFwd<128, float>, int, float>(int, float)|norm" \
    "$(csvq "$TMP/mh.csv" "select name || '|' || category from t where name_raw = '$CK'")"
same "no name in the export is left mangled" "0" \
    "$(csvq "$TMP/mh.csv" "select count(*) from t where name like '\\_Z%' escape '\\'")"
same "every name that was not mangled keeps name_raw = name" "1" \
    "$(csvq "$TMP/mh.csv" "select sum(name = name_raw) = count(*) - 2 from t")"
printf '2\n/paged\n<Enter>\n<Enter>\n:dump detail\n' >"$TMP/k.keys"
"$DCUTOP" --headless --size 100x30 --keys "$TMP/k.keys" "$TMP/m.rpd" >"$TMP/k.out" 2>&1
check "Kernel detail: the demangled full name" grep -q '^    void paged_attention_ll4mi_QKV_kernel<__hip_bfloat16' "$TMP/k.out"
check "Kernel detail: the raw (mangled) name below it" sh -c \
    "grep -A1 '^  Raw name' '$TMP/k.out' | grep -q '^    _Z32paged_attention_ll4mi_QKV_kernelI14__hip_bfloat16'"
same "--sql: the kernels view keeps the mangled symbol in name_raw" "$PA" \
    "$("$DCUTOP" -q --sql "SELECT name_raw FROM kernels WHERE name LIKE 'void paged%'" --format csv "$TMP/m.rpd" | sed -n 2p)"

# ---- the symbols newer compilers write for _Float16 (DF16_): binutils' c++filt (2.40)
#      demangles them, libstdc++'s __cxa_demangle (12) does not. g++ 12 wrote both for
#      paged_attention_ll4mi_QKV_kernel<_Float16, ...> and kentry<..., Rmsnorm2dFwd<128, _Float16>, ...>
PA16='_Z32paged_attention_ll4mi_QKV_kernelIDF16_DF16_Li16ELi128ELi256ELb0ELi8EEvPKT_PKT0_S5_ifPKiPS0_'
CK16='_ZN7ck_tile6kentryILi256ELi1ENS_12Rmsnorm2dFwdILi128EDF16_EEJiDF16_EEEvDpT2_'
PA16D='void paged_attention_ll4mi_QKV_kernel<_Float16, _Float16, 16, 128, 256, false, 8>(_Float16 const*, _Float16 const*, _Float16 const*, int, float, int const*, _Float16*)'
CK16D='void ck_tile::kentry<256, 1, ck_tile::Rmsnorm2dFwd<128, _Float16>, int, _Float16>(int, _Float16)'
cp "$R" "$TMP/f16.rpd"
sqlite3 -batch -init /dev/null "$TMP/f16.rpd" \
    "UPDATE rocpd_string SET string = '$PA16' WHERE id = 18; UPDATE rocpd_string SET string = '$CK16' WHERE id = 19;"
dexp fh hotspots "$TMP/f16.rpd" || notok "_Float16 rpd: --export hotspots exits 0"
same "DF16_: paged attention demangled, its symbol in name_raw, category attention" \
    "$PA16D|$PA16|attention" \
    "$(csvq "$TMP/fh.csv" "select name || '|' || name_raw || '|' || category from t where name_raw = '$PA16'")"
same "DF16_: the ck_tile kernel demangled, category norm" "$CK16D|norm" \
    "$(csvq "$TMP/fh.csv" "select name || '|' || category from t where name_raw = '$CK16'")"
same "DF16_: no name in the export is left mangled" "0" \
    "$(csvq "$TMP/fh.csv" "select count(*) from t where name like '\\_Z%' escape '\\'")"
if command -v c++filt >/dev/null 2>&1; then
    same "DF16_: the names are c++filt's" "$(printf '%s\n%s' "$PA16" "$CK16" | c++filt)" \
        "$(printf '%s\n%s\n' "$PA16" "$CK16" | while read -r s; do
            csvq "$TMP/fh.csv" "select name from t where name_raw = '$s'"; done)"
fi
"$DCUTOP" -q --report --width 160 "$TMP/f16.rpd" >"$TMP/f16.txt"
check "DF16_: the report's hotspots show the short name, not the symbol" \
    grep -qE '^  paged_attention_ll4mi_QKV_kernel<_Float16, _Float16, 16, 128, 256, false, 8> ' "$TMP/f16.txt"
check "DF16_: no line of the report holds a symbol" sh -c "! grep -q '_Z32paged\\|_ZN7ck_tile' '$TMP/f16.txt'"
