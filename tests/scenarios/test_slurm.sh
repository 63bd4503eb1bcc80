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
jqe() { jq "$@" > /dev/null; }
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
check "slurm: one end report in the job log, the merge's ($(grep -c '^Timers (ms' "$S/job.out"))" \
    [ "$(grep -c '^Timers (ms' "$S/job.out")" -eq 1 ]
check "slurm: the segments' part of the job log is short ($(sed '/^Timers (ms/,$d' "$S/job.out" | wc -l) lines)" \
    [ "$(sed '/^Timers (ms/,$d' "$S/job.out" | wc -l)" -lt 60 ]
hdrjs_check_merge "$m" "$S"/results/run/seg-?

# ---- central thresholds under Slurm (docs/distributed.md "Central
# thresholds"): the sbatch's follower judges "errors < 30" on the merged
# data of 3 tasks; memcached is frozen for 2.5 s just after the start
# instant, so each task's share has about 15 errors (it passes) and the whole
# about 45: the follower stops every task, the job exits 6
LUAMECH=$LUAMECH LUAMECH_START_DELAY=5 timeout 300 sbatch --wait -n 3 -o "$S/central.out" \
    "$SRC/deploy/slurm/luamech.sbatch" "$SRC/tests/scenarios/fixtures/central.lua" "$S/results/central" \
    -s 5 -e MEMCACHED=127.0.0.1:$MC > "$S/sbatch2.out" 2>&1 &
job=$!
at=""
for _ in $(seq 300); do
    at=$(sed -n 's/^luamech.sbatch: .* starting at \([^ ,]*\), into .*/\1/p' "$S/central.out" 2> /dev/null)
    [ -n "$at" ] && break
    sleep 0.1
done
check "central: the job announced its start instant ($at)" [ -n "$at" ]
if [ -n "$at" ]; then
    wait_s=$(awk -v a="$(date -d "$at" +%s.%N)" -v n="$(date +%s.%N)" 'BEGIN { w = a - n + 0.3; print (w > 0 ? w : 0) }')
    sleep "$wait_s"
    eval "mcpid=\$MC_PID_$MC"
    kill -STOP "$mcpid"; sleep 2.5; kill -CONT "$mcpid"
fi
wait "$job"
rc=$?
c=$S/results/central
check "central: the job exits 6, the merged verdict ($rc)" [ $rc -eq 6 ]
[ $rc -eq 6 ] || tail -30 "$S/central.out"
check "central: the follower asked every segment to stop" grep -q 'failed .* on the merged data of 3 segment(s) .*: asking every segment to stop' "$S/central.out"
for i in 1 2 3; do
    check "central: segment $i was stopped by the merged verdict, its own share passing ($(timer_errors "$c/seg-$i/summary.json" "All Transactions") errors)" \
        jqe -e '(.stopped_by | test("merged data of 3")) and .exit_code == 6 and .run_time_s < 15 and
               ([.timers[] | select(.name == "All Transactions") | .summary.errors] | add) < 30' "$c/seg-$i/summary.json"
done
check "central: the merged result names the criterion" jqe -e '.stopped_by | test("threshold \"errors < 30\" failed")' "$c/merged/summary.json"
finish
