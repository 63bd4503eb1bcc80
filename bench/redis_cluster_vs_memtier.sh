#!/usr/bin/env bash
# bench/redis_cluster_vs_memtier.sh - luamech's redis cluster mode against
# memtier_benchmark --cluster-mode on the same 3-master redis Cluster, run
# from the repo root:
#
#   MEMTIER=/path/to/memtier_benchmark bash bench/redis_cluster_vs_memtier.sh
#
# memtier_benchmark is not in Debian: build it from its public source outside
# this repository and name the binary in MEMTIER (required).
#
# Cluster: three redis-server (cluster-enabled, --save "" --appendonly no) on
# free loopback ports, all pinned to SERVER_CPU, joined by redis-cli --cluster
# create --cluster-replicas 0; the same cluster for every run, FLUSHALL on
# each master between runs.  Generator pinned to GEN_CPU.
# Workload (both tools): CONNS clients, each with a connection to every
# master, closed loop, no pipelining, SET:GET 1:1 of random keys "key:<n>",
# n uniform in [1, KEYS], VALUE_SIZE-byte values, 2*N commands in all.
#   - memtier: --cluster-mode -t 1 -c CONNS --ratio=1:1 --pipeline=1
#     --key-pattern=R:R --key-minimum=1 --key-maximum=KEYS -d VALUE_SIZE
#     -n 2*N/CONNS (requests per client)
#   - luamech: bench/redis_cluster.lua, -u CONNS -w 1 -n N (a transaction is
#     one SET and one GET: bench/redis_cluster_vu.lua)
# Runs alternate luamech, memtier, ... for ROUNDS rounds.  Per run: the
# generator's CPU (user+sys of the whole process, /usr/bin/time) per command
# the servers counted (INFO commandstats cmdstat_set + cmdstat_get calls,
# summed over the masters, before and after), the servers' rate over the
# run's wall time, and the CPU the servers used per command.  Medians, and
# the ratio luamech / memtier of the medians, are printed.
# Settings (environment): ROUNDS=5 N=200000 CONNS=50 KEYS=100000
#   VALUE_SIZE=32 SERVER_CPU=0 GEN_CPU=1 QUIET_WAIT=30 QUIET_PCT=15
#   OUT=DIR (default /tmp/luamech-bench/redis-cluster-<time>)
set -u -o pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ROUNDS=${ROUNDS:-5}
N=${N:-200000}
CONNS=${CONNS:-50}
KEYS=${KEYS:-100000}
VALUE_SIZE=${VALUE_SIZE:-32}
SERVER_CPU=${SERVER_CPU:-0}
GEN_CPU=${GEN_CPU:-1}
QUIET_WAIT=${QUIET_WAIT:-30}
QUIET_PCT=${QUIET_PCT:-15}
OUT=${OUT:-/tmp/luamech-bench/redis-cluster-$(date +%Y%m%d-%H%M%S)}

[ "$ROUNDS" -ge 1 ] && [ "$ROUNDS" -le 100 ] || die "ROUNDS must be 1..100"
[ "$N" -ge 1000 ] && [ "$N" -le 100000000 ] || die "N must be 1000..100000000"
[ "$CONNS" -ge 1 ] && [ "$CONNS" -le 2000 ] || die "CONNS must be 1..2000"
[ $((2 * N % CONNS)) = 0 ] || die "2*N must be a multiple of CONNS (memtier's -n is per client)"
need_luamech
need redis-server redis-server
need redis-cli redis-tools
need /usr/bin/time time
need jq jq
need taskset util-linux
[ -n "${MEMTIER:-}" ] || die "set MEMTIER=/path/to/memtier_benchmark (built from its source outside this repo)"
[ -x "$MEMTIER" ] || die "MEMTIER=$MEMTIER is not an executable"
mkdir -p "$OUT" || die "cannot create $OUT"
CLK_TCK=$(getconf CLK_TCK)

PORTS=() PIDS=()
stop_all() { local p; for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null; done; wait 2>/dev/null; }
trap stop_all EXIT
trap 'stop_all; exit 130' INT TERM

start_node() {   # PORT
  local port=$1 d=$OUT/node-$1 i
  mkdir -p "$d"
  taskset -c "$SERVER_CPU" redis-server --bind 127.0.0.1 --port "$port" --save "" --appendonly no \
    --cluster-enabled yes --cluster-config-file "$d/nodes.conf" --dir "$d" --logfile "$d/redis.log" \
    --maxclients 4096 --daemonize no >/dev/null 2>&1 &
  PIDS+=($!)
  for i in $(seq 1 100); do
    [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ] && return 0
    sleep 0.05
  done
  die "redis-server did not answer on 127.0.0.1:$port"
}
while [ ${#PORTS[@]} -lt 3 ]; do
  p=$(free_port)
  (exec 9<>"/dev/tcp/127.0.0.1/$((p + 10000))") 2>/dev/null && continue   # its bus port is taken
  case " ${PORTS[*]:-} " in *" $p "*) continue;; esac
  start_node "$p"; PORTS+=("$p")
done
redis-cli --cluster create "127.0.0.1:${PORTS[0]}" "127.0.0.1:${PORTS[1]}" "127.0.0.1:${PORTS[2]}" \
  --cluster-replicas 0 --cluster-yes >"$OUT/create.log" 2>&1 || die "redis-cli --cluster create failed: $OUT/create.log"
for i in $(seq 1 100); do
  ok=0
  for p in "${PORTS[@]}"; do redis-cli -p "$p" cluster info | grep -q '^cluster_state:ok' && ok=$((ok + 1)); done
  [ $ok = 3 ] && break
  sleep 0.1
done
[ $ok = 3 ] || die "the cluster did not reach cluster_state:ok"
CLUSTER="127.0.0.1:${PORTS[0]},127.0.0.1:${PORTS[1]},127.0.0.1:${PORTS[2]}"

calls() {   # SET+GET calls summed over the masters
  local p s=0 n
  for p in "${PORTS[@]}"; do
    n=$(redis-cli -p "$p" info commandstats | tr -d '\r' |
        awk -F'[:,=]' '/^cmdstat_(set|get):/ {s += $3} END {print s + 0}')
    s=$((s + n))
  done
  echo "$s"
}
srv_ticks() { local p s=0; for p in "${PIDS[@]}"; do s=$((s + $(pid_ticks "$p"))); done; echo "$s"; }

TSV=$OUT/runs.tsv
printf 'round\ttool\tcommands\twall_s\tops_s\tgen_cpu_us_cmd\tsrv_cpu_us_cmd\trc\n' >"$TSV"
run_one() {   # TOOL ROUND
  local tool=$1 round=$2 d=$OUT/$1-$2 c0 c1 s0 s1 t0 t1 rc cmd=() p
  mkdir -p "$d"
  for p in "${PORTS[@]}"; do redis-cli -p "$p" flushall >/dev/null; redis-cli -p "$p" config resetstat >/dev/null; done
  quiet=$(wait_quiet "$QUIET_WAIT" "$QUIET_PCT")
  [ "$quiet" -lt "$QUIET_PCT" ] || note "round $round $tool: machine busy (${quiet}% of a CPU); running anyway"
  if [ "$tool" = luamech ]; then
    cmd=("$LUAMECH" run "$BENCH_DIR/redis_cluster.lua" -u "$CONNS" -w 1 -n "$N" -q -o "$d/results"
         -e "CLUSTER=$CLUSTER" -e "KEYS=$KEYS" -e "VALUE_SIZE=$VALUE_SIZE")
  else
    cmd=("$MEMTIER" --server=127.0.0.1 --port="${PORTS[0]}" --protocol=redis --cluster-mode -t 1 -c "$CONNS"
         --ratio=1:1 --pipeline=1 --key-pattern=R:R --key-minimum=1 --key-maximum="$KEYS" -d "$VALUE_SIZE"
         -n $((2 * N / CONNS)) --hide-histogram)
  fi
  c0=$(calls); s0=$(srv_ticks); t0=$(date +%s.%N)
  taskset -c "$GEN_CPU" /usr/bin/time -f '%e %U %S' -o "$d/time" "${cmd[@]}" >"$d/stdout" 2>"$d/stderr"
  rc=$?
  t1=$(date +%s.%N); s1=$(srv_ticks); c1=$(calls)
  read -r wall user sys <"$d/time" 2>/dev/null || { wall=0 user=0 sys=0; }
  awk -v r="$round" -v t="$tool" -v c=$((c1 - c0)) -v t0="$t0" -v t1="$t1" -v u="$user" -v s="$sys" \
      -v st=$((s1 - s0)) -v k="$CLK_TCK" -v rc="$rc" 'BEGIN {
        if (c <= 0) c = 1
        w = t1 - t0
        printf "%s\t%s\t%d\t%.2f\t%.0f\t%.2f\t%.2f\t%d\n", r, t, c, w, c / w, (u + s) * 1e6 / c, st * 1e6 / k / c, rc }' >>"$TSV"
  tail -n 1 "$TSV" >&2
}

note "$(machine_line); cluster $CLUSTER on CPU $SERVER_CPU, generator on CPU $GEN_CPU; $ROUNDS rounds of $((2 * N)) commands, $CONNS clients"
printf 'round\ttool\tcommands\twall_s\tops_s\tgen_cpu_us_cmd\tsrv_cpu_us_cmd\trc\n' >&2
for round in $(seq 1 "$ROUNDS"); do
  run_one luamech "$round"
  run_one memtier "$round"
done
med() { awk -F'\t' -v t="$1" -v col="$2" 'NR > 1 && $2 == t && $8 == 0 {print $col}' "$TSV" | median; }
lm_cpu=$(med luamech 6); mt_cpu=$(med memtier 6)
lm_ops=$(med luamech 5); mt_ops=$(med memtier 5)
lm_srv=$(med luamech 7); mt_srv=$(med memtier 7)
echo "medians over $ROUNDS rounds ($((2 * N)) commands each; runs in $TSV):"
printf '  %-8s gen CPU %s us/cmd, %s cmd/s, servers %s us/cmd\n' luamech "$lm_cpu" "$lm_ops" "$lm_srv"
printf '  %-8s gen CPU %s us/cmd, %s cmd/s, servers %s us/cmd\n' memtier "$mt_cpu" "$mt_ops" "$mt_srv"
awk -v a="$lm_cpu" -v b="$mt_cpu" -v x="$lm_ops" -v y="$mt_ops" 'BEGIN {
  if (b > 0) printf "ratio luamech/memtier: generator CPU per command %.2fx, rate %.2fx\n", a / b, x / y }'
bad=$(awk -F'\t' 'NR > 1 && $8 != 0' "$TSV" | wc -l)
[ "$bad" = 0 ] || { note "$bad run(s) exited non-zero: see $OUT"; exit 1; }
