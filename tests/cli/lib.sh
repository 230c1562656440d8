# lib.sh - helpers for CLI tests (sourced). Prints TAP-style "ok - ..." / "not ok - ...".
DCUTOP=${DCUTOP:-./dcutop}
REAL=tests/data/real   # the real profiler outputs the tests read, copied in with their SOURCE.txt
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; }
# check DESC CMD...: ok when CMD succeeds
check() {
    d=$1
    shift
    if "$@"; then ok "$d"; else notok "$d"; fi
}
# same DESC EXPECTED ACTUAL
same() {
    if [ "$2" = "$3" ]; then ok "$1"; else notok "$1"; echo "#   expected: $2"; echo "#   actual:   $3"; fi
}
# near DESC A B TOL: |A-B| <= TOL
near() {
    if awk -v a="$2" -v b="$3" -v t="$4" 'BEGIN{d=a-b; if(d<0)d=-d; exit !(d<=t)}'; then
        ok "$1"
    else
        notok "$1"; echo "#   $2 vs $3 (tolerance $4)"
    fi
}
# exits DESC CODE CMD...: CMD exits with CODE
exits() {
    d=$1
    c=$2
    shift 2
    "$@" >"$TMP/out" 2>"$TMP/err"
    r=$?
    if [ "$r" -eq "$c" ]; then ok "$d"; else notok "$d"; echo "#   exit $r, expected $c"; head -3 "$TMP/err"; fi
}
