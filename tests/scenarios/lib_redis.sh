# lib_redis.sh - redis helpers for the command-line tests, sourced after
# lib.sh: start redis-server on a free loopback port (or again on the same
# port), and read its own counters (INFO commandstats) with redis-cli.

# redis_spawn PORT [extra args]: start redis-server on PORT; 0 once it answers
redis_spawn() {
    local port=$1; shift
    local pid
    redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no \
        --daemonize no "$@" > /dev/null 2>&1 &
    pid=$!
    for _ in $(seq 100); do
        case $(redis-cli -p "$port" ping 2>/dev/null) in PONG|NOAUTH*) break;; esac
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    if kill -0 "$pid" 2>/dev/null && port_open "$port"; then
        PIDS+=("$pid")
        printf -v "REDIS_PID_$port" '%s' "$pid"
        return 0
    fi
    kill "$pid" 2>/dev/null
    return 1
}

# start_redis VAR [extra args]: sets VAR to the port, REDIS_PID_<port> to the pid
start_redis() {
    local var=$1; shift
    local port
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        port=$((10000 + RANDOM % 22000))
        port_open "$port" && continue
        if redis_spawn "$port" "$@"; then
            printf -v "$var" '%s' "$port"
            return 0
        fi
    done
    echo "cannot start redis-server"; exit 1
}

# redis_cmdstat PORT CMD [PASSWORD]: calls of CMD (lowercase) from INFO
# commandstats; 0 when the server never ran it
redis_cmdstat() {
    local port=$1 cmd=$2 auth=()
    [ $# -ge 3 ] && auth=(-a "$3" --no-auth-warning)
    redis-cli -p "$port" "${auth[@]}" info commandstats | tr -d '\r' |
        sed -n "s/^cmdstat_$cmd:calls=\([0-9]*\).*/\1/p" | grep . || echo 0
}
