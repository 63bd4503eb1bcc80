# Bad input gets one clear message and a documented exit code, before any
# load starts.
. "$(dirname "$0")/lib.sh"
F=$SRC/tests/scenarios/fixtures

# expect CODE PATTERN -- args...: runs luamech, checks exit code and stderr
expect() {
    local code=$1 pattern=$2; shift 3
    "$LUAMECH" "$@" -o "$TMP/out" > "$TMP/stdout" 2> "$TMP/stderr"
    local rc=$?
    if [ "$rc" -ne "$code" ]; then fail "$* : exit $rc, expected $code ($(head -c 300 "$TMP/stderr"))"; return; fi
    if ! grep -qE -- "$pattern" "$TMP/stderr"; then fail "$* : stderr lacks /$pattern/: $(head -c 300 "$TMP/stderr")"; return; fi
    pass "$* -> $code, /$pattern/"
}

"$LUAMECH" --help > "$TMP/help"; check "--help exits 0" [ $? -eq 0 ]
check "--help documents exit codes" grep -q "interrupted by SIGINT" "$TMP/help"
"$LUAMECH" --version > "$TMP/ver"; check "--version exits 0" [ $? -eq 0 ]
check "--version prints the version" grep -qE "^luamech [0-9]+\.[0-9]+" "$TMP/ver"
"$LUAMECH" > /dev/null 2>&1; check "no arguments exits 2" [ $? -eq 2 ]

expect 2 "unknown command 'bogus'" -- bogus
expect 2 "unknown or incomplete option '--frobnicate'" -- run "$F/ok.lua" --frobnicate
expect 2 "--duration: expected a duration" -- run "$F/ok.lua" --duration 5x
expect 2 "--requests: expected an integer" -- run "$F/ok.lua" --requests many
expect 2 "--interval: expected .*a whole number of 100ms" -- run "$F/ok.lua" --interval 150ms
expect 2 "-e: expected NAME=VALUE" -- run "$F/ok.lua" -e NOEQUALS
expect 2 "missing the SCENARIO" -- run
expect 3 "nope.lua: cannot read the scenario file" -- run "$F/nope.lua"
expect 3 "unknown field 'run_tim' \(did you mean 'run_time'\?\)" -- run "$F/bad_field.lua"
expect 3 "groups\[1\]\.vus: expected an integer" -- run "$F/bad_type.lua"
expect 3 "run_time: expected a duration" -- run "$F/bad_duration.lua"
expect 3 "groups\[1\]: unknown field 'scirpt' \(did you mean 'script'\?\)" -- run "$F/bad_group_field.lua"
expect 3 "groups: expected a list of groups" -- run "$F/no_groups.lua"
expect 3 "groups\[1\]\.script: cannot open .*does_not_exist.lua" -- run "$F/missing_script.lua"
expect 3 "syntax_scenario.lua:3: .*'}' expected" -- run "$F/syntax_scenario.lua"
expect 3 "syntax_script_vu.lua:3: unexpected symbol near '='" -- run "$F/syntax_script.lua"
expect 3 "the file must return a table" -- run "$F/not_table.lua"
expect 3 "phases\[1\]: unknown field 'rquests' \(did you mean 'requests'\?\)" -- run "$F/bad_phase.lua"
expect 4 "preflight failed.*memcached.connect: 127.0.0.1:1: server down: connection refused" -- run "$F/unreachable.lua" -e MEMCACHED=127.0.0.1:1
expect 4 "preflight failed.*init_error_vu.lua:1: init went wrong" -- run "$F/init_error.lua"
expect 4 "preflight failed.*must return the transaction function, got number" -- run "$F/no_function.lua"
expect 2 "--cpus: expected CPU numbers" -- run "$F/ok.lua" --cpus one
expect 2 "--cpus: no CPU 1000 on this machine for luamech \(CPUs [0-9,-]+" -- run "$F/ok.lua" --cpus 1000
expect 2 "--cpus: expected CPU numbers" -- run "$F/ok.lua" --cpus 4000
check "an aborted run still writes summary.json with status aborted" \
    [ "$(jq -r .status "$TMP/out/summary.json")" = aborted ]
"$LUAMECH" run "$F/ok.lua" -q -d 300ms -o "$TMP/ok" > /dev/null 2>&1
check "a good scenario runs (exit 0)" [ $? -eq 0 ]
# --cpus pins the worker threads
"$LUAMECH" run "$F/ok.lua" -q -d 2s -w 1 --cpus 1 -o "$TMP/pin" > /dev/null 2>&1 &
pid=$!
pinned=0   # polled while the run lives (its worker thread exists once the start-up is over)
while kill -0 "$pid" 2>/dev/null; do
    pinned=$(cat /proc/$pid/task/*/status 2>/dev/null | grep -c "^Cpus_allowed_list:[[:space:]]*1$")
    [ "$pinned" -ge 1 ] && break; sleep 0.05
done
wait $pid
check "--cpus 1: a thread of luamech runs on CPU 1 only ($pinned)" [ "$pinned" -ge 1 ]
finish
