# Session 14's new-user trial: thresholds on counters, a known subject
# without samples, and transactions in flight at the end.  Against nginx:
# - counters the HTTP client makes (http.status_5xx, http.status_4xx that
#   never moves, http.retries, http.connects) are valid subjects before the
#   run; their totals are what nginx answered; "rate" on a counter (built-in
#   or custom) is its total over the run's span_s; a stat that does not apply
#   to a custom counter fails saying which do;
# - a counter subject misspelt, a counter's p95, a timer's value, a
#   misspelt grpc.* name and "grpc *" are refused before any load (exit 3,
#   nginx sees nothing);
# - every request failing: "http.wait p95" (a timer this run can make) has
#   no did-you-mean but says why it has no samples;
# - a request nginx answers after 3 s, with run time 1 s and a graceful stop
#   of 0.5 s: the console warns that transactions were in flight and none
#   completed, summary.json's warnings[] say how many, and nginx got them;
# - luamech merge of two segments judges the counters as the run does.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_http.sh"
start_nginx PORT "$TMP/ng"
L=$TMP/ng/access.log
cat > "$TMP/vu.lua" <<'LUA'
local c = assert(luamech.http.new("http://127.0.0.1:" .. luamech.param("PORT"), { timeout = 5 }))
local hits = luamech.counter("hits")
local path = luamech.param("SLOW_PATH") or ""
return function()
  if path ~= "" then c:get(path) return end
  hits:add(1)
  c:get("/hello")
  c:get("/e500")
  luamech.sleep(0.05)
end
LUA
# scen NAME THRESHOLDS...: a one-group scenario file with those criteria
scen() {
    local name=$1
    shift
    local IFS=,
    printf 'return { name = "c", run_time = "1s", graceful_stop = "0.5s", thresholds = { %s },\n  groups = { { name = "g", vus = 2, script = "vu.lua" } } }\n' "$*" > "$TMP/$name.lua"
}
run() { "$LUAMECH" run "$TMP/$1.lua" -q -w 1 -e PORT=$PORT "${@:2}" -o "$TMP/r_$1" > "$TMP/$1.out" 2>&1; }

# 1. counters as subjects, measured
scen ok '"http.status_5xx count > 0"' '"http.status_4xx count == 0"' '"http.retries count < 10"' \
    '"http.connects count > 0"' '"http.status_2xx rate > 0/s"' '"hits rate > 1/s"' '"hits p95 < 1ms"' '"hits value > 0"'
run ok
rc=$?
nginx_settle "$L"
s=$TMP/r_ok/summary.json
th() { jq -r ".thresholds[$1].$2" "$s"; }
check "counters as subjects run; only the custom counter's p95 fails: exit 6 (got $rc: $(head -c 400 "$TMP/ok.out"))" \
    [ "$rc" -eq 6 -a "$(jq '[.thresholds[] | select(.passed | not) | .criterion] == ["hits p95 < 1ms"]' "$s")" = true ]
check "http.status_5xx count = nginx's 500s: $(th 0 measured) = $(logged '/e500 HTTP/1.1 500')" \
    [ "$(th 0 measured)" -gt 0 -a "$(th 0 measured)" = "$(logged '/e500 HTTP/1.1 500')" ]
check "http.status_4xx, which never moved, is 0 (not 'no data')" [ "$(th 1 measured)" = 0 -a "$(th 1 passed)" = true ]
check "http.connects = nginx's connections: $(th 3 measured)" [ "$(th 3 measured)" = "$(nginx_connections "$L")" ]
check "http.status_2xx rate = nginx's 200s / span_s" \
    [ "$(jq --argjson n "$(logged '/hello HTTP/1.1 200')" '(.thresholds[4].measured - $n / .span_s) | fabs < 1e-6' "$s")" = true ]
check "hits rate = the counter's total / span_s: $(th 5 measured)/s, hits = nginx's /hello requests" \
    [ "$(jq '(.thresholds[5].measured - ([.counters[] | select(.name == "hits") | .total] | add) / .span_s) | fabs < 1e-6' "$s")" = true \
      -a "$(counter "$s" hits)" = "$(logged '/hello HTTP/1.1')" ]
check "a custom counter's p95 fails saying which stats apply: $(th 6 reason)" \
    [ "$(th 6 reason)" = "hits is a counter: count, value (its total) and rate (its total per second of the run) apply" ]
check "... on the console too" grep -q 'hits p95 < 1ms .*(does not apply)  FAIL  (hits is a counter' "$TMP/ok.out"

# 2. refused before any load
refused() { # refused NAME THRESHOLD MESSAGE
    scen "$1" "$2"
    : > "$L"
    run "$1"
    local rc=$?
    nginx_settle "$L"
    check "$2: refused before any load, exit 3 (got $rc: $(head -c 300 "$TMP/$1.out"))" [ "$rc" -eq 3 -a ! -s "$L" ]
    check "$2: the message says $3" grep -qF "$3" "$TMP/$1.out"
}
refused near '"http.status_500 count == 0"' 'no timer or counter "http.status_500" can exist in this run (did you mean "http.status_5xx"?)'
refused cp95 '"http.status_5xx p95 < 1ms"' '"http.status_5xx" is a counter: count, value (its total) and rate'
refused tval '"http.get value < 1"' '"http.get" is a timer:'
refused grpc '"grpc.tlss p95 < 1s"' 'no timer or counter "grpc.tlss" can exist in this run (did you mean "grpc.tls"?)'
refused gstar '"grpc * p95 < 1s"' 'no timer "grpc *" can exist in this run: * and ? are wildcards only in a tag selector ("http.*{k=v}"); every call: "grpc"'

# 3. every request fails (nothing listens on the port): a known timer without samples
scen down '"http.wait p95 < 100ms"' '"hitz count > 0"' '"grpc p95 < 1s"'
"$LUAMECH" run "$TMP/down.lua" -q -w 1 -e PORT=$(free_port) -o "$TMP/r_down" > "$TMP/down.out" 2>&1
s=$TMP/r_down/summary.json
check "http.wait without samples fails: $(th 0 reason)" [ "$(th 0 passed)" = false -a "$(th 0 measured)" = null ]
check "... with no did-you-mean, but why" \
    bash -c "jq -r '.thresholds[0].reason' '$s' | grep -qE '^no samples of http.wait in this run \(([0-9]+ request errors|all [0-9]+ transactions failed)\)$'"
check "... console: (no samples), no did-you-mean" bash -c "grep 'http.wait p95' '$TMP/down.out' | grep -q '(no samples)  FAIL' && ! grep 'http.wait p95' '$TMP/down.out' | grep -q 'did you mean'"
check "grpc (every gRPC call) is accepted, and without samples says so: $(th 2 reason)" \
    bash -c "jq -r '.thresholds[2].reason' '$s' | grep -q '^no samples of grpc in this run'"
check "a custom name without data still gets its did-you-mean: $(th 1 reason)" \
    bash -c "jq -r '.thresholds[1].reason' '$s' | grep -q '^no data for hitz (did you mean \"'"

# 4. in flight at the end: nginx answers /slow after 3 s; run time 1 s, graceful stop 0.5 s
scen slow
: > "$L"
run slow -e SLOW_PATH=/slow
rc=$?
s=$TMP/r_slow/summary.json
for _ in $(seq 80); do [ "$(logged '/slow HTTP/1.1')" -ge 2 ] && break; sleep 0.1; done
check "in flight: exit 0, status completed (got $rc, $(jq -r .status "$s"))" [ "$rc" -eq 0 -a "$(jq -r .status "$s")" = completed ]
check "the verdict line says none completed" grep -q '^luamech [0-9.]* - c: completed, 0 transactions completed (2 in flight at the end), no thresholds$' "$TMP/slow.out"
check "the console warns: $(grep WARNING "$TMP/slow.out")" \
    grep -q '^WARNING: 2 transaction(s) were still in flight when the run ended.*; no transaction completed$' "$TMP/slow.out"
check "summary.json warnings[]: in_flight 2, transactions 0" \
    [ "$(jq -c '[.warnings[] | select(.kind == "in_flight") | [.in_flight, .transactions]]' "$s")" = '[[2,0]]' ]
check "nginx got both requests: $(logged '/slow HTTP/1.1')" [ "$(logged '/slow HTTP/1.1')" = 2 ]
check "report.html shows the in-flight warning under its title" \
    grep -q '<p class="warn">2 transaction(s) were still in flight when the run ended' "$TMP/r_slow/report.html"
check "a run that completed transactions shows none in report.html" \
    bash -c "! grep -q 'still in flight when the run ended' '$TMP/r_ok/report.html'"
check "a run that completed transactions has no such warning" [ "$(jq '[.warnings[] | select(.kind == "in_flight" or .kind == "no_transactions")] | length' "$TMP/r_ok/summary.json")" = 0 ]

# 5. luamech merge judges the segments' criteria as the run did: a known
# counter that never moved is 0 there too (summary.json's subject_kind)
scen seg '"http.status_4xx count == 0"' '"http.status_5xx count > 0"'
for i in 1 2; do
    "$LUAMECH" run "$TMP/seg.lua" -q -w 1 -e PORT=$PORT --segment $i/2 -o "$TMP/seg$i" > "$TMP/seg$i.out" 2>&1
done
"$LUAMECH" merge "$TMP/seg1" "$TMP/seg2" --out "$TMP/merged" > "$TMP/merge.out" 2>&1
rc=$?
s=$TMP/merged/summary.json
check "merge: exit 0, http.status_4xx (never moved) is 0 and passes (got $rc: $(jq -c '[.thresholds[] | [.measured, .reason]]' "$s"))" \
    [ "$rc" -eq 0 -a "$(jq -c '[.thresholds[] | [.subject_kind, .passed]]' "$s")" = '[["counter",true],["counter",true]]' ]
check "merge: http.status_5xx = the segments' sum" \
    [ "$(th 1 measured)" = $(( $(jq '.thresholds[1].measured' "$TMP/seg1/summary.json") + $(jq '.thresholds[1].measured' "$TMP/seg2/summary.json") )) ]

# 6. every counter a binding names in its source is a valid subject (a new
# counter left out of lm_builtin_counters would be refused before the run)
names=$(grep -rhoE 'worker_counter_id\([^,]*, *"[^"]+"' "$SRC/src" | sed -E 's/.*"([^"]+)"/\1/' | sort -u)
check "the sources name counters: $(echo $names)" [ "$(echo "$names" | wc -w)" -ge 5 ]
crit=$(for n in $names; do printf '"%s count >= 0",' "$n"; done)
scen all "${crit%,}"
run all -d 0.3s
rc=$?
check "every counter the sources name is accepted (exit $rc: $(grep -m1 -i 'threshold\|subject' "$TMP/all.out"))" \
    [ "$rc" -ne 2 -a "$rc" -ne 3 ]
finish
