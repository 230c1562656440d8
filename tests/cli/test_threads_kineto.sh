#!/bin/sh
# test_threads_kineto.sh - --threads N on Kineto JSON (issue 23): the traceEvents array cut
# into chunks parsed by worker threads gives the same report, exports and SQL answers with
# 1, 2, 3 and 16 threads, on the real PyTorch traces (decompressed: only a plain file is
# read in chunks; DCUTOP_JSON_CHUNK_BYTES makes the chunks small) and on a generated trace
# over the 8 MiB from which a read goes in chunks by default; a truncated copy of it gives
# the same rows and the same message, naming the file and the byte.
. tests/cli/lib.sh
${CC:-cc} -O2 -o "$TMP/gen" bench/gen_kineto_json.c || exit 2
mkdir "$TMP/real" "$TMP/gen.d" "$TMP/cut"
for d in pytorch-h200-climate-transformer pytorch-h200-ddp-2rank pytorch-kineto-mi300-qwen \
         pytorch-h200-abba-sdpa; do
    cp -R "tests/data/real/$d" "$TMP/real/$d"
done
for f in $(find "$TMP/real" -name '*.json.gz'); do
    gzip -dc "$f" >"${f%.gz}" && rm "$f"
done
"$TMP/gen" 12000 "$TMP/gen.d/trace.json" >/dev/null 2>&1 || exit 2
size=$(wc -c <"$TMP/gen.d/trace.json")
check "the generated trace is over 8 MiB" [ "$size" -gt 8388608 ]
head -c $((size * 2 / 3)) "$TMP/gen.d/trace.json" >"$TMP/cut/trace.json"
SQL="SELECT (SELECT count(*) FROM dispatch), (SELECT sum(dur_ns) FROM dispatch), (SELECT count(*) FROM api_call), (SELECT count(*) FROM cpu_op), (SELECT count(*) FROM ext_link), (SELECT count(*) FROM range), (SELECT group_concat(message, '|') FROM load_message)"
run_all() { # NAME PATH [env]
    for t in 1 2 3 16; do
        env $3 "$DCUTOP" -q --threads "$t" --report --width 160 "$2" >"$TMP/$1.report.$t" 2>&1
        same "$1, --threads $t: the report exits 0" 0 "$?"
        env $3 "$DCUTOP" -q --threads "$t" --export hotspots -o - "$2" >"$TMP/$1.hot.$t" 2>&1
        env $3 "$DCUTOP" -q --threads "$t" --export stacks -o - "$2" >"$TMP/$1.stacks.$t" 2>&1
        env $3 "$DCUTOP" -q --threads "$t" --sql "$SQL" --format csv "$2" >"$TMP/$1.sql.$t" 2>&1
    done
    for t in 2 3 16; do
        check "$1, --threads $t: the same report as one thread" cmp -s "$TMP/$1.report.1" "$TMP/$1.report.$t"
        check "$1, --threads $t: the same hotspots export" cmp -s "$TMP/$1.hot.1" "$TMP/$1.hot.$t"
        check "$1, --threads $t: the same stacks export" cmp -s "$TMP/$1.stacks.1" "$TMP/$1.stacks.$t"
        check "$1, --threads $t: the same rows and messages" cmp -s "$TMP/$1.sql.1" "$TMP/$1.sql.$t"
    done
}
run_all real "$TMP/real/" DCUTOP_JSON_CHUNK_BYTES=20000
run_all gen "$TMP/gen.d/"
run_all cut "$TMP/cut/"
check "the generated trace: every kernel was read" grep -q "^12000," "$TMP/gen.sql.1"
check "the real traces: kernels were read" grep -q "^[1-9][0-9]*," "$TMP/real.sql.1"
check "the truncated trace: the message names the file and the byte" \
    grep -q "trace.json: JSON error at byte [0-9]*: .*events before it are kept" "$TMP/cut.report.1"
