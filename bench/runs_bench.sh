#!/bin/sh
# runs_bench.sh [N] - loads N tiny files (default 100000: 1000 folders x 50 rocprofv3 pids x
# a kernel trace and a kernel stats file each, so N/2 runs) and prints the wall time of the
# load and of the per-run supersession query alone (load_runs.c), which must stay linear.
N=${1:-100000}
DCUTOP=${DCUTOP:-./dcutop}
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
python3 - "$root/t" "$N" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
hdr = '"Name","Calls","TotalDurationNs","AverageNs","Percentage","MinNs","MaxNs","StdDev"\n'
th = ('"Kind","Agent_Id","Queue_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name",'
      '"Correlation_Id","Start_Timestamp","End_Timestamp"\n')
done = 0
d = 0
while done < n:
    p = '%s/d%04d' % (root, d); os.makedirs(p); d += 1
    for pid in range(50):
        if done >= n: break
        open('%s/%d_kernel_stats.csv' % (p, 1000 + pid), 'w').write(hdr + '"k%d",1,100,100,100.0,100,100,0\n' % pid)
        open('%s/%d_kernel_trace.csv' % (p, 1000 + pid), 'w').write(th + '"KERNEL_DISPATCH",1,1,7,1,1,"k%d",1,1000,1100\n' % pid)
        done += 2
PY
start=$(date +%s.%N)
"$DCUTOP" -q --save-db "$root/t.db" "$root/t" >/dev/null || { echo "load failed"; exit 1; }
end=$(date +%s.%N)
echo "runs: $N files -> $(sqlite3 "$root/t.db" 'SELECT count(*) FROM run') runs," \
     "$(sqlite3 "$root/t.db" 'SELECT count(*) FROM source_layer WHERE NOT used') superseded;" \
     "load $(echo "$end - $start" | bc) s wall"
# the supersession query alone, on the saved database
sqlite3 "$root/t.db" <<'SQL'
UPDATE source_layer SET used = 1, superseded_by = NULL;
.timer on
CREATE TEMP TABLE best_layer AS
  SELECT l.file_id, l.layer, l.grain, l.rank,
         first_value(l.file_id) OVER w AS bf, first_value(l.grain) OVER w AS bg,
         first_value(l.rank) OVER w AS br
  FROM source_layer l JOIN source_file f ON f.id = l.file_id
  WINDOW w AS (PARTITION BY f.run_id, l.layer ORDER BY l.grain DESC, l.rank DESC, l.file_id);
UPDATE source_layer SET used = 0, superseded_by = b.bf FROM temp.best_layer b
  WHERE b.file_id = source_layer.file_id AND b.layer = source_layer.layer
    AND (b.grain < b.bg OR (b.grain = b.bg AND b.rank < b.br));
SQL
