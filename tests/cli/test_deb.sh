#!/bin/sh
# test_deb.sh - the Debian package (make deb): lintian finds no error or warning, it declares
# a dependency for every library the binary links and holds what `make install` installs,
# and installed with apt on a fresh Debian root (debootstrap, no container) its dcutop runs
# and writes the same report as the tree's. check-full only (CHECK_FULL=1): the fresh root
# is a ~200 MB download.
. tests/cli/lib.sh
if [ -z "${CHECK_FULL:-}" ] || [ -n "${DCUTOP_SANITIZED:-}" ]; then
    ok "# SKIP the Debian package is checked by make check-full"
    exit 0
fi
make --no-print-directory deb DEB_OUT="$TMP/out" >"$TMP/make.log" 2>&1
deb=$(ls "$TMP"/out/dcutop_*.deb 2>/dev/null | head -1)
check "make deb builds a package" test -s "$deb"
[ -s "$deb" ] || { sed "s/^/#   /" "$TMP/make.log"; exit 1; }
lintian --fail-on error,warning "$deb" >"$TMP/lintian" 2>&1
check "lintian: no error, no warning" test $? -eq 0
grep -E '^[EW]:' "$TMP/lintian" | head -5

# every NEEDED library of the binary comes from a package the control file depends on
dpkg-deb -f "$deb" Depends >"$TMP/depends"
missing=""
for lib in $(objdump -p "$DCUTOP" | awk '/NEEDED/{print $2}'); do
    path=$(ldconfig -p | awk -v l="$lib" '$1 == l {print $NF; exit}')
    real=$(readlink -f "$path")
    # usrmerge: dpkg knows the file under /lib or /usr/lib
    pkg=$( (dpkg -S "$real" || dpkg -S "${real#/usr}" || dpkg -S "$path" || dpkg -S "${path#/usr}") 2>/dev/null |
        head -1 | cut -d: -f1)
    grep -q "$pkg\b" "$TMP/depends" || missing="$missing $lib($pkg)"
done
same "Depends names the package of every linked library" "" "$missing"
dpkg-deb -c "$deb" | awk '{print $NF}' | sed 's|^\./||' | sort >"$TMP/files"
make --no-print-directory install DESTDIR="$TMP/inst" PREFIX=/usr >/dev/null
(cd "$TMP/inst" && find usr -type f | sed 's|share/man/man1/dcutop\(-slurm\)\{0,1\}\.1$|&.gz|' | sort) >"$TMP/want"
comm -13 "$TMP/files" "$TMP/want" >"$TMP/absent"
same "the package holds everything make install installs" "" "$(cat "$TMP/absent")"

# a fresh Debian root: debootstrap, then apt installs the package and its dependencies
mirror=${DEB_MIRROR:-http://deb.debian.org/debian}
suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
root=$TMP/root
if debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$TMP/dbs.log" 2>&1; then
    cp "$deb" "$root/tmp/"
    chroot "$root" sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq /tmp/$(basename "$deb")" \
        >"$TMP/apt.log" 2>&1
    check "apt installs the package on a fresh $suite root" test $? -eq 0
    tail -3 "$TMP/apt.log" | sed 's/^/#   /'
    same "dcutop --version from the package" "$("$DCUTOP" --version)" "$(chroot "$root" dcutop --version 2>&1)"
    cp -r sample-traces/dcu-weather-transformer "$root/tmp/s"
    cp -r sample-traces/dcu-weather-transformer "$TMP/s"
    chroot "$root" dcutop -q --view categories --format csv /tmp/s >"$TMP/pkg.csv" 2>"$TMP/pkg.err"
    "$DCUTOP" -q --view categories --format csv "$TMP/s" >"$TMP/tree.csv" 2>/dev/null
    check "a report from the installed dcutop" test -s "$TMP/pkg.csv"
    check "the installed dcutop's report equals the tree's" cmp -s "$TMP/pkg.csv" "$TMP/tree.csv"
    check "the installed dcutop finds its themes" test -f "$root/usr/share/dcutop/themes/default.theme"
else
    # no mirror reachable: said, not passed silently
    notok "debootstrap $suite from $mirror failed (no network?)"
    tail -3 "$TMP/dbs.log" | sed 's/^/#   /'
fi
