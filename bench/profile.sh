#!/usr/bin/env bash
# bench/profile.sh - where luamech's CPU goes, per protocol and mode: a
# `perf record -e cpu-clock -g` profile of the generator against memcached,
# redis and nginx, run from the repo root:
#
#   bash bench/profile.sh
#
# Cases (CASES to choose; each with IO=uring (the default path) and IO=epoll,
# IOS to choose):
#   mc-conn    memcached, 50 VUs with a connection each, SET+GET of a 16-byte
#              key and 32-byte value per transaction (bench/mc_getset_vu.lua)
#   mc-pool    the same with 200 VUs pipelined over one pooled connection
#   rd-conn    redis, 50 VUs with a connection each, one SET of a 32-byte
#              value per transaction (bench/redis_set_vu.lua)
#   rd-pool    the same with 200 VUs pipelined over one pooled connection
#   http-conn  nginx (one worker, `return 200`), 50 VUs with a keep-alive
#              connection each, one GET per transaction (bench/http_get_vu.lua);
#              pooled HTTP has no pipelining (as many connections as requests
#              in flight), so it is this case and is not run separately
# Each run: a fresh server pinned to CPU $SERVER_CPU (0), luamech with one
# worker pinned to CPU $GEN_CPU (1) for DELAY+DURATION s (2+6), recorded by
# `perf record -e cpu-clock -g -D DELAY` (start-up left out), then classified
# per sample by bench/profile_classify.awk (the categories are listed there:
# kernel network stack, io_uring+libuv (user and kernel, epoll included),
# kernel other, LuaJIT, luamech engine, protocol client+parser, allocator,
# libc, other).  Prints per run: the tool's operations/s and whole-process
# CPU per operation (/usr/bin/time, under perf: a little above a bare run),
# the category shares, and the top 10 symbols by self samples.  At the end
# one table of the category shares of every run.
# 10 runs of about 15 s each with the defaults: under 4 minutes on a quiet
# machine; the script stops starting runs after BUDGET (480) s.
# Settings (environment): CASES="mc-conn mc-pool rd-conn rd-pool http-conn"
# IOS="uring epoll" DURATION=6 DELAY=2 BUDGET=480 BUILD_DIR=./build
# SERVER_CPU=0 GEN_CPU=1 OUT=/tmp/luamech-bench/profile-<time> (perf.data
# files, reports and luamech's results are kept there)
set -u -o pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CASES=${CASES:-mc-conn mc-pool rd-conn rd-pool http-conn}
IOS=${IOS:-uring epoll}
DURATION=${DURATION:-6}
DELAY=${DELAY:-2}
BUDGET=${BUDGET:-480}
SERVER_CPU=${SERVER_CPU:-0}
GEN_CPU=${GEN_CPU:-1}
OUT=${OUT:-/tmp/luamech-bench/profile-$(date +%Y%m%d-%H%M%S)}
[ "$DURATION" -ge 1 ] && [ "$DURATION" -le 120 ] || die "DURATION must be 1..120 s"
[ "$DELAY" -ge 0 ] && [ "$DELAY" -le 30 ] || die "DELAY must be 0..30 s"
for c in $CASES; do
  case $c in mc-conn|mc-pool|rd-conn|rd-pool|http-conn) ;; *) die "unknown case $c (mc-conn mc-pool rd-conn rd-pool http-conn)";; esac
done
for io in $IOS; do case $io in uring|epoll|auto) ;; *) die "IOS: $io is not uring, epoll or auto";; esac; done

need_luamech
need perf linux-perf
need taskset util-linux
need /usr/bin/time time
need jq jq
case " $CASES " in *" mc-"*) need memcached memcached;; esac
case " $CASES " in *" rd-"*) need redis-server redis-server;; esac
case " $CASES " in *" http-"*) need nginx nginx-light;; esac
mkdir -p "$OUT" || die "cannot create $OUT"

# --- servers (pinned to SERVER_CPU; stopped after each run) -----------------
SRV_PID=
SRV_SIG=TERM
srv_wait() {   # PORT NAME: wait up to 5 s for PORT to accept
  local i
  for i in $(seq 1 100); do
    (exec 9<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    kill -0 "$SRV_PID" 2>/dev/null || die "$2 on port $1 exited at start"
    sleep 0.05
  done
  die "$2 did not listen on 127.0.0.1:$1 within 5 s"
}
srv_start() {  # KIND PORT DIR
  local kind=$1 port=$2 dir=$3
  case $kind in
    mc) mc_start "$port" -o hashpower=21; SRV_PID=$MC_PID; return 0 ;;
    rd) SRV_SIG=TERM
        taskset -c "$SERVER_CPU" redis-server --bind 127.0.0.1 --port "$port" --save "" --appendonly no \
          --dir "$dir" --logfile "$dir/redis.log" --daemonize no >/dev/null 2>&1 &
        SRV_PID=$! ;;
    http) SRV_SIG=QUIT                   # nginx: graceful, master and worker
        bench_nginx_conf "$dir/nginx" "$port" 0 ""
        taskset -c "$SERVER_CPU" nginx -p "$dir/nginx" -c "$dir/nginx/nginx.conf" -e "$dir/nginx/error.log" >/dev/null 2>&1 &
        SRV_PID=$! ;;
  esac
  srv_wait "$port" "$kind"
}
srv_stop() {
  [ -n "$MC_PID" ] && { mc_stop; SRV_PID=; return 0; }
  if [ -n "$SRV_PID" ] && kill -0 "$SRV_PID" 2>/dev/null; then
    kill -"$SRV_SIG" "$SRV_PID" 2>/dev/null
    local i
    for i in $(seq 1 100); do kill -0 "$SRV_PID" 2>/dev/null || break; sleep 0.05; done
    kill -9 "$SRV_PID" 2>/dev/null
    wait "$SRV_PID" 2>/dev/null
  fi
  SRV_PID=
}
trap 'srv_stop' EXIT
trap 'srv_stop; exit 130' INT TERM

# luamech's thread names (comm, 15 characters): the process, its worker, the dashboard
COMMS="$(basename "$LUAMECH" | cut -c1-15),lm-worker-1,lm-dashboard"
CATS="net loop kother luajit engine proto alloc libc other"
TABLE=$OUT/shares.tsv
printf 'case\tio\tops_s\tcpu_us_op\tsamples\t%s\n' "$(echo $CATS | tr ' ' '\t')" >"$TABLE"

# run_case CASE IO
run_case() {
  local c=$1 io=$2 kind vus pool script port d args=() timers
  d=$OUT/$c-$io
  mkdir -p "$d"
  case $c in
    mc-*) kind=mc script=mc_getset_vu.lua timers='"memcached.get","memcached.set"' ;;
    rd-*) kind=rd script=redis_set_vu.lua timers='"redis.set"' ;;
    http-*) kind=http script=http_get_vu.lua timers='"http.get"' ;;
  esac
  case $c in *-pool) vus=200 pool=1 ;; *) vus=50 pool=0 ;; esac
  port=$(free_port)
  srv_start "$kind" "$port" "$d"
  case $kind in
    mc) args=(-e "MEMCACHED=127.0.0.1:$port") ;;
    rd) args=(-e "REDIS=127.0.0.1:$port") ;;
    http) args=(-e "URL=http://127.0.0.1:$port") ;;
  esac
  local cmd=("$LUAMECH" run "$BENCH_DIR/profile.lua" --io "$io" -u "$vus" -w 1 -i 1s -q
             -d "$((DELAY + DURATION))s" -o "$d/results" -e "VU_SCRIPT=$script" -e "POOL=$pool" "${args[@]}")
  echo "${cmd[*]}" >"$d/command"
  timeout $((DELAY + DURATION + 60)) perf record -q -e cpu-clock -g -D $((DELAY * 1000)) -o "$d/perf.data" -- \
    /usr/bin/time -o "$d/time" -f '%e %U %S' taskset -c "$GEN_CPU" "${cmd[@]}" >"$d/stdout" 2>"$d/stderr"
  local rc=$?
  srv_stop
  [ "$rc" = 0 ] || note "$c $io: exit code $rc (see $d/stderr)"
  local ops=0 rt=0 user sys
  if [ -s "$d/results/summary.json" ]; then
    ops=$(jq "[.timers[] | select(.name == ($timers)) | .summary.count] | add // 0" "$d/results/summary.json")
    rt=$(jq '.run_time_s // 0' "$d/results/summary.json")
  fi
  read -r _ user sys < <(grep -E '^[0-9.]+ [0-9.]+ [0-9.]+$' "$d/time" | tail -1)
  local ops_s cpu_op
  ops_s=$(awk -v o="$ops" -v t="$rt" 'BEGIN{ if (t > 0) printf "%.0f", o/t; else print "n/a" }')
  cpu_op=$(awk -v o="$ops" -v u="${user:-0}" -v s="${sys:-0}" 'BEGIN{ if (o > 0) printf "%.3f", (u+s)*1e6/o; else print "n/a" }')
  # only luamech's own threads (perf also saw time and taskset start)
  perf script -i "$d/perf.data" --comms "$COMMS" -F ip,sym,dso 2>/dev/null | awk -f "$BENCH_DIR/profile_classify.awk" >"$d/shares"
  perf report -i "$d/perf.data" --comms "$COMMS" --no-children --sort dso,sym -g none --stdio --percent-limit 0.5 \
    2>/dev/null | grep -v '^#' | grep -v '^$' | head -10 >"$d/top10"
  local samples row=""
  samples=$(awk '$1 == "total" { print $2 }' "$d/shares")
  for k in $CATS; do row+=$'\t'$(awk -v k="$k" '$1 == k { print $3 }' "$d/shares"); done
  printf '%s\t%s\t%s\t%s\t%s%s\n' "$c" "$io" "$ops_s" "$cpu_op" "${samples:-0}" "$row" >>"$TABLE"
  echo "## $c, IO=$io: $ops_s ops/s, $cpu_op us/op of CPU (whole process, under perf), ${samples:-0} samples"
  awk '$1 != "total" { printf "  %-7s %5.1f%%\n", $1, $3 }' "$d/shares" | paste -sd' ' | sed 's/^/  /'
  echo "  top 10 symbols (self):"
  sed 's/^ */    /' "$d/top10"
}

echo "# luamech profile: $(machine_line)"
echo "# luamech $("$LUAMECH" --version 2>&1 | head -1); $(perf version 2>&1 | head -1); server CPU $SERVER_CPU, generator CPU $GEN_CPU; ${DURATION}s recorded after ${DELAY}s; results in $OUT"
echo "# categories: net = kernel network stack; loop = io_uring+libuv (user and kernel, epoll included); kother = kernel, the rest"
echo "#   (syscall entry, scheduler, interrupts, memory); luajit = LuaJIT VM, interpreter, traces; engine = luamech engine,"
echo "#   bindings' common op code, clock reads; proto = protocol clients, parsers, protocol bindings, hiredis, http_parser,"
echo "#   OpenSSL; alloc = malloc/free; libc = other libc; other = the rest (bench/profile_classify.awk)"
START=$(date +%s)
for c in $CASES; do
  for io in $IOS; do
    if [ $(( $(date +%s) - START )) -ge "$BUDGET" ]; then
      note "budget of ${BUDGET}s spent: $c IO=$io and the rest not run"
      continue
    fi
    run_case "$c" "$io"
  done
done
echo
echo "# shares in % of luamech's samples (cpu_us_op: whole process under perf)"
column -t -s $'\t' "$TABLE" 2>/dev/null || cat "$TABLE"
echo "# $(( $(date +%s) - START )) s; files: $OUT"
