#!/usr/bin/env bash
# bench/cpu_ab.sh - generator CPU per operation of two luamech binaries, A/B
# in alternating runs at a fixed operation count (luamech alone, no peer):
#
#   bash bench/cpu_ab.sh BIN_A BIN_B
#
# For each case (below) and each of ROUNDS rounds it runs A then B (B then A
# in even rounds), each against a fresh private server (memcached -t 1 or
# redis-server) on a free loopback port pinned to SERVER_CPU, luamech pinned
# to GEN_CPU under /usr/bin/time.  CPU per op = luamech's user+sys / the
# operations the server counted (cmd_get+cmd_set, or INFO commandstats
# get+set), which must equal what luamech was asked for: a run whose counts
# differ is reported as a miss, not averaged in.  Prints one row per run,
# then per case the medians of A and B and the median of the per-round B/A
# ratios.  Cases (CASES=, space-separated):
#   rd-pool   redis, bench/redis_setget.lua, 200 VUs pipelined on one
#             connection (POOL=1), 1 worker, N SET then N GET
#   rd-conn   the same over 50 connections (one per VU)
#   mc-pool   memcached, bench/mc_getset.lua (SET+GET per transaction),
#             200 VUs on one connection, N transactions (2N operations)
#   mc-conn   the same over 50 connections
# Settings (environment): ROUNDS=5 N=200000 CASES="rd-pool mc-pool rd-conn
# mc-conn" IO=epoll|uring (luamech --io; default epoll) SERVER_CPU=0
# GEN_CPU=1 OUT=/tmp/luamech-bench/cpu_ab.  The machine's load average is
# printed with each row (figures under load say so).  Every wait is
# bounded: a run that takes more than 300 s is killed and reported.
set -u
[ $# -eq 2 ] || { echo "usage: $0 BIN_A BIN_B" >&2; exit 2; }
A=$1 B=$2
R=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROUNDS=${ROUNDS:-5} N=${N:-200000} IO=${IO:-epoll}
CASES=${CASES:-"rd-pool mc-pool rd-conn mc-conn"}
SERVER_CPU=${SERVER_CPU:-0} GEN_CPU=${GEN_CPU:-1}
OUT=${OUT:-/tmp/luamech-bench/cpu_ab}
mkdir -p "$OUT"
for b in "$A" "$B"; do [ -x "$b" ] || { echo "not executable: $b" >&2; exit 2; }; done

free_port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }

mc_ops() {
  python3 - "$1" <<'EOF'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
s.sendall(b"stats\r\n"); b = b""
while not b.endswith(b"END\r\n"):
    d = s.recv(65536)
    if not d: break
    b += d
print(sum(int(l.split()[2]) for l in b.decode().splitlines() if l.startswith(("STAT cmd_get ", "STAT cmd_set "))))
EOF
}
rd_ops() { redis-cli -p "$1" info commandstats | awk -F'[:=,]' '/cmdstat_(get|set):/{s+=$3} END{print s+0}'; }

# run_one CASE BIN LABEL ROUND: prints "cpu_us_per_op ops expected"
run_one() {
  local c=$1 bin=$2 label=$3 round=$4 port sp ops want d
  port=$(free_port)
  d=$OUT/$round-$c-$label
  rm -rf "$d"; mkdir -p "$d"
  case $c in
    rd-*) taskset -c "$SERVER_CPU" redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
            > "$d/server.log" 2>&1 & sp=$!
          for _ in $(seq 50); do redis-cli -p "$port" ping > /dev/null 2>&1 && break; sleep 0.1; done
          want=$((2 * N))
          set -- run "$R/bench/redis_setget.lua" -n "$N" -d 0 -e "REDIS=127.0.0.1:$port" ;;
    mc-*) taskset -c "$SERVER_CPU" memcached -u root -U 0 -p "$port" -l 127.0.0.1 -t 1 -o hashpower=21 \
            > "$d/server.log" 2>&1 & sp=$!
          for _ in $(seq 50); do mc_ops "$port" > /dev/null 2>&1 && break; sleep 0.1; done
          want=$((2 * N))
          set -- run "$R/bench/mc_getset.lua" -n "$N" -d 0 -e "MEMCACHED=127.0.0.1:$port" ;;
  esac
  case $c in
    *-pool) set -- "$@" -u 200 -w 1 -e POOL=1 ;;
    *-conn) set -- "$@" -u 50 -w 1 -e POOL=0 ;;
  esac
  local o0 o1
  if [ "${c%%-*}" = rd ]; then o0=$(rd_ops "$port"); else o0=$(mc_ops "$port"); fi
  timeout 300 /usr/bin/time -o "$d/time" -f '%e %U %S' taskset -c "$GEN_CPU" "$bin" "$@" \
      --io "$IO" -q -o "$d/res" > "$d/out" 2>&1
  local rc=$?
  if [ "${c%%-*}" = rd ]; then o1=$(rd_ops "$port"); else o1=$(mc_ops "$port"); fi
  kill "$sp"; wait "$sp" 2>/dev/null
  ops=$((o1 - o0))
  local t; t=$(tail -1 "$d/time")
  awk -v t="$t" -v ops="$ops" -v want="$want" -v rc="$rc" 'BEGIN {
    split(t, a, " "); cpu = a[2] + a[3];
    printf "%.4f %d %d %s %s %s\n", (ops > 0 ? cpu * 1e6 / ops : 0), ops, want, rc, a[1], cpu }'
}

echo "# cpu_ab: A=$A B=$B; IO=$IO N=$N ROUNDS=$ROUNDS; server CPU $SERVER_CPU, luamech CPU $GEN_CPU; $(date -u +%FT%TZ); runs in $OUT"
echo "# case round bin cpu_us/op server_ops expected rc wall_s cpu_s load1"
for c in $CASES; do
  for r in $(seq "$ROUNDS"); do
    if [ $((r % 2)) = 1 ]; then order="A B"; else order="B A"; fi
    for x in $order; do
      if [ $x = A ]; then bin=$A; else bin=$B; fi
      line=$(run_one "$c" "$bin" "$x" "$r")
      echo "$c $r $x $line $(cut -d' ' -f1 /proc/loadavg)"
    done
  done
done | tee "$OUT/runs.txt"
echo "# medians (runs whose server count equals the expected count and exit 0 only); ratio = median over rounds of B/A"
awk '
  !/^#/ { ok = ($5 == $6 && $7 == 0); key = $1 " " $3; if (ok) { v[key] = v[key] " " $4; r[$1 " " $2 " " $3] = $4 } else miss[key]++ ; cases[$1] = 1; rounds[$1 " " $2] = 1 }
  function med(s,   n, a, i, j, t) { n = split(s, a, " "); if (n == 0) return "n/a";
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  END { for (c in cases) { s = ""; for (k in rounds) { split(k, p, " "); if (p[1] != c) continue;
          a = r[c " " p[2] " A"]; b = r[c " " p[2] " B"]; if (a > 0 && b > 0) s = s " " b / a }
        printf "%s  A %s us/op  B %s us/op  B/A %s  (misses: A %d, B %d)\n", c, med(v[c " A"]), med(v[c " B"]), med(s), miss[c " A"], miss[c " B"] } }
' "$OUT/runs.txt"
