#!/bin/sh
# test_heldout.sh - the checks of the opportunity list, HTA's launch statistics and the gate,
# run on real H100 recordings that no analysis was written against (pytorch-h100-*, recorded
# while those analyses were being changed): every item's shown ceiling is what its basis
# gives and the items are disjoint; the launch statistics equal HTA's rules over the raw
# events; the gate fails the A-B-B-A's real +2.77% regression and passes its mirror.
. tests/cli/lib.sh
XDG_CONFIG_HOME=$TMP/xdg XDG_STATE_HOME=$TMP/state TZ=UTC LC_ALL=C.UTF-8
export XDG_CONFIG_HOME XDG_STATE_HOME TZ LC_ALL
H=$REAL/pytorch-h100

# ---- the opportunity list: one basis, ceilings its basis gives, disjoint items -----------------
for t in gpt-train gpt-fp32 smi-contention abba-regress/A1 abba-sdpa/S1; do
    "$DCUTOP" -q --view advice --format csv "$H-$t" >"$TMP/adv.csv"
    "$DCUTOP" -q --view timeline --format json "$H-$t" >"$TMP/tl.json"
    out=$(python3 - "$TMP/adv.csv" "$TMP/tl.json" <<'P'
import csv, json, sys
rs = [r for r in csv.reader(open(sys.argv[1])) if r and not r[0].startswith("#")]
adv = [dict(zip(rs[0], r)) for r in rs[1:]]
t = json.load(open(sys.argv[2]))["timeline"]["summary"]
bad = []
if not adv:
    bad.append("no item")
for a in adv:
    p = float(a["share_pct"]) / 100
    if a["basis"] != "wall time":
        bad.append("basis " + a["basis"])
    if abs(float(a["ceiling"]) - 1 / (1 - p)) > 1e-4:
        bad.append("ceiling %s of share %s" % (a["ceiling"], p))
    if a["kernel_share_pct"]:
        # a kernel-time part: its kernel time over the wall, never above its kernel ceiling
        ns = float(a["kernel_share_pct"]) / 100 * t["kernel_ns"]
        scale = t["kernel_ns"] / t["kernel_union_ns"] if t.get("kernel_union_ns") else 1
        if t["kernel_ns"] <= t["busy_ns"] and abs(ns / t["wall_ns"] - p) > 1e-6:
            bad.append("%s: share %s, kernel time over wall %s" % (a["target"], p, ns / t["wall_ns"]))
        if float(a["ceiling"]) > float(a["kernel_ceiling"]) + 1e-9:
            bad.append(a["target"] + " above its kernel ceiling")
top = [float(a["share_pct"]) for a in adv if a["rank"] and a["across"] != "1"]
if sum(top) > 100 + 1e-6:
    bad.append("items add up to %.2f%% of the wall" % sum(top))
ranked = [float(a["share_pct"]) for a in adv if a["rank"]]
if ranked != sorted(ranked, reverse=True):
    bad.append("not ranked by the shown share")
print("bad", len(bad), "; ".join(bad[:3]))
P
)
    same "held-out $t: every item on the wall, ceiling = 1/(1 - share), disjoint, ranked" "bad 0 " "$out"
done

# ---- HTA's launch statistics against HTA's rules over the raw events ---------------------------
launch_got() {
    "$DCUTOP" -q --report --view idle --format csv "$1" | python3 tests/cli/hta_oracle.py got | sort
}
for t in gpt-train/gpt_train.trace.json.gz smi-contention/gpt_contention.trace.json.gz; do
    python3 tests/cli/hta_oracle.py launch "$H-$t" | sort >"$TMP/want"
    launch_got "$H-$t" >"$TMP/got"
    n=$(wc -l <"$TMP/want")
    if [ "$n" -gt 10 ] && cmp -s "$TMP/want" "$TMP/got"; then
        ok "held-out $t: launch statistics of $n ops equal HTA's rules (counts, median, p95, max)"
    else
        notok "held-out $t: launch statistics equal HTA's rules"
        diff "$TMP/want" "$TMP/got" | head -4 | cut -c1-200 | sed 's/^/#   /'
    fi
done

# ---- the gate on a real +2.77% device-time regression, and its mirror -------------------------
R=$H-abba-regress
exits "held-out A-B-B-A: a trusted +2.77% regression fails the gate (exit 3)" 3 \
    "$DCUTOP" -q --abba "$R/A1" "$R/B1" "$R/B2" "$R/A2" --fail-above 1 --report
check "... naming device kernel time as the trusted layer" grep -q "device kernel time effect +2.77%" "$TMP/out"
exits "held-out A-B-B-A: with --strict too (exit 3)" 3 \
    "$DCUTOP" -q --abba "$R/A1" "$R/B1" "$R/B2" "$R/A2" --fail-above 1 --strict --report
exits "held-out --diff A1 B1: the same regression fails (exit 3)" 3 \
    "$DCUTOP" -q --diff "$R/A1" "$R/B1" --fail-above 1 --report
"$DCUTOP" -q --abba "$R/B1" "$R/A1" "$R/A2" "$R/B2" --fail-above 1 --report >"$TMP/mirror" 2>&1
rc=$?
check "held-out mirror (B as baseline): the gain does not fail the gate (exit $rc)" test "$rc" -ne 3
check "... and is not called a regression" sh -c '! grep -q "gate FAILED" "$1"' sh "$TMP/mirror"
