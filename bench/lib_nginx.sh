# shellcheck shell=bash disable=SC2034
# bench/lib_nginx.sh - a private nginx for the HTTP benchmarks
# (bench/http_vs_wrk_ab.sh, bench/http_floor.sh), sourced after bench/lib.sh
# and bench/lib_window.sh, not run directly: start (the configuration of
# bench_nginx_conf, master and worker pinned to CPU $SERVER_CPU), stop, its
# stub_status counters and its CPU ticks.  TLS=1 (the caller's) serves TLS
# with $OUT/pki's certificate and the status in plaintext on PORT+1.
# Loopback only; every wait is bounded.
NG_PID=      # master
NG_WPID=     # worker
ng_start() {  # DIR PORT
  local dir=$1 port=$2 i
  bench_nginx_conf "$dir" "$port" "${TLS:-0}" "$OUT/pki"
  taskset -c "${SERVER_CPU:-0}" nginx -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" >/dev/null 2>&1 &
  NG_PID=$!
  for i in $(seq 1 100); do              # up to 5 s
    if (exec 9<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      NG_WPID=$(child_pid "$NG_PID") || NG_WPID=
      POLLS=$((POLLS + 1))               # the probe above was a connection
      return 0
    fi
    kill -0 "$NG_PID" 2>/dev/null || die "nginx on port $port exited at start (see $dir/error.log)"
    nap 0.05
  done
  die "nginx did not listen on 127.0.0.1:$port within 5 s"
}
ng_stop() {
  if [ -n "$NG_PID" ] && kill -0 "$NG_PID" 2>/dev/null; then
    kill -QUIT "$NG_PID" 2>/dev/null       # graceful: master and worker
    local i
    for i in $(seq 1 100); do kill -0 "$NG_PID" 2>/dev/null || break; nap 0.05; done
    kill -9 "$NG_PID" 2>/dev/null
    [ -n "$NG_WPID" ] && kill -9 "$NG_WPID" 2>/dev/null
    wait "$NG_PID" 2>/dev/null
  fi
  NG_PID='' NG_WPID=''
}
# ng_status PORT: stub_status over a fresh HTTP/1.0 connection (bash builtins
# only); sets NG_REQ (requests) and NG_ACC (accepts) so far.  Each call is
# itself one request and one connection: POLLS counts them.
POLLS=0
ng_status() {
  local port=$1 fd line body=() n=0
  [ "${TLS:-0}" = 1 ] && port=$((port + 1))     # the plaintext status listener
  NG_REQ=; NG_ACC=
  exec {fd}<>"/dev/tcp/127.0.0.1/$port" 2>/dev/null || return 1
  POLLS=$((POLLS + 1))
  printf 'GET /nginx_status HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&"$fd"
  while IFS= read -r -t 2 -u "$fd" line && [ "$n" -lt 40 ]; do
    n=$((n + 1))
    line=${line%$'\r'}
    body+=("$line")
  done
  exec {fd}>&-
  # "Active connections: 1" / "server accepts handled requests" / " A H R "
  local i
  for ((i = 0; i < ${#body[@]} - 1; i++)); do
    if [ "${body[i]}" = "server accepts handled requests" ]; then
      read -r NG_ACC _ NG_REQ <<<"${body[i + 1]}"
      return 0
    fi
  done
  return 1
}
ng_ticks() { ticks_of "$NG_PID"; local m=$TICKS; ticks_of "$NG_WPID"; TICKS=$((TICKS + m)); }
