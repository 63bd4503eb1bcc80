# One view per closed interval (src/report/view.c): however many outputs a
# run has (the JSON stream, Prometheus remote write, the dashboard,
# summary.json, junit.xml, the stop on a failed threshold), its threshold
# verdicts and its generator health are evaluated once per interval.  With
# LUAMECH_TRACE_EVAL set, luamech says on stderr each time it evaluates
# them; counted here per number of closed intervals.  Before the view,
# thresholds were evaluated up to 4 times per interval and health up to 3.
# Also luamech merge --follow's rounds: one evaluation of each per round.
. "$(dirname "$0")/lib.sh"
F=$SRC/tests/scenarios/fixtures
start_memcached MC
DEAD=$(free_port)      # nothing listens: the Prometheus sink still builds its pushes (and drops them)

LUAMECH_TRACE_EVAL=1 "$LUAMECH" run "$F/eval_once.lua" -q -w 1 -e MEMCACHED=127.0.0.1:$MC -o "$TMP/r" \
    --stream "json=$TMP/s.jsonl" --stream "prometheus=http://127.0.0.1:$DEAD/api/v1/write" --dashboard 0 \
    > /dev/null 2> "$TMP/err.txt"
check "run exits 0" [ $? -eq 0 ]
N=$(jq '.timers[] | select(.name == "All Transactions") | .intervals | length' "$TMP/r/summary.json")
check "4 intervals or more" [ "$N" -ge 4 ]
check "every output got the thresholds (the stream's interval events)" \
    [ "$(jq -s '[.[] | select(.type == "interval") | .thresholds | length == 2] | all' "$TMP/s.jsonl")" = true ]
check "junit.xml has them" grep -q 'tests="2"' "$TMP/r/junit.xml"
# per interval: the lines of the intervals before the end (k < N: the end's
# own evaluations, console report and exit code included, are not per interval)
for what in thresholds health; do
    most=$(grep "luamech trace: $what evaluated at" "$TMP/err.txt" | awk -v n="$N" '$6 < n { c[$6]++ } END { m = 0; for (k in c) if (c[k] > m) m = c[k]; print m }')
    seen=$(grep -c "luamech trace: $what evaluated at" "$TMP/err.txt")
    echo "$what: $seen evaluations in all, at most $most for one interval"
    check "$what: evaluated at most once per closed interval (most: $most)" [ "$most" -le 1 ]
    check "$what: evaluated at all" [ "$seen" -ge 1 ]
done
finish
