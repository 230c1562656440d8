#!/bin/sh
# bench/bundle.sh DIR - what duckdb_bench.sh needs on a host with no development packages and
# no package registry (the 16-core GPU host of issue 23): the dcutop binary, the generators,
# the DuckDB driver, the DuckDB package as npm packed it, and every shared library they link
# that is not glibc's or the C++ runtime's (found with ldd: an older libstdc++ first on the
# path would break DuckDB and the host's own C++ programs). On that host:
#   tar xzf DIR/duckdb.tgz -C DIR && LD_LIBRARY_PATH=DIR/lib DCUTOP=DIR/dcutop \
#   GEN=DIR/gen_results_csv KGEN=DIR/gen_kineto_json DUCKDB_CSV=DIR/duckdb_csv \
#   DUCKDB_LIB=DIR/package/libduckdb.so TIMEBIN=DIR/time sh bench/duckdb_bench.sh
# Build first (make all and the bench targets); DIR is created.
set -eu
cd "$(dirname "$0")/.."
D=${1:?usage: bench/bundle.sh DIR}
B=${BUILD:-build}
mkdir -p "$D/lib"
for f in ./dcutop "$B/bench/gen_results_csv" "$B/bench/gen_kineto_json" "$B/bench/duckdb_csv"; do
    cp "$f" "$D/"
    ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// {print $3}' |
        grep -v -E '/(libc|libm|libpthread|libdl|librt|libstdc\+\+|libgcc_s|ld-linux[^/]*)\.so' |
        while read -r lib; do cp -L "$lib" "$D/lib/"; done
done
[ -x /usr/bin/time ] && cp /usr/bin/time "$D/time" # GNU time: wall and peak RSS (TIMEBIN=DIR/time)
sh bench/fetch_duckdb.sh >/dev/null
cp bench/duckdb/*.tgz "$D/duckdb.tgz"
du -sh "$D"
