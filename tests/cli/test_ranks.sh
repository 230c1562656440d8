#!/bin/sh
# test_ranks.sh - multi-rank jobs (README "Multi-rank jobs"). The real 2-rank DDP sample:
# per rank kernel time, NCCL kernel time and step times equal an independent count from the
# JSON, and the verdict names rank 0; its excess kernels, rank-wait and Idle equal ranks_oracle.py
# over the raw JSON, and the manual quotes the report. Generated jobs (gen_ranks.py): 8 ranks with one
# straggler at step 2; no straggler; communication hidden under compute is not exposed.
. tests/cli/lib.sh
DDP=$REAL/pytorch-h200-ddp-2rank
GEN=tests/cli/gen_ranks.py

if [ -d "$DDP" ]; then
    before=$(cat "$DDP"/* | cksum)
    "$DCUTOP" -q --report --view ranks --format json "$DDP" >"$TMP/ddp.json"
    got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
steps = {}
for r in d["rank_steps"]:
    if r["kind"] == "step":
        steps[r["rank"]] = [r[k] for k in sorted((k for k in r if k[0] == "s" and k[1:].isdigit()), key=lambda k: int(k[1:])) if r[k] is not None]
for r in d["ranks"]:
    print(r["rank"], r["kernel_ns"], r["comm_ns"], ",".join(map(str, steps[r["rank"]])))
print("straggler", d["rank_verdict"]["straggler"])' "$TMP/ddp.json")
    want=$(python3 -c '
import gzip, json, sys, glob, os
for p in sorted(glob.glob(os.path.join(sys.argv[1], "rank*.trace.json.gz"))):
    d = json.load(gzip.open(p))
    ev = d["traceEvents"]
    k = [e for e in ev if e.get("cat") == "kernel"]
    ns = lambda e: round(e["ts"] * 1000 + e["dur"] * 1000) - round(e["ts"] * 1000)
    steps = sorted((e for e in ev if e.get("cat") == "user_annotation"
                    and e["name"].startswith("ProfilerStep#")), key=lambda e: e["ts"])
    print(d["distributedInfo"]["rank"], sum(ns(e) for e in k),
          sum(ns(e) for e in k if "nccl" in e["name"].lower()),
          ",".join(str(ns(e)) for e in steps))
print("straggler", json.load(open(os.path.join(sys.argv[1], "ddp_meta.json")))["straggler_rank"])' "$DDP")
    same "ddp sample: per rank kernel ns, NCCL ns, step times = count from the JSON; verdict" "$want" "$got"
    "$DCUTOP" -q --report --view ranks --width 400 "$DDP" >"$TMP/ddp.txt"
    check "ddp sample: text verdict in figures" grep -q "Straggler: rank 0 computes 24.2 ms more per step (3 of 3 steps), mostly in nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT (+24.9 ms, +146.0 dispatches); rank 1 waits 40.4 ms per step in AllReduce (rank-wait: its collectives' time beyond the fastest rank's; 41.4 ms in collectives in all). That communication time is mostly waiting" "$TMP/ddp.txt"
    python3 tests/cli/ranks_oracle.py "$DDP" >"$TMP/oracle.txt"
    # the straggler explained: its excess by kernel, the top one = the oracle's, whose extra
    # dispatches per step are the GEMMs make_ddp.py injected (rank0_straggle.json)
    got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
e = d["rank_excess"][0]
print("excess", json.dumps(e["kernel"]), e["excess_ns"], "%.1f" % e["calls_excess"])' "$TMP/ddp.json")
    same "ddp sample: the straggler's excess kernel, ns and dispatches per step = the raw JSON" \
        "$(grep '^excess ' "$TMP/oracle.txt")" "$got"
    same "ddp sample: its extra dispatches per step = the injected GEMMs (rank0_straggle.json)" \
        "$(python3 -c 'import json, sys; print("%.1f" % json.load(open(sys.argv[1]))["straggle_gemm_reps"])' "$DDP/rank0_straggle.json")" \
        "$(echo "$got" | awk '{ print $NF }')"
    short=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["rank_excess"][0]["short_name"])' "$TMP/ddp.json")
    check "ddp sample: the verdict names that kernel" grep -q "mostly in $short (+24.9 ms" "$TMP/ddp.txt"
    printf '9\n:dump ranks\n' >"$TMP/ranks.keys"
    XDG_STATE_HOME="$TMP/state" "$DCUTOP" --headless --size 160x40 --keys "$TMP/ranks.keys" "$DDP" \
        >"$TMP/shot.txt" 2>&1
    check "ddp sample: the Ranks screen's verdict names it too" \
        sh -c "tr -s ' \n' ' ' <'$TMP/shot.txt' | grep -q 'mostly in $short'"
    # the wait is the rank-wait (a collective's time beyond the fastest rank's), per
    # straggling step, the whole collective time beside it
    same "ddp sample: verdict wait_ns, comm_ns = rank-wait and NCCL time per step from the raw JSON" \
        "$(grep '^wait 1 ' "$TMP/oracle.txt" | cut -d' ' -f3-) rank-wait" \
        "$(python3 -c '
import json, sys
v = json.load(open(sys.argv[1]))["rank_verdict"]
print(v["wait_ns"], v["comm_ns"], v["wait_basis"])' "$TMP/ddp.json")"
    # Idle: the busy set of --view idle (kernels, memsets, copies), equal to it and the JSON
    same "ddp sample: Ranks Idle = --export idle's device idle per run = the raw JSON's" \
        "$(grep '^idle ' "$TMP/oracle.txt" | cut -d' ' -f3 | tr '\n' ' ')
$("$DCUTOP" -q --export idle "$DDP" | python3 -c '
import csv, sys
idle = {}
for r in csv.DictReader(sys.stdin):
    if r["cause"] not in ("other-stream", "rank-wait"):
        idle[r["run"]] = idle.get(r["run"], 0) + int(r["total_ns"])
print(" ".join(str(idle[k]) for k in sorted(idle)) + " ")')" \
        "$(python3 -c '
import json, sys
print(" ".join(str(r["idle_ns"]) for r in json.load(open(sys.argv[1]))["ranks"]) + " ")
print(" ".join(str(r["idle_ns"]) for r in json.load(open(sys.argv[1]))["ranks"]) + " ")' "$TMP/ddp.json")"
    # the manual's worked example is the report it quotes (--width 140), line for line in
    # order ("…" marks rows left out), and its rank-wait arithmetic adds up
    "$DCUTOP" -q --report --view ranks --width 140 "$DDP" >"$TMP/ddp140.txt"
    check "manual: the multi-rank worked example is --report --view ranks --width 140, line for line" \
        python3 -c '
import sys
man = open("doc/manual.md").read().split("## Multi-rank jobs", 1)[1].split("```\n", 2)[1]
rep = open(sys.argv[1]).read().split("\n")
at = 0
for line in man.rstrip("\n").split("\n"):
    if line.strip() == "…":
        continue
    while at < len(rep) and rep[at] != line:
        at += 1
    if at == len(rep):
        sys.exit("not in the report, in order: " + line)
    at += 1' "$TMP/ddp140.txt"
    check "manual: the rank-wait example (total over collectives, per step) = the raw JSON and the verdict" \
        python3 -c '
import re, sys
man = " ".join(open("doc/manual.md").read().split())
m = re.search(r"rank 1 waits ([0-9.]+) ms in ([0-9]+) collectives: the straggler verdict.s \"waits ([0-9.]+) ms per step\" over its ([0-9]+) steps", man)
if not m:
    sys.exit("no rank-wait example in the manual")
total, n, per, steps = float(m.group(1)), int(m.group(2)), float(m.group(3)), int(m.group(4))
o = {l.split()[0] + l.split()[1]: l.split()[2:] for l in open(sys.argv[1]) if l.startswith("wait")}
want_total, want_n = int(o["waittotal1"][0]), int(o["waittotal1"][1])
verdict = open(sys.argv[2]).read()
ok = (round(want_total / 1e6, 2) == total and want_n == n and round(total / steps, 1) == per
      and ("waits %.1f ms per step" % per) in " ".join(verdict.split()))
sys.exit(0 if ok else "manual %s ms / %d / %s ms over %d; raw JSON %d ns in %d" % (total, n, per, steps, want_total, want_n))' "$TMP/oracle.txt" "$TMP/ddp140.txt"
    "$DCUTOP" -q --report --width 400 "$DDP" >"$TMP/all.txt"
    check "ddp sample: the whole report carries the Ranks section and the verdict" grep -q "^  Straggler: rank 0 computes" "$TMP/all.txt"
    # on the critical rank's wall (rank 0: 161.3 ms), the straggler's 24.2 ms x 3 steps is
    # listed, across the categories; rank 0's own comm (2.9 ms) is no item, and rank 1's
    # waiting collectives never reach the list
    "$DCUTOP" -q --report --view advice --format json "$DDP" >"$TMP/adv.json"
    "$DCUTOP" -q --report --view ranks --format json "$DDP" >"$TMP/rk.json"
    "$DCUTOP" -q --report --view timeline --format json "$DDP" >"$TMP/tl.json"
    check "ddp sample: the straggler is listed on rank 0's wall, across the categories" python3 -c '
import json, sys
adv = json.load(open(sys.argv[1]))["advice"]
dev = [d for d in json.load(open(sys.argv[2]))["timeline"]["devices"] if d["gpu"] == 0][0]
s = [a for a in adv if a["rule"] == "straggler"][0]
want = 3 * 24.2e6 / dev["span_ns"]
sys.exit(not (abs(s["share_pct"] / 100 - want) < 0.001 and s["across"] == 1 and s["basis"] == "wall time"))' "$TMP/adv.json" "$TMP/tl.json"
    same "ddp sample: the waiting comm category is no item of the critical rank's list" "" \
        "$(python3 -c '
import json, sys
for a in json.load(open(sys.argv[1]))["advice"]:
    if a["rule"] == "category" and a["what"].startswith("comm "):
        print(a["ceiling"], a["why"].split()[0])' "$TMP/adv.json")"
    "$DCUTOP" -q --report --view ranks --format csv "$DDP" >"$TMP/ddp.csv"
    check "ddp sample: CSV has ranks, matrix and verdict" sh -c "grep -q '^# rank_steps' '$TMP/ddp.csv' && grep -q '^\"Straggler: rank 0' '$TMP/ddp.csv'"
    same "ddp sample: the inputs stay byte-identical" "$before" "$(cat "$DDP"/* | cksum)"
else
    notok "the DDP sample is missing from tests/data/real"
fi

# 8 ranks, rank 3 computes 6 ms more in step 2; the others wait 6 ms more in AllReduce
python3 "$GEN" "$TMP/strag" straggler
"$DCUTOP" -q --report --view ranks --format json "$TMP/strag" >"$TMP/s.json"
got=$(python3 -c '
import json, sys
v = json.load(open(sys.argv[1]))["rank_verdict"]
print(v["straggler"], v["steps"], v["of_steps"], v["excess_ns"], v["wait_ns"], v["collective"])' "$TMP/s.json")
same "8 ranks: straggler rank 3 in 1 of 4 steps, 6 ms more compute, others wait 6 ms (rank-wait) in AllReduce" "3 1 4 6000000 6000000 AllReduce" "$got"
same "8 ranks: the excess is the GEMM gen_ranks.py lengthened, 16 ms against the others' 10 ms" \
    "gemm_bf16_tn 6000000 16000000 10000000 0.0" "$(python3 -c '
import json, sys
e = json.load(open(sys.argv[1]))["rank_excess"]
print(*[(x["kernel"], x["excess_ns"], x["straggler_ns"], x["others_ns"], x["calls_excess"]) for x in e][0])' "$TMP/s.json")"
"$DCUTOP" -q --report --view ranks --width 400 "$TMP/strag" >"$TMP/s.txt"
check "8 ranks: verdict names the step" grep -q "Straggler: rank 3 computes 6.0 ms more in step 2 (1 of 4 steps)" "$TMP/s.txt"

# no straggler: null in JSON, said in words
python3 "$GEN" "$TMP/even" even
got=$("$DCUTOP" -q --report --view ranks --format json "$TMP/even" | python3 -c '
import json, sys
print(json.load(sys.stdin)["rank_verdict"]["straggler"])')
same "8 even ranks: no straggler" "None" "$got"
"$DCUTOP" -q --report --view ranks --width 400 "$TMP/even" >"$TMP/e.txt"
check "8 even ranks: 'No straggler' in the text" grep -q "^  No straggler: in each of 4 steps" "$TMP/e.txt"

# overlap: the same 9 ms of AllReduce, hidden under the GEMM on rank 0, exposed on rank 1
python3 "$GEN" "$TMP/ovl" overlap
got=$("$DCUTOP" -q --report --view ranks --format json "$TMP/ovl" | python3 -c '
import json, sys
for r in json.load(sys.stdin)["ranks"]:
    print(r["rank"], r["comm_ns"], r["exposed_ns"])')
same "overlapped comm is not exposed (rank 0), comm after compute is (rank 1)" "0 9000000 0
1 9000000 9000000" "$got"

# not a job: one run gives no Ranks section in the whole report, and says so with --view ranks
mkdir -p "$TMP/one" && cp "$TMP/ovl/rank0.trace.json" "$TMP/one/"
"$DCUTOP" -q --report "$TMP/one" >"$TMP/one.txt"
check "one run: no Ranks section in the report" sh -c "! grep -q '^Ranks:' '$TMP/one.txt'"
"$DCUTOP" -q --report --view ranks "$TMP/one" >"$TMP/one.txt"
check "one run: --view ranks says there is no verdict" grep -q "No verdict: fewer than 2 ranks" "$TMP/one.txt"

# runs without distributedInfo, concurrent in one folder: numbered by pid/gpu
mkdir -p "$TMP/nodist"
for r in 0 1; do
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); del d["distributedInfo"]; json.dump(d, open(sys.argv[2], "w"))' \
        "$TMP/ovl/rank$r.trace.json" "$TMP/nodist/w$r.trace.json"
done
got=$("$DCUTOP" -q --report --view ranks --format json "$TMP/nodist" | python3 -c '
import json, sys
for r in json.load(sys.stdin)["ranks"]:
    print(r["rank"], r["source"], r["gpu"])')
same "no distributedInfo, concurrent runs: ranks by pid/gpu" "0 pid/gpu 0
1 pid/gpu 1" "$got"

# more than 16 ranks: min, median, p90, max rows (nearest rank) over the ranks, on top
python3 "$GEN" "$TMP/many" many
"$DCUTOP" -q --report --view ranks --format json "$TMP/many" >"$TMP/m.json"
got=$(python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))["ranks"]
print(" ".join("%s:%s" % (r["rank"], r["compute_ns"]) for r in rows[:4]), len(rows))' "$TMP/m.json")
want=$(python3 -c '
import math
v = sorted(4 * (10_000_000 + 100_000 * r) for r in range(20))
p = lambda q: v[max(0, math.ceil(q / 100 * len(v)) - 1)]
print("min:%d median:%d p90:%d max:%d" % (v[0], p(50), p(90), v[-1]), 24)')
same "20 ranks: percentile rows of compute time, then the 20 ranks" "$want" "$got"
