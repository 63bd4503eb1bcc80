# Segments, the start barrier and merge (docs/distributed.md), with N local
# processes against a real memcached and redis-server:
#  - 4 segments of a --requests run: the merged count equals the server's
#    own counter and a single-process run's count with the same seed, and
#    every VU drew the same keys as in the single-process run;
#  - merged percentiles agree with the segments' logs merged independently
#    (hdr-histogram-js, tests/hlog_js), thresholds are evaluated on the
#    merged data (each segment fails a count criterion, the merge passes);
#  - --segment auto from JOB_COMPLETION_INDEX (a Kubernetes pod's command
#    line) and SLURM_PROCID; --start-at gives every segment the same t0;
#  - min and max of every timer and interval are exact after the merge, and
#    failed samples reach the "(all)" twins;
#  - generator health: lag percentiles the worst segment's, counts summed,
#    a suspect segment makes the merged run suspect;
#  - intervals align on wall-clock time (a segment started 2.3 s late);
#  - stage rows of a staged run and a phased run's phases table merged equal
#    a single-process run's and memcached's counters;
#  - bad input: --segment 9/8, 0/0, garbage, a start in the past, mixed,
#    duplicate and missing segments: one message, exit 2.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_redis.sh"
. "$(dirname "$0")/lib_hdrjs.sh"
F=$SRC/tests/scenarios/fixtures
jqe() { jq "$@" > /dev/null; }      # check "..." jqe -e FILTER: a jq test, its output dropped
start_memcached MC
start_redis RD
N=4
REQ=2001

# seg_run KIND SERVER OUTDIR KEYDIR: N segments in parallel, then a merge
seg_run() {
    local kind=$1 server=$2 out=$3 keys=$4 i pids=()
    mkdir -p "$keys"
    for i in $(seq $N); do
        "$LUAMECH" run "$F/segments.lua" -q -n $REQ -s 7 --segment $i/$N -e KIND="$kind" -e SERVER="$server" \
            -e OUT="$keys" -o "$out/seg-$i" > "$out.seg$i.log" 2>&1 &
        pids+=($!)
    done
    for i in $(seq $N); do wait "${pids[$((i - 1))]}" || fail "$kind segment $i/$N exited $?"; done
    "$LUAMECH" merge "$out"/seg-* --out "$out/merged" > "$out.merge.log" 2>&1
    check "$kind: merge exits 0 ($?)" [ $? -eq 0 ]
}

for kind in memcached redis; do
    if [ $kind = memcached ]; then server=127.0.0.1:$MC; before=$(mc_stat "$MC" cmd_set)
    else server=127.0.0.1:$RD; before=$(redis_cmdstat "$RD" set); fi
    seg_run $kind "$server" "$TMP/$kind" "$TMP/$kind-keys"
    if [ $kind = memcached ]; then after=$(mc_stat "$MC" cmd_set); else after=$(redis_cmdstat "$RD" set); fi
    m=$TMP/$kind/merged/summary.json
    merged=$(timer_count "$m" "All Transactions")
    check "$kind: merged transactions $merged == the budget $REQ" [ "$merged" -eq $REQ ]
    check "$kind: the server counted $((after - before)) sets == merged $kind.set $(timer_count "$m" "$kind.set")" \
        [ $((after - before)) -eq "$(timer_count "$m" "$kind.set")" ]
    shares=$(for i in $(seq $N); do timer_count "$TMP/$kind/seg-$i/summary.json" "All Transactions"; done | tr '\n' ' ')
    check "$kind: segment shares $shares (501 500 500 500)" [ "$shares" = "501 500 500 500 " ]
    check "$kind: per-segment table of $N" [ "$(jq '.segments | length' "$m")" -eq $N ]
    check "$kind: merged intervals.csv written" [ -s "$TMP/$kind/merged/intervals.csv" ]
    check "$kind: merged report.html has the segments table" grep -q '<section id="segments"><h2>Segments (4)' "$TMP/$kind/merged/report.html"
    # the same run in one process: 4 VUs on 4 workers, the same seed and budget
    mkdir -p "$TMP/$kind-whole-keys"
    if [ $kind = memcached ]; then before=$(mc_stat "$MC" cmd_set); else before=$(redis_cmdstat "$RD" set); fi
    "$LUAMECH" run "$F/segments.lua" -q -n $REQ -s 7 -w $N -e KIND=$kind -e SERVER="$server" \
        -e OUT="$TMP/$kind-whole-keys" -o "$TMP/$kind-whole" > /dev/null 2>&1
    check "$kind: single-process run exits 0 ($?)" [ $? -eq 0 ]
    whole=$(timer_count "$TMP/$kind-whole/summary.json" "All Transactions")
    check "$kind: single-process transactions $whole == merged $merged" [ "$whole" -eq "$merged" ]
    same=0
    for f in "$TMP/$kind-whole-keys"/keys-*; do cmp -s "$f" "$TMP/$kind-keys/$(basename "$f")" && same=$((same + 1)); done
    check "$kind: each of the $N VUs set the same key sequence in both runs ($same same)" [ $same -eq $N ]
    check "$kind: the key files are not empty" [ "$(cat "$TMP/$kind-keys"/keys-* | wc -l)" -eq $REQ ]
done

# merged percentiles against hdr-histogram-js over the segments' logs
hdrjs_check_merge "$TMP/memcached/merged/summary.json" "$TMP"/memcached/seg-?

# thresholds on the merged data: each segment has ~500, the run 2001
mkdir -p "$TMP/th-keys"
for i in 1 2; do
    "$LUAMECH" run "$F/segments_threshold.lua" -q -n 1000 -s 3 --segment $i/2 -e SERVER=127.0.0.1:$MC \
        -e OUT="$TMP/th-keys" -o "$TMP/th/seg-$i" > /dev/null 2>&1
    check "threshold segment $i: fails its own count criterion (exit 6: $?)" [ $? -eq 6 ]
done
"$LUAMECH" merge "$TMP/th/seg-1" "$TMP/th/seg-2" --out "$TMP/th/merged" > /dev/null 2>&1
check "threshold: the merge passes it (exit $?)" [ $? -eq 0 ]
check "threshold: merged junit.xml has no failure" bash -c "! grep -q '<failure' '$TMP/th/merged/junit.xml'"

# stage rows: 4 segments of a staged rate run, merged, against one process and memcached
mkdir -p "$TMP/st-keys"
before=$(mc_stat "$MC" cmd_set)
pids=()
for i in $(seq $N); do
    "$LUAMECH" run "$F/segments_stages.lua" -q -n 20 -s 5 --segment $i/$N -e SERVER=127.0.0.1:$MC \
        -e OUT="$TMP/st-keys" -o "$TMP/st/seg-$i" > /dev/null 2>&1 &
    pids+=($!)
done
wait "${pids[@]}"
after=$(mc_stat "$MC" cmd_set)
"$LUAMECH" merge "$TMP"/st/seg-* --out "$TMP/st/merged" > /dev/null 2>&1
check "stages: merge exits 0 ($?)" [ $? -eq 0 ]
"$LUAMECH" run "$F/segments_stages.lua" -q -n 20 -s 5 -e SERVER=127.0.0.1:$MC -e OUT="$TMP/st-keys" \
    -o "$TMP/st/whole" > /dev/null 2>&1
stagerows() { jq -c '[.stages[] | select(.count > 0) | [.group, .stage, .count, .errors, .from, .to, .start_s, .target]]' "$1"; }
ms=$(stagerows "$TMP/st/merged/summary.json")
check "stages: merged stage rows $ms == the single-process run's $(stagerows "$TMP/st/whole/summary.json")" \
    [ "$ms" = "$(stagerows "$TMP/st/whole/summary.json")" ]
check "stages: two stages of 10 ($ms)" [ "$(jq -c '[.stages[] | .count] | .[0:2]' "$TMP/st/merged/summary.json")" = "[10,10]" ]
check "stages: memcached counted $((after - before)) sets == the merged stage rows' sum" \
    [ $((after - before)) -eq "$(jq '[.stages[] | .count] | add' "$TMP/st/merged/summary.json")" ]
check "stages: stage 1 ends at 1 s, as in one process" jqe -e '.stages[0].end_s == 1' "$TMP/st/merged/summary.json"
check "stages: the load target at 1 s is rebuilt ($(jq -c '.load.groups[0].targets' "$TMP/st/merged/summary.json"))" \
    jqe -e '.load.groups[0].targets[0] == 10' "$TMP/st/merged/summary.json"

# exact min and max: durations to the microsecond where a bucket is 4 us wide, failed ones too
at=$(date -u -d '+3 sec' +%Y-%m-%dT%H:%M:%S.%3NZ)
before=$(mc_stat "$MC" cmd_set)
pids=()
for i in $(seq $N); do
    "$LUAMECH" run "$F/segments_record.lua" -q -n 400 -s 9 --segment $i/$N --start-at "$at" -e SERVER=127.0.0.1:$MC \
        -o "$TMP/rec/seg-$i" > /dev/null 2>&1 &
    pids+=($!)
done
wait "${pids[@]}"
after=$(mc_stat "$MC" cmd_set)
"$LUAMECH" merge "$TMP"/rec/seg-* --out "$TMP/rec/merged" > /dev/null 2>&1
check "exact: merge exits 0 ($?)" [ $? -eq 0 ]
"$LUAMECH" run "$F/segments_record.lua" -q -n 400 -s 9 -w $N -e SERVER=127.0.0.1:$MC -o "$TMP/rec/whole" > /dev/null 2>&1
# recsum SUMMARY: "exact" and its views (views.jq's tflat: flat labels, schema 1 or 2)
recsum() { jqv -c 'include "views"; [tflat | select(.name | startswith("exact")) | [.name, .summary.count, .summary.errors, .summary.min_ms, .summary.max_ms]]' "$1"; }
check "exact: merged $(recsum "$TMP/rec/merged/summary.json") == one process's $(recsum "$TMP/rec/whole/summary.json") (count, errors, min, max of successes and of all samples)" \
    [ "$(recsum "$TMP/rec/merged/summary.json")" = "$(recsum "$TMP/rec/whole/summary.json")" ]
check "exact: the failed samples are in the merged (all) twin (400, its max above 10 ms)" \
    jqe -L "$SRC/tests/scenarios" -e 'include "views"; [s2.timers[] | select(.name == "exact") | .views.all.summary | .count == 400 and .max_ms > 10] == [true]' "$TMP/rec/merged/summary.json"
# every interval's min and max: the smallest and largest of the segments' own (exact) figures
for name in "exact" "exact (all)"; do
    want=$(jqv -s -c --arg n "$name" 'include "views"; [.[] | tview($n) | .intervals] | transpose
        | map(map(select(. != null and .count > 0)) | [(map(.min_ms) | min), (map(.max_ms) | max)])' "$TMP"/rec/seg-*/summary.json)
    got=$(jqv -c --arg n "$name" 'include "views"; [tview($n) | .intervals[] | select(.count > 0) | [.min_ms, .max_ms]]' \
        "$TMP/rec/merged/summary.json")
    check "exact: $name per-interval min/max $got == the segments' $want" [ "$got" = "$want" ]
done
check "exact: memcached counted $((after - before)) sets == 400" [ $((after - before)) -eq 400 ]

# a phased run: 2 segments merged in one command, against one process and memcached
sets0=$(mc_stat "$MC" cmd_set); gets0=$(mc_stat "$MC" cmd_get)
pids=()
for i in 1 2; do
    "$LUAMECH" run "$F/segments_phases.lua" -q -s 3 --segment $i/2 -e SERVER=127.0.0.1:$MC -o "$TMP/ph/seg-$i" \
        > /dev/null 2>&1 &
    pids+=($!)
done
for i in 1 2; do wait "${pids[$((i - 1))]}"; check "phased segment $i fails the thresholds alone (exit 6: $?)" [ $? -eq 6 ]; done
sets=$(( $(mc_stat "$MC" cmd_set) - sets0 )); gets=$(( $(mc_stat "$MC" cmd_get) - gets0 ))
"$LUAMECH" merge "$TMP"/ph/seg-* --out "$TMP/ph/merged" > "$TMP/ph.out" 2> "$TMP/ph.err"
check "phased: one merge exits 0: the thresholds pass on the merged phases ($?)" [ $? -eq 0 ]
"$LUAMECH" run "$F/segments_phases.lua" -q -s 3 -e SERVER=127.0.0.1:$MC -o "$TMP/ph/whole" > /dev/null 2>&1
phrows() { jq -c '[.exit_code, .phases_run, (.phases[] | [.name, .dir, .status, .transactions, .errors]), (.thresholds[] | [.criterion, .passed, .measured])]' "$1/summary.json"; }
check "phased: merged phases table $(phrows "$TMP/ph/merged") == one process's $(phrows "$TMP/ph/whole")" \
    [ "$(phrows "$TMP/ph/merged")" = "$(phrows "$TMP/ph/whole")" ]
check "phased: memcached counted $sets sets == the merged set phase" \
    [ $sets -eq "$(timer_count "$TMP/ph/merged/1-set/summary.json" memcached.set)" ]
check "phased: memcached counted $gets gets == the merged get phase" \
    [ $gets -eq "$(timer_count "$TMP/ph/merged/2-get/summary.json" memcached.get)" ]
check "phased: the get phase's own threshold passes on its merged data" \
    jqe -e '.thresholds[0].passed and .thresholds[0].measured == 400' "$TMP/ph/merged/2-get/summary.json"
check "phased: each phase has its per-segment table" \
    jqe -e '.segments | length == 2' "$TMP/ph/merged/1-set/summary.json" "$TMP/ph/merged/2-get/summary.json"
check "phased: phases.csv, junit.xml and the report are written" \
    [ -s "$TMP/ph/merged/phases.csv" -a -s "$TMP/ph/merged/junit.xml" -a -s "$TMP/ph/merged/report.html" ]
check "phased: the console shows the merged phases table" grep -q "^all phases  *700" "$TMP/ph.out"

# merge --follow of a phased run: waits for the phases, then merges them all
pids=()
for i in 1 2; do
    "$LUAMECH" run "$F/segments_phases.lua" -q -s 3 --segment $i/2 -e SERVER=127.0.0.1:$MC -o "$TMP/phf/seg-$i" \
        > /dev/null 2>&1 &
    pids+=($!)
done
timeout 60 "$LUAMECH" merge --follow "$TMP/phf/seg-1" "$TMP/phf/seg-2" --out "$TMP/phf/merged" > /dev/null 2>&1
rc=$?
wait "${pids[@]}"
check "phased --follow: exits 0 ($rc) with both phases merged" \
    jqe -e '[.phases[].transactions] == [300, 400]' "$TMP/phf/merged/summary.json"

# merge --follow stopped while phased segments are still in a phase: their
# results are written when the last phase ends, so nothing is merged and the
# message says why (it said "no segment had written results")
cat > "$TMP/phlong.lua" <<EOF
return { interval = "1s", workers = 1, phases = {
  { name = "set", run_time = "2s", groups = { { name = "s", vus = 2, script = "$F/segments_vu.lua" } } },
  { name = "get", run_time = "6s", groups = { { name = "g", vus = 2, script = "$F/segments_get_vu.lua" } } } } }
EOF
pids=()
for i in 1 2; do
    "$LUAMECH" run "$TMP/phlong.lua" -q -r 200 --segment $i/2 -e SERVER=127.0.0.1:$MC -o "$TMP/phl/seg-$i" > /dev/null 2>&1 &
    pids+=($!)
done
"$LUAMECH" merge --follow "$TMP/phl/seg-1" "$TMP/phl/seg-2" --out "$TMP/phl/merged" > /dev/null 2> "$TMP/phl.err" &
fpid=$!
for _ in $(seq 1 100); do [ -s "$TMP/phl/seg-1/1-set/summary.json" ] && break; sleep 0.1; done
sleep 1; kill -INT $fpid; wait $fpid; rc=$?
wait "${pids[@]}"
check "phased --follow stopped in a phase: exit 5 ($rc)" [ $rc -eq 5 ]
check "phased --follow stopped in a phase: the message says why nothing was merged" \
    grep -q "stopped by SIGINT: nothing merged: the segments are phased runs still in a phase" "$TMP/phl.err"
check "phased --follow stopped in a phase: nothing written" [ ! -e "$TMP/phl/merged/summary.json" ]

# --segment auto: a Kubernetes Indexed Job's pod command line, then Slurm's variables
mkdir -p "$TMP/auto-keys"
pids=()
for idx in 0 1; do
    JOB_COMPLETION_INDEX=$idx LUAMECH_SEGMENTS=2 "$LUAMECH" run "$F/segments.lua" -q -n 100 -s 1 --segment auto \
        -e SERVER=127.0.0.1:$MC -e OUT="$TMP/auto-keys" -o "$TMP/k8s/seg-$idx" > /dev/null 2> "$TMP/k8s-$idx.err" &
    pids+=($!)
done
wait "${pids[@]}"      # (a bare wait would wait for the servers too)
check "k8s: says where the segment came from" grep -q "segment auto: 1/2 from JOB_COMPLETION_INDEX=0, LUAMECH_SEGMENTS=2" "$TMP/k8s-0.err"
check "k8s: index 1 is segment 2" [ "$(jq .segment.index "$TMP/k8s/seg-1/summary.json")" -eq 2 ]
"$LUAMECH" merge "$TMP"/k8s/seg-* --out "$TMP/k8s/merged" > /dev/null 2>&1
check "k8s: merged 100 transactions" [ "$(timer_count "$TMP/k8s/merged/summary.json" "All Transactions")" -eq 100 ]
SLURM_PROCID=2 SLURM_NTASKS=3 "$LUAMECH" run "$F/segments.lua" -q -n 30 --segment auto -e SERVER=127.0.0.1:$MC \
    -e OUT="$TMP/auto-keys" -o "$TMP/slurm3" > /dev/null 2> "$TMP/slurm.err"
check "slurm: SLURM_PROCID=2 of 3 is segment 3/3" grep -q "3/3 from SLURM_PROCID=2, SLURM_NTASKS=3" "$TMP/slurm.err"

# --start-at: two segments, one instant: a whole second 4-5 s ahead (a
# fraction near .999 would put a start a few ms late in the next second).
# How late each wakes up (offset_ms, and so the merge's alignment) measures
# the machine: those checks are skipped, saying why, when it was busy.
at=$(date -u -d "@$(( $(date +%s) + 5 ))" +%Y-%m-%dT%H:%M:%S.000Z)
busy_mark
pids=()
for i in 1 2; do
    "$LUAMECH" run "$F/segments.lua" -q -d 1s --segment $i/2 --start-at "$at" -e SERVER=127.0.0.1:$MC \
        -e OUT="$TMP/auto-keys" -o "$TMP/at/seg-$i" > /dev/null 2>&1 &
    pids+=($!)
done
wait "${pids[@]}"
for i in 1 2; do
    s=$TMP/at/seg-$i/summary.json
    check "start-at: segment $i records the requested instant" [ "$(jqr "$s" .start_at.requested)" != null ]
    check "start-at: segment $i did not start before it ($(jqr "$s" .start_at.offset_ms) ms)" \
        jqe -e '.start_at.offset_ms >= 0' "$s"
    check_quiet "start-at: segment $i started within 50 ms of it ($(jqr "$s" .start_at.offset_ms) ms)" "$s" \
        jqe -e '.start_at.offset_ms < 50' "$s"
done
check "start-at: both started in the same second" [ "$(jqr "$TMP/at/seg-1/summary.json" .start)" = "$(jqr "$TMP/at/seg-2/summary.json" .start)" ]
"$LUAMECH" merge "$TMP"/at/seg-* --out "$TMP/at/merged" > /dev/null 2> "$TMP/at.err"
check "start-at: merged with no shift ($(jq -c '[.segments[].interval_shift]' "$TMP/at/merged/summary.json"))" \
    jqe -e '[.segments[].interval_shift] == [0, 0]' "$TMP/at/merged/summary.json"
check_quiet "start-at: no alignment warning" "$TMP/at/seg-1/summary.json" bash -c "! grep -q 'tolerance' '$TMP/at.err'"

# without --start-at: segment 2 starts about 2.3 s after segment 1; the merge places its
# intervals by wall-clock time (start_unix_ns), not by number, and says they are misaligned
mkdir -p "$TMP/late-keys"
before=$(mc_stat "$MC" cmd_set)
"$LUAMECH" run "$F/segments.lua" -q -d 3s --segment 1/2 -e SERVER=127.0.0.1:$MC -e OUT="$TMP/late-keys" \
    -o "$TMP/late/seg-1" > /dev/null 2>&1 &
pid=$!
sleep 2.3
"$LUAMECH" run "$F/segments.lua" -q -d 3s --segment 2/2 -e SERVER=127.0.0.1:$MC -e OUT="$TMP/late-keys" \
    -o "$TMP/late/seg-2" > /dev/null 2>&1
wait $pid
after=$(mc_stat "$MC" cmd_set)
"$LUAMECH" merge "$TMP"/late/seg-* --out "$TMP/late/merged" > /dev/null 2> "$TMP/late.err"
check "late start: merge exits 0 ($?)" [ $? -eq 0 ]
# the placement computed here from the segments' own files: interval k of a segment
# goes to k + round((its start - the earliest start) / 1 s)
want=$(jq -s -c '[.[] | {t0: .start_unix_ns, c: [.timers[] | select(.name == "All Transactions") | .intervals[].count]}]
    | (map(.t0) | min) as $m | map(. + {s: (((.t0 - $m) / 1e9) | round)})
    | (map(.s + (.c | length)) | max) as $n
    | [range($n) as $k | [.[] | if $k >= .s then (.c[$k - .s] // 0) else 0 end] | add]' "$TMP/late/seg-1/summary.json" "$TMP/late/seg-2/summary.json")
got=$(jq -c '[.timers[] | select(.name == "All Transactions") | .intervals[].count]' "$TMP/late/merged/summary.json")
check "late start: merged intervals $got == placed by start time $want" [ "$got" = "$want" ]
check "late start: segment 2 shifted by 2 or more intervals ($(jq -c '[.segments[].interval_shift]' "$TMP/late/merged/summary.json"))" \
    jqe -e '.segments[0].interval_shift == 0 and .segments[1].interval_shift >= 2' "$TMP/late/merged/summary.json"
check "late start: more intervals than either segment's (by time, not by number)" \
    jqe -e '[.timers[] | select(.name == "All Transactions") | .intervals | length] == [.segments[1].interval_shift + 3]' "$TMP/late/merged/summary.json"
check "late start: the merge says the starts differ by more than the tolerance" grep -q "more than the tolerance, 50 ms" "$TMP/late.err"
check "late start: memcached counted $((after - before)) sets == merged" \
    [ $((after - before)) -eq "$(timer_count "$TMP/late/merged/summary.json" memcached.set)" ]

# merge --follow while two segments run: live progress lines, then the final merge
mkdir -p "$TMP/follow-keys"
pids=()
for i in 1 2; do
    "$LUAMECH" run "$F/segments.lua" -q -d 3s --segment $i/2 -e SERVER=127.0.0.1:$MC -e OUT="$TMP/follow-keys" \
        -o "$TMP/follow/seg-$i" > /dev/null 2>&1 &
    pids+=($!)
done
before=$(mc_stat "$MC" cmd_set)
timeout 60 "$LUAMECH" merge --follow "$TMP/follow/seg-1" "$TMP/follow/seg-2" --out "$TMP/follow/merged" \
    > /dev/null 2> "$TMP/follow.err"
rc=$?
wait "${pids[@]}"
check "--follow: exits 0 when both ended ($rc)" [ $rc -eq 0 ]
check "--follow: printed live merged progress lines" grep -qE '^2/2 segments \(running [0-9], done [0-9], lost 0, waiting [0-9]\): \[' "$TMP/follow.err"
check "--follow: the final merge is complete" [ "$(jqr "$TMP/follow/merged/summary.json" .status)" = completed ]
fsum=$(( $(timer_count "$TMP/follow/seg-1/summary.json" "All Transactions") + $(timer_count "$TMP/follow/seg-2/summary.json" "All Transactions") ))
check "--follow: merged count == the segments' ($fsum)" [ "$(timer_count "$TMP/follow/merged/summary.json" "All Transactions")" -eq $fsum ]

# generator health: each figure with its operator, on the --follow run's segments with
# segment 2's loop lag p99 of interval 1 set to 999 ms and its generator marked suspect
mkdir -p "$TMP/health"
cp -r "$TMP/follow/seg-1" "$TMP/follow/seg-2" "$TMP/health/"
jq '(.timers[] | select(.name == "engine.loop_lag") | .intervals[0].p99_ms) = 999 | .generator.suspect = true
    | .generator.reasons = "injected"' "$TMP/follow/seg-2/summary.json" > "$TMP/health/seg-2/summary.json"
"$LUAMECH" merge "$TMP"/health/seg-* --out "$TMP/health/merged" > "$TMP/health.out" 2>&1
check "health: merge exits 0 ($?)" [ $? -eq 0 ]
hm=$TMP/health/merged/summary.json
sh2=$(jq '.segments[1].interval_shift' "$hm")     # segment 2's interval 1 is merged interval sh2 + 1
check "health: merged loop lag p99 of interval $((sh2 + 1)) is the largest segment's, 999 ms ($(jq -c '[.generator.intervals[].loop_lag_p99_ms]' "$hm"))" \
    jqe -e ".generator.intervals[$sh2].loop_lag_p99_ms == 999" "$hm"
check "health: the console's health line shows it (the worst interval's loop lag)" \
    grep -qE "^Generator: SUSPECT \(worst interval: .*loop lag p99 999\.000 ms\)" "$TMP/health.out"
# per interval, from the segments' own rows placed by their shifts: max, sum, max
for k in $(seq 0 $(( $(jq '.generator.intervals | length' "$hm") - 1 ))); do
    row=$(jq -c ".generator.intervals[$k]" "$hm")
    segs=$(jq -s -c --argjson k $k '(.[2].segments | map(.interval_shift)) as $sh
        | [.[0], .[1]] | to_entries | map(if $k >= $sh[.key] then .value.generator.intervals[$k - $sh[.key]] else null end) | map(select(. != null))' \
        "$TMP/health/seg-1/summary.json" "$TMP/health/seg-2/summary.json" "$hm")
    check "health interval $((k + 1)): lag max = the segments' max, late/skipped starts and dispatches = their sums, busiest segment's CPU" \
        jqe -n -e --argjson r "$row" --argjson s "$segs" '$r.loop_lag_max_ms == ($s | map(.loop_lag_max_ms) | max)
            and $r.late_starts == ($s | map(.late_starts) | add) and $r.skipped_starts == ($s | map(.skipped_starts) | add)
            and $r.dispatch_count == ($s | map(.dispatch_count) | add)
            and $r.cpu_percent_max_segment == ($s | map(.cpu_percent) | max)
            and $r.cpu_percent <= $r.cpu_percent_max_segment + 0.001'
done
check "health: a suspect segment makes the merged run suspect, named" \
    jqe -e '.generator.suspect and (.generator.reasons | contains("segment 2: injected"))' "$hm"

# bad input: one message, exit 2, no load
expect_usage() {  # expect_usage "message part" args...
    local want=$1; shift
    "$@" > "$TMP/out.txt" 2> "$TMP/err.txt"
    local rc=$?
    check "$* -> exit 2 ($rc)" [ $rc -eq 2 ]
    check "$*: says '$want'" grep -qF -- "$want" "$TMP/err.txt"
}
R=("$LUAMECH" run "$F/segments.lua" -e SERVER=127.0.0.1:$MC -e OUT="$TMP/auto-keys")
expect_usage "segment 9 of 8" "${R[@]}" --segment 9/8
expect_usage "segment 0 of 0" "${R[@]}" --segment 0/0
expect_usage "expected i/N such as 3/8" "${R[@]}" --segment three
expect_usage "the run has 4 VUs, so segment 5 would have none" "${R[@]}" --segment 5/8
expect_usage "leaves segment 4 nothing to do" "${R[@]}" --segment 4/4 -n 3
expect_usage "found no segment in the environment" env -u LUAMECH_SEGMENT -u JOB_COMPLETION_INDEX -u SLURM_PROCID "${R[@]}" --segment auto
expect_usage "in the past" "${R[@]}" --start-at 2020-01-01T00:00:00Z
expect_usage "expected an RFC 3339 time" "${R[@]}" --start-at 10am
# far instants (int64 ns overflowed: "-8617483818.634 s in the past"): refused, at most 7 days ahead
for far in 2300-01-01T00:00:00Z 9999-12-31T23:59:59Z +2500000h +169h; do
    expect_usage "--start-at: '$far' is too far in the future (at most 7 days ahead: " "${R[@]}" --start-at "$far"
done
expect_usage "is before 1970" "${R[@]}" --start-at 1900-01-01T00:00:00Z
mkdir -p "$TMP/seed8-keys"
"$LUAMECH" run "$F/segments.lua" -q -n $REQ -s 8 --segment 2/$N -e SERVER=127.0.0.1:$MC -e OUT="$TMP/seed8-keys" \
    -o "$TMP/seed8" > /dev/null 2>&1
expect_usage "different seed" "$LUAMECH" merge "$TMP/memcached/seg-1" "$TMP/seed8" --out "$TMP/bad1"
expect_usage "different segment count" "$LUAMECH" merge "$TMP/memcached/seg-1" "$TMP/th/seg-2" --out "$TMP/bad1"
expect_usage "given twice" "$LUAMECH" merge "$TMP/memcached/seg-1" "$TMP/memcached/seg-1" --out "$TMP/bad2"
expect_usage "segment(s) 3, 4 of 4 missing" "$LUAMECH" merge "$TMP/memcached/seg-1" "$TMP/memcached/seg-2" --out "$TMP/bad3"
expect_usage "not the result of a segment" "$LUAMECH" merge "$TMP/memcached-whole" --out "$TMP/bad4"
expect_usage "a phased and an unphased run" "$LUAMECH" merge "$TMP/ph/seg-1" "$TMP/memcached/seg-2" --out "$TMP/bad5"
"$LUAMECH" merge "$TMP/memcached/seg-1" "$TMP/memcached/seg-2" --allow-partial --out "$TMP/partial" > /dev/null 2>&1
check "--allow-partial: merges what is there ($?) and names the missing segments" \
    [ "$(jq -c .missing_segments "$TMP/partial/summary.json")" = "[3,4]" ]
check "--allow-partial: report.html names them" grep -q "Missing segments (merged with --allow-partial): 3 4" "$TMP/partial/report.html"
# a segment that died mid-run (its files say "running"): merged, exit 5
cp -r "$TMP/memcached" "$TMP/dead"
jq '.status = "running" | .exit_code = -1' "$TMP/dead/seg-2/summary.json" > "$TMP/dead.json" && mv "$TMP/dead.json" "$TMP/dead/seg-2/summary.json"
"$LUAMECH" merge "$TMP"/dead/seg-* --out "$TMP/dead/merged" > /dev/null 2>&1
check "a segment that died: the merge exits 5 ($?)" [ $? -eq 5 ]
check "a segment that died: merged status interrupted" [ "$(jqr "$TMP/dead/merged/summary.json" .status)" = interrupted ]
finish
