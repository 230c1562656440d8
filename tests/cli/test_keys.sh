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
