# test_keys.sh - the keys are honest (issue 13, points 11-21): the help lists every bound
# action with its real keys, grouped by screen; q goes back a level; rc typos warn.
. tests/cli/lib.sh
W=$(pwd)/sample-traces/dcu-weather-transformer
D=$(pwd)/$DCUTOP
case "$DCUTOP" in /*) D=$DCUTOP ;; esac

# --- 11. help: every key of every screen, the current screen first --------------------------
printf '3?\n:dump help\n' >"$TMP/h.keys"
"$D" --headless --size 140x160 --keys "$TMP/h.keys" "$W" >"$TMP/h.out" 2>&1
check "help never says (unbound)" sh -c "! grep -q '(unbound)' '$TMP/h.out'"
first=$(grep -m1 -E '^  [A-Z][a-z]+ screen|^  Every screen' "$TMP/h.out" | sed 's/^ *//')
same "the help for Categories starts with the Categories keys" "Categories screen (this one)" "$first"
check "what-if-up shows its key +" grep -qE '^  \+ +what-if-up ' "$TMP/h.out"
check "cold-start shows its key i" grep -qE '^  i +cold-start ' "$TMP/h.out"
check "expand shows + and <Right>" grep -qE '^  \+ <Right> +expand ' "$TMP/h.out"
check "sort-prev shows < (not <Lt>)" grep -qE '^  < +sort-prev ' "$TMP/h.out"
check "no <Lt> anywhere" sh -c "! grep -q '<Lt>' '$TMP/h.out'"
# every action of the X-macro list (include/dcutop/keymap.h) is on the help screen
missing=""
for a in $(sed -n 's/^ *_([A-Z_]*, "\([a-z-]*\)",.*/\1/p' include/dcutop/keymap.h); do
    [ "$a" = none ] && continue
    grep -qE "^  .{26} $a " "$TMP/h.out" || missing="$missing $a"
done
same "every action is listed with its keys" "" "$missing"
printf '6?\n:dump help\n' >"$TMP/hs.keys"
"$D" --headless --size 140x160 --keys "$TMP/hs.keys" "$W" >"$TMP/hs.out" 2>&1
first=$(grep -m1 -E '^  [A-Z][a-z]+ screen|^  Every screen' "$TMP/hs.out" | sed 's/^ *//')
same "the help for Stacks starts with the Stacks keys" "Stacks screen (this one)" "$first"
check "on Stacks, enter is <Enter> only (<Right> expands there)" grep -qE '^  <Enter> +enter ' "$TMP/hs.out"

# --- 12. q goes back a level from help and drilled-in screens; quits from a top screen -----
printf '2<Enter>?q\n:dump after-q-on-help\nq\n:dump after-q-on-detail\nq\n:dump never\n' >"$TMP/q.keys"
"$D" --headless --size 100x30 --keys "$TMP/q.keys" "$W" >"$TMP/q.out" 2>&1
crumb=$(sed -n '/--- after-q-on-help/{n;n;p;q}' "$TMP/q.out")
case "$crumb" in *"> Hotspots > "*) ok "q on help goes back to the kernel detail" ;;
    *) notok "q on help goes back to the kernel detail"; echo "#   $crumb" ;; esac
check "q on the kernel detail goes back to Hotspots (its table shows)" sh -c \
    "sed -n '/--- after-q-on-detail/,\$p' '$TMP/q.out' | grep -q ' Calls '"
check "q on a top screen quits (the script stops there)" sh -c "! grep -q -- '--- never' '$TMP/q.out'"
check "the footer of a drilled-in screen says q Back" sh -c \
    "sed -n '/--- after-q-on-help/,/^--- /p' '$TMP/q.out' | grep -q 'qBack'"

# --- 18. an rc file with a typo warns on the status line and loads the rest ---------------
mkdir -p "$TMP/cfg/dcutop"
printf 'bind generic x screen-categories\nbind hotspot s sort-next\nbind generic z screen-api\n' \
    >"$TMP/cfg/dcutop/dcutoprc"
printf ':dump start\nz\n:dump z\n' >"$TMP/rc.keys"
XDG_CONFIG_HOME="$TMP/cfg" "$D" --headless --size 100x30 --keys "$TMP/rc.keys" "$W" >"$TMP/rc.out" 2>"$TMP/rc.err"
same "dcutop starts despite the typo (exit 0)" 0 $?
check "the status line names the bad line" grep -q "dcutoprc:2: unknown screen 'hotspot'" "$TMP/rc.out"
check "the line after the typo is loaded (z opens API)" sh -c \
    "sed -n '/--- z /,\$p' '$TMP/rc.out' | grep -q '^ API  *Domain'"

# --- 20. make install with PREFIX and DESTDIR; the man page matches --help -------------------
"$DCUTOP" --help | grep -oE '^ {2,6}(-[a-zA-Z], )?--[a-z][a-z-]*' | grep -oE -- '--[a-z][a-z-]*$' |
    sort -u >"$TMP/help.opts"
sed 's/\\-/-/g' dcutop.1 | grep -oE -- '--[a-z][a-z-]*' | grep -v -- '--kernel-stack' | sort -u >"$TMP/man.opts"
same "every option of --help is in dcutop.1 and the other way round" "" \
    "$(comm -3 "$TMP/help.opts" "$TMP/man.opts" | tr -d '\t' | tr '\n' ' ')"
if command -v man >/dev/null 2>&1 || command -v groff >/dev/null 2>&1; then
    check "man ./dcutop.1 renders (an OPTIONS section)" sh -c \
        "MANWIDTH=80 man ./dcutop.1 2>/dev/null | grep -q '^OPTIONS' || groff -man -Tutf8 dcutop.1 2>/dev/null | grep -q OPTIONS"
fi
# Not in the sanitized pass: run from inside make, a sub-make inherits its BUILD and OPT and
# would relink ./dcutop with the sanitizers (and valgrind after it would fail); the plain
# pass covers this. MAKEFLAGS is cleared so that only the install runs.
if [ -n "${DCUTOP_SANITIZED:-}" ]; then
    echo "# make install: checked in the plain pass"
elif command -v make >/dev/null 2>&1 && [ -f Makefile ]; then
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES \
        make -s install PREFIX=/opt/dcu DESTDIR="$TMP/stage" >"$TMP/install.out" 2>&1
    same "make install exits 0" 0 $?
    check "the binary is in PREFIX/bin" test -x "$TMP/stage/opt/dcu/bin/dcutop"
    check "the themes are in PREFIX/share/dcutop/themes" test -f "$TMP/stage/opt/dcu/share/dcutop/themes/light.theme"
    check "the man page is in PREFIX/share/man/man1" cmp -s dcutop.1 "$TMP/stage/opt/dcu/share/man/man1/dcutop.1"
    # light is not compiled in: the installed binary finds it under ../share/dcutop/themes
    printf ':dump s\n' >"$TMP/s.keys"
    exits "the installed binary loads --theme light from its share dir" 0 \
        "$TMP/stage/opt/dcu/bin/dcutop" --headless --theme light --keys "$TMP/s.keys" "$W"
fi

# --- 21. --help names every input format read ------------------------------------------------
for f in CSV databases RPD JSON Kineto stacks 'step times' rocpd hipprof rocprofv3; do
    check "--help lists the input format '$f'" sh -c "\"$DCUTOP\" --help | grep -q '$f'"
done

# (the option and key tables of doc/options.md, doc/keys.md and dcutop.1: test_docs.sh)

# --- 19. the export prompt remembers the last folder; the overwrite question shows y/N -----
mkdir -p "$TMP/ex/out"
printf '2e<C-u>out/first.csv<Enter>3e\n:dump second-prompt\n<Esc>2e<C-u>out/first.csv<Enter>\n:dump overwrite\nn\n' \
    >"$TMP/ex.keys"
(cd "$TMP/ex" && "$D" --headless --size 100x30 --keys ../ex.keys "$W" >../ex.out 2>&1)
check "the first export is written into out/" test -f "$TMP/ex/out/first.csv"
check "the next export prompt starts in out/" sh -c \
    "sed -n '/--- second-prompt/,/^--- /p' '$TMP/ex.out' | grep -q 'Export to CSV: out/categories.csv'"
check "the overwrite question shows the y/N footer" sh -c \
    "sed -n '/--- overwrite/,\$p' '$TMP/ex.out' | grep -q 'yOverwrite NKeep'"

# --- 16. Files has a tab and is in the Tab cycle; the report's Files Status is whole ------
printf '0\n:dump files\nU<Tab>\n:dump tab-after-runs\n' >"$TMP/f.keys"
"$D" --headless --size 100x30 --keys "$TMP/f.keys" "$W" >"$TMP/f.out" 2>&1
check "the tab strip has a Files tab" sh -c "sed -n '3p' '$TMP/f.out' | grep -q ' 0 Files'"
check "Tab after Runs goes to Files" sh -c \
    "sed -n '/--- tab-after-runs/,\$p' '$TMP/f.out' | grep -q '^ File  *Format'"
"$D" --report --width 120 "$W" >"$TMP/rep.txt"
"$D" --export files -o "$TMP/files.csv" "$W"
# every status (from the CSV export) is in the report, its wrapped lines joined
python3 - "$TMP/files.csv" "$TMP/rep.txt" <<'PY'
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
text = open(sys.argv[2]).read().split("\n\n")[1]            # the Files block
joined = re.sub(r"\n {20,}", " ", text)
bad = [r["status"] for r in rows if r["status"] not in joined]
print(("ok" if rows and not bad else "not ok") + " - the report's Files Status is whole at 120 columns")
for b in bad:
    print("#   missing: " + b)
PY
check "no Files line of the report is wider than 120" sh -c \
    "sed -n '/^Files\$/,/^\$/p' '$TMP/rep.txt' | awk 'length(\$0) > 120' | grep -q . && exit 1 || exit 0"

# --- 13. filter: Esc restores the selection; it matches the category; totals of its rows ---
printf '2<Down><Down><Down>\n:dump before\n/gemm<Esc>\n:dump cancelled\n' >"$TMP/fc.keys"
"$D" --headless --size 100x30 --keys "$TMP/fc.keys" "$W" >"$TMP/fc.out" 2>&1
before=$(sed -n '/--- before/,/^--- /p' "$TMP/fc.out" | grep -oE '^[0-9]+/[0-9]+ ' | head -1)
after=$(sed -n '/--- cancelled/,$p' "$TMP/fc.out" | grep -oE '^[0-9]+/[0-9]+ ' | head -1)
same "Esc on the filter prompt gives back the selected row" "4/18 " "$after"
same "(the row selected before the prompt)" "4/18 " "$before"
printf '2/gemm<Enter>\n:dump filtered\n' >"$TMP/fg.keys"
"$D" --headless --size 100x30 --keys "$TMP/fg.keys" "$W" >"$TMP/fg.out" 2>&1
# independently: the kernels of category gemm, their time and share, from the CSV export
"$D" --export hotspots "$W" | python3 -c '
import csv, sys
rows = [r for r in csv.DictReader(sys.stdin) if "gemm" in (r["name"] + r["short_name"] + r["category"]).lower()]
ns = sum(int(r["total_ns"]) for r in rows); pct = sum(float(r["pct"]) for r in rows)
print("%d rows, %.1f ms, %.2f%%" % (len(rows), ns / 1e6, pct))' >"$TMP/fg.want"
want=$(cat "$TMP/fg.want")
check "/gemm finds the gemm rows and the header totals them ($want)" \
    grep -qF "filter /gemm/: $want" "$TMP/fg.out"
same "the issue's figure" "6 rows, 181.0 ms, 21.94%" "$want"
"$D" --export hotspots --filter gemm "$W" >"$TMP/fgx.csv"
same "--filter gemm exports the six gemm-category kernels" 6 "$(($(wc -l <"$TMP/fgx.csv") - 1))"
"$D" --export hotspots --filter '!gemm' "$W" | cut -d, -f3 | grep -c '"gemm"' >"$TMP/neg" || true
same "--filter '!gemm' leaves every gemm-category kernel out" 0 "$(cat "$TMP/neg")"
printf '2/gemm<Enter><Esc>n\n:dump n\n' >"$TMP/fn.keys"
"$D" --headless --size 100x30 --keys "$TMP/fn.keys" "$W" >"$TMP/fn.out" 2>&1
check "n jumps to a row whose category matches the last pattern" sh -c \
    "sed -n '/--- n /,\$p' '$TMP/fn.out' | grep -qE '^[0-9]+/18  Cijk_'"

# --- 14. F6 lists every column, hidden ones too; the sort arrow does not shift the header ---
printf '2<F6>\n:dump menu\n<Esc><F6><Down><Down><Down><Down><Down><Down><Enter>\n:dump by-min\n' >"$TMP/m.keys"
"$D" --headless --size 100x40 --keys "$TMP/m.keys" "$W" >"$TMP/m.out" 2>&1
items=$(sed -n '/--- menu/,/^--- /p' "$TMP/m.out" | sed -n '5,60p' | grep -cE '^│ [A-Z%][A-Za-z%]*( [a-z]+)?( \([a-z_]+, hidden\))? ')
check "F6 lists a column the width hides (Min)" grep -q '^│ Min (min_ns, hidden) ' "$TMP/m.out"
check "picking a hidden column sorts by it (the smallest minimum is last)" sh -c \
    "sed -n '/--- by-min/,\$p' '$TMP/m.out' | grep -q 'Cijk_H_PostGSU'"
[ "$items" -ge 15 ] && ok "F6 lists $items columns" || notok "F6 lists $items columns (want >= 15)"
printf '3\n:dump cats\n<F6><Home><Down><Down><Enter>\n:dump cats-by-kernels\n' >"$TMP/a.keys"
"$D" --headless --size 100x30 --keys "$TMP/a.keys" "$W" >"$TMP/a.out" 2>&1
h1=$(sed -n '/--- cats (/,/^--- /p' "$TMP/a.out" | grep -m1 'Kernels')
h2=$(sed -n '/--- cats-by-kernels/,$p' "$TMP/a.out" | grep -m1 'Kernels')
p1=$(printf '%s\n' "$h1" | awk '{print index($0, "Kernels")}')
p2=$(printf '%s\n' "$h2" | awk '{print index($0, "Kernels")}')
check "the header was sorted by another column" sh -c "printf '%s' '$h2' | grep -q 'Kernels[▼▲]'"
same "the Kernels title stays in place when its column gets the arrow" "$p1" "$p2"

# --- 17. mouse, as htop: click a tab or a row, the wheel scrolls, double-click opens ---------
printf '2\n:dump hot\n' >"$TMP/ms0.keys"
"$D" --headless --size 100x30 --keys "$TMP/ms0.keys" "$W" >"$TMP/ms0.out" 2>&1
tabx=$(sed -n '3p' "$TMP/ms0.out" | awk '{print index($0, " 3 ") + 2}')
cat >"$TMP/ms.keys" <<K
2
:mouse click 10 5
:dump row-click
:mouse wheel-down 10 10
:dump wheel
:mouse click $tabx 1
:dump tab-click
:mouse click 0 1
2
:mouse double 10 3
:dump double
K
"$D" --headless --size 100x30 --keys "$TMP/ms.keys" "$W" >"$TMP/ms.out" 2>&1
sel() { sed -n "/--- $1 /,/^--- /p" "$TMP/ms.out" | grep -oE '^[0-9]+/[0-9]+ ' | head -1; }
same "a click on the third row selects it" "3/18 " "$(sel row-click)"
same "the wheel moves the selection three rows" "6/18 " "$(sel wheel)"
check "a click on the Categories tab opens Categories" sh -c \
    "sed -n '/--- tab-click/,/^--- /p' '$TMP/ms.out' | grep -q '^ Category  *Group'"
check "a double click on a row opens its kernel detail" sh -c \
    "sed -n '/--- double/,\$p' '$TMP/ms.out' | grep -q 'Full name'"
check "--no-mouse is an option" sh -c "\"$DCUTOP\" --help | grep -q -- '--no-mouse'"
exits "--no-mouse is accepted" 0 "$D" --no-mouse --headless --keys "$TMP/ms0.keys" "$W"

# --- 15. below 80x24 a "terminal too small" message rather than cut lines ---------------------
printf '2\n:dump s\n' >"$TMP/small.keys"
for sz in 79x24 80x23; do
    "$D" --headless --size $sz --keys "$TMP/small.keys" "$W" >"$TMP/small.out" 2>&1
    check "$sz: terminal too small, needs 80x24" sh -c \
        "grep -q 'Terminal too small ($sz)' '$TMP/small.out' && grep -q 'needs 80x24' '$TMP/small.out'"
done
"$D" --headless --size 80x24 --keys "$TMP/small.keys" "$W" >"$TMP/small.out" 2>&1
check "80x24 is drawn (Hotspots table)" grep -q '^ Kernel ' "$TMP/small.out"

# --- 15. at 80x24 the API and Copies i views keep names apart and their columns on screen ----
CT="$SHARED/sample-traces-real/pytorch-h200-climate-transformer/climate_train.trace.json.gz"
if [ -f "$CT" ]; then
    printf '4i\n:dump api-i\n5i\n:dump copies-i\n' >"$TMP/i80.keys"
    "$D" --headless --size 80x24 --keys "$TMP/i80.keys" "$CT" >"$TMP/i80.out" 2>/dev/null
    for v in api-i copies-i; do
        sed -n "/--- $v /,/^--- /p" "$TMP/i80.out" | sed -n '5,20p' | grep -E '^ [A-Za-z]' |
            sed 's/   *.*//' >"$TMP/$v.names"
        n=$(wc -l <"$TMP/$v.names")
        u=$(sort -u "$TMP/$v.names" | wc -l)
        check "$v at 80x24: $n rows, every name told apart" test "$n" -gt 1 -a "$n" -eq "$u"
        check "$v at 80x24: the steady total column is on screen, title whole" sh -c \
            "sed -n '/--- $v /,/^--- /p' '$TMP/i80.out' | sed -n '4p' | grep -qE 'SteadyTotal us *\$'"
    done
fi

# --- 15. at 80x24 a Summary line too long for the width ends with … ---------------------------
if [ -f "$CT" ]; then
    printf ':dump summary\n' >"$TMP/s80.keys"
    "$D" --headless --size 80x24 --keys "$TMP/s80.keys" "$CT" >"$TMP/s80.out" 2>/dev/null
    check "the cut Trace line ends with …" grep -qE '^  Trace .*…$' "$TMP/s80.out"
    # a line that fills the width and is cut says so: every 80-cell Summary line ends with …
    long=$(sed -n '4,22p' "$TMP/s80.out" | awk '{ if (length($0) >= 80) print }' | grep -vc '…$')
    same "no full-width Summary line is cut without …" 0 "$long"
fi

# --- 15. at 80x24 breadcrumbs keep every step: the kernel name is what gets shortened --------
printf '3<Down><Down><Enter><Enter>\n:dump ck\n<Enter>\n:dump ckd\n' >"$TMP/bc.keys"
"$D" --headless --size 80x24 --keys "$TMP/bc.keys" "$W" >"$TMP/bc.out" 2>&1
check "80x24: the kernel detail's crumb still says Categories > copy >" sh -c \
    "sed -n '/--- ck /,/^--- /p' '$TMP/bc.out' | sed -n '3p' | grep -q '> Categories > copy > '"
check "80x24: the dispatches crumb still ends with > dispatches" sh -c \
    "sed -n '/--- ckd /,\$p' '$TMP/bc.out' | sed -n '3p' | grep -q '> dispatches\$'"
