# Name lookups of luamech.http (docs/http.md, dns option): a host name is
# looked up asynchronously when a new connection is to be opened and the
# last lookup is older than dns.ttl (default 300 s); every request that
# waited for a lookup records an http.dns sample.  Keep-alive off (a new
# connection per request), against nginx on 127.0.0.1 reached as
# "localhost" (/etc/hosts: no network) and as 127.0.0.1 (never looked up):
# ttl = 0 looks up for every connection (http.dns = nginx's requests by
# name); the default looks up once per client; ttl = 0.25 s again after
# each 0.25 s.  Counted against nginx's access log.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_http.sh"
F=$SRC/tests/scenarios/fixtures
start_nginx PORT "$TMP/ng"
L=$TMP/ng/access.log
run() {   # NAME ARGS...: one run into $TMP/NAME, nginx's log of it kept as $TMP/NAME.log
    local name=$1; shift
    : > "$L"
    "$LUAMECH" run "$F/http_dns.lua" -q -e PORT=$PORT -o "$TMP/$name" "$@" > "$TMP/$name.out" 2>&1
    rc=$?
    # nginx logs a request after its response went out: wait (<= 10 s) for
    # as many lines as luamech counted GETs, then compare
    nginx_wait "$L" "GET /hello?via=" "$(timer_count "$TMP/$name/summary.json" http.get)"
    cp "$L" "$TMP/$name.log"
    s=$TMP/$name/summary.json
}
run ttl0 -e TTL=0
byname=$(logged 'GET /hello?via=name ')
echo "ttl 0: http.dns=$(timer_count "$s" http.dns) nginx: by name=$byname numeric=$(logged 'GET /hello?via=numeric ')"
check "ttl 0: exit 0 (got $rc: $(tail -3 "$TMP/ttl0.out"))" [ "$rc" -eq 0 ]
check "ttl 0: some load by name" [ "$byname" -gt 10 ]
check "ttl 0: one lookup per connection by name: http.dns = nginx's requests by name (numeric: none)" \
    [ "$(timer_count "$s" http.dns)" -eq "$byname" ]
check "ttl 0: every request by name and by address succeeded" \
    [ "$(timer_count "$s" http.get)" -eq $(( byname + $(logged 'GET /hello?via=numeric ') )) -a \
      "$(timer_errors "$s" http.get)" -eq 0 ]
run default -e VUS=2
byname=$(logged 'GET /hello?via=name ')
echo "default ttl: http.dns=$(timer_count "$s" http.dns) nginx: by name=$byname"
check "default ttl: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "default ttl (300 s): one lookup per client (2 VUs) for its $byname new connections by name" \
    [ "$byname" -gt 10 -a "$(timer_count "$s" http.dns)" -eq 2 ]
run ttl025 -e TTL=0.25 -e RUN_TIME=1.3s
byname=$(logged 'GET /hello?via=name ')
n=$(timer_count "$s" http.dns)
echo "ttl 0.25 s over 1.3 s: http.dns=$n nginx: by name=$byname"
check "ttl 0.25 s: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "ttl 0.25 s over 1.3 s: looked up again as the address aged (3..7 lookups, $n) for $byname connections" \
    [ "$n" -ge 3 -a "$n" -le 7 -a "$byname" -gt "$n" ]
finish
