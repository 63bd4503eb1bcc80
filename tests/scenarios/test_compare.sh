# luamech compare A B: two results directories written here by hand with
# known numbers; checks the printed figures and percentages (B vs A), timers
# present on one side only, engine timers only with --all, --timer, --fail-if
# both ways (exit 1 / 0) with the regressed timer and figure named, zero
# bases (n/a), --json, a phased top directory compared phase by phase, and
# the usage (2) and missing/invalid file (3) errors.
# Then absolute limits (p95>+2ms, rate<-500/s, errors>+2) and floors on the
# same files; views (schema-1 twins and a schema-2 file written here: only
# the default view by default, --view, --view every, --timer 'X (all)', a
# view on one side only, --fail-if per view, sets); and real runs against memcached (compare_kv.lua; OPS=200 is a
# real regression: 200 round trips per transaction instead of 1): two runs of
# the same scenario do not fail absolute or floored gates, the regression
# does; sets of runs (A1 A2 A3 -- B1 B2 B3): medians checked against jq's
# median of the runs' own figures, the Mann-Whitney p of fully separated
# sets (1/20 for 3+3, 1/70 for 4+4), sets made from a real run's
# summary.json with chosen p95s (past the limit but not significant: exit 0;
# significant: exit 1), too few runs, --alpha and the usage errors.
. "$(dirname "$0")/lib.sh"

# timer NAME KIND COUNT ERRORS RATE P50 P95 P99 MAX AVG: one timers[] entry
timer() {
    printf '    {"name": "%s", "kind": "%s", "latency_from": "intended start",\n' "$1" "$2"
    printf '     "summary": {"count": %s, "errors": %s, "period_s": 60.0, "rate": %s, "min_ms": 0.05,\n' "$3" "$4" "$5"
    printf '       "avg_ms": %s, "p50_ms": %s, "p80_ms": %s, "p90_ms": %s, "p95_ms": %s, "p99_ms": %s,\n' \
        "${10}" "$6" "$6" "$7" "$7" "$8"
    printf '       "p99_9_ms": %s, "max_ms": %s, "stdev_ms": 0.1},\n' "$9" "$9"
    printf '     "intervals": []}'
}
# summary FILE SCENARIO TIMER...: a summary.json with those timers
summary() {
    local f=$1 name=$2 sep=""
    shift 2
    mkdir -p "$(dirname "$f")"
    {
        printf '{\n  "schema_version": 1, "tool": "luamech", "version": "0.1.0", "scenario": "%s",\n' "$name"
        printf '  "scenario_file": "%s.lua", "exit_code": 0, "status": "completed", "run_time_s": 60.0,\n' "$name"
        printf '  "timers": [\n'
        for t in "$@"; do printf '%s%s' "$sep" "$t"; sep=$',\n'; done
        printf '\n  ],\n  "errors": []\n}\n'
    } > "$f"
}

A=$TMP/bare
B=$TMP/vm
#                              count errors rate    p50   p95   p99  max  avg
summary "$A/summary.json" bare \
    "$(timer 'All Transactions' all 60000 0 1000 0.2 1.0 2.0 10 0.4)" \
    "$(timer 'GET' custom 30000 0 500 0.1 0.8 1.6 5 0.2)" \
    "$(timer 'SET' custom 30000 0 500 0.1 0.8 1.6 5 0.2)" \
    "$(timer 'memcached.get' primitive 30000 0 500 0.05 0.4 0.9 4 0.1)" \
    "$(timer 'engine.loop_lag' engine 600 0 10 0.01 0.02 0.05 1 0.01)"
summary "$B/summary.json" vm \
    "$(timer 'All Transactions' all 57000 3 950 0.25 1.25 2.2 8 0.5)" \
    "$(timer 'GET' custom 31200 0 520 0.1 0.84 1.6 5 0.2)" \
    "$(timer 'memcached.get' primitive 30000 0 500 0.05 0.4 0.9 4 0.1)" \
    "$(timer 'engine.loop_lag' engine 600 0 10 0.01 0.04 0.05 1 0.01)" \
    "$(timer 'DEL' custom 100 0 1.5 0.1 0.2 0.3 1 0.1)"

# block FILE TIMER: the lines of that timer's table (up to the next blank line)
block() { awk -v h="$2 (" 'index($0, h) == 1 || index($0, "  " h) == 1 { on = 1; next } on && NF == 0 { exit } on' "$1"; }
# row FILE TIMER FIGURE: that figure's row in the timer's table, spaces squeezed
row() { block "$1" "$2" | awk -v f="$3" '$1 == f' | tr -s ' ' | sed 's/^ //'; }

"$LUAMECH" compare "$A" "$B" > "$TMP/out" 2> "$TMP/err"
rc=$?
check "compare exits 0 without --fail-if (got $rc: $(head -c 300 "$TMP/err"))" [ $rc -eq 0 ]
O=$TMP/out
check "header names A's summary.json" grep -q "^A: $A/summary.json (scenario bare" "$O"
check "header names B's summary.json" grep -q "^B: $B/summary.json (scenario vm" "$O"
check "rate row: 1000.00 950.00 -5.0% ($(row "$O" 'All Transactions' rate/s))" \
    [ "$(row "$O" 'All Transactions' rate/s)" = "rate/s 1000.00 950.00 -5.0%" ]
check "count row: 60000 57000 -5.0%" [ "$(row "$O" 'All Transactions' count)" = "count 60000 57000 -5.0%" ]
check "errors 0 -> 3: n/a, not inf ($(row "$O" 'All Transactions' errors))" \
    [ "$(row "$O" 'All Transactions' errors)" = "errors 0 3 n/a" ]
check "p50 row: +25.0%" [ "$(row "$O" 'All Transactions' p50)" = "p50 0.200 0.250 +25.0%" ]
check "p95 row: +25.0% ($(row "$O" 'All Transactions' p95))" \
    [ "$(row "$O" 'All Transactions' p95)" = "p95 1.000 1.250 +25.0%" ]
check "p99 row: +10.0%" [ "$(row "$O" 'All Transactions' p99)" = "p99 2.000 2.200 +10.0%" ]
check "max row: -20.0%" [ "$(row "$O" 'All Transactions' max)" = "max 10.000 8.000 -20.0%" ]
check "avg row: +25.0%" [ "$(row "$O" 'All Transactions' avg)" = "avg 0.400 0.500 +25.0%" ]
check "GET rate +4.0%" [ "$(row "$O" GET rate/s)" = "rate/s 500.00 520.00 +4.0%" ]
check "GET p95 +5.0%" [ "$(row "$O" GET p95)" = "p95 0.800 0.840 +5.0%" ]
check "unchanged figure: 0.0%" [ "$(row "$O" memcached.get p99)" = "p99 0.900 0.900 0.0%" ]
check "eight figures per timer" [ "$(block "$O" 'All Transactions' | grep -cE '^ +(rate/s|count|errors|p50|p95|p99|max|avg) ')" -eq 8 ]
check "columns aligned: every row of a table has the same length" \
    [ "$(block "$O" 'All Transactions' | awk '{ print length($0) }' | sort -u | wc -l)" -eq 1 ]
check "timers of both kinds all/custom/primitive compared" grep -q '^memcached.get (primitive)$' "$O"
check "SET listed as only in A" [ "$(sed -n '/^only in A:/,/^$/p' "$O" | grep -c 'SET (custom)')" -eq 1 ]
check "DEL listed as only in B" [ "$(sed -n '/^only in B:/,/^$/p' "$O" | grep -c 'DEL (custom)')" -eq 1 ]
not_grep() { ! grep "$@"; }
check "engine timers left out by default" not_grep -q engine.loop_lag "$O"
check "no verdict line without --fail-if" not_grep -qE '^(ok|REGRESSION)' "$O"

"$LUAMECH" compare "$A" "$B" --all > "$TMP/all" 2>&1
check "--all: exit 0" [ $? -eq 0 ]
check "--all: engine.loop_lag compared, p95 +100.0%" [ "$(row "$TMP/all" engine.loop_lag p95)" = "p95 0.020 0.040 +100.0%" ]

# summary.json files instead of directories, and a trailing slash
"$LUAMECH" compare "$A/summary.json" "$B/" > "$TMP/files" 2>&1
check "summary.json paths: exit 0" [ $? -eq 0 ]
check "summary.json paths: same p95 row" [ "$(row "$TMP/files" 'All Transactions' p95)" = "p95 1.000 1.250 +25.0%" ]

# --timer: only the named timers
"$LUAMECH" compare "$A" "$B" --timer GET --timer=SET > "$TMP/t" 2>&1
check "--timer: exit 0" [ $? -eq 0 ]
check "--timer: GET compared" grep -q '^GET (custom)$' "$TMP/t"
check "--timer: SET listed as only in A" grep -q '  SET (custom)' "$TMP/t"
check "--timer: All Transactions left out" not_grep -q 'All Transactions' "$TMP/t"
check "--timer: DEL left out" not_grep -q DEL "$TMP/t"

# --fail-if, both ways
"$LUAMECH" compare "$A" "$B" --fail-if 'p95>10%' > "$TMP/f1" 2> "$TMP/f1.err"
check "p95 +25% past 'p95>10%': exit 1" [ $? -eq 1 ]
check "names the timer and figure that regressed" \
    grep -q 'timer "All Transactions": p95 +25.00% (A 1.000 ms, B 1.250 ms), past the limit p95>10%' "$TMP/f1"
check "GET's p95 (+5%) is not a regression" not_grep -q 'timer "GET"' "$TMP/f1"
check "exactly one regression" grep -q '^REGRESSION: 1 figure past the limits' "$TMP/f1"
check "the row is marked" grep -qE '^ +p95 .*\+25\.0% +<- past p95>10%$' "$TMP/f1"
check "timers on one side only are said to be unchecked" grep -q 'timer "SET" is only in A: not checked' "$TMP/f1.err"
"$LUAMECH" compare "$A" "$B" --fail-if 'p95>30%' > "$TMP/f2" 2>&1
check "p95 +25% within 'p95>30%': exit 0" [ $? -eq 0 ]
check "ok line" grep -q '^ok: no figure past the limits (p95>30%)' "$TMP/f2"
"$LUAMECH" compare "$A" "$B" --fail-if 'p99>10%' > /dev/null 2>&1
check "p99 exactly +10% is not past 'p99>10%': exit 0" [ $? -eq 0 ]
"$LUAMECH" compare "$A" "$B" --fail-if 'p99>=10%' > /dev/null 2>&1
check "but past 'p99>=10%': exit 1" [ $? -eq 1 ]
"$LUAMECH" compare "$A" "$B" --fail-if 'rate<-5%' > /dev/null 2>&1
check "rate exactly -5% is not past 'rate<-5%': exit 0" [ $? -eq 0 ]
"$LUAMECH" compare "$A" "$B" --fail-if 'rate<-4%' > "$TMP/f3" 2>&1
check "rate -5% past 'rate<-4%': exit 1" [ $? -eq 1 ]
check "names the rate regression" \
    grep -q 'timer "All Transactions": rate -5.00% (A 1000.00/s, B 950.00/s), past the limit rate<-4%' "$TMP/f3"
check "GET's rate went up: not a rate regression" not_grep -q 'timer "GET"' "$TMP/f3"
"$LUAMECH" compare "$A" "$B" --timer GET --fail-if 'p95>10%' > /dev/null 2>&1
check "--timer GET --fail-if 'p95>10%': only GET checked, exit 0" [ $? -eq 0 ]
"$LUAMECH" compare "$A" "$B" --timer GET --fail-if 'p95>4%' > "$TMP/f4" 2>&1
check "--timer GET --fail-if 'p95>4%': exit 1" [ $? -eq 1 ]
check "names GET" grep -q 'timer "GET": p95 +5.00%' "$TMP/f4"
"$LUAMECH" compare "$A" "$B" --fail-if 'errors>1000%' > "$TMP/f5" 2>&1
check "errors 0 -> 3 is past any 'errors>' limit (zero base): exit 1" [ $? -eq 1 ]
check "zero base printed as n/a" grep -q 'timer "All Transactions": errors n/a (A 0, B 3), past the limit errors>1000%' "$TMP/f5"
"$LUAMECH" compare "$A" "$B" --fail-if 'p80>30%' > "$TMP/f6" 2>&1
check "a limit on a figure not shown by default: exit 0" [ $? -eq 0 ]
check "... and its row is added" [ "$(row "$TMP/f6" 'All Transactions' p80)" = "p80 0.200 0.250 +25.0%" ]
"$LUAMECH" compare "$A" "$B" --fail-if 'p95>30%' --fail-if 'max>-10%' > "$TMP/f7" 2>&1
check "several limits: one past is enough, exit 1" [ $? -eq 1 ]
check "'max>-10%' (B's max must be 10% below A's): All Transactions' -20% passes" \
    not_grep -q 'timer "All Transactions": max' "$TMP/f7"
check "... memcached.get's unchanged max (0%) does not" grep -q 'timer "memcached.get": max 0.00%' "$TMP/f7"

# --json
"$LUAMECH" compare "$A" "$B" --json --fail-if 'p95>10%' > "$TMP/j" 2> "$TMP/j.err"
check "--json with a regression: exit 1" [ $? -eq 1 ]
check "--json: valid JSON" jq -e . "$TMP/j" > /dev/null
J=$TMP/j
check "--json: p95 change_pct 25" [ "$(jq '.timers[] | select(.name == "All Transactions") | .figures.p95.change_pct' "$J")" = 25 ]
check "--json: rate a/b" [ "$(jq -c '.timers[] | select(.name == "All Transactions") | .figures.rate | [.a, .b]' "$J")" = "[1000,950]" ]
check "--json: zero base is null" [ "$(jq '.timers[] | select(.name == "All Transactions") | .figures.errors.change_pct' "$J")" = null ]
check "--json: only-in sides" [ "$(jq -c '[.timers[] | select(.in != "both") | [.name, .in]]' "$J")" = '[["SET","a"],["DEL","b"]]' ]
check "--json: regressions" [ "$(jq -c '.regressions | map([.timer, .figure, .limit])' "$J")" = '[["All Transactions","p95","p95>10%"]]' ]
check "--json: regressed true" [ "$(jq '.regressed' "$J")" = true ]
check "--json: the regression also on stderr" grep -q 'timer "All Transactions": p95' "$TMP/j.err"
"$LUAMECH" compare "$A" "$B" --json > "$TMP/j2" 2>&1
check "--json without limits: exit 0, regressed false" [ $? -eq 0 -a "$(jq '.regressed' "$TMP/j2")" = false ]

# a phased run: top directories compared phase by phase, matched by name
mkphased() { # DIR SCENARIO "name:dir" ...
    local d=$1 name=$2 sep="" p
    shift 2
    mkdir -p "$d"
    {
        printf '{"schema_version": 1, "tool": "luamech", "scenario": "%s", "status": "completed", "phases": [' "$name"
        for p in "$@"; do printf '%s{"name": "%s", "dir": "%s"}' "$sep" "${p%%:*}" "${p#*:}"; sep=", "; done
        printf ']}\n'
    } > "$d/summary.json"
}
PA=$TMP/pa
PB=$TMP/pb
mkphased "$PA" kv write:1-write read:2-read
mkphased "$PB" kv read:1-read write:2-write verify:3-verify
summary "$PA/1-write/summary.json" kv "$(timer 'All Transactions' all 1000 0 100 1 2 3 4 1.5)"
summary "$PA/2-read/summary.json" kv "$(timer 'All Transactions' all 1000 0 200 1 2 3 4 1.5)"
summary "$PB/1-read/summary.json" kv "$(timer 'All Transactions' all 1000 0 180 1 2 3 4 1.5)"
summary "$PB/2-write/summary.json" kv "$(timer 'All Transactions' all 1000 0 150 1 2 3 4 1.5)"
"$LUAMECH" compare "$PA" "$PB" > "$TMP/ph" 2>&1
check "phased: exit 0" [ $? -eq 0 ]
phase_rate() { sed -n "/^== phase $2 ==/,/^== /p" "$1" | awk '$1 == "rate/s"' | tr -s ' ' | sed 's/^ //'; }
check "phased: write matched by name (100 -> 150: +50.0%)" [ "$(phase_rate "$TMP/ph" write)" = "rate/s 100.00 150.00 +50.0%" ]
check "phased: read matched by name (200 -> 180: -10.0%)" [ "$(phase_rate "$TMP/ph" read)" = "rate/s 200.00 180.00 -10.0%" ]
check "phased: verify listed as only in B" [ "$(sed -n '/^phases only in B:/,$p' "$TMP/ph" | grep -c '^  verify$')" -eq 1 ]
"$LUAMECH" compare "$PA" "$PB" --fail-if 'rate<-5%' > "$TMP/ph2" 2>&1
check "phased: read -10% past 'rate<-5%': exit 1" [ $? -eq 1 ]
check "phased: names the phase" grep -q 'phase read: timer "All Transactions": rate -10.00%' "$TMP/ph2"
"$LUAMECH" compare "$PA" "$PB" --json > "$TMP/ph3" 2>&1
check "phased --json: per-phase change" \
    [ "$(jq '.phases[] | select(.name == "write") | .timers[0].figures.rate.change_pct' "$TMP/ph3")" = 50 ]
"$LUAMECH" compare "$PA" "$A" > /dev/null 2> "$TMP/err"
check "phased vs single run: exit 3" [ $? -eq 3 ]
check "... naming the phased summary" grep -q "$PA/summary.json is a phased run" "$TMP/err"
rm "$PB/2-write/summary.json"
"$LUAMECH" compare "$PA" "$PB" > /dev/null 2> "$TMP/err"
check "phased: a phase's summary.json missing: exit 3" [ $? -eq 3 ]
check "... the message names it" grep -q "$PB/2-write/summary.json" "$TMP/err"

# missing or invalid inputs: exit 3, the message names the file
"$LUAMECH" compare "$A" "$TMP/nothere" > /dev/null 2> "$TMP/err"
check "missing directory: exit 3" [ $? -eq 3 ]
check "the message names the directory" grep -q "$TMP/nothere" "$TMP/err"
mkdir -p "$TMP/empty"
"$LUAMECH" compare "$TMP/empty" "$B" > /dev/null 2> "$TMP/err"
check "no summary.json: exit 3" [ $? -eq 3 ]
check "the message names summary.json" grep -q "$TMP/empty/summary.json" "$TMP/err"
mkdir -p "$TMP/bad" && echo '{"timers": [' > "$TMP/bad/summary.json"
"$LUAMECH" compare "$A" "$TMP/bad" > /dev/null 2> "$TMP/err"
check "invalid summary.json: exit 3" [ $? -eq 3 ]
check "the message names the file and says why" grep -q "$TMP/bad/summary.json: invalid JSON" "$TMP/err"
mkdir -p "$TMP/other" && echo '{"hello": 1}' > "$TMP/other/summary.json"
"$LUAMECH" compare "$A" "$TMP/other" > /dev/null 2> "$TMP/err"
check "not a luamech summary: exit 3" [ $? -eq 3 ]
check "the message says so" grep -q "$TMP/other/summary.json: not a luamech summary" "$TMP/err"
sed 's/"p95_ms": 1.25,//' "$B/summary.json" > "$TMP/nop95.json"
"$LUAMECH" compare "$A" "$TMP/nop95.json" > /dev/null 2> "$TMP/err"
check "a figure missing: exit 3" [ $? -eq 3 ]
check "the message names the file, timer and field" \
    grep -q "$TMP/nop95.json: timer \"All Transactions\": summary.p95_ms is missing" "$TMP/err"

# usage errors: exit 2
for args in "" "$A" "$A $B $B" "$A $B --bogus" "$A $B --fail-if" "$A $B --timer" \
            "$A $B --fail-if p95>10" "$A $B --fail-if p42>10%" "$A $B --fail-if rate>-5%" \
            "$A $B --fail-if p95<-10%" "$A $B --timer NoSuchTimer"; do
    # shellcheck disable=SC2086
    "$LUAMECH" compare $args > /dev/null 2> "$TMP/err"
    rc=$?
    check "usage error for 'compare $args': exit 2 (got $rc)" [ $rc -eq 2 ]
done
"$LUAMECH" compare "$A" "$B" --fail-if 'rate>-5%' > /dev/null 2> "$TMP/err"
check "wrong-way limit: the message says which way" grep -q "rate<-PCT%" "$TMP/err"
"$LUAMECH" compare "$A" "$B" --timer NoSuchTimer > /dev/null 2> "$TMP/err"
check "unknown --timer: the message names it" grep -q "NoSuchTimer" "$TMP/err"
"$LUAMECH" compare --help > "$TMP/help" 2>&1
check "--help: exit 0 and usage" [ $? -eq 0 -a -n "$(grep 'usage: luamech compare A B' "$TMP/help")" ]

# ---- absolute limits and floors (the files above: p95 1.000 -> 1.250 ms,
# rate 1000 -> 950/s, errors 0 -> 3) ----
"$LUAMECH" compare "$A" "$B" --fail-if 'p95>+0.2ms' > "$TMP/a1" 2>&1
check "p95 +0.25 ms past 'p95>+0.2ms': exit 1" [ $? -eq 1 ]
check "names it, with the absolute limit" \
    grep -q 'timer "All Transactions": p95 +25.00% (A 1.000 ms, B 1.250 ms), past the limit p95>+0.2ms' "$TMP/a1"
"$LUAMECH" compare "$A" "$B" --fail-if 'p95>+0.25ms' > /dev/null 2>&1
check "p95 exactly +0.25 ms is not past 'p95>+0.25ms': exit 0" [ $? -eq 0 ]
"$LUAMECH" compare "$A" "$B" --fail-if 'p95>+250us' > /dev/null 2>&1
check "... nor past 'p95>+250us' (the same in us)" [ $? -eq 0 ]
"$LUAMECH" compare "$A" "$B" --fail-if 'rate<-50/s' > /dev/null 2>&1
check "rate exactly -50/s is not past 'rate<-50/s': exit 0" [ $? -eq 0 ]
"$LUAMECH" compare "$A" "$B" --fail-if 'rate<-49/s' > "$TMP/a2" 2>&1
check "rate -50/s past 'rate<-49/s': exit 1" [ $? -eq 1 ]
check "names the rate regression" \
    grep -q 'timer "All Transactions": rate -5.00% (A 1000.00/s, B 950.00/s), past the limit rate<-49/s' "$TMP/a2"
"$LUAMECH" compare "$A" "$B" --fail-if 'errors>+2' > /dev/null 2>&1
check "errors 0 -> 3 past 'errors>+2': exit 1" [ $? -eq 1 ]
"$LUAMECH" compare "$A" "$B" --fail-if 'errors>+3' > /dev/null 2>&1
check "... not past 'errors>+3': exit 0" [ $? -eq 0 ]
"$LUAMECH" compare "$A" "$B" --fail-if 'errors>1000%,floor=5' > /dev/null 2>&1
check "zero base 0 -> 3 under 'errors>1000%,floor=5': exit 0" [ $? -eq 0 ]
"$LUAMECH" compare "$A" "$B" --fail-if 'p95>10%,floor=1ms' > "$TMP/a3" 2>&1
check "p95 +25% but +0.25 ms under 'p95>10%,floor=1ms': exit 0" [ $? -eq 0 ]
check "... the ok line shows the floor" grep -q '^ok: no figure past the limits (p95>10%,floor=1ms)' "$TMP/a3"
"$LUAMECH" compare "$A" "$B" --fail-if 'p95>10%,floor=0.25ms' > /dev/null 2>&1
check "+0.25 ms is not under 'floor=0.25ms': exit 1" [ $? -eq 1 ]
"$LUAMECH" compare "$A" "$B" --fail-if 'p95>10%' --floor 1ms > "$TMP/a4" 2>&1
check "--floor 1ms applies to 'p95>10%': exit 0" [ $? -eq 0 ]
check "... and shows in the limit" grep -q '^ok: no figure past the limits (p95>10%,floor=1ms)' "$TMP/a4"
"$LUAMECH" compare "$A" "$B" --fail-if 'p95>10%,floor=0.1ms' --floor 1ms > /dev/null 2>&1
check "a limit's own floor wins over --floor: exit 1" [ $? -eq 1 ]
"$LUAMECH" compare "$A" "$B" --fail-if 'p95>10%' --floor 100/s > /dev/null 2>&1
check "--floor 100/s (a rate floor) does not apply to p95: exit 1" [ $? -eq 1 ]
"$LUAMECH" compare "$A" "$B" --fail-if 'rate<-4%' --floor 100/s > /dev/null 2>&1
check "... but to 'rate<-4%' (-50/s): exit 0" [ $? -eq 0 ]
"$LUAMECH" compare "$A" -- "$B" > "$TMP/sep" 2>&1
check "'A -- B' is 'A B', byte for byte" cmp -s "$TMP/sep" "$O"
"$LUAMECH" compare "$A" "$B" --fail-if 'p95>2ms' > /dev/null 2> "$TMP/err"
check "unsigned absolute limit: exit 2" [ $? -eq 2 ]
check "... the message shows the signed form" grep -q "'p95>+2ms'" "$TMP/err"

# ---- views (issue 24): rows are (timer, view); schema 1's twins, paired by
# their uncorrected_of / all_of fields, are views of their timer; by default
# only the default view is compared ----
# of FIELD OF TIMER-ARGS...: a schema-1 twin entry (FIELD uncorrected_of or all_of)
of() { local f=$1 v=$2; shift 2; timer "$@" | sed "1s/^    {/    {\"$f\": \"$v\", /"; }
VA=$TMP/views-a
VB=$TMP/views-b
#                                                    count errors rate p50 p95 p99 max avg
summary "$VA/summary.json" views \
    "$(timer 'All Transactions' all 1000 0 100 1.0 2.0 3.0 10 1.2)" \
    "$(of uncorrected_of 'All Transactions' 'All Transactions (uncorrected)' all 1000 0 100 0.5 1.0 1.5 5 0.6)" \
    "$(of all_of 'All Transactions' 'All Transactions (all)' all 1010 10 101 1.0 2.0 3.0 10 1.2)" \
    "$(timer GET custom 500 0 50 1 2 3 4 1.5)" \
    "$(of all_of GET 'GET (all)' custom 505 5 50.5 1 2.5 3 4 1.5)" \
    "$(timer POST custom 500 0 50 1 2 3 4 1.5)" \
    "$(of uncorrected_of POST 'POST (uncorrected)' custom 500 0 50 0.5 1 2 3 1)" \
    "$(timer z custom 100 0 10 1 2 3 4 1.5)" \
    "$(timer 'z (uncorrected)' custom 100 0 10 1 2 3 4 1.5)"
summary "$VB/summary.json" views \
    "$(timer 'All Transactions' all 1000 0 100 1.0 2.0 3.0 10 1.2)" \
    "$(of uncorrected_of 'All Transactions' 'All Transactions (uncorrected)' all 1000 0 100 0.5 1.1 1.5 5 0.6)" \
    "$(of all_of 'All Transactions' 'All Transactions (all)' all 1020 20 102 1.0 3.0 3.0 10 1.2)" \
    "$(timer GET custom 500 0 50 1 2.2 3 4 1.5)" \
    "$(timer POST custom 500 0 50 1 2 3 4 1.5)" \
    "$(timer z custom 100 0 10 1 2 3 4 1.5)" \
    "$(timer 'z (uncorrected)' custom 100 0 10 1 2 3 4 1.5)"
# VB2: VB in schema 2, folded by jq here (an oracle apart from the C code)
mkdir -p "$TMP/views-b2"
VB2=$TMP/views-b2
jq '.schema_version = 2 | .timers as $t | .timers = [$t[] | select((has("uncorrected_of") or has("all_of")) | not)
    | . as $f | ([$t[] | select(.kind == $f.kind and .uncorrected_of == $f.name)
                  | {key: "uncorrected", value: {latency_from, summary, intervals}}]
               + [$t[] | select(.kind == $f.kind and .all_of == $f.name)
                  | {key: "all", value: {latency_from, summary, intervals}}]) as $v
    | if ($v | length) > 0 then .views = ($v | from_entries) else . end]' \
    "$VB/summary.json" > "$VB2/summary.json"
check "the schema-2 fixture has All Transactions' two views" \
    [ "$(jq -c '.timers[0].views | keys' "$VB2/summary.json")" = '["all","uncorrected"]' ]
rows() { jq -c '[.timers[] | [.name, .view, .in]]' "$1"; }

"$LUAMECH" compare "$VA" "$VB" --json > "$TMP/v1" 2> "$TMP/v1.err"
rc=$?
check "views: default compare exits 0 ($rc: $(head -c 300 "$TMP/v1.err"))" [ $rc -eq 0 ]
check "by default only the default views are rows, twins are no timers ($(rows "$TMP/v1"))" \
    [ "$(rows "$TMP/v1")" = '[["All Transactions","default","both"],["GET","default","both"],["POST","default","both"],["z","default","both"],["z (uncorrected)","default","both"]]' ]
check "--json says the views compared" [ "$(jq -c .views "$TMP/v1")" = '["default"]' ]
"$LUAMECH" compare "$VA" "$VB" > "$TMP/v1t" 2>&1
check "the text says the views compared" grep -q '^Whole-run figures (view: default); times in ms' "$TMP/v1t"
check "the text has no view rows" not_grep -qE '^(All Transactions \((uncorrected|all)\) \(all\)|GET \(all\) \(custom\))$' "$TMP/v1t"
check "... but the timer named 'z (uncorrected)'" grep -q '^z (uncorrected) (custom)$' "$TMP/v1t"
"$LUAMECH" compare "$VA" "$VB" --fail-if 'p95>10%' > /dev/null 2>&1
check "the default views did not regress past 'p95>10%': exit 0" [ $? -eq 0 ]

"$LUAMECH" compare "$VA" "$VB" --view every --json > "$TMP/v2" 2>&1
check "--view every: every listed view, a one-sided uncorrected view only in A ($(rows "$TMP/v2"))" \
    [ "$(rows "$TMP/v2")" = '[["All Transactions","default","both"],["All Transactions","uncorrected","both"],["All Transactions","all","both"],["GET","default","both"],["GET","all","both"],["POST","default","both"],["z","default","both"],["z (uncorrected)","default","both"],["POST","uncorrected","a"]]' ]
vfig() { jq -c --arg n "$2" --arg v "$3" ".timers[] | select(.name == \$n and .view == \$v) | .figures.$4 | [.a, .b, .change_pct]" "$1"; }
check "the uncorrected twins' figures compared (p95 1.0 -> 1.1)" [ "$(vfig "$TMP/v2" 'All Transactions' uncorrected p95)" = "[1,1.1,10]" ]
check "the all twins' figures compared (p95 2 -> 3)" [ "$(vfig "$TMP/v2" 'All Transactions' all p95)" = "[2,3,50]" ]
check "an all view on one side only: against the other's default (2.5 -> 2.2)" \
    [ "$(vfig "$TMP/v2" GET all p95)" = "[2.5,2.2,-12]" ]
"$LUAMECH" compare "$VA" "$VB" --view every > "$TMP/v2t" 2>&1
check "--view every, text: the all view's row" [ "$(row "$TMP/v2t" 'All Transactions (all)' p95)" = "p95 2.000 3.000 +50.0%" ]
check "--view every, text: the uncorrected view's row" \
    [ "$(row "$TMP/v2t" 'All Transactions (uncorrected)' p95)" = "p95 1.000 1.100 +10.0%" ]
check "--view every, text: POST (uncorrected) listed as only in A" \
    [ "$(sed -n '/^only in A:/,/^$/p' "$TMP/v2t" | grep -c '^  POST (uncorrected) (custom)$')" -eq 1 ]
"$LUAMECH" compare "$VA" "$VB" --view every --fail-if 'p95>10%' > "$TMP/v3" 2> "$TMP/v3.err"
check "--fail-if applies to each view's row: the all view +50% fails, exit 1" [ $? -eq 1 ]
check "... named with its view" \
    grep -q 'timer "All Transactions (all)": p95 +50.00% (A 2.000 ms, B 3.000 ms), past the limit p95>10%' "$TMP/v3"
check "... the only regression" grep -q '^REGRESSION: 1 figure past the limits' "$TMP/v3"
check "... the one-sided view is said to be unchecked" \
    grep -q 'timer "POST (uncorrected)" is only in A: not checked by --fail-if' "$TMP/v3.err"
"$LUAMECH" compare "$VA" "$VB" --view all --fail-if 'p95>10%' --json > "$TMP/v4" 2>/dev/null
check "--view all: exit 1" [ $? -eq 1 ]
check "--view all: the all view of every timer, a missing one being its default ($(rows "$TMP/v4"))" \
    [ "$(rows "$TMP/v4")" = '[["All Transactions","all","both"],["GET","all","both"],["POST","all","both"],["z","all","both"],["z (uncorrected)","all","both"]]' ]
check "--json: the regression names timer, family and view" \
    [ "$(jq -c '.regressions | map([.timer, .family, .view, .figure])' "$TMP/v4")" = '[["All Transactions (all)","All Transactions","all","p95"]]' ]
"$LUAMECH" compare "$VA" "$VB" --view uncorrected --view all --json > "$TMP/v5" 2>&1
check "--view is repeatable ($(rows "$TMP/v5" | head -c 200))" \
    [ "$(jq -c '[.timers[] | .view] | unique' "$TMP/v5")" = '["all","uncorrected"]' ]
"$LUAMECH" compare "$VA" "$VB" --timer 'GET (all)' --json > "$TMP/v6" 2>&1
check "--timer 'GET (all)': that view alone, exit 0 ($(rows "$TMP/v6"))" [ $? -eq 0 -a "$(rows "$TMP/v6")" = '[["GET","all","both"]]' ]
"$LUAMECH" compare "$VA" "$VB" --timer GET --view all --json > "$TMP/v7" 2>&1
check "... the same as --timer GET --view all" [ "$(jq -c .timers "$TMP/v6")" = "$(jq -c .timers "$TMP/v7")" ]
check "... and its --json says the all view was compared, not the default ($(jq -c .views "$TMP/v6"))" \
    [ "$(jq -c .views "$TMP/v6")" = '["all"]' ]
"$LUAMECH" compare "$VA" "$VB" --timer GET --view uncorrected --json > "$TMP/v7u" 2>&1
check "--timer GET --view uncorrected: GET exists without that view: exit 0, no row, not 'no timer of that name' ($(head -c 200 "$TMP/v7u"))" \
    [ $? -eq 0 -a "$(rows "$TMP/v7u")" = '[]' ]
"$LUAMECH" compare "$VA" "$VB" --timer 'z (uncorrected)' --json > "$TMP/v8" 2>&1
check "a timer named 'z (uncorrected)' is that timer, not a view of z ($(rows "$TMP/v8"))" \
    [ $? -eq 0 -a "$(rows "$TMP/v8")" = '[["z (uncorrected)","default","both"]]' ]
"$LUAMECH" compare "$VA" "$VB" --timer 'POST (uncorrected)' > "$TMP/v9" 2>&1
check "--timer 'POST (uncorrected)': exit 0, only in A" \
    [ $? -eq 0 -a "$(sed -n '/^only in A:/,/^$/p' "$TMP/v9" | grep -c 'POST (uncorrected) (custom)')" -eq 1 ]
"$LUAMECH" compare "$VA" "$VB" --timer 'GET (uncorrected)' > /dev/null 2> "$TMP/err"
check "--timer naming a view no run has: exit 2" [ $? -eq 2 ]
check "... the message names it" grep -q -- "--timer GET (uncorrected): no timer of that name, nor that view of a timer" "$TMP/err"
"$LUAMECH" compare "$VA" "$VB2" --view every --json > "$TMP/v10" 2>&1
check "a schema-1 side against a schema-2 side: the same rows and figures as schema 1 against schema 1" \
    [ "$(jq -c .timers "$TMP/v10")" = "$(jq -c .timers "$TMP/v2")" ]
"$LUAMECH" compare "$VB2" "$VB" --view every --fail-if 'p95>0%' --fail-if 'count<0%' > "$TMP/v11" 2>&1
check "schema 2 against its own schema-1 form: no change anywhere, exit 0" [ $? -eq 0 ]
check "... every view in both ($(grep -c '^[^ ].* (\(all\|custom\))$' "$TMP/v11") rows)" \
    [ "$(grep -c '^[^ ].* (\(all\|custom\))$' "$TMP/v11")" -eq 7 ]
cp -r "$VA" "$TMP/views-a-copy"     # a set names each run once (the same file twice is refused below)
"$LUAMECH" compare "$VA" "$TMP/views-a-copy" -- "$VB" "$VB2" --view all --json > "$TMP/v12" 2>&1
check "sets: rows per view too, the all view against a default (medians 2.5, 2.2)" \
    [ "$(vfig "$TMP/v12" GET all p95 | jq -c '.[0:2]')" = "[2.5,2.2]" ]
check "sets: --json says the views" [ "$(jq -c .views "$TMP/v12")" = '["all"]' ]
for args in "--view" "--view bogus" "--view=Default"; do
    # shellcheck disable=SC2086
    "$LUAMECH" compare "$VA" "$VB" $args > /dev/null 2> "$TMP/err"
    rc=$?
    check "usage error for 'compare A B $args': exit 2 (got $rc)" [ $rc -eq 2 ]
done
check "... an unknown view lists the views" grep -q "unknown view 'Default' (default, uncorrected, all or every)" "$TMP/err"

# ---- real runs against memcached ----
F=$SRC/tests/scenarios/fixtures
start_memcached MP
# kv DIR OPS N: a real run of N transactions of OPS gets each
kv() {
    "$LUAMECH" run "$F/compare_kv.lua" -q -n "$3" -e OPS="$2" -e MEMCACHED=127.0.0.1:$MP -o "$1" > /dev/null 2>&1
    check "run $1 (OPS=$2): exit 0" [ $? -eq 0 ]
}
gets0=$(mc_stat "$MP" cmd_get)
for i in 1 2 3 4 5 6; do kv "$TMP/q$i" 1 400; done
for i in 1 2 3; do kv "$TMP/s$i" 200 40; done
gets=$(( $(mc_stat "$MP" cmd_get) - gets0 ))
sum_gets=$(jq -s '[.[] | .timers[] | select(.name == "memcached.get") | .summary.count] | add' \
    "$TMP"/q?/summary.json "$TMP"/s?/summary.json)
check "memcached served the gets the runs counted ($gets = $sum_gets = 6*400 + 3*40*200)" \
    [ "$gets" -eq "$sum_gets" -a "$gets" -eq 26400 ]
# the gates, on the transactions and their gets (memcached.set has 2 samples
# a run, at connection time: no figure of it is worth a gate)
NOISE=(--timer 'All Transactions' --timer memcached.get
       --fail-if 'p50>+1ms' --fail-if 'p50>10%,floor=1ms' --fail-if 'avg>10%,floor=2ms' --fail-if 'p95>+10ms')
"$LUAMECH" compare "$TMP/q1" "$TMP/q2" "${NOISE[@]}" > "$TMP/n1" 2>&1
rc=$?
check "two runs of the same scenario pass absolute and floored gates: exit 0 ($(grep -A3 REGRESSION "$TMP/n1"))" [ $rc -eq 0 ]
"$LUAMECH" compare "$TMP/q1" "$TMP/s1" "${NOISE[@]}" > "$TMP/n2" 2>&1
check "the same gates fail on a real regression (200 gets per transaction): exit 1" [ $? -eq 1 ]
check "... past 'p50>+1ms'" grep -q 'timer "All Transactions": p50 .*past the limit p50>+1ms' "$TMP/n2"
check "... past 'p50>10%,floor=1ms'" grep -q 'timer "All Transactions": p50 .*past the limit p50>10%,floor=1ms' "$TMP/n2"
"$LUAMECH" compare "$TMP/q1" "$TMP/s1" --fail-if 'rate<-500/s' > "$TMP/n3" 2>&1
check "the regression's rate past 'rate<-500/s': exit 1" [ $? -eq 1 ]

# sets of real runs
"$LUAMECH" compare "$TMP/q1" "$TMP/q2" "$TMP/q3" -- "$TMP/q4" "$TMP/q5" "$TMP/q6" "${NOISE[@]}" > "$TMP/sn" 2>&1
rc=$?
check "sets of the same scenario pass the gates: exit 0 ($(grep -A3 REGRESSION "$TMP/sn"))" [ $rc -eq 0 ]
check "... the ok line says significantly" grep -q '^ok: no figure significantly past the limits' "$TMP/sn"
"$LUAMECH" compare "$TMP"/q[123] -- "$TMP"/s[123] "${NOISE[@]}" > "$TMP/sr" 2>&1
check "sets: the regression fails the gates: exit 1" [ $? -eq 1 ]
check "... significantly, p 0.0500 (1 of the 20 splits of 3+3 fully separated runs)" \
    grep -q 'timer "All Transactions": p50 .*(A median .* ms, B median .* ms, p 0.0500), past the limit p50>+1ms' "$TMP/sr"
check "... the header says 3 runs a side" [ "$(grep -c '^[AB]: 3 runs$' "$TMP/sr")" -eq 2 ]
"$LUAMECH" compare "$TMP"/q[123] -- "$TMP"/s[123] --json --fail-if 'p50>+1ms' > "$TMP/sj" 2> "$TMP/sj.err"
rc=$?
check "sets --json: exit 1 ($rc), valid JSON" [ $rc -eq 1 -a "$(jq -e . "$TMP/sj" > /dev/null 2>&1; echo $?)" = 0 ]
# median3 FIELD DIR...: the median of a timer figure over three runs, by jq
median3() {
    local f=$1; shift
    jq -s --arg f "$f" '[.[] | .timers[] | select(.name == "All Transactions") | .summary[$f]] | sort | .[1]' \
        "${@/%//summary.json}"
}
sfig() { jq ".timers[] | select(.name == \"All Transactions\") | .figures.$1" "$TMP/sj"; }
check "sets: A's p50 is the median of the runs' p50 ($(sfig p50.a))" \
    [ "$(sfig p50.a)" = "$(median3 p50_ms "$TMP"/q[123])" ]
check "sets: B's p50 is the median of the runs' p50 ($(sfig p50.b))" \
    [ "$(sfig p50.b)" = "$(median3 p50_ms "$TMP"/s[123])" ]
check "sets: B's rate is the median of the runs' rates" [ "$(sfig rate.b)" = "$(median3 rate "$TMP"/s[123])" ]
check "sets: p50 p = 0.05, significant" [ "$(sfig p50.p),$(sfig p50.significant)" = "0.05,true" ]
check "sets: every run's value listed" [ "$(sfig p50.a_runs | jq length)" -eq 3 ]
check "sets: the regression on stderr too" grep -q 'p 0.0500), past the limit p50>+1ms' "$TMP/sj.err"
check "sets: the text row shows the medians" \
    grep -qE "^  p50 +$(printf '%.3f' "$(sfig p50.a)") +$(printf '%.3f' "$(sfig p50.b)") " "$TMP/sr"

# sets made from a real run's summary.json, All Transactions' p95 set to
# chosen values: A 1.0 1.2 1.1 (median 1.1) against B 1.15 1.3 1.25 (median
# 1.25, +13.6%): 8 of the 9 pairs have B worse, and 2 of the 20 splits of
# the six values are as extreme, so p = 0.1: past 'p95>10%' but not
# significant.
craft() { # DIR P95: q1's summary.json with that p95 (and a start of its own: a set refuses copies of one run)
    mkdir -p "$1"
    jq --argjson v "$2" '(.timers[] | select(.name == "All Transactions") | .summary.p95_ms) = $v
        | .start_unix_ns += ($v * 1000000 | floor)' "$TMP/q1/summary.json" > "$1/summary.json"
}
for v in 1.0 1.2 1.1 1.15 1.3 1.25 1.35 1.4 0.9 1.05 1.5 1.45; do craft "$TMP/c$v" "$v"; done
C=$TMP/c
# the issue's noise case on a real run's file: p50 0.100 -> 0.217 ms (+117 %)
for v in 0.1 0.217; do
    mkdir -p "$TMP/p$v"
    jq --argjson v "$v" '(.timers[] | select(.name == "All Transactions") | .summary.p50_ms) = $v' \
        "$TMP/q1/summary.json" > "$TMP/p$v/summary.json"
done
"$LUAMECH" compare "$TMP/p0.1" "$TMP/p0.217" --timer 'All Transactions' --fail-if 'p50>10%' > "$TMP/p1" 2>&1
check "p50 0.100 -> 0.217 ms fails the percentage gate 'p50>10%': exit 1" [ $? -eq 1 ]
check "... at +117.00%" grep -q 'p50 +117.00% (A 0.100 ms, B 0.217 ms), past the limit p50>10%' "$TMP/p1"
"$LUAMECH" compare "$TMP/p0.1" "$TMP/p0.217" --timer 'All Transactions' --fail-if 'p50>10%,floor=1ms' > /dev/null 2>&1
check "... but not 'p50>10%,floor=1ms': exit 0" [ $? -eq 0 ]
"$LUAMECH" compare "$TMP/p0.1" "$TMP/p0.217" --timer 'All Transactions' --fail-if 'p50>+1ms' > /dev/null 2>&1
check "... nor 'p50>+1ms': exit 0" [ $? -eq 0 ]

"$LUAMECH" compare "$C"1.0 "$C"1.2 "$C"1.1 -- "$C"1.15 "$C"1.3 "$C"1.25 --timer 'All Transactions' \
    --fail-if 'p95>10%' > "$TMP/c1" 2>&1
check "overlapping sets past the limit, p 0.1: not significant, exit 0" [ $? -eq 0 ]
check "... the row: medians 1.100 1.250, +13.6%, p 0.1000, ranges" \
    grep -qE '^  p95 +1\.100 +1\.250 +\+13\.6% +0\.1000 +1\.000\.\.1\.200 +1\.150\.\.1\.300 +<- past \(not significant\) p95>10%$' "$TMP/c1"
check "... listed as within the runs' spread" grep -q "^past the limits but within the runs' spread (p > 0.05), not failed:" "$TMP/c1"
check "... with its p" grep -q 'timer "All Transactions": p95 +13.64% (A median 1.100 ms, B median 1.250 ms, p 0.1000), past the limit p95>10%' "$TMP/c1"
"$LUAMECH" compare "$C"1.0 "$C"1.2 "$C"1.1 -- "$C"1.3 "$C"1.4 "$C"1.35 --timer 'All Transactions' \
    --fail-if 'p95>10%' > "$TMP/c2" 2>&1
check "separated sets past the limit (p 0.05): exit 1" [ $? -eq 1 ]
check "... 'significantly past'" grep -q '^REGRESSION: 1 figure significantly past the limits:' "$TMP/c2"
check "... the row marked, p 0.0500*" grep -qE '^  p95 +1\.100 +1\.350 +\+22\.7% +0\.0500\* .*<- past p95>10%$' "$TMP/c2"
"$LUAMECH" compare "$C"1.0 "$C"1.2 "$C"1.1 -- "$C"1.3 "$C"1.4 "$C"1.35 --timer 'All Transactions' \
    --fail-if 'p95>+0.3ms' > /dev/null 2>&1
check "sets, absolute: median +0.25 ms under 'p95>+0.3ms': exit 0" [ $? -eq 0 ]
"$LUAMECH" compare "$C"1.0 "$C"1.2 "$C"1.1 -- "$C"1.3 "$C"1.4 "$C"1.35 --timer 'All Transactions' \
    --fail-if 'p95>+0.2ms' > /dev/null 2>&1
check "sets, absolute: median +0.25 ms past 'p95>+0.2ms': exit 1" [ $? -eq 1 ]
"$LUAMECH" compare "$C"1.0 "$C"1.2 "$C"1.1 -- "$C"1.3 "$C"1.4 "$C"1.35 --timer 'All Transactions' \
    --fail-if 'p95>10%,floor=0.3ms' > /dev/null 2>&1
check "sets, floored: +0.25 ms under floor=0.3ms: exit 0" [ $? -eq 0 ]
# 4 + 4 fully separated: p = 1/70
"$LUAMECH" compare "$C"1.0 "$C"1.2 "$C"1.1 "$C"0.9 -- "$C"1.3 "$C"1.4 "$C"1.35 "$C"1.5 --timer 'All Transactions' \
    --json > "$TMP/c3" 2>&1
check "4+4 separated: p = 1/70" \
    [ "$(jq '.timers[0].figures.p95.p * 70 | . * 1e9 | round' "$TMP/c3")" = 1000000000 ]
check "4+4: medians 1.05 and 1.375" [ "$(jq -c '.timers[0].figures.p95 | [.a, .b]' "$TMP/c3")" = "[1.05,1.375]" ]
"$LUAMECH" compare "$C"1.0 "$C"1.2 "$C"1.1 "$C"0.9 -- "$C"1.3 "$C"1.4 "$C"1.35 "$C"1.5 --timer 'All Transactions' \
    --fail-if 'p95>10%' --alpha 0.02 > /dev/null 2>&1
check "4+4 at --alpha 0.02: p 0.0143 is significant, exit 1" [ $? -eq 1 ]
"$LUAMECH" compare "$C"1.0 "$C"1.2 "$C"1.1 "$C"0.9 -- "$C"1.3 "$C"1.4 "$C"1.35 "$C"1.5 --timer 'All Transactions' \
    --fail-if 'p95>10%' --alpha 0.01 > /dev/null 2>&1
check "4+4 at --alpha 0.01 (smallest p 1/70 = 0.0143 > 0.01): exit 2" [ $? -eq 2 ]
"$LUAMECH" compare "$C"1.0 "$C"1.2 "$C"1.1 -- "$C"1.3 "$C"1.4 "$C"1.35 --fail-if 'p95>10%' --alpha 0.01 \
    > /dev/null 2> "$TMP/err"
check "3+3 at --alpha 0.01 can never be significant: --fail-if is a usage error, exit 2" [ $? -eq 2 ]
check "... the message says why and how many runs" \
    grep -q 'the test can never be significant at alpha 0.01 (the smallest possible p is 0.0500); give at least 5 runs a side' "$TMP/err"
"$LUAMECH" compare "$C"1.0 "$C"1.2 -- "$C"1.3 "$C"1.4 > "$TMP/c4" 2>&1
check "2+2 without limits: exit 0" [ $? -eq 0 ]
check "... says there is no test" \
    grep -q '^no significance test: with 2 and 2 runs the smallest possible p is 0.1667, above alpha 0.05; give at least 3 runs a side' "$TMP/c4"
check "... p shown as -" grep -qE '^  p95 +1\.100 +1\.350 +\+22\.7% +- ' "$TMP/c4"
"$LUAMECH" compare "$C"1.0 "$C"1.2 -- "$C"1.3 "$C"1.4 --fail-if 'p95>10%' > /dev/null 2>&1
check "2+2 with --fail-if: exit 2" [ $? -eq 2 ]
# a timer missing from one run of a set
jq 'del(.timers[] | select(.name == "memcached.set"))' "$C"1.3/summary.json > "$TMP/noset.json"
"$LUAMECH" compare "$C"1.0 "$C"1.2 "$C"1.1 -- "$TMP/noset.json" "$C"1.4 "$C"1.35 --fail-if 'p95>10%' > "$TMP/c5" 2> "$TMP/c5.err"
check "a timer not in every run: listed" grep -q '^  memcached.set (primitive): in 3 of 3 A runs, 2 of 3 B runs' "$TMP/c5"
check "... and said to be unchecked" grep -q 'timer "memcached.set" is in 3 of 3 A runs and 2 of 3 B runs: not checked' "$TMP/c5.err"
"$LUAMECH" compare "$C"1.0 "$C"1.2 "$C"1.1 -- "$C"1.3 "$PA" "$C"1.35 > /dev/null 2> "$TMP/err"
check "a phased top directory in a set: exit 3" [ $? -eq 3 ]
check "... naming it" grep -q "$PA/summary.json is a phased run's top summary" "$TMP/err"
"$LUAMECH" compare "$C"1.0 "$C"1.2 "$C"1.1 -- "$C"1.3 "$TMP/nothere" "$C"1.35 > /dev/null 2> "$TMP/err"
rc=$?
check "a missing run in a set: exit 3 ($rc), named" [ $rc -eq 3 -a "$(grep -c "$TMP/nothere" "$TMP/err")" -ge 1 ]
for args in "$A --" "-- $B" "$A -- $B -- $B" "$A $B --floor" "$A $B --floor 1xs" "$A $B --floor -1ms" \
            "$A $B --floor 0ms" "$A $B --alpha 0" "$A $B --alpha 1" "$A $B --alpha x" "$A $B --alpha" \
            "$A $B --fail-if p95>10%,floor=1" "$A $B --fail-if rate<-500ms"; do
    # shellcheck disable=SC2086
    "$LUAMECH" compare $args > /dev/null 2> "$TMP/err"
    rc=$?
    check "usage error for 'compare $args': exit 2 (got $rc)" [ $rc -eq 2 ]
done

# a set naming one run twice (the same file by any path, or a copy of it) is refused: its one
# result would count as two runs and make a significant p out of nothing
ln -s "$TMP/q1" "$TMP/q1-link"
cp -r "$TMP/q1" "$TMP/q1-copy"
for a in "$TMP/q1 $TMP/q1 $TMP/q1" "$TMP/q1 $TMP/q1-link $TMP/q2" "$TMP/q1/ $TMP/q2 $TMP/q1" \
         "$TMP/q1/summary.json $TMP/q2 $TMP/q1/../q1" "$TMP/q1 $TMP/q1-copy $TMP/q2"; do
    # shellcheck disable=SC2086
    "$LUAMECH" compare $a -- "$TMP"/s[123] --fail-if 'rate<-10%' > "$TMP/dup.out" 2> "$TMP/dup.err"
    rc=$?
    check "a set naming one run twice ($a): exit 3 ($rc), one message, no verdict" \
        [ $rc -eq 3 -a "$(wc -l < "$TMP/dup.err")" -eq 1 -a ! -s "$TMP/dup.out" ]
    check "... saying so" grep -q "^luamech: compare: set A names one run twice: A[0-9] (.*) and A[0-9] (.*) are " "$TMP/dup.err"
done
"$LUAMECH" compare "$TMP"/s[123] -- "$TMP/q2" "$TMP/q2" "$TMP/q3" > /dev/null 2> "$TMP/dup.err"
check "... in set B too: exit 3 ($?)" grep -q "set B names one run twice: B1 (.*) and B2 (.*) are the same file" "$TMP/dup.err"

# invalid figures (as merge refuses them: src/report/summary_read.c) are exit 3 with the field named
for f in '.summary.count = -1' '.summary.count = 1e300' '.summary.count = 1.5' '.summary.p95_ms = -1' \
         '.summary.p95_ms = 1.8e308' '.summary.p50_ms = "1"' '.intervals[0].count = -5'; do
    mkdir -p "$TMP/badfig"
    jq "(.timers[] | select(.name == \"All Transactions\")) |= ($f)" "$TMP/q1/summary.json" > "$TMP/badfig/summary.json"
    "$LUAMECH" compare "$TMP/q1" "$TMP/badfig" > "$TMP/bf.out" 2> "$TMP/bf.err"
    rc=$?
    check "compare refuses a summary.json with $f: exit 3 ($rc), nothing compared" [ $rc -eq 3 -a ! -s "$TMP/bf.out" ]
    check "... naming the field ($(cat "$TMP/bf.err"))" grep -q "badfig/summary.json: timers\[[0-9]*\]\.\(summary\|intervals\[0\]\)\.[a-z0-9_]* = .*: expected a" "$TMP/bf.err"
    "$LUAMECH" report "$TMP/badfig" > /dev/null 2> "$TMP/bf.err"
    check "report refuses it too: exit 3 ($?)" grep -q "expected a" "$TMP/bf.err"
done
# a timer listed twice would count twice (merge's sums; compare's first match): refused by all readers
mkdir -p "$TMP/dupt"
jq '.timers += [.timers[] | select(.name == "All Transactions")]' "$TMP/q1/summary.json" > "$TMP/dupt/summary.json"
for cmd in "compare $TMP/q1 $TMP/dupt" "report $TMP/dupt"; do
    # shellcheck disable=SC2086
    "$LUAMECH" $cmd > /dev/null 2> "$TMP/dupt.err"
    rc=$?
    check "$cmd: a timer listed twice, exit 3 ($rc)" [ $rc -eq 3 ]
    check "... named ($(cat "$TMP/dupt.err"))" grep -q 'timers\[[0-9]*\] and timers\[[0-9]*\] are both called "All Transactions"' "$TMP/dupt.err"
done
# a summary.json that is a directory: every reader says so alike
mkdir -p "$TMP/dirsum/summary.json"
for cmd in "compare $TMP/q1 $TMP/dirsum" "report $TMP/dirsum"; do
    # shellcheck disable=SC2086
    "$LUAMECH" $cmd > /dev/null 2> "$TMP/dirsum.err"
    rc=$?
    check "$cmd (summary.json a directory): exit 3 ($rc), 'not a regular file'" \
        [ $rc -eq 3 -a "$(grep -c 'dirsum/summary.json: not a regular file' "$TMP/dirsum.err")" = 1 ]
done
# a limit's number out of range is said to be so (not "put % after the number")
"$LUAMECH" compare "$A" "$B" --fail-if 'p95>1e999%' > /dev/null 2> "$TMP/err"
check "--fail-if 'p95>1e999%': exit 2 ($?)" [ $? -eq 2 ]
check "... the number is out of range ($(head -1 "$TMP/err"))" grep -q "'p95>1e999%': the number is out of range" "$TMP/err"
"$LUAMECH" compare "$A" "$B" --fail-if 'p95>1e1%' > /dev/null 2> "$TMP/err"
check "--fail-if 'p95>1e1%': exit 2 ($?)" [ $? -eq 2 ]
check "... the number wants no exponent ($(head -1 "$TMP/err"))" grep -q "'p95>1e1%': write the number without an exponent" "$TMP/err"

finish
