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
mkdir -p "$S/results"
# the one-machine cluster of docs/distributed.md "Try it on one machine"
if ! bash "$SRC/scripts/slurm-local.sh" up "$S" > "$S/up.out" 2>&1; then
    fail "the Slurm cluster came up (scripts/slurm-local.sh up)"; cat "$S/up.out"; finish
fi
trap 'bash "$SRC/scripts/slurm-local.sh" down "$S" > /dev/null 2>&1; cleanup' EXIT
. "$S/env"
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
# the job log is short: per segment its banner, a progress line per interval
# and a three-line end summary; the full report is the merge's (886 lines
# for 4 segments before)
for i in 1 2 3 4; do
    check "slurm: segment $i's end summary in the job log" grep -q "segment $i/4 of segments_budget: completed (exit 0), 100 transactions" "$S/job.out"
done
check "slurm: one full report in the job log, the merge's ($(grep -c 'Performance Results Report' "$S/job.out"))" \
    [ "$(grep -c 'Performance Results Report' "$S/job.out")" -eq 1 ]
check "slurm: the segments' part of the job log is short ($(sed '/Performance Results Report/,$d' "$S/job.out" | wc -l) lines)" \
    [ "$(sed '/Performance Results Report/,$d' "$S/job.out" | wc -l)" -lt 60 ]
hdrjs_check_merge "$m" "$S"/results/run/seg-?
finish
