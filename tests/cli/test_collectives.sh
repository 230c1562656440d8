#!/bin/sh
# test_collectives.sh - the collectives of a multi-rank job (--export collectives,
# --view collectives, --collective-ref), checked against coll_oracle.py, which recomputes each
# collective from the raw Kineto JSON on its own: on the real 2-rank DDP job (rank 0 the planted
# straggler) and on a generated 8-rank job (gen_collectives.py) whose skew, slow ranks and bus
# bandwidth are planted. The reference curve is real nccl-tests output (tests/data/nccl-tests).
. tests/cli/lib.sh
ORACLE=tests/cli/coll_oracle.py
DDP=$REAL/pytorch-h200-ddp-2rank
REF=tests/data/nccl-tests/all_reduce_perf-gh200-8ranks.txt
if ! command -v python3 >/dev/null 2>&1; then
    ok "# SKIP no python3: the oracle cannot run"
    exit 0
fi

# --- the real 2-rank job --------------------------------------------------------------------
"$DCUTOP" --export collectives -o "$TMP/ddp.csv" "$DDP" 2>"$TMP/err"
same "real 2-rank: --export collectives exits 0" 0 $?
check "real 2-rank: every collective's bytes, arrivals, skew, last rank, latency, algbw and busbw equal the oracle's" \
    sh -c "python3 $ORACLE '$TMP/ddp.csv' '$DDP'/rank0.trace.json.gz '$DDP'/rank1.trace.json.gz >'$TMP/o1' 2>&1"
sed 's/^/#   /' "$TMP/o1" | head -5
same "real 2-rank: 24 all-reduces, as the README's NCCL kernel count per rank says" \
    "ok 24" "$(cat "$TMP/o1")"
missing=
for col in process_group seq type bytes dtype ranks first_arrival_ns last_arrival_ns skew_ns \
    last_rank latency_ns algbw_gbps busbw_gbps; do
    head -1 "$TMP/ddp.csv" | tr -d '\r' | tr ',' '\n' | grep -qx "$col" || missing="$missing $col"
done
same "real 2-rank: the export has the columns the issue names" "" "$missing"

"$DCUTOP" --view collectives --format csv --collective-ref "$REF" "$DDP" >"$TMP/ddp-view.csv" 2>"$TMP/err"
same "real 2-rank: --view collectives --format csv exits 0" 0 $?
# the bucket table: type, count and median bus bandwidth per size, against the oracle's
awk -F, '/^# collective_buckets/{b=1;next} /^\r?$/{b=0} b && !/^type/{gsub(/"/,"");printf "%s %d %.2f\n",$1,$3,$7}' \
    "$TMP/ddp-view.csv" >"$TMP/b-dcutop"
python3 $ORACLE --buckets x "$DDP"/rank0.trace.json.gz "$DDP"/rank1.trace.json.gz |
    awk '{printf "%s %d %.2f\n",$1,$3,$4}' >"$TMP/b-oracle"
check "real 2-rank: per type and size, count and median bus bandwidth equal the oracle's" \
    cmp -s "$TMP/b-dcutop" "$TMP/b-oracle"
same "real 2-rank: three size buckets of all-reduce" 3 "$(grep -c all_reduce "$TMP/b-dcutop")"
# who arrives last: rank 0, the straggler make_ddp.py planted (ddp_meta.json), at all 24
awk -F, '/^# collective_last/{b=1;next} /^\r?$/{b=0} b && !/^rank/ && $3>0{print $1, $3}' \
    "$TMP/ddp-view.csv" >"$TMP/l-dcutop"
python3 $ORACLE --last x "$DDP"/rank0.trace.json.gz "$DDP"/rank1.trace.json.gz >"$TMP/l-oracle"
check "real 2-rank: the count of last arrivals per rank equals the oracle's" cmp -s "$TMP/l-dcutop" "$TMP/l-oracle"
straggler=$(python3 -c "import json;print(json.load(open('$DDP/ddp_meta.json'))['straggler_rank'])")
same "real 2-rank: the rank arriving last at every collective is the planted straggler" \
    "$straggler 24" "$(cat "$TMP/l-dcutop")"
# % of the reference: the reference busbw at the bucket's median size, log-linear between the
# nccl-tests sizes, computed here from the raw output
awk -F, '/^# collective_buckets/{b=1;next} /^\r?$/{b=0} b && !/^type/{print $4, $7, $12, $13}' \
    "$TMP/ddp-view.csv" >"$TMP/ref-dcutop"
python3 - "$REF" "$TMP/ref-dcutop" >"$TMP/ref-check" <<'PY'
import math, sys
rows = []
for line in open(sys.argv[1]):
    t = line.split()
    if t and not line.startswith("#") and int(t[0]) > 0:
        rows.append((int(t[0]), float(t[7])))
bad = 0
for line in open(sys.argv[2]):
    size, med, ref, pct = line.split()
    size, med = int(size), float(med)
    for (a, ba), (b, bb) in zip(rows, rows[1:]):
        if a <= size <= b:
            want = ba + (math.log(size) - math.log(a)) / (math.log(b) - math.log(a)) * (bb - ba)
    if abs(float(ref) - want) > 1e-5 or abs(float(pct) - 100 * med / want) > 1e-4:
        print("size %d: dcutop ref %s (%s%%), expected %.6f (%.6f%%)" % (size, ref, pct, want, 100 * med / want))
        bad += 1
print("checked", sum(1 for _ in open(sys.argv[2])), "bad", bad)
PY
same "real 2-rank: each bucket's reference bandwidth and % of it equal an interpolation of the nccl-tests table" \
    "checked 3 bad 0" "$(tail -1 "$TMP/ref-check")"
"$DCUTOP" --view collectives --width 120 "$DDP" >"$TMP/ddp.txt" 2>&1
check "real 2-rank: the text report names the straggler as the rank arriving last" \
    grep -q "Rank 0 arrives last at 24 of the 24 collectives" "$TMP/ddp.txt"
check "real 2-rank: the text report says which clock the arrivals are on" \
    grep -q "arrivals on the traces' clock (Kineto" "$TMP/ddp.txt"

# --- a generated 8-rank job with the skew and the slow ranks planted --------------------------
python3 tests/cli/gen_collectives.py "$TMP/gen"
"$DCUTOP" --export collectives -o "$TMP/gen.csv" "$TMP/gen" 2>"$TMP/err"
same "generated 8 ranks: --export collectives exits 0" 0 $?
check "generated 8 ranks: every collective equals the oracle's" \
    sh -c "python3 $ORACLE '$TMP/gen.csv' '$TMP'/gen/rank*.trace.json >'$TMP/o2' 2>&1"
sed 's/^/#   /' "$TMP/o2" | head -5
tr -d '\r' <"$TMP/gen.csv" | awk -F, 'NR>1{gsub(/"/,"");print $1, $3, $7, $11, $13, $17}' >"$TMP/gen.rows"
same "generated: 12 collectives of group 0 and 6 of group 1" "12 6" \
    "$(awk '$1==0' "$TMP/gen.rows" | wc -l | tr -d ' ') $(awk '$1==1' "$TMP/gen.rows" | wc -l | tr -d ' ')"
same "generated: group 0, rank 5 (planted) arrives last at each of the 12, 2 ms + 10 us x seq late" 12 \
    "$(awk '$1==0 && $5==5 && $4==2000000+10000*$2 && $3==8' "$TMP/gen.rows" | wc -l | tr -d ' ')"
same "generated: group 1 (4 ranks), rank 2 (planted) arrives last at each of the 6, 500 us late" 6 \
    "$(awk '$1==1 && $5==2 && $4==500000 && $3==4' "$TMP/gen.rows" | wc -l | tr -d ' ')"
same "generated: bus bandwidth is the planted 100 GB/s (group 0) and 50 GB/s (group 1), to the ns of the latency" 18 \
    "$(awk '($1==0 && $6>=99.98 && $6<=100.02) || ($1==1 && $6>=49.99 && $6<=50.01)' "$TMP/gen.rows" | wc -l | tr -d ' ')"
same "generated: every rank leaves each collective at once (planted): end spread 0 at all 18" 18 \
    "$(tr -d '\r' <"$TMP/gen.csv" | awk -F, 'NR>1 && $NF==0' | wc -l | tr -d ' ')"
same "generated: rank 7's collectives, whose kernels carry no args, are matched through record_param_comms" \
    "12" "$(tr -d '\r' <"$TMP/gen.csv" | grep -c '"0","default_pg",[0-9]*,"[a-z_]*",[0-9]*,"[A-Za-z0-9]*",8,')"
same "generated: the one collective whose ranks disagree on its size is flagged (group 0, 11)" \
    "0 11" "$(tr -d '\r' <"$TMP/gen.csv" | awk -F, 'NR>1 && $18==1{gsub(/"/,"");print $1, $3}')"
"$DCUTOP" --view collectives --width 120 "$TMP/gen" >"$TMP/gen.txt" 2>&1
check "generated: the report names rank 5 as the rank arriving last most often" \
    grep -q "Rank 5 arrives last at 12 of the 12 collectives" "$TMP/gen.txt"

# --- --collective-ref: its own format, bad lines named with file:line -------------------------
sed '20s/ 128 / 1x8 /' "$REF" >"$TMP/bad_all_reduce_perf.txt"
"$DCUTOP" --view collectives --collective-ref "$TMP/bad_all_reduce_perf.txt" "$DDP" >"$TMP/out" 2>"$TMP/err"
same "a reference with a bad table line still loads" 0 $?
check "the bad line is named with file:line" grep -q "bad_all_reduce_perf.txt:20:" "$TMP/err"
printf '# nThread 1\n# nothing measured\n' >"$TMP/empty_all_reduce.txt"
exits "a reference with no table row is a usage error" 2 "$DCUTOP" --view collectives \
    --collective-ref "$TMP/empty_all_reduce.txt" "$DDP"
check "... that says so" grep -q "no nccl-tests table row" "$TMP/err"
cp "$REF" "$TMP/curve.txt"
exits "a reference whose collective cannot be told is a usage error" 2 "$DCUTOP" --view \
    collectives --collective-ref "$TMP/curve.txt" "$DDP"
check "... that asks for TYPE=FILE" grep -q "TYPE=FILE" "$TMP/err"
"$DCUTOP" --view collectives --format csv --collective-ref "all_reduce=$TMP/curve.txt" "$DDP" \
    >"$TMP/typed.csv" 2>"$TMP/err"
same "TYPE=FILE names the collective: the same % of reference in its 3 buckets" \
    "3 $(grep -A4 '^# collective_buckets' "$TMP/ddp-view.csv")" \
    "$(awk -F, '/^# collective_buckets/{b=1;next} /^\r?$/{b=0} b && !/^type/ && $13!=""' "$TMP/typed.csv" | wc -l | tr -d ' ') $(grep -A4 '^# collective_buckets' "$TMP/typed.csv")"
exits "a missing reference file is a usage error" 2 "$DCUTOP" --view collectives \
    --collective-ref "$TMP/none_all_reduce.txt" "$DDP"
check "... naming it" grep -q "none_all_reduce.txt" "$TMP/err"

# --- a trace without collectives ---------------------------------------------------------------
"$DCUTOP" --view collectives sample-traces/dcu-weather-transformer >"$TMP/none.txt" 2>&1
same "a trace without collectives: --view collectives exits 0" 0 $?
check "... and says there are none" grep -q "No collectives with their arguments" "$TMP/none.txt"

# a header naming its columns out of the usual order, and rows too short for it: no row read
printf '#  size count type redop root algbw busbw #wrong time\n  1024  256  float  sum  -1  0.05\n' \
    >"$TMP/odd_all_reduce.txt"
exits "a reference whose rows lack the header's columns is a usage error, not a crash" 2 \
    "$DCUTOP" --view collectives --collective-ref "$TMP/odd_all_reduce.txt" "$DDP"
check "... naming the line" grep -q "odd_all_reduce.txt:2: too few columns" "$TMP/err"

# the parallel JSON reader (chunks parsed by worker threads) stores the same collectives
DCUTOP_JSON_CHUNK_BYTES=4096 "$DCUTOP" --threads 4 --export collectives "$TMP/gen" >"$TMP/gen-t4.csv" 2>&1
"$DCUTOP" --threads 1 --export collectives "$TMP/gen" >"$TMP/gen-t1.csv" 2>&1
check "generated: --threads 4 with the JSON cut in chunks gives the same export as --threads 1" \
    cmp -s "$TMP/gen-t4.csv" "$TMP/gen-t1.csv"
same "... of all 18 collectives" 19 "$(wc -l <"$TMP/gen-t4.csv" | tr -d ' ')"

# --sort and --top on the export: the three largest skews, the first collective of each step
"$DCUTOP" --export collectives --sort skew_ns:desc --top 3 "$DDP" >"$TMP/top.csv" 2>&1
same "--export collectives --sort skew_ns:desc --top 3: the oracle's three largest skews" \
    "$(python3 -c "import csv;r=list(csv.DictReader(open('$TMP/ddp.csv')));print(*sorted((int(x['skew_ns']) for x in r), reverse=True)[:3])") " \
    "$(tr -d '\r' <"$TMP/top.csv" | awk -F, 'NR>1{print $11}' | tr '\n' ' ')"

# hostile args: numbers as strings, objects, null, negative and 2^64-1 counts, a 10 KB name;
# every rank starting each collective at once (no skew: nobody is last)
python3 - "$TMP/hostile" <<'PY'
import json, os, sys
os.makedirs(sys.argv[1])
vals = [None, True, "abc", -5, "1e400", 18446744073709551615, 9223372036854775807, "", {"x": 1}, [1, 2], 3.5]
ev = []
for i, v in enumerate(vals):
    a = {"Collective name": v if i % 3 == 0 else "allreduce", "In msg nelems": v, "Out msg nelems": v,
         "Group size": v, "dtype": v if i % 2 else "Float", "Process Group Name": v,
         "Process Group Ranks": v, "External id": i, "Rank": v, "Seq": v}
    ev.append({"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 1,
               "ts": 100 + i, "dur": 1, "args": a})
    k = dict(a, device=0, stream=7, correlation=i) if i % 4 else {"External id": i, "device": 0,
                                                                  "stream": 7, "correlation": i}
    ev.append({"ph": "X", "cat": "kernel", "name": "ncclKernel" + "x" * (i * 1000), "pid": 0,
               "tid": 7, "ts": 200 + i, "dur": 5, "args": k})
for r in (0, 1):
    json.dump({"distributedInfo": {"rank": r, "world_size": 2}, "traceEvents": ev},
              open(os.path.join(sys.argv[1], "rank%d.trace.json" % r), "w"))
PY
"$DCUTOP" --view collectives "$TMP/hostile" >"$TMP/hostile.txt" 2>"$TMP/hostile.err"
same "hostile collective args: --view collectives exits 0" 0 $?
check "... a count that is not a whole number is named once per file" \
    grep -q "rank0.trace.json: a collective's '[A-Za-z ]*' is not a whole number" "$TMP/hostile.err"
check "... and collectives whose ranks start at once name no rank as last" \
    grep -q "at none of them a rank later than another" "$TMP/hostile.txt"
