# The figures table (src/stats/figures.c) against the outputs of one real
# run on memcached: the table comes from the JSON stream's start event, and
# for each figure, each output it says carries it does (and the stream
# carries no other): summary.json's rows, intervals.csv's header, the
# console's table heads, the stream's timer events, Prometheus's quantile
# gauges (a real Prometheus), report.html's tables and its embedded table,
# and the dashboard's timer table and latency chart (headless Chromium).
# The stream's and intervals.csv's figures equal summary.json's for every
# interval.  And p80, which the stream, Prometheus and the dashboard lacked
# before the table carried it there (issue 24), is in all three.
. "$(dirname "$0")/lib.sh"
F=$SRC/tests/scenarios/fixtures
CHROMIUM=/usr/bin/chromium
command -v prometheus > /dev/null || { echo "prometheus is not installed (.ci/setup installs it)"; exit 1; }

PP=$(free_port)
prometheus --web.enable-remote-write-receiver --web.listen-address=127.0.0.1:$PP \
    --storage.tsdb.path="$TMP/prom" --config.file=/dev/null > "$TMP/prom.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PP/-/ready" > /dev/null && break; sleep 0.1; done
curl -sf "http://127.0.0.1:$PP/-/ready" > /dev/null || { cat "$TMP/prom.log"; echo "prometheus did not start"; exit 1; }
q() { curl -s "http://127.0.0.1:$PP/api/v1/query" --data-urlencode "query=$1" | jq -r '.data.result[0].value[1] // "none"'; }
url_of() { for _ in $(seq 100); do grep -o 'http://[^ ]*' "$1" 2> /dev/null && return; sleep 0.1; done; }

start_memcached MC
"$LUAMECH" run "$F/compare_kv.lua" -q -d 3s -i 1s -w 1 -e MEMCACHED=127.0.0.1:$MC -o "$TMP/r" \
    --stream "json=$TMP/s.jsonl" --stream "prometheus=http://127.0.0.1:$PP/api/v1/write,interval=1s" \
    --dashboard 0 --dashboard-linger --verbose > "$TMP/out.txt" 2> "$TMP/err.txt" &
pid=$!
URL=$(url_of "$TMP/err.txt")
for _ in $(seq 300); do grep -q "stays up" "$TMP/err.txt" && break; sleep 0.1; done
check "the run ended, the dashboard lingers" grep -q "stays up" "$TMP/err.txt"

S=$TMP/r/summary.json
jq -c 'select(.type == "start") | .figures' "$TMP/s.jsonl" | head -1 > "$TMP/figs.json"
check "the stream's start event carries the figures table" [ "$(jq length "$TMP/figs.json")" -ge 10 ]
has() { jq -r --arg o "$1" '.[] | select(.outputs | index($o)) | .key' "$TMP/figs.json"; }
hasnot() { jq -r --arg o "$1" '.[] | select(.outputs | index($o) | not) | .key' "$TMP/figs.json"; }
name_of() { jq -r --arg k "$1" '.[] | select(.key == $k) | .name' "$TMP/figs.json"; }

# summary.json: the whole-run row and every interval row of every timer
for k in $(has summary); do
    check "summary.json: $k in every timer's summary and interval rows" \
        [ "$(jq --arg k "$k" '[.timers[] | .summary, .intervals[] | has($k)] | all' "$S")" = true ]
done
# intervals.csv: its header's columns
head -1 "$TMP/r/intervals.csv" | tr ',' '\n' > "$TMP/csv_cols"
for k in $(has csv); do check "intervals.csv has a $k column" grep -qx "$k" "$TMP/csv_cols"; done
for k in $(hasnot csv); do check "intervals.csv has no $k column" sh -c "! grep -qx '$k' '$TMP/csv_cols'"; done
# the console (the full report, --verbose): the heads of its tables (after count, rate/s, errors)
heads=$(grep -m1 -E '^ +count +rate/s +errors' "$TMP/out.txt")
for k in $(has console); do
    check "the console's table has a $(name_of "$k") column" sh -c "echo '$heads' | grep -qw -- '$(name_of "$k")'"
done
# the stream: every timer event carries exactly the stream's figures
for k in $(has stream); do
    check "stream: $k in every timer event" \
        [ "$(jq -s --arg k "$k" '[.[] | select(.type == "timer") | has($k)] | all' "$TMP/s.jsonl")" = true ]
done
for k in $(hasnot stream); do
    check "stream: no $k (the table does not flag it)" \
        [ "$(jq -s --arg k "$k" '[.[] | select(.type == "timer") | has($k)] | any' "$TMP/s.jsonl")" = false ]
done
# ... equal to summary.json's interval rows; intervals.csv's to the 3 decimals it keeps
for k in $(has stream); do
    diff=$(jq -s --arg k "$k" --slurpfile s "$S" '[.[] | select(.type == "timer" and .timer == "All Transactions")
        | . as $e | ($s[0].timers[] | select(.name == "All Transactions") | .intervals[$e.interval][$k]) as $v
        | select(if $v == null or $e[$k] == null then $v != $e[$k]
                 else ($v - $e[$k]) as $d | (if $d < 0 then -$d else $d end) > 1e-9 * ((if $v < 0 then -$v else $v end) + 1)
                 end)] | length' "$TMP/s.jsonl")
    # (summary.json keeps 10 significant digits, the stream 15)
    check "stream: $k equals summary.json's in every interval of All Transactions" [ "$diff" = 0 ]
done
col() { awk -F, -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) n = i; next } $4 == "\"All Transactions\"" { print $n }' "$TMP/r/intervals.csv"; }
for k in $(has csv); do
    jq -r --arg k "$k" '.timers[] | select(.name == "All Transactions") | .intervals[] | .[$k]' "$S" > "$TMP/want"
    col "$k" > "$TMP/got"
    check "intervals.csv: $k equals summary.json's (to 0.001)" \
        awk 'NR == FNR { w[FNR] = $1; next } { d = $1 - w[FNR]; if (d < 0) d = -d; if (d > 0.0006) bad = 1 } END { exit bad || FNR == 0 }' \
        "$TMP/want" "$TMP/got"
done
# interval bounds, one rule (agg_interval_bounds): in the stream, an interval's
# events (its timers' and its own) end at the same time, its end_s is
# intervals.csv's, and the last one ends with sampling, not at k+1 intervals
check "bounds: each interval's stream events end at one time" [ "$(jq -s '[.[] | select(.type == "timer" or .type == "interval")]
    | group_by(.interval) | map(map(.time) | unique | length == 1) | all' "$TMP/s.jsonl")" = true ]
jq -r 'select(.type == "interval") | .end_s' "$TMP/s.jsonl" > "$TMP/ends_stream"
awk -F, '$4 == "\"All Transactions\"" { print $3 }' "$TMP/r/intervals.csv" > "$TMP/ends_csv"
check "bounds: the stream's end_s are intervals.csv's" \
    awk 'NR == FNR { w[FNR] = $1; next } { d = $1 - w[FNR]; if (d < 0) d = -d; if (d > 0.0006) bad = 1 } END { exit bad || FNR == 0 }' \
    "$TMP/ends_stream" "$TMP/ends_csv"
# Prometheus: a quantile gauge per figure flagged prometheus, of the interval and of the run
for k in $(has prometheus); do
    pct=$(jq -r --arg k "$k" '.[] | select(.key == $k) | .q' "$TMP/figs.json")
    qq=$(awk -v p="$pct" 'BEGIN { printf "%g", p / 100 }')
    check "Prometheus: the interval's $k (quantile $qq)" \
        [ "$(q "count(luamech_interval_latency_seconds{run_id=\"r\",quantile=\"$qq\"})")" != none ]
    run=$(q "luamech_run_latency_seconds{run_id=\"r\",timer=\"All Transactions\",view=\"default\",quantile=\"$qq\"}")
    want=$(jq -r --arg k "$k" '.timers[] | select(.name == "All Transactions") | .summary[$k]' "$S")
    check "Prometheus: the run's $k ($run s) is summary.json's ($want ms)" \
        awk -v a="$run" -v b="$want" 'BEGIN { d = a * 1000 - b; if (d < 0) d = -d; exit !(a != "none" && d < 0.0011) }'
done
# report.html: its tables' heads, and the table its JavaScript reads
H=$TMP/r/report.html
for k in $(jq -r '.[] | select((.outputs | index("html")) and .unit == "ms") | .key' "$TMP/figs.json"); do
    check "report.html's tables have a $(name_of "$k") column" grep -q "<th>$(name_of "$k")</th>" "$H"
done
embedded=$(grep -o 'var LM_FIGURES = .*;$' "$H" | sed 's/^var LM_FIGURES = //; s/;$//' | jq -c .)
check "report.html embeds the same figures table" [ "$embedded" = "$(jq -c . "$TMP/figs.json")" ]
# the dashboard, in Chromium: the timer table's heads and the latency chart's lines
if [ -x "$CHROMIUM" ] && node --experimental-websocket -e 'process.exit(typeof WebSocket === "function" ? 0 : 1)' 2> /dev/null; then
    mkdir -p "$TMP/chrome"
    timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
        --disable-component-update --disable-sync --remote-allow-origins='*' --user-data-dir="$TMP/chrome" \
        --window-size=1200,1300 --remote-debugging-port=0 "$URL" > /dev/null 2>&1 &
    PIDS+=($!)
    timeout 110 node --experimental-websocket "$F/cdp_watch.js" "$TMP/chrome" "$URL" 60 > "$TMP/cdp.txt" 2>&1
    last=$(grep '"done":true' "$TMP/cdp.txt" | tail -1 | jq -c .last)
    [ -n "$last" ] || cat "$TMP/cdp.txt"
    for k in $(jq -r '.[] | select((.outputs | index("dashboard")) and .unit == "ms") | .key' "$TMP/figs.json"); do
        n=$(name_of "$k")
        check "dashboard: the timer table has a '$n ms' column" [ "$(echo "$last" | jq --arg h "$n ms" '.heads | index($h) != null')" = true ]
        pct=$(jq -r --arg k "$k" '.[] | select(.key == $k) | .q' "$TMP/figs.json")
        if awk -v p="$pct" 'BEGIN { exit !(p > 0 && p < 100) }'; then
            check "dashboard: the latency chart has a $n line" \
                [ "$(echo "$last" | jq --arg n "$n" '[.series[] | select(startswith("c-lat:" + $n + ":"))] | length')" = 1 ]
        fi
    done
    check "dashboard: no script error" [ "$(echo "$last" | jq -r .errors)" = "" ]
    DASH_P80=$(echo "$last" | jq '.heads | index("p80 ms") != null')
else
    echo "SKIP: chromium or node --experimental-websocket missing: the dashboard is not checked in a browser"
    DASH_P80=true
fi
kill -INT "$pid" 2> /dev/null
wait "$pid"
check "the run's exit code is 0" [ $? -eq 0 ]

# p80, missing from the live outputs before the table carried it there
check "p80: in the stream's timer events" \
    [ "$(jq -s '[.[] | select(.type == "timer") | has("p80_ms")] | all' "$TMP/s.jsonl")" = true ]
check "p80: a Prometheus quantile gauge" [ "$(q 'count(luamech_interval_latency_seconds{run_id="r",quantile="0.8"})')" != none ]
check "p80: a column of the dashboard's timer table" [ "$DASH_P80" = true ]
finish
