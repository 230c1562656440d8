#!/bin/sh
# install-deps.sh - installs the Debian packages dcutop needs, only those missing.
# Usage: scripts/install-deps.sh [build|check|deb|bench]
#   build: compiler and the product's libraries; check: + test tools (with what builds the
#   Debian package and the fresh root it is installed in); deb: + packaging tools; bench: + peers.
#   (check: valgrind for the memcheck test, clang and its libFuzzer runtime for tests/fuzz)
# Runs apt-get only when something is missing, so a second `make check` costs nothing.
set -eu
level=${1:-build}
pkgs="gcc make pkg-config libncurses-dev libsqlite3-dev libpcre2-dev libcsv-dev zlib1g-dev libyajl-dev libiberty-dev"
case "$level" in
    check) pkgs="$pkgs libcmocka-dev sqlite3 tmux gawk valgrind clang libclang-rt-14-dev python3 dpkg-dev fakeroot lintian debootstrap binutils slurm-wlm munge" ;;
    deb) pkgs="$pkgs dpkg-dev fakeroot lintian binutils" ;;
    bench) pkgs="$pkgs libcmocka-dev sqlite3 tmux gawk python3-pandas time libjson-c-dev" ;;
esac
missing=""
for p in $pkgs; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0
echo "install-deps: installing$missing"
if [ "$(id -u)" != 0 ]; then
    SUDO=sudo
else
    SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
