# summary.json is not rewritten at every interval: a real run of 200
# intervals (100 ms each, 12 custom timers, no server) under strace, which
# counts the renames onto summary.json and the bytes written to its
# temporary files.  Rewritten at every interval (the old writer) that was
# 200 renames and about 100 times the final file (the rows grow with the
# run: quadratic); on report_summary_due's schedule it is 38 snapshots, the
# final write and the scenario_files update, and about 10 times the final
# file.  A structural count, not a timing: a loaded machine closes the same
# 200 intervals.  The final summary.json has every row (as intervals.csv).
. "$(dirname "$0")/lib.sh"
command -v strace > /dev/null || { echo "FAIL strace is missing (apt-get install strace)"; exit 1; }
cat > "$TMP/vu.lua" <<'LUA'
return function()
  for i = 1, 12 do luamech.record("t" .. i, 0.001 * i) end
  luamech.sleep(0.02)
end
LUA
printf 'return { groups = { { vus = 1, script = "vu.lua" } } }\n' > "$TMP/s.lua"
# LeakSanitizer cannot run under ptrace: leaks are checked by every other test
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" timeout 300 strace -f -qq -y -s 0 -o "$TMP/strace" \
    -e trace=write,rename,renameat,renameat2 \
    "$LUAMECH" run "$TMP/s.lua" -q -w 1 -d 20s -i 100ms -o "$TMP/r" > "$TMP/out" 2>&1
rc=$?
check "200 intervals under strace: exit 0 ($rc; $(tail -c 300 "$TMP/out"))" [ $rc -eq 0 ]
s=$TMP/r/summary.json
rows=$(jq '[.timers[] | select(.name == "t1") | .intervals | length] | add // 0' "$s")
csv=$(grep -c '^[0-9]*,.*,"t1",' "$TMP/r/intervals.csv" || true)
check "final summary.json: status completed, every interval's row ($rows, intervals.csv $csv)" \
    [ "$(jq -r .status "$s")" = completed -a "$rows" -ge 199 -a "$rows" = "$csv" ]
renames=$(grep -cE 'rename(at2?)?\(.*summary\.json[^>]*\.tmp.*summary\.json' "$TMP/strace" || true)
bytes=$(awk '/write\([0-9]+<[^>]*\/\.summary\.json[^>]*\.tmp>/ { n = $NF; if (n ~ /^[0-9]+$/) s += n } END { print s + 0 }' "$TMP/strace")
final=$(stat -c %s "$s")
echo "summary.json: $renames renames, $bytes bytes written to its temporary files, final file $final bytes"
check "summary.json renamed $renames times over 200 intervals (> 2, < 50)" [ "$renames" -gt 2 -a "$renames" -lt 50 ]
check "bytes written to summary.json ($bytes) < 14 x the final file ($final)" [ "$bytes" -gt "$final" -a "$bytes" -lt $((14 * final)) ]
finish
