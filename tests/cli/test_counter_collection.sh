#!/bin/sh
# test_counter_collection.sh - rocprofv3's counter_collection.csv (issue 24): one row per kernel
# dispatch and counter, without times, pivoted onto the dispatches of the same run's kernel trace
# (by Dispatch_Id and kernel name): one row per dispatch in the PMC layer. Before this the file
# was recognised and skipped.
. tests/cli/lib.sh
XDG_CONFIG_HOME=$TMP/xdg
export XDG_CONFIG_HOME
DOCS=$REAL/rocprofv3-sdk-docs-csv
sql() {
    "$DCUTOP" --sql "$1" "$2" 2>/dev/null | sed -n '3,$p' | grep -v '^([0-9]* rows*)$' |
        sed 's/  */ /g; s/^ //; s/ $//'
}

# the docs folder: counter_collection.csv's 7 SQ_WAVES values belong to kernel_trace.csv's run
same "docs: 7 dispatches carry SQ_WAVES = 16384" "7 7 16384.0" \
    "$(sql "SELECT count(*), count(DISTINCT dispatch_id), max(value) FROM dispatch_counter
            WHERE name = 'SQ_WAVES'" "$DOCS")"
same "docs: each on the dispatch of its Dispatch_Id and kernel" "1 addition_kernel
2 subtract_kernel
3 multiply_kernel" \
    "$(sql "SELECT d.seq, k.short_name FROM dispatch_counter c JOIN dispatch d
            ON d.id = c.dispatch_id JOIN kernel k ON k.id = d.kernel_id WHERE d.seq <= 3
            ORDER BY d.seq" "$DOCS" | sed 's/<float>//')"

# a run of two counters per dispatch, in files with the run's pid prefix
mkdir -p "$TMP/run"
cp "$DOCS/kernel_trace.csv" "$TMP/run/4242_kernel_trace.csv"
{
    head -1 "$DOCS/counter_collection.csv"
    tail -n +2 "$DOCS/counter_collection.csv"
    tail -n +2 "$DOCS/counter_collection.csv" | sed 's/"SQ_WAVES",16384/"GRBM_COUNT",2.5e3/'
    # a value that is not a number, and a dispatch no kernel trace holds
    echo '1,1,1,1,19396,19396,1048576,16,"void addition_kernel<float>(float*, float const*, float const*, int, int)",64,0,0,8,16,"TA_BUSY",abc'
    echo '99,99,1,1,19396,19396,1048576,16,"void addition_kernel<float>(float*, float const*, float const*, int, int)",64,0,0,8,16,"TA_BUSY",7'
} >"$TMP/run/4242_counter_collection.csv"
same "two counters per dispatch: 7 dispatches x 2 values" "7 14" \
    "$(sql "SELECT count(DISTINCT dispatch_id), count(*) FROM dispatch_counter" "$TMP/run")"
same "a fractional value in exponent form" "2500.0" \
    "$(sql "SELECT DISTINCT value FROM dispatch_counter WHERE name = 'GRBM_COUNT'" "$TMP/run")"
"$DCUTOP" --export files -o "$TMP/files.csv" "$TMP/run" 2>"$TMP/err"
check "the counter file says how many values were attached" \
    grep -q "14 of 15 counter values attached.*not kept" "$TMP/files.csv"
check "the bad value is a rejected row" grep -q "counter value not a number 'abc'" "$TMP/err"
same "the kernel trace now carries PMC counters (its times are distorted)" "1" \
    "$(sql "SELECT pmc FROM files WHERE name LIKE '%kernel_trace.csv'" "$TMP/run")"

# counter_collection.csv alone: nothing to attach to, said; nothing loaded, so exit 1
mkdir -p "$TMP/alone"
cp "$DOCS/counter_collection.csv" "$TMP/alone/"
"$DCUTOP" --export files -o "$TMP/alone.csv" "$TMP/alone" 2>"$TMP/alone.err"
same "alone: nothing could be loaded (exit 1)" 1 $?
check "alone: 0 of 7 attached, said" grep -q "0 of 7 counter values attached" "$TMP/alone.err"
