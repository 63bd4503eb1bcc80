# Custom metrics (luamech.metrics.counter/gauge/rate): what the script
# recorded equals what memcached counted, in summary.json, the console and
# counters.csv; thresholds on them pass and fail as the figures say.  A
# counter is what it was made as, whatever its name: a script's counters
# named like the engine's, a gauge's or a check's stay plain counters (the
# reports read the counter's kind, not its name: summary.json's "kind",
# read by report.html and merge, which also carries gauges and rates).
. "$(dirname "$0")/lib.sh"
F=$SRC/tests/scenarios/fixtures
start_memcached PORT
h0=$(mc_stat "$PORT" get_hits); m0=$(mc_stat "$PORT" get_misses); s0=$(mc_stat "$PORT" cmd_set)
"$LUAMECH" run "$F/metrics.lua" -q -n 600 --verbose -e MEMCACHED=127.0.0.1:$PORT -o "$TMP/r1" > "$TMP/out1" 2>&1
rc=$?
check "the run exits 0 (got $rc)" [ $rc -eq 0 ]
S=$TMP/r1/summary.json
hits=$(( $(mc_stat "$PORT" get_hits) - h0 )); misses=$(( $(mc_stat "$PORT" get_misses) - m0 ))
sets=$(( $(mc_stat "$PORT" cmd_set) - s0 ))
check "600 gets reached the server ($hits hits, $misses misses)" [ $((hits + misses)) -eq 600 ]
check "rate true = the server's hits ($hits)" [ "$(jq '.rates[] | select(.name=="cache_hit") | .true' "$S")" -eq "$hits" ]
check "rate false = the server's misses ($misses)" [ "$(jq '.rates[] | select(.name=="cache_hit") | .false' "$S")" -eq "$misses" ]
check "the rate's intervals add up to its totals" \
    [ "$(jq '[.rates[] | select(.name=="cache_hit") | .intervals[][]] | add' "$S")" -eq 600 ]
check "counter = the server's sets ($sets)" \
    [ "$(jq '.counters[] | select(.name=="sets_done") | .total' "$S")" -eq "$sets" ]
check "gauge: 5 VUs on 2 workers added 1 each" [ "$(jq '.gauges[] | select(.name=="vus_ready") | .value' "$S")" -eq 5 ]
check "thresholds on the three metrics measured and passed" \
    [ "$(jq '[.thresholds[] | select(.passed)] | length' "$S")" -eq 3 ]
pct=$(jq '.thresholds[0].measured' "$S")
check "the rate threshold measured hits/600 ($pct %)" awk "BEGIN{exit !(($pct - 100 * $hits / 600)^2 < 1e-6)}"
check "the console shows the rate" grep -qE "^cache_hit +$hits +$misses " "$TMP/out1"
check "the console shows the gauge" grep -qE "^vus_ready +5 " "$TMP/out1"
check "report.html lists the rate" \
    grep -q '<td class="l">cache_hit</td><td>'"$hits"'</td><td>'"$misses"'</td>' "$TMP/r1/report.html"
check "report.html lists the gauge" grep -q '<td class="l">vus_ready</td><td>5</td>' "$TMP/r1/report.html"
check "counters.csv has the rate's counts" grep -q '"rate.true cache_hit"' "$TMP/r1/counters.csv"

# a failing threshold on the rate: exit 6
printf "flush_all\r\n" > "/dev/tcp/127.0.0.1/$PORT"; sleep 1.1
"$LUAMECH" run "$F/metrics.lua" -q -n 100 -e HIT_MIN=99.9 -e MEMCACHED=127.0.0.1:$PORT -o "$TMP/r2" > "$TMP/out2" 2>&1
rc=$?
check "a failed rate threshold exits 6 (got $rc)" [ $rc -eq 6 ]
check "...the rate one, the others passed" [ "$(jq -c '[.thresholds[].passed]' "$TMP/r2/summary.json")" = "[false,true,true]" ]

# a metric that never moved measures 0 (it exists): "sets_done count < N"
# passes on a run with no misses at all
exec 3<>"/dev/tcp/127.0.0.1/$PORT"
for i in $(seq 1 50); do printf 'set m:%d 0 0 1 noreply\r\nx\r\n' "$i" >&3; done
printf 'get m:50\r\n' >&3; IFS= read -r -t 2 _ <&3; exec 3<&- 3>&-
"$LUAMECH" run "$F/metrics.lua" -q -n 20 -e MEMCACHED=127.0.0.1:$PORT -o "$TMP/r4" > "$TMP/out4" 2>&1
check "a warm cache run: no sets, the counter threshold measured 0 and passed" \
    [ "$(jq -c '.thresholds[1] | [.measured, .passed]' "$TMP/r4/summary.json")" = "[0,true]" ]

# counters named like other kinds' are the script's counters all the same
cat > "$TMP/look_vu.lua" <<'LUA'
local names = { "engine.mine", "gauge lookalike", "check.pass lookalike", "rate.true lookalike" }
local cs = {}
for i, n in ipairs(names) do cs[i] = luamech.metrics.counter(n) end
return function() for _, c in ipairs(cs) do c:add(3) end end
LUA
printf 'return { groups = { { vus = 1, script = "look_vu.lua" } } }\n' > "$TMP/look.lua"
"$LUAMECH" run "$TMP/look.lua" -q -n 1 -w 1 --verbose -o "$TMP/r5" > "$TMP/out5" 2>&1
rc=$?
check "lookalike counters: the run exits 0 (got $rc)" [ $rc -eq 0 ]
for n in "engine.mine" "gauge lookalike" "check.pass lookalike" "rate.true lookalike"; do
    check "'$n' is a counter of summary.json (total 3)" \
        [ "$(jq --arg n "$n" '[.counters[] | select(.name==$n) | .total] | add' "$TMP/r5/summary.json")" = 3 ]
    check "'$n' is in the console's Counters table" grep -qE "^$n +3 " "$TMP/out5"
done
check "...and no gauge, check or rate" \
    [ "$(jq '[.gauges[]?, .checks[]?, .rates[]?] | length' "$TMP/r5/summary.json")" -eq 0 ]
check "summary.json says each counter's kind: 'engine.mine' is plain" \
    [ "$(jq -r '.counters[] | select(.name=="engine.mine") | .kind' "$TMP/r5/summary.json")" = plain ]
check "report.html lists 'check.pass lookalike' as a counter (it reads the kind)" \
    grep -q '<td class="l">check.pass lookalike</td><td>3</td>' "$TMP/r5/report.html"

# merge keeps every kind: counters by their kind field, gauges and rates
# summed over the segments (docs/distributed.md)
cat > "$TMP/seg_vu.lua" <<'LUA'
local mine, level = luamech.metrics.counter("engine.mine"), luamech.metrics.gauge("level")
local hit = luamech.metrics.rate("hit")
level:add(1)
-- a sleep: the run lasts long enough for the engine's CPU counters to move
return function() mine:add(3); hit:add(true); hit:add(false); hit:add(false); luamech.sleep(0.3) end
LUA
printf 'return { groups = { { vus = 2, script = "seg_vu.lua" } } }\n' > "$TMP/seg.lua"
for i in 1 2; do
    "$LUAMECH" run "$TMP/seg.lua" -q -n 4 -w 1 --segment $i/2 -o "$TMP/seg-$i" > "$TMP/seg$i.out" 2>&1
    check "segment $i/2 exits 0 ($?)" [ $? -eq 0 ]
done
"$LUAMECH" merge "$TMP"/seg-? --out "$TMP/merged" > "$TMP/merge.out" 2>&1
check "merge exits 0 ($?)" [ $? -eq 0 ]
M=$TMP/merged/summary.json
check "merged 'engine.mine' is still a plain counter of 4 x 3" \
    [ "$(jq -c '.counters[] | select(.name=="engine.mine") | [.kind, .total]' "$M")" = '["plain",12]' ]
check "the segments' engine.cpu_us is of kind engine" \
    [ "$(jq -r '.counters[] | select(.name=="engine.cpu_us") | .kind' "$TMP/seg-1/summary.json")" = engine ]
check "...and stays so merged" [ "$(jq -r '.counters[] | select(.name=="engine.cpu_us") | .kind' "$M")" = engine ]
check "merged gauge = the segments' levels summed (2 VUs added 1 each)" \
    [ "$(jq '.gauges[] | select(.name=="level") | .value' "$M")" = 2 ]
check "merged rate = the segments' trues and falses summed (4 and 8)" \
    [ "$(jq -c '.rates[] | select(.name=="hit") | [.true, .false]' "$M")" = '[4,8]' ]
check "merged rate's intervals add up to its totals" [ "$(jq '[.rates[] | select(.name=="hit") | .intervals[][]] | add' "$M")" = 12 ]

# bad use: one clear message
cat > "$TMP/bad_vu.lua" <<'LUA'
local c = luamech.counter("c")
c:add(-1)
return function() end
LUA
printf 'return { groups = { { vus = 1, script = "bad_vu.lua" } } }\n' > "$TMP/bad.lua"
"$LUAMECH" run "$TMP/bad.lua" -q -n 1 -o "$TMP/r3" > "$TMP/out3" 2>&1
rc=$?
check "a negative counter add fails the init (exit 4, got $rc)" [ $rc -eq 4 ]
check "...saying a counter only grows" grep -q "a counter only grows" "$TMP/out3"
finish
