#!/bin/sh
# update-golden.sh - rewrites the golden outputs from the current build, on purpose.
# Review `git diff tests/golden tests/screens` before committing.
set -eu
DCUTOP=${DCUTOP:-./dcutop}
export TZ=UTC LC_ALL=C.UTF-8 NO_COLOR=1
export XDG_CONFIG_HOME="$(mktemp -d)"
$DCUTOP --report --width 120 sample-traces/dcu-weather-transformer > tests/golden/weather-report.txt
if [ -d tests/screens ] && ls tests/screens/*.keys >/dev/null 2>&1; then
    for k in tests/screens/*.keys; do
        size=$(sed -n 's/^# size: *//p' "$k" | head -1)
        trace=$(sed -n 's/^# trace: *//p' "$k" | head -1)
        args=$(sed -n 's/^# args: *//p' "$k" | head -1)
        # shellcheck disable=SC2086 # args: extra words before the trace, as test_screens.sh
        XDG_STATE_HOME="$(mktemp -d)" $DCUTOP --headless --size "${size:-100x30}" --keys "$k" $args "${trace:-sample-traces/dcu-weather-transformer}" \
            > "${k%.keys}.expected"
    done
fi
sh tests/tools/same-results.sh write
rm -rf "$XDG_CONFIG_HOME"
echo "golden files rewritten; review: git diff tests/golden tests/screens"
