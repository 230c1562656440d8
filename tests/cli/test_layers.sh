#!/bin/sh
# test_layers.sh - the model's floors (src/model/README.md): no file uses a floor above its
# own, no two model files use each other through a chain of calls, no header includes
# itself through others. Read from the built objects' symbols (nm) and the headers.
. tests/cli/lib.sh
B=${BUILD:-build}
if ! command -v nm >/dev/null 2>&1; then
    notok "nm is installed (binutils)"
elif [ ! -d "$B/src/model" ]; then
    notok "the model is built in $B"
else
    /usr/bin/python3 tests/tools/layers.py "$B"
fi
# the checker itself: a call upward must be found (a made-up object set in the temp folder)
mkdir -p "$TMP/src/model/core" "$TMP/src/model/store" "$TMP/b/src/model/core" "$TMP/b/src/model/store"
printf 'int Store_f(void);\nint Core_g(void) { return Store_f(); }\n' >"$TMP/src/model/core/g.c"
printf 'int Core_g(void);\nint Store_f(void) { return 1; }\nint Store_h(void) { return Core_g(); }\n' >"$TMP/src/model/store/f.c"
cc -c -o "$TMP/b/src/model/core/g.o" "$TMP/src/model/core/g.c"
cc -c -o "$TMP/b/src/model/store/f.o" "$TMP/src/model/store/f.c"
(cd "$TMP" && /usr/bin/python3 "$OLDPWD/tests/tools/layers.py" b) >"$TMP/self.out" 2>&1
check "the checker finds a call to a floor above" grep -q '^not ok - no model file uses a floor above' "$TMP/self.out"
check "... and the cycle it makes" grep -q '^# cycle: core/g <-> store/f' "$TMP/self.out"
