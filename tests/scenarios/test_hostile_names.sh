# Hostile names and arguments (the session-14 sweep): a NUL byte in a name
# is refused instead of merging two names into one (at load: exit 3; at run
# time: a Lua error, a failed transaction); a scenario file that never
# returns is stopped by its time limit (exit 3); script errors are not
# blamed on the server; error(nil) is described, never "(null)"; the
# command line names the argument it refuses, takes decimal numbers only
# and refuses CPUs the machine does not have (exit 2, nothing written);
# `luamech new` treats a dangling symlink as an existing NAME and echoes
# control characters escaped; a threshold that is a table is named as such.
# Needs no server: every run here is bounded by `timeout -s KILL`.
. "$(dirname "$0")/lib.sh"
D=$TMP/s
mkdir -p "$D"

# lm CODE PATTERN ARGS...: runs luamech in $D (stderr and stdout in $TMP/o)
lm() {
    local code=$1 pattern=$2; shift 2
    (cd "$D" && timeout -s KILL 20 "$LUAMECH" "$@" > "$TMP/o" 2>&1)
    local rc=$?
    if [ "$rc" -ne "$code" ]; then fail "$* : exit $rc, expected $code ($(head -c 400 "$TMP/o"))"; return; fi
    if ! grep -qE -- "$pattern" "$TMP/o"; then fail "$* : output lacks /$pattern/: $(head -c 400 "$TMP/o")"; return; fi
    pass "$* -> $code, /$pattern/"
}

cat > "$D/idle_vu.lua" <<'EOF'
return function() luamech.sleep(0.05) end
EOF

# ---- 1. NUL bytes in names ----
cat > "$D/nul_groups.lua" <<'EOF'
return { run_time = "1s", groups = { { name = "a\0b", vus = 1, script = "idle_vu.lua" },
                                     { name = "a\0c", vus = 1, script = "idle_vu.lua" } } }
EOF
lm 3 'groups\[1\]\.name: a NUL byte \(\\0\) at byte 2' run nul_groups.lua -o "$TMP/r1"
check "NUL group names: no results directory" [ ! -e "$TMP/r1" ]
cat > "$D/nul_name.lua" <<'EOF'
return { name = "x\0/../../evil", run_time = "1s", groups = { { name = "g", vus = 1, script = "idle_vu.lua" } } }
EOF
lm 3 '^luamech: nul_name.lua: name: a NUL byte' run nul_name.lua -o "$TMP/r2"
cat > "$D/nul_thr.lua" <<'EOF'
return { run_time = "1s", thresholds = { "p95 < 5ms\0 or whatever" },
         groups = { { name = "g", vus = 1, script = "idle_vu.lua" } } }
EOF
lm 3 'thresholds\[1\]: a NUL byte' run nul_thr.lua -o "$TMP/r3"
cat > "$D/nul_suite.lua" <<'EOF'
return { scenario = "idle.lua", requests = 1, sweep = { X = { "a\0b", "a\0c" } } }
EOF
printf 'return { run_time = "1s", groups = { { name = "g", vus = 1, script = "idle_vu.lua" } } }\n' > "$D/idle.lua"
lm 3 'sweep\.X\[1\]: a NUL byte' suite nul_suite.lua -o "$TMP/r4"

# At run time: each name is a Lua error (the transaction fails), no timer "t".
cat > "$D/nul_rt.lua" <<'EOF'
return { run_time = "1s", interval = "1s", groups = { { name = "g", vus = 1, script = "nul_rt_vu.lua" } } }
EOF
cat > "$D/nul_rt_vu.lua" <<'EOF'
local what = luamech.param("WHAT")
return function()
  luamech.sleep(0.05)
  if what == "record" then luamech.record("t\0one", 0.001) luamech.record("t\0two", 0.002)
  elseif what == "timer" then luamech.timer("t\0one"):stop()
  elseif what == "check" then luamech.check(true, "c\0x")
  elseif what == "metric" then luamech.metrics.counter("m\0x"):add(1)
  elseif what == "ctl" then luamech.record("t\tab", 0.001) end
end
EOF
for what in record:luamech.record timer:luamech.timer check:luamech.check metric:luamech.metrics ctl:luamech.record; do
    w=${what%%:*} fn=${what#*:}
    lm 0 'transactions' run nul_rt.lua -q -e WHAT="$w" -o "$TMP/rt_$w"
    S=$TMP/rt_$w/summary.json
    check "$w: every transaction failed with the name error" \
        grep -qE "$fn: [a-z]+ name \"\"?[tcm]\\\\x0[09]" "$TMP/rt_$w/errors.csv"
    check "$w: no timer, counter or check cut at the NUL" \
        jq -e '[.timers[].name, .counters[].name, (.checks[]? | .name? // empty)]
               | map(select(test("^(.* )?[tcm]$"))) | length == 0' "$S"
done

# ---- 2. a scenario file that never returns ----
printf 'while true do end\n' > "$D/spin.lua"
printf 'while true do pcall(function() while true do end end) end\n' > "$D/spin_pcall.lua"
printf 'return setmetatable({}, { __index = function() while true do end end })\n' > "$D/spin_index.lua"
for f in spin spin_pcall spin_index; do
    LUAMECH_LOAD_TIMEOUT=300ms lm 3 "$f.lua: still running after 300ms, the time limit of a scenario file" \
        run $f.lua -o "$TMP/r_$f"
    check "$f: no results directory" [ ! -e "$TMP/r_$f" ]
done
LUAMECH_LOAD_TIMEOUT=300ms lm 3 'spin.lua: still running after 300ms' suite spin.lua -o "$TMP/r_suite"
LUAMECH_LOAD_TIMEOUT=0x10 lm 2 'LUAMECH_LOAD_TIMEOUT: expected a duration' run idle.lua -o "$TMP/r5"

# ---- 3. script errors are not blamed on the server ----
cat > "$D/typo.lua" <<'EOF'
return { run_time = "1s", interval = "1s", groups = { { name = "b", vus = 2, script = "typo_vu.lua" } } }
EOF
printf 'return function() error("typo in my script") end\n' > "$D/typo_vu.lua"
lm 0 'failed in under 1 ms: the script raised an error and no request failed \(most often: ".*typo in my script"\)' \
    run typo.lua -q -o "$TMP/typo"
check "script errors: the server is not blamed" bash -c "! grep -q 'server was probably down' '$TMP/o'"
check "script errors: summary.json's fast_failures says so" \
    grep -q "the script raised an error" <(jq -r .fast_failures.text "$TMP/typo/summary.json")

# ---- 4. error values that are not strings ----
printf 'error(nil)\n' > "$D/err_nil.lua"
printf 'error(setmetatable({}, { __tostring = function() return nil end }))\n' > "$D/err_tbl.lua"
lm 3 'err_nil.lua: \(error object is a nil value\)' run err_nil.lua -o "$TMP/r6"
check "error(nil): no (null)" bash -c "! grep -q '(null)' '$TMP/o'"
lm 3 'err_tbl.lua: \(error object is a table value\)' run err_tbl.lua -o "$TMP/r7"
check "error(table): no (null)" bash -c "! grep -q '(null)' '$TMP/o'"

# ---- 5. the command line ----
lm 2 "unknown or incomplete option '-q=1'" run -q=1 idle.lua
lm 2 "unknown or incomplete option '-qx'" run -qx idle.lua
lm 2 "unknown or incomplete option '--bogus'" run idle.lua --bogus
lm 2 "--duration: expected a duration .*got '0x10'" run idle.lua -d 0x10
lm 2 "--duration: expected a duration .*got 'inf'" run idle.lua -d inf
lm 2 "--duration: expected a duration .*got ' 5s'" run idle.lua -d ' 5s'
lm 2 "--vus: expected an integer .*got '0x10'" run idle.lua -u 0x10
lm 2 "--requests: expected an integer .*got 'nan'" run idle.lua -n nan

# ---- 6. CPUs the machine does not have ----
lm 2 "--cpus: no CPU 999 on this machine for luamech \(CPUs [0-9,-]+" run idle.lua -c 999 -o "$TMP/r8"
check "-c 999: no results directory" [ ! -e "$TMP/r8" ]

# ---- 7. luamech new ----
ln -s "$TMP/nowhere" "$D/dangling"
lm 2 "'dangling' already exists and is not an empty folder" new dangling
check "new: the dangling symlink is left alone" [ -L "$D/dangling" ]
(cd "$D" && "$LUAMECH" new $'x\001y' > "$TMP/o" 2>&1); rc=$?
check "new with a control character: exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "new with a control character: echoed escaped" grep -qF "'x\\x01y'" "$TMP/o"
check "new with a control character: no raw control byte" bash -c "! grep -q \$'\\001' '$TMP/o'"

# ---- 8. a threshold written as a table ----
cat > "$D/thr_table.lua" <<'EOF'
return { run_time = "1s", thresholds = { { "p95 < 10ms" } }, groups = { { name = "g", vus = 1, script = "idle_vu.lua" } } }
EOF
lm 3 'thresholds\[1\]: expected a string such as "GET p95 < 5ms", got a table' run thr_table.lua -o "$TMP/r9"
check "threshold table: no address in the message" bash -c "! grep -q '0x[0-9a-f]' '$TMP/o'"

finish
