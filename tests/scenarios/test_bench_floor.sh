# bench/uring_floor.c's http workload (bench/http_floor.sh's floor client):
# against a server whose responses vary in length and arrive in pieces
# (tests/scenarios/fixtures/floor_http.py), every I/O variant finds each
# response's end from its Content-Length: it exits 0 and its count agrees
# with the requests the server served (at most CONNS more: those in flight
# when it stopped); a non-200 response makes it exit 1 saying so.  Runs of
# 1 s with 4 connections; loopback only.  The io_uring variants are skipped
# (said so) where io_uring is unavailable.
. "$(dirname "$0")/lib.sh"
F=$SRC/tests/scenarios/fixtures
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
cc -O2 -Wall -Wextra -o "$TMP/uring_floor" "$SRC/bench/uring_floor.c" -luring 2> "$TMP/cc.txt"
rc=$?
check "uring_floor.c builds" [ "$rc" -eq 0 ]
check "... without warnings" [ ! -s "$TMP/cc.txt" ]
for mode in ok bad; do
    "$PY" "$F/floor_http.py" "$mode" "$TMP/port.$mode" &
    PIDS+=("$!")
done
for mode in ok bad; do
    for _ in $(seq 300); do [ -f "$TMP/port.$mode" ] && break; sleep 0.05; done
    [ -f "$TMP/port.$mode" ] || { echo "floor_http.py $mode did not start"; exit 1; }
done
OK=$(cat "$TMP/port.ok") BAD=$(cat "$TMP/port.bad")
# served PORT: the "GET /" requests the server has served so far
served() {
    local line n=
    exec 4<>"/dev/tcp/127.0.0.1/$1" || return 1
    printf 'GET /count HTTP/1.1\r\nHost: x\r\n\r\n' >&4
    while IFS= read -r -t 5 line <&4 || [ -n "$line" ]; do n=${line%$'\r'}; line=; done
    exec 4>&-
    echo "$n"
}
CONNS=4
for v in epoll uring uring-defer multishot regfiles; do
    before=$(served "$OK")
    timeout 30 "$TMP/uring_floor" "$v" "$OK" "$CONNS" 1 http > "$TMP/$v.out" 2> "$TMP/$v.err"
    rc=$?
    if [ "$rc" -ne 0 ] && [ "$v" != epoll ] && grep -q 'io_uring_queue_init\|io_uring_register' "$TMP/$v.err"; then
        echo "skipped $v: io_uring unavailable here ($(cat "$TMP/$v.err"))"
        continue
    fi
    check "$v: exits 0 ($(cat "$TMP/$v.err"))" [ "$rc" -eq 0 ]
    ops=$(sed -n 's/.* ops=\([0-9]*\) .*/\1/p' "$TMP/$v.out")
    srv=$(( $(served "$OK") - before ))
    echo "$v: $(cat "$TMP/$v.out"); the server served $srv"
    check "$v: it completed responses" [ "${ops:-0}" -gt 20 ]
    check "$v: the server served at least as many requests" [ "$srv" -ge "${ops:-0}" ]
    check "$v: ... and at most $CONNS more (in flight at the end)" [ "$srv" -le $(( ${ops:-0} + CONNS )) ]
done
timeout 30 "$TMP/uring_floor" epoll "$BAD" "$CONNS" 1 http > "$TMP/bad.out" 2> "$TMP/bad.err"
check "a 503 response: exit 1" [ $? -eq 1 ]
check "... saying why" grep -q "not a 200 response" "$TMP/bad.err"
timeout 30 "$TMP/uring_floor" epoll "$OK" "$CONNS" 1 ftp > /dev/null 2> "$TMP/usage.err"
check "an unknown workload: exit 2" [ $? -eq 2 ]
finish
