# test_screens.sh - golden screens: each tests/screens/NAME.keys is replayed headless and
# its dumps compared as text with NAME.expected (make update-golden rewrites them).
. tests/cli/lib.sh
for k in tests/screens/*.keys; do
    name=$(basename "$k" .keys)
    size=$(sed -n 's/^# size: *//p' "$k" | head -1)
    trace=$(sed -n 's/^# trace: *//p' "$k" | head -1)
    args=$(sed -n 's/^# args: *//p' "$k" | head -1)   # options and several paths (no spaces)
    exp="${k%.keys}.expected"
    if [ ! -f "$exp" ]; then
        notok "screens/$name: no $exp (run make update-golden and review it)"
        continue
    fi
    mkdir -p "$TMP/state-$name"   # the ; prompt's history: empty, and inside $TMP
    # shellcheck disable=SC2086
    XDG_STATE_HOME="$TMP/state-$name" "$DCUTOP" --headless --size "${size:-100x30}" --keys "$k" $args \
        "${trace:-sample-traces/dcu-weather-transformer}" >"$TMP/$name.out" 2>"$TMP/$name.err"
    rc=$?
    if [ $rc -ne 0 ]; then
        notok "screens/$name exits 0 (got $rc)"
        head -3 "$TMP/$name.err"
        continue
    fi
    if diff -u "$exp" "$TMP/$name.out" >"$TMP/$name.diff"; then
        ok "screens/$name matches $exp"
    else
        notok "screens/$name matches $exp"
        head -30 "$TMP/$name.diff" | sed 's/^/#   /'
    fi
done
