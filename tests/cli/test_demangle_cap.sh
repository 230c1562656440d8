#!/bin/sh
# test_demangle_cap.sh - a mangled name whose demangled text is exponential in its length:
# _Z1f1A1BIS_S_E then S0_IS1_S1_E, S0_IS2_S2_E, ...: each substitution repeats all the text
# before it, so 21 levels (234 bytes) demangle to 27 MB and 26 levels to 872 MB. The
# demangled text is capped at 64 KiB: past it the symbol is kept as the name, and a load
# message says so; under it the name is demangled in full.
. tests/cli/lib.sh
. tests/cli/csvlib.inc

# nested LEVELS: the symbol; nested_text LEVELS: its demangled text, built here from the
# grammar (f's arguments are A, B<A, A>, then each B<x, x> of the one before)
python3 - "$TMP" <<'PY'
import sys
d = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
def b36(i):
    s = ""
    while True:
        s = d[i % 36] + s
        i //= 36
        if i == 0:
            return s
def sym(lv):
    return "_Z1f1A1BIS_S_E" + "".join("S0_IS%s_S%s_E" % (b36(i), b36(i)) for i in range(1, lv))
def text(lv):
    args, t = ["A"], "B<A, A>"
    for _ in range(lv):
        args.append(t)
        t = "B<%s, %s%s>" % (t, t, " " if t.endswith(">") else "")
    return "f(%s)" % ", ".join(args)
hdr = ('"Kind","Agent_Id","Queue_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name",'
       '"Correlation_Id","Start_Timestamp","End_Timestamp"\n')
for lv in (12, 21, 26):
    import os
    os.makedirs("%s/n%d" % (sys.argv[1], lv))
    with open("%s/n%d/kernel_trace.csv" % (sys.argv[1], lv), "w") as f:
        f.write(hdr)
        f.write('"KERNEL_DISPATCH",1,1,7,1,1,"%s",1,1000,3000\n' % sym(lv))
        f.write('"KERNEL_DISPATCH",1,1,7,2,2,"_Z6addoneIfEvPT_i",2,4000,5000\n')
    open("%s/sym%d" % (sys.argv[1], lv), "w").write(sym(lv))
open("%s/text12" % sys.argv[1], "w").write(text(12))
PY
S21=$(cat "$TMP/sym21")
S26=$(cat "$TMP/sym26")
same "the 21-level symbol is 234 bytes" 234 "${#S21}"

# ---- under the cap: demangled in full (53,191 bytes)
dexp h12 hotspots "$TMP/n12" || notok "12 levels: --export hotspots exits 0"
same "12 levels: demangled in full, as the grammar spells it" "$(wc -c <"$TMP/text12" | tr -d ' ') 1" \
    "$(csvq "$TMP/h12.csv" "select length(name) || ' ' || (name = cast(readfile('$TMP/text12') as text)) from t where name_raw = '$(cat "$TMP/sym12")'" 2>/dev/null ||
       csvq "$TMP/h12.csv" "select length(name) from t where name_raw = '$(cat "$TMP/sym12")'")"

# ---- past the cap: the symbol kept, a message, the rest loaded
mem() { # mem OUT CMD...: runs CMD, its peak RSS in KiB into OUT.rss (GNU time) when there
    _o=$1
    shift
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -f '%M' -o "$_o.rss" "$@"
    else
        echo 0 >"$_o.rss"
        "$@"
    fi
}
mem "$TMP/r21" "$DCUTOP" --report "$TMP/n21" >"$TMP/r21.txt" 2>"$TMP/r21.err"
same "21 levels: --report exits 0" 0 "$?"
check "21 levels: stderr says the name was kept mangled, and why" \
    grep -q "n21/kernel_trace.csv: 1 kernel name kept mangled (_Z1f1A1BIS_S_ES0_IS1_S1_ES0_IS2_S2_ES0_IS3_\.\.\.): demangled, each would pass 64 KiB" "$TMP/r21.err"
check "21 levels: the report's load messages say it too" sh -c \
    "sed -n '/^Load messages/,\$p' '$TMP/r21.txt' | grep -q '1 kernel name kept mangled'"
check "21 levels: peak memory stays small (under 100 MB)" \
    awk '{ exit !($1 < 100000) }' "$TMP/r21.rss"
dexp h21 hotspots "$TMP/n21" || notok "21 levels: --export hotspots exits 0"
same "21 levels: the name is the symbol, and the other kernel is demangled" \
    "$S21|$S21|1;void addone<float>(float*, int)|_Z6addoneIfEvPT_i|1" \
    "$(csvq "$TMP/h21.csv" "select name || '|' || name_raw || '|' || calls from t order by length(name) desc" | tr '\n' ';' | sed 's/;$//')"

mem "$TMP/r26" "$DCUTOP" --report "$TMP/n26" >"$TMP/r26.txt" 2>"$TMP/r26.err"
same "26 levels (872 MB of text): --report exits 0, not out of memory" 0 "$?"
check "26 levels: peak memory stays small (under 100 MB)" \
    awk '{ exit !($1 < 100000) }' "$TMP/r26.rss"
same "26 levels: the symbol is the name" "$S26" \
    "$("$DCUTOP" -q --sql "SELECT name FROM kernels WHERE name LIKE '\\_Z1f%' ESCAPE '\\'" --format csv "$TMP/n26" | sed -n 2p)"
printf '2\n:dump hotspots\n<Enter>\n:dump detail\n' >"$TMP/k.keys"
"$DCUTOP" --headless --size 100x30 --keys "$TMP/k.keys" "$TMP/n26" >"$TMP/k.out" 2>&1
same "26 levels: the terminal view runs its keys and exits 0" 0 "$?"
check "26 levels: the hotspots screen lists the symbol" grep -q '_Z1f1A1BIS_S_ES0_IS1' "$TMP/k.out"
check "26 levels: Kernel detail says why the name is not demangled" sh -c \
    "sed -n '/^--- detail/,\$p' '$TMP/k.out' | grep -q '^    Not demangled: its demangled text would pass 64 KiB'"

# ---- every loader goes through the same cap: a Kineto trace with the 26-level kernel
mkdir -p "$TMP/kj"
printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "%s", "pid": 0, "tid": 7, "ts": 1, "dur": 5, "args": {"stream": 7, "device": 0}}]}\n' \
    "$S26" >"$TMP/kj/t.trace.json"
"$DCUTOP" --export hotspots -o "$TMP/kj.csv" "$TMP/kj" 2>"$TMP/kj.err"
same "Kineto, 26 levels: exit 0 and the symbol is the name" "0 $S26" "$? $(csvq "$TMP/kj.csv" "select name from t")"
check "Kineto, 26 levels: the load message names the file" \
    grep -q "kj/t.trace.json: 1 kernel name kept mangled" "$TMP/kj.err"
