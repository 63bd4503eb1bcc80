#!/usr/bin/env bash
# bench/idle_vus.sh - memory cost of idle VUs, run from the repo root:
#
#   bash bench/idle_vus.sh
#
# Runs bench/idle_vus.lua (VUs whose transaction is `luamech.sleep(1)`, no
# network) with VUS VUs (default 100000), a RAMPUP ramp-up (2 s) and a
# DURATION run (10 s), and first the same with 1 VU as the baseline.  Peak RSS
# comes from /usr/bin/time %M (the kernel's maxrss) and is cross-checked by
# sampling /proc/PID/status (VmRSS, VmHWM) every 0.2 s.  Reported: peak MB,
# bytes per VU (peak / VUs) and the marginal bytes per VU ((peak - baseline
# peak) / (VUs - 1)), and whether the VUs kept their schedule: transactions
# against those due (each VU one per second from its start), and the
# lateness of the wake-ups (engine.wake_lag: p99 over the run and the worst
# per-interval p99 after the ramp-up).  Targets: < TARGET_MB; transactions
# within 2 % of those due; wake-up lag p99 <= 50 ms.  For the issue's
# million: VUS=1000000 DURATION=15 TARGET_MB=1536.
#
# Also printed, to find where a missed schedule went: the set-up time (launch
# to t0: the VUs' coroutines are made before the clock starts), each
# thread's CPU (user and system, from /proc/PID/task/*/stat sampled with the
# RSS; the workers are named lm-worker-N), and one row per interval:
# active VUs, transactions against those due, wake-up lag p99, the workers'
# CPU (engine.cpu_us) and that CPU per transaction.  The load average comes
# first: figures taken on a busy machine say so.
#
# Settings (environment): VUS=100000  RAMPUP=2  DURATION=10  WORKERS= (luamech
# default: one per CPU)  TARGET_MB=500  OUT=DIR  BUILD_DIR=./build
set -u -o pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

VUS=${VUS:-100000}
RAMPUP=${RAMPUP:-2}
DURATION=${DURATION:-10}
WORKERS=${WORKERS:-}
TARGET_MB=${TARGET_MB:-500}
OUT=${OUT:-/tmp/luamech-bench/idle-$(date +%Y%m%d-%H%M%S)}

[ "$VUS" -ge 1 ] && [ "$VUS" -le 1000000 ] || die "VUS must be 1..1000000"
[ "$DURATION" -ge 1 ] && [ "$DURATION" -le 600 ] || die "DURATION must be 1..600 s"
need_luamech
need /usr/bin/time time
need jq jq
mkdir -p "$OUT" || die "cannot create $OUT"

wopt=()
[ -n "$WORKERS" ] && wopt=(-w "$WORKERS")

# threads_sample PID: "tid name utime stime" per thread (clock ticks), one awk.
threads_sample() {
  awk '{ s = $0; sub(/^[0-9]+ \(/, "", s); name = s; sub(/\) .*/, "", name); sub(/^.*\) /, "", s);
         split(s, a, " "); split(FILENAME, p, "/"); print p[5], name, a[12], a[13] }' /proc/"$1"/task/*/stat 2>/dev/null
}

# run_idle N: prints "peak_kb hwm_kb transactions wall_s user_s sys_s rc"
run_idle() {
  local n=$1 d=$OUT/vus-$1 tpid gpid i rc line hwm=0 hwm_now
  mkdir -p "$d"
  local cmd=("$LUAMECH" run "$BENCH_DIR/idle_vus.lua" -u "$n" -r "${RAMPUP}s" -d "${DURATION}s"
             -i 1s -q "${wopt[@]}" -o "$d/results")
  echo "${cmd[*]}" >"$d/command"
  date +%s.%N >"$d/launched"
  /usr/bin/time -o "$d/time" -f '%e %U %S %M' "${cmd[@]}" >"$d/stdout" 2>"$d/stderr" &
  tpid=$!
  gpid=$(child_pid "$tpid") || gpid=
  : >"$d/rss.tsv"
  : >"$d/threads.tsv"
  # sample until it exits; bounded by RAMPUP + DURATION + 60 s (+ set-up)
  for i in $(seq 1 $(((RAMPUP + DURATION + 90) * 5))); do
    kill -0 "$tpid" 2>/dev/null || break
    if [ -n "$gpid" ] && line=$(awk '/^VmRSS/{r=$2} /^VmHWM/{h=$2} END{print r+0, h+0}' "/proc/$gpid/status" 2>/dev/null); then
      echo "$(date +%s.%N) $line" >>"$d/rss.tsv"
      read -r _ hwm_now <<<"$line"
      [ "${hwm_now:-0}" -gt "$hwm" ] && hwm=$hwm_now
      # each thread: tid name utime stime (clock ticks); its last sample counts
      threads_sample "$gpid" | sed "s/^/$(date +%s.%N) /" >>"$d/threads.tsv"
    fi
    sleep 0.2
  done
  if kill -0 "$tpid" 2>/dev/null; then
    note "luamech with $n VUs still running; stopping it"
    [ -n "$gpid" ] && kill "$gpid" 2>/dev/null
  fi
  wait "$tpid"; rc=$?
  local wall user sys peak tx=0 lag=n/a lag_steady=n/a
  read -r wall user sys peak < <(grep -E '^[0-9.]+ [0-9.]+ [0-9.]+ [0-9]+$' "$d/time" | tail -1)
  [ -s "$d/results/summary.json" ] && \
    tx=$(jq '[.timers[] | select(.kind=="all") | .summary.count] | add // 0' "$d/results/summary.json")
  if [ -s "$d/results/summary.json" ]; then
    lag=$(jq '[.timers[] | select(.name=="engine.wake_lag") | .summary.p99_ms] | .[0] // "n/a"' "$d/results/summary.json")
    lag_steady=$(jq --argjson r "$RAMPUP" '[.timers[] | select(.name=="engine.wake_lag") | .intervals
      | to_entries[] | select(.key >= $r + 1 and .value.count > 0) | .value.p99_ms] | max // "n/a"' \
      "$d/results/summary.json")   # 1 s intervals: index k starts at k s
  fi
  [ "$rc" = 0 ] || note "luamech with $n VUs: exit code $rc (see $d/stderr)"
  echo "${peak:-0} $hwm $tx ${wall:-0} ${user:-0} ${sys:-0} $rc $lag $lag_steady"
}

# details N: set-up time, per-thread CPU and the per-interval rows of run N.
details() {
  local d=$OUT/vus-$1 s=$OUT/vus-$1/results/summary.json
  [ -s "$s" ] || return 0
  local t0 launched
  t0=$(jq -r '.start_unix_ns' "$s")
  launched=$(cat "$d/launched")
  awk -v t0="$t0" -v l="$launched" 'BEGIN{printf "set-up (launch to t0: scripts, VUs and their coroutines): %.2f s\n", t0/1e9 - l}'
  if [ -s "$d/threads.tsv" ]; then
    echo "CPU per thread, user+sys seconds (sampled every 0.2 s: each thread's last sample, up to 0.2 s before"
    echo "it ended; \"before t0\": its last sample before the clock started):"
    awk -v hz="$(getconf CLK_TCK)" -v t0="$t0" '!($2 in n) {o[++k] = $2}
      {n[$2] = $3; u[$2] = $4; s[$2] = $5; if ($1 * 1e9 <= t0) {bu[$2] = $4; bs[$2] = $5}}
      END {for (i = 1; i <= k; i++) { t = o[i];
        printf "  %-8s %-16s user %7.2f  sys %7.2f  (before t0: user %6.2f  sys %6.2f)\n", t, n[t], u[t]/hz, s[t]/hz, bu[t]/hz, bs[t]/hz } }' \
      "$d/threads.tsv"
  fi
  echo "per interval (1 s; due: VUs started before the interval's start, each one transaction per second;"
  echo "the last one also ends every sleeping VU's transaction at the stop):"
  jq -r --argjson n "$1" --argjson r "$RAMPUP" --argjson d "$DURATION" '
    def tx: [.timers[] | select(.kind=="all") | .intervals] | .[0];
    def lag: [.timers[] | select(.name=="engine.wake_lag") | .intervals] | .[0] // [];
    def cpu: [.counters[] | select(.name=="engine.cpu_us") | .intervals] | .[0] // [];
    (tx) as $tx | (lag) as $lag | (cpu) as $cpu | (.load.active_vus // []) as $act |
    "interval  active_vus  transactions         due  ratio  wake_lag_p99_ms  worker_cpu_ms  cpu_ns/tx",
    (range(0; $tx | length) as $k |
      ($n * ([([$k / (if $r > 0 then $r else 1 end), 1] | min), 0] | max) + (if $k == ($tx|length) - 1 then $n else 0 end)) as $due |
      ($tx[$k].count) as $c |
      "\($k + 1 | tostring | .[0:8] | (" " * (8 - length)) + .)  \($act[$k] // "-" | tostring | (" " * (10 - length)) + .)  \($c | tostring | (" " * (12 - length)) + .)  \($due | floor | tostring | (" " * (10 - length)) + .)  \(if $due > 0 then ($c / $due * 1000 | round / 1000 | tostring) else "-" end | (" " * (5 - length)) + .)  \($lag[$k].p99_ms // "-" | tostring | (" " * (15 - length)) + .)  \((($cpu[$k] // 0) / 1000 | round) | tostring | (" " * (13 - length)) + .)  \(if $c > 0 then (($cpu[$k] // 0) * 1000 / $c | round | tostring) else "-" end | (" " * (9 - length)) + .)")
  ' "$s"
  jq -r --argjson r "$RAMPUP" '
    ([.timers[] | select(.kind=="all") | .intervals] | .[0]) as $tx |
    ([.counters[] | select(.name=="engine.cpu_us") | .intervals] | .[0] // []) as $cpu |
    [range(($r | ceil) + 1; ($tx | length) - 1)] as $ks |
    ([$ks[] | $tx[.].count] | add // 0) as $c | ([$ks[] | $cpu[.] // 0] | add // 0) as $u |
    "workers'"'"' CPU per transaction after the ramp-up (intervals \(($r|ceil) + 2)..\($tx|length - 1)): " +
    (if $c > 0 then "\($u * 1000 / $c | round) ns (\($u / 1e6 * 1000 | round / 1000) s for \($c))" else "n/a" end)
  ' "$s"
}

echo "# idle VUs: $(machine_line)"
echo "# load at the start: $(uptime)"
echo "# $("$LUAMECH" --version 2>&1 | head -1); ramp-up ${RAMPUP}s, run ${DURATION}s, workers ${WORKERS:-default}; results in $OUT"
read -r b_peak b_hwm b_tx b_wall b_user b_sys b_rc _ _ < <(run_idle 1)
read -r peak hwm tx wall user sys rc lag lag_steady < <(run_idle "$VUS")
printf '%-10s %10s %10s %12s %8s %8s %8s %3s\n' vus peak_MB hwm_MB transactions wall_s user_s sys_s rc
printf '%-10s %10.1f %10.1f %12s %8s %8s %8s %3s\n' 1 "$(awk -v k="$b_peak" 'BEGIN{print k/1024}')" \
  "$(awk -v k="$b_hwm" 'BEGIN{print k/1024}')" "$b_tx" "$b_wall" "$b_user" "$b_sys" "$b_rc"
printf '%-10s %10.1f %10.1f %12s %8s %8s %8s %3s\n' "$VUS" "$(awk -v k="$peak" 'BEGIN{print k/1024}')" \
  "$(awk -v k="$hwm" 'BEGIN{print k/1024}')" "$tx" "$wall" "$user" "$sys" "$rc"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) (on a shared machine the schedule may be missed for want of CPU)"
details "$VUS"
awk -v p="$peak" -v b="$b_peak" -v n="$VUS" -v t="$TARGET_MB" -v tx="$tx" -v d="$DURATION" -v r="$RAMPUP" \
    -v lag="$lag" -v ls="$lag_steady" 'BEGIN{
  printf "peak RSS %.1f MB for %d VUs: %.0f bytes/VU total, %.0f bytes/VU marginal (over the 1-VU run, %.1f MB)\n",
    p/1024, n, p*1024/n, (n > 1 ? (p-b)*1024/(n-1) : 0), b/1024
  # a VU started at t ends floor(run - t) transactions by the stop, and one more
  # then: the sleeping VUs end theirs at once (think time is cut short when
  # draining); t is spread evenly over the ramp-up
  due = n*(d - r/2 + 0.5)
  printf "transactions %d of about %.0f due (VUs x (run - ramp-up/2 + 0.5)): %.3f\n", tx, due, tx/due
  printf "wake-up lag p99 %s ms over the run, worst interval p99 after the ramp-up %s ms\n", lag, ls
  printf "target < %d MB: %s\n", t, (p/1024 < t ? "met" : "MISSED")
  printf "target transactions within 2%% of those due: %s\n", (tx >= 0.98*due ? "met" : "MISSED")
  printf "target wake-up lag p99 <= 50 ms: %s\n", (lag != "n/a" && lag+0 <= 50 ? "met" : "MISSED")
}'
