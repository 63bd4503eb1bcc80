# TLS on every client (src/net/tls.c) against real TLS servers on free
# loopback ports, with a CA and certificates made here by the openssl CLI:
# memcached -Z, redis-server --tls-port, nginx ssl.  What luamech counts must
# match what the servers counted; a wrong CA, an expired certificate and a
# host name mismatch are one clear error and no load; insecure = true skips
# verification; client certificates; session resumption seen by nginx
# ($ssl_session_reused); bad options name the call; a peer that answers the
# handshake with garbage cannot crash luamech.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_redis.sh"
. "$(dirname "$0")/lib_http.sh"
F=$SRC/tests/scenarios/fixtures
PKI=$TMP/pki
test_pki "$PKI"
# mc_tls VAR STATSVAR CERT [extra -o settings]: memcached with TLS on VAR's
# port and a plaintext listener on STATSVAR's (for the counters)
mc_tls() {
    local var=$1 svar=$2 cert=$3 extra=${4:-} p s pid
    p=$(free_port); s=$(free_port)
    memcached -u root -U 0 -t 1 -l "127.0.0.1:$p,notls:127.0.0.1:$s" -Z \
        -o "ssl_chain_cert=$PKI/$cert.pem,ssl_key=$PKI/$cert.key$extra" &
    pid=$!
    for _ in $(seq 60); do port_open "$s" && break; sleep 0.05; done
    port_open "$s" || { echo "cannot start memcached with TLS"; exit 1; }
    PIDS+=("$pid")
    printf -v "$var" '%s' "$p"; printf -v "$svar" '%s' "$s"
}
run() { # run NAME SCENARIO args...: results in $TMP/NAME, rc in RC
    local name=$1 sc=$2; shift 2
    "$LUAMECH" run "$F/$sc" -d 2s -u 2 -w 1 -q -o "$TMP/$name" "$@" > "$TMP/$name.out" 2>&1
    RC=$?
}
CA="{ ca_file = '$PKI/ca.pem' }"

# ---- memcached -----------------------------------------------------------
mc_tls MC MCS server
run mc tls_mc.lua -e "MC=127.0.0.1:$MC" -e "TLS=$CA"
s=$TMP/mc/summary.json
check "memcached over TLS: exit 0 (got $RC)" [ "$RC" -eq 0 ]
g=$(timer_count "$s" memcached.get); st=$(timer_count "$s" memcached.set)
echo "memcached.get=$g memcached.set=$st | server cmd_get=$(mc_stat "$MCS" cmd_get) cmd_set=$(mc_stat "$MCS" cmd_set)"
check "memcached over TLS: some load" [ "$g" -gt 50 ]
check "memcached over TLS: get count == server cmd_get" [ "$g" -eq "$(mc_stat "$MCS" cmd_get)" ]
check "memcached over TLS: set count == server cmd_set" [ "$st" -eq "$(mc_stat "$MCS" cmd_set)" ]
check "memcached over TLS: no errors" [ "$(timer_errors "$s" "All Transactions")" -eq 0 ]
check "memcached.tls timer: one handshake per VU connection" [ "$(timer_count "$s" memcached.tls)" -eq 2 ]
check "memcached.tls is not in memcached.get" [ "$(timer_count "$s" memcached.get)" -eq "$g" ]

# pooled: both VUs over one TLS connection
before=$(mc_stat "$MCS" cmd_get)
run mcpool tls_mc.lua -e "MC=127.0.0.1:$MC" -e "TLS=$CA" -e POOL=1
g=$(timer_count "$TMP/mcpool/summary.json" memcached.get)
check "pooled over TLS: exit 0 and counts match the server" \
    [ "$RC" -eq 0 -a "$g" -gt 50 -a "$g" -eq $(( $(mc_stat "$MCS" cmd_get) - before )) ]
check "pooled over TLS: one handshake" [ "$(timer_count "$TMP/mcpool/summary.json" memcached.tls)" -eq 1 ]

# wrong CA: one clear error, counted as a failed preflight, no load
before=$(mc_stat "$MCS" cmd_set)
run mcca tls_mc.lua -e "MC=127.0.0.1:$MC" -e "TLS={ ca_file = '$PKI/ca2.pem' }"
check "wrong CA: exit 4 (preflight; got $RC)" [ "$RC" -eq 4 ]
check "wrong CA: says verification failed" grep -q "memcached.connect: 127.0.0.1:$MC: TLS error: certificate verification failed: unable to get local issuer certificate" "$TMP/mcca.out"
check "wrong CA: no load reached the server" [ "$(mc_stat "$MCS" cmd_set)" -eq "$before" ]
# system store (tls = true): our private CA is not in it
run mcsys tls_mc.lua -e "MC=127.0.0.1:$MC" -e "TLS=true"
check "system store rejects the private CA (exit 4)" [ "$RC" -eq 4 ]
check "system store rejects the private CA (exit 4): the message" grep -q "certificate verification failed" "$TMP/mcsys.out"
# insecure: no verification at all
run mcins tls_mc.lua -e "MC=127.0.0.1:$MC" -e "TLS={ insecure = true }"
check "insecure = true: runs against an unknown CA (exit $RC)" [ "$RC" -eq 0 ]

# expired certificate, host name mismatch
mc_tls MCX MCXS expired
run mcexp tls_mc.lua -e "MC=127.0.0.1:$MCX" -e "TLS=$CA"
check "expired certificate: exit 4, 'certificate has expired'" [ "$RC" -eq 4 ]
check "expired certificate: exit 4, 'certificate has expired': the message" grep -q "certificate has expired" "$TMP/mcexp.out"
mc_tls MCO MCOS other
run mcname tls_mc.lua -e "MC=127.0.0.1:$MCO" -e "TLS={ ca_file = '$PKI/ca.pem', server_name = 'localhost' }"
check "host name mismatch: exit 4, 'hostname mismatch'" [ "$RC" -eq 4 ]
check "host name mismatch: exit 4, 'hostname mismatch': the message" grep -q "hostname mismatch" "$TMP/mcname.out"
run mcip tls_mc.lua -e "MC=127.0.0.1:$MCO" -e "TLS=$CA"
check "IP address not in the certificate: 'IP address mismatch'" [ "$RC" -eq 4 ]
check "IP address not in the certificate: 'IP address mismatch': the message" grep -q "IP address mismatch" "$TMP/mcip.out"
run mcname2 tls_mc.lua -e "MC=127.0.0.1:$MCO" -e "TLS={ ca_file = '$PKI/ca.pem', server_name = 'other.example' }"
check "server_name matching the certificate: exit 0 (got $RC)" [ "$RC" -eq 0 ]

# client certificates: the server requires one
mc_tls MCC MCCS server ",ssl_ca_cert=$PKI/ca.pem,ssl_verify_mode=2"
run mcnocert tls_mc.lua -e "MC=127.0.0.1:$MCC" -e "TLS=$CA"
# TLS 1.3: the server refuses after the client finished its handshake, so
# the requests fail (counted as errors), none is executed
n=$(timer_count "$TMP/mcnocert/summary.json" memcached.set)
check "client certificate required, none given: every request fails, none executed" \
    [ "$n" -gt 0 -a "$(timer_errors "$TMP/mcnocert/summary.json" memcached.set)" -eq "$n" -a "$(mc_stat "$MCCS" cmd_set)" -eq 0 ]
run mccert tls_mc.lua -e "MC=127.0.0.1:$MCC" \
    -e "TLS={ ca_file = '$PKI/ca.pem', cert = '$PKI/client.pem', key = '$PKI/client.key' }"
g=$(timer_count "$TMP/mccert/summary.json" memcached.get)
check "client certificate: exit 0 and counts match (got $RC, $g)" [ "$RC" -eq 0 -a "$g" -gt 50 -a "$g" -eq "$(mc_stat "$MCCS" cmd_get)" ]
run mcminv tls_mc.lua -e "MC=127.0.0.1:$MC" -e "TLS={ ca_file = '$PKI/ca.pem', min_version = '1.3' }"
check "min_version 1.3 against memcached (TLS 1.3 capable): exit 0 (got $RC)" [ "$RC" -eq 0 ]

# ---- bad input: one clear message naming the call -----------------------
run badca tls_mc.lua -e "MC=127.0.0.1:$MC" -e "TLS={ ca_file = '$TMP/nonexistent.pem' }"
check "bad ca_file: exit 4 (got $RC)" [ "$RC" -eq 4 ]
check "bad ca_file: names the call and the file" grep -q "memcached.connect: tls: cannot load ca_file $TMP/nonexistent.pem" "$TMP/badca.out"
run badopt tls_mc.lua -e "MC=127.0.0.1:$MC" -e "TLS={ cafile = 'x' }"
check "unknown tls option: names the call and the option" grep -q "memcached.connect: unknown tls option 'cafile'" "$TMP/badopt.out"
run badver tls_mc.lua -e "MC=127.0.0.1:$MC" -e "TLS={ min_version = '1.1' }"
check "bad min_version: one clear message" grep -q 'memcached.connect: tls: min_version must be "1.2" or "1.3"' "$TMP/badver.out"
run badkey tls_mc.lua -e "MC=127.0.0.1:$MC" -e "TLS={ cert = '$PKI/client.pem', key = '$PKI/server.key' }"
check "key not matching cert: names the call" grep -q "memcached.connect: tls: cannot load key $PKI/server.key: .*key values mismatch" "$TMP/badkey.out"

# ---- hostile peer: garbage instead of a ServerHello ----------------------
HP=$(free_port)
python3 -c '
import socket, sys, os
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(16); s.settimeout(30)
junk = [b"\x16\x03\x03\xff\xff" + os.urandom(2000), b"\x17\x03\x03\x00\x05hello", os.urandom(70000), b"HTTP/1.1 200 OK\r\n\r\n"]
i = 0
try:
    while True:
        c, _ = s.accept(); c.recv(4096); c.sendall(junk[i % len(junk)]); i += 1; c.close()
except Exception: pass
' "$HP" &
PIDS+=($!)
for _ in $(seq 40); do port_open "$HP" && break; sleep 0.05; done
for i in 1 2 3 4; do
    run hostile$i tls_mc.lua -e "MC=127.0.0.1:$HP" -e "TLS={ insecure = true }"
    check "garbage TLS records ($i): a clean failure, no crash (exit $RC)" [ "$RC" -eq 4 ]
done

# a peer that accepts and never answers the ClientHello: the connect timeout
# covers the handshake
SP=$(free_port)
python3 -c '
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(16); s.settimeout(30); held = []
try:
    while True:
        c, _ = s.accept(); held.append(c)
except Exception: pass
' "$SP" &
PIDS+=($!)
for _ in $(seq 40); do port_open "$SP" && break; sleep 0.05; done
printf 'local mc, err = luamech.memcached.connect("127.0.0.1:%s", { tls = { insecure = true }, connect_timeout = 0.5 })\nassert(mc, err)\nreturn function() end\n' "$SP" > "$TMP/silent_vu.lua"
printf 'return { name = "silent", groups = { { name = "g", vus = 1, script = "silent_vu.lua" } } }\n' > "$TMP/silent.lua"
t0=$(date +%s%N)
"$LUAMECH" run "$TMP/silent.lua" -d 2s -q -o "$TMP/silent" > "$TMP/silent.out" 2>&1; RC=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
check "silent TLS peer: exit 4 within the connect timeout ($RC, ${ms} ms)" [ "$RC" -eq 4 -a "$ms" -lt 5000 ]
check "silent TLS peer: 'TLS handshake timeout'" grep -q "memcached.connect: 127.0.0.1:$SP: timeout: TLS handshake timeout" "$TMP/silent.out"

# ---- redis ----------------------------------------------------------------
RP=$(free_port)
redis_spawn_tls() {
    redis-server --port 0 --tls-port "$RP" --bind 127.0.0.1 --save "" --appendonly no \
        --tls-cert-file "$PKI/server.pem" --tls-key-file "$PKI/server.key" \
        --tls-ca-cert-file "$PKI/ca.pem" --tls-auth-clients no > /dev/null 2>&1 &
    PIDS+=($!)
    for _ in $(seq 60); do port_open "$RP" && break; sleep 0.05; done
}
redis_spawn_tls
rcli() { redis-cli --tls --cacert "$PKI/ca.pem" -p "$RP" "$@"; }
run rd tls_rd.lua -e "RD=127.0.0.1:$RP" -e "TLS=$CA"
n=$(timer_count "$TMP/rd/summary.json" redis.set)
srv=$(rcli info commandstats | sed -n 's/^cmdstat_set:calls=\([0-9]*\).*/\1/p')
echo "redis.set=$n server set calls=$srv"
check "redis over TLS: exit 0, counts match the server (got $RC)" [ "$RC" -eq 0 -a "$n" -gt 50 -a "$n" -eq "${srv:-0}" ]
check "redis.tls timer: 2 handshakes" [ "$(timer_count "$TMP/rd/summary.json" redis.tls)" -eq 2 ]
run rds tls_rd.lua -e "RD=rediss://127.0.0.1:$RP"
check "rediss:// verifies against the system store: exit 4 (got $RC)" [ "$RC" -eq 4 ]
check "rediss:// verifies against the system store: exit 4 (got $RC): the message" grep -q "certificate verification failed" "$TMP/rds.out"
run rds2 tls_rd.lua -e "RD=rediss://127.0.0.1:$RP" -e "TLS={ insecure = true }"
check "rediss:// with insecure: exit 0 (got $RC)" [ "$RC" -eq 0 ]

# ---- HTTPS: nginx with ssl, resumption in its log -------------------------
NG=$TMP/nginx
NP=$(free_port)
mkdir -p "$NG/www"; head -c 1048576 /dev/urandom > "$NG/www/large.bin"
nginx_conf_head "$NG" '$connection $connection_requests $ssl_session_reused $ssl_protocol $request $status'
echo "    ssl_session_cache shared:lm:1m;" >> "$NG/nginx.conf"
nginx_tls_server "$NG" "$NP" "$PKI" 'location = /hello { return 200 "hello"; }' "location = /large.bin { root $NG/www; }"
nginx_conf_end "$NG"
nginx_launch "$NG" "$NP"
run https tls_http.lua -e "URL=https://127.0.0.1:$NP" -e "TLS=$CA"
n=$(timer_count "$TMP/https/summary.json" http.get)
nginx_wait "$NG/access.log" " GET /hello HTTP/1.1 200" "$n"
logged=$(grep -c " GET /hello HTTP/1.1 200" "$NG/access.log")
echo "https: luamech GETs=$n nginx logged=$logged"
check "https keep-alive: exit 0 (got $RC)" [ "$RC" -eq 0 ]
check "https keep-alive: requests == nginx's log" [ "$n" -gt 50 -a "$n" -eq "$logged" ]
check "http.tls: 2 handshakes (one per VU connection)" [ "$(timer_count "$TMP/https/summary.json" http.tls)" -eq 2 ]
: > "$NG/access.log"
run https2 tls_http.lua -e "URL=https://127.0.0.1:$NP" -e "TLS=$CA" -e KEEPALIVE=0 -d 1s
hs=$(timer_count "$TMP/https2/summary.json" http.tls)
nginx_wait "$NG/access.log" " GET /hello " "$hs"
res=$(jq -r '[.counters[]? | select(.name == "http.tls_resumed") | .total] | add // 0' "$TMP/https2/summary.json")
srv_res=$(awk '$3 == "r"' "$NG/access.log" | wc -l)
logged=$(grep -c " GET /hello " "$NG/access.log")
echo "https, a connection per request: handshakes=$hs resumed=$res | nginx requests=$logged reused sessions=$srv_res"
check "a connection per request: one handshake per request" [ "$RC" -eq 0 -a "$hs" -gt 10 -a "$hs" -eq "$logged" ]
# each call opened a connection: its http.get time excludes the connect and
# the handshake (their own timers): the mean call is about wait + receive,
# far from wait + receive + tls
avg() { jq -r --arg n "$2" '[.timers[] | select(.name == $n) | .summary.avg_ms][0]' "$1"; }
sj=$TMP/https2/summary.json
echo "means (ms): http.get $(avg "$sj" http.get) wait $(avg "$sj" http.wait) receive $(avg "$sj" http.receive) tls $(avg "$sj" http.tls) connect $(avg "$sj" http.connect)"
check "http.get leaves out the handshake and the connect (mean < wait + receive + tls / 2)" \
    awk -v g="$(avg "$sj" http.get)" -v w="$(avg "$sj" http.wait)" -v r="$(avg "$sj" http.receive)" -v t="$(avg "$sj" http.tls)" \
    'BEGIN { exit !(t > 0 && g < w + r + t / 2) }'
check "session resumption: every reconnect but each VU's first resumed, as nginx saw it" \
    [ "$res" -eq "$srv_res" -a "$res" -ge $((hs - 2)) ]
# a 1 MiB body: many records, split across socket reads and the TLS
# layer's receive space, through both I/O backends; its bytes as the file's
sum=$(python3 -c 'import sys
d = open(sys.argv[1], "rb").read(); a = 0
for i, b in enumerate(d, 1): a = (a + b * (i % 251 + 1)) % 2147483648
print(a)' "$NG/www/large.bin")
ios=epoll      # and uring where io_uring_setup(2) is allowed (as test_io.sh probes it)
python3 -c 'import ctypes, sys; p = ctypes.create_string_buffer(120); sys.exit(0 if ctypes.CDLL(None).syscall(425, 2, p) >= 0 else 1)' \
    && ios="epoll uring" || echo "note: io_uring is unavailable on this machine: the uring run is skipped"
for io in $ios; do
    : > "$NG/access.log"
    run "large-$io" tls_http.lua -e "URL=https://127.0.0.1:$NP" -e "TLS=$CA" -e "SUM=$sum" -d 1s --io "$io"
    n=$(timer_count "$TMP/large-$io/summary.json" http.get)
    nginx_wait "$NG/access.log" " GET /large.bin HTTP/1.1 200" "$n"
    logged=$(grep -c " GET /large.bin HTTP/1.1 200" "$NG/access.log")
    echo "https 1 MiB bodies ($io): luamech GETs=$n nginx logged=$logged"
    check "https 1 MiB bodies, --io $io: exit 0, every body intact, requests == nginx's log (got $RC)" \
        [ "$RC" -eq 0 -a "$n" -gt 2 -a "$n" -eq "$logged" -a \
          "$(timer_errors "$TMP/large-$io/summary.json" "All Transactions")" -eq 0 ]
done
# bad TLS options of luamech.http.new: one message naming the call (exit 4)
run httpsbadca tls_http.lua -e "URL=https://127.0.0.1:$NP" -e "TLS={ ca_file = '$TMP/nonexistent.pem' }"
check "https, bad ca_file: exit 4 ($RC)" [ "$RC" -eq 4 ]
check "https, bad ca_file: names the call and the file" \
    grep -q "luamech.http.new: tls: cannot load ca_file $TMP/nonexistent.pem" "$TMP/httpsbadca.out"
run httpsbadopt tls_http.lua -e "URL=https://127.0.0.1:$NP" -e "TLS={ cafile = 'x' }"
check "https, unknown tls option: exit 4 ($RC)" [ "$RC" -eq 4 ]
check "https, unknown tls option: names the call and the option" \
    grep -q "luamech.http.new: unknown tls option 'cafile'" "$TMP/httpsbadopt.out"
run httpsbad tls_http.lua -e "URL=https://127.0.0.1:$NP" -e "TLS={ ca_file = '$PKI/ca2.pem' }"
check "https, wrong CA: the request fails with the verification error" grep -q "certificate verification failed" "$TMP/httpsbad.out"
# tls options with an http:// base URL serve the https origins it reaches:
# test_http_origins.sh
finish
