# `luamech merge` on corrupt or crafted segment results (docs/distributed.md,
# "merge"; docs/reliability.md, "merge on hostile inputs"): two real
# segments of a no-server scenario (fixtures/merge_seed.lua), then copies of
# them edited with jq.  Each bad input gets one message naming the file and
# exit 2, within 1 s and 100 MB (peak RSS and wall time from /usr/bin/time;
# the merge runs under a 2 GB address-space limit (not in the ASan build)
# and a 20 s timeout, so a
# regression fails instead of eating the machine); the segments' own files
# are never touched and nothing is written outside --out.  Also the merge's
# console: the compact end report, the full one with --verbose / -v.
. "$(dirname "$0")/lib.sh"
F=$SRC/tests/scenarios/fixtures
jqe() { jq "$@" > /dev/null; }
# under AddressSanitizer (the sanitizer build) no address-space limit (its
# shadow memory needs terabytes of it) and no time or memory figures
ASAN=0
ldd "$LUAMECH" 2>/dev/null | grep -q libasan && ASAN=1
S=$TMP/segs
for i in 1 2; do
    "$LUAMECH" run "$F/merge_seed.lua" -q -e RUN_TIME=2s --segment $i/2 -o "$S/seg-$i" > "$TMP/run$i.log" 2>&1 &
done
wait
"$LUAMECH" run "$F/merge_seed.lua" -q -e RUN_TIME=2s -e INTERVAL=2s --segment 2/2 -o "$TMP/int2" > /dev/null 2>&1
# another run of 3 intervals: its log cannot match seg-2 by chance (sleeping VUs make equal counts)
"$LUAMECH" run "$F/merge_seed.lua" -q -e RUN_TIME=3s --segment 2/2 -o "$TMP/other" > /dev/null 2>&1
"$LUAMECH" merge "$S/seg-1" "$S/seg-2" --out "$TMP/good" > "$TMP/good.out" 2>&1
check "the real segments merge (exit $?)" [ $? -eq 0 ]
# the console: the compact end report by default, the full one with --verbose (as run's), both ending with the segments
check "merge prints the compact end report (its Timers table, no full summary)" \
    [ -n "$(grep '^Timers (ms' "$TMP/good.out")" -a -z "$(grep 'Transaction Response Summary' "$TMP/good.out")" ]
for v in --verbose -v; do
    "$LUAMECH" merge "$S/seg-1" "$S/seg-2" --out "$TMP/good$v" $v > "$TMP/good$v.out" 2>&1
    check "merge $v: exit 0 ($?)" [ $? -eq 0 ]
    check "merge $v: the full end report (summary, interval details), then the segments" \
        [ -n "$(grep 'Transaction Response Summary' "$TMP/good$v.out")" -a -n "$(grep '^Interval Details (ms)' "$TMP/good$v.out")" \
          -a -z "$(grep '^Timers (ms' "$TMP/good$v.out")" -a -n "$(grep '^Merged from 2 of 2 segments' "$TMP/good$v.out")" ]
    check "merge $v: the same summary.json as without it" \
        [ "$(jq -S -c 'del(.start, .finish)' "$TMP/good$v/summary.json")" = "$(jq -S -c 'del(.start, .finish)' "$TMP/good/summary.json")" ]
done
"$LUAMECH" merge --help > "$TMP/merge-help" 2>&1
check "merge --help names --verbose" grep -q -- '-v, --verbose  *the full end report' "$TMP/merge-help"
sums() { (cd "$S" && find . -type f | sort | xargs md5sum); }
before=$(sums)

# crafted CASE 'JQ FILTER' [SEGMENTS]: copies of seg-1 and seg-2 with FILTER applied
# to the summary.json of the segments named (default: both)
crafted() {
    local name=$1 filter=$2 which=${3:-1 2} i
    rm -rf "$TMP/$name"
    cp -r "$S" "$TMP/$name"
    for i in $which; do
        jq "$filter" "$S/seg-$i/summary.json" > "$TMP/$name/seg-$i/summary.json"
    done
}
# refused CASE "message part" [merge args]: merge CASE's segments: exit 2, the message,
# within 1 s and 100 MB, nothing merged
refused() {
    local name=$1 want=$2; shift 2
    local out=$TMP/$name.out
    ([ $ASAN = 1 ] || ulimit -v 2000000; timeout 20 /usr/bin/time -f "%e %M" -o "$TMP/$name.time" \
        "$LUAMECH" merge "$TMP/$name/seg-1" "$TMP/$name/seg-2" --out "$out" "$@" > /dev/null 2> "$TMP/$name.err")
    local rc=$? t
    t=$(tail -1 "$TMP/$name.time" 2>/dev/null)
    check "$name: exit 2 ($rc)" [ $rc -eq 2 ]
    check "$name: says '$want' ($(head -c 300 "$TMP/$name.err" | head -1))" grep -qF -- "$want" "$TMP/$name.err"
    # a bad file is no usage error: one line, no usage; --out inside a segment is (the argument)
    local lines=1
    case $name in outseg) lines=2 ;; esac
    check "$name: one message line$([ $lines = 2 ] && echo ' and the usage line')" \
        [ "$(grep -c 'luamech merge:' "$TMP/$name.err")" -eq 1 -a "$(wc -l < "$TMP/$name.err")" -eq $lines ]
    [ $ASAN = 1 ] || check "$name: within 1 s and 100 MB ($(awk -v t="$t" 'BEGIN { split(t, a, " "); printf "%s s, %d MB", a[1], a[2] / 1024 }'))" \
        awk -v t="$t" 'BEGIN { split(t, a, " "); exit !(a[1] < 1 && a[2] < 100 * 1024) }'
    check "$name: no merged summary.json" [ ! -e "$out/summary.json" ]
}

# 10: sizes and spans from the files are bounded before anything is allocated
crafted count2e9 '.segment.count = 2000000000'
refused count2e9 "seg-1/summary.json: segment.count = 2000000000: expected a whole number from 1 to 100000"
crafted start0 '.start_unix_ns = 0' 2
refused start0 "seg-2/summary.json: start_unix_ns: expected the start in ns since the epoch"
crafted dayafter '.start_unix_ns += 86400000000000' 2
refused dayafter "seg-2/summary.json: segment 2 started 86400 s after segment 1"
# 11: numbers are checked before they are converted
crafted count1e300 '.segment.count = 1e300'
refused count1e300 "segment.count = 1e+300: expected a whole number"
crafted interval1e300 '.settings.interval_s = 1e300'
refused interval1e300 "settings.interval_s = 1e+300: expected a number from 0.001 to 86400"
crafted interval0 '.settings.interval_s = 0'
refused interval0 "settings.interval_s: expected the statistics interval in seconds"
crafted rowhuge '(.timers[0].intervals[0].errors) = 1e300' 2
refused rowhuge "seg-2/summary.json: timers[0].intervals[0].errors = 1e+300"
crafted rowneg '(.counters[0].intervals[1]) = -5e18' 1
refused rowneg "seg-1/summary.json: counters[0].intervals[1] = -5e+18"
crafted p99 '(.timers[0].intervals[1].p99_ms) = 1e300' 1
refused p99 "timers[0].intervals[1].p99_ms = 1e+300"
crafted total '(.timers[0].summary.count) = 1e300' 2
refused total "seg-2/summary.json: timers[0].summary.count = 1e+300"
crafted noseg 'del(.segment.index)' 1
refused noseg "seg-1/summary.json: not the result of a segment (segment 0 of 2)"
# 11b: an entry listed twice would be added twice (a copy of All Transactions: 2x its count), a figure
# summary_load refuses for report and compare is refused here too (src/report/summary_read.c)
crafted duptimer '.timers += [.timers[] | select(.name == "All Transactions")]' 1
refused duptimer 'seg-1/summary.json: timers[0] and timers['
check "duptimer: names the timer" grep -q 'are both called "All Transactions" of the same kind' "$TMP/duptimer.err"
crafted dupgroup '.groups += [.groups[0]]' 2
refused dupgroup 'seg-2/summary.json: groups[0] and groups[1] are both called'
crafted dupcounter '.counters += [.counters[0]]' 2
refused dupcounter 'seg-2/summary.json: counters[0] and counters['
crafted p95neg '(.timers[0].summary.p95_ms) = -1' 1
refused p95neg "seg-1/summary.json: timers[0].summary.p95_ms = -1: expected a number from 0 to"
crafted sumdir '.'
rm "$TMP/sumdir/seg-1/summary.json" && mkdir "$TMP/sumdir/seg-1/summary.json"
refused sumdir "seg-1/summary.json: not a regular file"
# --out whose summary.json cannot be written: the reason is said (exit 1)
mkdir -p "$TMP/outdir/summary.json"
"$LUAMECH" merge "$S/seg-1" "$S/seg-2" --out "$TMP/outdir" > /dev/null 2> "$TMP/outdir.err"
check "--out/summary.json a directory: exit 1 ($?)" [ $? -eq 1 ]
check "... and why ($(cat "$TMP/outdir.err"))" grep -q "cannot write the merged results into $TMP/outdir: Is a directory" "$TMP/outdir.err"

# 12: inconsistent segments
rm -rf "$TMP/mixed" && mkdir -p "$TMP/mixed" && cp -r "$S/seg-1" "$TMP/mixed/" && cp -r "$TMP/int2" "$TMP/mixed/seg-2"
refused mixed "different statistics interval (settings.interval_s)"
crafted otherlog '.'
cp "$TMP/other/histograms.hlog" "$TMP/otherlog/seg-2/histograms.hlog"
refused otherlog "seg-2/histograms.hlog does not match $TMP/otherlog/seg-2/summary.json: a line of interval 3"
crafted shortlog '.'
head -n -3 "$S/seg-1/histograms.hlog" > "$TMP/shortlog/seg-1/histograms.hlog"
refused shortlog "seg-1/histograms.hlog does not match"
crafted ghost '.'
grep '^Tag=nap,0.000' "$S/seg-1/histograms.hlog" | sed 's/^Tag=nap,/Tag=ghost,/' >> "$TMP/ghost/seg-1/histograms.hlog"
refused ghost 'seg-1/histograms.hlog does not match'
check "ghost: names the line without a row" grep -qE 'timer "ghost", interval 1: [0-9]+ sample\(s\) in the log, none in summary.json' "$TMP/ghost.err"
crafted twice '.'
grep '^Tag=nap,0.000' "$S/seg-2/histograms.hlog" >> "$TMP/twice/seg-2/histograms.hlog"
refused twice 'seg-2/histograms.hlog: timer "nap" has two lines for interval 1'
crafted exit256 '.exit_code = 256' 2
refused exit256 "seg-2/summary.json: exit_code 256 is not an exit code a run writes"
crafted exit3 '.exit_code = 3' 1
refused exit3 "exit_code 3 is not an exit code"
crafted status '.status = "done"' 1
refused status "status \"done\" is not a run's status"
crafted dup '.segment.index = 1' 2
refused dup "segment 1/2 given twice"

# 13: --out may not be a segment's directory or inside one; the segments stay as they were
crafted outseg '.'
refused outseg "is the directory of segment" --out "$TMP/outseg/seg-1"
refused outseg "is inside segment" --out "$TMP/outseg/seg-2/merged"
ln -s "$TMP/outseg/seg-1" "$TMP/link-to-seg1"
refused outseg "is the directory of segment" --out "$TMP/link-to-seg1/."
refused outseg "is the directory of segment" --out "$TMP/outseg/x/../seg-2/sub/.."
refused outseg "is inside segment" --out "$TMP/link-to-seg1/new/../merged"
"$LUAMECH" merge "$TMP/outseg/seg-1" "$TMP/outseg/seg-2" --out "$TMP/outseg/merged" > /dev/null 2>&1
check "--out refused: the segments still merge afterwards (exit $?)" [ $? -eq 0 ]
check "the real segments' files are unchanged" [ "$(sums)" = "$before" ]

# 13: a phased run's phase names become directory names only as a run makes them
P=$TMP/ph
for i in 1 2; do
    "$LUAMECH" run "$F/merge_seed_phases.lua" -q --segment $i/2 -o "$P/seg-$i" > /dev/null 2>&1 &
done
wait
"$LUAMECH" merge "$P/seg-1" "$P/seg-2" --out "$TMP/ph-good" > /dev/null 2>&1
check "phased: the real segments merge (exit $?), phase 2 into 2-two_b" [ $? -eq 0 -a -s "$TMP/ph-good/2-two_b/summary.json" ]
# the name and dir of phase 1 set to ../evil/p1 in both segments, the directories moved there
for i in 1 2; do
    mkdir -p "$TMP/evil-seg$i/evil" && cp -r "$P/seg-$i" "$TMP/evil-seg$i/evil/seg-$i"
    mkdir -p "$TMP/evil-seg$i/evil/p1" && cp -r "$P/seg-$i/1-one/"* "$TMP/evil-seg$i/evil/p1/"
    jq '.phases[0].name = "../evil/p1" | .phases[0].dir = "../evil/p1"' "$P/seg-$i/summary.json" \
        > "$TMP/evil-seg$i/evil/seg-$i/summary.json"
done
mkdir -p "$TMP/evil-out"
"$LUAMECH" merge "$TMP/evil-seg1/evil/seg-1" "$TMP/evil-seg2/evil/seg-2" --out "$TMP/evil-out/merged" > /dev/null 2> "$TMP/evil.err"
rc=$?
check "phased: a phase dir ../evil/p1 is refused (exit $rc)" [ $rc -eq 2 ]
check "phased: says which phase and file" grep -qF 'summary.json: phases[0].dir "../evil/p1" is not the directory of phase "../evil/p1" (1-_._evil_p1)' "$TMP/evil.err"
check "phased: nothing written outside --out" [ "$(ls "$TMP/evil-out")" = "" ]
# the same name with the directory a run gives it: merged inside --out
for i in 1 2; do
    mv "$TMP/evil-seg$i/evil/p1" "$TMP/evil-seg$i/evil/seg-$i/1-_._evil_p1"
    jq '.phases[0].dir = "1-_._evil_p1"' "$TMP/evil-seg$i/evil/seg-$i/summary.json" > "$TMP/evil.json"
    mv "$TMP/evil.json" "$TMP/evil-seg$i/evil/seg-$i/summary.json"
done
"$LUAMECH" merge "$TMP/evil-seg1/evil/seg-1" "$TMP/evil-seg2/evil/seg-2" --out "$TMP/evil-out/merged" > /dev/null 2>&1
check "phased: phase ../evil/p1 in its own directory merges (exit $?) into --out/1-_._evil_p1" \
    [ -s "$TMP/evil-out/merged/1-_._evil_p1/summary.json" ]
check "phased: still nothing outside --out ($(ls "$TMP/evil-out" | tr '\n' ' '))" [ "$(ls "$TMP/evil-out")" = merged ]
rm -rf "$TMP/phplan" && cp -r "$P" "$TMP/phplan"
jq '.phases_planned = 2000000000' "$P/seg-1/summary.json" > "$TMP/phplan/seg-1/summary.json"
jq '.phases_planned = 2000000000' "$P/seg-2/summary.json" > "$TMP/phplan/seg-2/summary.json"
refused phplan "phases_planned = 2000000000: expected a whole number from 1 to 10000"
# --follow stopped by a signal: a final merge of what there is, status interrupted, exit 5, one message;
# the DIR/followed marks it made are gone, one it did not make stays.  Waits are polls, not timing checks.
waitfor() { # FILE PATTERN: up to 30 s for PATTERN in FILE (or for FILE to exist, PATTERN "")
    local i
    for i in $(seq 300); do
        if [ -z "$2" ]; then [ -e "$1" ] && return 0; else grep -q -- "$2" "$1" 2>/dev/null && return 0; fi
        sleep 0.1
    done
    return 1
}
rm -rf "$TMP/fint" && mkdir -p "$TMP/fint" && cp -r "$S/seg-1" "$TMP/fint/seg-1" && rm -f "$TMP/fint/seg-1/followed"
mkdir -p "$TMP/fint/other" && echo theirs > "$TMP/fint/other/followed"
"$LUAMECH" merge --follow "$TMP/fint/seg-1" "$TMP/fint/seg-2" "$TMP/fint/other" --out "$TMP/fint/merged" --allow-partial \
    > "$TMP/fint.out" 2> "$TMP/fint.err" &
pid=$!
waitfor "$TMP/fint/merged/summary.json" ""
check "--follow: a live merge of segment 1 while 2 is awaited, marked followed" [ -e "$TMP/fint/seg-1/followed" ]
kill -INT $pid
wait $pid
rc=$?
check "--follow, SIGINT: exit 5 ($rc)" [ $rc -eq 5 ]
check "... one message saying so ($(grep -v '^[0-9]*/[0-9]* segments' "$TMP/fint.err" | tr '\n' '|'))" \
    [ "$(grep -c 'stopped by SIGINT: merging what there is (status interrupted)' "$TMP/fint.err")" -eq 1 ]
check "... the merged results say interrupted, exit_code 5 ($(jq -c '[.status, .exit_code]' "$TMP/fint/merged/summary.json"))" \
    [ "$(jq -c '[.status, .exit_code, .missing_segments]' "$TMP/fint/merged/summary.json")" = '["interrupted",5,[2]]' ]
check "... its followed mark removed, another's kept" [ ! -e "$TMP/fint/seg-1/followed" -a "$(cat "$TMP/fint/other/followed")" = theirs ]
# no segment ever appears: what it waits for is said, and SIGTERM ends it (nothing to merge, exit 5)
"$LUAMECH" merge --follow "$TMP/never/seg-1" "$TMP/never/seg-2" --out "$TMP/never/merged" > /dev/null 2> "$TMP/never.err" &
pid=$!
waitfor "$TMP/never.err" "waiting for 2 of 2 segments to write results"
check "--follow: says what it waits for ($(head -1 "$TMP/never.err"))" \
    grep -q "^luamech merge: --follow: waiting for 2 of 2 segments to write results (.*): $TMP/never/seg-1 $TMP/never/seg-2\$" "$TMP/never.err"
kill -TERM $pid
wait $pid
rc=$?
check "--follow, SIGTERM before any result: exit 5 ($rc), said, nothing written" \
    [ $rc -eq 5 -a -n "$(grep 'stopped by SIGTERM: no segment had written results: nothing merged' "$TMP/never.err")" -a ! -e "$TMP/never/merged/summary.json" ]
finish
