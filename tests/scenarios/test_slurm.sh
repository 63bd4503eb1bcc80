# deploy/slurm/luamech.sbatch on a real single-machine Slurm cluster: the
# test starts munged, slurmctld and slurmd on loopback (private sockets,
# ports, state and spool directories under $TMP; Debian's slurm-wlm and
# munge), submits a 4-task job against a local memcached with sbatch --wait,
# and stops them all after.  The merged count equals memcached's own counter
# and the budget; every task ran one segment (1/4 .. 4/4 from SLURM_PROCID),
# all from one start instant; the merged percentiles equal those of the
# tasks' HDR logs merged by hdr-histogram-js (lib_hdrjs.sh).  Skips, saying why, only where slurm-wlm or
# munge is not installed or the test does not run as root (slurmd runs jobs
# as their user and needs root for that).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_hdrjs.sh"
for b in munged slurmctld slurmd sbatch srun scontrol; do
    if ! command -v $b > /dev/null 2>&1 && [ ! -x /usr/sbin/$b ]; then
        echo "SKIPPED: $b is not installed (apt-get install slurmctld slurmd slurm-client munge; .ci/setup does)"
        exit 0
    fi
done
if [ "$(id -u)" -ne 0 ]; then
    echo "SKIPPED: slurmd must run as root to start jobs; run the test suite as root"
    exit 0
fi
PATH=$PATH:/usr/sbin
start_memcached MC
S=$TMP/slurm
mkdir -p "$S/state" "$S/spool" "$S/munge" "$S/results"
chmod 700 "$S/munge"
dd if=/dev/urandom of="$S/munge/munge.key" bs=1024 count=1 status=none
chmod 600 "$S/munge/munge.key"
munged -F --force --socket="$S/munge/munge.sock" --key-file="$S/munge/munge.key" --log-file="$S/munge/munged.log" \
    --pid-file="$S/munge/munged.pid" --seed-file="$S/munge/munged.seed" > /dev/null 2>&1 &
PIDS+=($!)
CTLD_PORT=$(free_port)
SLURMD_PORT=$(free_port)
NODE=$(hostname -s)
cat > "$S/slurm.conf" <<EOF
ClusterName=luamechtest
SlurmctldHost=$NODE(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
AuthType=auth/munge
AuthInfo=socket=$S/munge/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
MpiDefault=none
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=4 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=10 State=UP
EOF
export SLURM_CONF=$S/slurm.conf
for _ in $(seq 50); do [ -S "$S/munge/munge.sock" ] && break; sleep 0.1; done
slurmctld -D -i > "$S/slurmctld.out" 2>&1 &
PIDS+=($!)
slurmd -D > "$S/slurmd.out" 2>&1 &
PIDS+=($!)
up=0
for _ in $(seq 100); do
    if scontrol show node "$NODE" 2> /dev/null | grep -Eq 'State=(IDLE|MIXED)'; then up=1; break; fi
    sleep 0.2
done
if [ $up -ne 1 ]; then
    fail "the Slurm cluster came up (node $NODE idle)"
    tail -20 "$S/slurmctld.log" "$S/slurmd.log" "$S/slurmctld.out" "$S/slurmd.out" 2> /dev/null
    finish
fi
pass "the Slurm cluster came up"

before=$(mc_stat "$MC" cmd_set)
LUAMECH=$LUAMECH LUAMECH_START_DELAY=5 timeout 300 sbatch --wait -n 4 -o "$S/job.out" \
    "$SRC/deploy/slurm/luamech.sbatch" "$SRC/tests/scenarios/fixtures/segments_budget.lua" "$S/results/run" \
    -e MEMCACHED=127.0.0.1:$MC > "$S/sbatch.out" 2>&1
rc=$?
check "sbatch --wait: the job exited 0 ($rc)" [ $rc -eq 0 ]
[ $rc -eq 0 ] || { cat "$S/sbatch.out" "$S/job.out"; tail -20 "$S/slurmd.log"; }
m=$S/results/run/merged/summary.json
after=$(mc_stat "$MC" cmd_set)
check "slurm: merged 400 transactions" [ "$(timer_count "$m" "All Transactions")" -eq 400 ]
check "slurm: memcached counted $((after - before)) sets == merged $(timer_count "$m" "memcached.set")" \
    [ $((after - before)) -eq "$(timer_count "$m" "memcached.set")" ]
check "slurm: segments 1..4 from SLURM_PROCID" [ "$(jq -c '[.segments[].index] | sort' "$m")" = "[1,2,3,4]" ]
check "slurm: one start instant" [ "$(jq '[.segments[].start_at.requested] | unique | length' "$m")" -eq 1 ]
check "slurm: each task said where its segment came from" [ "$(grep -c 'from SLURM_PROCID' "$S/job.out")" -eq 4 ]
hdrjs_check_merge "$m" "$S"/results/run/seg-?
finish
