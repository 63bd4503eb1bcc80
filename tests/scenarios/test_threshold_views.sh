# Issue 24, timer families: a threshold subject's view suffix is parsed as a
# view of the timer families it names, also after a tag selector.  Against
# nginx, a client tagged flow=shop whose "cart" request times out after
# 0.5 s: "http{flow:shop} (all) p99 < 400ms" judges every sample, the
# timeouts included, and fails the gate (exit 6) where the default view
# (no suffix, or " (default)") passes; summary.json's thresholds[] say which
# family and view each criterion judged; counts and errors are what nginx
# saw.  A group called "a (uncorrected)" is that group, not a view of
# "group a" (also at the plan-time check); a family no run can make is
# refused before any load, its suffix looked through.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_http.sh"
F=$SRC/tests/scenarios/fixtures
start_nginx PORT "$TMP/ng"
L=$TMP/ng/access.log
run() { "$LUAMECH" run "$F/threshold_views.lua" -q -w 1 -e PORT=$PORT -e MODE=$1 -o "$TMP/$1" > "$TMP/$1.out" 2>&1; }
s=$TMP/views/summary.json
th() { jq -r ".thresholds[$1].$2" "$s"; }

run views
rc=$?
nginx_settle "$L"
errors=$(th 4 measured)
# nginx logs a /slow request when its 3 s sleep ends, after luamech gave up on it
for _ in $(seq 80); do [ "$(logged 't=cart ')" -ge "${errors%.*}" ] 2>/dev/null && break; sleep 0.1; done
ok=$(( $(logged 't=home ') + $(logged 't=login ') ))
check "exit 6: the (all) view fails the gate (got $rc: $(tail -3 "$TMP/views.out"))" [ "$rc" -eq 6 ]
check "http{flow:shop} p99 < 400ms (default view) passes: $(th 0 measured) ms" [ "$(th 0 passed)" = true ]
check "http{flow:shop} (all) p99 < 400ms fails on the 0.5 s timeouts: $(th 1 measured) ms" \
    [ "$(th 1 passed)" = false -a "$(jq '.thresholds[1].measured >= 500' "$s")" = true ]
check "... and only it failed" [ "$(jq '[.thresholds[] | select(.passed | not)] | length' "$s")" -eq 1 ]
check "http{flow:shop} (default) is the default view: $(th 7 measured) ms = $(th 0 measured) ms" \
    [ "$(th 7 passed)" = true -a "$(th 7 measured)" = "$(th 0 measured)" ]
check "thresholds[].family and .view: http{flow:shop} default / all / default" \
    [ "$(jq -r '[.thresholds[0, 1, 7] | "\(.family)|\(.view)"] | join(",")' "$s")" = \
      "http{flow:shop}|default,http{flow:shop}|all,http{flow:shop}|default" ]
check "thresholds[].timer keeps the subject as written" [ "$(th 1 timer)" = "http{flow:shop} (all)" ]
check "the timeouts are errors of both views: $(th 4 measured) = $(th 5 measured) = nginx's $(logged 't=cart ') cart requests" \
    [ "$errors" -gt 0 -a "$(th 5 measured)" = "$errors" -a "$(logged 't=cart ')" = "$errors" ]
check "both views count every request of the flow: $(th 2 measured) = $(th 3 measured) = nginx's $ok successes + $errors timeouts" \
    [ "$(th 2 measured)" = $(( ok + errors )) -a "$(th 3 measured)" = "$(th 2 measured)" ]
check "group a (uncorrected) is the group so named: $(th 6 measured) = its timer's count, view default" \
    [ "$(th 6 passed)" = true -a "$(th 6 measured)" = "$(timer_count "$s" 'group a (uncorrected)')" \
      -a "$(th 6 family)|$(th 6 view)" = "group a (uncorrected)|default" ]
check "the console names the failed criterion" grep -q 'http{flow:shop} (all) p99 < 400ms.*FAIL' "$TMP/views.out"

: > "$L"
run default
rc=$?
check "the same subjects' default views pass: exit 0 (got $rc: $(tail -3 "$TMP/default.out"))" [ "$rc" -eq 0 ]

: > "$L"
run unknown
rc=$?
check "an unknown family with a view suffix is refused before any load: exit 3 (got $rc)" [ "$rc" -eq 3 ]
check "... naming the family and the nearest: $(head -1 "$TMP/unknown.out")" \
    grep -q 'thresholds\[2\] "group gx (all) count > 0": no timer "group gx" can exist in this run (did you mean "group g"?)' "$TMP/unknown.out"
check "... and nginx saw no request" [ "$(logged ' HTTP/1.1')" = 0 ]
finish
