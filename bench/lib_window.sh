# shellcheck shell=bash disable=SC2034
# bench/lib_window.sh - fork-free sampling helpers for the measuring windows of
# bench/redis_vs_redis_benchmark.sh and bench/http_vs_wrk_ab.sh (sourced after
# bench/lib.sh, not run directly).  The samplers poll while the generator runs
# on the other CPU, so they use bash builtins only (no sleep, awk or cat
# processes per sample): their own cost stays in the oth% noise column.
# Every wait is bounded.

export LC_ALL=C

# A pipe nobody writes to: `read -t` on it is a sleep without a fork.
exec {WIN_SLEEP_FD}<> <(:)
nap() { read -r -t "$1" -u "$WIN_SLEEP_FD" _ 2>/dev/null; return 0; }

# now_s: wall clock in seconds (bash 5 $EPOCHREALTIME, no fork).
now_s() { NOW=$EPOCHREALTIME; }

# ticks_of PID: sets TICKS to utime+stime of PID (all threads); when PID is
# gone, TICKS=0 and the status is 1.
ticks_of() {
  local line f
  TICKS=0
  { IFS= read -r line <"/proc/$1/stat"; } 2>/dev/null || return 1
  line=${line##*) }
  read -r -a f <<<"$line"
  TICKS=$(( f[11] + f[12] ))
}

# busy_now: sets BUSY to all CPUs' user+nice+system+irq+softirq ticks.
busy_now() {
  local _c u n s _i _w q sq _r
  read -r _c u n s _i _w q sq _r </proc/stat
  BUSY=$(( u + n + s + q + sq ))
}

# fmt_div A B SCALE: prints A/B*SCALE with 3 decimals, or n/a (awk, once per
# run, not in a polling loop).
fmt_div() {
  awk -v a="$1" -v b="$2" -v s="${3:-1}" -v p="${4:-3}" \
    'BEGIN{ if (b + 0 > 0) printf "%.*f", p, a * s / b; else print "n/a" }'
}
