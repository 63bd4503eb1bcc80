# Issue 24, item 3: a threshold subject that names a timer luamech makes by
# itself (a group, a stage, engine.*, http.*, memcached.*) but that this run
# can never make is refused before any load: exit 3, a did-you-mean, no
# request reaches nginx and no results directory is made.  A name made at
# run time (a custom timer) is accepted, and when it got no data the
# criterion fails at the end naming the nearest name the run has.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_http.sh"
start_nginx PORT "$TMP/ng"
L=$TMP/ng/access.log
cat > "$TMP/vu.lua" <<'LUA'
local c = assert(luamech.http.new("http://127.0.0.1:" .. luamech.param("PORT")))
return function()
  local t = luamech.timer("login"):start()
  assert(c:get("/hello", { name = "home" }).status == 200)
  t:stop()
end
LUA
# scen NAME THRESHOLD [PHASED]: a scenario file with that criterion (in a phase when PHASED)
scen() {
    if [ -n "${3:-}" ]; then
        printf 'return { name = "s", interval = "1s", phases = {\n  { name = "warm", run_time = "1s", groups = { { name = "readers", vus = 1, script = "vu.lua" } } },\n  { name = "main", run_time = "1s", thresholds = { %s },\n    groups = { { name = "readers", stages = { { duration = "1s", target = 1 } }, script = "vu.lua" } } } } }\n' "$2" > "$TMP/$1.lua"
    else
        printf 'return { name = "s", run_time = "1s", interval = "1s", thresholds = { %s },\n  groups = { { name = "readers", stages = { { duration = "1s", target = 1 } }, script = "vu.lua" } } }\n' "$2" > "$TMP/$1.lua"
    fi
}
refused() { # refused NAME THRESHOLD HINT [PHASED]
    scen "$1" "$2" "${4:-}"
    : > "$L"
    "$LUAMECH" run "$TMP/$1.lua" -q -e PORT=$PORT -o "$TMP/r_$1" > "$TMP/$1.out" 2>&1
    local rc=$?
    nginx_settle "$L"
    check "$2${4:+ (in a phase)}: refused before any load, exit 3 (got $rc: $(head -c 300 "$TMP/$1.out"))" \
        [ "$rc" -eq 3 -a ! -s "$L" -a ! -e "$TMP/r_$1" ]
    check "$2: the message names it and suggests $3" grep -qF "$3" "$TMP/$1.out"
}
refused group '"group reader p95 < 5ms"' 'did you mean "group readers"?'
refused http '"http.gett errors rate < 1%"' 'did you mean "http.get"?'
refused engine '"engine.loop_lagg p99 < 5ms"' 'did you mean "engine.loop_lag"?'
refused mc '"memcached.gte count > 0"' 'did you mean "memcached.get"?'
refused stage '"stage 3 readers count > 0"' 'no timer "stage 3 readers" can exist in this run'
refused twin '"group reader (uncorrected) p95 < 5ms"' 'did you mean "group readers"?'
refused sel '"http.gett{k:v} count > 0"' 'did you mean "http.get"?'
refused phase '"group raeders p95 < 5ms"' 'phase main: thresholds[1]' phased
# accepted: names of every kind that this run makes, and names made at run time
scen ok '"group readers count > 0", "stage 1 readers count > 0", "http.get count > 0", "http count > 0", "http home count > 0", "engine.loop_lag count >= 0", "login count > 0", "logn count > 0"'
"$LUAMECH" run "$TMP/ok.lua" -q -e PORT=$PORT -o "$TMP/r_ok" > "$TMP/ok.out" 2>&1
rc=$?
s=$TMP/r_ok/summary.json
check "known subjects run (exit 6: only the misspelt custom timer fails; got $rc)" \
    [ "$rc" -eq 6 -a "$(jq '[.thresholds[] | select(.passed | not)] | length' "$s")" = 1 ]
check "a custom timer name is accepted before the run, and without data it fails naming the nearest: $(jq -r '.thresholds[7].reason' "$s")" \
    [ "$(jq -r '.thresholds[7].reason' "$s")" = 'no data for logn (did you mean "login"?)' ]
check "the console says it too" grep -qF '(did you mean "login"?)' "$TMP/ok.out"
check "junit.xml too" grep -qF 'no data for logn (did you mean &quot;login&quot;?)' "$TMP/r_ok/junit.xml"

finish
