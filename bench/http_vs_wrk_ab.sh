#!/usr/bin/env bash
# bench/http_vs_wrk_ab.sh - luamech against wrk and ab (ApacheBench) on the
# same HTTP workload, run from the repo root:
#
#   bash bench/http_vs_wrk_ab.sh
#
# Server: nginx (nginx-light) from a configuration generated in the run's
# directory: 1 worker process, access_log off, `location = /` returning
# `return 200 "hello\n"` (text/plain, 6-byte body), keepalive_requests
# 100000000 (so no tool is made to reconnect every 1000 requests, nginx's
# default), and `location = /nginx_status { stub_status; }` for the server's
# request counter.  A fresh nginx for every run, master and worker pinned to
# CPU 0.
#
# Workload (all tools): 50 keep-alive connections, closed loop, no think
# time, GET / ; one thread / one worker.
#   - wrk:     wrk -t1 -c50 -d10s http://127.0.0.1:PORT/
#   - ab:      ab -k -c 50 -n AB_N http://127.0.0.1:PORT/   (HTTP/1.0 with
#              Connection: Keep-Alive, as ab does; AB_N is chosen so that ab
#              runs past the measuring window, at least 10 s here)
#   - luamech: bench/http_get.lua, 50 VUs (one client and connection each,
#              keep-alive, the default), --workers 1, -d 10s, one GET per
#              transaction (bench/http_get_vu.lua).
# Generators pinned to CPU 1; runs alternate luamech, wrk, ab, ... for ROUNDS
# rounds.
#
# Per run, a steady-state window as in bench/memcached_vs_memcaslap.sh: WARMUP
# s after the server has counted the first load request, the server's
# request counter (stub_status `requests`, less the status requests made by
# this script), the generator's utime+stime (/proc/PID/stat, all threads),
# nginx's utime+stime (master + worker) and the machine's busy ticks are
# sampled, and again WINDOW s later.  win_req/s = server requests / window;
# win_us/req = generator CPU / server requests; gen%, srv_us/req, oth% as in
# the memcached script.  Whole process: tool_req/s = the tool's own rate
# (wrk "Requests/sec", ab "Requests per second", luamech http.get count /
# run_time_s); proc_us/req = /usr/bin/time user+sys / all server requests of
# the run; conns = connections the server accepted (less the status ones);
# bad = non-2xx or failed requests reported by the tool.
#
# HTTPS, TLS=1: nginx serves the load over TLS (a self-signed CA and a
# certificate for 127.0.0.1 made here with the openssl CLI; TLS 1.2/1.3,
# session cache on) and /nginx_status on PORT+1 in plaintext; the tools use
# https:// (luamech verifies against that CA; wrk and ab do not verify).
# KEEPALIVE=0: a new connection (and handshake) per request: luamech
# keepalive = false, wrk -H "Connection: close", ab without -k.
# IO=uring|epoll|auto: luamech's --io (bench/lib.sh); the ratios are then headed luamech(IO).
# Settings (environment): ROUNDS=5  DURATION=10 (s; wrk and luamech)  TLS=0  KEEPALIVE=1
# AB_N=1500000  CONNS=50  WARMUP=2  WINDOW=DURATION-4  TOOLS="luamech wrk ab"
# OUT=DIR (default /tmp/luamech-bench/http-<time>)  CLEAN_PCT=10
# BUILD_DIR=./build  SERVER_CPU=0  GEN_CPU=1  QUIET_WAIT=60  QUIET_PCT=15
set -u -o pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib_window.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib_nginx.sh"

ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-10}
AB_N=${AB_N:-1500000}
CONNS=${CONNS:-50}
WARMUP=${WARMUP:-2}
WINDOW=${WINDOW:-$((DURATION - 4))}
TOOLS=${TOOLS:-luamech wrk ab}
QUIET_WAIT=${QUIET_WAIT:-60}
QUIET_PCT=${QUIET_PCT:-15}
GEN_CPU=${GEN_CPU:-1}
SERVER_CPU=${SERVER_CPU:-0}
CLEAN_PCT=${CLEAN_PCT:-10}
OUT=${OUT:-/tmp/luamech-bench/http-$(date +%Y%m%d-%H%M%S)}
TLS=${TLS:-0}
KEEPALIVE=${KEEPALIVE:-1}
SCHEME=http; [ "$TLS" = 1 ] && SCHEME=https

[ "$ROUNDS" -ge 1 ] && [ "$ROUNDS" -le 100 ] || die "ROUNDS must be 1..100"
[ "$DURATION" -ge 5 ] && [ "$DURATION" -le 600 ] || die "DURATION must be 5..600 s"
[ "$WINDOW" -ge 1 ] || die "WINDOW must be >= 1 s"
[ "$CONNS" -ge 1 ] && [ "$CONNS" -le 4000 ] || die "CONNS must be 1..4000"
[ "$AB_N" -ge 1000 ] && [ "$AB_N" -le 50000000 ] || die "AB_N must be 1000..50000000"
for t in $TOOLS; do case $t in luamech|wrk|ab) ;; *) die "unknown tool $t (luamech, wrk, ab)" ;; esac; done

need_luamech
need nginx nginx-light
need wrk wrk
CA=""
if [ "$TLS" = 1 ]; then
  need openssl openssl
  bench_pki "$OUT/pki"
  CA=$OUT/pki/ca.pem
fi
AB_K=(-k); WRK_CLOSE=()
[ "$KEEPALIVE" = 0 ] && { AB_K=(); WRK_CLOSE=(-H "Connection: close"); }
need ab apache2-utils
need /usr/bin/time time
need jq jq
need taskset util-linux
mkdir -p "$OUT" || die "cannot create $OUT"
CLK_TCK=$(getconf CLK_TCK)

# nginx: bench/lib_nginx.sh (ng_start DIR PORT, ng_stop, ng_status PORT, ng_ticks, POLLS)

trap 'ng_stop' EXIT
trap 'ng_stop; exit 130' INT TERM

TSV=$OUT/runs.tsv
printf 'round\ttool\twin_req_s\twin_cpu_us_req\twin_gen_util_pct\twin_srv_cpu_us_req\twin_other_pct\ttool_req_s\tproc_cpu_us_req\twall_s\tuser_s\tsys_s\tmaxrss_kb\tsrv_req\ttool_req\tconns\tbad\trc\n' >"$TSV"

# run_one TOOL ROUND
run_one() {
  local tool=$1 round=$2 d port cmd=() tpid gpid rc quiet i
  d=$OUT/$round-$tool
  mkdir -p "$d"
  quiet=$(wait_quiet "$QUIET_WAIT" "$QUIET_PCT")
  [ "$quiet" -lt "$QUIET_PCT" ] || note "round $round $tool: machine still busy (${quiet}% of a CPU) after ${QUIET_WAIT}s; running anyway"
  port=$(free_port)
  if [ "$TLS" = 1 ]; then                  # the plaintext status listener is port + 1: free too
    for i in $(seq 1 50); do
      (exec 9<>"/dev/tcp/127.0.0.1/$((port + 1))") 2>/dev/null || break
      port=$(free_port)
    done
  fi
  POLLS=0
  ng_start "$d" "$port"
  case $tool in
    luamech) cmd=("$LUAMECH" run "$BENCH_DIR/http_get.lua" "${LM_IO_ARGS[@]}" -u "$CONNS" -w 1 -i 1s -q -d "${DURATION}s"
                  -o "$d/results" -e "URL=$SCHEME://127.0.0.1:$port" -e "URL_PATH=/"
                  -e "KEEPALIVE=$KEEPALIVE" -e "CA=$CA") ;;
    wrk)     cmd=(wrk -t1 -c"$CONNS" -d"${DURATION}s" "${WRK_CLOSE[@]}" "$SCHEME://127.0.0.1:$port/") ;;
    ab)      cmd=(ab "${AB_K[@]}" -c "$CONNS" -n "$AB_N" "$SCHEME://127.0.0.1:$port/") ;;
  esac
  echo "${cmd[*]}" >"$d/command"
  ng_status "$port" || die "no stub_status from nginx on $port"
  local base_req=$NG_REQ base_acc=$NG_ACC base_polls=$POLLS

  /usr/bin/time -o "$d/time" -f '%e %U %S %M' taskset -c "$GEN_CPU" "${cmd[@]}" \
    >"$d/stdout" 2>"$d/stderr" &
  tpid=$!
  gpid=$(child_pid "$tpid") || gpid=

  # wait (at most 30 s) for the first load request
  local started=0
  for ((i = 0; i < 600; i++)); do
    ng_status "$port" || break
    if [ $((NG_REQ - base_req - (POLLS - base_polls))) -gt 0 ]; then started=1; break; fi
    kill -0 "$tpid" 2>/dev/null || break
    nap 0.05
  done

  local w_ops=n/a w_cpu=n/a w_util=n/a w_srv=n/a w_oth=n/a
  if [ "$started" = 1 ] && [ -n "$gpid" ]; then
    nap "$WARMUP"
    local t0 t1 r0 r1 p0 p1 c0 c1 m0 m1 a0 a1
    ng_status "$port"; r0=$NG_REQ; p0=$POLLS
    now_s; t0=$NOW; ticks_of "$gpid"; c0=$TICKS; ng_ticks; m0=$TICKS; busy_now; a0=$BUSY
    nap "$WINDOW"
    ng_status "$port"; r1=$NG_REQ; p1=$POLLS
    now_s; t1=$NOW; ticks_of "$gpid"; c1=$TICKS; ng_ticks; m1=$TICKS; busy_now; a1=$BUSY
    local reqs=$(( (r1 - r0) - (p1 - p0) ))
    if [ -n "$r0" ] && [ -n "$r1" ] && kill -0 "$gpid" 2>/dev/null && [ "$reqs" -gt 0 ]; then
      local us_tick
      us_tick=$(awk -v k="$CLK_TCK" 'BEGIN{print 1e6 / k}')
      w_ops=$(awk -v o="$reqs" -v a="$t0" -v b="$t1" 'BEGIN{printf "%.0f", o/(b-a)}')
      w_cpu=$(fmt_div "$((c1 - c0))" "$reqs" "$us_tick")
      w_util=$(awk -v c="$((c1 - c0))" -v k="$CLK_TCK" -v a="$t0" -v b="$t1" 'BEGIN{printf "%.0f", 100*c/k/(b-a)}')
      w_srv=$(fmt_div "$((m1 - m0))" "$reqs" "$us_tick")
      w_oth=$(awk -v x="$(( (a1 - a0) - (c1 - c0) - (m1 - m0) ))" -v k="$CLK_TCK" -v a="$t0" -v b="$t1" \
        'BEGIN{v = 100*x/k/(b-a); if (v < 0) v = 0; printf "%.0f", v}')
    else
      note "round $round $tool: the run ended inside the measuring window; no window figures"
    fi
  fi

  # bounded wait for the generator: DURATION + 120 s (ab: its count)
  local limit=$((DURATION + 120))
  for ((i = 0; i < limit * 10; i++)); do kill -0 "$tpid" 2>/dev/null || break; nap 0.1; done
  if kill -0 "$tpid" 2>/dev/null; then
    note "round $round $tool: still running after ${limit}s; stopping it"
    [ -n "$gpid" ] && kill "$gpid" 2>/dev/null
  fi
  wait "$tpid"; rc=$?

  local srv_req=0 conns=0
  if ng_status "$port"; then
    srv_req=$(( NG_REQ - base_req - (POLLS - base_polls) ))
    conns=$(( NG_ACC - base_acc - (POLLS - base_polls) ))
  fi
  ng_stop

  local wall user sys rss
  read -r wall user sys rss < <(grep -E '^[0-9.]+ [0-9.]+ [0-9.]+ [0-9]+$' "$d/time" | tail -1)
  : "${wall:=0}" "${user:=0}" "${sys:=0}" "${rss:=0}"

  local tool_req=0 tool_rate=n/a bad=n/a
  case $tool in
    luamech)
      local sj=$d/results/summary.json
      if [ -s "$sj" ]; then
        read -r tool_req tool_rate bad < <(jq -r '
          ([.timers[] | select(.name == "http.get") | .summary] | first) as $s
          | "\($s.count // 0) \(if .run_time_s > 0 then (($s.count // 0) / .run_time_s | floor) else "n/a" end) \($s.errors // 0)"' "$sj")
      fi ;;
    wrk)
      tool_req=$(sed -n 's/^ *\([0-9]*\) requests in .*/\1/p' "$d/stdout" | tail -1)
      tool_rate=$(sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p' "$d/stdout" | tail -1)
      bad=$(sed -n 's/^ *Non-2xx or 3xx responses: *\([0-9]*\).*/\1/p' "$d/stdout" | tail -1)
      local se
      se=$(sed -n 's/^ *Socket errors: *\(.*\)/\1/p' "$d/stdout")
      [ -n "$se" ] && note "round $round wrk: socket errors: $se"
      : "${bad:=0}" ;;
    ab)
      tool_req=$(sed -n 's/^Complete requests: *\([0-9]*\).*/\1/p' "$d/stdout" | tail -1)
      tool_rate=$(sed -n 's/^Requests per second: *\([0-9.]*\).*/\1/p' "$d/stdout" | tail -1)
      local f n2
      f=$(sed -n 's/^Failed requests: *\([0-9]*\).*/\1/p' "$d/stdout" | tail -1)
      n2=$(sed -n 's/^Non-2xx responses: *\([0-9]*\).*/\1/p' "$d/stdout" | tail -1)
      bad=$(( ${f:-0} + ${n2:-0} )) ;;
  esac
  : "${tool_req:=0}" "${tool_rate:=n/a}"
  [ "$tool_rate" != n/a ] && tool_rate=$(awk -v r="$tool_rate" 'BEGIN{printf "%.0f", r}')
  local proc_cpu
  proc_cpu=$(awk -v u="$user" -v s="$sys" -v o="$srv_req" 'BEGIN{ if (o > 0) printf "%.3f", (u+s)*1e6/o; else print "n/a" }')
  [ "$rc" = 0 ] || note "round $round $tool: exit code $rc (see $d/stderr)"
  [ "$tool" = luamech ] && [ "$tool_req" != "$srv_req" ] && \
    note "round $round luamech: summary.json counts $tool_req http.get, the server $srv_req requests"

  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
    "$round" "$tool" "$w_ops" "$w_cpu" "$w_util" "$w_srv" "$w_oth" "$tool_rate" "$proc_cpu" \
    "$wall" "$user" "$sys" "$rss" "$srv_req" "$tool_req" "$conns" "$bad" "$rc" >>"$TSV"
  printf '%-5s %-8s %10s %10s %5s %10s %5s %10s %10s %6s %10s %10s %6s %5s %3s\n' \
    "$round" "$tool" "$w_ops" "$w_cpu" "$w_util" "$w_srv" "$w_oth" "$tool_rate" "$proc_cpu" "$wall" \
    "$srv_req" "$tool_req" "$conns" "$bad" "$rc"
}

echo "# $LM_NAME vs wrk vs ab on nginx ($SCHEME, keep-alive $KEEPALIVE): $(machine_line)"
echo "# luamech $("$LUAMECH" --version 2>&1 | head -1); $(wrk -v 2>&1 | head -1 | awk '{print $1, $2}'); $(ab -V 2>&1 | head -1 | sed 's/This is //; s/, Version/ version/; s/ <.*//'); $(nginx -v 2>&1 | sed 's/.*: //')"
echo "# $ROUNDS rounds, $CONNS keep-alive connections, ${DURATION}s (wrk, luamech) / $AB_N requests (ab) per run, window ${WINDOW}s after ${WARMUP}s; server CPU $SERVER_CPU, generator CPU $GEN_CPU; results in $OUT"
echo "#"
echo "# win_req/s, win_us/req: steady-state window, nginx stub_status requests; generator utime+stime per request"
echo "# gen%: generator CPU use in the window (100 = one CPU); srv_us/req: nginx CPU per request in the window"
echo "# oth%: CPU used by all other processes in the window (noise; 100 = one CPU)"
echo "# tool_req/s: the tool's own rate; proc_us/req: /usr/bin/time user+sys / all server requests; conns: server accepts; bad: non-2xx/failed"
printf '%-5s %-8s %10s %10s %5s %10s %5s %10s %10s %6s %10s %10s %6s %5s %3s\n' \
  round tool win_req/s win_us/req gen% srv_us/req oth% tool_req/s proc_us/req wall srv_req tool_req conns bad rc
for r in $(seq 1 "$ROUNDS"); do
  for t in $TOOLS; do run_one "$t" "$r"; done
done

med() {   # TOOL COL [MAX_OTHER]
  awk -F'\t' -v t="$1" -v c="$2" -v m="${3:-}" \
    'NR > 1 && $2 == t && (m == "" || ($7 != "n/a" && $7 + 0 < m + 0)) { print $c }' "$TSV" | median
}
nruns() { awk -F'\t' -v t="$1" -v m="$2" 'NR > 1 && $2 == t && $7 != "n/a" && $7 + 0 < m + 0' "$TSV" | wc -l; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (a+0 > 0 && b+0 > 0) printf "%.3f", a/b; else print "n/a" }'; }
summary() {
  local f name col l w a
  printf '%-20s %12s %12s %12s %12s %12s\n' figure "$LM_NAME" wrk ab "$LM_NAME/wrk" "$LM_NAME/ab"
  for f in "win_req/s:3" "win_cpu_us/req:4" "win_gen_util_pct:5" "win_srv_cpu_us/req:6" "win_other_pct:7" \
           "tool_req/s:8" "proc_cpu_us/req:9"; do
    name=${f%%:*} col=${f##*:}
    l=$(med luamech "$col" "${1:-}") w=$(med wrk "$col" "${1:-}") a=$(med ab "$col" "${1:-}")
    printf '%-20s %12s %12s %12s %12s %12s\n' "$name" "$l" "$w" "$a" "$(ratio "$l" "$w")" "$(ratio "$l" "$a")"
  done
}
paired() {   # PEER COL
  awk -F'\t' -v p="$1" -v c="$2" 'NR > 1 { v[$1 "," $2] = $c; r[$1] = 1 }
    END { for (k in r) { a = v[k ",luamech"]; b = v[k "," p]
          if (a != "" && b != "" && a != "n/a" && b != "n/a" && a + 0 > 0 && b + 0 > 0) print a / b } }' "$TSV" | median
}
echo
echo "# medians over all $ROUNDS rounds"
summary
echo
echo "# medians over the quiet runs only (oth% < $CLEAN_PCT: $(nruns luamech "$CLEAN_PCT") luamech, $(nruns wrk "$CLEAN_PCT") wrk, $(nruns ab "$CLEAN_PCT") ab)"
summary "$CLEAN_PCT"
echo
echo "# paired: median over rounds of the round's luamech/peer ratio"
printf '%-20s %12s %12s\n' figure "$LM_NAME/wrk" "$LM_NAME/ab"
for f in "win_req/s:3" "win_cpu_us/req:4" "tool_req/s:8" "proc_cpu_us/req:9"; do
  printf '%-20s %12s %12s\n' "${f%%:*}" "$(paired wrk "${f##*:}")" "$(paired ab "${f##*:}")"
done
echo "# targets: req/s ratio >= 1, CPU us/req ratio <= 1.  Per-run files: $OUT"
