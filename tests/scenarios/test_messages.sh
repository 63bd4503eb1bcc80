# Messages that say the next step: TLS to a plaintext port asks whether the
# server speaks TLS there; rate and stages together show the form that
# works; a rate group is announced with its rate, the VUs started and the
# most it may grow to (not "200 VUs"); the first progress line of a run
# with 1 s ticks already counts the first second (not "vus 0 tx 0").
. "$(dirname "$0")/lib.sh"

# A plaintext HTTP server (python's), spoken to over https
port=$(free_port)
python3 -m http.server "$port" --bind 127.0.0.1 > /dev/null 2>&1 & PIDS+=($!)
for _ in $(seq 100); do port_open "$port" && break; sleep 0.05; done
cat > "$TMP/tls_vu.lua" <<'LUA'
local c = luamech.http.new("https://127.0.0.1:" .. luamech.param("PORT"), { tls = { insecure = true } })
return function() local r, err = c:get("/"); if not r then error(err) end end
LUA
cat > "$TMP/tls.lua" <<'LUA'
return { run_time = "2s", requests = 1, groups = { { vus = 1, script = "tls_vu.lua" } } }
LUA
"$LUAMECH" run "$TMP/tls.lua" -e PORT="$port" -o "$TMP/tls" > "$TMP/tls.out" 2>&1
check "https to a plaintext port: OpenSSL's reason and the question ($(grep -m1 wrong "$TMP/tls/errors.csv"))" \
    grep -q "wrong version number (is the server speaking TLS on this port?)" "$TMP/tls/errors.csv"

# rate and stages together
cat > "$TMP/v.lua" <<'LUA'
return function() luamech.sleep(0.001) end
LUA
cat > "$TMP/rs.lua" <<'LUA'
return { run_time = "1s", groups = { { rate = 50, stages = { { duration = "1s", target = 10 } }, script = "v.lua" } } }
LUA
"$LUAMECH" run "$TMP/rs.lua" -o "$TMP/rs" > /dev/null 2> "$TMP/rs.err"
rc=$?
check "rate + stages: exit 3 ($rc)" [ $rc -eq 3 ]
check "rate + stages: shows the form that works ($(cat "$TMP/rs.err"))" \
    grep -qF 'groups[1].rate: give either rate or stages, not both: a constant rate is rate = N; a changing one is model = "rate", start = N (transactions/s at t = 0), stages = { { duration = "30s", target = M }, ... }' "$TMP/rs.err"
# ... and that form runs
cat > "$TMP/rs2.lua" <<'LUA'
return { run_time = "1s", groups = { { model = "rate", start = 20, stages = { { duration = "1s", target = 40 } }, script = "v.lua" } } }
LUA
"$LUAMECH" run "$TMP/rs2.lua" -q -o "$TMP/rs2" > /dev/null 2> "$TMP/rs2.err"
check "the form shown runs (exit $?)" [ "$(jq -r .status "$TMP/rs2/summary.json")" = completed ]
check "staged rate group announced with its rates ($(grep 'group ' "$TMP/rs2.err"))" \
    grep -q "^luamech: group group-1: rate from 20/s in 1 stage(s), up to 40/s, 10 VU(s) pre-allocated$" "$TMP/rs2.err"

# a rate group: what will really happen
cat > "$TMP/rate.lua" <<'LUA'
return { run_time = "2s", interval = "1s", groups = { { name = "api", rate = 100, vus = 20, max_vus = 200, script = "v.lua" } } }
LUA
"$LUAMECH" run "$TMP/rate.lua" -o "$TMP/rate" > /dev/null 2> "$TMP/rate.err"
check "rate group: announced as its rate, VUs started and the most ($(grep 'group api' "$TMP/rate.err"))" \
    grep -qx "luamech: group api: rate 100/s, 20 VU(s) pre-allocated, up to 200 when the server slows down" "$TMP/rate.err"
check "rate group: the banner says up to 200 VUs" grep -q "1 group(s), up to 200 VUs" "$TMP/rate.err"
first=$(grep -m1 '^\[' "$TMP/rate.err")
check "rate group: the first progress line counts the first second ($first)" \
    bash -c "[[ '$first' =~ vus\ +([0-9]+)\ +tx\ +([0-9]+) ]] && [ \${BASH_REMATCH[1]} -ge 20 -a \${BASH_REMATCH[2]} -gt 50 ]"

# closed VUs, 1 s ticks: the first line has them
cat > "$TMP/closed.lua" <<'LUA'
return { run_time = "2s", interval = "1s", groups = { { vus = 3, script = "v.lua" } } }
LUA
"$LUAMECH" run "$TMP/closed.lua" -o "$TMP/closed" > /dev/null 2> "$TMP/closed.err"
first=$(grep -m1 '^\[' "$TMP/closed.err")
check "closed: the first progress line has the 3 VUs and their transactions ($first)" \
    bash -c "[[ '$first' =~ vus\ +3\ +tx\ +([0-9]+) ]] && [ \${BASH_REMATCH[1]} -gt 100 ]"
finish
