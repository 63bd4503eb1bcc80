#!/usr/bin/env bash
# bench/soak.sh - a long run (default 1 hour) of bench/soak.lua against a
# private memcached and nginx on 127.0.0.1, with VU churn (the groups' VU
# counts swing up and down all run long, one swing per CHURN_S or DURATION/2
# whichever is longer: see bench/soak.lua), connection churn (fresh clients, Connection: close)
# and a restart of each server every RESTART_S.  Samples luamech's RSS and
# open file descriptors every SAMPLE_S into OUT/samples.csv (and prints one
# line every PRINT_S, default 60 s, so a run cut short still shows its
# figures) and fails (exit 1) when either grows over the second half of
# the run.  The rule, with r_mid and r_end the median RSS of the tenth at
# 50-60 % and of the last tenth:
#   r_end - r_mid > 5 % of r_mid + 2 MB + rows
# where rows is what luamech keeps by design per closed interval for the
# final summary.json and intervals.csv, over the intervals between the two
# tenths' midpoints (40 % of the run): 128 bytes per timer and interval,
# counted for every timer of summary.json and an "(all)" twin each, plus 8
# bytes per counter and interval, doubled (the row arrays grow by doubling).
# Descriptors: the most of the last tenth more than 8 above the most of
# that middle tenth.  A leak grows all run long; a warm-up that levels off
# does not fail, and the whole run's figures from the second tenth are
# printed too.  Also fails when luamech does not end by itself with a
# complete summary.json.  MALLINFO=1 preloads bench/mallinfo.c into luamech
# (built with cc into OUT) and adds malloc's bytes in use to
# OUT/mallinfo.csv, the progress lines and the verdict.  INTERVAL (default
# 10s) is the statistics interval (e.g. 100ms: many intervals in a short
# run, to see what grows per interval).  VERDICT=1 runs nothing and prints
# the verdict of the run already in OUT.  Figures go to docs/reliability.md.
# Run a binary that no rebuild can change mid-run: LUAMECH=/tmp/x/luamech.
#   bash bench/soak.sh                    DURATION=600 bash bench/soak.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"
DURATION=${DURATION:-3600}; RESTART_S=${RESTART_S:-600}; SAMPLE_S=${SAMPLE_S:-5}
CHURN_S=${CHURN_S:-60}; OUT=${OUT:-/tmp/luamech-soak}; PRINT_S=${PRINT_S:-60}; INTERVAL=${INTERVAL:-10s}

# The verdict of the run in $OUT (samples.csv, results/summary.json): one
# line, "... flat" or "... GROWTH".
soak_verdict() {
  local sum=$OUT/results/summary.json rows_kb
  # bytes kept per closed interval: 128 per timer (and its "(all)" twin), 8 per counter
  rows_kb=$(jq -r --argjson d "$DURATION" '((.timers | length) * 2 * 128 + ((.counters | length)
      + 2 * (.rates | length) + (.gauges | length) + 2 * (.checks | length) + 1) * 8) as $b
    | ($d * 0.4 / .settings.interval_s) as $n | ($b * $n * 2 / 1024 | floor)' "$sum" 2>/dev/null || echo 0)
  awk -F, -v d="$DURATION" -v rows="${rows_kb:-0}" 'NR > 1 { t[++n] = $1; r[n] = $2; f[n] = $3 }
  function med(lo, hi,   a, k, i, j, x) { k = 0
    for (i = 1; i <= n; i++) if (t[i] >= lo && t[i] < hi) a[++k] = r[i]
    for (i = 2; i <= k; i++) { x = a[i]; for (j = i - 1; j > 0 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
    return k ? (k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2) : 0 }
  function most(lo, hi,   i, m) { m = 0; for (i = 1; i <= n; i++) if (t[i] >= lo && t[i] < hi && f[i] > m) m = f[i]; return m }
  END { r1 = med(d * 0.1, d * 0.2); rm = med(d * 0.5, d * 0.6); r2 = med(d * 0.9, d * 1.0)
    f1 = most(d * 0.1, d * 0.2); fm = most(d * 0.5, d * 0.6); f2 = most(d * 0.9, d * 1.0)
    for (i = 1; i <= n; i++) if (r[i] > peak) peak = r[i]
    allowed = rm * 0.05 + 2048 + rows
    bad = (r2 - rm > allowed) || (f2 > fm + 8)
    printf "rss_kb %d -> %d -> %d (second half %+d kb = %+.1f %%, allowed %d kb of which %d kb the interval rows; whole run %+.1f %%), fds %d -> %d -> %d, peak rss_kb %d: %s\n",
      r1, rm, r2, r2 - rm, rm ? (r2 - rm) * 100 / rm : 0, allowed, rows, r1 ? (r2 - r1) * 100 / r1 : 0, f1, fm, f2, peak, bad ? "GROWTH" : "flat" }' "$OUT/samples.csv"
}

soak_report() {
  local verdict status tx reqerr rc=$1
  verdict=$(soak_verdict)
  status=$(jq -r '.status // "missing"' "$OUT/results/summary.json" 2>/dev/null || echo missing)
  tx=$(jq -r '[.timers[]? | select(.name == "All Transactions") | .summary.count][0] // "?"' "$OUT/results/summary.json" 2>/dev/null || echo "?")
  reqerr=$(jq -r '[.timers[]? | select(.kind == "primitive" or (.name | test("^(memcached|http)[.]"))) | .summary.errors] | add // "?"' "$OUT/results/summary.json" 2>/dev/null || echo "?")
  echo "# soak $(machine_line)"
  echo "# luamech exit $rc, summary status $status, transactions $tx, request errors (server restarts) $reqerr, samples $(($(wc -l < "$OUT/samples.csv") - 1))"
  echo "soak ${DURATION}s: $verdict"
  if [ -s "$OUT/mallinfo.csv" ]; then
    awk -F, -v d="$DURATION" 'NR > 1 { t = $1; if (t >= d * 0.1 && t < d * 0.2) { a += $3; na++ }
        if (t >= d * 0.5 && t < d * 0.6) { b += $3; nb++ } if (t >= d * 0.9) { c += $3; nc++ } if ($2 > h) h = $2 }
      END { printf "malloc in use (mean kb) %d -> %d -> %d, most held %d kb\n", na ? a / na : 0, nb ? b / nb : 0, nc ? c / nc : 0, h }' \
      "$OUT/mallinfo.csv"
  fi
  case $verdict in *GROWTH*) return 1;; esac
  [ "$status" = completed ] || { echo "soak: the run did not complete (status $status, exit $rc)"; return 1; }
  return 0
}

if [ "${VERDICT:-0}" = 1 ]; then
  [ -s "$OUT/samples.csv" ] || die "no samples in $OUT"
  soak_report "$(cat "$OUT/exit" 2>/dev/null || echo '?')"; exit $?
fi
need_luamech; need memcached memcached; need nginx nginx-light; need jq jq
rm -rf "$OUT"; mkdir -p "$OUT/nginx/tmp"
MC_PORT=$(free_port); NG_PORT=$(free_port)
NG_PID=
ng_start() {
  cat > "$OUT/nginx/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $OUT/nginx/nginx.pid;
error_log $OUT/nginx/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $OUT/nginx/tmp/body; proxy_temp_path $OUT/nginx/tmp/proxy;
  fastcgi_temp_path $OUT/nginx/tmp/fastcgi; uwsgi_temp_path $OUT/nginx/tmp/uwsgi;
  scgi_temp_path $OUT/nginx/tmp/scgi;
  server { listen 127.0.0.1:$NG_PORT; location = / { return 200 "soak\n"; } }
}
CONF
  nginx -p "$OUT/nginx" -c "$OUT/nginx/nginx.conf" -e "$OUT/nginx/error.log" > /dev/null 2>&1 &
  NG_PID=$!
  local i
  for i in $(seq 1 100); do
    (exec 9<>"/dev/tcp/127.0.0.1/$NG_PORT") 2>/dev/null && return 0
    sleep 0.05
  done
  die "nginx did not listen on $NG_PORT"
}
ng_stop() {
  [ -n "$NG_PID" ] || return 0
  kill -QUIT "$NG_PID" 2>/dev/null || true
  local i
  for i in $(seq 1 100); do kill -0 "$NG_PID" 2>/dev/null || break; sleep 0.05; done
  kill -9 "$NG_PID" 2>/dev/null || true; wait "$NG_PID" 2>/dev/null || true; NG_PID=
}
LM_PID=
cleanup() { [ -n "$LM_PID" ] && kill -9 "$LM_PID" 2>/dev/null; mc_stop || true; ng_stop; }
trap cleanup EXIT
mc_start "$MC_PORT"; ng_start
PRELOAD=()
if [ "${MALLINFO:-0}" = 1 ]; then
  cc -O2 -shared -fPIC -o "$OUT/mallinfo.so" "$BENCH_DIR/mallinfo.c" -lpthread || die "cannot build mallinfo.so"
  PRELOAD=(env LD_PRELOAD="$OUT/mallinfo.so" MALLINFO_OUT="$OUT/mallinfo.csv" MALLINFO_S="$SAMPLE_S")
fi
note "soak: ${DURATION}s, restarts every ${RESTART_S}s, memcached :$MC_PORT, nginx :$NG_PORT, out $OUT"
"${PRELOAD[@]}" "$LUAMECH" run "$BENCH_DIR/soak.lua" --duration "${DURATION}s" --quiet --out "$OUT/results" \
  -e MEMCACHED="127.0.0.1:$MC_PORT" -e HTTP_BASE="http://127.0.0.1:$NG_PORT" -e CHURN_S="$CHURN_S" -e DURATION="$DURATION" \
  -e INTERVAL="$INTERVAL" \
  > "$OUT/luamech.out" 2> "$OUT/luamech.err" &
LM_PID=$!
echo "t_s,rss_kb,fds" > "$OUT/samples.csv"
start=$(date +%s); next_restart=$((start + RESTART_S)); limit=$((start + DURATION + 120)); next_print=$start
while kill -0 "$LM_PID" 2>/dev/null; do
  now=$(date +%s)
  rss=$(awk '/^VmRSS/{print $2}' "/proc/$LM_PID/status" 2>/dev/null || echo "")
  fds=$(ls "/proc/$LM_PID/fd" 2>/dev/null | wc -l)
  [ -n "$rss" ] && echo "$((now - start)),$rss,$fds" >> "$OUT/samples.csv"
  if [ -n "$rss" ] && [ "$now" -ge "$next_print" ]; then
    inuse=$(tail -n 1 "$OUT/mallinfo.csv" 2>/dev/null | awk -F, '$3 ~ /^[0-9]+$/ { printf ", malloc in use %d kb", $3 }')
    echo "# t=$((now - start))s rss ${rss} kb, fds ${fds}${inuse}, load $(cut -d' ' -f1 /proc/loadavg)"
    next_print=$((now + PRINT_S))
  fi
  if [ "$now" -ge "$next_restart" ] && [ "$now" -lt $((start + DURATION - 30)) ]; then
    note "t=$((now - start))s: restarting memcached and nginx"
    mc_stop || true; mc_start "$MC_PORT"; ng_stop; ng_start
    next_restart=$((now + RESTART_S))
  fi
  [ "$now" -gt "$limit" ] && { note "luamech still running 120 s after its end: killing it"; kill -9 "$LM_PID"; }
  sleep "$SAMPLE_S"
done
rc=0; wait "$LM_PID" || rc=$?; LM_PID=
echo "$rc" > "$OUT/exit"
soak_report "$rc"
