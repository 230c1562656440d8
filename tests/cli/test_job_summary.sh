#!/bin/sh
# test_job_summary.sh - the map/reduce of a job (README "A job of many ranks"): each rank
# summarized alone (--summarize), the job opened from the summaries. On the real 2-rank DDP
# job and a generated 16-rank one (rank 0 planted slow), the Ranks view, the verdict, hotspots
# and categories from the summaries equal a full load's byte for byte, and the reduce's steps,
# excess kernel and rank-waits equal ranks_oracle.py over the raw JSON. Bad summaries are
# named and skipped; Enter on a rank offers its full trace.
. tests/cli/lib.sh
XDG_CONFIG_HOME=$TMP/xdg XDG_STATE_HOME=$TMP/state TZ=UTC LC_ALL=C.UTF-8
export XDG_CONFIG_HOME XDG_STATE_HOME TZ LC_ALL
DDP=$REAL/pytorch-h200-ddp-2rank

# same_views DESC FULL SUMS: every view the reduce gives, byte-equal to the full load's
same_views() {
    for v in ranks hotspots categories; do
        "$DCUTOP" -q --view "$v" --format csv "$2" >"$TMP/full.csv" 2>/dev/null
        "$DCUTOP" -q --view "$v" --format csv "$3" >"$TMP/sum.csv" 2>"$TMP/sum.err"
        # the hotspots' launch-delay columns are medians over dispatches: a summary has none,
        # so the reduce leaves them out; every column it shows is compared
        python3 - "$TMP/full.csv" "$TMP/sum.csv" <<'P'
import csv, sys
f = list(csv.reader(open(sys.argv[1])))
s = list(csv.reader(open(sys.argv[2])))
hs = next(r for r in s if r and not r[0].startswith("#"))
hf = next(r for r in f if r and not r[0].startswith("#"))
if hs != hf and all(c in hf for c in hs):
    keep = [hf.index(c) for c in hs]
    with open(sys.argv[1], "w", newline="") as o:
        w = csv.writer(o, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
        for r in f:
            w.writerow(r if not r or r[0].startswith("#") else [r[i] for i in keep])
    with open(sys.argv[2], "w", newline="") as o:
        w = csv.writer(o, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
        for r in s:
            w.writerow(r)
P
        check "$1: --view $v from the summaries = the full load's" cmp -s "$TMP/full.csv" "$TMP/sum.csv"
        cmp -s "$TMP/full.csv" "$TMP/sum.csv" || diff "$TMP/full.csv" "$TMP/sum.csv" | head -4 | sed 's/^/#   /'
    done
    "$DCUTOP" -q --view ranks "$2" | sed 1d >"$TMP/full.txt"
    "$DCUTOP" -q --view ranks "$3" | sed 1d >"$TMP/sum.txt"
    check "$1: the Ranks report and its verdict text are the full load's" cmp -s "$TMP/full.txt" "$TMP/sum.txt"
    "$DCUTOP" -q --export collectives "$2" >"$TMP/full.csv" 2>/dev/null
    "$DCUTOP" -q --export collectives "$3" >"$TMP/sum.csv" 2>/dev/null
    check "$1: every collective (arrivals, skew, last rank, bandwidth) from the summaries = the full load's" \
        cmp -s "$TMP/full.csv" "$TMP/sum.csv"
}

if [ -d "$DDP" ]; then
    "$DCUTOP" --summarize "$DDP/rank0.trace.json.gz" "$DDP/rank1.trace.json.gz" -o "$TMP/ddp" \
        2>"$TMP/map.err"
    check "ddp: --summarize exits 0" test $? -eq 0
    same "ddp: one summary per rank" "2" "$(ls "$TMP/ddp" | grep -c '\.dcusum$')"
    check "ddp: --summarize says where the job opens" grep -q "dcutop $TMP/ddp" "$TMP/map.err"
    same "ddp: the summary says what it is (sqlite3)" "dcutop-job-summary 1" \
        "$(sqlite3 "$TMP/ddp/rank0.trace.json.gz.dcusum" "SELECT group_concat(value, ' ') FROM (SELECT value FROM summary_meta WHERE key IN ('format', 'version') ORDER BY key)")"
    same_views "ddp" "$DDP" "$TMP/ddp"
    # independent: the reduce's steps, excess kernel and rank-waits = ranks_oracle.py
    python3 tests/cli/ranks_oracle.py "$DDP" >"$TMP/oracle.txt"
    "$DCUTOP" -q --report --view ranks --format json "$TMP/ddp" >"$TMP/ddp.json"
    got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["rank_steps"]:
    if r["kind"] == "compute":
        print("step", r["rank"], " ".join(str(r[k]) for k in sorted((k for k in r if k[0] == "s" and k[1:].isdigit()), key=lambda k: int(k[1:]))))
e = d["rank_excess"][0]
print("excess", json.dumps(e["kernel"]), e["excess_ns"], "%.1f" % e["calls_excess"])
v = d["rank_verdict"]
print("wait", v["wait_ns"], v["comm_ns"])' "$TMP/ddp.json")
    same "ddp: reduce's compute per step = ranks_oracle.py over the raw JSON" \
        "$(grep '^step ' "$TMP/oracle.txt")" "$(echo "$got" | grep '^step ')"
    same "ddp: reduce's excess kernel, ns and dispatches per step = ranks_oracle.py" \
        "$(grep '^excess ' "$TMP/oracle.txt")" "$(echo "$got" | grep '^excess ')"
    same "ddp: reduce's rank-wait and collective time per straggling step = ranks_oracle.py" \
        "$(grep '^wait 1 ' "$TMP/oracle.txt" | cut -d' ' -f3-)" "$(echo "$got" | grep '^wait ' | cut -d' ' -f2-)"

    # Enter on a rank: its own trace, where reachable (headless: named on the status line)
    printf '9\n<Enter>\n:dump status\n' >"$TMP/enter.keys"
    "$DCUTOP" --headless --size 160x40 --keys "$TMP/enter.keys" "$TMP/ddp" >"$TMP/shot.txt" 2>&1
    abs=$(cd "$DDP" && pwd)/rank0.trace.json.gz
    check "ddp: Enter on rank 0 of the summaries offers its full trace" \
        grep -q "would run /proc/self/exe $abs" "$TMP/shot.txt"
    mkdir "$TMP/moved"
    cp "$DDP/rank0.trace.json.gz" "$DDP/rank1.trace.json.gz" "$TMP/moved/"
    "$DCUTOP" -q --summarize "$TMP/moved/rank0.trace.json.gz" "$TMP/moved/rank1.trace.json.gz" -o "$TMP/gone"
    rm -r "$TMP/moved"
    "$DCUTOP" --headless --size 160x40 --keys "$TMP/enter.keys" "$TMP/gone" >"$TMP/shot2.txt" 2>&1
    check "ddp: a rank whose trace is gone is said to be unreachable" \
        grep -q "is not reachable from here" "$TMP/shot2.txt"
    check "ddp: the job opens without the traces" grep -q "rank1.trace.json.gz" "$TMP/shot2.txt"
else
    ok "# SKIP $DDP missing"
fi

# a generated 16-rank job, rank 0 planted 10% slow: found from the summaries alone
python3 bench/gen_ranks_job.py "$TMP/job16" 16 3000 >/dev/null
"$DCUTOP" -q --summarize "$TMP"/job16/rank*.trace.json -o "$TMP/sum16"
same "16 ranks: 16 summaries" "16" "$(ls "$TMP/sum16" | grep -c '\.dcusum$')"
same_views "16 ranks" "$TMP/job16" "$TMP/sum16"
same "16 ranks: the straggler from the summaries is the planted rank 0" "0" \
    "$("$DCUTOP" -q --report --view ranks --format json "$TMP/sum16" | python3 -c 'import json,sys; print(json.load(sys.stdin)["rank_verdict"]["straggler"])')"

# a generated 8-rank job with collective args, rank 5 planted last in group 0, rank 2 in group 1
python3 tests/cli/gen_collectives.py "$TMP/coll" >/dev/null
"$DCUTOP" -q --summarize "$TMP"/coll/* -o "$TMP/sumcoll"
same_views "8 ranks with collectives" "$TMP/coll" "$TMP/sumcoll"
"$DCUTOP" -q --view collectives --format json "$TMP/sumcoll" >"$TMP/coll.json"
same "8 ranks: from the summaries, the rank last at every group-0 collective is the planted rank 5" "12" \
    "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(1 for c in d["collectives"] if c["process_group"] == "0" and c["last_rank"] == 5))' "$TMP/coll.json" 2>&1)"

# a folder of ranks given as one PATH: one summary per rank it holds
"$DCUTOP" -q --summarize "$TMP/job16" -o "$TMP/sumdir"
same "a folder PATH: a summary per rank in it" "16" "$(ls "$TMP/sumdir" | grep -c '\.dcusum$')"

# usage and bad input
exits "--summarize without -o: usage error (2)" 2 "$DCUTOP" --summarize "$TMP/job16/rank0.trace.json"
check "... saying it needs -o DIR" grep -q "needs -o DIR" "$TMP/err"
exits "a summary already there, no --force: 2" 2 "$DCUTOP" -q --summarize "$TMP/job16/rank0.trace.json" -o "$TMP/sum16"
exits "... replaced with --force: 0" 0 "$DCUTOP" -q --summarize --force "$TMP/job16/rank0.trace.json" -o "$TMP/sum16"
printf 'name,value\nx,1\n' >"$TMP/notrace.csv"
exits "nothing to summarize: 1" 1 "$DCUTOP" -q --summarize "$TMP/notrace.csv" -o "$TMP/none"
check "... named" grep -q "notrace.csv" "$TMP/err"
mkdir "$TMP/bad"
cp "$TMP"/sum16/rank1.trace.json.dcusum "$TMP"/sum16/rank2.trace.json.dcusum "$TMP/bad/"
head -c 3000 "$TMP/sum16/rank3.trace.json.dcusum" >"$TMP/bad/rank3.trace.json.dcusum"
cp "$TMP/sum16/rank4.trace.json.dcusum" "$TMP/bad/rank4.trace.json.dcusum"
sqlite3 "$TMP/bad/rank4.trace.json.dcusum" "UPDATE summary_meta SET value = '99' WHERE key = 'version'"
"$DCUTOP" --view files "$TMP/bad" >"$TMP/bad.txt" 2>&1
check "a cut summary is named, the others load" sh -c \
    "grep -q 'rank3.trace.json.dcusum.*malformed' '$TMP/bad.txt' && grep -c 'dcutop job summary  kernel' '$TMP/bad.txt' | grep -q '^2$'"
check "a summary of another version is skipped, saying so" grep -q "version 99" "$TMP/bad.txt"
same "the ranks that loaded are a job of 2" "2" \
    "$("$DCUTOP" -q --view ranks --format csv "$TMP/bad" 2>/dev/null | awk -F, '$3 == "\"distributedInfo\""' | wc -l | tr -d ' ')"
