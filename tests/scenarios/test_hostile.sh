# Hostile servers (tests/scenarios/fixtures/hostile.py, a python3 stdlib
# fixture): luamech's memory stays bounded and the run ends on time whatever
# an HTTP server sends (endless or huge bodies, endless headers), and error
# text a memcached or redis server controls reaches no output raw (no ESC
# byte, valid UTF-8, escaped as docs/results.md says).  Peak RSS and wall
# time come from /usr/bin/time.
. "$(dirname "$0")/lib.sh"
F=$SRC/tests/scenarios/fixtures

# Debian's python3 (a python3 earlier in PATH may be a slow wrapper)
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
# One server per mode, all started at once (python's start-up is slow on a
# loaded machine) and kept for the whole test: PORT_<mode>, PFILE_<mode>.
MODES="clen chunkhuge chunkloop eofbody header headers memcached redis"
for mode in $MODES; do
    "$PY" "$F/hostile.py" "$mode" "$TMP/port.$mode" &
    PIDS+=("$!")
done
for mode in $MODES; do
    for _ in $(seq 300); do [ -f "$TMP/port.$mode" ] && break; sleep 0.05; done
    [ -f "$TMP/port.$mode" ] || { echo "hostile.py $mode did not start"; exit 1; }
    printf -v "PORT_$mode" '%s' "$(cat "$TMP/port.$mode")"
done
accepted() { cat "$TMP/port.$1.accepted" 2>/dev/null || echo 0; }

# run_http NAME MODE [luamech args]: 4 VUs for 3 s (+1 s graceful stop);
# sets RSS_MB, WALL_S, RC, OUT (the results directory), HPORT and ACCEPTED
# (the connections the server accepted during the run)
run_http() {
    local name=$1 mode=$2 before; shift 2
    local var=PORT_$mode
    HPORT=${!var}
    before=$(accepted "$mode")
    OUT=$TMP/$name
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=8" \
    /usr/bin/time -o "$TMP/$name.time" -f '%M %e' "$LUAMECH" run "$F/hostile_http.lua" -q \
        -e PORT="$HPORT" -o "$OUT" "$@" > "$TMP/$name.out" 2>&1
    RC=$?
    read -r rss WALL_S < <(tail -n 1 "$TMP/$name.time")   # after "Command exited with ..."
    RSS_MB=$((rss / 1024))
    sleep 0.2                                             # the last accepts are counted
    ACCEPTED=$(( $(accepted "$mode") - before ))
    echo "   $name: exit $RC, peak RSS $RSS_MB MB, wall $WALL_S s, $ACCEPTED connections"
}
req_errors() { jq -r '[.request_errors[].count] | add // 0' "$1/summary.json"; }
# 3 s + 1 s graceful stop + start-up and exit (slower in the sanitizer build)
# ASan's quarantine keeps up to 256 MB of freed memory (e.g. refused bodies);
# run_http caps it at 8 MB, so that under the sanitizer too the peak RSS is
# what luamech holds (a reconnect per refused body frees a connection's buffers)
# The sanitizer build also starts bigger (about 34 MB against 7.5 MB, its
# shadow memory and allocator) and keeps the capped 8 MB quarantine: its
# bounds are SMALL (48 MB) and 64 MB plus SAN_MB.
LATE=7.5 QUARANTINE_MB=0 SAN_MB=0
ldd "$LUAMECH" 2>/dev/null | grep -q libasan && LATE=9.0 QUARANTINE_MB=320 SAN_MB=32
SMALL=$((48 + SAN_MB))
on_time() { awk -v t="$1" -v late="$LATE" 'BEGIN { exit !(t < late) }'; }

# ---- item: HTTP bodies without end or with absurd sizes ----
LIMIT_MSG="response body larger than max_body (67108864 bytes)"
for mode in clen chunkhuge chunkloop eofbody; do
    run_http "$mode" "$mode"
    check "$mode: run exits 0" [ "$RC" -eq 0 ]
    check "$mode: ends on time ($WALL_S s)" on_time "$WALL_S"
    # 4 connections can each hold at most max_body (64 MiB); a declared
    # length or chunk size over the limit is refused before any body byte.
    # (Whether an endless body reaches 64 MiB within 3 s depends on how fast
    # the fixture can send: the limit's error is checked with 1 MiB below.)
    case $mode in clen|chunkhuge) bound=$((64 + SAN_MB));; *) bound=$((4 * 64 + 64 + QUARANTINE_MB));; esac
    check "$mode: peak RSS $RSS_MB MB < $bound MB" [ "$RSS_MB" -lt "$bound" ]
    if [ $bound -eq $((64 + SAN_MB)) ]; then
        check "$mode: the default 64 MiB limit is an error in errors.csv" grep -qF "$LIMIT_MSG" "$OUT/errors.csv"
        n=$(req_errors "$OUT")
        check "$mode: each error closed its connection ($n errors, $ACCEPTED connections)" \
            [ "$n" -ge 10 -a "$ACCEPTED" -ge "$n" ]
    fi

    run_http "$mode-1m" "$mode" -e 'OPTS={ max_body = 1048576 }'
    check "$mode, max_body = 1 MiB: ends on time ($WALL_S s), peak RSS $RSS_MB MB < $SMALL MB" \
        [ "$RC" -eq 0 -a "$RSS_MB" -lt "$SMALL" ] && on_time "$WALL_S"
    check "$mode, max_body = 1 MiB: many errors, named with the limit" \
        grep -qE "^request,[0-9]{2,},\"http.get 127.0.0.1:$HPORT: over a size limit: response body larger than max_body \(1048576 bytes\)\"" "$OUT/errors.csv"

    case $mode in clen|chunkhuge) continue;; esac     # refused at once: nothing more to see

    # 4 connections each taking 16 MiB: kept, that is 64 MiB at least
    run_http "$mode-discard" "$mode" -e 'OPTS={ discard_body = true, max_body = 16777216 }'
    check "$mode, discard_body: ends on time ($WALL_S s), peak RSS $RSS_MB MB < $SMALL MB" \
        [ "$RC" -eq 0 -a "$RSS_MB" -lt "$SMALL" ] && on_time "$WALL_S"
    check "$mode, discard_body: the body was counted up to the limit" \
        grep -qF "response body larger than max_body (16777216 bytes)" "$OUT/errors.csv"
done
run_http "eofbody-rq" eofbody -e 'OPTS={ max_body = 1048576 }' -e 'REQ_OPTS={ max_body = 1000000 }'
check "per-request max_body overrides the client's" \
    grep -qF "response body larger than max_body (1000000 bytes)" "$OUT/errors.csv"

# ---- headers without end: http-parser's 80 KB header limit ----
for mode in header headers; do
    run_http "$mode" "$mode"
    check "$mode: ends on time ($WALL_S s), peak RSS $RSS_MB MB < $SMALL MB" \
        [ "$RC" -eq 0 -a "$RSS_MB" -lt "$SMALL" ] && on_time "$WALL_S"
    check "$mode: counted as a protocol error" grep -q "protocol error: too many header bytes" "$OUT/errors.csv"
done

# ---- item: server-controlled error text in every output ----
ESC=$'\x1b'
# what the server sent, escaped: invalid UTF-8 and C0/C1 controls as \xHH, café kept
WANT='evil \xff\xfe \x01 \x1b[31mred\x1b[0m \x7f \xc2\x9b \x80 café \xe2\x82'
no_esc() { ! grep -rqa "$ESC" "$@"; }
valid_utf8() { local f; for f in "$@"; do iconv -f UTF-8 -t UTF-8 "$f" > /dev/null 2>&1 || return 1; done; }
for kind in memcached redis; do
    var=PORT_$kind
    HPORT=${!var}
    out=$TMP/text-$kind
    "$LUAMECH" run "$F/hostile_text.lua" -e KIND=$kind -e ADDR=127.0.0.1:$HPORT -o "$out" --mm-results \
        > "$TMP/$kind.stdout" 2> "$TMP/$kind.stderr"
    rc=$?
    check "$kind: run exits 0" [ "$rc" -eq 0 ]
    check "$kind: no ESC byte on the console (stdout, stderr)" no_esc "$TMP/$kind.stdout" "$TMP/$kind.stderr"
    check "$kind: no ESC byte in any result file" no_esc "$out"
    files=$(find "$out" -maxdepth 1 -type f)
    check "$kind: every result file is valid UTF-8" valid_utf8 $files "$TMP/$kind.stdout"
    check "$kind: errors.csv has the server's text escaped" grep -qF "$WANT" "$out/errors.csv"
    check "$kind: the console shows it escaped" grep -qF "$WANT" "$TMP/$kind.stdout"
    check "$kind: summary.json has it escaped" \
        [ "$(jq -r --arg w "$WANT" '[.request_errors[].message | select(contains($w))] | length' "$out/summary.json")" -eq 1 ]
    check "$kind: a script's own error text escaped" \
        grep -qF 'script \x1b[2J\x7f \xff\xfe \xc2\x9b end' "$out/errors.csv"
    check "$kind: timer and check names escaped in summary.json (invalid UTF-8, a C1 control; an ESC is refused)" \
        [ "$(jq -r '[.timers[].name, .checks[].name] | map(select(. == "t\\xff \\xc2\\x9b" or . == "check \\xfe")) | length' "$out/summary.json")" -eq 2 ]
    check "$kind: the ESC timer name was refused as the script asserts (no assertion failure counted)" \
        bash -c "! grep -q 'an ESC in a timer name is refused' '$out/errors.csv'"
    check "$kind: junit.xml written (valid UTF-8: above)" [ -f "$out/junit.xml" ]
    check "$kind: results.csv (--mm-results) escaped" grep -qF 'script \x1b[2J' "$out/results.csv"

    # the same text as a preflight failure: one escaped line, exit 4
    "$LUAMECH" run "$F/hostile_text.lua" -e KIND=$kind -e ADDR=127.0.0.1:$HPORT -e INIT_FAIL=1 \
        -o "$out-init" > "$TMP/$kind.init.out" 2>&1
    rc=$?
    check "$kind: a preflight failure exits 4 ($rc)" [ "$rc" -eq 4 ]
    check "$kind: the preflight message is escaped on the console" \
        grep -qF "$WANT" "$TMP/$kind.init.out"
    check "$kind: ... and has no ESC byte" no_esc "$TMP/$kind.init.out"
    check "$kind: ... and summary.json's error is escaped" \
        [ "$(jq -r --arg w "$WANT" '.error | contains($w)' "$out-init/summary.json")" = true ]
done
finish
