#!/usr/bin/env bash
# scripts/slurm-local.sh - a one-machine Slurm cluster, to try
# deploy/slurm/luamech.sbatch on a laptop before a real cluster
# (docs/distributed.md "Try it on one machine").  Debian 12, as root
# (slurmd starts jobs as their user): apt-get install slurmctld slurmd
# slurm-client munge memcached (.ci/setup installs them).
#
#   bash scripts/slurm-local.sh demo          # up, the sbatch example against a private memcached, down
#   bash scripts/slurm-local.sh up DIR        # start munged, slurmctld, slurmd; state, logs and config in DIR
#   . DIR/env                                 # SLURM_CONF for sbatch, squeue, scontrol
#   bash scripts/slurm-local.sh down DIR      # stop them
#
# Everything is private: the config, the state, the spool, the munge key
# and socket live in DIR; slurmctld and slurmd listen on free loopback
# ports; no systemd unit is used or changed.  The node is this machine
# (hostname -s) with 4 CPUs declared, whatever it has, so a 4-task job fits.
set -euo pipefail
PATH=$PATH:/usr/sbin
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)

slurm_usage() {
    sed -n '7,11p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}
slurm_need() {
    local b
    for b in munged slurmctld slurmd sbatch srun scontrol; do
        command -v "$b" > /dev/null || { echo "slurm-local: $b is not installed (apt-get install slurmctld slurmd slurm-client munge)" >&2; exit 1; }
    done
    [ "$(id -u)" -eq 0 ] || { echo "slurm-local: run as root (slurmd starts jobs as their user)" >&2; exit 1; }
}
slurm_port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
slurm_free_port() {
    local p
    for _ in $(seq 50); do p=$((10000 + RANDOM % 22000)); slurm_port_open "$p" || { echo "$p"; return; }; done
    echo "slurm-local: no free port" >&2; exit 1
}

# slurm_up DIR: munged, slurmctld and slurmd running, the node idle; DIR/env, DIR/pids written
slurm_up() {
    local d=$1 node ctld slurmd_port i
    slurm_need
    mkdir -p "$d/state" "$d/spool" "$d/munge"
    d=$(cd "$d" && pwd)
    chmod 700 "$d/munge"
    dd if=/dev/urandom of="$d/munge/munge.key" bs=1024 count=1 status=none
    chmod 600 "$d/munge/munge.key"
    : > "$d/pids"
    munged -F --force --socket="$d/munge/munge.sock" --key-file="$d/munge/munge.key" --log-file="$d/munge/munged.log" \
        --pid-file="$d/munge/munged.pid" --seed-file="$d/munge/munged.seed" > /dev/null 2>&1 &
    echo $! >> "$d/pids"
    ctld=$(slurm_free_port); slurmd_port=$(slurm_free_port); node=$(hostname -s)
    cat > "$d/slurm.conf" <<EOF
ClusterName=luamechlocal
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld
SlurmdPort=$slurmd_port
AuthType=auth/munge
AuthInfo=socket=$d/munge/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd.log
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
NodeName=$node NodeAddr=127.0.0.1 CPUs=4 State=UNKNOWN
PartitionName=local Nodes=ALL Default=YES MaxTime=60 State=UP
EOF
    echo "export SLURM_CONF=$d/slurm.conf" > "$d/env"
    export SLURM_CONF=$d/slurm.conf
    for _ in $(seq 50); do [ -S "$d/munge/munge.sock" ] && break; sleep 0.1; done
    slurmctld -D -i > "$d/slurmctld.out" 2>&1 &
    echo $! >> "$d/pids"
    slurmd -D > "$d/slurmd.out" 2>&1 &
    echo $! >> "$d/pids"
    for i in $(seq 100); do
        if scontrol show node "$node" 2> /dev/null | grep -Eq 'State=(IDLE|MIXED)'; then
            echo "slurm-local: node $node is up (slurmctld on 127.0.0.1:$ctld); '. $d/env' before sbatch"
            return 0
        fi
        sleep 0.2
    done
    echo "slurm-local: the node did not come up in 20 s; the logs:" >&2
    tail -20 "$d/slurmctld.log" "$d/slurmd.log" "$d/slurmctld.out" "$d/slurmd.out" >&2 2> /dev/null || true
    slurm_down "$d"
    return 1
}

# slurm_down DIR: stops what slurm_up started (DIR/pids)
slurm_down() {
    local d=$1 p
    [ -f "$d/pids" ] || { echo "slurm-local: $d/pids not found: nothing started there" >&2; return 1; }
    while read -r p; do kill "$p" 2> /dev/null || true; done < "$d/pids"
    for _ in $(seq 50); do
        local alive=0
        while read -r p; do kill -0 "$p" 2> /dev/null && alive=1; done < "$d/pids"
        [ $alive = 0 ] && break
        sleep 0.1
    done
    rm -f "$d/pids"
    echo "slurm-local: stopped"
}

# slurm_demo: the shipped sbatch example, 4 tasks, against a private memcached; prints the merged result
DEMO_DIR="" DEMO_MC_PID=""
slurm_demo_end() {
    [ -z "$DEMO_DIR" ] || slurm_down "$DEMO_DIR" > /dev/null 2>&1 || true
    [ -z "$DEMO_MC_PID" ] || kill "$DEMO_MC_PID" 2> /dev/null || true
}
slurm_demo() {
    local d mc_port rc luamech=${LUAMECH:-$root/build/luamech}
    [ -x "$luamech" ] || luamech=$(command -v luamech || true)
    [ -x "$luamech" ] || { echo "slurm-local: luamech not found: build it (bash .ci/setup) or set LUAMECH" >&2; exit 1; }
    command -v memcached > /dev/null || { echo "slurm-local: memcached is not installed (apt-get install memcached)" >&2; exit 1; }
    d=$(mktemp -d /tmp/luamech-slurm.XXXXXX)
    mc_port=$(slurm_free_port)
    trap slurm_demo_end EXIT
    memcached -l 127.0.0.1 -p "$mc_port" -U 0 -u root -t 1 &
    DEMO_MC_PID=$!
    DEMO_DIR=$d
    slurm_up "$d"
    echo "slurm-local: sbatch -n 4 deploy/slurm/luamech.sbatch scenarios/membase.lua $d/results/run -d 20s -r 5s -i 5s (memcached on 127.0.0.1:$mc_port)"
    set +e
    LUAMECH=$luamech LUAMECH_START_DELAY=${LUAMECH_START_DELAY:-5} timeout 300 sbatch --wait -n 4 -o "$d/job.out" \
        "$root/deploy/slurm/luamech.sbatch" "$root/scenarios/membase.lua" "$d/results/run" \
        -d 20s -r 5s -i 5s -e MEMCACHED=127.0.0.1:$mc_port > "$d/sbatch.out" 2>&1
    rc=$?
    set -e
    echo "slurm-local: the job exited $rc; its log ($d/job.out):"
    cat "$d/job.out"
    echo "slurm-local: the merged report is $d/results/run/merged (report.html, summary.json)"
    if command -v jq > /dev/null && [ -f "$d/results/run/merged/summary.json" ]; then
        echo "slurm-local: memcached counted $(slurm_mc_sets "$mc_port") sets; the merged SET timer $(jq '[.timers[] | select(.name == "SET") | .summary.count] | add' "$d/results/run/merged/summary.json")"
    fi
    return $rc
}
slurm_mc_sets() {
    local line
    exec 3<>"/dev/tcp/127.0.0.1/$1"
    printf 'stats\r\n' >&3
    while IFS= read -r -t 2 line <&3; do
        line=${line%$'\r'}
        [ "$line" = END ] && break
        case $line in "STAT cmd_set "*) echo "${line#STAT cmd_set }";; esac
    done
    exec 3<&- 3>&-
}

case ${1:-} in
    up) [ $# -eq 2 ] || slurm_usage; slurm_up "$2" ;;
    down) [ $# -eq 2 ] || slurm_usage; slurm_down "$2" ;;
    demo) [ $# -eq 1 ] || slurm_usage; slurm_demo ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' ;;
    *) slurm_usage ;;
esac
