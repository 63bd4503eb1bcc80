# --stream json=FILE|-: JSON lines written as the run goes (read here while
# it runs), whose per-interval counts add up to summary.json's totals and to
# what memcached counted; a reader that never reads does not slow the run;
# bad --stream values are refused before any load (exit 2); a FIFO without
# a reader is waited for at most 10 s, then refused (exit 2).
. "$(dirname "$0")/lib.sh"
F=$SRC/tests/scenarios/fixtures
# The sanitizer build's generator and main thread are several times slower:
# there the on-time margin is 10 s more and the rate is not compared (as in
# test_load_models.sh); the normal build keeps the tight checks.
SANITIZED=0
ldd "$LUAMECH" 2>/dev/null | grep -q libasan && SANITIZED=1
SLACK_MS=$(( SANITIZED * 10000 ))
rate_held() { [ "$SANITIZED" = 1 ] || [ $(( $1 * 2 )) -ge "$2" ]; }
start_memcached MC
gets0=$(mc_stat "$MC" cmd_get)

# 1. A file, read while the run goes.
"$LUAMECH" run "$F/compare_kv.lua" -q -d 4s -i 1s -w 1 -e MEMCACHED=127.0.0.1:$MC -o "$TMP/r" \
    --stream json="$TMP/s.jsonl" > "$TMP/out.txt" 2> "$TMP/err.txt" &
pid=$!
seen=0
for _ in $(seq 80); do
    if [ -f "$TMP/s.jsonl" ] && grep -q '"type":"interval"' "$TMP/s.jsonl"; then
        kill -0 "$pid" 2>/dev/null && seen=1
        break
    fi
    sleep 0.1
done
cp "$TMP/s.jsonl" "$TMP/early.jsonl" 2>/dev/null
wait "$pid"
rc=$?
check "run exits 0" [ "$rc" -eq 0 ]
check "an interval's lines were there while the run still went" [ "$seen" -eq 1 ]
check "... and no end event yet then" [ "$(grep -c '"type":"end"' "$TMP/early.jsonl")" -eq 0 ]
s=$TMP/r/summary.json
j=$TMP/s.jsonl
check "every line is JSON of schema v2" [ "$(jq -c 'select(.v == 2)' "$j" | wc -l)" -eq "$(wc -l < "$j")" ]
check "one start event first" [ "$(head -1 "$j" | jq -r .type)" = start ]
check "one end event last, completed" [ "$(tail -1 "$j" | jq -r '.type + " " + .status')" = "end completed" ]
check "run_id is the results directory's name" [ "$(jq -r .run_id "$j" | sort -u)" = r ]
n_iv=$(jq -s '[.[] | select(.type == "interval")] | length' "$j")
check "one interval event per interval of summary.json" [ "$n_iv" -eq "$(jq '.timers[] | select(.name == "All Transactions") | .intervals | length' "$s")" ]
check "one timer object per interval per timer" [ "$(jq -s '[.[] | select(.type == "timer" and .timer == "All Transactions")] | length' "$j")" -eq "$n_iv" ]
stream_tx=$(jq -s '[.[] | select(.type == "timer" and .timer == "All Transactions") | .count] | add' "$j")
sum_tx=$(timer_count "$s" "All Transactions")
gets=$(( $(mc_stat "$MC" cmd_get) - gets0 ))
echo "stream $stream_tx, summary $sum_tx, memcached gets $gets"
check "the intervals' counts add up to summary.json's" [ "$stream_tx" -eq "$sum_tx" ]
check "... and to the gets memcached counted" [ "$stream_tx" -eq "$gets" ]
check "the end event's totals are summary.json's" [ "$(jq -s '.[-1].totals[] | select(.timer == "All Transactions") | .count' "$j")" -eq "$sum_tx" ]
check "interval events carry active VUs and targets" [ "$(jq -s '[.[] | select(.type == "interval") | select(.active_vus == 2 and .targets.kv == 2)] | length' "$j")" -ge 1 ]

# 2. Standard output: the stream alone on stdout, the end report on stderr.
"$LUAMECH" run "$F/compare_kv.lua" -q -d 1s -w 1 -e MEMCACHED=127.0.0.1:$MC -o "$TMP/r2" --stream json=- \
    > "$TMP/stdout.jsonl" 2> "$TMP/err2.txt"
check "json=-: exits 0" [ $? -eq 0 ]
check "json=-: stdout is only JSON lines" jq -e . "$TMP/stdout.jsonl" > /dev/null
check "json=-: the end report went to stderr" grep -q "All Transactions" "$TMP/err2.txt"

# 3. A reader that never reads: the pipe fills, lines drop, the run ends on
# time: within 10 s of the same run without a stream (the close gives up
# on a writer stuck for 0.5 s; the rest is the loaded machine's noise: two
# 5 s runs on a busy machine differ by seconds).  A writer that waited for
# the reader would end the run when the reader goes, after 60 s.
t0=$(date +%s%N)
"$LUAMECH" run "$F/compare_kv.lua" -q -d 5s -i 100ms -w 1 -e MEMCACHED=127.0.0.1:$MC -o "$TMP/r0" > /dev/null 2>&1
base_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
t0=$(date +%s%N)
( "$LUAMECH" run "$F/compare_kv.lua" -q -d 5s -i 100ms -w 1 -e MEMCACHED=127.0.0.1:$MC -o "$TMP/r3" \
    --stream json=- 2> "$TMP/err3.txt"; echo $? > "$TMP/rc3" ) | sleep 60 &
spid=$!
for _ in $(seq 600); do [ -f "$TMP/rc3" ] && break; sleep 0.1; done
t1=$(date +%s%N)
kill "$spid" 2>/dev/null
el_ms=$(( (t1 - t0) / 1000000 ))
echo "never-read reader: run took $el_ms ms, without the stream $base_ms ms; $(grep stream "$TMP/err3.txt")"
check "never-read reader: the run exits 0" [ "$(cat "$TMP/rc3" 2>/dev/null)" = 0 ]
check "never-read reader: it ends on time (within 10 s of the run without it, not with the reader at 60 s)" \
    [ "$el_ms" -lt $(( base_ms + 10000 + SLACK_MS )) ]
check "never-read reader: dropped lines are reported" grep -q "line(s) dropped" "$TMP/err3.txt"
tx3=$(timer_count "$TMP/r3/summary.json" "All Transactions")
tx0=$(timer_count "$TMP/r0/summary.json" "All Transactions")
check "never-read reader: the rate held (at least half the run's without it)" rate_held "$tx3" "$tx0"

# 4. Counter kinds: each interval event's counter_kinds names the kind of
# every counter in its counters (summary.json's kinds: the kind a counter was
# made as, not read from its name; checks, gauges and rates, which
# summary.json lists apart, by the kind counters.csv's names stand for).
"$LUAMECH" run "$F/stream_kinds.lua" -q -d 2s -i 1s -w 1 -e MEMCACHED=127.0.0.1:$MC -o "$TMP/k" \
    --stream json="$TMP/k.jsonl" > /dev/null 2> "$TMP/k.txt"
check "kinds: exits 0" [ $? -eq 0 ]
kj=$TMP/k.jsonl
kind_of() { jq -rs --arg n "$1" '[.[] | select(.type == "interval")][-1].counter_kinds[$n] // "none"' "$kj"; }
check "kinds: every interval event has counter_kinds" \
    [ "$(jq -s '[.[] | select(.type == "interval" and (.counter_kinds | type) == "object")] | length' "$kj")" -eq "$(jq -s '[.[] | select(.type == "interval")] | length' "$kj")" ]
check "kinds: every counter of every interval has its kind" \
    [ "$(jq -s '[.[] | select(.type == "interval") | ((.counters | keys) - (.counter_kinds | keys)) | length] | add' "$kj")" -eq 0 ]
nsum=$(jq '[.counters[] | select(.kind != null)] | length' "$TMP/k/summary.json")
same=$(jq -s --slurpfile s "$TMP/k/summary.json" '([.[] | select(.type == "interval")][-1].counter_kinds) as $k
    | [$s[0].counters[] | select($k[.name] == .kind)] | length' "$kj")
echo "kinds: $same of summary.json's $nsum counters with the same kind in the stream"
check "kinds: summary.json lists the plain and engine counters" [ "$nsum" -ge 3 ]
check "kinds: ... each with the same kind in the stream" [ "$same" -eq "$nsum" ]
check "kinds: a plain counter named engine.* is plain" [ "$(kind_of engine.not_ours)" = plain ]
check "kinds: a plain counter named 'gauge x' is plain" [ "$(kind_of "gauge x")" = plain ]
check "kinds: the engine's own counter" [ "$(kind_of engine.cpu_us)" = engine ]
check "kinds: a gauge" [ "$(kind_of "gauge level")" = gauge ]
check "kinds: a rate's trues and falses" [ "$(kind_of "rate.true hit") $(kind_of "rate.false hit")" = "rate_true rate_false" ]
check "kinds: a check's passes and failures" [ "$(kind_of "check.pass read back") $(kind_of "check.fail always fails")" = "check_pass check_fail" ]

# 5. Views (schema 2): one timer object per timer family, its other views
# nested under "views", so summing "count" over the stream counts each sample
# once (in schema 1 a rate group with failures had three objects per timer,
# "X", "X (uncorrected)" and "X (all)", and the obvious sum was 3x).  A rate
# group (timed from the intended start: an uncorrected view) failing one
# transaction in four (an "all" view); no server.
"$LUAMECH" run "$F/stream_views.lua" -q -w 1 -o "$TMP/v" --stream json="$TMP/v.jsonl" > /dev/null 2> "$TMP/v.txt"
check "views: exits 0" [ $? -eq 0 ]
vj=$TMP/v.jsonl
vs=$TMP/v/summary.json
tx=$(jq '.timers[] | select(.name == "All Transactions") | .summary.count' "$vs")
kind_all=$(jq -s '[.[] | select(.type == "timer" and .kind == "all") | .count] | add' "$vj")
echo "views: summary's transactions $tx; the stream's count over every kind-all timer object $kind_all"
check "views: the sum of count over the kind-all objects is the run's transactions, not 3x" [ "$tx" -gt 0 -a "$kind_all" -eq "$tx" ]
check "views: no timer object is named as a view" \
    [ "$(jq -s '[.[] | select(.type == "timer" and (.timer | test(" \\((uncorrected|all)\\)$")))] | length' "$vj")" -eq 0 ]
for v in uncorrected all; do
    nested=$(jq -s --arg v "$v" '[.[] | select(.type == "timer" and .timer == "op") | .views[$v].count] | add' "$vj")
    flat=$(jq --arg v "$v" '.timers[] | select(.name == "op") | .views[$v].summary.count // empty' "$vs")
    check "views: op's $v view, interval by interval, adds up to summary.json's ($nested, $flat)" [ -n "$flat" -a "$nested" = "$flat" ]
    check "views: the end totals nest op's $v view as summary.json does" \
        [ "$(jq -s --arg v "$v" '.[-1].totals[] | select(.timer == "op") | .views[$v].p99_ms' "$vj")" = \
          "$(jq --arg v "$v" '.timers[] | select(.name == "op") | .views[$v].summary.p99_ms' "$vs")" ]
done
check "views: engine timers have no other view" [ "$(jq -s '[.[] | select(.type == "timer" and .kind == "engine" and has("views"))] | length' "$vj")" -eq 0 ]

# 6. Bad values: one message, exit 2, no load.
gets1=$(mc_stat "$MC" cmd_get)
"$LUAMECH" run "$F/compare_kv.lua" -q -d 1s -e MEMCACHED=127.0.0.1:$MC -o "$TMP/b1" --stream influx=x > /dev/null 2> "$TMP/b1.txt"
check "unknown kind: exit 2" [ $? -eq 2 ]
check "unknown kind: says what is expected" grep -q "expected json=FILE, json=- or prometheus=URL" "$TMP/b1.txt"
"$LUAMECH" run "$F/compare_kv.lua" -q -d 1s -e MEMCACHED=127.0.0.1:$MC -o "$TMP/b2" --stream json="$TMP/no/such/dir/x" > /dev/null 2> "$TMP/b2.txt"
check "unwritable file: exit 2" [ $? -eq 2 ]
check "unwritable file: names it" grep -q "no/such/dir/x: cannot open it" "$TMP/b2.txt"
# A FIFO that nobody reads: it used to block the start for ever, silently.
# Now one message, a wait of at most 10 s for a reader, then exit 2.
mkfifo "$TMP/nobody"
t0=$(date +%s%N)
timeout 60 "$LUAMECH" run "$F/compare_kv.lua" -q -d 1s -e MEMCACHED=127.0.0.1:$MC -o "$TMP/b3" --stream json="$TMP/nobody" \
    > /dev/null 2> "$TMP/b3.txt"
rc=$?
el_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
echo "FIFO without a reader: exit $rc after $el_ms ms: $(tr '\n' ' ' < "$TMP/b3.txt")"
check "FIFO without a reader: exit 2 (not blocked: 124 is the timeout)" [ $rc -eq 2 ]
check "FIFO without a reader: says it waits" grep -q "nobody: a FIFO that no process reads yet: waiting up to 10 s for a reader" "$TMP/b3.txt"
check "FIFO without a reader: then why it gives up" grep -q "nobody: no process opened the FIFO for reading within 10 s" "$TMP/b3.txt"
check "FIFO without a reader: within 10 to 15 s" [ "$el_ms" -ge 10000 -a "$el_ms" -lt 15000 ]
check "no load was sent for the bad values" [ "$(mc_stat "$MC" cmd_get)" -eq "$gets1" ]

# A FIFO whose reader comes 1 s after luamech started: the run goes, the
# reader gets the whole stream.
mkfifo "$TMP/late"
(sleep 1; cat "$TMP/late" > "$TMP/late.jsonl") &
PIDS+=($!)
timeout 60 "$LUAMECH" run "$F/compare_kv.lua" -q -d 1s -i 500ms -e MEMCACHED=127.0.0.1:$MC -o "$TMP/b4" --stream json="$TMP/late" \
    > /dev/null 2> "$TMP/b4.txt"
check "FIFO with a late reader: exit 0" [ $? -eq 0 ]
wait "${PIDS[-1]}"
check "FIFO with a late reader: it got the whole stream" [ "$(tail -1 "$TMP/late.jsonl" | jq -r .type)" = end ]
finish
