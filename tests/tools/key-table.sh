#!/bin/sh
# key-table.sh - prints the rows of the program's own help screen (drawn headless from the
# key table) as | screen | keys | action | what |. test_docs.sh checks doc/keys.md (written
# by `make docs` from the same table) against it.
DCUTOP=${DCUTOP:-./dcutop}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
printf '?\n:dump help\n' >"$T/h.keys"
XDG_CONFIG_HOME="$T" "$DCUTOP" --headless --size 200x200 --keys "$T/h.keys" \
    "${TRACE:-sample-traces/dcu-weather-transformer}" >"$T/h.out" || exit 1
awk '
/^  [A-Z][A-Za-z]* screen|^  Every screen|^  Without a key/ {
    sec = $0; sub(/^  /, "", sec); sub(/ screen.*/, "", sec)
    if (sec ~ /^Without/) sec = "none"
    next
}
/^  Numbers/ { exit }
sec != "" && sec != "none" && /^  [^ ]/ && length($0) > 48 {
    keys = substr($0, 3, 26); act = substr($0, 30, 18); help = substr($0, 49)
    gsub(/ +$/, "", keys); gsub(/ +$/, "", act)
    n = split(keys, k, " "); ks = ""
    for (i = 1; i <= n; i++) ks = ks (i > 1 ? " " : "") "`" k[i] "`"
    printf "| %s | %s | `%s` | %s |\n", (sec == "Every" ? "every screen" : tolower(sec)), ks, act, help
}' "$T/h.out"
