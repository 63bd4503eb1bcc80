# lib_delay.sh - the ground-truth delay server (tests/fixtures/delay_server.c)
# for the command-line tests, sourced after lib.sh.
DELAY_SERVER=${DELAY_SERVER:-$(dirname "$LUAMECH")/tests/delay_server}

# start_delay_server VAR LOG [delay_server args...]: start it on a free
# loopback port, logging to LOG; sets VAR to the port.
start_delay_server() {
    local var=$1 log=$2 out="$TMP/delay_server.$RANDOM" port="" pid
    shift 2
    "$DELAY_SERVER" -p 0 -l "$log" -t 120 "$@" > "$out" &
    pid=$!
    for _ in $(seq 100); do
        port=$(sed -n 's/^PORT //p' "$out" 2>/dev/null)
        [ -n "$port" ] && break
        sleep 0.02
    done
    [ -n "$port" ] || { echo "cannot start delay_server ($DELAY_SERVER)"; exit 1; }
    PIDS+=("$pid")
    printf -v "$var" '%s' "$port"
}
