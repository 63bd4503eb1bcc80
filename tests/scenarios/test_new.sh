# `luamech new NAME --template T`: every template's folder is written (scenario,
# VU script, README with the run commands, editor config and types) and runs
# green against real local servers (memcached, redis-server, webdis in front
# of that redis, as scripts/run-local.sh starts them; websocketd for ws), counting what the
# servers saw; the api template through the run-local.sh command `new`
# prints (nginx's JSON API over https), and the http2 template through its
# printed run-local.sh command too (an h2c nginx; it used to start none),
# failing its errors threshold (exit 6) when nothing answers; the printed luamech command is the
# one the user typed (a path, or the name on PATH); the memcached template also through the README's run-local.sh
# command, run as written (its absolute path: this binary's checkout's
# scripts/run-local.sh, or PREFIX/share/luamech/run-local.sh when installed
# - tests/scenarios/test_package.sh runs the installed case); a binary with
# no run-local.sh near it writes instructions for both; bad input exits 2
# with one message and writes nothing; a full disk (a small tmpfs) leaves
# nothing behind, and the retry succeeds.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_redis.sh"
. "$(dirname "$0")/lib_redis_cluster.sh"
. "$(dirname "$0")/lib_http.sh"
start_memcached MC
# nginx speaking h2c (prior knowledge) for the http2 template, its protocol logged
H2=$(free_port)
nginx_conf_head "$TMP/ng2" '$connection $server_protocol $request_method $uri $status'
printf '    server {\n        listen 127.0.0.1:%s http2;\n        location = / { return 200 "ok"; }\n    }\n' "$H2" >> "$TMP/ng2/nginx.conf"
nginx_conf_end "$TMP/ng2"
nginx_launch "$TMP/ng2" "$H2"
start_redis RD
# webdis in front of that redis, on a free port (retried if it is taken)
for _ in 1 2 3 4 5; do
    WD=$((10000 + RANDOM % 22000)); port_open "$WD" && continue
    cat > "$TMP/webdis.json" <<JSON
{ "redis_host": "127.0.0.1", "redis_port": $RD, "http_host": "127.0.0.1", "http_port": $WD,
  "threads": 1, "pool_size": 4, "daemonize": false, "websockets": false, "database": 0,
  "verbosity": 0, "logfile": "$TMP/webdis.log" }
JSON
    webdis "$TMP/webdis.json" & wpid=$!
    for _ in $(seq 100); do port_open "$WD" && break; kill -0 $wpid 2>/dev/null || break; sleep 0.05; done
    if port_open "$WD" && kill -0 $wpid 2>/dev/null; then PIDS+=($wpid); break; fi
    kill $wpid 2>/dev/null; WD=
done
[ -n "$WD" ] || { echo "cannot start webdis"; exit 1; }
# websocketd (Debian's) echoing each message through tee, which keeps a copy
WS=$(free_port)
websocketd --port="$WS" --address=127.0.0.1 tee -a "$TMP/ws.lines" > "$TMP/websocketd.log" 2>&1 & PIDS+=($!)
for _ in $(seq 100); do port_open "$WS" && break; sleep 0.05; done
LUAMECH=$(realpath "$LUAMECH"); SRC=$(realpath "$SRC")
# the run-local.sh next to this binary, as `luamech new` looks for it
RL=$(realpath -e "$(dirname "$LUAMECH")/../share/luamech/run-local.sh" 2>/dev/null ||
     realpath -e "$(dirname "$LUAMECH")/../scripts/run-local.sh" 2>/dev/null)
check "this binary has a run-local.sh near it ($RL)" [ -n "$RL" ]
start_redis_cluster
PARAMS=(-e MEMCACHED=127.0.0.1:$MC -e REDIS=127.0.0.1:$RD -e HTTP_BASE=http://127.0.0.1:$WD -e WS_URL=ws://127.0.0.1:$WS/ -e H2_BASE=http://127.0.0.1:$H2
        -e REDIS_CLUSTER=$CLUSTER)
cd "$TMP"

# run_template T: creates t_T, runs it for 1 s, checks the summary
run_template() {
    local t=$1 s
    "$LUAMECH" new "t_$t" --template "$t" > "$TMP/new_$t.out" 2>&1
    check "new t_$t --template $t exits 0" [ $? -eq 0 ]
    for f in scenario.lua vu.lua README.md .luarc.json types/luamech.lua; do
        check "t_$t/$f written" [ -s "t_$t/$f" ]
    done
    check "t_$t: no placeholder left" [ "$(grep -rl '{{' "t_$t" | wc -l)" -eq 0 ]
    check "t_$t/README.md has the plain run command" grep -qF "luamech run t_$t/scenario.lua -e " "t_$t/README.md"
    check "t_$t/README.md has the run-local.sh command with its path" grep -qxF "    bash $RL t_$t/scenario.lua -d 10s" "t_$t/README.md"
    check "t_$t/.luarc.json is JSON naming types/" [ "$(jq -r '."workspace.library"[0]' "t_$t/.luarc.json")" = types ]
    "$LUAMECH" run "t_$t/scenario.lua" -q -d 1s -s 1 "${PARAMS[@]}" -o "$TMP/r_$t" > "$TMP/run_$t.out" 2>&1
    local rc=$?
    check "template $t runs green (exit $rc)" [ $rc -eq 0 ]
    s=$TMP/r_$t/summary.json
    TX=$(jq -r '.timers[] | select(.name == "All Transactions") | .summary.count' "$s" 2>/dev/null || echo 0)
    local errs=$(jq -r '.timers[] | select(.name == "All Transactions") | .summary.errors' "$s" 2>/dev/null)
    local reqerrs=$(jq -r '[.request_errors[]?.count] | add // 0' "$s" 2>/dev/null)
    check "template $t: transactions ($TX) > 0" [ "${TX:-0}" -gt 0 ]
    check "template $t: no failed transactions ($errs) nor requests ($reqerrs)" [ "$errs" = 0 -a "$reqerrs" = 0 ]
    check "template $t: scenario name is t_$t" [ "$(jq -r .scenario "$s" 2>/dev/null)" = "t_$t" ]
}

run_template memcached
g=$(mc_stat "$MC" cmd_get); st=$(mc_stat "$MC" cmd_set)
check "memcached saw the template's gets and sets (get $g + set $st >= $TX)" [ $((g + st)) -ge "$TX" ]
check "memcached: about 10% sets ($st of $((g + st)))" awk "BEGIN { r = $st / ($g + $st); exit !(r > 0.07 && r < 0.13) }"
run_template rate
g2=$(mc_stat "$MC" cmd_get); st2=$(mc_stat "$MC" cmd_set)
check "memcached saw one set and one get per rate transaction ($((st2 - st)), $((g2 - g)), $TX)" \
    [ $((st2 - st)) -eq "$TX" -a $((g2 - g)) -eq "$TX" ]
check "rate template: about 200/s for 1 s ($TX)" [ "$TX" -ge 150 -a "$TX" -le 260 ]
run_template redis-cluster
g=$(cluster_cmdstat get); st=$(cluster_cmdstat set); ms=$(cluster_cmdstat mset)
n=0; for p in "${CL_PORTS[@]}"; do [ "$(redis_cmdstat "$p" get)" -gt 0 ] && n=$((n + 1)); done
check "the cluster saw the template's GETs and SETs ($g + $st >= $TX), MSETs ($ms), on every master ($n)" \
    [ $((g + st)) -ge "$TX" -a "$ms" -gt 0 -a "$n" -eq 3 ]
run_template redis
rg=$(redis_cmdstat "$RD" get); rs=$(redis_cmdstat "$RD" set)
check "redis saw the template's GETs and SETs ($rg + $rs >= $TX)" [ $((rg + rs)) -ge "$TX" ]
rs0=$rs; rg0=$rg
run_template http
rg=$(redis_cmdstat "$RD" get)
check "redis (behind webdis) saw one GET per http transaction ($((rg - rg0)) >= $TX)" [ $((rg - rg0)) -ge "$TX" ]
rg0=$rg; rd0=$(redis_cmdstat "$RD" del); rs0=$(redis_cmdstat "$RD" set)
run_template http2
nginx_settle "$TMP/ng2/access.log"
check "nginx served the http2 template's $TX GETs over HTTP/2.0, one connection per worker ($(nginx_requests "$TMP/ng2/access.log" ' HTTP/2.0 GET / 200'), $(nginx_connections "$TMP/ng2/access.log") <= $(nproc))" \
    [ "$(nginx_requests "$TMP/ng2/access.log" ' HTTP/2.0 GET / 200')" -eq "$TX" -a "$(nginx_connections "$TMP/ng2/access.log")" -le "$(nproc)" ]
run_template webdis
rs=$(redis_cmdstat "$RD" set); rd=$(redis_cmdstat "$RD" del); rg=$(redis_cmdstat "$RD" get)
check "webdis: redis saw a SET, a GET and a DEL per transaction ($((rs - rs0)) $((rg - rg0)) $((rd - rd0)) >= $TX)" \
    [ $((rs - rs0)) -ge "$TX" -a $((rg - rg0)) -ge "$TX" -a $((rd - rd0)) -ge "$TX" ]
cp=$(jq '[.checks[] | select(.name == "read back what was created") | .passes] | add' "$TMP/r_webdis/summary.json")
check "webdis: every read-back check passed ($cp)" [ "${cp:-0}" -gt 0 ]
check "webdis: each step timed (create, read, delete)" [ "$(jq '[.timers[] | select(.name | test("^http (create|read|delete)$"))] | length' "$TMP/r_webdis/summary.json")" -eq 3 ]
run_template ws
wsent=$(jq -r '[.counters[] | select(.name == "ws.messages_sent") | .total] | add // 0' "$TMP/r_ws/summary.json")
wrecv=$(jq -r '[.counters[] | select(.name == "ws.messages_received") | .total] | add // 0' "$TMP/r_ws/summary.json")
check "ws: websocketd received every message sent ($(wc -l < "$TMP/ws.lines") = $wsent = $TX) and luamech every echo ($wrecv)" \
    [ "$(wc -l < "$TMP/ws.lines")" -eq "$wsent" -a "$wsent" -eq "$TX" -a "$wrecv" -eq "$TX" ]
wcp=$(jq '[.checks[] | select(.name == "echoed") | .passes] | add' "$TMP/r_ws/summary.json")
check "ws: every echo check passed ($wcp = $TX)" [ "${wcp:-0}" -eq "$TX" ]

# The api template, as a newcomer runs it: `luamech new t_api --template api`,
# then the run-local.sh command it prints (nginx's JSON API over https with
# a CA made at start): a passing API flow, every threshold and check held,
# and the API saw the logins over https.
"$LUAMECH" new t_api --template api > "$TMP/new_api.out" 2>&1
check "new t_api --template api exits 0" [ $? -eq 0 ]
check "t_api: no placeholder left" [ "$(grep -rl '{{' t_api | wc -l)" -eq 0 ]
check "t_api: a JSON API flow (login, bearer token, PATCH, logout)" \
    bash -c "grep -q '/api/login' t_api/vu.lua && grep -q 'Bearer' t_api/vu.lua && grep -q 'api:patch' t_api/vu.lua"
check "t_api: checks and thresholds" bash -c "grep -q 'thresholds' t_api/scenario.lua && grep -q 'luamech.check' t_api/vu.lua"
check "t_api: the plain command names API_BASE and API_CA" \
    grep -qF "run it:  $LUAMECH run t_api/scenario.lua -e API_BASE=https://host:port -e API_CA=ca.pem" "$TMP/new_api.out"
apicmd=$(sed -n 's/^    or:  \(bash .*run-local\.sh t_api\/scenario\.lua\) .*$/\1/p' "$TMP/new_api.out")
check "t_api: new printed the run-local.sh command ($apicmd)" [ -n "$apicmd" ]
(cd "$TMP" && export LUAMECH && API_ACCESS_LOG=$TMP/api.log eval "$apicmd -d 2s -o r_api") > "$TMP/api_run.out" 2>&1
rc=$?
check "t_api via run-local.sh: exit 0 ($rc; $(grep -m1 -E 'FAIL|error' "$TMP/api_run.out"))" [ $rc -eq 0 ]
S=$TMP/r_api/summary.json
check "t_api: every threshold passed" [ "$(jq '[.thresholds[] | select(.passed | not)] | length' "$S")" = 0 -a "$(jq '.thresholds | length' "$S")" -ge 4 ]
check "t_api: no failed transaction" [ "$(timer_errors "$S" "All Transactions")" = 0 -a "$(timer_count "$S" "All Transactions")" -gt 0 ]
check "t_api: every check passed" [ "$(jq '[.checks[] | .fails] | add' "$S")" = 0 -a "$(jq '[.checks[] | .passes] | add' "$S")" -gt 0 ]
logins=$(timer_count "$S" "http login")
https_logins=$(grep -c "^POST /api/login 200 .*scheme=https" "$TMP/api.log")
check "t_api: the API saw every login over https ($https_logins of $logins)" [ "$logins" -gt 0 -a "$https_logins" = "$logins" ]

# The http2 template as a newcomer runs it: the run-local.sh command `new`
# prints starts an h2c server and passes it as H2_BASE (it used to pass none:
# every request to the default 127.0.0.1:8080 was refused, and the run
# exited 0); the h2c server saw every GET over HTTP/2.0.
h2cmd=$(sed -n 's/^    or:  \(bash .*run-local\.sh t_http2\/scenario\.lua\) .*$/\1/p' "$TMP/new_http2.out")
check "t_http2: new printed the run-local.sh command ($h2cmd)" [ -n "$h2cmd" ]
(cd "$TMP" && export LUAMECH && H2C_ACCESS_LOG=$TMP/h2c.log eval "$h2cmd -q -d 1s -o r_h2rl") > "$TMP/h2rl.out" 2>&1
rc=$?
S=$TMP/r_h2rl/summary.json
check "t_http2 via run-local.sh: exit 0 ($rc; $(grep -m1 -E 'FAIL|refused' "$TMP/h2rl.out"))" [ $rc -eq 0 ]
h2tx=$(timer_count "$S" "All Transactions")
check "t_http2 via run-local.sh: no failed transaction ($(timer_errors "$S" "All Transactions") of $h2tx)" \
    [ "$(timer_errors "$S" "All Transactions")" = 0 -a "${h2tx:-0}" -gt 0 ]
nginx_settle "$TMP/h2c.log"
check "t_http2 via run-local.sh: the h2c server saw every GET over HTTP/2.0 ($(nginx_requests "$TMP/h2c.log" ' HTTP/2.0 GET / 200') = $h2tx)" \
    [ "$(nginx_requests "$TMP/h2c.log" ' HTTP/2.0 GET / 200')" = "$h2tx" ]
# ... and where nothing answers, the template's threshold fails the run (exit 6, not 0)
"$LUAMECH" run t_http2/scenario.lua -q -d 1s -e H2_BASE=http://127.0.0.1:$(free_port) -o "$TMP/r_h2down" > "$TMP/h2down.out" 2>&1
rc=$?
check "t_http2 with its server down: exit 6 ($rc), a failed threshold" \
    [ $rc -eq 6 -a "$(jq '[.thresholds[] | select(.passed | not)] | length' "$TMP/r_h2down/summary.json")" = 1 ]
# every template has a threshold on its errors, so that a run where all fails does not exit 0
"$LUAMECH" new t_grpc --template grpc > /dev/null 2>&1
for t in memcached redis redis-cluster http http2 webdis rate ws grpc; do
    check "t_$t: a threshold on errors" grep -q '"errors rate < 1%"\|checks rate' "t_$t/scenario.lua"
done
# the grpc template's README says what its VU does: a unary call and a bidirectional stream
check "t_grpc/README.md names the unary method and the bidirectional stream" \
    bash -c "grep -q 'unary gRPC method and a bidirectional stream' t_grpc/README.md && grep -q 'open_stream' t_grpc/vu.lua"

# the README's run-local.sh command, as written (then -q -d 1s -o r_rl: the last -d wins)
"$LUAMECH" new viarl > "$TMP/new_viarl.out" 2>&1
check "default template is memcached" grep -q "luamech.memcached.connect" viarl/vu.lua
check "new prints the run-local.sh command with its path" grep -qF "or:  bash $RL viarl/scenario.lua" "$TMP/new_viarl.out"
check "new prints the luamech it was run as ($LUAMECH)" grep -qF "run it:  $LUAMECH run viarl/scenario.lua" "$TMP/new_viarl.out"
rel=$(realpath --relative-to="$TMP" "$LUAMECH")
"$rel" new viarel > "$TMP/new_rel.out" 2>&1
check "new run as $rel prints $rel run ..." grep -qF "run it:  $rel run viarel/scenario.lua" "$TMP/new_rel.out"
check "... and writes it in the README" grep -qF "    $rel run viarel/scenario.lua -e " viarel/README.md
PATH=$(dirname "$LUAMECH"):$PATH luamech new viapath > "$TMP/new_path.out" 2>&1
check "new found on PATH prints luamech run ..." grep -qF "run it:  luamech run viapath/scenario.lua" "$TMP/new_path.out"
rlcmd=$(sed -n 's/^    \(bash .*run-local\.sh viarl\/scenario\.lua.*\)$/\1/p' viarl/README.md)
check "viarl/README.md has one run-local.sh command ($rlcmd)" [ "$(wc -l <<< "$rlcmd")" -eq 1 -a -n "$rlcmd" ]
(cd "$TMP" && export LUAMECH && eval "$rlcmd -q -d 1s -o r_rl") > "$TMP/rl.out" 2>&1
check "the README's run-local.sh command runs the generated scenario green (exit $?)" [ "$(jq -r .status "$TMP/r_rl/summary.json")" = completed ]
check "run-local.sh: transactions > 0, no errors" [ "$(jq -r '.timers[] | select(.name == "All Transactions") | "\(.summary.count > 0) \(.summary.errors)"' "$TMP/r_rl/summary.json")" = "true 0" ]

# a binary with no run-local.sh near it (copied alone): the README says where
# the script is in a checkout and where luamech is installed
mkdir -p "$TMP/alone"; cp "$LUAMECH" "$TMP/alone/luamech"
(cd "$TMP/alone" && ./luamech new lone > new.out 2>&1)
check "alone: new exits 0" [ -s "$TMP/alone/lone/README.md" ]
check "alone: ./luamech new prints ./luamech run ..." grep -qF "run it:  ./luamech run lone/scenario.lua" "$TMP/alone/new.out"
check "alone: the checkout's command" grep -qxF "    bash scripts/run-local.sh lone/scenario.lua -d 10s" "$TMP/alone/lone/README.md"
check "alone: and the installed script's path" grep -qF 'bash /usr/share/luamech/run-local.sh lone/scenario.lua' "$TMP/alone/lone/README.md"
check "alone: PREFIX/share/luamech/run-local.sh named" grep -qF 'PREFIX/share/luamech/run-local.sh' "$TMP/alone/lone/README.md"
check "alone: no placeholder left" [ "$(grep -c '{{' "$TMP/alone/lone/README.md")" -eq 0 ]

# bad input: exit 2, one clear message, nothing written
bad() { # bad "what" "expected message" args...
    local what=$1 msg=$2; shift 2
    "$LUAMECH" new "$@" > "$TMP/bad.out" 2>&1
    local rc=$?
    check "$what: exit 2 ($rc)" [ $rc -eq 2 ]
    check "$what: says '$msg'" grep -qF -- "$msg" "$TMP/bad.out"
    check "$what: one message (and where to find help)" [ "$(wc -l < "$TMP/bad.out")" -eq 2 ]
}
sum_before=$(cat t_memcached/*.lua t_memcached/*.md | md5sum)
bad "existing non-empty folder" "'t_memcached' already exists and is not an empty folder" t_memcached
check "the existing folder is untouched" [ "$(cat t_memcached/*.lua t_memcached/*.md | md5sum)" = "$sum_before" ]
touch afile
bad "existing file" "'afile' already exists" afile
bad "unknown template" "unknown template 'mongo' (memcached, redis, redis-cluster, http, http2, api, webdis, rate, ws or grpc)" x1 --template mongo
check "unknown template writes nothing" [ ! -e x1 ]
bad "bad name (slash)" "bad NAME 'a/b'" a/b
bad "bad name (dot first)" "bad NAME '.hidden'" .hidden
bad "bad name (space)" "bad NAME 'a b'" "a b"
bad "missing name" "missing the NAME" --template redis
bad "--template without a value" "--template needs a value" x2 --template
bad "two names" "unexpected argument 'y'" x3 y
bad "unknown option" "unknown option '--force'" x4 --force
check "bad input wrote nothing" [ ! -e x2 -a ! -e x3 -a ! -e x4 -a ! -e a ]
mkdir empty
"$LUAMECH" new empty --template=redis > /dev/null 2>&1
check "an existing empty folder is filled (--template=redis)" grep -q "luamech.redis.connect" empty/vu.lua
check "... with the mode mkdir gives ($(stat -c %a empty))" [ "$(stat -c %a empty)" = "$(mkdir m; stat -c %a m; rmdir m)" ]

# A full disk: a 64 KB tmpfs filled but for 8 KB.  The folder cannot be
# written whole (types/luamech.lua alone is 28 KB): exit 1, the reason,
# and nothing left behind - no NAME/ and no temporary sibling - so that the
# same command succeeds once there is room (a half-written folder used to
# stay, and the retry was refused as "not an empty folder").
mkdir "$TMP/small"
if mount -t tmpfs -o size=64k tmpfs "$TMP/small" 2> "$TMP/mount.err"; then
    dd if=/dev/zero of="$TMP/small/filler" bs=1k count=56 2> /dev/null
    (cd "$TMP/small" && "$LUAMECH" new full > "$TMP/full.out" 2>&1)
    rc=$?
    echo "full disk: exit $rc: $(tr '\n' ' ' < "$TMP/full.out"); left: $(ls -A "$TMP/small" | tr '\n' ' ')"
    check "full disk: exit 1 (a run-time failure)" [ $rc -eq 1 ]
    check "full disk: says why" grep -q "No space left on device" "$TMP/full.out"
    check "full disk: says nothing was written" grep -q "nothing was written (full/ was not created)" "$TMP/full.out"
    check "full disk: nothing left behind" [ "$(ls -A "$TMP/small")" = filler ]
    rm "$TMP/small/filler"
    (cd "$TMP/small" && "$LUAMECH" new full > "$TMP/full2.out" 2>&1)
    check "full disk: the retry with room succeeds" [ $? -eq 0 ]
    check "full disk: ... and writes the whole folder" cmp -s "$TMP/small/full/types/luamech.lua" "$SRC/lua/types/luamech.lua"
    umount "$TMP/small"
else
    echo "SKIP: full disk: cannot mount a tmpfs here ($(cat "$TMP/mount.err")): run the test as root"
fi
"$LUAMECH" new --help > "$TMP/help.out" 2>&1
check "new --help exits 0 and shows the templates" grep -q "memcached|redis|redis-cluster|http|http2|api|webdis|rate|ws" "$TMP/help.out"
# every template directory is offered, and every list of them names the same
list=$(sed -nE 's/^usage: luamech new NAME \[--template ([^]]*)\]$/\1/p' "$TMP/help.out")
dirs=$(cd "$SRC/templates" && for d in */; do echo "${d%/}"; done | sort | paste -sd'|')
check "new --help lists each folder of templates/ ($list; $dirs)" [ "$(tr '|' '\n' <<< "$list" | sort | paste -sd'|')" = "$dirs" ]
"$LUAMECH" --help > "$TMP/main-help.out" 2>&1
check "luamech --help lists the same templates" grep -qF -- "luamech new NAME [--template $list]" "$TMP/main-help.out"
check "README.md lists the same templates" grep -qF -- "luamech new NAME [--template $list]" "$SRC/README.md"
"$LUAMECH" new x --template nope > "$TMP/nope.out" 2>&1
rc=$?
want="unknown template 'nope' ($(sed 's/|/, /g; s/, \([^,]*\)$/ or \1/' <<< "$list"))"
check "an unknown template: exit 2 ($rc), the list named ($(head -1 "$TMP/nope.out"))" \
    [ $rc -eq 2 -a "$(grep -cF "$want" "$TMP/nope.out")" = 1 ]
finish
