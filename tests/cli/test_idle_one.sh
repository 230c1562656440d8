# test_idle_one.sh - one idle figure everywhere, each checked against idle_gap_oracle.py, a
# script over the raw Kineto events: a gap's host activities by their TOTAL within the gap
# (--export idle-gaps, --view idle, the default report, the Trace gap line), a sync gap named
# by its call and the op that issued it everywhere, gap starts from the trace start with the
# absolute time as an extra column, the default report's idle-causes section, the timeline's
# kernel-only gaps not called idle time, and a Trace gap line that keeps its figures and
# names at 80x24.
. tests/cli/lib.sh
I="$REAL/pytorch-h200-idle-injected/idle_train.trace.json.gz"
C="$REAL/pytorch-h200-climate-transformer/climate_train.trace.json.gz"
Q="$REAL/pytorch-kineto-mi300-qwen/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"
O=tests/cli/idle_gap_oracle.py
CMP=tests/cli/idle_gap_compare.py
# the block NAME of a CSV report
block() { tr -d '\r' | awk -v n="$1" '/^# /{b=$2; next} b==n && NF'; }
# Format_durationAuto's rendering of ns
dur() { awk -v n="$1" 'BEGIN{a=n<0?-n:n; if(a>=1e9)printf "%.2f s",n/1e9; else if(a>=1e6)printf "%.1f ms",n/1e6; else if(a>=1e3)printf "%.1f us",n/1e3; else printf "%d ns",n}'; }

D="$REAL/pytorch-h200-ddp-2rank"
for t in "$I" "$C" "$Q" "$D/rank0.trace.json.gz" "$D/rank1.trace.json.gz"; do
    name=$(basename "$(dirname "$t")")-$(basename "$t" | sed 's/[._].*//')
    python3 "$O" "$t" >"$TMP/$name.tsv"
    # one row per gap and activity with its total; gap starts from the trace start
    "$DCUTOP" -q --export idle-gaps "$t" >"$TMP/$name.gaps.csv" 2>/dev/null
    check "$name: --export idle-gaps: one row per gap and host activity, its total in the gap, the start from the trace start and abs_start_ns (oracle)" \
        python3 "$CMP" gaps "$TMP/$name.tsv" "$TMP/$name.gaps.csv"
    "$DCUTOP" -q --report --view idle --format csv "$t" 2>/dev/null | block idle_top_gaps \
        >"$TMP/$name.top.csv"
    check "$name: --view idle's largest gaps: the main host activity is the largest total (sync: the call in its op), start from the trace start (oracle)" \
        python3 "$CMP" top "$TMP/$name.tsv" "$TMP/$name.top.csv"
done

# the sync gaps of the injected trace are named by the call and the op that issued it
same "injected: every sync gap's main activity in --export idle-gaps is its sync call in aten::item" \
    "$(awk -F'\t' '$1=="gap" && $5=="sync"{print $6}' "$TMP/pytorch-h200-idle-injected-idle.tsv" | sort -u)" \
    "$(python3 -c "
import csv
rows = list(csv.DictReader(open('$TMP/pytorch-h200-idle-injected-idle.gaps.csv')))
first = {}
for r in rows:
    first.setdefault(r['abs_start_ns'], r)
print('\n'.join(sorted({r['host_activity'] for r in first.values() if r['cause'] == 'sync'})))")"

# the text view shows gap starts in ms from the trace start
rel=$(awk -F'\t' '$1=="gap"{printf "%.2f", $3/1e6; exit}' "$TMP/pytorch-h200-idle-injected-idle.tsv")
check "injected: --view idle text: the largest gap starts at $rel ms from the trace start" \
    sh -c "'$DCUTOP' -q --report --view idle '$I' | grep -A2 '^Largest idle gaps' | grep -qE '^ +0 +$rel +'"

# the Trace gap line on a sync gap (sorted by cause, reversed: the sync rows first), 80x24
sync=$(awk -F'\t' '$1=="gap" && $5=="sync"{print $4 "\t" $7 "\t" $6; exit}' \
    "$TMP/pytorch-h200-idle-injected-idle.tsv")
want="Gap before it: GPU idle $(dur "$(echo "$sync" | cut -f1)"), sync; host blocked $(dur "$(echo "$sync" | cut -f2)") in $(echo "$sync" | cut -f3)"
printf '8\n>\n>\n>\n>\nr\n:resize 80x24\n:dump s\nq\n' >"$TMP/sync.keys"
"$DCUTOP" --headless --size 120x30 --keys "$TMP/sync.keys" "$I" >"$TMP/sync.out" 2>&1
got=$(grep -A1 '^Gap before it' "$TMP/sync.out" | sed 's/^  */ /' | tr -d '\n' | sed 's/  */ /g')
same "Trace at 80x24, a sync gap: the call and its op, with the figures, wrapped whole" "$want" "$got"

# the Trace gap line on the climate trace's largest gap (l), 80x24: the activity's total
big=$(awk -F'\t' '$1=="gap"{print $4 "\t" $5 "\t" $7 "\t" $6; exit}' \
    "$TMP/pytorch-h200-climate-transformer-climate.tsv")
want="Gap before it: GPU idle $(dur "$(echo "$big" | cut -f1)"), $(echo "$big" | cut -f2); host mostly $(dur "$(echo "$big" | cut -f3)") in $(echo "$big" | cut -f4)"
printf 'l\n:dump g\nq\n' >"$TMP/gap.keys"
"$DCUTOP" --headless --size 80x24 --keys "$TMP/gap.keys" "$C" >"$TMP/gap.out" 2>&1
got=$(grep -A1 '^Gap before it' "$TMP/gap.out" | sed 's/^  */ /' | tr -d '\n' | sed 's/  */ /g')
same "Trace at 80x24, the largest gap: its main activity's total in the gap, figures and name whole" \
    "$want" "$got"

# the default report's idle-causes section, against the cause oracle and the gap oracle
"$DCUTOP" -q --report --format csv "$I" 2>/dev/null >"$TMP/rep.csv"
same "default report: idle causes per device equal the raw events' (idle_oracle.py)" \
    "$(python3 tests/cli/idle_oracle.py "$I" | grep -v '^idle')" \
    "$(block idle_causes <"$TMP/rep.csv" | python3 -c "
import csv, sys
for r in csv.DictReader(sys.stdin):
    print(r['device'], r['cause'], r['gaps'], r['total_ns'], sep='\t')")"
block idle_causes_top_gaps <"$TMP/rep.csv" >"$TMP/rep.top.csv"
check "default report: the largest gaps with their main host activity (oracle)" \
    python3 "$CMP" top "$TMP/pytorch-h200-idle-injected-idle.tsv" "$TMP/rep.top.csv"
"$DCUTOP" -q --report --width 100 "$I" >"$TMP/rep.txt" 2>/dev/null
check "default report (text): the idle-causes section and its sync row" \
    sh -c "grep -q '^Why the GPU idles: idle time per device and cause' '$TMP/rep.txt' &&
           grep -qE '^  idle_train.trace.json.gz +0 +sync +2 +1\.29 ' '$TMP/rep.txt'"

# kernel-to-kernel gaps are over kernels only: labelled so, never "idle time"
kg=$(python3 -c "
import gzip, json, decimal, collections
ev = json.load(gzip.open('$I'), parse_float=decimal.Decimal)['traceEvents']
ns = lambda x: int(decimal.Decimal(str(x)) * 1000)
by = collections.defaultdict(list)
for e in ev:
    if e.get('ph') == 'X' and e.get('cat') == 'kernel':
        a = e['args']
        by[(a['device'], a['stream'])].append((ns(e['ts']), ns(e['ts']) + ns(e['dur'])))
g = []
for k in by.values():
    k.sort()
    last = k[0][1]
    for s, t in k[1:]:
        g.append(max(0, s - last))
        last = max(last, t)
g.sort()
n = len(g)
med = g[n // 2] if n % 2 else (g[n // 2 - 1] + g[n // 2]) // 2
print(n, med, round(sum(g) / n))")
set -- $kg
want="  Kernel gaps (per stream, not GPU idle): $1 gaps, median $(dur "$2"), mean $(dur "$3"),"
check "report: kernel gaps ($1, over kernels only, raw events) are labelled as such" \
    grep -qF "$want" "$TMP/rep.txt"
check "report: no table calls the kernel-only gaps idle time on a stream" \
    sh -c "! grep -q 'idle time on a stream' '$TMP/rep.txt'"
