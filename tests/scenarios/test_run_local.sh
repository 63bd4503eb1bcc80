# scripts/run-local.sh: its --help names the servers it starts and the
# port settings; PORTS=LO-HI keeps every server in that range; a *_PORT
# setting fixes a server's port (the server is really there: luamech's
# requests reach it); bad settings and a busy fixed port get one message.
. "$(dirname "$0")/lib.sh"
RL=$SRC/scripts/run-local.sh
export LUAMECH

bash "$RL" --help > "$TMP/help" 2>&1
check "--help exits 0" [ $? -eq 0 ]
for s in memcached redis-server webdis nginx PORTS= MEMCACHED_PORT= REDIS_PORT= WEBDIS_PORT= API_PORT= API_TLS_PORT=; do
    check "--help names $s" grep -qF -- "$s" "$TMP/help"
done

# A scenario that records the parameters it was given and talks to memcached
cat > "$TMP/vu.lua" <<'LUA'
local mc = luamech.memcached.connect(luamech.param("MEMCACHED"))
return function() assert(mc:set("run-local-test", "1")) end
LUA
cat > "$TMP/sc.lua" <<'LUA'
local f = assert(io.open(luamech.param("OUT"), "w"))
for _, k in ipairs({ "MEMCACHED", "REDIS", "HTTP_BASE", "API_BASE", "API_HTTP_BASE" }) do
  f:write(k, " ", luamech.param(k, "-"), "\n")
end
f:close()
return { run_time = "1s", requests = 10, groups = { { vus = 1, script = "vu.lua" } } }
LUA
ports_of() { grep -oE ':[0-9]+' "$1" | tr -d :; }

lo=$((20000 + RANDOM % 5000)); hi=$((lo + 60))
PORTS=$lo-$hi bash "$RL" "$TMP/sc.lua" -q -e OUT="$TMP/p1" -o "$TMP/r1" > "$TMP/o1" 2>&1
check "PORTS=$lo-$hi: the run completes ($(tail -c 300 "$TMP/o1"))" [ "$(jq -r .status "$TMP/r1/summary.json" 2>/dev/null)" = completed ]
n=0 inrange=0
for p in $(ports_of "$TMP/p1"); do n=$((n + 1)); [ "$p" -ge "$lo" -a "$p" -le "$hi" ] && inrange=$((inrange + 1)); done
check "PORTS=$lo-$hi: the 5 addresses use ports in the range ($inrange of $n: $(tr '\n' ' ' < "$TMP/p1"))" [ "$n" -eq 5 -a "$inrange" -eq 5 ]

mp=$(free_port)
MEMCACHED_PORT=$mp bash "$RL" "$TMP/sc.lua" -q -e OUT="$TMP/p2" -o "$TMP/r2" > "$TMP/o2" 2>&1
check "MEMCACHED_PORT=$mp: memcached there ($(head -1 "$TMP/p2"))" grep -qx "MEMCACHED 127.0.0.1:$mp" "$TMP/p2"
check "MEMCACHED_PORT=$mp: 10 transactions, no error" \
    [ "$(jq -r '.timers[] | select(.name == "All Transactions") | "\(.summary.count) \(.summary.errors)"' "$TMP/r2/summary.json")" = "10 0" ]

# a server that dies on its first port (taken between the check and the
# bind by a parallel test) is started again on another: a memcached that
# exits at once the first time
mkdir -p "$TMP/bin"
cat > "$TMP/bin/memcached" <<SH
#!/bin/sh
[ -f "$TMP/died" ] || { touch "$TMP/died"; exit 1; }
exec $(command -v memcached) "\$@"
SH
chmod +x "$TMP/bin/memcached"
PATH=$TMP/bin:$PATH bash "$RL" "$TMP/sc.lua" -q -e OUT="$TMP/p3" -o "$TMP/r3" > "$TMP/o3" 2>&1
check "a server that died on its first port is started on another ($(tail -c 200 "$TMP/o3"))" \
    [ -f "$TMP/died" -a "$(jq -r .status "$TMP/r3/summary.json" 2>/dev/null)" = completed ]

# a cluster node that accepted on its client port and then died (its bus
# port, PORT+10000, was taken) is started again: a redis-server whose first
# cluster node listens for a moment and exits
mkdir -p "$TMP/bin2" "$TMP/cl"
cat > "$TMP/bin2/redis-server" <<SH
#!/bin/bash
case " \$* " in *" --cluster-enabled yes "*)
    if [ ! -f "$TMP/node-died" ]; then
        touch "$TMP/node-died"
        exec python3 -c 'import socket, sys, time; s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(); time.sleep(0.5)' "\$2"
    fi;;
esac
exec $(command -v redis-server) "\$@"
SH
chmod +x "$TMP/bin2/redis-server"
cat > "$TMP/cl/vu.lua" <<'LUA'
local r = luamech.redis.connect(luamech.param("REDIS_CLUSTER"), { cluster = true })
return function() assert(r:set("run-local-cluster", "1")) end
LUA
cat > "$TMP/cl/sc.lua" <<'LUA'
return { run_time = "1s", requests = 10, notes = luamech.param("REDIS_CLUSTER", "-"), groups = { { vus = 1, script = "vu.lua" } } }
LUA
PATH=$TMP/bin2:$PATH bash "$RL" "$TMP/cl/sc.lua" -q -o "$TMP/r4" > "$TMP/o4" 2>&1
check "a cluster node that died after its port opened is started again ($(tail -c 300 "$TMP/o4"))" \
    [ -f "$TMP/node-died" -a "$(jq -r .status "$TMP/r4/summary.json" 2>/dev/null)" = completed ]

# bad settings: exit 2, one message; a busy fixed port: exit 1, named
bad() { # bad CODE PATTERN VAR=VALUE
    env "$3" bash "$RL" "$TMP/sc.lua" -q -e OUT="$TMP/px" -o "$TMP/rx" > "$TMP/ox" 2>&1
    local rc=$? found=0
    grep -qE -- "$2" "$TMP/ox" && found=1
    check "$3: exit $1 ($rc), /$2/ ($(head -c 200 "$TMP/ox"))" [ "$rc" -eq "$1" -a "$found" = 1 ]
}
bad 2 'PORTS=abc: expected a range LO-HI' PORTS=abc
bad 2 'PORTS=100-99: expected a range LO-HI of at least 6 ports' PORTS=100-99
bad 2 'REDIS_PORT=70000: expected a port number 1-65535' REDIS_PORT=70000
start_memcached busy
bad 1 "memcached: port $busy already in use" MEMCACHED_PORT=$busy
finish
