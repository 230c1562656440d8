#!/bin/sh
# gen-docs.sh DOCGEN [OUT] - writes the generated documents into OUT (default: .):
# OUT/doc/keys.md, OUT/doc/options.md; OUT/dcutop.1, whose part between the two GENERATED
# marker lines is replaced by `DOCGEN man`; and OUT/README.md, whose screenshot (between its
# two SCREENSHOT marker lines) is the Summary of the bundled sample at 100x30, as $DCUTOP
# (default ./dcutop) draws it headless. The rest of dcutop.1 and README.md is written by
# hand and read from this folder. `make docs` runs it on the tree; tests/cli/test_docs.sh
# runs it into a temp folder and compares.
set -eu
DOCGEN=$1
OUT=${2:-.}
mkdir -p "$OUT/doc"
"$DOCGEN" keys-md >"$OUT/doc/keys.md.tmp"
"$DOCGEN" options-md >"$OUT/doc/options.md.tmp"
"$DOCGEN" man >"$OUT/man.tmp"
grep -q '^\.\\" BEGIN GENERATED' dcutop.1 && grep -q '^\.\\" END GENERATED' dcutop.1 || {
    echo "gen-docs.sh: dcutop.1 has no BEGIN GENERATED / END GENERATED marker lines" >&2
    exit 1
}
awk -v gen="$OUT/man.tmp" '
/^\.\\" BEGIN GENERATED/ { print; while ((getline l < gen) > 0) print l; skip = 1; next }
/^\.\\" END GENERATED/ { skip = 0 }
!skip' dcutop.1 >"$OUT/dcutop.1.tmp"
rm -f "$OUT/man.tmp"

DCUTOP=${DCUTOP:-./dcutop}
keys=$(mktemp)
printf ':dump summary\n' >"$keys"
TZ=UTC LC_ALL=C.UTF-8 NO_COLOR=1 XDG_CONFIG_HOME=/nonexistent "$DCUTOP" --headless --size 100x30 \
    --keys "$keys" sample-traces/dcu-weather-transformer 2>/dev/null |
    sed '1d; s/ *$//' >"$OUT/shot.tmp"
rm -f "$keys"
[ -s "$OUT/shot.tmp" ] || { echo "gen-docs.sh: $DCUTOP drew no Summary" >&2; exit 1; }
awk -v shot="$OUT/shot.tmp" '
/^<!-- BEGIN SCREENSHOT/ { print; print "```text"; while ((getline l < shot) > 0) print l
                           print "```"; skip = 1; next }
/^<!-- END SCREENSHOT/ { skip = 0 }
!skip' README.md >"$OUT/README.md.tmp"
rm -f "$OUT/shot.tmp"
mv "$OUT/README.md.tmp" "$OUT/README.md"
mv "$OUT/doc/keys.md.tmp" "$OUT/doc/keys.md"
mv "$OUT/doc/options.md.tmp" "$OUT/doc/options.md"
mv "$OUT/dcutop.1.tmp" "$OUT/dcutop.1"
