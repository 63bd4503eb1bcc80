#!/usr/bin/env bash
# bench/http_floor.sh - the HTTP keep-alive floor on this kernel, outside
# luamech, against wrk and ab -k (issue 13's per-connection target for HTTP:
# <= 0.7x the best peer's CPU per request):
#
#   bash bench/http_floor.sh
#
# Builds bench/uring_floor.c (cc -O2 -luring, into $OUT) and runs its "http"
# workload against a fresh nginx per run, set up and pinned as
# bench/http_vs_wrk_ab.sh does (bench/lib.sh's bench_nginx_conf: one worker,
# access_log off, `location = /` returning "hello\n", keep-alive for 1e8
# requests; master and worker on CPU $SERVER_CPU (0)), the client on CPU
# $GEN_CPU (1): "GET / HTTP/1.1" ping-pong (one request in flight per
# connection) over CONNS (50) keep-alive connections for DURATION (5) s, each
# response's end found from its Content-Length; the variants epoll, uring,
# uring-defer, multishot, regfiles (bench/uring_floor.c's header) alternate
# for ROUNDS (3) rounds.  A floor run's CPU is its own getrusage (user+sys,
# every thread, from after its connects to its end) over its own count of
# responses; nginx's stub_status must agree with that count (it may be up to
# CONNS ahead: the requests in flight when the client stopped), else the
# script fails.
# PEER=1 (default): wrk (-t1 -cCONNS -dDURATIONs) and ab (-k -cCONNS
# -tDURATION, HTTP/1.0 keep-alive) join the alternation, measured over a
# window (from 1 s after the start, DURATION-2 s long): their utime+stime
# (/proc, every thread) over the requests nginx counted in the window (its
# stub_status, less this script's own status requests); a peer that reports
# failed or non-2xx requests fails the script (wrk's socket errors, e.g.
# timeouts on a loaded machine, are noted).  PEER=0: the floor's variants
# only.
# Prints each run (srv_us_op: nginx's CPU per request over the run or the
# window; oth_pct: the CPU every other process used meanwhile, from
# /proc/stat, 100 = one CPU: above ~10 the run was not quiet) and then the
# medians: requests/s and CPU us/request, and each
# variant's CPU/request ratio to epoll's, wrk's and ab's.  A quiet run of the
# defaults is 21 runs of about 6 s: under 3 minutes.  Loopback only.
# Settings: ROUNDS=3 CONNS=50 DURATION=5 PEER=1 VARIANTS="epoll uring uring-defer multishot regfiles"
# SERVER_CPU=0 GEN_CPU=1 OUT=/tmp/luamech-bench/http-floor-<time>
set -u -o pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib_window.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib_nginx.sh"

ROUNDS=${ROUNDS:-3}
CONNS=${CONNS:-50}
DURATION=${DURATION:-5}
GEN_CPU=${GEN_CPU:-1}
SERVER_CPU=${SERVER_CPU:-0}
VARIANTS=${VARIANTS:-epoll uring uring-defer multishot regfiles}
PEER=${PEER:-1}
# shellcheck disable=SC2034  # read by lib_nginx.sh: plaintext only
TLS=0
OUT=${OUT:-/tmp/luamech-bench/http-floor-$(date +%Y%m%d-%H%M%S)}
case $PEER in 0|1) ;; *) die "PEER must be 0 or 1";; esac
[ "$ROUNDS" -ge 1 ] && [ "$ROUNDS" -le 100 ] || die "ROUNDS must be 1..100"
[ "$DURATION" -ge 1 ] && [ "$DURATION" -le 600 ] || die "DURATION must be 1..600 s"
[ "$CONNS" -ge 1 ] && [ "$CONNS" -le 1000 ] || die "CONNS must be 1..1000"
[ "$PEER" = 0 ] || [ "$DURATION" -ge 4 ] || die "PEER=1 needs DURATION >= 4 s (the peers' window is DURATION-2 s)"
for v in $VARIANTS; do
  case $v in epoll|uring|uring-defer|multishot|regfiles) ;; *) die "unknown variant $v";; esac
done
need nginx nginx-light
need taskset util-linux
if [ "$PEER" = 1 ]; then need wrk wrk; need ab apache2-utils; fi
[ -r /usr/include/liburing.h ] || die "liburing.h is missing: install liburing-dev"
mkdir -p "$OUT" || die "cannot create $OUT"
cc -O2 -Wall -Wextra -o "$OUT/uring_floor" "$BENCH_DIR/uring_floor.c" -luring || die "build failed"

trap 'ng_stop' EXIT
trap 'ng_stop; exit 130' INT TERM
RUNS=$OUT/runs.txt
: >"$RUNS"
CLK_TCK=$(getconf CLK_TCK)

# hf_served PORT: sets SERVED to nginx's requests so far, less this script's
# own status requests (POLLS) since the server started.
hf_served() {
  ng_status "$1" || die "no stub_status from nginx on $1"
  SERVED=$((NG_REQ - POLLS))
}

# hf_floor VARIANT PORT DIR: one floor run; prints its line with nginx's
# count and CPU per request appended.
hf_floor() {
  local v=$1 port=$2 d=$3 line s0 s1 m0 m1 a0 a1 t0 t1 ops cpu
  hf_served "$port"; s0=$SERVED; ng_ticks; m0=$TICKS; busy_now; a0=$BUSY; now_s; t0=$NOW
  line=$(timeout $((DURATION + 30)) taskset -c "$GEN_CPU" "$OUT/uring_floor" "$v" "$port" "$CONNS" "$DURATION" http \
    2>"$d/stderr") || die "$v failed: $(cat "$d/stderr")"
  ng_ticks; m1=$TICKS; busy_now; a1=$BUSY; now_s; t1=$NOW; hf_served "$port"; s1=$SERVED
  ops=${line#* ops=}; ops=${ops%% *}
  cpu=${line#* cpu_us_op=}; cpu=${cpu%% *}
  [ $((s1 - s0)) -ge "$ops" ] && [ $((s1 - s0 - ops)) -le "$CONNS" ] \
    || die "$v counted $ops responses, nginx $((s1 - s0)) requests (at most $CONNS in flight at the end)"
  awk -v l="$line" -v o=$((s1 - s0)) -v m=$((m1 - m0)) -v b=$((a1 - a0)) -v c="$cpu" -v n="$ops" -v k="$CLK_TCK" \
      -v a="$t0" -v z="$t1" 'BEGIN {
    x = 100 * (b / k - m / k - c * n / 1e6) / (z - a); if (x < 0) x = 0
    printf "%s srv_req=%d srv_us_op=%.3f oth_pct=%.0f\n", l, o, (o > 0 ? m / k * 1e6 / o : 0), x }'
}

# hf_peer TOOL PORT DIR: one wrk or ab run, measured over the window; prints
# a line in uring_floor's format.
hf_peer() {
  local tool=$1 port=$2 d=$3 cmd=() pid rc c0 c1 u0 s0 u1 s1 r0 r1 m0 m1 a0 a1 t0 t1 st f
  case $tool in
    wrk) cmd=(wrk -t1 -c"$CONNS" -d"${DURATION}s" "http://127.0.0.1:$port/") ;;
    ab)  cmd=(ab -k -c "$CONNS" -t "$DURATION" -n 50000000 "http://127.0.0.1:$port/") ;;
  esac
  echo "${cmd[*]}" >"$d/command"
  taskset -c "$GEN_CPU" "${cmd[@]}" >"$d/stdout" 2>"$d/stderr" &
  pid=$!
  nap 1
  { IFS= read -r st <"/proc/$pid/stat"; } 2>/dev/null || die "$tool exited at start (see $d)"
  read -r -a f <<<"${st##*) }"; u0=${f[11]} s0=${f[12]}
  hf_served "$port"; r0=$SERVED; ng_ticks; m0=$TICKS; busy_now; a0=$BUSY; now_s; t0=$NOW
  nap $((DURATION - 2))
  { IFS= read -r st <"/proc/$pid/stat"; } 2>/dev/null || die "$tool ended inside its window (see $d)"
  read -r -a f <<<"${st##*) }"; u1=${f[11]} s1=${f[12]}
  hf_served "$port"; r1=$SERVED; ng_ticks; m1=$TICKS; busy_now; a1=$BUSY; now_s; t1=$NOW
  for ((c0 = 0; c0 < (DURATION + 60) * 10; c0++)); do kill -0 "$pid" 2>/dev/null || break; nap 0.1; done
  kill -0 "$pid" 2>/dev/null && { kill "$pid"; die "$tool still ran $((DURATION + 60)) s after its start; stopped"; }
  wait "$pid"; rc=$?
  [ "$rc" = 0 ] || die "$tool exited $rc (see $d)"
  case $tool in
    wrk) c1=$(sed -n 's/^ *Non-2xx or 3xx responses: *\([0-9]*\).*/\1/p' "$d/stdout")
         grep -q 'Socket errors' "$d/stdout" \
           && note "wrk: $(sed -n 's/^ *Socket errors: *//p' "$d/stdout") (its CPU per request still counts nginx's requests)" ;;
    ab)  c0=$(sed -n 's/^Failed requests: *\([0-9]*\).*/\1/p' "$d/stdout")
         [ -n "$c0" ] || die "ab printed no result (see $d/stdout)"
         c1=$(sed -n 's/^Non-2xx responses: *\([0-9]*\).*/\1/p' "$d/stdout")
         c1=$((c0 + ${c1:-0})) ;;
  esac
  [ "${c1:-0}" = 0 ] || die "$tool reported $c1 failed or non-2xx requests (see $d/stdout)"
  awk -v o=$((r1 - r0)) -v u=$((u1 - u0)) -v s=$((s1 - s0)) -v m=$((m1 - m0)) -v x=$((a1 - a0)) -v k="$CLK_TCK" \
      -v a="$t0" -v b="$t1" -v t="$tool" 'BEGIN {
    if (o <= 0) exit 1
    x = 100 * (x - u - s - m) / k / (b - a); if (x < 0) x = 0
    printf "%s ops=%d secs=%.2f ops_s=%.0f cpu_us_op=%.3f user_us_op=%.3f sys_us_op=%.3f srv_req=%d srv_us_op=%.3f oth_pct=%.0f\n",
      t, o, b - a, o / (b - a), (u + s) / k * 1e6 / o, u / k * 1e6 / o, s / k * 1e6 / o, o, m / k * 1e6 / o, x }'
}

ALL=$VARIANTS
[ "$PEER" = 0 ] || ALL="$VARIANTS wrk ab"
echo "# HTTP keep-alive floor: $(machine_line)"
echo "# $(nginx -v 2>&1 | sed 's/.*: //'); $ROUNDS rounds of: $ALL; results in $OUT"
for r in $(seq 1 "$ROUNDS"); do
  for v in $ALL; do
    d=$OUT/$r-$v
    mkdir -p "$d" || die "cannot create $d"
    port=$(free_port)
    POLLS=0
    ng_start "$d" "$port"
    case $v in
      wrk|ab) line=$(hf_peer "$v" "$port" "$d") || { ng_stop; die "round $r $v failed"; } ;;
      *)      line=$(hf_floor "$v" "$port" "$d") || { ng_stop; die "round $r $v failed"; } ;;
    esac
    ng_stop
    echo "round=$r $line" | tee -a "$RUNS"
  done
done
echo "# medians over $ROUNDS rounds, $CONNS keep-alive connections, ${DURATION}s runs (client CPU $GEN_CPU, nginx CPU $SERVER_CPU)"
printf '%-12s %10s %10s %10s %10s %10s %6s\n' variant req_s cpu_us_req user_us sys_us srv_us_req oth%
for v in $ALL; do
  awk -v v="$v" '
    function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                                     return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    $2 == v { n++; for (f = 3; f <= NF; f++) { split($f, kv, "="); x[kv[1], n] = kv[2] } }
    END { for (i = 1; i <= n; i++) { o[i] = x["ops_s", i]; c[i] = x["cpu_us_op", i]; u[i] = x["user_us_op", i]
                                     s[i] = x["sys_us_op", i]; m[i] = x["srv_us_op", i]; w[i] = x["oth_pct", i] }
          printf "%-12s %10.0f %10.3f %10.3f %10.3f %10.3f %6.0f\n", v, med(o, n), med(c, n), med(u, n), med(s, n), med(m, n), med(w, n) }' "$RUNS"
done
echo "# CPU/request ratios of the medians"
awk '
  function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                                   return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  function rat(v, p) { return (p in m) ? sprintf("%.3f", m[v] / m[p]) : "n/a" }
  { v = $2; if (!(v in k)) order[++nv] = v; k[v]++
    for (f = 3; f <= NF; f++) { split($f, kv, "="); if (kv[1] == "cpu_us_op") c[v, k[v]] = kv[2] } }
  END { for (v in k) { n = k[v]; split("", t); for (i = 1; i <= n; i++) t[i] = c[v, i]; m[v] = med(t, n) }
        printf "%-12s %10s %10s %10s\n", "variant", "/epoll", "/wrk", "/ab"
        for (j = 1; j <= nv; j++) { v = order[j]
          printf "%-12s %10s %10s %10s\n", v, rat(v, "epoll"), rat(v, "wrk"), rat(v, "ab") } }' "$RUNS"
echo "# issue 13's per-connection target: luamech <= 0.7x the best peer's CPU/request; a floor variant above 0.7 here means no client reaches it"
