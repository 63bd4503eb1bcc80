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
# Settings: ROUNDS=5 CONNS=50 DURATION=5 VARIANTS="..." OUT=/tmp/luamech-bench/floor-<time>
set -u -o pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ROUNDS=${ROUNDS:-5}
CONNS=${CONNS:-50}
DURATION=${DURATION:-5}
GEN_CPU=${GEN_CPU:-1}
VARIANTS=${VARIANTS:-epoll uring uring-defer multishot regfiles}
OUT=${OUT:-/tmp/luamech-bench/floor-$(date +%Y%m%d-%H%M%S)}
[ "$ROUNDS" -ge 1 ] && [ "$ROUNDS" -le 100 ] || die "ROUNDS must be 1..100"
[ "$DURATION" -ge 1 ] && [ "$DURATION" -le 600 ] || die "DURATION must be 1..600 s"
need memcached memcached
need taskset util-linux
[ -r /usr/include/liburing.h ] || die "liburing.h is missing: install liburing-dev"
mkdir -p "$OUT" || die "cannot create $OUT"
cc -O2 -Wall -Wextra -o "$OUT/uring_floor" "$BENCH_DIR/uring_floor.c" -luring || die "build failed"

trap 'mc_stop' EXIT
trap 'mc_stop; exit 130' INT TERM
RUNS=$OUT/runs.txt
: >"$RUNS"
for r in $(seq 1 "$ROUNDS"); do
  for v in $VARIANTS; do
    port=$(free_port)
    mc_start "$port"
    line=$(timeout $((DURATION + 30)) taskset -c "$GEN_CPU" "$OUT/uring_floor" "$v" "$port" "$CONNS" "$DURATION") \
      || { mc_stop; die "round $r $v failed"; }
    mc_stop
    echo "round=$r $line" | tee -a "$RUNS"
  done
done
echo "# medians over $ROUNDS rounds, $CONNS connections, ${DURATION}s runs (client CPU $GEN_CPU, memcached CPU ${SERVER_CPU:-0})"
printf '%-12s %10s %10s %10s %10s\n' variant ops_s cpu_us_op user_us sys_us
for v in $VARIANTS; do
  awk -v v="$v" '
    function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                                     return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    $2 == v { n++; for (f = 3; f <= NF; f++) { split($f, kv, "="); x[kv[1], n] = kv[2] } }
    END { for (i = 1; i <= n; i++) { o[i] = x["ops_s", i]; c[i] = x["cpu_us_op", i]; u[i] = x["user_us_op", i]; s[i] = x["sys_us_op", i] }
          printf "%-12s %10.0f %10.3f %10.3f %10.3f\n", v, med(o, n), med(c, n), med(u, n), med(s, n) }' "$RUNS"
done
