# shellcheck shell=bash
# bench/lib.sh - helpers sourced by the bench/*.sh scripts (not run directly).
# Everything here talks only to 127.0.0.1, and every wait loop is bounded.

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$BENCH_DIR/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$REPO_DIR/build}
LUAMECH=${LUAMECH:-$BUILD_DIR/luamech}

die() { echo "$(basename "$0"): $*" >&2; exit 1; }
note() { echo "# $*" >&2; }

# need CMD PACKAGE: install PACKAGE with apt-get (as root) when CMD is missing.
BENCH_APT_UPDATED=0
need() {
  local cmd=$1 pkg=$2
  [ -x "$cmd" ] || command -v "$cmd" >/dev/null 2>&1 && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    note "installing $pkg (for $cmd)"
    if [ "$BENCH_APT_UPDATED" = 0 ]; then
      DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null || true
      BENCH_APT_UPDATED=1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$pkg" >/dev/null \
      || die "apt-get install $pkg failed"
  fi
  [ -x "$cmd" ] || command -v "$cmd" >/dev/null 2>&1 || die "$cmd is missing: install $pkg"
}

need_luamech() {
  [ -x "$LUAMECH" ] || die "no luamech at $LUAMECH: build it (cmake -S . -B build && cmake --build build -j2) or set BUILD_DIR"
}

# A free TCP port on 127.0.0.1: a bounded probe of random ports in 20000-29999.
free_port() {
  local i p
  for i in $(seq 1 200); do
    p=$((20000 + RANDOM % 10000))
    if ! (exec 9<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return 0; fi
  done
  die "no free port found in 200 tries"
}

# mc_start PORT [extra memcached args...]: memcached on 127.0.0.1:PORT pinned to
# CPU $SERVER_CPU (default 0), one worker thread, 1 GB, no UDP.  Sets MC_PID.
MC_PID=
mc_start() {
  local port=$1; shift
  local user=()
  [ "$(id -u)" = 0 ] && user=(-u nobody)
  taskset -c "${SERVER_CPU:-0}" memcached "${user[@]}" -l 127.0.0.1 -p "$port" -U 0 \
    -t 1 -m 1024 -c 4096 "$@" >/dev/null 2>&1 &
  MC_PID=$!
  local i
  for i in $(seq 1 100); do              # up to 5 s
    if (exec 9<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
    kill -0 "$MC_PID" 2>/dev/null || die "memcached on port $port exited at start"
    sleep 0.05
  done
  die "memcached did not listen on 127.0.0.1:$port within 5 s"
}

mc_stop() {
  if [ -n "$MC_PID" ] && kill -0 "$MC_PID" 2>/dev/null; then
    kill "$MC_PID" 2>/dev/null
    local i
    for i in $(seq 1 50); do kill -0 "$MC_PID" 2>/dev/null || break; sleep 0.05; done
    kill -9 "$MC_PID" 2>/dev/null
    wait "$MC_PID" 2>/dev/null
  fi
  MC_PID=
}

# mc_stats PORT: the server's `stats` as "name value" lines (bash /dev/tcp).
mc_stats() {
  local port=$1 line
  exec 8<>"/dev/tcp/127.0.0.1/$port" || return 1
  printf 'stats\r\n' >&8
  while IFS= read -r -t 2 line <&8; do
    line=${line%$'\r'}
    [ "$line" = END ] && break
    [ "${line#STAT }" != "$line" ] && echo "${line#STAT }"
  done
  exec 8>&-
}

# mc_getset PORT: prints "cmd_get cmd_set server_cpu_s" (the server's
# rusage_user + rusage_system) so far.
mc_getset() {
  mc_stats "$1" | awk '$1=="cmd_get"{g=$2} $1=="cmd_set"{s=$2}
    $1=="rusage_user"||$1=="rusage_system"{c+=$2} END{printf "%d %d %.6f\n", g, s, c}'
}

# proc_cpu_ticks PID: utime+stime of PID (all its threads) in clock ticks.
proc_cpu_ticks() {
  local s
  s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  s=${s##*) }                      # fields from 3 on (comm may hold spaces)
  # shellcheck disable=SC2086
  set -- $s
  echo $(( ${12} + ${13} ))        # fields 14 and 15 of the full line
}

# median of the numbers on stdin (one per line; "n/a" lines ignored).
median() {
  grep -E '^[0-9.eE+-]+$' | sort -g | awk '{a[NR]=$1} END{
    if (NR == 0) { print "n/a"; exit }
    if (NR % 2) printf "%.6g\n", a[(NR+1)/2]; else printf "%.6g\n", (a[NR/2]+a[NR/2+1])/2 }'
}

# child_pid PID: the (first) child of PID, waiting up to 5 s for it to appear.
child_pid() {
  local i c
  for i in $(seq 1 100); do
    c=$(cat "/proc/$1/task/$1/children" 2>/dev/null)
    c=${c%% *}
    [ -n "$c" ] && { echo "$c"; return 0; }
    kill -0 "$1" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}

machine_line() {
  local cpu
  cpu=$(awk -F': ' '/^model name/{print $2; exit}' /proc/cpuinfo)
  echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -srm), $(nproc) CPUs ($cpu), $(awk '/MemTotal/{printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
}

# busy_ticks: all CPUs' user+nice+system+irq+softirq ticks so far (/proc/stat).
# irq/softirq are in: the kernel charges the loopback TCP softirq work to the
# processes' stime too, so process ticks only add up with them.
busy_ticks() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8; exit}' /proc/stat; }

# pid_ticks PID: utime+stime of PID, 0 when it is gone.
pid_ticks() { proc_cpu_ticks "$1" 2>/dev/null || echo 0; }

# wait_quiet MAX_S PCT: on a shared machine, wait (at most MAX_S seconds) until
# the whole machine spent less than PCT % of one CPU over one second.  Prints
# the last load seen (% of one CPU).
wait_quiet() {
  local max=$1 pct=$2 i a b load=0 k
  k=$(getconf CLK_TCK)
  for i in $(seq 1 "$max"); do
    a=$(busy_ticks); sleep 1; b=$(busy_ticks)
    load=$(( (b - a) * 100 / k ))
    [ "$load" -lt "$pct" ] && break
  done
  echo "$load"
}

# IO=uring|epoll|auto: luamech's socket I/O backend (`--io`, docs/architecture.md
# "The I/O backend seam") in the bench scripts; unset = luamech's default
# (auto).  LM_IO_ARGS goes on luamech's command line, LM_NAME heads its columns
# and ratios ("luamech(uring)").
IO=${IO:-}
LM_IO_ARGS=()
LM_NAME=luamech
if [ -n "$IO" ]; then
  case $IO in auto|uring|epoll) ;; *) die "IO must be auto, uring or epoll";; esac
  LM_IO_ARGS=(--io "$IO")
  LM_NAME="luamech($IO)"
fi

# bench_pki DIR: a CA and a server certificate for 127.0.0.1 (openssl CLI) in
# DIR (ca.pem, server.pem, server.key), as the HTTPS benchmarks use them.
bench_pki() {
  local dir=$1
  mkdir -p "$dir" || die "cannot create $dir"
  ( cd "$dir" &&
    openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj /CN=bench-ca &&
    openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj /CN=127.0.0.1 &&
    printf 'subjectAltName=IP:127.0.0.1\n' > san.ext &&
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
      -extfile san.ext -out server.pem ) >/dev/null 2>&1 || die "cannot make the TLS certificates"
}

# bench_nginx_conf DIR PORT TLS PKI [H2]: DIR/nginx.conf for the HTTP benchmarks:
# one worker, no access log, `location = /` returning "hello\n", keep-alive
# for 100,000,000 requests, stub_status at /nginx_status; TLS=1 serves PORT
# over TLS with PKI's certificate and the status also in plain on PORT+1;
# H2=1 serves HTTP/2 on PORT (h2c without TLS), 128 streams per connection.
bench_nginx_conf() {
  local dir=$1 port=$2 tls=$3 pki=$4 h2=${5:-0} ssl="" ssl_cfg="" status_srv="" h2_cfg=""
  if [ "$h2" = 1 ]; then
    ssl="http2"
    h2_cfg="http2_max_concurrent_streams 128;"
  fi
  if [ "$tls" = 1 ]; then
    ssl="ssl $ssl"
    ssl_cfg="ssl_certificate $pki/server.pem; ssl_certificate_key $pki/server.key; ssl_protocols TLSv1.2 TLSv1.3; ssl_session_cache shared:b:10m;"
    status_srv="server { listen 127.0.0.1:$((port + 1)); location = /nginx_status { stub_status; } }"
  fi
  mkdir -p "$dir/tmp" || die "cannot create $dir"
  cat >"$dir/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $dir/tmp/body;
  proxy_temp_path $dir/tmp/proxy;
  fastcgi_temp_path $dir/tmp/fastcgi;
  uwsgi_temp_path $dir/tmp/uwsgi;
  scgi_temp_path $dir/tmp/scgi;
  keepalive_requests 100000000;
  keepalive_timeout 75s;
  default_type text/plain;
  $h2_cfg
  server {
    listen 127.0.0.1:$port $ssl;
    $ssl_cfg
    location = / { return 200 "hello\n"; }
    location = /nginx_status { stub_status; }
  }
  $status_srv
}
EOF
}

