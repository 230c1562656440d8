#!/bin/sh
# make-deb.sh - builds dcutop_VERSION_ARCH.deb from an already built ./dcutop:
#   scripts/make-deb.sh VERSION OUTDIR
# The package holds what `make install PREFIX=/usr` installs (the binary, the themes, the man
# page, scripts/dcutop-slurm when present) plus the files Debian policy asks of every
# binary package. Its Depends line is computed by dpkg-shlibdeps from the libraries the
# binary links, so it follows the build machine's libraries instead of a hand-kept list.
set -eu
version=$1
outdir=$2
[ -x dcutop ] || { echo "make-deb: ./dcutop is not built" >&2; exit 2; }
arch=$(dpkg --print-architecture)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root
make --no-print-directory install DESTDIR="$root" PREFIX=/usr >/dev/null
# policy: binaries stripped of debug symbols, man pages compressed
strip --remove-section=.comment --remove-section=.note --strip-unneeded "$root/usr/bin/dcutop"
gzip -9n "$root/usr/share/man/man1/dcutop.1" "$root/usr/share/man/man1/dcutop-slurm.1"
doc=$root/usr/share/doc/dcutop
install -d "$doc"
cat >"$doc/copyright" <<EOT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: dcutop
Source: https://github.com/dcutop/dcutop

Files: *
Copyright: 2026 the dcutop authors
License: unchosen
 The project has not chosen a licence yet (the repository has no LICENSE file). Until
 it does, the authors keep all rights; this field is to be replaced by the licence text
 the day one is chosen.
EOT
date=$(git log -1 --format=%cD 2>/dev/null || date -R)
cat >"$work/changelog" <<EOT
dcutop ($version) unstable; urgency=medium

  * Built from the dcutop source tree ($(git rev-parse --short HEAD 2>/dev/null || echo unknown)).

 -- dcutop maintainers <dcutop@users.noreply.github.com>  $date
EOT
gzip -9nc "$work/changelog" >"$doc/changelog.gz"
# Depends from the binary's libraries (dpkg-shlibdeps wants a debian/control beside it)
mkdir -p "$work/src/debian"
printf 'Source: dcutop\n\nPackage: dcutop\nArchitecture: any\n' >"$work/src/debian/control"
cp dcutop "$work/src/dcutop"
deps=$(cd "$work/src" && dpkg-shlibdeps -O -e dcutop 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$deps" ] || { echo "make-deb: dpkg-shlibdeps found no dependencies" >&2; exit 2; }
size=$(du -sk "$root/usr" | cut -f1)
install -d "$root/DEBIAN"
cat >"$root/DEBIAN/control" <<EOT
Package: dcutop
Version: $version
Architecture: $arch
Maintainer: dcutop maintainers <dcutop@users.noreply.github.com>
Installed-Size: $size
Depends: $deps
Suggests: slurm-client
Section: devel
Priority: optional
Homepage: https://github.com/dcutop/dcutop
Description: terminal explorer for GPU profiler traces (DCU, ROCm, PyTorch)
 dcutop opens a profiler output folder (Hygon hipprof, AMD rocprof v1/v2/v3,
 rocpd and RPD databases, PyTorch profiler traces) and shows kernel hotspots,
 GEMM and non-GEMM categories with Amdahl ceilings, idle time and its causes,
 call stacks, ranks of a job, and A/B and A-B-B-A comparisons, from the
 keyboard or as batch reports.
EOT
(cd "$root" && find usr -type f -exec md5sum {} + | sort -k2) >"$root/DEBIAN/md5sums"
mkdir -p "$outdir"
deb=$outdir/dcutop_${version}_$arch.deb
fakeroot dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
