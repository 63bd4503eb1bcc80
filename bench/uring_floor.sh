#!/usr/bin/env bash
# bench/uring_floor.sh - the socket I/O floor on this kernel, outside luamech
# (issue 13: measured before the io_uring backend was built):
#
#   bash bench/uring_floor.sh
#
# Builds bench/uring_floor.c (cc -O2 -luring, into $OUT) and runs it against a
# memcached pinned to CPU $SERVER_CPU (0), the client pinned to CPU $GEN_CPU
# (1): memcached "get" of a missing key, ping-pong (one request in flight per
# connection) over CONNS (50) connections for DURATION (5) s, alternating the
# variants epoll, uring, uring-defer, multishot, regfiles for ROUNDS (5)
# rounds, a fresh memcached per run.  Prints each run and then the medians:
# ops/s and CPU us/op (user+sys of the client from getrusage, every thread).
# MIX=get (default) or getset: each connection alternates a SET and a GET of
# its own 16-byte key with a 32-byte value (memcaslap's and
# bench/memcached_vs_memcaslap.sh's workload; every GET hits).
# PEER=1: memcaslap joins the alternation (-T 1 -c CONNS, SET:GET 1:1, 16-byte
# keys, 32-byte values, as in bench/memcached_vs_memcaslap.sh; MIX defaults
# to getset then), measured over a window (from 1 s after its start, DURATION-2
# s long): its utime+stime (/proc, every thread) / the server's cmd_get+cmd_set
# in the window (its start-up, a 10 MB random table, is left out as the
# floor's connect is); and the medians end with each variant's CPU/op ratio
# to memcaslap's, and to epoll's.
# Settings: ROUNDS=5 CONNS=50 DURATION=5 MIX=get PEER=0 VARIANTS="..." OUT=/tmp/luamech-bench/floor-<time>
set -u -o pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ROUNDS=${ROUNDS:-5}
CONNS=${CONNS:-50}
DURATION=${DURATION:-5}
GEN_CPU=${GEN_CPU:-1}
VARIANTS=${VARIANTS:-epoll uring uring-defer multishot regfiles}
PEER=${PEER:-0}
if [ "$PEER" = 1 ]; then MIX=${MIX:-getset}; else MIX=${MIX:-get}; fi
case $MIX in get|getset) ;; *) die "MIX must be get or getset";; esac
case $PEER in 0|1) ;; *) die "PEER must be 0 or 1";; esac
OUT=${OUT:-/tmp/luamech-bench/floor-$(date +%Y%m%d-%H%M%S)}
[ "$ROUNDS" -ge 1 ] && [ "$ROUNDS" -le 100 ] || die "ROUNDS must be 1..100"
[ "$DURATION" -ge 1 ] && [ "$DURATION" -le 600 ] || die "DURATION must be 1..600 s"
[ "$PEER" = 0 ] || [ "$DURATION" -ge 4 ] || die "PEER=1 needs DURATION >= 4 s (memcaslap's window is DURATION-2 s)"
need memcached memcached
[ "$PEER" = 0 ] || need memcaslap libmemcached-tools
need taskset util-linux
[ -r /usr/include/liburing.h ] || die "liburing.h is missing: install liburing-dev"
mkdir -p "$OUT" || die "cannot create $OUT"
cc -O2 -Wall -Wextra -o "$OUT/uring_floor" "$BENCH_DIR/uring_floor.c" -luring || die "build failed"

trap 'mc_stop' EXIT
trap 'mc_stop; exit 130' INT TERM
RUNS=$OUT/runs.txt
: >"$RUNS"
CLK_TCK=$(getconf CLK_TCK)
printf 'key\n16 16 1\nvalue\n32 32 1\ncmd\n0 0.5\n1 0.5\n' >"$OUT/memcaslap.cnf"

# floor_ticks PID: "utime stime" of PID in clock ticks.
floor_ticks() {
  local st
  st=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  st=${st##*) }
  # shellcheck disable=SC2086
  set -- $st
  echo "${12} ${13}"
}

# floor_peer PORT: one memcaslap run; prints a line in uring_floor's format
# (CPU over the window, user/sys split from the same ticks).
floor_peer() {
  local port=$1 pid u0 s0 u1 s1 o0 o1 t0 t1 g s
  taskset -c "$GEN_CPU" memcaslap -s "127.0.0.1:$port" -T 1 -c "$CONNS" -F "$OUT/memcaslap.cnf" \
    -t "${DURATION}s" >"$OUT/memcaslap-$port.out" 2>&1 &
  pid=$!
  sleep 1
  read -r u0 s0 < <(floor_ticks "$pid") || { wait "$pid"; return 1; }
  read -r g s _ < <(mc_getset "$port"); o0=$((g + s)); t0=$(date +%s.%N)
  sleep $((DURATION - 2))
  read -r u1 s1 < <(floor_ticks "$pid") || { wait "$pid"; return 1; }
  read -r g s _ < <(mc_getset "$port"); o1=$((g + s)); t1=$(date +%s.%N)
  wait "$pid" || return 1
  awk -v o=$((o1 - o0)) -v u=$((u1 - u0)) -v s=$((s1 - s0)) -v k="$CLK_TCK" -v a="$t0" -v b="$t1" 'BEGIN {
    if (o <= 0) exit 1
    printf "memcaslap ops=%d secs=%.2f ops_s=%.0f cpu_us_op=%.3f user_us_op=%.3f sys_us_op=%.3f\n",
      o, b - a, o / (b - a), (u + s) / k * 1e6 / o, u / k * 1e6 / o, s / k * 1e6 / o }'
}

ALL=$VARIANTS
[ "$PEER" = 0 ] || ALL="$VARIANTS memcaslap"
for r in $(seq 1 "$ROUNDS"); do
  for v in $ALL; do
    port=$(free_port)
    mc_start "$port"
    if [ "$v" = memcaslap ]; then
      line=$(floor_peer "$port") || { mc_stop; die "round $r memcaslap failed (see $OUT/memcaslap-$port.out)"; }
    else
      line=$(timeout $((DURATION + 30)) taskset -c "$GEN_CPU" "$OUT/uring_floor" "$v" "$port" "$CONNS" "$DURATION" "$MIX") \
        || { mc_stop; die "round $r $v failed"; }
    fi
    mc_stop
    echo "round=$r $line" | tee -a "$RUNS"
  done
done
echo "# medians over $ROUNDS rounds, $CONNS connections, ${DURATION}s runs, MIX=$MIX (client CPU $GEN_CPU, memcached CPU ${SERVER_CPU:-0})"
printf '%-12s %10s %10s %10s %10s\n' variant ops_s cpu_us_op user_us sys_us
for v in $ALL; do
  awk -v v="$v" '
    function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                                     return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    $2 == v { n++; for (f = 3; f <= NF; f++) { split($f, kv, "="); x[kv[1], n] = kv[2] } }
    END { for (i = 1; i <= n; i++) { o[i] = x["ops_s", i]; c[i] = x["cpu_us_op", i]; u[i] = x["user_us_op", i]; s[i] = x["sys_us_op", i] }
          printf "%-12s %10.0f %10.3f %10.3f %10.3f\n", v, med(o, n), med(c, n), med(u, n), med(s, n) }' "$RUNS"
done
# ratios of the medians: each variant's CPU/op to epoll's and (PEER=1) to memcaslap's
echo "# CPU/op ratios of the medians"
awk '
  function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                                   return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  { v = $2; if (!(v in k)) order[++nv] = v; k[v]++
    for (f = 3; f <= NF; f++) { split($f, kv, "="); if (kv[1] == "cpu_us_op") c[v, k[v]] = kv[2] } }
  END { for (v in k) { n = k[v]; split("", t); for (i = 1; i <= n; i++) t[i] = c[v, i]; m[v] = med(t, n) }
        printf "%-12s %12s %16s\n", "variant", "/epoll", "/memcaslap"
        for (j = 1; j <= nv; j++) { v = order[j]
          printf "%-12s %12s %16s\n", v, ("epoll" in m) ? sprintf("%.3f", m[v] / m["epoll"]) : "n/a",
                 ("memcaslap" in m) ? sprintf("%.3f", m[v] / m["memcaslap"]) : "n/a" } }' "$RUNS"
