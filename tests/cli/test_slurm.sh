#!/bin/sh
# test_slurm.sh - scripts/dcutop-slurm on a real single-node Slurm (Debian's slurm-wlm and
# munge, started here on this machine in the test's temp folder and stopped after it): the
# map of a generated 64-rank job as a job array of 8 tasks, the reduce here; the reduced
# figures equal a single-process full load. check-full only (CHECK_FULL=1), as root.
. tests/cli/lib.sh
if [ -z "${CHECK_FULL:-}" ] || [ -n "${DCUTOP_SANITIZED:-}" ]; then
    ok "# SKIP the Slurm map/reduce is checked by make check-full"
    exit 0
fi
for t in munged slurmctld slurmd sbatch sinfo; do
    command -v "$t" >/dev/null || PATH=$PATH:/usr/sbin
done
if ! command -v slurmctld >/dev/null || [ "$(id -u)" != 0 ]; then
    notok "slurm-wlm and munge installed and run as root (scripts/install-deps.sh check)"
    exit 0
fi
S=$TMP/slurm
mkdir -p "$S/state" "$S/spool" "$S/log"
chmod 700 "$S"
cleanup() {
    for p in slurmd slurmctld munged; do
        [ -f "$S/$p.pid" ] && kill "$(cat "$S/$p.pid")" 2>/dev/null
    done
    sleep 1
    rm -rf "$TMP"
}
trap cleanup EXIT
dd if=/dev/urandom of="$S/munge.key" bs=1024 count=1 2>/dev/null
chmod 600 "$S/munge.key"
munged -f --socket="$S/munge.sock" --key-file="$S/munge.key" --log-file="$S/log/munged.log" \
    --pid-file="$S/munged.pid" --seed-file="$S/munged.seed"
check "munged starts on a socket of the test's own" test -S "$S/munge.sock"
H=$(hostname -s)
port=$((20000 + $$ % 20000))
cat >"$S/slurm.conf" <<EOT
ClusterName=dcutoptest
SlurmctldHost=$H(127.0.0.1)
AuthType=auth/munge
AuthInfo=socket=$S/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=$H NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=dcutop Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOT
SLURM_CONF=$S/slurm.conf
export SLURM_CONF
slurmctld -i
slurmd
up=""
for i in $(seq 1 30); do
    up=$(sinfo -h -o %t 2>/dev/null)
    [ "$up" = idle ] && break
    sleep 1
done
same "slurmctld and slurmd up, the node idle" "idle" "$up"
[ "$up" = idle ] || { tail -5 "$S/log/slurmctld.log" "$S/log/slurmd.log" | sed 's/^/#   /'; exit 0; }

python3 bench/gen_ranks_job.py "$TMP/job" 64 2000 >/dev/null
DC=$(cd "$(dirname "$DCUTOP")" && pwd)/$(basename "$DCUTOP")
sh scripts/dcutop-slurm --dcutop "$DC" -n 8 --local-reduce -o "$TMP/sum" "$TMP"/job/rank*.trace.json \
    >"$TMP/slurm.out" 2>&1
check "dcutop-slurm: the map as a job array, then the reduce, exit 0" test $? -eq 0
sed 's/^/#   /' "$TMP/slurm.out" | head -5
same "8 array tasks ran, each writing its log" "8" "$(ls "$TMP/sum.slurm" | grep -c '^map-.*\.log$')"
same "64 summaries" "64" "$(ls "$TMP/sum" | grep -c '\.dcusum$')"
check "the reduce's report is written" grep -q "Ranks: 64" "$TMP/sum.slurm/report.txt"
for v in ranks hotspots categories; do
    "$DCUTOP" -q --view "$v" --format csv "$TMP/job" >"$TMP/full.csv"
    "$DCUTOP" -q --view "$v" --format csv "$TMP/sum" >"$TMP/red.csv"
    check "the reduced $v equal the single-process load's" cmp -s "$TMP/full.csv" "$TMP/red.csv"
done
# the other way: the reduce as a job of its own, after the map (afterok)
sh scripts/dcutop-slurm --dcutop "$DC" -n 16 -o "$TMP/sum2" "$TMP"/job/rank*.trace.json >"$TMP/s2.out" 2>&1
check "dcutop-slurm without --local-reduce submits the map and a dependent reduce" \
    grep -q "reduce job" "$TMP/s2.out"
for i in $(seq 1 60); do
    [ -s "$TMP/sum2.slurm/report.txt" ] && [ -z "$(squeue -h 2>/dev/null)" ] && break
    sleep 1
done
"$DCUTOP" -q --view ranks --format csv "$TMP/job" >"$TMP/full.csv"
"$DCUTOP" -q --view ranks --format csv "$TMP/sum2" >"$TMP/red.csv"
check "the dependent reduce ran after the map; the job reads the same" sh -c \
    "grep -q 'Ranks: 64' '$TMP/sum2.slurm/report.txt' && cmp -s '$TMP/full.csv' '$TMP/red.csv'"
