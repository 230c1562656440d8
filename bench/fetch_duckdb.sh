#!/bin/sh
# bench/fetch_duckdb.sh - DuckDB's C library for `make bench` (issue 23): `npm pack` of
# @duckdb/node-bindings-linux-x64 (it ships libduckdb.so) into bench/duckdb/, which git
# ignores; the library is never committed. Prints the library's path; exits 1 without npm
# or a registry (the bench then leaves DuckDB out and says so).
cd "$(dirname "$0")" || exit 1
lib=duckdb/package/libduckdb.so
if ! [ -s "$lib" ]; then
    command -v npm >/dev/null 2>&1 || { echo "fetch_duckdb: npm not found" >&2; exit 1; }
    mkdir -p duckdb && cd duckdb || exit 1
    tgz=$(npm pack --silent @duckdb/node-bindings-linux-x64 2>/dev/null | tail -n 1)
    [ -n "$tgz" ] && [ -s "$tgz" ] && tar xzf "$tgz" package/libduckdb.so || {
        echo "fetch_duckdb: npm pack @duckdb/node-bindings-linux-x64 failed" >&2
        exit 1
    }
    cd .. || exit 1
fi
echo "$(pwd)/$lib"
