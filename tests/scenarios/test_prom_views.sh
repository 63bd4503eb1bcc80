# Issue 24, item 5: a timer and its twins ("(uncorrected)", "(all)") reach
# Prometheus as one timer with a `view` label, and only the timer's own
# view carries the counts, so the obvious sum over the request counter,
# `sum by () (luamech_samples_total{kind="all"})` (and its rate), counts
# each request once: it equals what nginx logged, not three times it.
# Against a real Prometheus (Debian's), as test_stream_prometheus.sh.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_http.sh"
F=$SRC/tests/scenarios/fixtures
command -v prometheus > /dev/null || { echo "prometheus is not installed (.ci/setup installs it)"; exit 1; }
PP=$(free_port)
prometheus --web.enable-remote-write-receiver --web.listen-address=127.0.0.1:$PP \
    --storage.tsdb.path="$TMP/prom" --config.file=/dev/null > "$TMP/prom.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PP/-/ready" > /dev/null && break; sleep 0.1; done
curl -sf "http://127.0.0.1:$PP/-/ready" > /dev/null || { cat "$TMP/prom.log"; echo "prometheus did not start"; exit 1; }
q() { curl -s "http://127.0.0.1:$PP/api/v1/query" --data-urlencode "query=$1" | jq -r '.data.result[0].value[1] // "none"'; }
qn() { curl -s "http://127.0.0.1:$PP/api/v1/query" --data-urlencode "query=$1" | jq -r '.data.result | length'; }
start_nginx PORT "$TMP/ng"
L=$TMP/ng/access.log
"$LUAMECH" run "$F/prom_views.lua" -q -w 1 -e PORT=$PORT -o "$TMP/v" \
    --stream "prometheus=http://127.0.0.1:$PP/api/v1/write,interval=1s" > /dev/null 2> "$TMP/err.txt"
rc=$?
check "run exits 0 (got $rc: $(tail -2 "$TMP/err.txt"))" [ "$rc" -eq 0 ]
check "nothing dropped" [ "$(grep -c dropped "$TMP/err.txt")" -eq 0 ]
nginx_settle "$L"
n=$(grep -c ' HTTP/1.1' "$L")
s=$TMP/v/summary.json
check "summary.json has the three views of All Transactions (views.jq: schema 1 or 2)" \
    [ "$(jqv -c 'include "views"; [s2.timers[] | select(.name | startswith("All Transactions")) | .views | keys]' "$s")" = '[["all","uncorrected"]]' ]
tx=$(q 'sum by () (luamech_samples_total{run_id="v",kind="all"})')
check "sum by () of the transaction counter = nginx's $n requests (got $tx)" [ "$n" -gt 0 -a "$tx" = "$n" ]
req=$(q 'sum by () (luamech_samples_total{run_id="v",timer=~"http[.].*",kind="primitive",timer!~"http[.](connect|tls|wait|receive|dns)"})')
check "sum by () of the http.<method> counters = nginx's $n requests (got $req)" [ "$req" = "$n" ]
check "the http aggregate's counter = nginx's $n requests" [ "$(q 'sum by () (luamech_samples_total{run_id="v",timer="http"})')" = "$n" ]
r=$(q 'sum by () (rate(luamech_samples_total{run_id="v",kind="all"}[1h])) / on() rate(luamech_samples_total{run_id="v",kind="all",timer="All Transactions"}[1h])')
check "sum by () (rate(...)) is the one counter's rate, not three times it (ratio $r)" [ "$r" = 1 ]
check "errors: nginx's $(grep -c ' 500$' "$L") 500s" \
    [ "$(q 'sum by () (luamech_errors_total{run_id="v",kind="all"})')" = "$(grep -c ' 500$' "$L")" ]
check "the latency comes in three views of one timer label" \
    [ "$(qn 'luamech_latency_seconds_count{run_id="v",timer="All Transactions"}')" = 3 ]
for v in default uncorrected all; do
    got=$(q "luamech_latency_seconds_count{run_id=\"v\",timer=\"All Transactions\",view=\"$v\"}")
    name="All Transactions"; [ "$v" = default ] || name="All Transactions ($v)"
    want=$(jqv -r --arg v "$v" 'include "views"; s2.timers[] | select(.name == "All Transactions")
        | (if $v == "default" then . else .views[$v] end)
        | .summary.count - .summary.errors + (if .latency_over == "all samples" then .summary.errors else 0 end)' "$s")
    check "view=\"$v\": the successes in the latency histogram of \"$name\" ($got = $want)" [ "$got" = "$want" ]
done
check "no series is named after a twin" [ "$(qn '{run_id="v",timer=~".*[(](uncorrected|all)[)]"}')" = 0 ]
check "label=view=x is refused (ours), exit 2" \
    sh -c "'$LUAMECH' run '$F/prom_views.lua' -q -e PORT=$PORT -o '$TMP/x' --stream 'prometheus=http://127.0.0.1:$PP/api/v1/write,label=view=x' > /dev/null 2>&1; [ \$? -eq 2 ]"
finish
