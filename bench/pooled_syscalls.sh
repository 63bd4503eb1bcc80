#!/usr/bin/env bash
# bench/pooled_syscalls.sh - system calls and CPU per operation in pooled mode
# (200 VUs of one worker pipelined over one connection, pool = true), for
# checking that requests queued in one loop turn leave in one write:
#
#   bash bench/pooled_syscalls.sh BINARY LABEL mc|redis
#
# Starts a private memcached or redis-server on a free loopback port, runs
# bench/mc_getset.lua (or redis_setget.lua) for 3 s under `strace -f -c`
# (writes, reads, epoll_waits per server-counted operation), then again under
# /usr/bin/time (user+sys CPU per operation).  Writes LABEL-PROTO.strace and
# LABEL-PROTO.time in the current directory.  Short: a smoke measurement, not
# a benchmark (strace slows the traced run; the time run is separate).
set -u
[ $# -eq 3 ] || { echo "usage: $0 BINARY LABEL mc|redis" >&2; exit 2; }
BIN=$1 LABEL=$2 PROTO=$3
R=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
if [ "$PROTO" = mc ]; then
  memcached -u root -U 0 -p $port -l 127.0.0.1 -t 1 -o hashpower=21 & SP=$!
  SC=(run $R/bench/mc_getset.lua -e MEMCACHED=127.0.0.1:$port)
  stat() { python3 -c 'import socket,sys
s=socket.create_connection(("127.0.0.1",int(sys.argv[1])));s.sendall(b"stats\r\n");b=b""
while not b.endswith(b"END\r\n"): b+=s.recv(65536)
print(sum(int(l.split()[2]) for l in b.decode().splitlines() if l.startswith(("STAT cmd_get ","STAT cmd_set "))))' $port; }
else
  redis-server --port $port --bind 127.0.0.1 --save '' --appendonly no >/dev/null & SP=$!
  SC=(run $R/bench/redis_setget.lua -n 300000 -d 0 -e REDIS=127.0.0.1:$port)
  stat() { redis-cli -p $port info commandstats | awk -F'[:=,]' '/cmdstat_(get|set):/{s+=$3} END{print s}'; }
fi
sleep 0.5
for mode in strace time; do
  o0=$(stat)
  if [ $mode = strace ]; then
    strace -f -c -e trace=write,writev,read,readv,epoll_wait,sendmsg,recvfrom -o $LABEL-$PROTO.strace $BIN "${SC[@]}" -u 200 -w 1 -d 3s -q -e POOL=1 -o /tmp/netm/res-$LABEL-$PROTO-s >/dev/null 2>&1
  else
    /usr/bin/time -f '%U %S' -o $LABEL-$PROTO.time $BIN "${SC[@]}" -u 200 -w 1 -d 3s -q -e POOL=1 -o /tmp/netm/res-$LABEL-$PROTO-t >/dev/null 2>&1
  fi
  o1=$(stat)
  echo "$mode ops=$((o1-o0))"
  [ $mode = time ] && awk -v o=$((o1-o0)) '{printf "cpu_us_per_op=%.3f (user %s sys %s)\n", ($1+$2)*1e6/o, $1, $2}' $LABEL-$PROTO.time
  [ $mode = strace ] && awk -v o=$((o1-o0)) '$NF=="write"||$NF=="writev"||$NF=="read"||$NF=="epoll_wait"{printf "%s calls=%s per_op=%.4f\n", $NF, $4, $4/o}' $LABEL-$PROTO.strace
done
kill $SP; wait $SP 2>/dev/null
