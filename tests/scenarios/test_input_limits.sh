# Out-of-range numbers, lists with holes, names that are not text or that
# look like paths, unusable --out, and suite entries against the command
# line: each refused with one message before any load (exit 3 for the
# scenario or suite, 2 for a flag), or run with every file where it belongs.
. "$(dirname "$0")/lib.sh"
F=$SRC/tests/scenarios/fixtures

# expect CODE PATTERN -- args...: exit code, stderr, and no results directory
# (the plan is refused before anything is created or run)
expect() {
    local code=$1 pattern=$2; shift 3
    rm -rf "$TMP/out"
    timeout -k 2 20 "$LUAMECH" "$@" -q -o "$TMP/out" > "$TMP/stdout" 2> "$TMP/stderr"
    local rc=$?
    if [ "$rc" -ne "$code" ]; then fail "$* : exit $rc, expected $code ($(head -c 300 "$TMP/stderr"))"; return; fi
    if ! grep -qE -- "$pattern" "$TMP/stderr"; then fail "$* : stderr lacks /$pattern/: $(head -c 300 "$TMP/stderr")"; return; fi
    if [ "$(wc -l < "$TMP/stderr")" -gt 2 ]; then fail "$* : more than one message: $(head -c 300 "$TMP/stderr")"; return; fi
    if [ -e "$TMP/out" ]; then fail "$* : the results directory was created"; return; fi
    pass "$* -> $code, /$pattern/"
}
bad() { # bad CASE PATTERN: bad_values.lua with -e CASE=..., exit 3
    expect 3 "$2" -- run "$F/bad_values.lua" -e CASE="$1"
}

# 10.11: numbers out of range (were wrapped, truncated, or ran without end)
bad vus_wrap 'groups\[1\]\.vus: expected an integer from 0 to 10000000 .*got number 4294967297'
bad vus_huge 'groups\[1\]\.vus: expected an integer from 0 to 10000000 .*3000000000'
bad vus_nan 'groups\[1\]\.vus: expected an integer from 0 to 10000000.*nan'
# a function or table is named by its type, never by its address ("got function function: 0x...")
bad vus_function 'groups\[1\]\.vus: expected an integer from 0 to 10000000 .*got a function$'
bad run_time_table 'run_time: expected a duration .*got a table$'
bad interval_huge 'interval: expected a duration from 100ms to 24h.*1e\+20'
bad seed_huge 'seed: expected an integer from 0 to 9007199254740991'
bad run_time_inf 'run_time: expected a duration from 0s to 168h.*inf'
bad run_time_nan 'run_time: expected a duration from 0s to 168h.*nan'
bad rate_inf 'groups\[1\]\.rate: expected a number from 0 to 10000000, got number inf'
bad rate_nan 'groups\[1\]\.rate: expected a number from 0 to 10000000, got number nan'
bad graceful_huge 'graceful_stop: expected a duration from 0s to 1h'
bad requests_huge 'requests: expected an integer from 1 to 100000000000'
bad workers_huge 'workers: expected an integer from 1 to 1024'
bad target_inf 'groups\[1\]\.stages\[1\]\.target: expected a number from 0 to 10000000'
bad stage_dur_inf 'groups\[1\]\.stages\[1\]\.duration: expected a duration from 0s to 168h'
bad start_nan 'groups\[1\]\.start: expected a number from 0 to 10000000'
bad total_vus "vus: the groups' VUs add up to 12000000; at most 10000000"
bad vus0_requests 'vus: a requests budget of 10 but no VU can ever start'
bad interval_tick 'interval: expected .*a whole number of 100ms, got 0.25 s'
# weaker: a pacing below the resolution ran back to back
bad pacing_tiny 'groups\[1\]\.pacing: .*1e-12 s is below the 1us resolution'
bad pacing_tiny_str 'groups\[1\]\.pacing: expected a duration from 1us to 24h'
# the same numbers as flags: exit 2, naming the flag and its range
expect 2 '--vus: expected an integer from 0 to 10000000, got 4294967298' -- run "$F/ok.lua" --vus 4294967298
expect 2 '--seed: expected an integer from 0 to 9007199254740991' -- run "$F/ok.lua" --seed 18446744073709551616
expect 2 '--duration: expected a duration from 0s to 168h' -- run "$F/ok.lua" --duration 1000h
expect 2 '--interval: expected a duration from 100ms to 24h' -- run "$F/ok.lua" --interval 1e20
expect 2 '--interval: .*a whole number of 100ms, got 0.25 s' -- run "$F/ok.lua" --interval 250ms
expect 2 '--graceful-stop: expected a duration from 0s to 1h' -- run "$F/ok.lua" --graceful-stop 2h
expect 2 '--workers: expected an integer from 1 to 1024' -- run "$F/ok.lua" --workers 10000
expect 2 '--requests: expected an integer from 1 to 100000000000' -- run "$F/ok.lua" --requests 0
expect 2 '--duration: expected a duration' -- run "$F/ok.lua" --duration 0.0000000001
expect 2 '--vus: a requests budget of 10 but no VU can ever start' -- run "$F/ok.lua" -u 0 -n 10

# 10.16: lists with holes (ran only the items before the hole)
bad groups_hole 'groups\[2\]: is nil: a hole in a list of 3 items'
bad stages_hole 'groups\[1\]\.stages\[2\]: is nil'
bad thresholds_hole 'thresholds\[2\]: is nil'
bad phases_hole 'phases\[2\]: is nil'
expect 3 'suite_hole.lua: runs\[2\]: is nil' -- suite "$F/suite_hole.lua"
# a suite's checks are the scenario's (lua/checks.lua): the same hint, the same words
expect 3 "suite_typo.lua: suite: unknown field 'vsu' \\(did you mean 'vus'\\?\\)" -- suite "$F/suite_typo.lua"
expect 3 'suite_badcount.lua: runs\[1\]\.vus: expected .*\("10k" and "1M" are accepted\), got number 1.5' -- suite "$F/suite_badcount.lua"

# 10.13: names that are not text, refused before any load (the run was lost after it)
bad name_bad_utf8 'bad_values.lua: name: not valid UTF-8 \(byte 4 is 0xff\)'
bad name_control 'name: control character 0x1b'
bad group_bad_utf8 'groups\[1\]\.name: not valid UTF-8'
bad phase_bad_utf8 'phases\[1\]\.name: not valid UTF-8'
bad notes_bad_utf8 'notes: not valid UTF-8'
bad threshold_bad_utf8 'thresholds\[1\]: not valid UTF-8'
expect 3 'suite_names.lua: runs\[2\]: name: not valid UTF-8' -- suite "$F/suite_names.lua" -e BAD=1

# 10.9: an unusable --out is a usage error before any load
for out in "" /dev/null /dev/null/x /proc/luamech-no; do
    rm -f "$TMP/stderr"
    "$LUAMECH" run "$F/ok.lua" -q -d 300ms -o "$out" > /dev/null 2> "$TMP/stderr"
    rc=$?
    check "--out '$out': exit 2 ($rc)" [ "$rc" -eq 2 ]
    check "--out '$out': one message naming --out" grep -q "^luamech: --out: " "$TMP/stderr"
done
check "--out '': nothing written into /" [ ! -e /summary.json -a ! -e /intervals.csv -a ! -e /scenario ]
: > "$TMP/afile"
"$LUAMECH" run "$F/ok.lua" -q -d 300ms -o "$TMP/afile/sub" > /dev/null 2> "$TMP/stderr"
check "--out under a file: exit 2" [ $? -eq 2 ]
check "--out under a file: says why" grep -qi "not a directory" "$TMP/stderr"

# 10.12: names that look like paths stay inside the results directory
mkdir -p "$TMP/cwd/a/b"
(cd "$TMP/cwd/a/b" && "$LUAMECH" run "$F/path_names.lua" -q > "$TMP/pn.out" 2>&1)
check "path-like names: the run completes" [ $? -eq 0 ]
check "path-like names: nothing outside results/" [ "$(ls -A "$TMP/cwd/a/b")" = results -a "$(ls -A "$TMP/cwd/a")" = b -a "$(ls -A "$TMP/cwd")" = a ]
top=$(ls -d "$TMP"/cwd/a/b/results/*)
check "path-like scenario name: one directory inside results/ ($(basename "$top"))" \
    [ "$(ls "$TMP/cwd/a/b/results" | wc -l)" -eq 1 -a -d "$top" ]
check "path-like scenario name: made a name (_._.._escaped-<time>)" \
    [ "$(basename "$top" | sed 's/-[0-9]*-[0-9]*$//')" = "_._.._escaped" ]
check "path-like phase names: each phase in a subdirectory of the run" \
    [ -f "$top/1-x_.._.._.._.._escaped/summary.json" -a -f "$top/2-_hidden__name_/summary.json" ]
check "path-like names: summary.json valid, names kept as written" \
    [ "$(jq -r '.phases | map(.name) | join("|")' "$top/summary.json")" = 'x/../../../../escaped|.hidden "name"' ]
check "path-like names: summary.json points at the directories" \
    [ "$(jq -r '.phases | map(.dir) | join("|")' "$top/summary.json")" = "1-x_.._.._.._.._escaped|2-_hidden__name_" ]
check "path-like names: phases.csv quotes a name with quotes" grep -qF '2,".hidden ""name""",completed,' "$top/phases.csv"
check "path-like names: the phase's summary.json is valid" jq -e '.scenario == "x/../../../../escaped"' "$top/1-x_.._.._.._.._escaped/summary.json"
check "nothing escaped anywhere under $TMP" [ -z "$(find "$TMP" -name '*escaped*' -not -path "$top" -not -path "$top/*")" ]
"$LUAMECH" suite "$F/suite_names.lua" -q -o "$TMP/sn/out" > /dev/null 2>&1
check "a suite run named ../../up: exit 0" [ $? -eq 0 ]
check "a suite run named ../../up: stays inside --out" [ -f "$TMP/sn/out/1-_._.._up/summary.json" -a "$(ls "$TMP/sn")" = out ]

# 9.15: a suite's interval obeys the same rule as the scenario's and the flag's
expect 3 'suite_interval.lua: runs\[1\]: interval: expected .*a whole number of 100ms, got 0.25 s' \
    -- suite "$F/suite_interval.lua" -e IV=250ms
"$LUAMECH" suite "$F/suite_interval.lua" -q -e IV=300ms -o "$TMP/iv" > /dev/null 2>&1
check "suite interval 300ms: exit 0" [ $? -eq 0 ]
s=$TMP/iv/1-only/summary.json
check "suite interval 300ms: summary.json says 0.3 s" [ "$(jq '.settings.interval_s' "$s")" = 0.3 ]
total=$(jq '.timers[] | select(.name == "group g") | .summary.count' "$s")
sum=$(jq '[.timers[] | select(.name == "group g") | .intervals[].count] | add' "$s")
check "suite interval 300ms: the intervals' counts add up to the run's ($sum of $total)" [ "$total" -gt 0 -a "$sum" = "$total" ]
periods=$(jq -c '[.timers[] | select(.name == "group g") | .intervals[].period_s]' "$s")
check "suite interval 300ms: 4 intervals, full ones span 0.3 s, the last at most that ($periods)" \
    jq -e '[.timers[] | select(.name == "group g") | .intervals[].period_s] | length == 4 and .[0:3] == [0.3,0.3,0.3] and .[3] > 0 and .[3] <= 0.3' "$s"
check "suite interval 300ms: intervals.csv rows start every 0.3 s" \
    [ "$(awk -F, '$4 == "\"group g\"" { printf "%s ", $2 }' "$TMP/iv/1-only/intervals.csv")" = "0.000 0.300 0.600 0.900 " ]

# 9.16: command line beats suite entry beats scenario
"$LUAMECH" suite "$F/suite_precedence.lua" -q -o "$TMP/p0" > /dev/null 2>&1
check "suite vus without -u: the suite's 3, the run's own 4" \
    [ "$(jq -c '[.groups[0].vus]' "$TMP/p0/1-top/summary.json" "$TMP/p0/2-own/summary.json" | tr -d '\n')" = "[3][4]" ]
"$LUAMECH" suite "$F/suite_precedence.lua" -q -u 1 -o "$TMP/p1" > /dev/null 2>&1
check "suite vus with -u 1: exit 0" [ $? -eq 0 ]
check "suite vus with -u 1: the flag wins in both runs" \
    [ "$(jq -c '[.groups[0].vus]' "$TMP/p1/1-top/summary.json" "$TMP/p1/2-own/summary.json" | tr -d '\n')" = "[1][1]" ]
expect 2 '--vus: the suite sweeps vus' -- suite "$F/suite_sweep.lua" -u 1
finish
